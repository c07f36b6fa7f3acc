// RUN: tile-opt %s -split-input-file --pass-pipeline='builtin.module(tile.kernel(tile-plan-shared,tile-insert-barriers),tile-to-gpu,canonicalize,cse)' | FileCheck %s

// The lowering of the language's later ops (LowerLanguage.cpp, and the
// operands they added to tile.load and tile.store). Every kernel here also
// runs under emulate against interp (test/Emulator/test-kernels.test) and
// through ptxas (test/Target/PTX/language.test).

// Scalar parameters are the kernel's own parameters, in place: f32 and i32
// by value, index as an i64; the symbols follow all of them.
// CHECK-LABEL: gpu.func @scalars(
// CHECK-SAME: %[[ALPHA:.*]]: f32, %[[X:.*]]: !llvm.ptr<1>, %[[START:.*]]: i64, %[[K:.*]]: i32, %[[Y:.*]]: !llvm.ptr<1>, %[[N:.*]]: i64)
// CHECK: %[[STARTI:.*]] = arith.index_cast %[[START]] : i64 to index
// CHECK: vector.broadcast %[[ALPHA]] : f32 to vector<2xf32>
// CHECK: arith.sitofp %[[K]] : i32 to f32
tile.kernel @scalars(%alpha: f32, %X: !tile.tensor<[N], f32>, %start: index, %k: i32,
                     %Y: !tile.tensor<[N], f32>) attributes {threads = 128 : i64} {
  %x = tile.load %X[%start] : !tile.tensor<[N], f32> -> tensor<256xf32>
  %old = tile.load %Y[%start] : !tile.tensor<[N], f32> -> tensor<256xf32>
  %a = tile.splat %alpha : tensor<256xf32>
  %kf = arith.sitofp %k : i32 to f32
  %ks = tile.splat %kf : tensor<256xf32>
  %ax = arith.mulf %a, %x : tensor<256xf32>
  %axk = arith.addf %ax, %ks : tensor<256xf32>
  %y = arith.addf %axk, %old : tensor<256xf32>
  tile.store %y, %Y[%start] : tensor<256xf32> -> !tile.tensor<[N], f32>
  tile.return
}

// -----

// An element outside the tensor reads `other` instead of 0; the slice
// wholly inside reads no `other` at all.
// CHECK-LABEL: gpu.func @load_other(
// CHECK: %[[NINF:.*]] = arith.constant 0xFF800000 : f32
// CHECK: scf.if %{{.*}} -> (vector<8xf32>) {
// CHECK-NOT: 0xFF800000
// CHECK: } else {
// CHECK: scf.if %{{.*}} -> (f32) {
// CHECK: llvm.load
// CHECK: } else {
// CHECK: scf.yield %[[NINF]] : f32
tile.kernel @load_other(%X: !tile.tensor<[M, N], f32>, %Y: !tile.tensor<[16, 64], f32>) attributes {threads = 128 : i64} {
  %c0 = arith.constant 0 : index
  %ninf = arith.constant 0xFF800000 : f32
  %x = tile.load %X[%c0, %c0] other %ninf : !tile.tensor<[M, N], f32> -> tensor<16x64xf32>
  %m = tile.rowmax %x : tensor<16x64xf32> -> tensor<16x1xf32>
  %b = tile.broadcast %m : tensor<16x1xf32> -> tensor<16x64xf32>
  tile.store %b, %Y[%c0, %c0] : tensor<16x64xf32> -> !tile.tensor<[16, 64], f32>
  tile.return
}

// -----

