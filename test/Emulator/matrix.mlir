// The emulator's model of the warp-level matrix instructions, from the PTX
// ISA's fragment tables (lib/Emulator/ExecMatrix.cpp), on hand-written
// kernels: one warp loads A [16, 16] and B [16, 8] (index fills: A[m][k] =
// 16 m + k, B[k][n] = 8 k + n) into shared memory, reads A with ldmatrix.x4
// and B with ldmatrix.x2.trans, multiplies them with mma.sync.m16n8k16 and
// stores D from its fragments. D = A B is numpy's.
// RUN: tile-emulate %s --kernel f16 --arg 'A=f16[16,16]' --arg 'B=f16[16,8]' --arg 'D=f32[16,8]' --output D --fill index --print 4 | FileCheck %s --check-prefix=PRODUCT
// RUN: tile-emulate %s --kernel bf16 --arg 'A=bf16[16,16]' --arg 'B=bf16[16,8]' --arg 'D=f32[16,8]' --output D --fill index --print 4 | FileCheck %s --check-prefix=PRODUCT
// PRODUCT: D f32[16, 8]: sum 1.69293e+07, first 9920 10040 10160 10280{{$}}
//
// B read without .trans: each lane gets a row of B where the fragment wants
// a column, so each 8 x 8 block of B enters the product transposed.
// RUN: tile-emulate %s --kernel b_not_transposed --arg 'A=f16[16,16]' --arg 'B=f16[16,8]' --arg 'D=f32[16,8]' --output D --fill index --print 4 | FileCheck %s --check-prefix=NOT-TRANSPOSED
// NOT-TRANSPOSED: D f32[16, 8]: sum 1.6854e+07, first 6392 7352 8312 9272{{$}}
//
// RUN: %expect_exit 4 tile-emulate %s --kernel inactive_lane --arg 'A=f16[16,16]' --arg 'B=f16[16,8]' --arg 'D=f32[16,8]' 2>&1 | FileCheck %s --check-prefix=INACTIVE
// INACTIVE: matrix.mlir:{{[0-9]+}}:{{[0-9]+}}: error: emulate: 'nvgpu.mma.sync' with lane 5 inactive: it has returned, in block (0, 0, 0), thread (0, 0, 0)
// RUN: %expect_exit 4 tile-emulate %s --kernel partial_warp --arg 'A=f16[16,16]' --arg 'B=f16[16,8]' --arg 'D=f32[16,8]' 2>&1 | FileCheck %s --check-prefix=PARTIAL
// PARTIAL: error: emulate: 'nvgpu.ldmatrix' needs all 32 lanes of a warp, but lanes 16 to 31 of this one are not in the CTA, in block (0, 0, 0), thread (0, 0, 0)
// RUN: %expect_exit 4 tile-emulate %s --kernel misaligned --arg 'A=f16[16,16]' --arg 'B=f16[16,8]' --arg 'D=f32[16,8]' 2>&1 | FileCheck %s --check-prefix=MISALIGNED
// MISALIGNED: error: emulate: ldmatrix row address of lane 0 is byte 2 of shared memory, which is not 16-byte aligned, in block (0, 0, 0), thread (0, 0, 0)
// Without the barrier, lane 0 receives A[0][1], which lane 1 stored.
// RUN: %expect_exit 4 tile-emulate %s --kernel no_barrier --arg 'A=f16[16,16]' --arg 'B=f16[16,8]' --arg 'D=f32[16,8]' 2>&1 | FileCheck %s --check-prefix=RACE
// RACE: error: emulate: shared-memory race: read of byte 2 of shared memory, which thread (1, 0, 0) wrote with no barrier between, in block (0, 0, 0), thread (0, 0, 0)

