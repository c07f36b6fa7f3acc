// The shared memory a CTA may use is the chip's (ChipLimits.h, the CUDA
// C++ Programming Guide's opt-in maximum per thread block): a plan of
// 81920 bytes fits sm_90 (232448), sm_80 (166912) and sm_86 (101376), and
// is an error naming its buffers on sm_75 (65536).
// RUN: tile-opt %s --pass-pipeline='builtin.module(tile.kernel(tile-plan-shared{chip=sm_75}))' -verify-diagnostics
// RUN: tile-opt %s --pass-pipeline='builtin.module(tile.kernel(tile-plan-shared{chip=sm_90}))' | FileCheck %s
// RUN: tile-opt %s --pass-pipeline='builtin.module(tile.kernel(tile-plan-shared{chip=sm_86}))' | FileCheck %s
// RUN: tile-opt %s --pass-pipeline='builtin.module(tile.kernel(tile-plan-shared{chip=sm_80}))' | FileCheck %s
// Without chip, sm_90's.
// RUN: tile-opt %s --pass-pipeline='builtin.module(tile.kernel(tile-plan-shared))' | FileCheck %s
// An explicit max-bytes overrides the chip's.
// RUN: tile-opt %s --pass-pipeline='builtin.module(tile.kernel(tile-plan-shared{chip=sm_75 max-bytes=81920}))' | FileCheck %s
// RUN: not tile-opt %s --pass-pipeline='builtin.module(tile.kernel(tile-plan-shared{chip=sm_90 max-bytes=81919}))' 2>&1 | FileCheck %s --check-prefix=OVERRIDE
// OVERRIDE: error: kernel 'two_rows' needs 81920 bytes of shared memory, more than the 81919 the target allows: 'a' (40960 B) 'b' (40960 B)
// A chip tile does not target is an error.
// RUN: not tile-opt %s --pass-pipeline='builtin.module(tile.kernel(tile-plan-shared{chip=sm_60}))' 2>&1 | FileCheck %s --check-prefix=CHIP
// CHIP: error: unsupported chip 'sm_60'

// CHECK-LABEL: tile.kernel @two_rows
// CHECK-SAME: tile.shared_bytes = 81920
// expected-error @+1 {{kernel 'two_rows' needs 81920 bytes of shared memory, more than the 65536 sm_75 allows: 'a' (40960 B) 'b' (40960 B)}}
tile.kernel @two_rows(%A: !tile.tensor<[64, 160], f32>, %M: !tile.tensor<[64, 1], f32>) attributes {threads = 128 : i64} {
  %c0 = arith.constant 0 : index
  %x = tile.load %A[%c0, %c0] : !tile.tensor<[64, 160], f32> -> tensor<64x160xf32>
  %a = tile.var "a" = %x : !tile.var<64x160xf32>
  %b = tile.var "b" = %x : !tile.var<64x160xf32>
  %ra = tile.read %a : !tile.var<64x160xf32>
  %rb = tile.read %b : !tile.var<64x160xf32>
  %sa = tile.rowsum %ra : tensor<64x160xf32> -> tensor<64x1xf32>
  %sb = tile.rowsum %rb : tensor<64x160xf32> -> tensor<64x1xf32>
  %s = arith.addf %sa, %sb : tensor<64x1xf32>
  tile.store %s, %M[%c0, %c0] : tensor<64x1xf32> -> !tile.tensor<[64, 1], f32>
  tile.return
}