// A masked store: each element's mask joins its bounds check. (Y is read
// too, so the elements the mask leaves alone are checked as well.)
// CHECK-LABEL: gpu.func @store_mask(
// CHECK: %[[MASK:.*]] = arith.cmpi slt, %{{.*}}, %{{.*}} : vector<8xi32>
// CHECK: %[[M0:.*]] = vector.extract %[[MASK]][0] : i1 from vector<8xi1>
// CHECK: scf.if %[[M0]] {
// CHECK: llvm.store
tile.kernel @store_mask(%X: !tile.tensor<[16, 64], f32>, %Y: !tile.tensor<[16, 64], f32>) attributes {threads = 128 : i64} {
  %c0 = arith.constant 0 : index
  %x = tile.load %X[%c0, %c0] : !tile.tensor<[16, 64], f32> -> tensor<16x64xf32>
  %y = tile.load %Y[%c0, %c0] : !tile.tensor<[16, 64], f32> -> tensor<16x64xf32>
  %sum = arith.addf %x, %y : tensor<16x64xf32>
  %cols = tile.iota 1 : tensor<16x64xi32>
  %rows = tile.iota 0 : tensor<16x64xi32>
  %below = arith.cmpi slt, %cols, %rows : tensor<16x64xi32>
  tile.store %sum, %Y[%c0, %c0] mask %below : tensor<16x64xf32> -> !tile.tensor<[16, 64], f32>
  tile.return
}

// -----

// iota: each thread's own elements' indices, from its slot coordinates,
// with no memory.
// CHECK-LABEL: gpu.func @iota(
// CHECK-NOT: memref
// CHECK: %[[TID:.*]] = gpu.thread_id x
// CHECK: %[[COL:.*]] = arith.remui %[[TID]], %c64 : index
// CHECK: arith.index_cast %[[COL]] : index to i32
// CHECK: llvm.store
tile.kernel @iota(%Y: !tile.tensor<[16, 64], i32>, %Z: !tile.tensor<[4, 2, 8], i32>) attributes {threads = 128 : i64} {
  %c0 = arith.constant 0 : index
  %cols = tile.iota 1 : tensor<16x64xi32>
  %rows = tile.iota 0 : tensor<16x64xi32>
  %c64 = arith.constant dense<64> : tensor<16x64xi32>
  %r64 = arith.muli %rows, %c64 : tensor<16x64xi32>
  %e = arith.addi %r64, %cols : tensor<16x64xi32>
  tile.store %e, %Y[%c0, %c0] : tensor<16x64xi32> -> !tile.tensor<[16, 64], i32>
  %mid = tile.iota 1 : tensor<4x2x8xi32>
  tile.store %mid, %Z[%c0, %c0, %c0] : tensor<4x2x8xi32> -> !tile.tensor<[4, 2, 8], i32>
  tile.return
}

// -----

// A masked store of a row result goes through a shared temporary: the
// owners of [16, 1] hold the mask, not the rows' first lanes. (S is read
// first, so the rows the mask leaves alone are checked too.)
// CHECK-LABEL: gpu.func @masked_row_result(
// CHECK: gpu.shuffle xor
// CHECK: memref.store
// CHECK: gpu.barrier
// CHECK: memref.load
tile.kernel @masked_row_result(%X: !tile.tensor<[16, 32], f32>, %S: !tile.tensor<[16, 1], f32>,
                               %O: !tile.tensor<[16, 1], f32>) attributes {threads = 128 : i64} {
  %c0 = arith.constant 0 : index
  %x = tile.load %X[%c0, %c0] : !tile.tensor<[16, 32], f32> -> tensor<16x32xf32>
  %s = tile.rowsum %x : tensor<16x32xf32> -> tensor<16x1xf32>
  %rows = tile.iota 0 : tensor<16x1xi32>
  %c2 = arith.constant dense<2> : tensor<16x1xi32>
  %odd = arith.remsi %rows, %c2 : tensor<16x1xi32>
  %c1 = arith.constant dense<1> : tensor<16x1xi32>
  %m = arith.cmpi eq, %odd, %c1 : tensor<16x1xi32>
  %old = tile.load %S[%c0, %c0] : !tile.tensor<[16, 1], f32> -> tensor<16x1xf32>
  tile.store %old, %O[%c0, %c0] : tensor<16x1xf32> -> !tile.tensor<[16, 1], f32>
  tile.store %s, %S[%c0, %c0] mask %m : tensor<16x1xf32> -> !tile.tensor<[16, 1], f32>
  tile.return
}

