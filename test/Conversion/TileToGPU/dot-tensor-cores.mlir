// RUN: tile-opt %s -split-input-file --pass-pipeline='builtin.module(tile.kernel(tile-plan-shared,tile-insert-barriers),tile-to-gpu,canonicalize,cse)' | FileCheck %s --implicit-check-not=arith.extf --implicit-check-not=math.fma

// A dot on tensor cores (its result type in #tile.mma, tile-tensor-cores'
// decision):
// after a barrier, per 16 of K, one ldmatrix.x4 of A's 16 rows and one
// ldmatrix.x4.trans of B's 16 columns (two [16, 8] mma tiles), then two
// mma.sync. The operands' shared rows are padded by 8 f16 (16 bytes) so
// that ldmatrix's eight rows fall in distinct banks: A [16, 32] is 16 rows
// of 40, B [32, 16] 32 rows of 24. No SIMT inner product is left.
// CHECK-LABEL: gpu.func @one_warp(
// CHECK-DAG: %[[LHS:.*]] = memref.view {{.*}} to memref<640xf16, #gpu.address_space<workgroup>>
// CHECK-DAG: %[[RHS:.*]] = memref.view {{.*}} to memref<768xf16, #gpu.address_space<workgroup>>
// CHECK: gpu.barrier
// CHECK: nvgpu.ldmatrix %[[LHS]][%{{.*}}] {numTiles = 4 : i32, transpose = false} : memref<640xf16, #gpu.address_space<workgroup>> -> vector<4x2xf16>
// CHECK: nvgpu.ldmatrix %[[RHS]][%{{.*}}] {numTiles = 4 : i32, transpose = true} : memref<768xf16, #gpu.address_space<workgroup>> -> vector<4x2xf16>
// CHECK-COUNT-2: nvgpu.mma.sync({{.*}}) {mmaShape = [16, 8, 16]} : (vector<4x2xf16>, vector<2x2xf16>, vector<2x2xf32>) -> vector<2x2xf32>
// CHECK: nvgpu.ldmatrix %[[LHS]]
// CHECK: nvgpu.ldmatrix %[[RHS]]
// CHECK-COUNT-2: nvgpu.mma.sync
// CHECK-NOT: nvgpu.mma.sync
// CHECK: gpu.return
tile.kernel @one_warp(%A: !tile.tensor<[16, 32], f16>, %B: !tile.tensor<[32, 16], f16>, %C: !tile.tensor<[16, 16], f32>) attributes {threads = 32 : i64} {
  %c0 = arith.constant 0 : index
  %a = tile.load %A[%c0, %c0] : !tile.tensor<[16, 32], f16> -> tensor<16x32xf16>
  %b = tile.load %B[%c0, %c0] : !tile.tensor<[32, 16], f16> -> tensor<32x16xf16>
  %d = tile.dot %a, %b : tensor<16x32xf16>, tensor<32x16xf16> -> tensor<16x16xf32, #tile.mma<warps = [1, 1]>>
  tile.store %d, %C[%c0, %c0] : tensor<16x16xf32, #tile.mma<warps = [1, 1]>> -> !tile.tensor<[16, 16], f32>
  tile.return
}

// -----

