// RUN: tile-opt %s -split-input-file --pass-pipeline='builtin.module(tile.kernel(tile-plan-shared,tile-insert-barriers),tile-to-gpu)' -verify-diagnostics
// RUN: tile-opt %s -split-input-file --pass-pipeline='builtin.module(tile.kernel(tile-plan-shared,tile-assign-layouts{remarks=true}))' -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK

// tile-assign-layouts chooses the layouts of tiles no use observes: one
// written by hand is replaced, and its remark says so.
// REMARK: hand-written-layouts.mlir:[[# @LINE + 4]]:8: remark: layout #tile.blocked<vector = 16> replaced by #tile.blocked<vector = 4> (4 elements a thread at a time, the widest the tile's shape, its threads and its uses allow)
// REMARK: hand-written-layouts.mlir:[[# @LINE + 3]]:8: remark: slice read 4 elements a thread at a time
tile.kernel @replaced(%X: !tile.tensor<[16, 128], f32>, %Y: !tile.tensor<[16, 128], f32>) attributes {threads = 128 : i64} {
  %c0 = arith.constant 0 : index
  %x = tile.load %X[%c0, %c0] : !tile.tensor<[16, 128], f32> -> tensor<16x128xf32, #tile.blocked<vector = 16>>
  tile.store %x, %Y[%c0, %c0] : tensor<16x128xf32, #tile.blocked<vector = 16>> -> !tile.tensor<[16, 128], f32>
  tile.return
}
