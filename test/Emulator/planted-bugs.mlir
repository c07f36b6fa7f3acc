// A correct lowering runs clean; each bug a test pass plants in it is
// caught, at the .tile-level op it comes from, as a kernel fault (exit 4).
//
// RUN: tile-opt %s --mlir-print-debuginfo --pass-pipeline='builtin.module(tile.kernel(tile-promote-registers,tile-plan-shared,tile-insert-barriers),tile-to-gpu,gpu.module(canonicalize,cse))' -o %t.mlir

// Without its barrier, the rowsum's threads read their rows' partials (in
// the shared scratch var that tile-plan-shared gives a reduction over rows
// of two warps) while the other warps still write theirs: a race, reported
// with both threads. (The emulator runs thread 0 to the barrier first, so,
// with the barrier gone, thread 1 reads a partial only thread 0 has written.)
// RUN: tile-emulate %t.mlir --kernel squares_shared --arg 'X=f32[16,K]' --arg 'S=f32[16,1]' --dim K=128 --output S --fill index | FileCheck %s --check-prefix=SQUARES
// RUN: tile-opt %t.mlir --mlir-print-debuginfo --tile-test-drop-barriers | %expect_exit 4 tile-emulate --kernel squares_shared --arg 'X=f32[16,K]' --arg 'S=f32[16,1]' --dim K=128 --output S 2>&1 | FileCheck %s --check-prefix=RACE
// SQUARES: S f32[16, 1]: sum {{.*}}, first 690880 4.8688e+06
tile.kernel @squares_shared(%X: !tile.tensor<[16, K], f32>, %S: !tile.tensor<[16, 1], f32>) attributes {threads = 256 : i64} {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %K = tile.dim %X[1] : !tile.tensor<[16, K], f32>
  %zero = arith.constant dense<0.0> : tensor<16x64xf32>
  %acc = tile.var "acc" = %zero : !tile.var<16x64xf32>
  scf.for %kt = %c0 to %K step %c64 {
    %x = tile.load %X[%c0, %kt] : !tile.tensor<[16, K], f32> -> tensor<16x64xf32>
    %a = tile.read %acc : !tile.var<16x64xf32>
    %sq = arith.mulf %x, %x : tensor<16x64xf32>
    %n = arith.addf %a, %sq : tensor<16x64xf32>
    tile.write %n, %acc : !tile.var<16x64xf32>
  }
  %final = tile.read %acc : !tile.var<16x64xf32>
  // RACE: planted-bugs.mlir:[[@LINE+2]]:8: error: emulate: shared-memory race: read of byte 0 of shared memory, which thread (0, 0, 0) wrote with no barrier between, in block (0, 0, 0), thread (1, 0, 0)
  // RACE: planted-bugs.mlir:[[@LINE+1]]:8: note: the write of thread (0, 0, 0)
  %s = tile.rowsum %final : tensor<16x64xf32> -> tensor<16x1xf32>
  tile.store %s, %S[%c0, %c0] : tensor<16x1xf32> -> !tile.tensor<[16, 1], f32>
  tile.return
}

// Rows of 32 are summed with a butterfly of shuffles. Row r of an index
// fill sums to 1024 r + 496. Doubled shuffle offsets (xor 0, 16, 8, 4, 2)
// read the wrong lanes: lane 0 ends with twice the sum of the even lanes.
// RUN: tile-emulate %t.mlir --kernel rowsum32 --arg 'A=f32[8,32]' --arg 'S=f32[8,1]' --output S --fill index | FileCheck %s --check-prefix=ROWSUM
// RUN: tile-opt %t.mlir --tile-test-break-shuffle | tile-emulate --kernel rowsum32 --arg 'A=f32[8,32]' --arg 'S=f32[8,1]' --output S --fill index | FileCheck %s --check-prefix=BROKEN
// ROWSUM: S f32[8, 1]: sum 32640, first 496 1520 2544 3568 4592 5616 6640 7664
// BROKEN: S f32[8, 1]: sum 32512, first 480 1504 2528
tile.kernel @rowsum32(%A: !tile.tensor<[8, 32], f32>, %S: !tile.tensor<[8, 1], f32>) attributes {threads = 256 : i64} {
  %c0 = arith.constant 0 : index
  %a = tile.load %A[%c0, %c0] : !tile.tensor<[8, 32], f32> -> tensor<8x32xf32>
  %s = tile.rowsum %a : tensor<8x32xf32> -> tensor<8x1xf32>
  tile.store %s, %S[%c0, %c0] : tensor<8x1xf32> -> !tile.tensor<[8, 1], f32>
  tile.return
}

// K = 100 is not a multiple of 64: the second slice crosses the edge of X
// and its mask keeps the loads inside. Without the mask, a load reads past
// the end of X.
// RUN: tile-emulate %t.mlir --kernel edge --arg 'X=f32[16,K]' --arg 'O=f32[16,64]' --dim K=100 --output O --fill ones | FileCheck %s --check-prefix=EDGE
// RUN: tile-opt %t.mlir --mlir-print-debuginfo --tile-test-drop-bound-masks | %expect_exit 4 tile-emulate --kernel edge --arg 'X=f32[16,K]' --arg 'O=f32[16,64]' --dim K=100 --output O 2>&1 | FileCheck %s --check-prefix=BOUNDS
// EDGE: O f32[16, 64]: sum 1600, first 2 2 2
tile.kernel @edge(%X: !tile.tensor<[16, K], f32>, %O: !tile.tensor<[16, 64], f32>) attributes {threads = 256 : i64} {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %K = tile.dim %X[1] : !tile.tensor<[16, K], f32>
  %zero = arith.constant dense<0.0> : tensor<16x64xf32>
  %acc = tile.var "acc" = %zero : !tile.var<16x64xf32>
  scf.for %kt = %c0 to %K step %c64 {
    // BOUNDS: planted-bugs.mlir:[[@LINE+1]]:10: error: emulate: out-of-bounds load of 4 bytes at byte offset 6400 of tensor 'X' (f32[16, 100], 6400 bytes): element 1600 of 1600 in block (0, 0, 0), thread ({{[0-9]+}}, 0, 0)
    %x = tile.load %X[%c0, %kt] : !tile.tensor<[16, K], f32> -> tensor<16x64xf32>
    %a = tile.read %acc : !tile.var<16x64xf32>
    %n = arith.addf %a, %x : tensor<16x64xf32>
    tile.write %n, %acc : !tile.var<16x64xf32>
  }
  %final = tile.read %acc : !tile.var<16x64xf32>
  tile.store %final, %O[%c0, %c0] : tensor<16x64xf32> -> !tile.tensor<[16, 64], f32>
  tile.return
}
