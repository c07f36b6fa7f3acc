// RUN: tile-opt %s -split-input-file --pass-pipeline='builtin.module(tile.kernel(tile-plan-shared,tile-insert-barriers),tile-to-gpu,canonicalize,cse)' | FileCheck %s

// The ABI: one global pointer per tensor, then one i64 per symbol. Slices
// are checked where the compiler cannot prove them inside the tensor: here
// the columns (K is dynamic), not the rows (offset 0, 16 of 16 rows). A
// slice wholly inside (64 <= K - 64, which cannot overflow as 64 + 64 <= K
// could) loads with no check per element; otherwise each element is
// checked.
// CHECK-LABEL: gpu.func @masked_load(
// CHECK-SAME: %[[X:.*]]: !llvm.ptr<1>, %[[O:.*]]: !llvm.ptr<1>, %[[K:.*]]: i64)
// CHECK-SAME: kernel attributes {known_block_size = array<i32: 256, 1, 1>, tile_signature = [!tile.tensor<[16, K], f32>, !tile.tensor<[16, 64], f32>]}
// CHECK: %[[TID:.*]] = gpu.thread_id x
// CHECK: %[[KI:.*]] = arith.index_cast %[[K]] : i64 to index
// CHECK: %[[LAST:.*]] = arith.subi %[[KI]], %c64 : index
// CHECK: %[[WHOLE:.*]] = arith.cmpi sge, %[[LAST]], %c64 : index
// CHECK: scf.if %[[WHOLE]] -> (vector<4xf32>) {
// CHECK-NOT: scf.if
// CHECK-COUNT-4: llvm.load
// CHECK: } else {
// CHECK: %[[COL:.*]] = arith.remui %[[TID]], %c64
// CHECK: %[[ROW:.*]] = arith.divui %[[TID]], %c64
// CHECK: %[[GCOL:.*]] = arith.addi %[[COL]], %c64
// 0 <= column < K is one unsigned compare (K is never negative).
// CHECK: %[[IN:.*]] = arith.cmpi ult, %[[GCOL]], %[[KI]]
// CHECK: scf.if %[[IN]] -> (f32)
// CHECK: %[[LIN:.*]] = arith.muli %[[ROW]], %[[KI]]
// CHECK: llvm.getelementptr %[[X]][%{{.*}}] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
// CHECK: llvm.load
// CHECK: } else {
// CHECK: scf.yield %{{.*}} : f32
// CHECK-COUNT-3: scf.if %{{.*}} -> (f32)
// The store to O[0 :+ 16, 0 :+ 64] of a [16, 64] tensor needs no check.
// CHECK-NOT: scf.if
// CHECK-COUNT-4: llvm.store %{{.*}}, %{{.*}} : f32, !llvm.ptr<1>
// CHECK: gpu.return
tile.kernel @masked_load(%X: !tile.tensor<[16, K], f32>, %O: !tile.tensor<[16, 64], f32>) attributes {threads = 256 : i64} {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %x = tile.load %X[%c0, %c64] : !tile.tensor<[16, K], f32> -> tensor<16x64xf32>
  tile.store %x, %O[%c0, %c0] : tensor<16x64xf32> -> !tile.tensor<[16, 64], f32>
  tile.return
}

// -----

// A store that may fall outside the tensor is dropped there; a tile that
// does not divide among the threads masks its last slot, whether the slice
// is wholly inside the tensor or not.
// CHECK-LABEL: gpu.func @masked_store(
// CHECK: %[[TID:.*]] = gpu.thread_id x
// CHECK: %[[WHOLE:.*]] = arith.andi
// CHECK: scf.if %[[WHOLE]] {
// CHECK: llvm.store
// CHECK: %[[SLOT:.*]] = arith.cmpi ult, %[[TID]], %c32
// CHECK: scf.if %[[SLOT]] {
// CHECK: llvm.store
// CHECK: } else {
// CHECK: scf.if
// CHECK: llvm.store
// CHECK: %[[VALID:.*]] = arith.cmpi ult, %[[TID]], %c32
// CHECK: %[[IN:.*]] = arith.andi %[[VALID]], %{{.*}}
// CHECK: scf.if %[[IN]] {
// CHECK: llvm.store
tile.kernel @masked_store(%O: !tile.tensor<[N], f32>) attributes {threads = 64 : i64} {
  %off = tile.block_id x
  %v = arith.constant dense<1.0> : tensor<96xf32>
  tile.store %v, %O[%off] : tensor<96xf32> -> !tile.tensor<[N], f32>
  tile.return
}

// -----

