// RUN: tile-opt %s -split-input-file --pass-pipeline='builtin.module(tile.kernel(tile-insert-barriers),tile-to-gpu)' -verify-diagnostics

// tile-to-gpu follows tile-plan-shared's decisions; without them a shared
// var has no place, which is an error rather than a guess.
tile.kernel @no_plan(%A: !tile.tensor<[16, 64], f32>, %M: !tile.tensor<[16, 1], f32>) attributes {threads = 128 : i64} {
  %c0 = arith.constant 0 : index
  %a = tile.load %A[%c0, %c0] : !tile.tensor<[16, 64], f32> -> tensor<16x64xf32>
  // expected-error @+1 {{shared var 't' has no place in shared memory: run tile-plan-shared before tile-to-gpu}}
  %t = tile.var "t" = %a : !tile.var<16x64xf32>
  %r = tile.read %t : !tile.var<16x64xf32>
  %m = tile.rowsum %r : tensor<16x64xf32> -> tensor<16x1xf32>
  tile.store %m, %M[%c0, %c0] : tensor<16x1xf32> -> !tile.tensor<[16, 1], f32>
  tile.return
}

// -----

// Rows of whole warps meet in the scratch var tile-plan-shared gives the
// reduction; without it there is nowhere for the partials to go.
tile.kernel @no_scratch(%A: !tile.tensor<[16, 64], f32>, %M: !tile.tensor<[16, 1], f32>) attributes {threads = 128 : i64} {
  %c0 = arith.constant 0 : index
  %a = tile.load %A[%c0, %c0] : !tile.tensor<[16, 64], f32> -> tensor<16x64xf32>
  // expected-error @+1 {{internal error: this reduction combines its warps' partials in a shared scratch var, but it has none; run tile-plan-shared first}}
  %m = tile.rowsum %a : tensor<16x64xf32> -> tensor<16x1xf32>
  tile.store %m, %M[%c0, %c0] : tensor<16x1xf32> -> !tile.tensor<[16, 1], f32>
  tile.return
}
