// The emulator's model of cp.async, from the PTX ISA (lib/Emulator/
// ExecAsync.cpp), on hand-written kernels: a copy lands at the
// cp.async.wait_group that covers its group; until then touching its
// destination, or writing its source, is an error naming both ops; other
// threads see what landed after a barrier.
//
// Each thread t copies In[t] to shared float t and, after the wait and the
// barrier, stores shared float (t + 1) % 64 to Out[t].
// RUN: tile-emulate %s --kernel clean --arg 'In=f32[64]' --arg 'Out=f32[64]' --output Out --fill index --print 4 | FileCheck %s --check-prefix=CLEAN
// CLEAN: Out f32[64]: sum 2016, first 1 2 3 4
//
// The source size zero-fills: 16 bytes with 8 from In leave two zeros.
// RUN: tile-emulate %s --kernel zero_fill --arg 'In=f32[64]' --arg 'Out=f32[64]' --output Out --fill ones --print 4 | FileCheck %s --check-prefix=ZERO-FILL
// ZERO-FILL: Out f32[64]: sum 32, first 1 1 0 0
//
// RUN: not tile-emulate %s --kernel no_wait --arg 'In=f32[64]' --arg 'Out=f32[64]' 2>&1 | FileCheck %s --check-prefix=NO-WAIT
// RUN: not tile-emulate %s --kernel shallow_wait --arg 'In=f32[64]' --arg 'Out=f32[64]' 2>&1 | FileCheck %s --check-prefix=SHALLOW
// RUN: not tile-emulate %s --kernel no_barrier --arg 'In=f32[64]' --arg 'Out=f32[64]' 2>&1 | FileCheck %s --check-prefix=NO-BARRIER
// RUN: not tile-emulate %s --kernel write_source --arg 'In=f32[64]' --arg 'Out=f32[64]' 2>&1 | FileCheck %s --check-prefix=WRITE-SOURCE
// RUN: not tile-emulate %s --kernel overwrite --arg 'In=f32[64]' --arg 'Out=f32[64]' 2>&1 | FileCheck %s --check-prefix=OVERWRITE
// RUN: not tile-emulate %s --kernel store_destination --arg 'In=f32[64]' --arg 'Out=f32[64]' 2>&1 | FileCheck %s --check-prefix=STORE-DESTINATION
// RUN: not tile-emulate %s --kernel misaligned --arg 'In=f32[64]' --arg 'Out=f32[64]' 2>&1 | FileCheck %s --check-prefix=MISALIGNED
// RUN: not tile-emulate %s --kernel source_outside --arg 'In=f32[64]' --arg 'Out=f32[64]' 2>&1 | FileCheck %s --check-prefix=OUTSIDE
//
// A store marked tile.async_copy (an async copy's element-wise part, which
// tile-to-gpu lowers to plain stores) is held in flight like a cp.async:
// read after its wait and a barrier it is clean; read before the wait it
// is the same fault as a cp.async's; after the wait with no barrier, a race.
// RUN: tile-emulate %s --kernel stored_clean --arg 'In=f32[64]' --arg 'Out=f32[64]' --output Out --fill index --print 4 | FileCheck %s --check-prefix=CLEAN
// RUN: not tile-emulate %s --kernel stored_no_wait --arg 'In=f32[64]' --arg 'Out=f32[64]' 2>&1 | FileCheck %s --check-prefix=STORED-NO-WAIT
// RUN: not tile-emulate %s --kernel stored_no_barrier --arg 'In=f32[64]' --arg 'Out=f32[64]' 2>&1 | FileCheck %s --check-prefix=STORED-NO-BARRIER

