// RUN: tile-opt %s -split-input-file -verify-diagnostics

// `on wgmma` says where the dot runs; its result must be in wgmma's
// accumulator layout.
tile.kernel @no_layout(%A: !tile.tensor<[64, 16], f16>, %B: !tile.tensor<[16, 64], f16>) attributes {threads = 128 : i64} {
  %c0 = arith.constant 0 : index
  %a = tile.load %A[%c0, %c0] : !tile.tensor<[64, 16], f16> -> tensor<64x16xf16>
  %b = tile.load %B[%c0, %c0] : !tile.tensor<[16, 64], f16> -> tensor<16x64xf16>
  // expected-error @below {{on wgmma needs a result in #tile.mma<warps = [W, 1]>, W a multiple of 4, with 16 W rows (64 a warpgroup)}}
  %d = tile.dot %a, %b on wgmma : tensor<64x16xf16>, tensor<16x64xf16> -> tensor<64x64xf32>
  tile.return
}

// -----

tile.kernel @two_columns(%A: !tile.tensor<[64, 16], f16>, %B: !tile.tensor<[16, 64], f16>) attributes {threads = 128 : i64} {
  %c0 = arith.constant 0 : index
  %a = tile.load %A[%c0, %c0] : !tile.tensor<[64, 16], f16> -> tensor<64x16xf16>
  %b = tile.load %B[%c0, %c0] : !tile.tensor<[16, 64], f16> -> tensor<16x64xf16>
  // expected-error @below {{on wgmma needs a result in #tile.mma<warps = [W, 1]>}}
  %d = tile.dot %a, %b on wgmma : tensor<64x16xf16>, tensor<16x64xf16> -> tensor<64x64xf32, #tile.mma<warps = [2, 2]>>
  tile.return
}

// -----

tile.kernel @too_wide(%A: !tile.tensor<[64, 16], f16>, %B: !tile.tensor<[16, 264], f16>) attributes {threads = 128 : i64} {
  %c0 = arith.constant 0 : index
  %a = tile.load %A[%c0, %c0] : !tile.tensor<[64, 16], f16> -> tensor<64x16xf16>
  %b = tile.load %B[%c0, %c0] : !tile.tensor<[16, 264], f16> -> tensor<16x264xf16>
  // expected-error @below {{on wgmma needs f16 or bf16 operands accumulating in f32, N a multiple of 8 up to 256 and K a multiple of 16}}
  %d = tile.dot %a, %b on wgmma : tensor<64x16xf16>, tensor<16x264xf16> -> tensor<64x264xf32, #tile.mma<warps = [4, 1]>>
  tile.return
}

// -----

tile.kernel @swizzle_value() attributes {threads = 128 : i64} {
  %z = arith.constant dense<0.0> : tensor<64x64xf16>
  // expected-error @below {{must be wgmma's swizzle in bytes: 32, 64 or 128}}
  %v = tile.var "v" = %z {tile.swizzle = 16 : i64} : !tile.var<64x64xf16>
  tile.return
}

// -----

tile.kernel @swizzle_rows() attributes {threads = 128 : i64} {
  %z = arith.constant dense<0.0> : tensor<64x24xf16>
  // expected-error @below {{swizzles a tile of rank 2 whose rows are whole blocks of 32 bytes}}
  %v = tile.var "v" = %z {tile.swizzle = 32 : i64} : !tile.var<64x24xf16>
  tile.return
}
