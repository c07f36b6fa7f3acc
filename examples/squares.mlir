// The seed's `squares` kernel in the tile dialect, as the front end emits it.
tile.kernel @squares(%X: !tile.tensor<[16, K], f32>, %O: !tile.tensor<[16, 64], f32>, %S: !tile.tensor<[16, 1], f32>) attributes {threads = 256 : i64, registers = ["acc"]} {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %K = tile.dim %X[1] : !tile.tensor<[16, K], f32>
  %zero = arith.constant dense<0.0> : tensor<16x64xf32>
  %acc = tile.var "acc" = %zero : !tile.var<16x64xf32>
  scf.for %kt = %c0 to %K step %c64 {
    %x = tile.load %X[%c0, %kt] : !tile.tensor<[16, K], f32> -> tensor<16x64xf32>
    %sq = arith.mulf %x, %x : tensor<16x64xf32>
    %a = tile.read %acc : !tile.var<16x64xf32>
    %n = arith.addf %a, %sq : tensor<16x64xf32>
    tile.write %n, %acc : !tile.var<16x64xf32>
  }
  %final = tile.read %acc : !tile.var<16x64xf32>
  tile.store %final, %O[%c0, %c0] : tensor<16x64xf32> -> !tile.tensor<[16, 64], f32>
  %s = tile.rowsum %final : tensor<16x64xf32> -> tensor<16x1xf32>
  tile.store %s, %S[%c0, %c0] : tensor<16x1xf32> -> !tile.tensor<[16, 1], f32>
  tile.return
}