// -----

// An element every thread has: read from shared memory by every thread.
// CHECK-LABEL: gpu.func @extract(
// CHECK: gpu.barrier
// CHECK: %[[E:.*]] = memref.load %{{.*}}[%c1023] : memref<1024xf32, #gpu.address_space<workgroup>>
// CHECK: vector.broadcast %[[E]] : f32 to vector<8xf32>
tile.kernel @extract(%X: !tile.tensor<[16, 64], f32>, %Y: !tile.tensor<[16, 64], f32>) attributes {threads = 128 : i64} {
  %c0 = arith.constant 0 : index
  %x = tile.load %X[%c0, %c0] : !tile.tensor<[16, 64], f32> -> tensor<16x64xf32>
  %last = tile.extract %x[15, 63] : tensor<16x64xf32>
  %s = tile.splat %last : tensor<16x64xf32>
  %y = arith.addf %x, %s : tensor<16x64xf32>
  tile.store %y, %Y[%c0, %c0] : tensor<16x64xf32> -> !tile.tensor<[16, 64], f32>
  tile.return
}

// -----

// Sub-tiles of whole rows at a multiple of the threads keep their owners:
// slots move between vectors, in registers. Half rows do not: they go
// through shared memory.
// CHECK-LABEL: gpu.func @subtiles(
// CHECK-NOT: gpu.barrier
// CHECK: memref.store
// CHECK: gpu.barrier
// CHECK: memref.load
tile.kernel @subtiles(%X: !tile.tensor<[16, 64], f32>, %Y: !tile.tensor<[16, 64], f32>) attributes {threads = 128 : i64} {
  %c0 = arith.constant 0 : index
  %x = tile.load %X[%c0, %c0] : !tile.tensor<[16, 64], f32> -> tensor<16x64xf32>
  %low = tile.extract_slice %x[8, 0] : tensor<16x64xf32> -> tensor<8x64xf32>
  %two = arith.constant dense<2.0> : tensor<8x64xf32>
  %d = arith.mulf %low, %two : tensor<8x64xf32>
  %top = tile.insert_slice %d into %x[0, 0] : tensor<8x64xf32> into tensor<16x64xf32>
  %half = tile.extract_slice %top[0, 32] : tensor<16x64xf32> -> tensor<16x32xf32>
  %out = tile.insert_slice %half into %top[0, 0] : tensor<16x32xf32> into tensor<16x64xf32>
  tile.store %out, %Y[%c0, %c0] : tensor<16x64xf32> -> !tile.tensor<[16, 64], f32>
  tile.return
}

// -----

// A gather of rows: each element's row index comes from the [16, 1] index
// tile in shared memory (its owners are other threads), and is checked
// against the tensor (0 <= row < V, one unsigned compare) with the
// element's column; outside, `other`.
// CHECK-LABEL: gpu.func @gather(
// CHECK: memref.store %{{.*}} : memref<16xi32, #gpu.address_space<workgroup>>
// CHECK: gpu.barrier
// CHECK: %[[ID:.*]] = memref.load %{{.*}} : memref<16xi32, #gpu.address_space<workgroup>>
// CHECK: %[[ROW:.*]] = arith.index_cast %[[ID]] : i32 to index
// CHECK: arith.cmpi ult, %[[ROW]], %{{.*}} : index
// CHECK: scf.if %{{.*}} -> (f32) {
// CHECK: llvm.load
// CHECK: } else {
// CHECK: scf.yield %cst
tile.kernel @gather(%E: !tile.tensor<[V, 64], f32>, %Ids: !tile.tensor<[16, 1], i32>, %Y: !tile.tensor<[16, 64], f32>) attributes {threads = 128 : i64} {
  %c0 = arith.constant 0 : index
  %ids = tile.load %Ids[%c0, %c0] : !tile.tensor<[16, 1], i32> -> tensor<16x1xi32>
  %other = arith.constant 0.5 : f32
  %e = tile.gather %E[%c0, %c0] indices(%ids) dims [0] other %other : !tile.tensor<[V, 64], f32>, tensor<16x1xi32> -> tensor<16x64xf32>
  tile.store %e, %Y[%c0, %c0] : tensor<16x64xf32> -> !tile.tensor<[16, 64], f32>
  tile.return
}

