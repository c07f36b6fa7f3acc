// RUN: tile-opt %s -split-input-file -verify-diagnostics --pass-pipeline='builtin.module(tile.kernel(tile-tensor-cores{remarks=true}))' | FileCheck %s

// On sm_90 a dot whose [128, 64] result two warpgroups split in blocks of
// 64 rows runs on wgmma: its result in #tile.mma<warps = [8, 1]>, its
// operand vars swizzled (A's rows 64 bytes: 64B; B's 128 bytes: 128B).
// CHECK-LABEL: tile.kernel @fits
// CHECK: tile.var "a" = %{{.*}} {tile.swizzle = 64 : i64}
// CHECK: tile.var "b" = %{{.*}} {tile.swizzle = 128 : i64}
// CHECK: tile.dot %{{.*}}, %{{.*}} on wgmma : {{.*}} -> tensor<128x64xf32, #tile.mma<warps = [8, 1]>>
tile.kernel @fits(%A: !tile.tensor<[128, 32], f16>, %B: !tile.tensor<[32, 64], f16>,
                  %C: !tile.tensor<[128, 64], f32>) attributes {threads = 256 : i64} {
  %c0 = arith.constant 0 : index
  %la = tile.load %A[%c0, %c0] : !tile.tensor<[128, 32], f16> -> tensor<128x32xf16>
  %lb = tile.load %B[%c0, %c0] : !tile.tensor<[32, 64], f16> -> tensor<32x64xf16>
  %va = tile.var "a" = %la : !tile.var<128x32xf16>
  %vb = tile.var "b" = %lb : !tile.var<32x64xf16>
  %a = tile.read %va : !tile.var<128x32xf16>
  %b = tile.read %vb : !tile.var<32x64xf16>
  // expected-remark @below {{dot on tensor cores: wgmma.mma_async.m64n64k16 of f16, 2 warpgroup(s) each computing a [64, 64] block: 2 wgmma a warpgroup, from shared 'a' (K-major, 64B swizzle) and 'b' (N-major, 128B swizzle), no ldmatrix; its result in the mma accumulator layout #tile.mma<warps = [8, 1]>}}
  %d = tile.dot %a, %b : tensor<128x32xf16>, tensor<32x64xf16> -> tensor<128x64xf32>
  tile.store %d, %C[%c0, %c0] : tensor<128x64xf32> -> !tile.tensor<[128, 64], f32>
  tile.return
}

// -----

// B given transposed ([N, K], bf16) is read K-major as stored; operands
// computed in registers get shared vars of their own.
// CHECK-LABEL: tile.kernel @transposed
// CHECK: tile.var "wgmma.lhs" = %{{.*}} {storage = #tile.storage<shared>, tile.swizzle = 32 : i64}
// CHECK: tile.var "wgmma.rhs" = %{{.*}} {storage = #tile.storage<shared>, tile.swizzle = 32 : i64}
// CHECK: tile.dot %{{.*}}, %{{.*}} rhs_transposed on wgmma
tile.kernel @transposed(%A: !tile.tensor<[64, 16], bf16>, %B: !tile.tensor<[24, 16], bf16>,
                        %C: !tile.tensor<[64, 24], f32>) attributes {threads = 128 : i64} {
  %c0 = arith.constant 0 : index
  %a = tile.load %A[%c0, %c0] : !tile.tensor<[64, 16], bf16> -> tensor<64x16xbf16>
  %b = tile.load %B[%c0, %c0] : !tile.tensor<[24, 16], bf16> -> tensor<24x16xbf16>
  // expected-remark @below {{dot on tensor cores: wgmma.mma_async.m64n24k16 of bf16, 1 warpgroup(s) each computing a [64, 24] block: 1 wgmma a warpgroup, from shared 'wgmma.lhs' (K-major, 32B swizzle) and 'wgmma.rhs' (K-major, 32B swizzle), no ldmatrix}}
  %d = tile.dot %a, %b rhs_transposed : tensor<64x16xbf16>, tensor<24x16xbf16> -> tensor<64x24xf32>
  tile.store %d, %C[%c0, %c0] : tensor<64x24xf32> -> !tile.tensor<[64, 24], f32>
  tile.return
}

// -----

// The fallbacks on sm_90 keep mma.sync, and the remark says why.
// CHECK-LABEL: tile.kernel @rows
// CHECK-NOT: on wgmma
// CHECK-NOT: tile.swizzle
tile.kernel @rows(%A: !tile.tensor<[32, 32], f16>, %B: !tile.tensor<[32, 64], f16>,
                  %C: !tile.tensor<[32, 64], f32>) attributes {threads = 256 : i64} {
  %c0 = arith.constant 0 : index
  %a = tile.load %A[%c0, %c0] : !tile.tensor<[32, 32], f16> -> tensor<32x32xf16>
  %b = tile.load %B[%c0, %c0] : !tile.tensor<[32, 64], f16> -> tensor<32x64xf16>
  // expected-remark @below {{dot on tensor cores: mma.sync.m16n8k16 of f16, 2 x 4 warps each computing a [16, 16] block: 4 mma.sync and 4 ldmatrix a warp; its result in the mma accumulator layout #tile.mma<warps = [2, 4]>; not on wgmma: each of the CTA's 2 warpgroups computes 64 rows on wgmma, so M must be 128, not 32}}
  %d = tile.dot %a, %b : tensor<32x32xf16>, tensor<32x64xf16> -> tensor<32x64xf32>
  tile.store %d, %C[%c0, %c0] : tensor<32x64xf32> -> !tile.tensor<[32, 64], f32>
  tile.return
}

