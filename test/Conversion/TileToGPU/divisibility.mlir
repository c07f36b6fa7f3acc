// RUN: tile-opt %s --pass-pipeline='builtin.module(tile.kernel(tile-plan-shared,tile-assign-layouts,tile-insert-barriers),tile-to-gpu,canonicalize,cse)' | FileCheck %s

// What the lowering knows divides an offset or a size is not tested at run
// time. The loop's index (0, step 128) is a multiple of 4, so the general
// kernel tests only the row pitch N for its runs of 4 f32.
// CHECK-LABEL: gpu.func @scale(
// CHECK: scf.for
// CHECK-NOT: arith.remsi
// CHECK: arith.remsi %{{.*}}, %c4 : index
// CHECK-NOT: arith.remsi
// CHECK: scf.if %{{.*}} -> (vector<16xf32>)
// CHECK-COUNT-4: llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xf32>
// CHECK: } else {
// CHECK: llvm.load %{{.*}} : !llvm.ptr<1> -> f32
// CHECK: gpu.return
tile.kernel @scale(%X: !tile.tensor<[M, N], f32>, %S: !tile.tensor<[M, 1], f32>, %Y: !tile.tensor<[M, N], f32>) attributes {threads = 128 : i64} {
  %c0 = arith.constant 0 : index
  %c128 = arith.constant 128 : index
  %N = tile.dim %X[1] : !tile.tensor<[M, N], f32>
  %s = tile.load %S[%c0, %c0] : !tile.tensor<[M, 1], f32> -> tensor<16x1xf32>
  %sv = tile.var "scale" = %s : !tile.var<16x1xf32>
  %sr = tile.read %sv : !tile.var<16x1xf32>
  %b = tile.broadcast %sr : tensor<16x1xf32> -> tensor<16x128xf32>
  scf.for %col = %c0 to %N step %c128 {
    %x = tile.load %X[%c0, %col] : !tile.tensor<[M, N], f32> -> tensor<16x128xf32>
    %y = arith.mulf %x, %b : tensor<16x128xf32>
    tile.store %y, %Y[%c0, %col] : tensor<16x128xf32> -> !tile.tensor<[M, N], f32>
  }
  tile.return
}

// With N known a multiple of 16 (tile.divisibility), the runs are aligned
// whatever the launch: no test of N, and a slice that crosses the edge is
// still read and written 16 bytes at a time, each run wholly inside the
// tensor or wholly outside it, so one test a run (the run's first element)
// replaces the per-element path.
// CHECK-LABEL: gpu.func @scale_div16(
// CHECK-NOT: arith.remsi
// CHECK: scf.for
// CHECK: scf.if %{{.*}} -> (vector<16xf32>)
// CHECK-COUNT-4: llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xf32>
// CHECK: } else {
// CHECK-NOT: -> f32
// CHECK: scf.if %{{.*}} -> (vector<4xf32>)
// CHECK: llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xf32>
// CHECK-NOT: -> f32
// CHECK: arith.mulf {{.*}} : vector<16xf32>
// CHECK: scf.if
// CHECK-COUNT-4: llvm.store %{{.*}} {alignment = 16 : i64} : vector<4xf32>, !llvm.ptr<1>
// CHECK: } else {
// CHECK-NOT: : f32, !llvm.ptr<1>
// CHECK: scf.if
// CHECK: llvm.store %{{.*}} {alignment = 16 : i64} : vector<4xf32>, !llvm.ptr<1>
// CHECK-NOT: : f32, !llvm.ptr<1>
// CHECK: gpu.return
tile.kernel @scale_div16(%X: !tile.tensor<[M, N], f32>, %S: !tile.tensor<[M, 1], f32>, %Y: !tile.tensor<[M, N], f32>) attributes {threads = 128 : i64, tile.divisibility = {N = 16 : i64}} {
  %c0 = arith.constant 0 : index
  %c128 = arith.constant 128 : index
  %N = tile.dim %X[1] : !tile.tensor<[M, N], f32>
  %s = tile.load %S[%c0, %c0] : !tile.tensor<[M, 1], f32> -> tensor<16x1xf32>
  %sv = tile.var "scale" = %s : !tile.var<16x1xf32>
  %sr = tile.read %sv : !tile.var<16x1xf32>
  %b = tile.broadcast %sr : tensor<16x1xf32> -> tensor<16x128xf32>
  scf.for %col = %c0 to %N step %c128 {
    %x = tile.load %X[%c0, %col] : !tile.tensor<[M, N], f32> -> tensor<16x128xf32>
    %y = arith.mulf %x, %b : tensor<16x128xf32>
    tile.store %y, %Y[%c0, %col] : tensor<16x128xf32> -> !tile.tensor<[M, N], f32>
  }
  tile.return
}

// An offset the analysis cannot see through (a block index times 2) is
// tested at run time even under tile.divisibility; the divisor of N is not.
// CHECK-LABEL: gpu.func @unknown_offset(
// CHECK: arith.remsi %{{.*}}, %c4 : index
// CHECK-NOT: arith.remsi
// CHECK: gpu.return
tile.kernel @unknown_offset(%X: !tile.tensor<[M, N], f32>, %Y: !tile.tensor<[M, N], f32>) attributes {threads = 128 : i64, tile.divisibility = {N = 16 : i64}} {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %b = tile.block_id x
  %col = arith.muli %b, %c2 : index
  %x = tile.load %X[%c0, %col] : !tile.tensor<[M, N], f32> -> tensor<16x128xf32>
  tile.store %x, %Y[%c0, %col] : tensor<16x128xf32> -> !tile.tensor<[M, N], f32>
  tile.return
}

