// RUN: tile-opt %s --pass-pipeline='builtin.module(tile.kernel(tile-plan-shared,tile-insert-barriers),tile-to-gpu)' | FileCheck %s --check-prefix=FUSE
// RUN: tile-opt %s --pass-pipeline='builtin.module(tile.kernel(tile-plan-shared,tile-insert-barriers),tile-to-gpu{fp-contract=false})' | FileCheck %s --check-prefix=IEEE --implicit-check-not=fastmath

// Float ops may fuse by default: `acc + x * x` becomes one FMA in PTX.
// fp-contract=false leaves every op its own rounding.
// FUSE-LABEL: gpu.func @axpy
// FUSE: arith.mulf {{.*}} fastmath<contract> : vector<4xf32>
// FUSE: arith.addf {{.*}} fastmath<contract> : vector<4xf32>
// IEEE-LABEL: gpu.func @axpy
// IEEE: arith.mulf {{.*}} : vector<4xf32>
// IEEE: arith.addf {{.*}} : vector<4xf32>
tile.kernel @axpy(%X: !tile.tensor<[16, 64], f32>, %Y: !tile.tensor<[16, 64], f32>) attributes {threads = 256 : i64} {
  %c0 = arith.constant 0 : index
  %x = tile.load %X[%c0, %c0] : !tile.tensor<[16, 64], f32> -> tensor<16x64xf32>
  %y = tile.load %Y[%c0, %c0] : !tile.tensor<[16, 64], f32> -> tensor<16x64xf32>
  %p = arith.mulf %x, %x : tensor<16x64xf32>
  %s = arith.addf %y, %p : tensor<16x64xf32>
  tile.store %s, %Y[%c0, %c0] : tensor<16x64xf32> -> !tile.tensor<[16, 64], f32>
  tile.return
}
