// RUN: tile-opt %s -split-input-file -verify-diagnostics

// A tile's layout is the encoding of its tensor type (docs/design.md, the
// type system): checked against the tile's shape and the kernel's threads,
// shared by an elementwise op's operands and result, changed only by
// tile.convert_layout. Every check is a located error.

tile.kernel @not_a_layout(%X: !tile.tensor<[4, 8], f32>) attributes {threads = 32 : i64} {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{'tile.load' op a tile type's encoding is its layout (#tile.blocked, #tile.rows, #tile.mma), not 4 : i64}}
  %x = tile.load %X[%c0, %c0] : !tile.tensor<[4, 8], f32> -> tensor<4x8xf32, 4 : i64>
  tile.return
}

// -----

tile.kernel @layout_does_not_fit(%X: !tile.tensor<[16, 6], f32>) attributes {threads = 32 : i64} {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{'tile.load' op #tile.blocked vector 4 must divide the rows of 'tensor<16x6xf32>' and, times 32 threads, its elements}}
  %x = tile.load %X[%c0, %c0] : !tile.tensor<[16, 6], f32> -> tensor<16x6xf32, #tile.blocked<vector = 4>>
  tile.return
}

// -----

// math.fpowi, whose own verifier checks shapes only, and arith.extf, whose
// own checks the casts' types whole.
tile.kernel @elementwise_layouts(%X: !tile.tensor<[16, 128], f32>, %N: !tile.tensor<[16, 128], i32>) attributes {threads = 128 : i64} {
  %c0 = arith.constant 0 : index
  %x = tile.load %X[%c0, %c0] : !tile.tensor<[16, 128], f32> -> tensor<16x128xf32, #tile.blocked<vector = 4>>
  %n = tile.load %N[%c0, %c0] : !tile.tensor<[16, 128], i32> -> tensor<16x128xi32>
  // expected-error @+1 {{'math.fpowi' op is elementwise, but its operand of type 'tensor<16x128xi32>' and its result of type 'tensor<16x128xf32, #tile.blocked<vector = 4>>' differ in layout}}
  %y = math.fpowi %x, %n : tensor<16x128xf32, #tile.blocked<vector = 4>>, tensor<16x128xi32>
  tile.return
}

// -----

tile.kernel @cast_layouts(%X: !tile.tensor<[16, 128], f16>) attributes {threads = 128 : i64} {
  %c0 = arith.constant 0 : index
  %x = tile.load %X[%c0, %c0] : !tile.tensor<[16, 128], f16> -> tensor<16x128xf16, #tile.blocked<vector = 4>>
  // expected-error @+1 {{'arith.extf' op operand type 'tensor<16x128xf16, #tile.blocked<vector = 4>>' and result type 'tensor<16x128xf32, #tile.blocked<vector = 1>>' are cast incompatible}}
  %y = arith.extf %x : tensor<16x128xf16, #tile.blocked<vector = 4>> to tensor<16x128xf32, #tile.blocked<vector = 1>>
  tile.return
}

// -----

tile.kernel @convert_changes_shape(%X: !tile.tensor<[16, 128], f32>) attributes {threads = 128 : i64} {
  %c0 = arith.constant 0 : index
  %x = tile.load %X[%c0, %c0] : !tile.tensor<[16, 128], f32> -> tensor<16x128xf32, #tile.blocked<vector = 4>>
  // expected-error @+1 {{'tile.convert_layout' op converts 'tensor<16x128xf32, #tile.blocked<vector = 4>>' to 'tensor<16x128xf16, #tile.blocked<vector = 1>>': the two types differ in their layout alone}}
  %y = tile.convert_layout %x : tensor<16x128xf32, #tile.blocked<vector = 4>> -> tensor<16x128xf16, #tile.blocked<vector = 1>>
  tile.return
}

// -----

tile.kernel @rows_not_a_slice(%X: !tile.tensor<[16, 64], f32>) attributes {threads = 256 : i64} {
  %c0 = arith.constant 0 : index
  %x = tile.load %X[%c0, %c0] : !tile.tensor<[16, 64], f32> -> tensor<16x64xf32, #tile.blocked<vector = 4>>
  // expected-error @+1 {{'tile.rowsum' op result layout #tile.rows<columns = 64, parent = #tile.blocked<vector = 1>> is not where the reduction of an input in #tile.blocked<vector = 4> leaves it, #tile.rows<columns = 64, parent = #tile.blocked<vector = 4>>}}
  %s = tile.rowsum %x : tensor<16x64xf32, #tile.blocked<vector = 4>> -> tensor<16x1xf32, #tile.rows<columns = 64, parent = #tile.blocked<vector = 1>>>
  tile.return
}

// -----

tile.kernel @row_result_not_rows(%X: !tile.tensor<[4, 8], f32>) attributes {threads = 32 : i64} {
  %c0 = arith.constant 0 : index
  %x = tile.load %X[%c0, %c0] : !tile.tensor<[4, 8], f32> -> tensor<4x8xf32, #tile.blocked<vector = 1>>
  // expected-error @+1 {{'tile.rowsum' op result layout #tile.blocked<vector = 1> is not where the reduction of an input in #tile.blocked<vector = 1> leaves it, #tile.rows<columns = 8, parent = #tile.blocked<vector = 1>>}}
  %s = tile.rowsum %x : tensor<4x8xf32, #tile.blocked<vector = 1>> -> tensor<4x1xf32, #tile.blocked<vector = 1>>
  tile.return
}

// -----

tile.kernel @broadcast_rows_elsewhere(%X: !tile.tensor<[16, 64], f32>) attributes {threads = 256 : i64} {
  %c0 = arith.constant 0 : index
  %x = tile.load %X[%c0, %c0] : !tile.tensor<[16, 64], f32> -> tensor<16x64xf32, #tile.blocked<vector = 4>>
  %s = tile.rowsum %x : tensor<16x64xf32, #tile.blocked<vector = 4>> -> tensor<16x1xf32, #tile.rows<columns = 64, parent = #tile.blocked<vector = 4>>>
  // expected-error @+1 {{'tile.broadcast' op broadcasts a row result of #tile.rows<columns = 64, parent = #tile.blocked<vector = 4>> over its rows, which are in #tile.blocked<vector = 4>, not #tile.blocked<vector = 1>}}
  %b = tile.broadcast %s : tensor<16x1xf32, #tile.rows<columns = 64, parent = #tile.blocked<vector = 4>>> -> tensor<16x64xf32, #tile.blocked<vector = 1>>
  tile.return
}

// -----

tile.kernel @dot_in_blocked(%A: !tile.tensor<[16, 16], f16>) attributes {threads = 32 : i64} {
  %c0 = arith.constant 0 : index
  %a = tile.load %A[%c0, %c0] : !tile.tensor<[16, 16], f16> -> tensor<16x16xf16>
  // expected-error @+1 {{'tile.dot' op result layout must be #tile.mma (on tensor cores) or the cyclic distribution, not #tile.blocked<vector = 4>}}
  %d = tile.dot %a, %a : tensor<16x16xf16>, tensor<16x16xf16> -> tensor<16x16xf32, #tile.blocked<vector = 4>>
  tile.return
}

// -----

tile.kernel @mma_of_f32(%A: !tile.tensor<[16, 16], f32>) attributes {threads = 32 : i64} {
  %c0 = arith.constant 0 : index
  %a = tile.load %A[%c0, %c0] : !tile.tensor<[16, 16], f32> -> tensor<16x16xf32>
  // expected-error @+1 {{'tile.dot' op result in #tile.mma needs f16 or bf16 operands (or f32 of precision tf32) accumulating in f32 (mma.sync)}}
  %d = tile.dot %a, %a : tensor<16x16xf32>, tensor<16x16xf32> -> tensor<16x16xf32, #tile.mma<warps = [1, 1]>>
  tile.return
}

// -----

tile.kernel @read_in_another_layout(%X: !tile.tensor<[16, 64], f32>) attributes {threads = 256 : i64} {
  %c0 = arith.constant 0 : index
  %x = tile.load %X[%c0, %c0] : !tile.tensor<[16, 64], f32> -> tensor<16x64xf32, #tile.blocked<vector = 4>>
  %v = tile.var "v" = %x {layout = #tile.blocked<vector = 4>, storage = #tile.storage<registers>} : !tile.var<16x64xf32>, tensor<16x64xf32, #tile.blocked<vector = 4>>
  // expected-error @+1 {{'tile.read' op value in layout #tile.blocked<vector = 1>, but var 'v' holds its values in #tile.blocked<vector = 4>}}
  %r = tile.read %v : !tile.var<16x64xf32> -> tensor<16x64xf32, #tile.blocked<vector = 1>>
  tile.return
}

// -----

tile.kernel @layout_of_a_scalar() attributes {threads = 32 : i64} {
  // expected-error @+1 {{'tile.var' op a layout is that of a tile var's values, not of a scalar}}
  %n = tile.var "n" {layout = #tile.blocked<vector = 1>} : !tile.var<i32>
  tile.return
}

// -----

// A gather in runs reads each run from one row: not with its index on the
// last dimension.
tile.kernel @layout_of_a_column_gather(%E: !tile.tensor<[V, D], f32>, %I: !tile.tensor<[16, 1], i32>) attributes {threads = 32 : i64} {
  %c0 = arith.constant 0 : index
  %i = tile.load %I[%c0, %c0] : !tile.tensor<[16, 1], i32> -> tensor<16x1xi32>
  // expected-error @+1 {{'tile.gather' op in a layout other than the cyclic one must be #tile.blocked, and the gather of whole rows: no index on its last dimension, no index tile of its own shape}}
  %g = tile.gather %E[%c0, %c0] indices(%i) dims [1] : !tile.tensor<[V, D], f32>, tensor<16x1xi32> -> tensor<16x8xf32, #tile.blocked<vector = 4>>
  tile.return
}

// -----

// Nor with an index tile of its own shape, which its owners read from
// their slots in the cyclic distribution.
tile.kernel @layout_of_an_owned_gather(%E: !tile.tensor<[V, D], f32>, %I: !tile.tensor<[16, 8], i32>) attributes {threads = 32 : i64} {
  %c0 = arith.constant 0 : index
  %i = tile.load %I[%c0, %c0] : !tile.tensor<[16, 8], i32> -> tensor<16x8xi32>
  // expected-error @+1 {{'tile.gather' op in a layout other than the cyclic one must be #tile.blocked, and the gather of whole rows: no index on its last dimension, no index tile of its own shape}}
  %g = tile.gather %E[%c0, %c0] indices(%i) dims [0] : !tile.tensor<[V, D], f32>, tensor<16x8xi32> -> tensor<16x8xf32, #tile.blocked<vector = 4>>
  tile.return
}
