// RUN: tile-opt %s | tile-opt | FileCheck %s
// RUN: tile-opt %s --mlir-print-op-generic | tile-opt | FileCheck %s
// Every op of the tile dialect round-trips, in the custom and generic forms.

// CHECK: #[[GRID:.*]] = affine_map<()[s0, s1] -> (s0 ceildiv 16, s1 floordiv 64)>
// CHECK: #[[SIZES:.*]] = affine_map<()[s0, s1, s2] -> (s1 ceildiv 64, s2)>

// CHECK-LABEL: tile.kernel @squares(
// CHECK-SAME: %{{.*}}: !tile.tensor<[16, K], f32>, %{{.*}}: !tile.tensor<[16, 64], f32>, %{{.*}}: !tile.tensor<[16, 1], f32>)
// CHECK-SAME: attributes {registers = ["acc"], threads = 256 : i64}
tile.kernel @squares(%X: !tile.tensor<[16, K], f32>, %O: !tile.tensor<[16, 64], f32>,
                     %S: !tile.tensor<[16, 1], f32>)
    attributes {threads = 256 : i64, registers = ["acc"]} {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  // CHECK: %[[K:.*]] = tile.dim %{{.*}}[1] : !tile.tensor<[16, K], f32>
  %K = tile.dim %X[1] : !tile.tensor<[16, K], f32>
  %zero = arith.constant dense<0.0> : tensor<16x64xf32>
  // CHECK: %[[ACC:.*]] = tile.var "acc" = %{{.*}} : !tile.var<16x64xf32>
  %acc = tile.var "acc" = %zero : !tile.var<16x64xf32>
  // CHECK: scf.for %[[KT:.*]] = %{{.*}} to %[[K]] step
  scf.for %kt = %c0 to %K step %c64 {
    // CHECK: tile.load %{{.*}}[%{{.*}}, %[[KT]]] : !tile.tensor<[16, K], f32> -> tensor<16x64xf32>
    %x = tile.load %X[%c0, %kt] : !tile.tensor<[16, K], f32> -> tensor<16x64xf32>
    %sq = arith.mulf %x, %x : tensor<16x64xf32>
    // CHECK: tile.read %[[ACC]] : !tile.var<16x64xf32>
    %a = tile.read %acc : !tile.var<16x64xf32>
    %n = arith.addf %a, %sq : tensor<16x64xf32>
    // CHECK: tile.write %{{.*}}, %[[ACC]] : !tile.var<16x64xf32>
    tile.write %n, %acc : !tile.var<16x64xf32>
  }
  %final = tile.read %acc : !tile.var<16x64xf32>
  // CHECK: tile.store %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}] : tensor<16x64xf32> -> !tile.tensor<[16, 64], f32>
  tile.store %final, %O[%c0, %c0] : tensor<16x64xf32> -> !tile.tensor<[16, 64], f32>
  // CHECK: tile.rowsum %{{.*}} : tensor<16x64xf32> -> tensor<16x1xf32>
  %s = tile.rowsum %final : tensor<16x64xf32> -> tensor<16x1xf32>
  tile.store %s, %S[%c0, %c0] : tensor<16x1xf32> -> !tile.tensor<[16, 1], f32>
  // CHECK: tile.return
  tile.return
}