// -----

// A scatter to a permutation of the rows, each store marked with the
// scatter's number and slot for the emulator.
// CHECK-LABEL: gpu.func @scatter(
// CHECK: llvm.store %{{.*}}, %{{.*}} {tile.scatter = array<i64: 0, 0>}
// CHECK: llvm.store %{{.*}}, %{{.*}} {tile.scatter = array<i64: 0, 7>}
tile.kernel @scatter(%X: !tile.tensor<[16, 64], f32>, %Y: !tile.tensor<[16, 64], f32>) attributes {threads = 128 : i64} {
  %c0 = arith.constant 0 : index
  %x = tile.load %X[%c0, %c0] : !tile.tensor<[16, 64], f32> -> tensor<16x64xf32>
  %rows = tile.iota 0 : tensor<16x64xi32>
  %c15 = arith.constant dense<15> : tensor<16x64xi32>
  %reversed = arith.subi %c15, %rows : tensor<16x64xi32>
  tile.scatter %x, %Y[%c0, %c0] indices(%reversed) dims [0] : tensor<16x64xf32>, !tile.tensor<[16, 64], f32>, tensor<16x64xi32>
  tile.return
}

// -----

// Atomic updates: one relaxed llvm.atomicrmw per element inside the
// tensor; f32 max is fmax (NaN ignored), i32 max the signed one.
// CHECK-LABEL: gpu.func @atomics(
// CHECK: llvm.atomicrmw fadd %{{.*}}, %{{.*}} monotonic : !llvm.ptr<1>, f32
// CHECK: llvm.atomicrmw fmax %{{.*}}, %{{.*}} monotonic : !llvm.ptr<1>, f32
// CHECK: llvm.atomicrmw max %{{.*}}, %{{.*}} monotonic : !llvm.ptr<1>, i32
// CHECK: llvm.atomicrmw fadd %{{.*}}, %{{.*}} monotonic : !llvm.ptr<1>, f16
tile.kernel @atomics(%X: !tile.tensor<[16, 64], f32>, %C: !tile.tensor<[M, 64], f32>,
                     %I: !tile.tensor<[16, 64], i32>, %H: !tile.tensor<[8], i32>,
                     %F: !tile.tensor<[16, 64], f16>) attributes {threads = 128 : i64} {
  %c0 = arith.constant 0 : index
  %x = tile.load %X[%c0, %c0] : !tile.tensor<[16, 64], f32> -> tensor<16x64xf32>
  tile.atomic add %x, %C[%c0, %c0] : tensor<16x64xf32>, !tile.tensor<[M, 64], f32>
  tile.atomic max %x, %C[%c0, %c0] : tensor<16x64xf32>, !tile.tensor<[M, 64], f32>
  %i = tile.load %I[%c0, %c0] : !tile.tensor<[16, 64], i32> -> tensor<16x64xi32>
  %c8 = arith.constant dense<8> : tensor<16x64xi32>
  %shifted = arith.addi %i, %c8 : tensor<16x64xi32>
  %bins = arith.remsi %shifted, %c8 : tensor<16x64xi32>
  %flat = tile.reshape %bins : tensor<16x64xi32> -> tensor<1024xi32>
  %vals = tile.reshape %i : tensor<16x64xi32> -> tensor<1024xi32>
  tile.atomic max %vals, %H[%c0] indices(%flat) dims [0] : tensor<1024xi32>, !tile.tensor<[8], i32>, tensor<1024xi32>
  %h = arith.truncf %x : tensor<16x64xf32> to tensor<16x64xf16>
  tile.atomic add %h, %F[%c0, %c0] : tensor<16x64xf16>, !tile.tensor<[16, 64], f16>
  tile.return
}
