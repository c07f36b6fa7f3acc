// A tile stored to a tensor and read back under another thread mapping:
// the compiler puts a barrier between (it orders global memory within a
// CTA), and the emulator reports the race when the barrier is dropped.
//
// RUN: tile-opt %s --mlir-print-debuginfo --pass-pipeline='builtin.module(tile.kernel(tile-plan-shared,tile-insert-barriers),tile-to-gpu)' -o %t.mlir
// RUN: FileCheck %s --check-prefix=LOWERED < %t.mlir
// RUN: tile-emulate %t.mlir --kernel round_trip --arg 'A=f32[64,32]' --arg 'O=f32[64,32]' --arg 'P=f32[64,1]' --output P --fill index | FileCheck %s --check-prefix=CLEAN
// RUN: tile-opt %t.mlir --mlir-print-debuginfo --tile-test-drop-barriers \
// RUN:   | not tile-emulate --kernel round_trip --arg 'A=f32[64,32]' --arg 'O=f32[64,32]' --arg 'P=f32[64,1]' --output P 2>&1 \
// RUN:   | FileCheck %s --check-prefix=RACE
// LOWERED: gpu.barrier
// CLEAN: P f32[64, 1]: sum 129024, first 0 64 128
tile.kernel @round_trip(%A: !tile.tensor<[64, 32], f32>, %O: !tile.tensor<[64, 32], f32>, %P: !tile.tensor<[64, 1], f32>) attributes {threads = 64 : i64} {
  %c0 = arith.constant 0 : index
  %x = tile.load %A[%c0, %c0] : !tile.tensor<[64, 32], f32> -> tensor<64x32xf32>
  %y = arith.addf %x, %x : tensor<64x32xf32>
  tile.store %y, %O[%c0, %c0] : tensor<64x32xf32> -> !tile.tensor<[64, 32], f32>
  // RACE: global-race.mlir:[[@LINE+2]]:8: error: emulate: global-memory race: read of element {{[0-9]+}} of tensor 'O', which thread ({{[0-9]+}}, 0, 0) wrote with no barrier between
  // RACE: note: the write of thread
  %z = tile.load %O[%c0, %c0] : !tile.tensor<[64, 32], f32> -> tensor<64x1xf32>
  tile.store %z, %P[%c0, %c0] : tensor<64x1xf32> -> !tile.tensor<[64, 1], f32>
  tile.return
}
