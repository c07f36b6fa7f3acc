// The SIMT semantics of the emulator and its checks, on hand-written
// kernels in the form tile-to-gpu emits (docs/abi.md).

// Shuffles follow shfl.sync as convert-gpu-to-nvvm emits it: the source
// lane from the mode and offset, `valid` false (and the lane's own value)
// where the source is out of range: for up, below lane 32 - width; for the
// others, above lane width - 1.
// RUN: tile-emulate %s --kernel modes --arg 'Up=f32[32]' --arg 'UpValid=i1[32]' --arg 'Down=f32[32]' --arg 'DownValid=i1[32]' --arg 'Idx=f32[32]' --arg 'Xor=f32[32]' --print 32 | FileCheck %s --check-prefix=MODES
// MODES: emulated 32 threads in 1 CTAs
// MODES-NEXT: Up f32[32]: sum 465, first 0 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30{{$}}
// MODES-NEXT: UpValid i1[32]: sum 31, first 0 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1{{$}}
// MODES-NEXT: Down f32[32]: sum 511, first 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31{{$}}
// MODES-NEXT: DownValid i1[32]: sum 15, first 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0{{$}}
// MODES-NEXT: Idx f32[32]: sum 96, first 3 3 3 3 3 3 3 3 3 3 3 3 3 3 3 3 3 3 3 3 3 3 3 3 3 3 3 3 3 3 3 3{{$}}
// MODES-NEXT: Xor f32[32]: sum 496, first 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15{{$}}

// RUN: %expect_exit 4 tile-emulate %s --kernel inactive_lane --arg 'Out=f32[32]' 2>&1 | FileCheck %s --check-prefix=INACTIVE
// RUN: %expect_exit 4 tile-emulate %s --kernel partial_barrier --arg 'Out=f32[32]' 2>&1 | FileCheck %s --check-prefix=PARTIAL
// RUN: not tile-emulate %s --kernel divergent_barriers --arg 'Out=f32[32]' 2>&1 | FileCheck %s --check-prefix=DIVERGENT
// RUN: not tile-emulate %s --kernel shared_index --arg 'Out=f32[32]' 2>&1 | FileCheck %s --check-prefix=SHARED-INDEX
// RUN: not tile-emulate %s --kernel shared_view --arg 'Out=f32[32]' 2>&1 | FileCheck %s --check-prefix=SHARED-VIEW
// RUN: not tile-emulate %s --kernel global_store --arg 'Out=f32[32]' --grid 2,1,1 2>&1 | FileCheck %s --check-prefix=GLOBAL
// RUN: not tile-emulate %s --kernel write_write --arg 'Out=f32[32]' 2>&1 | FileCheck %s --check-prefix=WRITE-WRITE
// RUN: not tile-emulate %s --kernel forever --arg 'Out=f32[32]' --max-steps 1000 2>&1 | FileCheck %s --check-prefix=FOREVER
// RUN: not tile-emulate %s --kernel unsupported --arg 'Out=f32[32]' 2>&1 | FileCheck %s --check-prefix=UNKNOWN-OP
// RUN: not tile-emulate %s --kernel wide_integer --arg 'Out=f32[32]' 2>&1 | FileCheck %s --check-prefix=UNKNOWN-TYPE
// RUN: not tile-emulate %s --kernel modes --arg 'Up=f32[32]' 2>&1 | FileCheck %s --check-prefix=ARGS
// RUN: not tile-emulate %s --kernel missing --arg 'Out=f32[32]' 2>&1 | FileCheck %s --check-prefix=MISSING
// ARGS: error: emulate: the kernel takes 6 arguments (parameters, then symbols); given 1 buffers and 0 symbols
// MISSING: error: emulate: no gpu.func kernel @missing in the module

// A well-behaved kernel runs clean whatever its memory and barriers do.
// RUN: tile-emulate %s --kernel clean --arg 'Out=f32[32]' --print 4 | FileCheck %s --check-prefix=CLEAN
// CLEAN: emulated 64 threads in 1 CTAs
// CLEAN-NEXT: Out f32[32]: sum 496, first 31 30 29 28