// CHECK-LABEL: tile.kernel @everything(
// CHECK-SAME: attributes {grid = #[[GRID]], pipeline = {stages = 3 : i64}, threads = 128 : i64}
tile.kernel @everything(%A: !tile.tensor<[M, 32], f16>, %B: !tile.tensor<[32, N], f16>,
                        %C: !tile.tensor<[M, N], f32>, %I: !tile.tensor<[M, 8], i32>,
                        %H: !tile.tensor<[M, 8], bf16>)
    attributes {threads = 128 : i64,
                grid = affine_map<()[s0, s1] -> (s0 ceildiv 16, s1 floordiv 64)>,
                pipeline = {stages = 3 : i64}} {
  // CHECK: tile.thread_id
  %t = tile.thread_id
  // CHECK: tile.num_threads
  %nt = tile.num_threads
  // CHECK: tile.lanes
  %l = tile.lanes
  // CHECK: tile.block_id x
  %bx = tile.block_id x
  // CHECK: tile.block_id y
  %by = tile.block_id y
  // CHECK: tile.num_blocks z
  %gz = tile.num_blocks z
  %c16 = arith.constant 16 : index
  %c0 = arith.constant 0 : index
  %row = arith.muli %bx, %c16 : index
  // CHECK: tile.load {{.*}} : !tile.tensor<[M, 32], f16> -> tensor<16x32xf16>
  %a = tile.load %A[%row, %c0] : !tile.tensor<[M, 32], f16> -> tensor<16x32xf16>
  %b = tile.load %B[%c0, %c0] : !tile.tensor<[32, N], f16> -> tensor<32x64xf16>
  // CHECK: tile.dot %{{.*}}, %{{.*}} : tensor<16x32xf16>, tensor<32x64xf16> -> tensor<16x64xf32>
  %d = tile.dot %a, %b : tensor<16x32xf16>, tensor<32x64xf16> -> tensor<16x64xf32>
  // CHECK: tile.rowmax %{{.*}} : tensor<16x64xf32> -> tensor<16x1xf32>
  %m = tile.rowmax %d : tensor<16x64xf32> -> tensor<16x1xf32>
  // CHECK: %[[P:.*]] = tile.var "rowmax.partials" : !tile.var<16x2xf32>
  %p = tile.var "rowmax.partials" : !tile.var<16x2xf32>
  // CHECK: tile.rowmax %{{.*}} through %[[P]] : tensor<16x64xf32>, !tile.var<16x2xf32> -> tensor<16x1xf32>
  %m2 = tile.rowmax %d through %p : tensor<16x64xf32>, !tile.var<16x2xf32> -> tensor<16x1xf32>
  // CHECK: tile.broadcast %{{.*}} : tensor<16x1xf32> -> tensor<16x64xf32>
  %mb = tile.broadcast %m : tensor<16x1xf32> -> tensor<16x64xf32>
  // CHECK: tile.convert_layout %{{.*}} : tensor<16x1xf32> -> tensor<16x1xf32, #tile.blocked<vector = 1>>
  %mc = tile.convert_layout %m : tensor<16x1xf32> -> tensor<16x1xf32, #tile.blocked<vector = 1>>
  // CHECK: %[[CS:.*]] = tile.var "convert_layout.scratch" : !tile.var<16x1xf32>
  %cs = tile.var "convert_layout.scratch" : !tile.var<16x1xf32>
  // CHECK: tile.convert_layout %{{.*}} through %[[CS]] : tensor<16x1xf32, #tile.blocked<vector = 1>>, !tile.var<16x1xf32> -> tensor<16x1xf32, #tile.rows<columns = 64, parent = #tile.blocked<vector = 4>>>
  %mr2 = tile.convert_layout %mc through %cs : tensor<16x1xf32, #tile.blocked<vector = 1>>, !tile.var<16x1xf32> -> tensor<16x1xf32, #tile.rows<columns = 64, parent = #tile.blocked<vector = 4>>>
  // CHECK: tile.reshape %{{.*}} : tensor<16x1xf32> -> tensor<16xf32>
  %mr = tile.reshape %m : tensor<16x1xf32> -> tensor<16xf32>
  %e = arith.subf %d, %mb : tensor<16x64xf32>
  %one = arith.constant 1.0 : f32
  // CHECK: tile.splat %{{.*}} : tensor<16x64xf32>
  %ones = tile.splat %one : tensor<16x64xf32>
  %f = arith.addf %e, %ones : tensor<16x64xf32>
  tile.store %f, %C[%row, %c0] : tensor<16x64xf32> -> !tile.tensor<[M, N], f32>
  %i = tile.load %I[%row, %c0] : !tile.tensor<[M, 8], i32> -> tensor<16x8xi32>
  // CHECK: tile.rowsum %{{.*}} : tensor<16x8xi32> -> tensor<16x1xi32>
  %is = tile.rowsum %i : tensor<16x8xi32> -> tensor<16x1xi32>
  %h = tile.load %H[%row, %c0] : !tile.tensor<[M, 8], bf16> -> tensor<16x8xbf16>
  // CHECK: tile.var "h" = %{{.*}} {storage = #tile.storage<registers>} : !tile.var<16x8xbf16>
  %hv = tile.var "h" = %h {storage = #tile.storage<registers>} : !tile.var<16x8xbf16>
  // CHECK: tile.var "n" : !tile.var<i32>
  %n = tile.var "n" : !tile.var<i32>
  %c1 = arith.constant 1 : i32
  // CHECK: tile.write %{{.*}}, %{{.*}} : !tile.var<i32>
  tile.write %c1, %n : !tile.var<i32>
  // CHECK: tile.read %{{.*}} : !tile.var<i32>
  %nv = tile.read %n : !tile.var<i32>
  %iv = tile.var "i" : !tile.var<index>
  tile.return
}

// Scalar parameters, `other` on a load, `mask` on a store, iota.
// CHECK-LABEL: tile.kernel @language(
// CHECK-SAME: %{{.*}}: f32, %{{.*}}: !tile.tensor<[M, N], f32>, %{{.*}}: index, %{{.*}}: f16, %{{.*}}: bf16, %{{.*}}: i32
tile.kernel @language(%alpha: f32, %X: !tile.tensor<[M, N], f32>, %start: index,
                      %h: f16, %b: bf16, %k: i32) attributes {threads = 128 : i64} {
  %c0 = arith.constant 0 : index
  // CHECK: %[[X:.*]] = tile.load %{{.*}}[%{{.*}}, %{{.*}}] other %{{.*}} : !tile.tensor<[M, N], f32> -> tensor<16x64xf32>
  %x = tile.load %X[%start, %c0] other %alpha : !tile.tensor<[M, N], f32> -> tensor<16x64xf32>
  // CHECK: %[[COLS:.*]] = tile.iota 1 : tensor<16x64xi32>
  %cols = tile.iota 1 : tensor<16x64xi32>
  %ks = tile.splat %k : tensor<16x64xi32>
  %m = arith.cmpi slt, %cols, %ks : tensor<16x64xi32>
  // CHECK: tile.store %[[X]], %{{.*}}[%{{.*}}, %{{.*}}] mask %{{.*}} : tensor<16x64xf32> -> !tile.tensor<[M, N], f32>
  tile.store %x, %X[%start, %c0] mask %m : tensor<16x64xf32> -> !tile.tensor<[M, N], f32>
  // CHECK: tile.iota 0 : tensor<4x2x8xi32>
  %planes = tile.iota 0 : tensor<4x2x8xi32>
  tile.return
}

// Explicit copies, a shared tile without an initial value, a ring and its
// stages, async copies, their groups and waits, a requested barrier.
// CHECK-LABEL: tile.kernel @copies(
tile.kernel @copies(%A: !tile.tensor<[32, K], f16>, %Y: !tile.tensor<[N], f32>)
    attributes {threads = 128 : i64} {
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  %K = tile.dim %A[1] : !tile.tensor<[32, K], f16>
  // CHECK: %[[T:.*]] = tile.var "t" {storage = #tile.storage<shared>} : !tile.var<256xf32>
  %t = tile.var "t" {storage = #tile.storage<shared>} : !tile.var<256xf32>
  // CHECK: %[[P:.*]] = tile.var "p" {stages = 3 : i64} : !tile.var<32x32xf16>
  %p = tile.var "p" {stages = 3 : i64} : !tile.var<32x32xf16>
  // CHECK: %[[B:.*]] = tile.stage %[[P]][%{{.*}} + 2] : !tile.var<32x32xf16>
  %back = tile.stage %p[%c0 + 2] : !tile.var<32x32xf16>
  // CHECK: tile.copy %{{.*}}[%{{.*}}, %{{.*}}] to %[[B]][%{{.*}}, %{{.*}}] [32, 32] {async, width = 8 : i64} : !tile.tensor<[32, K], f16> to !tile.var<32x32xf16>
  tile.copy %A[%c0, %c32] to %back[%c0, %c0] [32, 32] {async, width = 8 : i64} : !tile.tensor<[32, K], f16> to !tile.var<32x32xf16>
  // CHECK: tile.commit_group
  tile.commit_group
  // CHECK: tile.wait_group 0
  tile.wait_group 0
  // CHECK: tile.barrier {requested}
  tile.barrier {requested}
  %m = arith.constant dense<true> : tensor<256xi1>
  // CHECK: tile.copy %[[T]][%{{.*}}] to %{{.*}}[%{{.*}}] [256] mask %{{.*}} : !tile.var<256xf32> to !tile.tensor<[N], f32>, tensor<256xi1>
  tile.copy %t[%c0] to %Y[%c32] [256] mask %m : !tile.var<256xf32> to !tile.tensor<[N], f32>, tensor<256xi1>
  // CHECK: tile.copy %{{.*}}[%{{.*}}] to %[[T]][%{{.*}}] [256] {width = 4 : i64}
  tile.copy %Y[%c0] to %t[%c0] [256] {width = 4 : i64} : !tile.tensor<[N], f32> to !tile.var<256xf32>
  // CHECK: tile.read %[[B]] : !tile.var<32x32xf16>
  %v = tile.read %back : !tile.var<32x32xf16>
  tile.return
}

// Elements and sub-tiles of tiles, gathers and scatters.
// CHECK-LABEL: tile.kernel @indexing(
tile.kernel @indexing(%E: !tile.tensor<[V, 64], f32>, %Y: !tile.tensor<[M, 64], f32>) attributes {threads = 128 : i64} {
  %c0 = arith.constant 0 : index
  %t = arith.constant dense<1.0> : tensor<16x64xf32>
  // CHECK: tile.extract %{{.*}}[3, 5] : tensor<16x64xf32>
  %x = tile.extract %t[3, 5] : tensor<16x64xf32>
  // CHECK: %[[S:.*]] = tile.extract_slice %{{.*}}[8, 0] : tensor<16x64xf32> -> tensor<8x64xf32>
  %s = tile.extract_slice %t[8, 0] : tensor<16x64xf32> -> tensor<8x64xf32>
  // CHECK: tile.insert_slice %[[S]] into %{{.*}}[0, 0] : tensor<8x64xf32> into tensor<16x64xf32>
  %u = tile.insert_slice %s into %t[0, 0] : tensor<8x64xf32> into tensor<16x64xf32>
  %ids = arith.constant dense<2> : tensor<16x1xi32>
  // CHECK: %[[G:.*]] = tile.gather %{{.*}}[%{{.*}}, %{{.*}}] indices(%{{.*}}) dims [0] other %{{.*}} : !tile.tensor<[V, 64], f32>, tensor<16x1xi32> -> tensor<16x64xf32>
  %g = tile.gather %E[%c0, %c0] indices(%ids) dims [0] other %x : !tile.tensor<[V, 64], f32>, tensor<16x1xi32> -> tensor<16x64xf32>
  %m = arith.constant dense<true> : tensor<16x64xi1>
  // CHECK: tile.scatter %[[G]], %{{.*}}[%{{.*}}, %{{.*}}] indices(%{{.*}}) dims [0] mask %{{.*}} : tensor<16x64xf32>, !tile.tensor<[M, 64], f32>, tensor<16x1xi32>
  tile.scatter %g, %Y[%c0, %c0] indices(%ids) dims [0] mask %m : tensor<16x64xf32>, !tile.tensor<[M, 64], f32>, tensor<16x1xi32>
  %cols = arith.constant dense<1> : tensor<16x64xi32>
  // CHECK: tile.gather %{{.*}} indices(%{{.*}}, %{{.*}}) dims [0, 1] : !tile.tensor<[V, 64], f32>, tensor<16x1xi32>, tensor<16x64xi32> -> tensor<16x64xf32>
  %h = tile.gather %E[%c0, %c0] indices(%ids, %cols) dims [0, 1] : !tile.tensor<[V, 64], f32>, tensor<16x1xi32>, tensor<16x64xi32> -> tensor<16x64xf32>
  tile.return
}

// Atomic updates, of a slice and at indices.
// CHECK-LABEL: tile.kernel @atomics(
tile.kernel @atomics(%C: !tile.tensor<[M, N], f32>, %H: !tile.tensor<[B], i32>) attributes {threads = 128 : i64} {
  %c0 = arith.constant 0 : index
  %v = arith.constant dense<1.0> : tensor<16x64xf32>
  // CHECK: tile.atomic add %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}] : tensor<16x64xf32>, !tile.tensor<[M, N], f32>
  tile.atomic add %v, %C[%c0, %c0] : tensor<16x64xf32>, !tile.tensor<[M, N], f32>
  %m = arith.constant dense<true> : tensor<16x64xi1>
  // CHECK: tile.atomic max %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}] mask %{{.*}} : tensor<16x64xf32>, !tile.tensor<[M, N], f32>
  tile.atomic max %v, %C[%c0, %c0] mask %m : tensor<16x64xf32>, !tile.tensor<[M, N], f32>
  %ones = arith.constant dense<1> : tensor<256xi32>
  %bins = arith.constant dense<3> : tensor<256xi32>
  // CHECK: tile.atomic min %{{.*}}, %{{.*}}[%{{.*}}] indices(%{{.*}}) dims [0] : tensor<256xi32>, !tile.tensor<[B], i32>, tensor<256xi32>
  tile.atomic min %ones, %H[%c0] indices(%bins) dims [0] : tensor<256xi32>, !tile.tensor<[B], i32>, tensor<256xi32>
  tile.return
}

// An index dimension's extent is the number of indices, which a static
// size does not bound: 64 lookups of a 4-row table.
// CHECK-LABEL: tile.kernel @lookups(
tile.kernel @lookups(%T: !tile.tensor<[4, 8], f32>) attributes {threads = 64 : i64} {
  %c0 = arith.constant 0 : index
  %ids = arith.constant dense<1> : tensor<64x1xi32>
  // CHECK: tile.gather {{.*}} -> tensor<64x8xf32>
  %g = tile.gather %T[%c0, %c0] indices(%ids) dims [0] : !tile.tensor<[4, 8], f32>, tensor<64x1xi32> -> tensor<64x8xf32>
  // CHECK: tile.scatter
  tile.scatter %g, %T[%c0, %c0] indices(%ids) dims [0] : tensor<64x8xf32>, !tile.tensor<[4, 8], f32>, tensor<64x1xi32>
  tile.return
}

// Transposes, and a dot reading its right operand transposed.
// CHECK-LABEL: tile.kernel @transposes(
tile.kernel @transposes(%K: !tile.tensor<[64, 32], f16>) attributes {threads = 128 : i64} {
  %c0 = arith.constant 0 : index
  %k = tile.load %K[%c0, %c0] : !tile.tensor<[64, 32], f16> -> tensor<64x32xf16>
  // CHECK: tile.transpose %{{.*}} : tensor<64x32xf16> -> tensor<32x64xf16>
  %kt = tile.transpose %k : tensor<64x32xf16> -> tensor<32x64xf16>
  %q = tile.extract_slice %k[0, 0] : tensor<64x32xf16> -> tensor<16x32xf16>
  // CHECK: tile.dot %{{.*}}, %{{.*}} rhs_transposed : tensor<16x32xf16>, tensor<64x32xf16> -> tensor<16x64xf32>
  %s = tile.dot %q, %k rhs_transposed : tensor<16x32xf16>, tensor<64x32xf16> -> tensor<16x64xf32>
  tile.return
}

// A tile type carries its layout (its encoding), a register var its
// values' (`layout`); a read or written value, or an initial value, in a
// layout has its type written after the var's.
// CHECK-LABEL: tile.kernel @written
// CHECK: %[[X:.*]] = tile.load {{.*}} -> tensor<16x64xf32, #tile.blocked<vector = 4>>
// CHECK: %[[V:.*]] = tile.var "v" = %[[X]] {layout = #tile.blocked<vector = 4>, storage = #tile.storage<registers>} : !tile.var<16x64xf32>, tensor<16x64xf32, #tile.blocked<vector = 4>>
// CHECK: tile.read %[[V]] : !tile.var<16x64xf32> -> tensor<16x64xf32, #tile.blocked<vector = 4>>
// CHECK: tile.write %{{.*}}, %[[V]] : !tile.var<16x64xf32>, tensor<16x64xf32, #tile.blocked<vector = 4>>
// CHECK: %[[S:.*]] = tile.rowsum %{{.*}} : tensor<16x64xf32, #tile.blocked<vector = 4>> -> tensor<16x1xf32, #tile.rows<columns = 64, parent = #tile.blocked<vector = 4>>>
// CHECK: tile.convert_layout %[[S]] : tensor<16x1xf32, #tile.rows<columns = 64, parent = #tile.blocked<vector = 4>>> -> tensor<16x1xf32, #tile.blocked<vector = 1>>
tile.kernel @written(%X: !tile.tensor<[16, 64], f32>, %S: !tile.tensor<[16, 1], f32>) attributes {threads = 256 : i64} {
  %c0 = arith.constant 0 : index
  %x = tile.load %X[%c0, %c0] : !tile.tensor<[16, 64], f32> -> tensor<16x64xf32, #tile.blocked<vector = 4>>
  %v = tile.var "v" = %x {layout = #tile.blocked<vector = 4>, storage = #tile.storage<registers>} : !tile.var<16x64xf32>, tensor<16x64xf32, #tile.blocked<vector = 4>>
  %r = tile.read %v : !tile.var<16x64xf32> -> tensor<16x64xf32, #tile.blocked<vector = 4>>
  %d = arith.addf %r, %r : tensor<16x64xf32, #tile.blocked<vector = 4>>
  tile.write %d, %v : !tile.var<16x64xf32>, tensor<16x64xf32, #tile.blocked<vector = 4>>
  %s = tile.rowsum %d : tensor<16x64xf32, #tile.blocked<vector = 4>> -> tensor<16x1xf32, #tile.rows<columns = 64, parent = #tile.blocked<vector = 4>>>
  %t = tile.convert_layout %s : tensor<16x1xf32, #tile.rows<columns = 64, parent = #tile.blocked<vector = 4>>> -> tensor<16x1xf32, #tile.blocked<vector = 1>>
  %u = arith.mulf %t, %t : tensor<16x1xf32, #tile.blocked<vector = 1>>
  tile.store %u, %S[%c0, %c0] : tensor<16x1xf32, #tile.blocked<vector = 1>> -> !tile.tensor<[16, 1], f32>
  tile.return
}

// A dimension that is an expression of symbols is a string in the type, and
// a grid may name the integer scalar parameters after the symbols.
// CHECK-LABEL: tile.kernel @size_expressions(
// CHECK-SAME: %{{.*}}: !tile.tensor<[M, "2 * H"], f16>, %{{.*}}: !tile.tensor<[M, H], f16>, %{{.*}}: !tile.tensor<["2 * (H - 1) + 3"], i32>, %{{.*}}: i32 {tile.name = "splits"})
// CHECK-SAME: grid = #[[SIZES]]
tile.kernel @size_expressions(%X: !tile.tensor<[M, "2 * H"], f16>, %Y: !tile.tensor<[M, H], f16>,
                              %Z: !tile.tensor<["2 * (H - 1) + 3"], i32>, %splits: i32 {tile.name = "splits"})
    attributes {threads = 32 : i64, grid = affine_map<()[s0, s1, s2] -> (s1 ceildiv 64, s2)>} {
  // CHECK: tile.dim %{{.*}}[1] : !tile.tensor<[M, "2 * H"], f16>
  %w = tile.dim %X[1] : !tile.tensor<[M, "2 * H"], f16>
  tile.return
}
