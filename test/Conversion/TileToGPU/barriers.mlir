// RUN: tile-opt %s -split-input-file --pass-pipeline='builtin.module(tile.kernel(tile-plan-shared,tile-insert-barriers),tile-to-gpu)' | FileCheck %s

// Rows of 48 reduce through shared memory, a warp per row (rows of whole
// warps do not: see the end of this file).
//
// acc in shared memory: inside the loop each thread reads and writes only
// its own elements, so no barrier; the rowsum after the loop reads other
// threads' elements, so one barrier before it.
// CHECK-LABEL: gpu.func @squares_shared(
// CHECK: scf.for
// CHECK-NOT: gpu.barrier
// CHECK: }
// CHECK: gpu.barrier
// CHECK-NEXT: arith.constant
// CHECK-NOT: gpu.barrier
// CHECK: gpu.return
tile.kernel @squares_shared(%X: !tile.tensor<[16, K], f32>, %S: !tile.tensor<[16, 1], f32>) attributes {threads = 256 : i64} {
  %c0 = arith.constant 0 : index
  %c48 = arith.constant 48 : index
  %K = tile.dim %X[1] : !tile.tensor<[16, K], f32>
  %zero = arith.constant dense<0.0> : tensor<16x48xf32>
  %acc = tile.var "acc" = %zero : !tile.var<16x48xf32>
  scf.for %kt = %c0 to %K step %c48 {
    %x = tile.load %X[%c0, %kt] : !tile.tensor<[16, K], f32> -> tensor<16x48xf32>
    %a = tile.read %acc : !tile.var<16x48xf32>
    %n = arith.addf %a, %x : tensor<16x48xf32>
    tile.write %n, %acc : !tile.var<16x48xf32>
  }
  %final = tile.read %acc : !tile.var<16x48xf32>
  %s = tile.rowsum %final : tensor<16x48xf32> -> tensor<16x1xf32>
  tile.store %s, %S[%c0, %c0] : tensor<16x1xf32> -> !tile.tensor<[16, 1], f32>
  tile.return
}

// -----

// A reduction across threads inside a loop: a barrier after the tile is
// written (read-after-write), and one before the next iteration writes it
// again while others may still read it (write-after-read).
// CHECK-LABEL: gpu.func @reduce_in_loop(
// CHECK: scf.for
// CHECK: gpu.barrier
// CHECK: memref.store
// CHECK: gpu.barrier
// CHECK: scf.for {{.*}} -> (f32)
// CHECK-NOT: gpu.barrier
// CHECK: scf.yield
// CHECK-NOT: gpu.barrier
// CHECK: gpu.return
tile.kernel @reduce_in_loop(%X: !tile.tensor<[16, K], f32>, %S: !tile.tensor<[16, 1], f32>) attributes {threads = 128 : i64} {
  %c0 = arith.constant 0 : index
  %c48 = arith.constant 48 : index
  %K = tile.dim %X[1] : !tile.tensor<[16, K], f32>
  %zero = arith.constant dense<0.0> : tensor<16x1xf32>
  %total = tile.var "total" = %zero : !tile.var<16x1xf32>
  scf.for %kt = %c0 to %K step %c48 {
    %x = tile.load %X[%c0, %kt] : !tile.tensor<[16, K], f32> -> tensor<16x48xf32>
    %t = tile.var "x" = %x : !tile.var<16x48xf32>
    %r = tile.read %t : !tile.var<16x48xf32>
    %s = tile.rowsum %r : tensor<16x48xf32> -> tensor<16x1xf32>
    %old = tile.read %total : !tile.var<16x1xf32>
    %new = arith.addf %old, %s : tensor<16x1xf32>
    tile.write %new, %total : !tile.var<16x1xf32>
  }
  %final = tile.read %total : !tile.var<16x1xf32>
  tile.store %final, %S[%c0, %c0] : tensor<16x1xf32> -> !tile.tensor<[16, 1], f32>
  tile.return
}

// -----