module attributes {gpu.container_module} {
gpu.module @tile_kernels {
  gpu.func @modes(%up: !llvm.ptr<1>, %upValid: !llvm.ptr<1>, %down: !llvm.ptr<1>, %downValid: !llvm.ptr<1>, %idx: !llvm.ptr<1>, %xor: !llvm.ptr<1>) kernel attributes {known_block_size = array<i32: 32, 1, 1>} {
    %tid = gpu.thread_id x
    %lane = arith.index_cast %tid : index to i64
    %t = arith.index_cast %tid : index to i32
    %v = arith.sitofp %t : i32 to f32
    %c1 = arith.constant 1 : i32
    %c3 = arith.constant 3 : i32
    %c16 = arith.constant 16 : i32
    %c32 = arith.constant 32 : i32
    %u, %uv = gpu.shuffle up %v, %c1, %c32 : f32
    %d, %dv = gpu.shuffle down %v, %c1, %c16 : f32
    %i, %iv = gpu.shuffle idx %v, %c3, %c32 : f32
    %x, %xv = gpu.shuffle xor %v, %c16, %c32 : f32
    %p0 = llvm.getelementptr %up[%lane] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
    llvm.store %u, %p0 : f32, !llvm.ptr<1>
    %p1 = llvm.getelementptr %upValid[%lane] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, i1
    llvm.store %uv, %p1 : i1, !llvm.ptr<1>
    %p2 = llvm.getelementptr %down[%lane] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
    llvm.store %d, %p2 : f32, !llvm.ptr<1>
    %p3 = llvm.getelementptr %downValid[%lane] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, i1
    llvm.store %dv, %p3 : i1, !llvm.ptr<1>
    %p4 = llvm.getelementptr %idx[%lane] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
    llvm.store %i, %p4 : f32, !llvm.ptr<1>
    %p5 = llvm.getelementptr %xor[%lane] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
    llvm.store %x, %p5 : f32, !llvm.ptr<1>
    gpu.return
  }

  // Lanes 16 to 31 skip the shuffle and return: lane 0 reads lane 16.
  gpu.func @inactive_lane(%out: !llvm.ptr<1>) kernel attributes {known_block_size = array<i32: 32, 1, 1>} {
    %tid = gpu.thread_id x
    %c16 = arith.constant 16 : index
    %low = arith.cmpi ult, %tid, %c16 : index
    scf.if %low {
      %v = arith.constant 1.0 : f32
      %o = arith.constant 16 : i32
      %w = arith.constant 32 : i32
      // INACTIVE: gpu-semantics.mlir:[[@LINE+1]]:{{[0-9]+}}: error: emulate: shuffle reads lane 16, which is inactive: it has returned, in block (0, 0, 0), thread (0, 0, 0)
      %s, %valid = gpu.shuffle xor %v, %o, %w : f32
    }
    gpu.return
  }

  gpu.func @partial_barrier(%out: !llvm.ptr<1>) kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
    %tid = gpu.thread_id x
    %c64 = arith.constant 64 : index
    %low = arith.cmpi ult, %tid, %c64 : index
    scf.if %low {
      // PARTIAL: gpu-semantics.mlir:[[@LINE+1]]:{{[0-9]+}}: error: emulate: barrier reached by only part of the CTA: 64 of 128 threads returned without reaching it, such as thread (64, 0, 0), in block (0, 0, 0), thread (0, 0, 0)
      gpu.barrier
    }
    gpu.return
  }

