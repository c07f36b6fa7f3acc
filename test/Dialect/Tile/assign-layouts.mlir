// RUN: tile-opt %s -split-input-file --pass-pipeline='builtin.module(tile.kernel(tile-plan-shared,tile-assign-layouts))' | FileCheck %s
// RUN: tile-opt %s -split-input-file --pass-pipeline='builtin.module(tile.kernel(tile-plan-shared,tile-assign-layouts{remarks=true}))' -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK

// rowscale's loop: a slice scaled by a broadcast read from shared memory
// and stored. No use observes which thread holds which element, so the
// slice, the broadcast and the product get runs of 4 f32 (16 bytes).
// CHECK-LABEL: tile.kernel @scale
// CHECK: tile.broadcast {{.*}} -> tensor<16x128xf32, #tile.blocked<vector = 4>>
// CHECK: tile.load {{.*}} -> tensor<16x128xf32, #tile.blocked<vector = 4>>
// CHECK: arith.mulf {{.*}} : tensor<16x128xf32, #tile.blocked<vector = 4>>
// CHECK: tile.store
// REMARK: assign-layouts.mlir:[[# @LINE + 10]]:10: remark: slice read 4 elements a thread at a time (16-byte accesses): layout #tile.blocked<vector = 4>, which no other use observes
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

// -----

// f16 runs are 8 elements (16 bytes); rows of 4 allow runs of 4 only.
// CHECK-LABEL: tile.kernel @widths
// CHECK: tile.load {{.*}} -> tensor<32x64xf16, #tile.blocked<vector = 8>>
// CHECK: tile.load {{.*}} -> tensor<128x4xf32, #tile.blocked<vector = 4>>
tile.kernel @widths(%A: !tile.tensor<[32, 64], f16>, %B: !tile.tensor<[32, 64], f16>, %C: !tile.tensor<[128, 4], f32>, %D: !tile.tensor<[128, 4], f32>) attributes {threads = 128 : i64} {
  %c0 = arith.constant 0 : index
  %a = tile.load %A[%c0, %c0] : !tile.tensor<[32, 64], f16> -> tensor<32x64xf16>
  tile.store %a, %B[%c0, %c0] : tensor<32x64xf16> -> !tile.tensor<[32, 64], f16>
  %c = tile.load %C[%c0, %c0] : !tile.tensor<[128, 4], f32> -> tensor<128x4xf32>
  tile.store %c, %D[%c0, %c0] : tensor<128x4xf32> -> !tile.tensor<[128, 4], f32>
  tile.return
}

// -----

// A loop-carried accumulator has one layout through the loop: its init,
// the loop's slices and its update take runs of 4, and so do the iteration
// argument, the yield and the result: their types agree, as scf.for checks.
// CHECK-LABEL: tile.kernel @carried
// CHECK: arith.constant dense<0.000000e+00> : tensor<16x64xf32, #tile.blocked<vector = 4>>
// CHECK: scf.for
// CHECK-SAME: -> (tensor<16x64xf32, #tile.blocked<vector = 4>>) {
// CHECK: tile.load {{.*}} -> tensor<16x64xf32, #tile.blocked<vector = 4>>
// CHECK: arith.addf {{.*}} : tensor<16x64xf32, #tile.blocked<vector = 4>>
// CHECK: scf.yield {{.*}} : tensor<16x64xf32, #tile.blocked<vector = 4>>
// CHECK: tile.store {{.*}} : tensor<16x64xf32, #tile.blocked<vector = 4>>
// CHECK: tile.return
tile.kernel @carried(%X: !tile.tensor<[16, K], f32>, %O: !tile.tensor<[16, 64], f32>) attributes {threads = 256 : i64} {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %K = tile.dim %X[1] : !tile.tensor<[16, K], f32>
  %zero = arith.constant dense<0.0> : tensor<16x64xf32>
  %acc = scf.for %kt = %c0 to %K step %c64 iter_args(%a = %zero) -> (tensor<16x64xf32>) {
    %x = tile.load %X[%c0, %kt] : !tile.tensor<[16, K], f32> -> tensor<16x64xf32>
    %n = arith.addf %a, %x : tensor<16x64xf32>
    scf.yield %n : tensor<16x64xf32>
  }
  tile.store %acc, %O[%c0, %c0] : tensor<16x64xf32> -> !tile.tensor<[16, 64], f32>
  tile.return
}