// A var only its element owners touch lives in registers and needs no
// barrier across the loop; `u`, read across threads by the rowsum, needs
// one, between its write and the rowsum.
// CHECK-LABEL: gpu.func @owners_only(
// CHECK: scf.for
// CHECK-NOT: gpu.barrier
// CHECK: }
// CHECK: memref.store {{.*}} memref<768xf32, #gpu.address_space<workgroup>>
// CHECK: gpu.barrier
// CHECK-NOT: gpu.barrier
// CHECK: gpu.return
tile.kernel @owners_only(%X: !tile.tensor<[16, 48], f32>, %S: !tile.tensor<[16, 1], f32>) attributes {threads = 128 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %x = tile.load %X[%c0, %c0] : !tile.tensor<[16, 48], f32> -> tensor<16x48xf32>
  %t = tile.var "t" = %x : !tile.var<16x48xf32>
  scf.for %i = %c0 to %c4 step %c1 {
    %r = tile.read %t : !tile.var<16x48xf32>
    %d = arith.addf %r, %r : tensor<16x48xf32>
    tile.write %d, %t : !tile.var<16x48xf32>
  }
  %u = tile.var "u" = %x : !tile.var<16x48xf32>
  %ur = tile.read %u : !tile.var<16x48xf32>
  %s = tile.rowsum %ur : tensor<16x48xf32> -> tensor<16x1xf32>
  tile.store %s, %S[%c0, %c0] : tensor<16x1xf32> -> !tile.tensor<[16, 1], f32>
  tile.return
}

// -----

// A barrier orders global memory within a CTA too: a tile stored and read
// back under another mapping needs one (read after write), and so does
// storing over what other threads read (write after read).
// CHECK-LABEL: gpu.func @global_round_trip(
// CHECK-COUNT-16: llvm.store
// CHECK: gpu.barrier
// CHECK: llvm.load
// CHECK: gpu.barrier
// CHECK: llvm.store
// CHECK-NOT: gpu.barrier
// CHECK: gpu.return
tile.kernel @global_round_trip(%A: !tile.tensor<[64, 32], f32>, %O: !tile.tensor<[64, 32], f32>, %P: !tile.tensor<[64, 1], f32>) attributes {threads = 128 : i64} {
  %c0 = arith.constant 0 : index
  %a = tile.load %A[%c0, %c0] : !tile.tensor<[64, 32], f32> -> tensor<64x32xf32>
  tile.store %a, %O[%c0, %c0] : tensor<64x32xf32> -> !tile.tensor<[64, 32], f32>
  %column = tile.load %O[%c0, %c0] : !tile.tensor<[64, 32], f32> -> tensor<64x1xf32>
  tile.store %column, %P[%c0, %c0] : tensor<64x1xf32> -> !tile.tensor<[64, 1], f32>
  %twice = arith.addf %a, %a : tensor<64x32xf32>
  tile.store %twice, %O[%c0, %c0] : tensor<64x32xf32> -> !tile.tensor<[64, 32], f32>
  tile.return
}

// -----

// Read back as it was stored (same slice, same shape): each thread reads
// its own elements, no barrier.
// CHECK-LABEL: gpu.func @global_same_mapping(
// CHECK-NOT: gpu.barrier
// CHECK: gpu.return
tile.kernel @global_same_mapping(%A: !tile.tensor<[64, 32], f32>, %O: !tile.tensor<[64, 32], f32>) attributes {threads = 128 : i64} {
  %c0 = arith.constant 0 : index
  %a = tile.load %A[%c0, %c0] : !tile.tensor<[64, 32], f32> -> tensor<64x32xf32>
  tile.store %a, %O[%c0, %c0] : tensor<64x32xf32> -> !tile.tensor<[64, 32], f32>
  %again = tile.load %O[%c0, %c0] : !tile.tensor<[64, 32], f32> -> tensor<64x32xf32>
  %twice = arith.addf %again, %again : tensor<64x32xf32>
  tile.store %twice, %O[%c0, %c0] : tensor<64x32xf32> -> !tile.tensor<[64, 32], f32>
  tile.return
}

// -----

// Rows of whole warps reduce where they live, with a barrier of their own
// between the warps' partials and their reads. In a loop, the next
// iteration's partials would overwrite what slower threads still read: a
// barrier before them too.
// CHECK-LABEL: gpu.func @segmented_in_loop(
// CHECK: scf.for
// CHECK: gpu.barrier
// CHECK: gpu.shuffle
// CHECK: memref.store
// CHECK: gpu.barrier
// CHECK: memref.load
// CHECK-NOT: gpu.barrier
// CHECK: gpu.return
tile.kernel @segmented_in_loop(%X: !tile.tensor<[16, K], f32>, %S: !tile.tensor<[16, 1], f32>) attributes {threads = 128 : i64} {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %K = tile.dim %X[1] : !tile.tensor<[16, K], f32>
  scf.for %kt = %c0 to %K step %c64 {
    %x = tile.load %X[%c0, %kt] : !tile.tensor<[16, K], f32> -> tensor<16x64xf32>
    %s = tile.rowsum %x : tensor<16x64xf32> -> tensor<16x1xf32>
    tile.store %s, %S[%c0, %c0] : tensor<16x1xf32> -> !tile.tensor<[16, 1], f32>
  }
  tile.return
}

