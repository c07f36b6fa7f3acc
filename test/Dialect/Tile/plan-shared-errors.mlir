// RUN: tile-opt %s --pass-pipeline='builtin.module(tile.kernel(tile-plan-shared{max-bytes=49152}))' -verify-diagnostics

// expected-error @+1 {{kernel 'too_big' needs 51200 bytes of shared memory, more than the 49152 the target allows: 'a' (25600 B) 'b' (25600 B)}}
tile.kernel @too_big(%A: !tile.tensor<[64, 100], f32>, %M: !tile.tensor<[64, 1], f32>) attributes {threads = 128 : i64} {
  %c0 = arith.constant 0 : index
  %x = tile.load %A[%c0, %c0] : !tile.tensor<[64, 100], f32> -> tensor<64x100xf32>
  %a = tile.var "a" = %x : !tile.var<64x100xf32>
  %b = tile.var "b" = %x : !tile.var<64x100xf32>
  %ra = tile.read %a : !tile.var<64x100xf32>
  %rb = tile.read %b : !tile.var<64x100xf32>
  %sa = tile.rowsum %ra : tensor<64x100xf32> -> tensor<64x1xf32>
  %sb = tile.rowsum %rb : tensor<64x100xf32> -> tensor<64x1xf32>
  %s = arith.addf %sa, %sb : tensor<64x1xf32>
  tile.store %s, %M[%c0, %c0] : tensor<64x1xf32> -> !tile.tensor<[64, 1], f32>
  tile.return
}
