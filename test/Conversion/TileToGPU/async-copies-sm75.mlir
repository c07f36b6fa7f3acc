// Below sm_80, which has no cp.async, tile-to-gpu lowers an async copy as
// the synchronous copy (CUTLASS's SM < 80 path): aligned chunks inside the
// tensor as vector accesses, the rest an element at a time, zero outside
// it; commit_group and wait_group as nothing. The barriers stay. On sm_80
// the same kernel is cp.async.
// RUN: tile-opt %s --pass-pipeline='builtin.module(tile.kernel(tile-plan-shared,tile-insert-barriers),tile-to-gpu{chip=sm_75},canonicalize,cse)' | FileCheck %s --check-prefix=SM75 --implicit-check-not=nvvm.cp.async
// RUN: tile-opt %s --pass-pipeline='builtin.module(tile.kernel(tile-plan-shared,tile-insert-barriers),tile-to-gpu{chip=sm_80},canonicalize,cse)' | FileCheck %s --check-prefix=SM80

// SM75-LABEL: gpu.func @pipeline(
// The prologue's two copies: 16-byte loads and stores where the box is
// inside and aligned, else element by element with a zero outside.
// SM75: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f16
// SM75: scf.if
// SM75: llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<1> -> vector<8xf16>
// SM75: vector.store %{{.*}} : memref<{{.*}}, #gpu.address_space<workgroup>>, vector<8xf16>
// SM75: } else {
// SM75: scf.yield %[[ZERO]] : f16
// SM75: memref.store
// The wait is nothing; its barrier stays, then the copy ahead.
// SM75: scf.for
// SM75-NEXT: arith.divui
// SM75-NEXT: gpu.barrier
// SM75: llvm.load {{.*}} -> vector<8xf16>
// SM75: vector.store
// After the loop, the barrier before the ring's bytes are reused.
// SM75: gpu.barrier
// SM75: gpu.return
// SM80-LABEL: gpu.func @pipeline(
// SM80: nvvm.cp.async.shared.global %{{.*}}, %{{.*}}, 16, cache = cg
// SM80: nvvm.cp.async.commit.group
// SM80: scf.for
// SM80: nvvm.cp.async.wait.group 1
// SM80-NEXT: gpu.barrier
// SM80: nvvm.cp.async.wait.group 0
tile.kernel @pipeline(%A: !tile.tensor<[16, K], f16>, %S: !tile.tensor<[16, 1], f32>) attributes {threads = 128 : i64} {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %K = tile.dim %A[1] : !tile.tensor<[16, K], f16>
  %p = tile.var "p" {stages = 3 : i64} : !tile.var<16x64xf16>
  %s0 = tile.stage %p[%c0 + 0] : !tile.var<16x64xf16>
  tile.copy %A[%c0, %c0] to %s0[%c0, %c0] [16, 64] {async, width = 8 : i64} : !tile.tensor<[16, K], f16> to !tile.var<16x64xf16>
  tile.commit_group
  %s1 = tile.stage %p[%c0 + 1] : !tile.var<16x64xf16>
  tile.copy %A[%c0, %c64] to %s1[%c0, %c0] [16, 64] {async, width = 8 : i64} : !tile.tensor<[16, K], f16> to !tile.var<16x64xf16>
  tile.commit_group
  %zero = arith.constant dense<0.0> : tensor<16x64xf32>
  %acc = tile.var "acc" = %zero : !tile.var<16x64xf32>
  scf.for %k = %c0 to %K step %c64 {
    %turn = arith.divui %k, %c64 : index
    tile.wait_group 1
    tile.barrier
    %ahead = arith.addi %k, %c128 : index
    %back = tile.stage %p[%turn + 2] : !tile.var<16x64xf16>
    tile.copy %A[%c0, %ahead] to %back[%c0, %c0] [16, 64] {async, width = 8 : i64} : !tile.tensor<[16, K], f16> to !tile.var<16x64xf16>
    tile.commit_group
    %front = tile.stage %p[%turn + 0] : !tile.var<16x64xf16>
    %x = tile.read %front : !tile.var<16x64xf16>
    %f = arith.extf %x : tensor<16x64xf16> to tensor<16x64xf32>
    %a = tile.read %acc : !tile.var<16x64xf32>
    %n = arith.addf %a, %f : tensor<16x64xf32>
    tile.write %n, %acc : !tile.var<16x64xf32>
  }
  tile.wait_group 0
  %total = tile.read %acc : !tile.var<16x64xf32>
  %rows = tile.rowsum %total : tensor<16x64xf32> -> tensor<16x1xf32>
  tile.store %rows, %S[%c0, %c0] : tensor<16x1xf32> -> !tile.tensor<[16, 1], f32>
  tile.return
}
