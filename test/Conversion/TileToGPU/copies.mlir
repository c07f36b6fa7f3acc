// RUN: tile-opt %s -split-input-file --pass-pipeline='builtin.module(tile.kernel(tile-plan-shared,tile-insert-barriers),tile-to-gpu,canonicalize,cse)' | FileCheck %s
// test/Emulator/test-kernels.test runs every kernel here under emulate
// against interp.

// A copy of a [16, 64] box of X (K dynamic) into a shared tile, 4 floats a
// thread at a time: 256 chunks for 128 threads, two rounds. Interior and
// aligned (the base, the row length and the offset multiples of 4): a
// 16-byte load and store each; else element by element, checked.
// CHECK-LABEL: gpu.func @copy_in(
// CHECK-SAME: %[[X:.*]]: !llvm.ptr<1>, %{{.*}}: !llvm.ptr<1>, %{{.*}}: i64)
// CHECK: %[[BASE:.*]] = llvm.ptrtoint %[[X]] : !llvm.ptr<1> to i64
// CHECK: %[[LOW:.*]] = arith.andi %[[BASE]], %c15_i64
// CHECK: scf.if %{{.*}} {
// CHECK-COUNT-2: llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xf32>
// CHECK: } else {
// CHECK-COUNT-8: scf.if %{{.*}} -> (f32)
// CHECK: }
// CHECK: gpu.barrier
// CHECK: vector.load %{{.*}}[%{{.*}}] {alignment = 16 : i64} : memref<1024xf32, #gpu.address_space<workgroup>>, vector<4xf32>
tile.kernel @copy_in(%X: !tile.tensor<[16, K], f32>, %O: !tile.tensor<[16, 64], f32>) attributes {threads = 128 : i64} {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %t = tile.var "t" : !tile.var<16x64xf32>
  tile.copy %X[%c0, %c4] to %t[%c0, %c0] [16, 64] {width = 4 : i64} : !tile.tensor<[16, K], f32> to !tile.var<16x64xf32>
  tile.copy %t[%c0, %c0] to %O[%c0, %c0] [16, 64] {width = 4 : i64} : !tile.var<16x64xf32> to !tile.tensor<[16, 64], f32>
  tile.return
}

// -----

// A box crossing the edge of a [16, 100] tensor, and shared to shared; a
// mask: only the even elements reach Y, the others keep Y's value. A mask
// of chunks of one element is in the thread that moves it.
// CHECK-LABEL: gpu.func @edges_and_masks(
// CHECK-NOT: llvm.ptrtoint
// CHECK: vector.extract %{{.*}}[0] : i1 from vector<2xi1>
tile.kernel @edges_and_masks(%X: !tile.tensor<[16, 100], f32>, %Y: !tile.tensor<[16, 64], f32>) attributes {threads = 512 : i64} {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %a = tile.var "a" : !tile.var<16x64xf32>
  %b = tile.var "b" : !tile.var<16x64xf32>
  tile.copy %X[%c0, %c64] to %a[%c0, %c0] [16, 64] : !tile.tensor<[16, 100], f32> to !tile.var<16x64xf32>
  tile.copy %a[%c0, %c0] to %b[%c0, %c0] [16, 64] : !tile.var<16x64xf32> to !tile.var<16x64xf32>
  %ones = arith.constant dense<1.0> : tensor<16x64xf32>
  tile.store %ones, %Y[%c0, %c0] : tensor<16x64xf32> -> !tile.tensor<[16, 64], f32>
  %v = tile.read %b : !tile.var<16x64xf32>
  %zero = arith.constant dense<0.0> : tensor<16x64xf32>
  %keep = arith.cmpf oge, %v, %zero : tensor<16x64xf32>
  tile.copy %b[%c0, %c0] to %Y[%c0, %c0] [16, 64] mask %keep : !tile.var<16x64xf32> to !tile.tensor<[16, 64], f32>, tensor<16x64xi1>
  tile.return
}

// -----

// A ring of 3 stages, turned by the loop: the stage is (k / 32 + 1) mod 3
// of the ring, at offset stage * 512 bytes.
// CHECK-LABEL: gpu.func @ring(
// CHECK: scf.for %[[K:.*]] =
// CHECK: %[[TURN:.*]] = arith.divui %[[K]], %c32
// CHECK: %[[NEXT:.*]] = arith.addi %[[TURN]], %c1
// CHECK: %[[STAGE:.*]] = arith.remui %[[NEXT]], %c3
// CHECK: %[[BYTES:.*]] = arith.muli %[[STAGE]], %c512
// CHECK: memref.view %{{.*}}[%[[BYTES]]][] : memref<{{[0-9]+}}xi8, #gpu.address_space<workgroup>> to memref<128xf32, #gpu.address_space<workgroup>>
tile.kernel @ring(%X: !tile.tensor<[K], f32>, %O: !tile.tensor<[K], f32>) attributes {threads = 64 : i64} {
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  %K = tile.dim %X[0] : !tile.tensor<[K], f32>
  %p = tile.var "p" {stages = 3 : i64} : !tile.var<128xf32>
  scf.for %k = %c0 to %K step %c32 {
    %turn = arith.divui %k, %c32 : index
    %s = tile.stage %p[%turn + 1] : !tile.var<128xf32>
    tile.copy %X[%k] to %s[%c0] [128] {width = 2 : i64} : !tile.tensor<[K], f32> to !tile.var<128xf32>
    %v = tile.read %s : !tile.var<128xf32>
    %w = arith.addf %v, %v : tensor<128xf32>
    tile.store %w, %O[%k] : tensor<128xf32> -> !tile.tensor<[K], f32>
  }
  tile.return
}

// -----

// A pipeline of async copies written out: two stages in flight, one
// group an iteration, a wait for all but the newest before each use and
// one for all after the loop. Aligned chunks are one cp.async.cg of 16
// bytes each, whose source size zero-fills what lies past the edge;
// unaligned ones are 2-byte elements, loaded and stored, each store marked
// as the async copy's (the emulator holds it in flight until the wait).
// CHECK-LABEL: gpu.func @pipeline(
// CHECK: %[[SHARED:.*]] = memref.extract_aligned_pointer_as_index
// CHECK: llvm.inttoptr %{{.*}} : i64 to !llvm.ptr<3>
// CHECK: nvvm.cp.async.shared.global %{{.*}}, %{{.*}}, 16, cache = cg, %{{.*}} : !llvm.ptr<3>, !llvm.ptr<1>, i32
// CHECK: } else {
// CHECK: memref.store %{{.*}}, %{{.*}}[%{{.*}}] {tile.async_copy} : memref<1024xf16, #gpu.address_space<workgroup>>
// CHECK: nvvm.cp.async.commit.group
// CHECK: scf.for
// CHECK: nvvm.cp.async.wait.group 1
// CHECK-NEXT: gpu.barrier
// CHECK: nvvm.cp.async.shared.global
// CHECK: nvvm.cp.async.commit.group
// CHECK: nvvm.cp.async.wait.group 0
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
