// RUN: tile-opt %s --pass-pipeline='builtin.module(tile.kernel(tile-plan-shared,tile-insert-barriers),tile-to-gpu)' | FileCheck %s --check-prefix=IEEE --implicit-check-not=afn
// RUN: tile-opt %s --pass-pipeline='builtin.module(tile.kernel(tile-plan-shared,tile-insert-barriers),tile-to-gpu{fp-div=full})' | FileCheck %s --check-prefix=FULL
// RUN: not tile-opt %s --pass-pipeline='builtin.module(tile.kernel(tile-plan-shared,tile-insert-barriers),tile-to-gpu{fp-div=fast})' 2>&1 | FileCheck %s --check-prefix=BAD

// fp-div=full marks every f32 division `afn` (tile-fast-math makes it
// div.full.f32); f16 divisions stay correctly rounded, and so does
// everything by default.
// IEEE-LABEL: gpu.func @quotients
// IEEE: arith.divf {{.*}} : vector<4xf32>
// IEEE: arith.divf {{.*}} : vector<4xf16>
// FULL-LABEL: gpu.func @quotients
// FULL: arith.divf {{.*}} fastmath<afn> : vector<4xf32>
// FULL: arith.divf {{[^,]*}}, {{[^ ]*}} : vector<4xf16>
// BAD: error: fp-div must be 'ieee' or 'full', not 'fast'
tile.kernel @quotients(%X: !tile.tensor<[16, 32], f32>, %Y: !tile.tensor<[16, 32], f32>, %H: !tile.tensor<[16, 32], f16>) attributes {threads = 128 : i64} {
  %c0 = arith.constant 0 : index
  %x = tile.load %X[%c0, %c0] : !tile.tensor<[16, 32], f32> -> tensor<16x32xf32>
  %y = tile.load %Y[%c0, %c0] : !tile.tensor<[16, 32], f32> -> tensor<16x32xf32>
  %q = arith.divf %x, %y : tensor<16x32xf32>
  tile.store %q, %Y[%c0, %c0] : tensor<16x32xf32> -> !tile.tensor<[16, 32], f32>
  %h = tile.load %H[%c0, %c0] : !tile.tensor<[16, 32], f16> -> tensor<16x32xf16>
  %hq = arith.divf %h, %h : tensor<16x32xf16>
  tile.store %hq, %H[%c0, %c0] : tensor<16x32xf16> -> !tile.tensor<[16, 32], f16>
  tile.return
}
