// utils/fuzz.py seed 5, iteration 99 (minimised): tile-hoist-invariants
// moved the read of 't' before the loop, past the copy that fills it.
tile.kernel @copy_then_read(%X: !tile.tensor<[K], f32>, %O: !tile.tensor<[K], f32>) attributes {threads = 64 : i64} {
  %c0 = arith.constant 0 : index
  %c96 = arith.constant 96 : index
  %K = tile.dim %X[0] : !tile.tensor<[K], f32>
  %t = tile.var "t" : !tile.var<96xf32>
  scf.for %k = %c0 to %K step %c96 {
    tile.copy %X[%k] to %t[%c0] [96] {width = 4 : i64} : !tile.tensor<[K], f32> to !tile.var<96xf32>
    %v = tile.read %t : !tile.var<96xf32>
    tile.store %v, %O[%k] : tensor<96xf32> -> !tile.tensor<[K], f32>
  }
  tile.return
}
