// Above 48 KiB a kernel's shared memory is dynamic: the emulator needs its
// size, as a launch does, and checks the views against it.
//
// RUN: tile-opt %s --mlir-print-debuginfo --pass-pipeline='builtin.module(tile.kernel(tile-plan-shared,tile-insert-barriers),tile-to-gpu,gpu.module(canonicalize,cse))' -o %t.mlir
// RUN: tile-emulate %t.mlir --arg 'A=f32[64,120]' --arg 'M=f32[64,1]' --output M --fill ones --shared-bytes 61440 --print 2 | FileCheck %s
// RUN: not tile-emulate %t.mlir --arg 'A=f32[64,120]' --arg 'M=f32[64,1]' 2>&1 | FileCheck %s --check-prefix=NO-SIZE
// RUN: not tile-emulate %t.mlir --arg 'A=f32[64,120]' --arg 'M=f32[64,1]' --shared-bytes 60000 2>&1 | FileCheck %s --check-prefix=TOO-SMALL
// CHECK: M f32[64, 1]: sum 15360, first 240 240
// NO-SIZE: error: emulate: the kernel uses dynamic shared memory; give its size (the manifest's shared_bytes)
tile.kernel @two_big_vars(%A: !tile.tensor<[64, 120], f32>, %M: !tile.tensor<[64, 1], f32>) attributes {threads = 128 : i64} {
  %c0 = arith.constant 0 : index
  %x = tile.load %A[%c0, %c0] : !tile.tensor<[64, 120], f32> -> tensor<64x120xf32>
  %a = tile.var "a" = %x : !tile.var<64x120xf32>
  // TOO-SMALL: dynamic-shared.mlir:[[@LINE+1]]:8: error: emulate: out-of-bounds view of 30720 bytes at byte offset 30720 of the shared buffer of 60000 bytes
  %b = tile.var "b" = %x : !tile.var<64x120xf32>
  %ra = tile.read %a : !tile.var<64x120xf32>
  %rb = tile.read %b : !tile.var<64x120xf32>
  %sa = tile.rowsum %ra : tensor<64x120xf32> -> tensor<64x1xf32>
  %sb = tile.rowsum %rb : tensor<64x120xf32> -> tensor<64x1xf32>
  %s = arith.addf %sa, %sb : tensor<64x1xf32>
  tile.store %s, %M[%c0, %c0] : tensor<64x1xf32> -> !tile.tensor<[64, 1], f32>
  tile.return
}