// -----

// softmax's pattern: the two reductions' scratch vars share their bytes, so
// the second one's partials wait for the first one's reads: three barriers
// in all, as in the hand-written kernel, and nothing else in shared memory
// (the row max is forwarded from the var that held it).
// CHECK-LABEL: gpu.func @two_reductions(
// CHECK-SAME: workgroup(%{{.*}} : memref<128xi8, #gpu.address_space<workgroup>>)
// CHECK-COUNT-3: gpu.barrier
// CHECK-NOT: gpu.barrier
// CHECK: gpu.return
tile.kernel @two_reductions(%X: !tile.tensor<[16, 64], f32>, %Y: !tile.tensor<[16, 64], f32>) attributes {threads = 128 : i64} {
  %c0 = arith.constant 0 : index
  %x = tile.load %X[%c0, %c0] : !tile.tensor<[16, 64], f32> -> tensor<16x64xf32>
  %m = tile.rowmax %x : tensor<16x64xf32> -> tensor<16x1xf32>
  %mv = tile.var "m" = %m : !tile.var<16x1xf32>
  %mr = tile.read %mv : !tile.var<16x1xf32>
  %mb = tile.broadcast %mr : tensor<16x1xf32> -> tensor<16x64xf32>
  %d = arith.subf %x, %mb : tensor<16x64xf32>
  %e = math.exp %d : tensor<16x64xf32>
  %s = tile.rowsum %e : tensor<16x64xf32> -> tensor<16x1xf32>
  %sb = tile.broadcast %s : tensor<16x1xf32> -> tensor<16x64xf32>
  %y = arith.divf %e, %sb : tensor<16x64xf32>
  tile.store %y, %Y[%c0, %c0] : tensor<16x64xf32> -> !tile.tensor<[16, 64], f32>
  tile.return
}

// -----

// A row statistic with fewer elements than threads: only threads 0..15 own
// an element of `m`, and only they read it back (the others read nothing,
// not a clamped element 0 that thread 0 writes), so the owners' write and
// read need no barrier between them. The broadcast reads across threads: a
// barrier before it.
// CHECK-LABEL: gpu.func @row_statistic_owners(
// CHECK: %[[TID:.*]] = gpu.thread_id x
// CHECK: %[[OWNS:.*]] = arith.cmpi ult, %[[TID]], %c16
// CHECK: scf.if %[[OWNS]] {
// CHECK-NEXT: memref.store
// CHECK-NOT: gpu.barrier
// CHECK: %[[READS:.*]] = arith.cmpi ult, %[[TID]], %c16
// CHECK-NEXT: scf.if %[[READS]] -> (f32) {
// CHECK-NEXT: memref.load %{{.*}}[%[[TID]]]
// The reduction's own barrier, one before its result overwrites the
// partials' bytes in 'rowmax.result', one before the owners read that
// back, one before the broadcast.
// CHECK-COUNT-4: gpu.barrier
// CHECK-NOT: gpu.barrier
// CHECK: gpu.return
tile.kernel @row_statistic_owners(%X: !tile.tensor<[16, 128], f32>, %Y: !tile.tensor<[16, 128], f32>) attributes {threads = 128 : i64} {
  %c0 = arith.constant 0 : index
  %zero = arith.constant dense<0.0> : tensor<16x1xf32>
  %m = tile.var "m" = %zero : !tile.var<16x1xf32>
  %old = tile.read %m : !tile.var<16x1xf32>
  %x = tile.load %X[%c0, %c0] : !tile.tensor<[16, 128], f32> -> tensor<16x128xf32>
  %max = tile.rowmax %x : tensor<16x128xf32> -> tensor<16x1xf32>
  %new = arith.addf %old, %max : tensor<16x1xf32>
  tile.write %new, %m : !tile.var<16x1xf32>
  %mr = tile.read %m : !tile.var<16x1xf32>
  %mb = tile.broadcast %mr : tensor<16x1xf32> -> tensor<16x128xf32>
  %y = arith.subf %x, %mb : tensor<16x128xf32>
  tile.store %y, %Y[%c0, %c0] : tensor<16x128xf32> -> !tile.tensor<[16, 128], f32>
  tile.return
}