// -----

// A tile whose rows are reduced takes runs when its rows still reduce where
// they live: rows of 64 f32 in runs of 4 lie in 16 lanes of one warp (in
// the cyclic distribution they span two warps, whose partials met in a
// scratch var, dropped here with its bytes). The row result's layout is
// #tile.rows of the input's, written into its type with every other.
// CHECK-LABEL: tile.kernel @reduced
// CHECK-SAME: tile.shared_bytes = 0
// CHECK-NOT: tile.var
// CHECK: tile.load {{.*}} -> tensor<16x64xf32, #tile.blocked<vector = 4>>
// CHECK: math.exp {{.*}} : tensor<16x64xf32, #tile.blocked<vector = 4>>
// CHECK: tile.rowsum %{{.*}} : tensor<16x64xf32, #tile.blocked<vector = 4>> -> tensor<16x1xf32, #tile.rows<columns = 64, parent = #tile.blocked<vector = 4>>>
// CHECK: tile.return
// REMARK: assign-layouts.mlir:[[# @LINE + 6]]:8: remark: rows of 64 reduced where they live (#tile.blocked<vector = 4>): 2 row results a thread, a butterfly of 4 shuffles over 16 lanes, no shared memory; result layout #tile.rows<columns = 64, parent = #tile.blocked<vector = 4>>
tile.kernel @reduced(%X: !tile.tensor<[16, 64], f32>, %Y: !tile.tensor<[16, 64], f32>, %S: !tile.tensor<[16, 1], f32>) attributes {threads = 128 : i64} {
  %c0 = arith.constant 0 : index
  %x = tile.load %X[%c0, %c0] : !tile.tensor<[16, 64], f32> -> tensor<16x64xf32>
  %e = math.exp %x : tensor<16x64xf32>
  tile.store %e, %Y[%c0, %c0] : tensor<16x64xf32> -> !tile.tensor<[16, 64], f32>
  %s = tile.rowsum %e : tensor<16x64xf32> -> tensor<16x1xf32>
  tile.store %s, %S[%c0, %c0] : tensor<16x1xf32> -> !tile.tensor<[16, 1], f32>
  tile.return
}

// -----

// A kernel that reads ctx.thread keeps the cyclic distribution everywhere.
// CHECK-LABEL: tile.kernel @per_thread
// CHECK-NOT: vector = 4
// CHECK: tile.load {{.*}} -> tensor<16x64xf32, #tile.blocked<vector = 1>>
// CHECK-NOT: vector = 4
// CHECK: tile.return
tile.kernel @per_thread(%X: !tile.tensor<[16, 64], f32>, %Y: !tile.tensor<[16, 64], f32>) attributes {threads = 128 : i64} {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %t = tile.thread_id
  %low = arith.cmpi ult, %t, %c16 : index
  scf.if %low {
    %x = tile.load %X[%c0, %c0] : !tile.tensor<[16, 64], f32> -> tensor<16x64xf32>
    tile.store %x, %Y[%c0, %c0] : tensor<16x64xf32> -> !tile.tensor<[16, 64], f32>
  }
  tile.return
}

// -----

