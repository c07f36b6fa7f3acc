// A rowsum over rows of 32 f32 elements becomes a butterfly of
// shfl.sync.bfly in the PTX; the whole kernel uses no shared memory.
// REQUIRES: ptxas
//
// RUN: tile-translate --tile-to-ptx %s -o %t.ptx
// RUN: FileCheck %s < %t.ptx
// RUN: %python %tile_src/bench/ptx_stats.py %t.ptx normalize --ptxas sm_90 | FileCheck %s --check-prefix=STATS

// CHECK: .visible .entry normalize(
// CHECK-COUNT-5: shfl.sync.bfly.b32
// CHECK-NOT: st.shared
// STATS: shuffles: 5
// STATS: smem: 0
// STATS: spill_stores: 0
tile.kernel @normalize(%X: !tile.tensor<[8, 32], f32>, %Y: !tile.tensor<[8, 32], f32>) attributes {threads = 256 : i64} {
  %c0 = arith.constant 0 : index
  %x = tile.load %X[%c0, %c0] : !tile.tensor<[8, 32], f32> -> tensor<8x32xf32>
  %s = tile.rowsum %x : tensor<8x32xf32> -> tensor<8x1xf32>
  %b = tile.broadcast %s : tensor<8x1xf32> -> tensor<8x32xf32>
  %y = arith.divf %x, %b : tensor<8x32xf32>
  tile.store %y, %Y[%c0, %c0] : tensor<8x32xf32> -> !tile.tensor<[8, 32], f32>
  tile.return
}