module attributes {gpu.container_module} {
gpu.module @tile_kernels {
  gpu.func @f16(%A: !llvm.ptr<1>, %B: !llvm.ptr<1>, %D: !llvm.ptr<1>) workgroup(%shared : memref<768xi8, #gpu.address_space<workgroup>>) kernel attributes {known_block_size = array<i32: 32, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c4 = arith.constant 4 : index
    %c8 = arith.constant 8 : index
    %c16 = arith.constant 16 : index
    %c32 = arith.constant 32 : index
    %c512 = arith.constant 512 : index
    %tid = gpu.thread_id x
    %sa = memref.view %shared[%c0][] : memref<768xi8, #gpu.address_space<workgroup>> to memref<256xf16, #gpu.address_space<workgroup>>
    %sb = memref.view %shared[%c512][] : memref<768xi8, #gpu.address_space<workgroup>> to memref<128xf16, #gpu.address_space<workgroup>>
    // A [16, 16] and B [16, 8] to shared memory, row-major.
    scf.for %i = %c0 to %c8 step %c1 {
      %base = arith.muli %i, %c32 : index
      %e = arith.addi %base, %tid : index
      %e64 = arith.index_cast %e : index to i64
      %p = llvm.getelementptr %A[%e64] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f16
      %v = llvm.load %p : !llvm.ptr<1> -> f16
      memref.store %v, %sa[%e] : memref<256xf16, #gpu.address_space<workgroup>>
    }
    scf.for %i = %c0 to %c4 step %c1 {
      %base = arith.muli %i, %c32 : index
      %e = arith.addi %base, %tid : index
      %e64 = arith.index_cast %e : index to i64
      %p = llvm.getelementptr %B[%e64] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f16
      %v = llvm.load %p : !llvm.ptr<1> -> f16
      memref.store %v, %sb[%e] : memref<128xf16, #gpu.address_space<workgroup>>
    }
    gpu.barrier
    // A: lane l gives row l % 16, column 8 (l / 16): matrices (rows 0-7,
    // k 0-7), (8-15, 0-7), (0-7, 8-15), (8-15, 8-15).
    %row = arith.remui %tid, %c16 : index
    %half = arith.divui %tid, %c16 : index
    %col = arith.muli %half, %c8 : index
    %rowStart = arith.muli %row, %c16 : index
    %ia0 = arith.addi %rowStart, %col : index
    %ia = arith.addi %ia0, %c0 : index
    %a = nvgpu.ldmatrix %sa[%ia] {numTiles = 4 : i32, transpose = false} : memref<256xf16, #gpu.address_space<workgroup>> -> vector<4x2xf16>
    // B: lane l < 16 gives row k = l of B (x2: k 0-7, then 8-15), read
    // transposed; lanes 16-31 give no address.
    %ib = arith.muli %row, %c8 : index
    %b = nvgpu.ldmatrix %sb[%ib] {numTiles = 2 : i32, transpose = true} : memref<128xf16, #gpu.address_space<workgroup>> -> vector<2x2xf16>
    %zero = arith.constant dense<0.0> : vector<2x2xf32>
    %d = nvgpu.mma.sync(%a, %b, %zero) {mmaShape = [16, 8, 16]} : (vector<4x2xf16>, vector<2x2xf16>, vector<2x2xf32>) -> vector<2x2xf32>
    // d_i: row lane / 4 + 8 (i / 2), column 2 (lane % 4) + i % 2.
    %g = arith.divui %tid, %c4 : index
    %q = arith.remui %tid, %c4 : index
    %q2 = arith.muli %q, %c2 : index
    %r0 = arith.muli %g, %c8 : index
    %e0 = arith.addi %r0, %q2 : index
    %e64 = arith.index_cast %e0 : index to i64
    %d0 = vector.extract %d[0, 0] : f32 from vector<2x2xf32>
    %d1 = vector.extract %d[0, 1] : f32 from vector<2x2xf32>
    %d2 = vector.extract %d[1, 0] : f32 from vector<2x2xf32>
    %d3 = vector.extract %d[1, 1] : f32 from vector<2x2xf32>
    %p0 = llvm.getelementptr %D[%e64] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
    %p1 = llvm.getelementptr %p0[1] : (!llvm.ptr<1>) -> !llvm.ptr<1>, f32
    %p2 = llvm.getelementptr %p0[64] : (!llvm.ptr<1>) -> !llvm.ptr<1>, f32
    %p3 = llvm.getelementptr %p0[65] : (!llvm.ptr<1>) -> !llvm.ptr<1>, f32
    llvm.store %d0, %p0 : f32, !llvm.ptr<1>
    llvm.store %d1, %p1 : f32, !llvm.ptr<1>
    llvm.store %d2, %p2 : f32, !llvm.ptr<1>
    llvm.store %d3, %p3 : f32, !llvm.ptr<1>
    gpu.return
  }

  gpu.func @bf16(%A: !llvm.ptr<1>, %B: !llvm.ptr<1>, %D: !llvm.ptr<1>) workgroup(%shared : memref<768xi8, #gpu.address_space<workgroup>>) kernel attributes {known_block_size = array<i32: 32, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c4 = arith.constant 4 : index
    %c8 = arith.constant 8 : index
    %c16 = arith.constant 16 : index
    %c32 = arith.constant 32 : index
    %c512 = arith.constant 512 : index
    %tid = gpu.thread_id x
    %sa = memref.view %shared[%c0][] : memref<768xi8, #gpu.address_space<workgroup>> to memref<256xbf16, #gpu.address_space<workgroup>>
    %sb = memref.view %shared[%c512][] : memref<768xi8, #gpu.address_space<workgroup>> to memref<128xbf16, #gpu.address_space<workgroup>>
    // A [16, 16] and B [16, 8] to shared memory, row-major.
    scf.for %i = %c0 to %c8 step %c1 {
      %base = arith.muli %i, %c32 : index
      %e = arith.addi %base, %tid : index
      %e64 = arith.index_cast %e : index to i64
      %p = llvm.getelementptr %A[%e64] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, bf16
      %v = llvm.load %p : !llvm.ptr<1> -> bf16
      memref.store %v, %sa[%e] : memref<256xbf16, #gpu.address_space<workgroup>>
    }
    scf.for %i = %c0 to %c4 step %c1 {
      %base = arith.muli %i, %c32 : index
      %e = arith.addi %base, %tid : index
      %e64 = arith.index_cast %e : index to i64
      %p = llvm.getelementptr %B[%e64] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, bf16
      %v = llvm.load %p : !llvm.ptr<1> -> bf16
      memref.store %v, %sb[%e] : memref<128xbf16, #gpu.address_space<workgroup>>
    }
    gpu.barrier
    // A: lane l gives row l % 16, column 8 (l / 16): matrices (rows 0-7,
    // k 0-7), (8-15, 0-7), (0-7, 8-15), (8-15, 8-15).
    %row = arith.remui %tid, %c16 : index
    %half = arith.divui %tid, %c16 : index
    %col = arith.muli %half, %c8 : index
    %rowStart = arith.muli %row, %c16 : index
    %ia0 = arith.addi %rowStart, %col : index
    %ia = arith.addi %ia0, %c0 : index
    %a = nvgpu.ldmatrix %sa[%ia] {numTiles = 4 : i32, transpose = false} : memref<256xbf16, #gpu.address_space<workgroup>> -> vector<4x2xbf16>
    // B: lane l < 16 gives row k = l of B (x2: k 0-7, then 8-15), read
    // transposed; lanes 16-31 give no address.
    %ib = arith.muli %row, %c8 : index
    %b = nvgpu.ldmatrix %sb[%ib] {numTiles = 2 : i32, transpose = true} : memref<128xbf16, #gpu.address_space<workgroup>> -> vector<2x2xbf16>
    %zero = arith.constant dense<0.0> : vector<2x2xf32>
    %d = nvgpu.mma.sync(%a, %b, %zero) {mmaShape = [16, 8, 16]} : (vector<4x2xbf16>, vector<2x2xbf16>, vector<2x2xf32>) -> vector<2x2xf32>
    // d_i: row lane / 4 + 8 (i / 2), column 2 (lane % 4) + i % 2.
    %g = arith.divui %tid, %c4 : index
    %q = arith.remui %tid, %c4 : index
    %q2 = arith.muli %q, %c2 : index
    %r0 = arith.muli %g, %c8 : index
    %e0 = arith.addi %r0, %q2 : index
    %e64 = arith.index_cast %e0 : index to i64
    %d0 = vector.extract %d[0, 0] : f32 from vector<2x2xf32>
    %d1 = vector.extract %d[0, 1] : f32 from vector<2x2xf32>
    %d2 = vector.extract %d[1, 0] : f32 from vector<2x2xf32>
    %d3 = vector.extract %d[1, 1] : f32 from vector<2x2xf32>
    %p0 = llvm.getelementptr %D[%e64] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
    %p1 = llvm.getelementptr %p0[1] : (!llvm.ptr<1>) -> !llvm.ptr<1>, f32
    %p2 = llvm.getelementptr %p0[64] : (!llvm.ptr<1>) -> !llvm.ptr<1>, f32
    %p3 = llvm.getelementptr %p0[65] : (!llvm.ptr<1>) -> !llvm.ptr<1>, f32
    llvm.store %d0, %p0 : f32, !llvm.ptr<1>
    llvm.store %d1, %p1 : f32, !llvm.ptr<1>
    llvm.store %d2, %p2 : f32, !llvm.ptr<1>
    llvm.store %d3, %p3 : f32, !llvm.ptr<1>
    gpu.return
  }

  gpu.func @b_not_transposed(%A: !llvm.ptr<1>, %B: !llvm.ptr<1>, %D: !llvm.ptr<1>) workgroup(%shared : memref<768xi8, #gpu.address_space<workgroup>>) kernel attributes {known_block_size = array<i32: 32, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c4 = arith.constant 4 : index
    %c8 = arith.constant 8 : index
    %c16 = arith.constant 16 : index
    %c32 = arith.constant 32 : index
    %c512 = arith.constant 512 : index
    %tid = gpu.thread_id x
    %sa = memref.view %shared[%c0][] : memref<768xi8, #gpu.address_space<workgroup>> to memref<256xf16, #gpu.address_space<workgroup>>
    %sb = memref.view %shared[%c512][] : memref<768xi8, #gpu.address_space<workgroup>> to memref<128xf16, #gpu.address_space<workgroup>>
    // A [16, 16] and B [16, 8] to shared memory, row-major.
    scf.for %i = %c0 to %c8 step %c1 {
      %base = arith.muli %i, %c32 : index
      %e = arith.addi %base, %tid : index
      %e64 = arith.index_cast %e : index to i64
      %p = llvm.getelementptr %A[%e64] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f16
      %v = llvm.load %p : !llvm.ptr<1> -> f16
      memref.store %v, %sa[%e] : memref<256xf16, #gpu.address_space<workgroup>>
    }
    scf.for %i = %c0 to %c4 step %c1 {
      %base = arith.muli %i, %c32 : index
      %e = arith.addi %base, %tid : index
      %e64 = arith.index_cast %e : index to i64
      %p = llvm.getelementptr %B[%e64] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f16
      %v = llvm.load %p : !llvm.ptr<1> -> f16
      memref.store %v, %sb[%e] : memref<128xf16, #gpu.address_space<workgroup>>
    }
    gpu.barrier
    // A: lane l gives row l % 16, column 8 (l / 16): matrices (rows 0-7,
    // k 0-7), (8-15, 0-7), (0-7, 8-15), (8-15, 8-15).
    %row = arith.remui %tid, %c16 : index
    %half = arith.divui %tid, %c16 : index
    %col = arith.muli %half, %c8 : index
    %rowStart = arith.muli %row, %c16 : index
    %ia0 = arith.addi %rowStart, %col : index
    %ia = arith.addi %ia0, %c0 : index
    %a = nvgpu.ldmatrix %sa[%ia] {numTiles = 4 : i32, transpose = false} : memref<256xf16, #gpu.address_space<workgroup>> -> vector<4x2xf16>
    // B: lane l < 16 gives row k = l of B (x2: k 0-7, then 8-15), read
    // transposed; lanes 16-31 give no address.
    %ib = arith.muli %row, %c8 : index
    %b = nvgpu.ldmatrix %sb[%ib] {numTiles = 2 : i32, transpose = false} : memref<128xf16, #gpu.address_space<workgroup>> -> vector<2x2xf16>
    %zero = arith.constant dense<0.0> : vector<2x2xf32>
    %d = nvgpu.mma.sync(%a, %b, %zero) {mmaShape = [16, 8, 16]} : (vector<4x2xf16>, vector<2x2xf16>, vector<2x2xf32>) -> vector<2x2xf32>
    // d_i: row lane / 4 + 8 (i / 2), column 2 (lane % 4) + i % 2.
    %g = arith.divui %tid, %c4 : index
    %q = arith.remui %tid, %c4 : index
    %q2 = arith.muli %q, %c2 : index
    %r0 = arith.muli %g, %c8 : index
    %e0 = arith.addi %r0, %q2 : index
    %e64 = arith.index_cast %e0 : index to i64
    %d0 = vector.extract %d[0, 0] : f32 from vector<2x2xf32>
    %d1 = vector.extract %d[0, 1] : f32 from vector<2x2xf32>
    %d2 = vector.extract %d[1, 0] : f32 from vector<2x2xf32>
    %d3 = vector.extract %d[1, 1] : f32 from vector<2x2xf32>
    %p0 = llvm.getelementptr %D[%e64] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
    %p1 = llvm.getelementptr %p0[1] : (!llvm.ptr<1>) -> !llvm.ptr<1>, f32
    %p2 = llvm.getelementptr %p0[64] : (!llvm.ptr<1>) -> !llvm.ptr<1>, f32
    %p3 = llvm.getelementptr %p0[65] : (!llvm.ptr<1>) -> !llvm.ptr<1>, f32
    llvm.store %d0, %p0 : f32, !llvm.ptr<1>
    llvm.store %d1, %p1 : f32, !llvm.ptr<1>
    llvm.store %d2, %p2 : f32, !llvm.ptr<1>
    llvm.store %d3, %p3 : f32, !llvm.ptr<1>
    gpu.return
  }

  gpu.func @inactive_lane(%A: !llvm.ptr<1>, %B: !llvm.ptr<1>, %D: !llvm.ptr<1>) workgroup(%shared : memref<768xi8, #gpu.address_space<workgroup>>) kernel attributes {known_block_size = array<i32: 32, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c4 = arith.constant 4 : index
    %c8 = arith.constant 8 : index
    %c16 = arith.constant 16 : index
    %c32 = arith.constant 32 : index
    %c512 = arith.constant 512 : index
    %tid = gpu.thread_id x
    %sa = memref.view %shared[%c0][] : memref<768xi8, #gpu.address_space<workgroup>> to memref<256xf16, #gpu.address_space<workgroup>>
    %sb = memref.view %shared[%c512][] : memref<768xi8, #gpu.address_space<workgroup>> to memref<128xf16, #gpu.address_space<workgroup>>
    // A [16, 16] and B [16, 8] to shared memory, row-major.
    scf.for %i = %c0 to %c8 step %c1 {
      %base = arith.muli %i, %c32 : index
      %e = arith.addi %base, %tid : index
      %e64 = arith.index_cast %e : index to i64
      %p = llvm.getelementptr %A[%e64] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f16
      %v = llvm.load %p : !llvm.ptr<1> -> f16
      memref.store %v, %sa[%e] : memref<256xf16, #gpu.address_space<workgroup>>
    }
    scf.for %i = %c0 to %c4 step %c1 {
      %base = arith.muli %i, %c32 : index
      %e = arith.addi %base, %tid : index
      %e64 = arith.index_cast %e : index to i64
      %p = llvm.getelementptr %B[%e64] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f16
      %v = llvm.load %p : !llvm.ptr<1> -> f16
      memref.store %v, %sb[%e] : memref<128xf16, #gpu.address_space<workgroup>>
    }
    gpu.barrier
    // A: lane l gives row l % 16, column 8 (l / 16): matrices (rows 0-7,
    // k 0-7), (8-15, 0-7), (0-7, 8-15), (8-15, 8-15).
    %row = arith.remui %tid, %c16 : index
    %half = arith.divui %tid, %c16 : index
    %col = arith.muli %half, %c8 : index
    %rowStart = arith.muli %row, %c16 : index
    %ia0 = arith.addi %rowStart, %col : index
    %ia = arith.addi %ia0, %c0 : index
    %a = nvgpu.ldmatrix %sa[%ia] {numTiles = 4 : i32, transpose = false} : memref<256xf16, #gpu.address_space<workgroup>> -> vector<4x2xf16>
    // B: lane l < 16 gives row k = l of B (x2: k 0-7, then 8-15), read
    // transposed; lanes 16-31 give no address.
    %ib = arith.muli %row, %c8 : index
    %b = nvgpu.ldmatrix %sb[%ib] {numTiles = 2 : i32, transpose = true} : memref<128xf16, #gpu.address_space<workgroup>> -> vector<2x2xf16>
    %zero = arith.constant dense<0.0> : vector<2x2xf32>
    %out = arith.constant 5 : index
    %active = arith.cmpi ne, %tid, %out : index
    scf.if %active {
      %d = nvgpu.mma.sync(%a, %b, %zero) {mmaShape = [16, 8, 16]} : (vector<4x2xf16>, vector<2x2xf16>, vector<2x2xf32>) -> vector<2x2xf32>
      // d_i: row lane / 4 + 8 (i / 2), column 2 (lane % 4) + i % 2.
      %g = arith.divui %tid, %c4 : index
      %q = arith.remui %tid, %c4 : index
      %q2 = arith.muli %q, %c2 : index
      %r0 = arith.muli %g, %c8 : index
      %e0 = arith.addi %r0, %q2 : index
      %e64 = arith.index_cast %e0 : index to i64
      %d0 = vector.extract %d[0, 0] : f32 from vector<2x2xf32>
      %d1 = vector.extract %d[0, 1] : f32 from vector<2x2xf32>
      %d2 = vector.extract %d[1, 0] : f32 from vector<2x2xf32>
      %d3 = vector.extract %d[1, 1] : f32 from vector<2x2xf32>
      %p0 = llvm.getelementptr %D[%e64] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
      %p1 = llvm.getelementptr %p0[1] : (!llvm.ptr<1>) -> !llvm.ptr<1>, f32
      %p2 = llvm.getelementptr %p0[64] : (!llvm.ptr<1>) -> !llvm.ptr<1>, f32
      %p3 = llvm.getelementptr %p0[65] : (!llvm.ptr<1>) -> !llvm.ptr<1>, f32
      llvm.store %d0, %p0 : f32, !llvm.ptr<1>
      llvm.store %d1, %p1 : f32, !llvm.ptr<1>
      llvm.store %d2, %p2 : f32, !llvm.ptr<1>
      llvm.store %d3, %p3 : f32, !llvm.ptr<1>
    }
    gpu.return
  }

  gpu.func @partial_warp(%A: !llvm.ptr<1>, %B: !llvm.ptr<1>, %D: !llvm.ptr<1>) workgroup(%shared : memref<768xi8, #gpu.address_space<workgroup>>) kernel attributes {known_block_size = array<i32: 16, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c4 = arith.constant 4 : index
    %c8 = arith.constant 8 : index
    %c16 = arith.constant 16 : index
    %c32 = arith.constant 32 : index
    %c512 = arith.constant 512 : index
    %tid = gpu.thread_id x
    %sa = memref.view %shared[%c0][] : memref<768xi8, #gpu.address_space<workgroup>> to memref<256xf16, #gpu.address_space<workgroup>>
    %sb = memref.view %shared[%c512][] : memref<768xi8, #gpu.address_space<workgroup>> to memref<128xf16, #gpu.address_space<workgroup>>
    // A [16, 16] and B [16, 8] to shared memory, row-major.
    scf.for %i = %c0 to %c8 step %c1 {
      %base = arith.muli %i, %c32 : index
      %e = arith.addi %base, %tid : index
      %e64 = arith.index_cast %e : index to i64
      %p = llvm.getelementptr %A[%e64] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f16
      %v = llvm.load %p : !llvm.ptr<1> -> f16
      memref.store %v, %sa[%e] : memref<256xf16, #gpu.address_space<workgroup>>
    }
    scf.for %i = %c0 to %c4 step %c1 {
      %base = arith.muli %i, %c32 : index
      %e = arith.addi %base, %tid : index
      %e64 = arith.index_cast %e : index to i64
      %p = llvm.getelementptr %B[%e64] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f16
      %v = llvm.load %p : !llvm.ptr<1> -> f16
      memref.store %v, %sb[%e] : memref<128xf16, #gpu.address_space<workgroup>>
    }
    gpu.barrier
    // A: lane l gives row l % 16, column 8 (l / 16): matrices (rows 0-7,
    // k 0-7), (8-15, 0-7), (0-7, 8-15), (8-15, 8-15).
    %row = arith.remui %tid, %c16 : index
    %half = arith.divui %tid, %c16 : index
    %col = arith.muli %half, %c8 : index
    %rowStart = arith.muli %row, %c16 : index
    %ia0 = arith.addi %rowStart, %col : index
    %ia = arith.addi %ia0, %c0 : index
    %a = nvgpu.ldmatrix %sa[%ia] {numTiles = 4 : i32, transpose = false} : memref<256xf16, #gpu.address_space<workgroup>> -> vector<4x2xf16>
    // B: lane l < 16 gives row k = l of B (x2: k 0-7, then 8-15), read
    // transposed; lanes 16-31 give no address.
    %ib = arith.muli %row, %c8 : index
    %b = nvgpu.ldmatrix %sb[%ib] {numTiles = 2 : i32, transpose = true} : memref<128xf16, #gpu.address_space<workgroup>> -> vector<2x2xf16>
    %zero = arith.constant dense<0.0> : vector<2x2xf32>
    %d = nvgpu.mma.sync(%a, %b, %zero) {mmaShape = [16, 8, 16]} : (vector<4x2xf16>, vector<2x2xf16>, vector<2x2xf32>) -> vector<2x2xf32>
    // d_i: row lane / 4 + 8 (i / 2), column 2 (lane % 4) + i % 2.
    %g = arith.divui %tid, %c4 : index
    %q = arith.remui %tid, %c4 : index
    %q2 = arith.muli %q, %c2 : index
    %r0 = arith.muli %g, %c8 : index
    %e0 = arith.addi %r0, %q2 : index
    %e64 = arith.index_cast %e0 : index to i64
    %d0 = vector.extract %d[0, 0] : f32 from vector<2x2xf32>
    %d1 = vector.extract %d[0, 1] : f32 from vector<2x2xf32>
    %d2 = vector.extract %d[1, 0] : f32 from vector<2x2xf32>
    %d3 = vector.extract %d[1, 1] : f32 from vector<2x2xf32>
    %p0 = llvm.getelementptr %D[%e64] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
    %p1 = llvm.getelementptr %p0[1] : (!llvm.ptr<1>) -> !llvm.ptr<1>, f32
    %p2 = llvm.getelementptr %p0[64] : (!llvm.ptr<1>) -> !llvm.ptr<1>, f32
    %p3 = llvm.getelementptr %p0[65] : (!llvm.ptr<1>) -> !llvm.ptr<1>, f32
    llvm.store %d0, %p0 : f32, !llvm.ptr<1>
    llvm.store %d1, %p1 : f32, !llvm.ptr<1>
    llvm.store %d2, %p2 : f32, !llvm.ptr<1>
    llvm.store %d3, %p3 : f32, !llvm.ptr<1>
    gpu.return
  }

  gpu.func @misaligned(%A: !llvm.ptr<1>, %B: !llvm.ptr<1>, %D: !llvm.ptr<1>) workgroup(%shared : memref<768xi8, #gpu.address_space<workgroup>>) kernel attributes {known_block_size = array<i32: 32, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c4 = arith.constant 4 : index
    %c8 = arith.constant 8 : index
    %c16 = arith.constant 16 : index
    %c32 = arith.constant 32 : index
    %c512 = arith.constant 512 : index
    %tid = gpu.thread_id x
    %sa = memref.view %shared[%c0][] : memref<768xi8, #gpu.address_space<workgroup>> to memref<256xf16, #gpu.address_space<workgroup>>
    %sb = memref.view %shared[%c512][] : memref<768xi8, #gpu.address_space<workgroup>> to memref<128xf16, #gpu.address_space<workgroup>>
    // A [16, 16] and B [16, 8] to shared memory, row-major.
    scf.for %i = %c0 to %c8 step %c1 {
      %base = arith.muli %i, %c32 : index
      %e = arith.addi %base, %tid : index
      %e64 = arith.index_cast %e : index to i64
      %p = llvm.getelementptr %A[%e64] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f16
      %v = llvm.load %p : !llvm.ptr<1> -> f16
      memref.store %v, %sa[%e] : memref<256xf16, #gpu.address_space<workgroup>>
    }
    scf.for %i = %c0 to %c4 step %c1 {
      %base = arith.muli %i, %c32 : index
      %e = arith.addi %base, %tid : index
      %e64 = arith.index_cast %e : index to i64
      %p = llvm.getelementptr %B[%e64] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f16
      %v = llvm.load %p : !llvm.ptr<1> -> f16
      memref.store %v, %sb[%e] : memref<128xf16, #gpu.address_space<workgroup>>
    }
    gpu.barrier
    // A: lane l gives row l % 16, column 8 (l / 16): matrices (rows 0-7,
    // k 0-7), (8-15, 0-7), (0-7, 8-15), (8-15, 8-15).
    %row = arith.remui %tid, %c16 : index
    %half = arith.divui %tid, %c16 : index
    %col = arith.muli %half, %c8 : index
    %rowStart = arith.muli %row, %c16 : index
    %ia0 = arith.addi %rowStart, %col : index 
    %ia = arith.addi %ia0, %c1 : index
    %a = nvgpu.ldmatrix %sa[%ia] {numTiles = 4 : i32, transpose = false} : memref<256xf16, #gpu.address_space<workgroup>> -> vector<4x2xf16>
    // B: lane l < 16 gives row k = l of B (x2: k 0-7, then 8-15), read
    // transposed; lanes 16-31 give no address.
    %ib = arith.muli %row, %c8 : index
    %b = nvgpu.ldmatrix %sb[%ib] {numTiles = 2 : i32, transpose = true} : memref<128xf16, #gpu.address_space<workgroup>> -> vector<2x2xf16>
    %zero = arith.constant dense<0.0> : vector<2x2xf32>
    %d = nvgpu.mma.sync(%a, %b, %zero) {mmaShape = [16, 8, 16]} : (vector<4x2xf16>, vector<2x2xf16>, vector<2x2xf32>) -> vector<2x2xf32>
    // d_i: row lane / 4 + 8 (i / 2), column 2 (lane % 4) + i % 2.
    %g = arith.divui %tid, %c4 : index
    %q = arith.remui %tid, %c4 : index
    %q2 = arith.muli %q, %c2 : index
    %r0 = arith.muli %g, %c8 : index
    %e0 = arith.addi %r0, %q2 : index
    %e64 = arith.index_cast %e0 : index to i64
    %d0 = vector.extract %d[0, 0] : f32 from vector<2x2xf32>
    %d1 = vector.extract %d[0, 1] : f32 from vector<2x2xf32>
    %d2 = vector.extract %d[1, 0] : f32 from vector<2x2xf32>
    %d3 = vector.extract %d[1, 1] : f32 from vector<2x2xf32>
    %p0 = llvm.getelementptr %D[%e64] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
    %p1 = llvm.getelementptr %p0[1] : (!llvm.ptr<1>) -> !llvm.ptr<1>, f32
    %p2 = llvm.getelementptr %p0[64] : (!llvm.ptr<1>) -> !llvm.ptr<1>, f32
    %p3 = llvm.getelementptr %p0[65] : (!llvm.ptr<1>) -> !llvm.ptr<1>, f32
    llvm.store %d0, %p0 : f32, !llvm.ptr<1>
    llvm.store %d1, %p1 : f32, !llvm.ptr<1>
    llvm.store %d2, %p2 : f32, !llvm.ptr<1>
    llvm.store %d3, %p3 : f32, !llvm.ptr<1>
    gpu.return
  }

  gpu.func @no_barrier(%A: !llvm.ptr<1>, %B: !llvm.ptr<1>, %D: !llvm.ptr<1>) workgroup(%shared : memref<768xi8, #gpu.address_space<workgroup>>) kernel attributes {known_block_size = array<i32: 32, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c4 = arith.constant 4 : index
    %c8 = arith.constant 8 : index
    %c16 = arith.constant 16 : index
    %c32 = arith.constant 32 : index
    %c512 = arith.constant 512 : index
    %tid = gpu.thread_id x
    %sa = memref.view %shared[%c0][] : memref<768xi8, #gpu.address_space<workgroup>> to memref<256xf16, #gpu.address_space<workgroup>>
    %sb = memref.view %shared[%c512][] : memref<768xi8, #gpu.address_space<workgroup>> to memref<128xf16, #gpu.address_space<workgroup>>
    // A [16, 16] and B [16, 8] to shared memory, row-major.
    scf.for %i = %c0 to %c8 step %c1 {
      %base = arith.muli %i, %c32 : index
      %e = arith.addi %base, %tid : index
      %e64 = arith.index_cast %e : index to i64
      %p = llvm.getelementptr %A[%e64] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f16
      %v = llvm.load %p : !llvm.ptr<1> -> f16
      memref.store %v, %sa[%e] : memref<256xf16, #gpu.address_space<workgroup>>
    }
    scf.for %i = %c0 to %c4 step %c1 {
      %base = arith.muli %i, %c32 : index
      %e = arith.addi %base, %tid : index
      %e64 = arith.index_cast %e : index to i64
      %p = llvm.getelementptr %B[%e64] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f16
      %v = llvm.load %p : !llvm.ptr<1> -> f16
      memref.store %v, %sb[%e] : memref<128xf16, #gpu.address_space<workgroup>>
    }
    // A: lane l gives row l % 16, column 8 (l / 16): matrices (rows 0-7,
    // k 0-7), (8-15, 0-7), (0-7, 8-15), (8-15, 8-15).
    %row = arith.remui %tid, %c16 : index
    %half = arith.divui %tid, %c16 : index
    %col = arith.muli %half, %c8 : index
    %rowStart = arith.muli %row, %c16 : index
    %ia0 = arith.addi %rowStart, %col : index
    %ia = arith.addi %ia0, %c0 : index
    %a = nvgpu.ldmatrix %sa[%ia] {numTiles = 4 : i32, transpose = false} : memref<256xf16, #gpu.address_space<workgroup>> -> vector<4x2xf16>
    // B: lane l < 16 gives row k = l of B (x2: k 0-7, then 8-15), read
    // transposed; lanes 16-31 give no address.
    %ib = arith.muli %row, %c8 : index
    %b = nvgpu.ldmatrix %sb[%ib] {numTiles = 2 : i32, transpose = true} : memref<128xf16, #gpu.address_space<workgroup>> -> vector<2x2xf16>
    %zero = arith.constant dense<0.0> : vector<2x2xf32>
    %d = nvgpu.mma.sync(%a, %b, %zero) {mmaShape = [16, 8, 16]} : (vector<4x2xf16>, vector<2x2xf16>, vector<2x2xf32>) -> vector<2x2xf32>
    // d_i: row lane / 4 + 8 (i / 2), column 2 (lane % 4) + i % 2.
    %g = arith.divui %tid, %c4 : index
    %q = arith.remui %tid, %c4 : index
    %q2 = arith.muli %q, %c2 : index
    %r0 = arith.muli %g, %c8 : index
    %e0 = arith.addi %r0, %q2 : index
    %e64 = arith.index_cast %e0 : index to i64
    %d0 = vector.extract %d[0, 0] : f32 from vector<2x2xf32>
    %d1 = vector.extract %d[0, 1] : f32 from vector<2x2xf32>
    %d2 = vector.extract %d[1, 0] : f32 from vector<2x2xf32>
    %d3 = vector.extract %d[1, 1] : f32 from vector<2x2xf32>
    %p0 = llvm.getelementptr %D[%e64] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
    %p1 = llvm.getelementptr %p0[1] : (!llvm.ptr<1>) -> !llvm.ptr<1>, f32
    %p2 = llvm.getelementptr %p0[64] : (!llvm.ptr<1>) -> !llvm.ptr<1>, f32
    %p3 = llvm.getelementptr %p0[65] : (!llvm.ptr<1>) -> !llvm.ptr<1>, f32
    llvm.store %d0, %p0 : f32, !llvm.ptr<1>
    llvm.store %d1, %p1 : f32, !llvm.ptr<1>
    llvm.store %d2, %p2 : f32, !llvm.ptr<1>
    llvm.store %d3, %p3 : f32, !llvm.ptr<1>
    gpu.return
  }
}
}