  gpu.func @divergent_barriers(%out: !llvm.ptr<1>) kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
    %tid = gpu.thread_id x
    %c64 = arith.constant 64 : index
    %low = arith.cmpi ult, %tid, %c64 : index
    scf.if %low {
      // DIVERGENT: gpu-semantics.mlir:[[@LINE+1]]:{{[0-9]+}}: error: emulate: barrier divergence: this barrier and another one are reached by different threads of the CTA, such as thread (64, 0, 0), in block (0, 0, 0), thread (0, 0, 0)
      gpu.barrier
    } else {
      // DIVERGENT: gpu-semantics.mlir:[[@LINE+1]]:{{[0-9]+}}: note: the barrier thread (64, 0, 0) waits at
      gpu.barrier
    }
    gpu.return
  }

  // A view of 16 f32 indexed by 32 threads.
  gpu.func @shared_index(%out: !llvm.ptr<1>) workgroup(%shared : memref<64xi8, #gpu.address_space<workgroup>>) kernel attributes {known_block_size = array<i32: 32, 1, 1>} {
    %tid = gpu.thread_id x
    %c0 = arith.constant 0 : index
    %v = arith.constant 1.0 : f32
    %view = memref.view %shared[%c0][] : memref<64xi8, #gpu.address_space<workgroup>> to memref<16xf32, #gpu.address_space<workgroup>>
    // SHARED-INDEX: gpu-semantics.mlir:[[@LINE+1]]:{{[0-9]+}}: error: emulate: out-of-bounds index 16 of dimension 0 (size 16) of memref<16xf32, #gpu.address_space<workgroup>> in block (0, 0, 0), thread (16, 0, 0)
    memref.store %v, %view[%tid] : memref<16xf32, #gpu.address_space<workgroup>>
    gpu.return
  }

  // A view that does not fit in the shared buffer.
  gpu.func @shared_view(%out: !llvm.ptr<1>) workgroup(%shared : memref<64xi8, #gpu.address_space<workgroup>>) kernel attributes {known_block_size = array<i32: 32, 1, 1>} {
    %c32 = arith.constant 32 : index
    // SHARED-VIEW: gpu-semantics.mlir:[[@LINE+1]]:{{[0-9]+}}: error: emulate: out-of-bounds view of 64 bytes at byte offset 32 of the shared buffer of 64 bytes in block (0, 0, 0), thread (0, 0, 0)
    %view = memref.view %shared[%c32][] : memref<64xi8, #gpu.address_space<workgroup>> to memref<16xf32, #gpu.address_space<workgroup>>
    gpu.return
  }

  // Block 1 stores past the end of Out.
  gpu.func @global_store(%out: !llvm.ptr<1>) kernel attributes {known_block_size = array<i32: 32, 1, 1>} {
    %tid = gpu.thread_id x
    %bid = gpu.block_id x
    %bdim = gpu.block_dim x
    %base = arith.muli %bid, %bdim : index
    %i = arith.addi %base, %tid : index
    %i64 = arith.index_cast %i : index to i64
    %v = arith.constant 1.0 : f32
    %p = llvm.getelementptr %out[%i64] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
    // GLOBAL: gpu-semantics.mlir:[[@LINE+1]]:{{[0-9]+}}: error: emulate: out-of-bounds store of 4 bytes at byte offset 128 of tensor 'Out' (f32[32], 128 bytes): element 32 of 32 in block (1, 0, 0), thread (0, 0, 0)
    llvm.store %v, %p : f32, !llvm.ptr<1>
    gpu.return
  }

  // Every thread writes element 0 of a shared buffer.
  gpu.func @write_write(%out: !llvm.ptr<1>) workgroup(%shared : memref<64xi8, #gpu.address_space<workgroup>>) kernel attributes {known_block_size = array<i32: 32, 1, 1>} {
    %c0 = arith.constant 0 : index
    %v = arith.constant 1.0 : f32
    %view = memref.view %shared[%c0][] : memref<64xi8, #gpu.address_space<workgroup>> to memref<16xf32, #gpu.address_space<workgroup>>
    // WRITE-WRITE: gpu-semantics.mlir:[[@LINE+2]]:{{[0-9]+}}: error: emulate: shared-memory race: write of byte 0 of shared memory, which thread (0, 0, 0) wrote with no barrier between, in block (0, 0, 0), thread (1, 0, 0)
    // WRITE-WRITE: gpu-semantics.mlir:[[@LINE+1]]:{{[0-9]+}}: note: the write of thread (0, 0, 0)
    memref.store %v, %view[%c0] : memref<16xf32, #gpu.address_space<workgroup>>
    gpu.return
  }

  gpu.func @forever(%out: !llvm.ptr<1>) kernel attributes {known_block_size = array<i32: 32, 1, 1>} {
    %true = arith.constant true
    %c0 = arith.constant 0 : i32
    %r = scf.while (%i = %c0) : (i32) -> i32 {
      // FOREVER: gpu-semantics.mlir:{{[0-9]+}}:{{[0-9]+}}: error: emulate: step limit of 1000 ops per thread reached (a loop that never ends?) in block (0, 0, 0), thread (0, 0, 0)
      scf.condition(%true) %i : i32
    } do {
    ^bb0(%j: i32):
      scf.yield %j : i32
    }
    gpu.return
  }

  gpu.func @unsupported(%out: !llvm.ptr<1>) kernel attributes {known_block_size = array<i32: 32, 1, 1>} {
    %c1 = arith.constant 1 : i32
    // UNKNOWN-OP: gpu-semantics.mlir:[[@LINE+1]]:{{[0-9]+}}: error: emulate: unsupported op 'math.ctpop' in block (0, 0, 0), thread (0, 0, 0)
    %n = math.ctpop %c1 : i32
    gpu.return
  }

  gpu.func @wide_integer(%out: !llvm.ptr<1>) kernel attributes {known_block_size = array<i32: 32, 1, 1>} {
    // UNKNOWN-TYPE: gpu-semantics.mlir:[[@LINE+1]]:{{[0-9]+}}: error: emulate: unsupported type 'i128'
    %c1 = arith.constant 1 : i128
    gpu.return
  }

  // Two warps: each thread writes its element to shared memory, a barrier,
  // then reads its mirror image's, which another warp wrote; a loop and a
  // vector round trip through a per-thread alloca on the way.
  gpu.func @clean(%out: !llvm.ptr<1>) workgroup(%shared : memref<256xi8, #gpu.address_space<workgroup>>) kernel attributes {known_block_size = array<i32: 64, 1, 1>} {
    %tid = gpu.thread_id x
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c3 = arith.constant 3 : index
    %c32 = arith.constant 32 : index
    %c63 = arith.constant 63 : index
    %zero = arith.constant 0.0 : f32
    %view = memref.view %shared[%c0][] : memref<256xi8, #gpu.address_space<workgroup>> to memref<64xf32, #gpu.address_space<workgroup>>
    %t = arith.index_cast %tid : index to i32
    %v = arith.sitofp %t : i32 to f32
    %sum = scf.for %k = %c0 to %c3 step %c1 iter_args(%acc = %zero) -> (f32) {
      %a = arith.addf %acc, %v : f32
      scf.yield %a : f32
    }
    %third = arith.constant 3.0 : f32
    %back = arith.divf %sum, %third : f32
    %slots = vector.broadcast %back : f32 to vector<2xf32>
    %alloca = memref.alloca() : memref<vector<2xf32>>
    memref.store %slots, %alloca[] : memref<vector<2xf32>>
    %loaded = memref.load %alloca[] : memref<vector<2xf32>>
    %e = vector.extract %loaded[1] : f32 from vector<2xf32>
    memref.store %e, %view[%tid] : memref<64xf32, #gpu.address_space<workgroup>>
    gpu.barrier
    %mirror = arith.subi %c63, %tid : index
    %m = memref.load %view[%mirror] : memref<64xf32, #gpu.address_space<workgroup>>
    %low = arith.cmpi ult, %tid, %c32 : index
    scf.if %low {
      %i = arith.index_cast %tid : index to i64
      %p = llvm.getelementptr %out[%i] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
      %c29 = arith.constant 29.0 : f32
      %r = arith.subf %m, %c29 : f32
      %c3f = arith.constant 3.0 : f32
      %s = arith.subf %r, %c3f : f32
      llvm.store %s, %p : f32, !llvm.ptr<1>
    }
    gpu.return
  }
}
}