module attributes {gpu.container_module} {
gpu.module @tile_kernels {
  gpu.func @clean(%in: !llvm.ptr<1>, %out: !llvm.ptr<1>) workgroup(%shared : memref<256xi8, #gpu.address_space<workgroup>>) kernel attributes {known_block_size = array<i32: 64, 1, 1>} {
    %tid = gpu.thread_id x
    %t = arith.index_cast %tid : index to i64
    %base = memref.extract_aligned_pointer_as_index %shared : memref<256xi8, #gpu.address_space<workgroup>> -> index
    %b64 = arith.index_cast %base : index to i64
    %sp = llvm.inttoptr %b64 : i64 to !llvm.ptr<3>
    %dst = llvm.getelementptr %sp[%t] : (!llvm.ptr<3>, i64) -> !llvm.ptr<3>, f32
    %src = llvm.getelementptr %in[%t] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
    nvvm.cp.async.shared.global %dst, %src, 4, cache = ca : !llvm.ptr<3>, !llvm.ptr<1>
    nvvm.cp.async.commit.group
    nvvm.cp.async.wait.group 0
    gpu.barrier
    %c1 = arith.constant 1 : i64
    %c63 = arith.constant 63 : i64
    %n = arith.addi %t, %c1 : i64
    %next = arith.andi %n, %c63 : i64
    %from = llvm.getelementptr %sp[%next] : (!llvm.ptr<3>, i64) -> !llvm.ptr<3>, f32
    %v = llvm.load %from : !llvm.ptr<3> -> f32
    %to = llvm.getelementptr %out[%t] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
    llvm.store %v, %to : f32, !llvm.ptr<1>
    gpu.return
  }

  // Threads 0 to 15 each copy In[4t .. 4t + 1] into shared floats
  // 4t .. 4t + 3: 16 bytes, 8 of them read.
  gpu.func @zero_fill(%in: !llvm.ptr<1>, %out: !llvm.ptr<1>) workgroup(%shared : memref<256xi8, #gpu.address_space<workgroup>>) kernel attributes {known_block_size = array<i32: 64, 1, 1>} {
    %tid = gpu.thread_id x
    %t = arith.index_cast %tid : index to i64
    %base = memref.extract_aligned_pointer_as_index %shared : memref<256xi8, #gpu.address_space<workgroup>> -> index
    %b64 = arith.index_cast %base : index to i64
    %sp = llvm.inttoptr %b64 : i64 to !llvm.ptr<3>
    %c16 = arith.constant 16 : index
    %c4 = arith.constant 4 : i64
    %eight = arith.constant 8 : i32
    %first = arith.cmpi ult, %tid, %c16 : index
    scf.if %first {
      %four = arith.muli %t, %c4 : i64
      %dst = llvm.getelementptr %sp[%four] : (!llvm.ptr<3>, i64) -> !llvm.ptr<3>, f32
      %src = llvm.getelementptr %in[%four] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
      nvvm.cp.async.shared.global %dst, %src, 16, cache = cg, %eight : !llvm.ptr<3>, !llvm.ptr<1>, i32
    }
    nvvm.cp.async.commit.group
    nvvm.cp.async.wait.group 0
    gpu.barrier
    %from = llvm.getelementptr %sp[%t] : (!llvm.ptr<3>, i64) -> !llvm.ptr<3>, f32
    %v = llvm.load %from : !llvm.ptr<3> -> f32
    %to = llvm.getelementptr %out[%t] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
    llvm.store %v, %to : f32, !llvm.ptr<1>
    gpu.return
  }

  // A barrier completes no copy: thread 0 reads thread 1's destination.
  gpu.func @no_wait(%in: !llvm.ptr<1>, %out: !llvm.ptr<1>) workgroup(%shared : memref<256xi8, #gpu.address_space<workgroup>>) kernel attributes {known_block_size = array<i32: 64, 1, 1>} {
    %tid = gpu.thread_id x
    %t = arith.index_cast %tid : index to i64
    %base = memref.extract_aligned_pointer_as_index %shared : memref<256xi8, #gpu.address_space<workgroup>> -> index
    %b64 = arith.index_cast %base : index to i64
    %sp = llvm.inttoptr %b64 : i64 to !llvm.ptr<3>
    %dst = llvm.getelementptr %sp[%t] : (!llvm.ptr<3>, i64) -> !llvm.ptr<3>, f32
    %src = llvm.getelementptr %in[%t] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
    // NO-WAIT: async-copies.mlir:[[@LINE+10]]:10: error: emulate: read of byte 4 of shared memory, the destination of a cp.async of thread (1, 0, 0) that is still in flight: no cp.async.wait_group of that thread covers it yet, in block (0, 0, 0), thread (0, 0, 0)
    // NO-WAIT: async-copies.mlir:[[@LINE+1]]:5: note: the cp.async
    nvvm.cp.async.shared.global %dst, %src, 4, cache = ca : !llvm.ptr<3>, !llvm.ptr<1>
    nvvm.cp.async.commit.group
    gpu.barrier
    %c1 = arith.constant 1 : i64
    %c63 = arith.constant 63 : i64
    %n = arith.addi %t, %c1 : i64
    %next = arith.andi %n, %c63 : i64
    %from = llvm.getelementptr %sp[%next] : (!llvm.ptr<3>, i64) -> !llvm.ptr<3>, f32
    %v = llvm.load %from : !llvm.ptr<3> -> f32
    %to = llvm.getelementptr %out[%t] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
    llvm.store %v, %to : f32, !llvm.ptr<1>
    gpu.return
  }

  // Two groups; waiting with one pending leaves the second in flight.
  gpu.func @shallow_wait(%in: !llvm.ptr<1>, %out: !llvm.ptr<1>) workgroup(%shared : memref<512xi8, #gpu.address_space<workgroup>>) kernel attributes {known_block_size = array<i32: 64, 1, 1>} {
    %tid = gpu.thread_id x
    %t = arith.index_cast %tid : index to i64
    %c64 = arith.constant 64 : i64
    %base = memref.extract_aligned_pointer_as_index %shared : memref<512xi8, #gpu.address_space<workgroup>> -> index
    %b64 = arith.index_cast %base : index to i64
    %sp = llvm.inttoptr %b64 : i64 to !llvm.ptr<3>
    %src = llvm.getelementptr %in[%t] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
    %dst0 = llvm.getelementptr %sp[%t] : (!llvm.ptr<3>, i64) -> !llvm.ptr<3>, f32
    nvvm.cp.async.shared.global %dst0, %src, 4, cache = ca : !llvm.ptr<3>, !llvm.ptr<1>
    nvvm.cp.async.commit.group
    %t1 = arith.addi %t, %c64 : i64
    %dst1 = llvm.getelementptr %sp[%t1] : (!llvm.ptr<3>, i64) -> !llvm.ptr<3>, f32
    // SHALLOW: async-copies.mlir:[[@LINE+6]]:10: error: emulate: read of byte 256 of shared memory, the destination of a cp.async of thread (0, 0, 0) that is still in flight
    // SHALLOW: async-copies.mlir:[[@LINE+1]]:5: note: the cp.async
    nvvm.cp.async.shared.global %dst1, %src, 4, cache = ca : !llvm.ptr<3>, !llvm.ptr<1>
    nvvm.cp.async.commit.group
    nvvm.cp.async.wait.group 1
    gpu.barrier
    %v = llvm.load %dst1 : !llvm.ptr<3> -> f32
    %to = llvm.getelementptr %out[%t] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
    llvm.store %v, %to : f32, !llvm.ptr<1>
    gpu.return
  }

  // After the wait, without the barrier: thread 1 reads the float thread 0
  // copied, with no barrier between.
  gpu.func @no_barrier(%in: !llvm.ptr<1>, %out: !llvm.ptr<1>) workgroup(%shared : memref<256xi8, #gpu.address_space<workgroup>>) kernel attributes {known_block_size = array<i32: 64, 1, 1>} {
    %tid = gpu.thread_id x
    %t = arith.index_cast %tid : index to i64
    %base = memref.extract_aligned_pointer_as_index %shared : memref<256xi8, #gpu.address_space<workgroup>> -> index
    %b64 = arith.index_cast %base : index to i64
    %sp = llvm.inttoptr %b64 : i64 to !llvm.ptr<3>
    %dst = llvm.getelementptr %sp[%t] : (!llvm.ptr<3>, i64) -> !llvm.ptr<3>, f32
    %src = llvm.getelementptr %in[%t] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
    // NO-BARRIER: async-copies.mlir:[[@LINE+9]]:10: error: emulate: shared-memory race: read of byte 0 of shared memory, which thread (0, 0, 0) wrote with no barrier between, in block (0, 0, 0), thread (1, 0, 0)
    // NO-BARRIER: async-copies.mlir:[[@LINE+1]]:5: note: the write of thread (0, 0, 0)
    nvvm.cp.async.shared.global %dst, %src, 4, cache = ca : !llvm.ptr<3>, !llvm.ptr<1>
    nvvm.cp.async.commit.group
    nvvm.cp.async.wait.group 0
    %c63 = arith.constant 63 : i64
    %n = arith.addi %t, %c63 : i64
    %previous = arith.andi %n, %c63 : i64
    %from = llvm.getelementptr %sp[%previous] : (!llvm.ptr<3>, i64) -> !llvm.ptr<3>, f32
    %v = llvm.load %from : !llvm.ptr<3> -> f32
    %to = llvm.getelementptr %out[%t] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
    llvm.store %v, %to : f32, !llvm.ptr<1>
    gpu.return
  }

  // Storing to the source before the wait.
  gpu.func @write_source(%in: !llvm.ptr<1>, %out: !llvm.ptr<1>) workgroup(%shared : memref<256xi8, #gpu.address_space<workgroup>>) kernel attributes {known_block_size = array<i32: 64, 1, 1>} {
    %tid = gpu.thread_id x
    %t = arith.index_cast %tid : index to i64
    %base = memref.extract_aligned_pointer_as_index %shared : memref<256xi8, #gpu.address_space<workgroup>> -> index
    %b64 = arith.index_cast %base : index to i64
    %sp = llvm.inttoptr %b64 : i64 to !llvm.ptr<3>
    %dst = llvm.getelementptr %sp[%t] : (!llvm.ptr<3>, i64) -> !llvm.ptr<3>, f32
    %src = llvm.getelementptr %in[%t] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
    // WRITE-SOURCE: async-copies.mlir:[[@LINE+4]]:5: error: emulate: write of byte 0 of tensor 'In', the source of a cp.async of thread (0, 0, 0) that is still in flight
    // WRITE-SOURCE: async-copies.mlir:[[@LINE+1]]:5: note: the cp.async
    nvvm.cp.async.shared.global %dst, %src, 4, cache = ca : !llvm.ptr<3>, !llvm.ptr<1>
    %v = arith.constant 2.0 : f32
    llvm.store %v, %src : f32, !llvm.ptr<1>
    nvvm.cp.async.commit.group
    nvvm.cp.async.wait.group 0
    gpu.return
  }

  // A second copy into bytes the first still writes.
  gpu.func @overwrite(%in: !llvm.ptr<1>, %out: !llvm.ptr<1>) workgroup(%shared : memref<256xi8, #gpu.address_space<workgroup>>) kernel attributes {known_block_size = array<i32: 64, 1, 1>} {
    %tid = gpu.thread_id x
    %t = arith.index_cast %tid : index to i64
    %base = memref.extract_aligned_pointer_as_index %shared : memref<256xi8, #gpu.address_space<workgroup>> -> index
    %b64 = arith.index_cast %base : index to i64
    %sp = llvm.inttoptr %b64 : i64 to !llvm.ptr<3>
    %dst = llvm.getelementptr %sp[%t] : (!llvm.ptr<3>, i64) -> !llvm.ptr<3>, f32
    %src = llvm.getelementptr %in[%t] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
    // OVERWRITE: async-copies.mlir:[[@LINE+3]]:5: error: emulate: write of byte 0 of shared memory, the destination of a cp.async of thread (0, 0, 0) that is still in flight
    // OVERWRITE: async-copies.mlir:[[@LINE+1]]:5: note: the cp.async
    nvvm.cp.async.shared.global %dst, %src, 4, cache = ca : !llvm.ptr<3>, !llvm.ptr<1>
    nvvm.cp.async.shared.global %dst, %src, 4, cache = ca : !llvm.ptr<3>, !llvm.ptr<1>
    nvvm.cp.async.commit.group
    nvvm.cp.async.wait.group 0
    gpu.return
  }

  // A store of the thread's own into the destination before the wait.
  gpu.func @store_destination(%in: !llvm.ptr<1>, %out: !llvm.ptr<1>) workgroup(%shared : memref<256xi8, #gpu.address_space<workgroup>>) kernel attributes {known_block_size = array<i32: 64, 1, 1>} {
    %tid = gpu.thread_id x
    %t = arith.index_cast %tid : index to i64
    %base = memref.extract_aligned_pointer_as_index %shared : memref<256xi8, #gpu.address_space<workgroup>> -> index
    %b64 = arith.index_cast %base : index to i64
    %sp = llvm.inttoptr %b64 : i64 to !llvm.ptr<3>
    %dst = llvm.getelementptr %sp[%t] : (!llvm.ptr<3>, i64) -> !llvm.ptr<3>, f32
    %src = llvm.getelementptr %in[%t] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
    // STORE-DESTINATION: async-copies.mlir:[[@LINE+4]]:5: error: emulate: write of byte 0 of shared memory, the destination of a cp.async of thread (0, 0, 0) that is still in flight
    // STORE-DESTINATION: async-copies.mlir:[[@LINE+1]]:5: note: the cp.async
    nvvm.cp.async.shared.global %dst, %src, 4, cache = ca : !llvm.ptr<3>, !llvm.ptr<1>
    %v = arith.constant 2.0 : f32
    llvm.store %v, %dst : f32, !llvm.ptr<3>
    nvvm.cp.async.commit.group
    nvvm.cp.async.wait.group 0
    gpu.return
  }

  gpu.func @misaligned(%in: !llvm.ptr<1>, %out: !llvm.ptr<1>) workgroup(%shared : memref<256xi8, #gpu.address_space<workgroup>>) kernel attributes {known_block_size = array<i32: 64, 1, 1>} {
    %tid = gpu.thread_id x
    %t = arith.index_cast %tid : index to i64
    %base = memref.extract_aligned_pointer_as_index %shared : memref<256xi8, #gpu.address_space<workgroup>> -> index
    %b64 = arith.index_cast %base : index to i64
    %sp = llvm.inttoptr %b64 : i64 to !llvm.ptr<3>
    %dst = llvm.getelementptr %sp[%t] : (!llvm.ptr<3>, i64) -> !llvm.ptr<3>, f32
    %c0 = arith.constant 0 : i64
    %src = llvm.getelementptr %in[%c0] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
    // MISALIGNED: async-copies.mlir:[[@LINE+1]]:5: error: emulate: misaligned cp.async: its destination at byte offset 4 is not aligned to its 16 bytes in block (0, 0, 0), thread (1, 0, 0)
    nvvm.cp.async.shared.global %dst, %src, 16, cache = cg : !llvm.ptr<3>, !llvm.ptr<1>
    nvvm.cp.async.commit.group
    nvvm.cp.async.wait.group 0
    gpu.return
  }

  // Thread t reads In[t + 1]: thread 63 reads past the end. (With a
  // source size of 0 it would read nothing.)
  gpu.func @source_outside(%in: !llvm.ptr<1>, %out: !llvm.ptr<1>) workgroup(%shared : memref<256xi8, #gpu.address_space<workgroup>>) kernel attributes {known_block_size = array<i32: 64, 1, 1>} {
    %tid = gpu.thread_id x
    %t = arith.index_cast %tid : index to i64
    %base = memref.extract_aligned_pointer_as_index %shared : memref<256xi8, #gpu.address_space<workgroup>> -> index
    %b64 = arith.index_cast %base : index to i64
    %sp = llvm.inttoptr %b64 : i64 to !llvm.ptr<3>
    %dst = llvm.getelementptr %sp[%t] : (!llvm.ptr<3>, i64) -> !llvm.ptr<3>, f32
    %c1 = arith.constant 1 : i64
    %n = arith.addi %t, %c1 : i64
    %src = llvm.getelementptr %in[%n] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
    %c63 = arith.constant 63 : i64
    %last = arith.cmpi eq, %t, %c63 : i64
    %four = arith.constant 4 : i32
    %zero = arith.constant 0 : i32
    %none = arith.select %last, %zero, %four : i32
    // Thread 63 reads nothing from In[64]; then every thread reads 4 bytes.
    nvvm.cp.async.shared.global %dst, %src, 4, cache = ca, %none : !llvm.ptr<3>, !llvm.ptr<1>, i32
    nvvm.cp.async.commit.group
    nvvm.cp.async.wait.group 0
    // OUTSIDE: async-copies.mlir:[[@LINE+1]]:5: error: emulate: out-of-bounds cp.async source of 4 bytes at byte offset 256 of tensor 'In' (f32[64], 256 bytes): element 64 of 64 in block (0, 0, 0), thread (63, 0, 0)
    nvvm.cp.async.shared.global %dst, %src, 4, cache = ca, %four : !llvm.ptr<3>, !llvm.ptr<1>, i32
    nvvm.cp.async.commit.group
    nvvm.cp.async.wait.group 0
    gpu.return
  }

  // In[t] stored to shared float t, then the wait and a barrier.
  gpu.func @stored_clean(%in: !llvm.ptr<1>, %out: !llvm.ptr<1>) workgroup(%shared : memref<256xi8, #gpu.address_space<workgroup>>) kernel attributes {known_block_size = array<i32: 64, 1, 1>} {
    %tid = gpu.thread_id x
    %t = arith.index_cast %tid : index to i64
    %c0 = arith.constant 0 : index
    %view = memref.view %shared[%c0][] : memref<256xi8, #gpu.address_space<workgroup>> to memref<64xf32, #gpu.address_space<workgroup>>
    %src = llvm.getelementptr %in[%t] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
    %x = llvm.load %src : !llvm.ptr<1> -> f32
    memref.store %x, %view[%tid] {tile.async_copy} : memref<64xf32, #gpu.address_space<workgroup>>
    nvvm.cp.async.commit.group
    nvvm.cp.async.wait.group 0
    gpu.barrier
    %c1 = arith.constant 1 : index
    %c63 = arith.constant 63 : index
    %n = arith.addi %tid, %c1 : index
    %next = arith.andi %n, %c63 : index
    %v = memref.load %view[%next] : memref<64xf32, #gpu.address_space<workgroup>>
    %to = llvm.getelementptr %out[%t] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
    llvm.store %v, %to : f32, !llvm.ptr<1>
    gpu.return
  }

  // A barrier but no wait: thread 0 reads thread 1's store in flight.
  gpu.func @stored_no_wait(%in: !llvm.ptr<1>, %out: !llvm.ptr<1>) workgroup(%shared : memref<256xi8, #gpu.address_space<workgroup>>) kernel attributes {known_block_size = array<i32: 64, 1, 1>} {
    %tid = gpu.thread_id x
    %t = arith.index_cast %tid : index to i64
    %c0 = arith.constant 0 : index
    %view = memref.view %shared[%c0][] : memref<256xi8, #gpu.address_space<workgroup>> to memref<64xf32, #gpu.address_space<workgroup>>
    %src = llvm.getelementptr %in[%t] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
    %x = llvm.load %src : !llvm.ptr<1> -> f32
    // STORED-NO-WAIT: async-copies.mlir:[[@LINE+9]]:10: error: emulate: read of byte 4 of shared memory, the destination of an async copy (its element-wise store) of thread (1, 0, 0) that is still in flight: no cp.async.wait_group of that thread covers it yet, in block (0, 0, 0), thread (0, 0, 0)
    // STORED-NO-WAIT: async-copies.mlir:[[@LINE+1]]:5: note: the async copy
    memref.store %x, %view[%tid] {tile.async_copy} : memref<64xf32, #gpu.address_space<workgroup>>
    nvvm.cp.async.commit.group
    gpu.barrier
    %c1 = arith.constant 1 : index
    %c63 = arith.constant 63 : index
    %n = arith.addi %tid, %c1 : index
    %next = arith.andi %n, %c63 : index
    %v = memref.load %view[%next] : memref<64xf32, #gpu.address_space<workgroup>>
    %to = llvm.getelementptr %out[%t] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
    llvm.store %v, %to : f32, !llvm.ptr<1>
    gpu.return
  }

  // The wait but no barrier: what thread 1 stored is not ordered before thread 0's read.
  gpu.func @stored_no_barrier(%in: !llvm.ptr<1>, %out: !llvm.ptr<1>) workgroup(%shared : memref<256xi8, #gpu.address_space<workgroup>>) kernel attributes {known_block_size = array<i32: 64, 1, 1>} {
    %tid = gpu.thread_id x
    %t = arith.index_cast %tid : index to i64
    %c0 = arith.constant 0 : index
    %view = memref.view %shared[%c0][] : memref<256xi8, #gpu.address_space<workgroup>> to memref<64xf32, #gpu.address_space<workgroup>>
    %src = llvm.getelementptr %in[%t] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
    %x = llvm.load %src : !llvm.ptr<1> -> f32
    // STORED-NO-BARRIER: async-copies.mlir:[[@LINE+9]]:10: error: emulate: shared-memory race: read of byte 0 of shared memory, which thread (0, 0, 0) wrote with no barrier between, in block (0, 0, 0), thread (63, 0, 0)
    // STORED-NO-BARRIER: async-copies.mlir:[[@LINE+1]]:5: note: the write of thread (0, 0, 0)
    memref.store %x, %view[%tid] {tile.async_copy} : memref<64xf32, #gpu.address_space<workgroup>>
    nvvm.cp.async.commit.group
    nvvm.cp.async.wait.group 0
    %c1 = arith.constant 1 : index
    %c63 = arith.constant 63 : index
    %n = arith.addi %tid, %c1 : index
    %next = arith.andi %n, %c63 : index
    %v = memref.load %view[%next] : memref<64xf32, #gpu.address_space<workgroup>>
    %to = llvm.getelementptr %out[%t] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
    llvm.store %v, %to : f32, !llvm.ptr<1>
    gpu.return
  }
}
}