// A scalar var's divisor is the largest its initial value and every value
// written to it keep (a fixpoint: `col = 0; col += 64` is a multiple of 64),
// so the column offset of this while loop is not tested; N is.
// CHECK-LABEL: gpu.func @var_offset(
// CHECK: scf.while
// CHECK: arith.remsi %{{.*}}, %c4 : index
// CHECK-NOT: arith.remsi
// CHECK: gpu.return
tile.kernel @var_offset(%X: !tile.tensor<[16, N], f32>, %Y: !tile.tensor<[16, N], f32>) attributes {threads = 128 : i64} {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %N = tile.dim %X[1] : !tile.tensor<[16, N], f32>
  %col = tile.var "col" = %c0 : !tile.var<index>
  scf.while : () -> () {
    %c = tile.read %col : !tile.var<index>
    %more = arith.cmpi slt, %c, %N : index
    scf.condition(%more)
  } do {
    %c = tile.read %col : !tile.var<index>
    %x = tile.load %X[%c0, %c] : !tile.tensor<[16, N], f32> -> tensor<16x64xf32>
    tile.store %x, %Y[%c0, %c] : tensor<16x64xf32> -> !tile.tensor<[16, N], f32>
    %next = arith.addi %c, %c64 : index
    tile.write %next, %col : !tile.var<index>
    scf.yield
  }
  tile.return
}

// A write of a value that is not a multiple of 4 makes every read of the
// var unknown: its offset is tested, N (divisible by 16) is not.
// CHECK-LABEL: gpu.func @var_offset_odd(
// CHECK: scf.while
// CHECK: arith.remsi %{{.*}}, %c4 : index
// CHECK-NOT: arith.remsi
// CHECK: gpu.return
tile.kernel @var_offset_odd(%X: !tile.tensor<[16, N], f32>, %Y: !tile.tensor<[16, N], f32>) attributes {threads = 128 : i64, tile.divisibility = {N = 16 : i64}} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %N = tile.dim %X[1] : !tile.tensor<[16, N], f32>
  %col = tile.var "col" = %c0 : !tile.var<index>
  scf.while : () -> () {
    %c = tile.read %col : !tile.var<index>
    %more = arith.cmpi slt, %c, %N : index
    scf.condition(%more)
  } do {
    %c = tile.read %col : !tile.var<index>
    %x = tile.load %X[%c0, %c] : !tile.tensor<[16, N], f32> -> tensor<16x64xf32>
    tile.store %x, %Y[%c0, %c] : tensor<16x64xf32> -> !tile.tensor<[16, N], f32>
    %next = arith.addi %c, %c64 : index
    %odd = arith.addi %next, %c1 : index
    tile.write %odd, %col : !tile.var<index>
    scf.yield
  }
  tile.return
}

// A load that is its block's only access of global
// memory, with runs known aligned: its runs are each checked, with no
// unchecked version and no test of the whole slice (tile-predicated-accesses
// makes each a predicated load). The 16 rows start at a multiple of 16 of
// an M that is one: all inside or all outside, one unsigned test of the
// first row, the same for every thread (loop-invariant, which LLVM hoists);
// the column's test is one unsigned compare, and the two runs of a thread
// share the predicate.
// CHECK-LABEL: gpu.func @rows_div16(
// CHECK: %[[M:.*]] = arith.index_cast %{{.*}} : i64 to index
// CHECK: %[[ROW:.*]] = arith.muli %{{.*}}, %c16 : index
// CHECK: scf.for %[[COL:.*]] = %c0 to %{{.*}} step %c64
// CHECK-NOT: scf.if
// CHECK: %[[ROWS:.*]] = arith.cmpi ult, %[[ROW]], %[[M]] : index
// CHECK-NOT: scf.if
// CHECK: %[[C:.*]] = arith.addi %[[COL]], %{{.*}} : index
// CHECK: %[[COLUMN:.*]] = arith.cmpi ult, %[[C]], %{{.*}} : index
// CHECK: %[[INSIDE:.*]] = arith.andi %[[ROWS]], %[[COLUMN]] : i1
// CHECK: scf.if %[[INSIDE]] -> (vector<4xf32>)
// CHECK: llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xf32>
// CHECK-NOT: arith.cmpi
// CHECK: scf.if %[[INSIDE]] -> (vector<4xf32>)
// CHECK: llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xf32>
// CHECK-NOT: scf.if
// CHECK: arith.addf
// CHECK: scf.yield
tile.kernel @rows_div16(%X: !tile.tensor<[M, N], f32>, %O: !tile.tensor<[M, 64], f32>) attributes {threads = 128 : i64, tile.divisibility = {M = 16 : i64, N = 16 : i64}} {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  %N = tile.dim %X[1] : !tile.tensor<[M, N], f32>
  %block = tile.block_id x
  %row = arith.muli %block, %c16 : index
  %zero = arith.constant dense<0.000000e+00> : tensor<16x64xf32>
  %sum = scf.for %col = %c0 to %N step %c64 iter_args(%acc = %zero) -> (tensor<16x64xf32>) {
    %x = tile.load %X[%row, %col] : !tile.tensor<[M, N], f32> -> tensor<16x64xf32>
    %next = arith.addf %acc, %x : tensor<16x64xf32>
    scf.yield %next : tensor<16x64xf32>
  }
  tile.store %sum, %O[%row, %c0] : tensor<16x64xf32> -> !tile.tensor<[M, 64], f32>
  tile.return
}