// -----

// 2 warps are no warpgroup.
tile.kernel @warps(%A: !tile.tensor<[32, 32], f16>, %B: !tile.tensor<[32, 64], f16>,
                   %C: !tile.tensor<[32, 64], f32>) attributes {threads = 64 : i64} {
  %c0 = arith.constant 0 : index
  %a = tile.load %A[%c0, %c0] : !tile.tensor<[32, 32], f16> -> tensor<32x32xf16>
  %b = tile.load %B[%c0, %c0] : !tile.tensor<[32, 64], f16> -> tensor<32x64xf16>
  // expected-remark @below {{not on wgmma: the CTA's 2 warps are not whole warpgroups of 4}}
  %d = tile.dot %a, %b : tensor<32x32xf16>, tensor<32x64xf16> -> tensor<32x64xf32>
  tile.store %d, %C[%c0, %c0] : tensor<32x64xf32> -> !tile.tensor<[32, 64], f32>
  tile.return
}

// -----

// N past 256.
tile.kernel @wide(%A: !tile.tensor<[64, 16], f16>, %B: !tile.tensor<[16, 264], f16>,
                  %C: !tile.tensor<[64, 264], f32>) attributes {threads = 128 : i64} {
  %c0 = arith.constant 0 : index
  %a = tile.load %A[%c0, %c0] : !tile.tensor<[64, 16], f16> -> tensor<64x16xf16>
  %b = tile.load %B[%c0, %c0] : !tile.tensor<[16, 264], f16> -> tensor<16x264xf16>
  // expected-remark @below {{not on wgmma: wgmma takes N a multiple of 8 up to 256, not 264}}
  %d = tile.dot %a, %b : tensor<64x16xf16>, tensor<16x264xf16> -> tensor<64x264xf32>
  tile.store %d, %C[%c0, %c0] : tensor<64x264xf32> -> !tile.tensor<[64, 264], f32>
  tile.return
}

// -----

// B's rows of 24 f16 (48 bytes) are not whole 32-byte blocks.
tile.kernel @narrow(%A: !tile.tensor<[64, 16], f16>, %B: !tile.tensor<[16, 24], f16>,
                    %C: !tile.tensor<[64, 24], f32>) attributes {threads = 128 : i64} {
  %c0 = arith.constant 0 : index
  %a = tile.load %A[%c0, %c0] : !tile.tensor<[64, 16], f16> -> tensor<64x16xf16>
  %b = tile.load %B[%c0, %c0] : !tile.tensor<[16, 24], f16> -> tensor<16x24xf16>
  // expected-remark @below {{not on wgmma: an operand's rows are not whole 32-byte blocks (wgmma's narrowest swizzle)}}
  %d = tile.dot %a, %b : tensor<64x16xf16>, tensor<16x24xf16> -> tensor<64x24xf32>
  tile.store %d, %C[%c0, %c0] : tensor<64x24xf32> -> !tile.tensor<[64, 24], f32>
  tile.return
}

// -----

// An operand var something else reads cannot be swizzled.
tile.kernel @shared_use(%A: !tile.tensor<[64, 16], f16>, %B: !tile.tensor<[16, 64], f16>,
                        %C: !tile.tensor<[64, 64], f32>, %D: !tile.tensor<[64, 16], f16>) attributes {threads = 128 : i64} {
  %c0 = arith.constant 0 : index
  %la = tile.load %A[%c0, %c0] : !tile.tensor<[64, 16], f16> -> tensor<64x16xf16>
  %b = tile.load %B[%c0, %c0] : !tile.tensor<[16, 64], f16> -> tensor<16x64xf16>
  %va = tile.var "a" = %la : !tile.var<64x16xf16>
  %a = tile.read %va : !tile.var<64x16xf16>
  // expected-remark-re @below {{not on wgmma: 'a' is also read by 'tile.store' at line {{[0-9]+}}, which is no wgmma operand}}
  %d = tile.dot %a, %b : tensor<64x16xf16>, tensor<16x64xf16> -> tensor<64x64xf32>
  tile.store %d, %C[%c0, %c0] : tensor<64x64xf32> -> !tile.tensor<[64, 64], f32>
  tile.store %a, %D[%c0, %c0] : tensor<64x16xf16> -> !tile.tensor<[64, 16], f16>
  tile.return
}
