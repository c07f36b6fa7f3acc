// RUN: tile-opt %s --pass-pipeline='builtin.module(tile.kernel(tile-plan-shared,tile-assign-layouts,tile-insert-barriers),tile-specialize-divisibility)' | FileCheck %s
// A second run adds nothing.
// RUN: tile-opt %s --pass-pipeline='builtin.module(tile.kernel(tile-plan-shared,tile-assign-layouts,tile-insert-barriers),tile-specialize-divisibility,tile-specialize-divisibility)' | FileCheck %s

// rowscale's loop: runs of 4 f32 whose alignment depends on N. The variant
// knows every symbol a multiple of 16, keeps the placement (layouts,
// barriers) and follows its kernel.
// CHECK-LABEL: tile.kernel @scale(
// CHECK-NOT: tile.divisibility
// CHECK-SAME: {
// CHECK: tile.kernel @scale_div16(
// CHECK-SAME: tile.divisibility = {M = 16 : i64, N = 16 : i64}
// CHECK-SAME: tile.variant_of = @scale
// CHECK: tile.load {{.*}} -> tensor<{{.*}}, #tile.blocked<vector = 4>>
// CHECK: tile.return
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

// Static shapes: nothing for divisibility to decide, no variant.
// CHECK-LABEL: tile.kernel @static(
// CHECK-NOT: tile.kernel @static_div16
tile.kernel @static(%X: !tile.tensor<[16, 64], f32>, %Y: !tile.tensor<[16, 64], f32>) attributes {threads = 128 : i64} {
  %c0 = arith.constant 0 : index
  %x = tile.load %X[%c0, %c0] : !tile.tensor<[16, 64], f32> -> tensor<16x64xf32>
  tile.store %x, %Y[%c0, %c0] : tensor<16x64xf32> -> !tile.tensor<[16, 64], f32>
  tile.return
}

// A symbol only in a dimension whose slices are longer than 16 (the rows,
// 32 at a time): neither a run's alignment nor how a slice's bounds are
// checked depends on it. No variant.
// CHECK-LABEL: tile.kernel @rows_only(
// CHECK-NOT: tile.kernel @rows_only_div16
tile.kernel @rows_only(%X: !tile.tensor<[M, 64], f32>, %Y: !tile.tensor<[M, 64], f32>) attributes {threads = 128 : i64} {
  %c0 = arith.constant 0 : index
  %x = tile.load %X[%c0, %c0] : !tile.tensor<[M, 64], f32> -> tensor<32x64xf32>
  tile.store %x, %Y[%c0, %c0] : tensor<32x64xf32> -> !tile.tensor<[M, 64], f32>
  tile.return
}

// Blocks of 16 rows at multiples of 16 (flash attention's queries): where
// M is a multiple of 16 too, each block is wholly inside the tensor or
// wholly outside, so the checked version tests a block's first row, not
// every row. A variant, for the bounds alone.
// CHECK-LABEL: tile.kernel @row_blocks(
// CHECK: tile.kernel @row_blocks_div16(
// CHECK-SAME: tile.divisibility = {M = 16 : i64}
// CHECK-SAME: tile.variant_of = @row_blocks
tile.kernel @row_blocks(%X: !tile.tensor<[M, 64], f32>, %Y: !tile.tensor<[M, 64], f32>) attributes {threads = 128 : i64} {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %b = tile.block_id x
  %r = arith.muli %b, %c16 : index
  %x = tile.load %X[%r, %c0] : !tile.tensor<[M, 64], f32> -> tensor<16x64xf32>
  tile.store %x, %Y[%r, %c0] : tensor<16x64xf32> -> !tile.tensor<[M, 64], f32>
  tile.return
}

// The name NAME_div16 is taken: the variant gets a number.
// CHECK-LABEL: tile.kernel @copy(
// CHECK: tile.kernel @copy_div16_1(
// CHECK-SAME: tile.variant_of = @copy
// CHECK-LABEL: tile.kernel @copy_div16(
tile.kernel @copy(%X: !tile.tensor<[16, N], f32>, %Y: !tile.tensor<[16, N], f32>) attributes {threads = 128 : i64} {
  %c0 = arith.constant 0 : index
  %x = tile.load %X[%c0, %c0] : !tile.tensor<[16, N], f32> -> tensor<16x64xf32>
  tile.store %x, %Y[%c0, %c0] : tensor<16x64xf32> -> !tile.tensor<[16, N], f32>
  tile.return
}
tile.kernel @copy_div16(%X: !tile.tensor<[16], f32>) attributes {threads = 32 : i64} {
  tile.return
}

// A 1-D slice's runs are aligned whatever N, but the slice that crosses the
// end is checked a run at a time only where N is whole runs: a variant.
// CHECK-LABEL: tile.kernel @flat(
// CHECK: tile.kernel @flat_div16(
// CHECK-SAME: tile.divisibility = {N = 16 : i64}
tile.kernel @flat(%X: !tile.tensor<[N], f32>, %Y: !tile.tensor<[N], f32>) attributes {threads = 128 : i64} {
  %c0 = arith.constant 0 : index
  %x = tile.load %X[%c0] : !tile.tensor<[N], f32> -> tensor<512xf32>
  tile.store %x, %Y[%c0] : tensor<512xf32> -> !tile.tensor<[N], f32>
  tile.return
}