// In place: the accumulator's fragments are mma.sync's C, carried by the
// loop as the tile's slots; an odd last mma tile of B (N = 24: three [16, 8]
// tiles) takes an ldmatrix.x2.trans. B's rows of 48 bytes (three 16-byte
// units, odd) need no padding.
// CHECK-LABEL: gpu.func @accumulate(
// CHECK: scf.for {{.*}} iter_args(%{{.*}} = %{{.*}}) -> (vector<12xf32>)
// CHECK: nvgpu.ldmatrix {{.*}} {numTiles = 4 : i32, transpose = false}
// CHECK: nvgpu.ldmatrix {{.*}} {numTiles = 4 : i32, transpose = true} : memref<384xbf16
// CHECK: nvgpu.ldmatrix {{.*}} {numTiles = 2 : i32, transpose = true} : memref<384xbf16
// CHECK-COUNT-3: nvgpu.mma.sync({{.*}}) {mmaShape = [16, 8, 16]} : (vector<4x2xbf16>, vector<2x2xbf16>, vector<2x2xf32>) -> vector<2x2xf32>
// CHECK-NOT: nvgpu.mma.sync
// CHECK: scf.yield
tile.kernel @accumulate(%A: !tile.tensor<[16, K], bf16>, %B: !tile.tensor<[K, 24], bf16>, %C: !tile.tensor<[16, 24], f32>) attributes {threads = 32 : i64} {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %K = tile.dim %A[1] : !tile.tensor<[16, K], bf16>
  %zero = arith.constant dense<0.0> : tensor<16x24xf32, #tile.mma<warps = [1, 1]>>
  %r = scf.for %k = %c0 to %K step %c16 iter_args(%acc = %zero) -> (tensor<16x24xf32, #tile.mma<warps = [1, 1]>>) {
    %a = tile.load %A[%c0, %k] : !tile.tensor<[16, K], bf16> -> tensor<16x16xbf16>
    %b = tile.load %B[%k, %c0] : !tile.tensor<[K, 24], bf16> -> tensor<16x24xbf16>
    %d = tile.dot %a, %b acc %acc : tensor<16x16xbf16>, tensor<16x24xbf16> -> tensor<16x24xf32, #tile.mma<warps = [1, 1]>>
    scf.yield %d : tensor<16x24xf32, #tile.mma<warps = [1, 1]>>
  }
  tile.store %r, %C[%c0, %c0] : tensor<16x24xf32, #tile.mma<warps = [1, 1]>> -> !tile.tensor<[16, 24], f32>
  tile.return
}

// -----

// A right operand given transposed ([N, K], K contiguous) is read by
// ldmatrix without .trans: an x4 for mma tiles 0 and 1 of N, an x2 for the
// odd last one.
// CHECK-LABEL: gpu.func @rhs_transposed(
// CHECK: scf.for {{.*}} iter_args(%{{.*}} = %{{.*}}) -> (vector<12xf32>)
// CHECK: nvgpu.ldmatrix {{.*}} {numTiles = 4 : i32, transpose = false} : memref<{{[0-9]+}}xbf16
// CHECK: nvgpu.ldmatrix {{.*}} {numTiles = 4 : i32, transpose = false} : memref<{{[0-9]+}}xbf16
// CHECK: nvgpu.ldmatrix {{.*}} {numTiles = 2 : i32, transpose = false} : memref<{{[0-9]+}}xbf16
// CHECK-COUNT-3: nvgpu.mma.sync({{.*}}) {mmaShape = [16, 8, 16]} : (vector<4x2xbf16>, vector<2x2xbf16>, vector<2x2xf32>) -> vector<2x2xf32>
// CHECK-NOT: nvgpu.mma.sync
// CHECK: scf.yield
tile.kernel @rhs_transposed(%A: !tile.tensor<[16, K], bf16>, %B: !tile.tensor<[24, K], bf16>, %C: !tile.tensor<[16, 24], f32>) attributes {threads = 32 : i64} {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %K = tile.dim %A[1] : !tile.tensor<[16, K], bf16>
  %zero = arith.constant dense<0.0> : tensor<16x24xf32, #tile.mma<warps = [1, 1]>>
  %r = scf.for %k = %c0 to %K step %c16 iter_args(%acc = %zero) -> (tensor<16x24xf32, #tile.mma<warps = [1, 1]>>) {
    %a = tile.load %A[%c0, %k] : !tile.tensor<[16, K], bf16> -> tensor<16x16xbf16>
    %b = tile.load %B[%c0, %k] : !tile.tensor<[24, K], bf16> -> tensor<24x16xbf16>
    %d = tile.dot %a, %b rhs_transposed acc %acc : tensor<16x16xbf16>, tensor<24x16xbf16> -> tensor<16x24xf32, #tile.mma<warps = [1, 1]>>
    scf.yield %d : tensor<16x24xf32, #tile.mma<warps = [1, 1]>>
  }
  tile.store %r, %C[%c0, %c0] : tensor<16x24xf32, #tile.mma<warps = [1, 1]>> -> !tile.tensor<[16, 24], f32>
  tile.return
}