// A shared var is a view of the workgroup buffer at its planned offset;
// the owner of each element reads and writes it at the element's index.
// A var kept in registers and a scalar var are per-thread allocas. (`s`
// is shared because rows of 48 reduce through shared memory.)
// CHECK-LABEL: gpu.func @vars(
// CHECK-SAME: workgroup(%[[SMEM:.*]] : memref<3072xi8, #gpu.address_space<workgroup>>)
// CHECK-DAG: %[[VIEW:.*]] = memref.view %[[SMEM]][%c0][] : memref<3072xi8, #gpu.address_space<workgroup>> to memref<768xf32, #gpu.address_space<workgroup>>
// CHECK-DAG: %[[REG:.*]] = memref.alloca() : memref<vector<6xf32>>
// CHECK-DAG: %[[N:.*]] = memref.alloca() : memref<i32>
// CHECK: memref.store %{{.*}}, %[[VIEW]][%{{.*}}] : memref<768xf32, #gpu.address_space<workgroup>>
// CHECK: memref.store %{{.*}}, %[[REG]][] : memref<vector<6xf32>>
// CHECK: memref.store %{{.*}}, %[[N]][] : memref<i32>
// CHECK: memref.load %[[REG]][]
// CHECK: memref.load %[[N]][]
tile.kernel @vars(%A: !tile.tensor<[16, 48], f32>, %M: !tile.tensor<[16, 1], f32>, %C: !tile.tensor<[1], i32>) attributes {threads = 128 : i64} {
  %c0 = arith.constant 0 : index
  %a = tile.load %A[%c0, %c0] : !tile.tensor<[16, 48], f32> -> tensor<16x48xf32>
  %s = tile.var "s" = %a : !tile.var<16x48xf32>
  %r = tile.var "r" = %a : !tile.var<16x48xf32>
  %n = tile.var "n" : !tile.var<i32>
  %one = arith.constant 1 : i32
  tile.write %one, %n : !tile.var<i32>
  %sv = tile.read %s : !tile.var<16x48xf32>
  %m = tile.rowsum %sv : tensor<16x48xf32> -> tensor<16x1xf32>
  tile.store %m, %M[%c0, %c0] : tensor<16x1xf32> -> !tile.tensor<[16, 1], f32>
  %rv = tile.read %r : !tile.var<16x48xf32>
  tile.store %rv, %A[%c0, %c0] : tensor<16x48xf32> -> !tile.tensor<[16, 48], f32>
  %nv = tile.read %n : !tile.var<i32>
  %nt = tile.splat %nv : tensor<1xi32>
  tile.store %nt, %C[%c0] : tensor<1xi32> -> !tile.tensor<[1], i32>
  tile.return
}

// -----

// The whole-slice check at a start the kernel computes: 0 <= start and
// start <= size - extent, in 64 bits (a start near 2^63 fails it instead of
// wrapping past the end), for a symbolic size and for a static one.
// CHECK-LABEL: gpu.func @whole_slice_check(
// CHECK-SAME: %[[X:.*]]: !llvm.ptr<1>, %[[O:.*]]: !llvm.ptr<1>, %[[K:.*]]: i64)
// CHECK: %[[KI:.*]] = arith.index_cast %[[K]] : i64 to index
// CHECK: %[[START:.*]] = gpu.block_id x
// CHECK-DAG: %[[ROWS:.*]] = arith.cmpi sle, %[[START]], %c0 : index
// CHECK-DAG: %[[LAST:.*]] = arith.subi %[[KI]], %c64 : index
// CHECK-DAG: %[[COLS:.*]] = arith.cmpi sle, %[[START]], %[[LAST]] : index
// CHECK-DAG: %[[NOTBELOW:.*]] = arith.cmpi sge, %[[START]], %c0 : index
// CHECK: scf.if %{{.*}} -> (vector<8xf32>)
tile.kernel @whole_slice_check(%X: !tile.tensor<[16, K], f32>, %O: !tile.tensor<[16, 64], f32>) attributes {threads = 128 : i64} {
  %c0 = arith.constant 0 : index
  %start = tile.block_id x
  %x = tile.load %X[%start, %start] : !tile.tensor<[16, K], f32> -> tensor<16x64xf32>
  tile.store %x, %O[%c0, %c0] : tensor<16x64xf32> -> !tile.tensor<[16, 64], f32>
  tile.return
}

// -----

// Constant starts against static sizes near 2^32 and at the end of 64 bits:
// 2^32 with 32 of 2^32 + 32 elements is inside and needs no check; 2^32 + 1
// is not; 2^63 - 1 is not (its end overflowed into "inside" before).
// CHECK-LABEL: gpu.func @static_edges(
// CHECK-NOT: scf.if
// CHECK: llvm.load
// CHECK-NOT: scf.if
// CHECK: llvm.store
// CHECK: arith.cmpi ult, %{{.*}}, %c4294967328 : index
// CHECK: scf.if
// CHECK: llvm.load
// CHECK: arith.cmpi ult, %{{.*}}, %c4294967328 : index
// CHECK: scf.if
// CHECK: llvm.load
// CHECK: gpu.return
tile.kernel @static_edges(%X: !tile.tensor<[4294967328], f32>, %O: !tile.tensor<[96], f32>) attributes {threads = 32 : i64} {
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %inside = arith.constant 4294967296 : index
  %over = arith.constant 4294967297 : index
  %top = arith.constant 9223372036854775807 : index
  %a = tile.load %X[%inside] : !tile.tensor<[4294967328], f32> -> tensor<32xf32>
  tile.store %a, %O[%c0] : tensor<32xf32> -> !tile.tensor<[96], f32>
  %b = tile.load %X[%over] : !tile.tensor<[4294967328], f32> -> tensor<32xf32>
  tile.store %b, %O[%c32] : tensor<32xf32> -> !tile.tensor<[96], f32>
  %c = tile.load %X[%top] : !tile.tensor<[4294967328], f32> -> tensor<32xf32>
  tile.store %c, %O[%c64] : tensor<32xf32> -> !tile.tensor<[96], f32>
  tile.return
}