// embedding's loop: a gather of whole rows (its index on dimension 0 only,
// the [16, 1] index tile broadcast from shared memory), stored as a slice.
// No use observes which thread holds which element: runs of 4 f32, each
// consecutive in one row of E.
// CHECK-LABEL: tile.kernel @embed
// CHECK: tile.gather {{.*}} -> tensor<16x64xf32, #tile.blocked<vector = 4>>
// CHECK: tile.store
// REMARK: assign-layouts.mlir:[[# @LINE + 9]]:10: remark: rows gathered 4 elements a thread at a time (16-byte accesses): layout #tile.blocked<vector = 4>, which no other use observes
tile.kernel @embed(%Ids: !tile.tensor<[M, 1], i32>, %E: !tile.tensor<[V, D], f32>, %Y: !tile.tensor<[M, D], f32>) attributes {threads = 128 : i64} {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %D = tile.dim %E[1] : !tile.tensor<[V, D], f32>
  %ids = tile.load %Ids[%c0, %c0] : !tile.tensor<[M, 1], i32> -> tensor<16x1xi32>
  %v = tile.var "ids" = %ids : !tile.var<16x1xi32>
  %r = tile.read %v : !tile.var<16x1xi32>
  scf.for %c = %c0 to %D step %c64 {
    %g = tile.gather %E[%c0, %c] indices(%r) dims [0] : !tile.tensor<[V, D], f32>, tensor<16x1xi32> -> tensor<16x64xf32>
    tile.store %g, %Y[%c0, %c] : tensor<16x64xf32> -> !tile.tensor<[M, D], f32>
  }
  tile.return
}

// -----

// A gather whose index addresses the last dimension (a column a row)
// reads no two consecutive elements: the cyclic distribution, no runs.
// CHECK-LABEL: tile.kernel @columns
// CHECK: tile.gather {{.*}} -> tensor<16x64xf32, #tile.blocked<vector = 1>>
// CHECK-NOT: vector = 4
// CHECK: tile.return
tile.kernel @columns(%Ids: !tile.tensor<[16, 64], i32>, %E: !tile.tensor<[V, D], f32>, %Y: !tile.tensor<[M, D], f32>) attributes {threads = 128 : i64} {
  %c0 = arith.constant 0 : index
  %ids = tile.load %Ids[%c0, %c0] : !tile.tensor<[16, 64], i32> -> tensor<16x64xi32>
  %g = tile.gather %E[%c0, %c0] indices(%ids) dims [1] : !tile.tensor<[V, D], f32>, tensor<16x64xi32> -> tensor<16x64xf32>
  tile.store %g, %Y[%c0, %c0] : tensor<16x64xf32> -> !tile.tensor<[M, D], f32>
  tile.return
}

// -----

// layernorm's second pass: a mask of iota and compares (an i1 tile made
// and used in registers) selects from a slice. The iota computes each
// element from its coordinates and the mask never meets memory, so the
// whole group takes runs of 4 f32: the slice is read 16 bytes at a time.
// CHECK-LABEL: tile.kernel @masked
// CHECK: tile.iota 1 : tensor<16x64xi32, #tile.blocked<vector = 4>>
// CHECK: tile.load {{.*}} -> tensor<16x64xf32, #tile.blocked<vector = 4>>
// CHECK: arith.select {{.*}} tensor<16x64xf32, #tile.blocked<vector = 4>>
tile.kernel @masked(%X: !tile.tensor<[M, N], f32>, %Y: !tile.tensor<[M, N], f32>) attributes {threads = 128 : i64} {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %N = tile.dim %X[1] : !tile.tensor<[M, N], f32>
  %n = arith.index_cast %N : index to i32
  %bound = tile.splat %n : tensor<16x64xi32>
  %zero = arith.constant dense<0.0> : tensor<16x64xf32>
  scf.for %c = %c0 to %N step %c64 {
    %ci = arith.index_cast %c : index to i32
    %start = tile.splat %ci : tensor<16x64xi32>
    %i = tile.iota 1 : tensor<16x64xi32>
    %col = arith.addi %i, %start : tensor<16x64xi32>
    %inside = arith.cmpi slt, %col, %bound : tensor<16x64xi32>
    %x = tile.load %X[%c0, %c] : !tile.tensor<[M, N], f32> -> tensor<16x64xf32>
    %y = arith.select %inside, %x, %zero : tensor<16x64xi1>, tensor<16x64xf32>
    tile.store %y, %Y[%c0, %c] : tensor<16x64xf32> -> !tile.tensor<[M, N], f32>
  }
  tile.return
}
