// RUN: tile-opt %s -split-input-file --pass-pipeline='builtin.module(tile.kernel(tile-plan-shared,tile-insert-barriers))' | FileCheck %s
// RUN: tile-opt %s -split-input-file --pass-pipeline='builtin.module(tile.kernel(tile-plan-shared,tile-insert-barriers,tile-insert-barriers))' | FileCheck %s
// RUN: tile-opt %s -split-input-file --pass-pipeline='builtin.module(tile.kernel(tile-plan-shared,tile-insert-barriers{remarks=true}))' -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK

// acc in shared memory: in the loop each thread reads and writes only its
// own elements, so no barrier; the rowsum of rows of 48 after the loop
// reads other threads' elements, so one barrier before it. A second run
// adds none (the same checks hold).
// CHECK-LABEL: tile.kernel @squares_shared
// CHECK-SAME: tile.synchronized
// CHECK: scf.for
// CHECK-NOT: tile.barrier
// CHECK: }
// CHECK: tile.read
// CHECK-NEXT: tile.barrier
// CHECK-NEXT: tile.rowsum
// CHECK-NOT: tile.barrier
// CHECK: tile.return
// REMARK: insert-barriers.mlir:[[# @LINE + 14]]:8: remark: barrier before this op: it touches memory that another thread of the CTA accessed since the last barrier
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

// A reduction across threads in a loop: a barrier between the write of the
// tile and the reduction reading it (read after write), and one before the
// next iteration's write (write after read: the other threads may still be
// reading the previous iteration's tile).
// CHECK-LABEL: tile.kernel @reduce_in_loop
// CHECK: scf.for
// CHECK-NEXT: tile.load
// CHECK-NEXT: tile.barrier
// CHECK-NEXT: tile.var "x"
// CHECK-NEXT: tile.read
// CHECK-NEXT: tile.barrier
// CHECK-NEXT: tile.rowsum
// CHECK-NOT: tile.barrier
// CHECK: tile.return
tile.kernel @reduce_in_loop(%X: !tile.tensor<[16, K], f32>, %S: !tile.tensor<[16, 1], f32>) attributes {threads = 128 : i64} {
  %c0 = arith.constant 0 : index
  %c48 = arith.constant 48 : index
  %K = tile.dim %X[1] : !tile.tensor<[16, K], f32>
  scf.for %kt = %c0 to %K step %c48 {
    %x = tile.load %X[%c0, %kt] : !tile.tensor<[16, K], f32> -> tensor<16x48xf32>
    %t = tile.var "x" = %x : !tile.var<16x48xf32>
    %r = tile.read %t : !tile.var<16x48xf32>
    %s = tile.rowsum %r : tensor<16x48xf32> -> tensor<16x1xf32>
    tile.store %s, %S[%c0, %c0] : tensor<16x1xf32> -> !tile.tensor<[16, 1], f32>
  }
  tile.return
}

// -----

// A whole-warp reduction has a barrier of its own between its partials'
// writes and reads; only a later write of its scratch needs another (the
// second rowmax shares the scratch's bytes).
// CHECK-LABEL: tile.kernel @segmented
// CHECK: tile.rowmax
// CHECK-NOT: tile.barrier
// CHECK: tile.var "rowsum.partials"
// CHECK-NEXT: tile.barrier
// CHECK-NEXT: tile.rowsum
// CHECK-NOT: tile.barrier
// CHECK: tile.return
tile.kernel @segmented(%X: !tile.tensor<[16, 64], f32>, %M: !tile.tensor<[16, 1], f32>, %S: !tile.tensor<[16, 1], f32>) attributes {threads = 128 : i64} {
  %c0 = arith.constant 0 : index
  %x = tile.load %X[%c0, %c0] : !tile.tensor<[16, 64], f32> -> tensor<16x64xf32>
  %m = tile.rowmax %x : tensor<16x64xf32> -> tensor<16x1xf32>
  tile.store %m, %M[%c0, %c0] : tensor<16x1xf32> -> !tile.tensor<[16, 1], f32>
  %s = tile.rowsum %x : tensor<16x64xf32> -> tensor<16x1xf32>
  tile.store %s, %S[%c0, %c0] : tensor<16x1xf32> -> !tile.tensor<[16, 1], f32>
  tile.return
}

// -----

// A barrier already in the kernel orders what comes before it: none is
// added after it.
// CHECK-LABEL: tile.kernel @given_barrier
// CHECK: tile.var "t"
// CHECK-NEXT: tile.barrier
// CHECK-NEXT: tile.read
// CHECK-NEXT: tile.rowsum
// CHECK-NOT: tile.barrier
tile.kernel @given_barrier(%X: !tile.tensor<[16, 48], f32>, %S: !tile.tensor<[16, 1], f32>) attributes {threads = 128 : i64} {
  %c0 = arith.constant 0 : index
  %x = tile.load %X[%c0, %c0] : !tile.tensor<[16, 48], f32> -> tensor<16x48xf32>
  %t = tile.var "t" = %x : !tile.var<16x48xf32>
  tile.barrier
  %r = tile.read %t : !tile.var<16x48xf32>
  %s = tile.rowsum %r : tensor<16x48xf32> -> tensor<16x1xf32>
  tile.store %s, %S[%c0, %c0] : tensor<16x1xf32> -> !tile.tensor<[16, 1], f32>
  tile.return
}

// -----

// Owners only, in global memory too: a thread reading back the slice it
// stored needs no barrier.
// CHECK-LABEL: tile.kernel @owners_only
// CHECK-NOT: tile.barrier
// CHECK: tile.return
tile.kernel @owners_only(%X: !tile.tensor<[16, 64], f32>, %Y: !tile.tensor<[16, 64], f32>) attributes {threads = 128 : i64} {
  %c0 = arith.constant 0 : index
  %x = tile.load %X[%c0, %c0] : !tile.tensor<[16, 64], f32> -> tensor<16x64xf32>
  tile.store %x, %Y[%c0, %c0] : tensor<16x64xf32> -> !tile.tensor<[16, 64], f32>
  %y = tile.load %Y[%c0, %c0] : !tile.tensor<[16, 64], f32> -> tensor<16x64xf32>
  %d = arith.addf %y, %y : tensor<16x64xf32>
  tile.store %d, %Y[%c0, %c0] : tensor<16x64xf32> -> !tile.tensor<[16, 64], f32>
  tile.return
}

// -----

// A copy into a shared tile, read by its owners: the copy's threads are
// not the owners, so a barrier before the read; and one before the copy
// of the next iteration overwrites what this one read. An author's
// barrier() there counts, and is not redundant.
// CHECK-LABEL: tile.kernel @copy_then_read
// CHECK: scf.for
// CHECK-NEXT: tile.barrier {requested}
// CHECK-NEXT: tile.copy
// CHECK-NEXT: tile.barrier
// CHECK-NEXT: tile.read
// CHECK-NOT: tile.barrier
// CHECK: tile.return
// REMARK-NOT: redundant
tile.kernel @copy_then_read(%X: !tile.tensor<[K], f32>, %O: !tile.tensor<[K], f32>) attributes {threads = 64 : i64} {
  %c0 = arith.constant 0 : index
  %c128 = arith.constant 128 : index
  %K = tile.dim %X[0] : !tile.tensor<[K], f32>
  %t = tile.var "t" : !tile.var<128xf32>
  scf.for %k = %c0 to %K step %c128 {
    tile.barrier {requested}
    tile.copy %X[%k] to %t[%c0] [128] {width = 4 : i64} : !tile.tensor<[K], f32> to !tile.var<128xf32>
    %v = tile.read %t : !tile.var<128xf32>
    tile.store %v, %O[%k] : tensor<128xf32> -> !tile.tensor<[K], f32>
  }
  tile.return
}

// -----

// Two stages of one rotation of a ring are distinct: writing the back
// stage needs no barrier after reading the front one; the next iteration,
// whose rotation is another, does (the author's barrier() orders it).
// A second barrier() right after the first orders nothing: a remark.
// CHECK-LABEL: tile.kernel @ring_stages
// CHECK: scf.for
// CHECK: tile.read
// CHECK-NOT: tile.barrier
// CHECK: tile.copy
// CHECK-NEXT: tile.barrier {requested}
// CHECK-NEXT: tile.barrier {requested}
// CHECK-NOT: tile.barrier
// CHECK: tile.return
// REMARK: insert-barriers.mlir:[[# @LINE + 17]]:5: remark: this barrier() is redundant: no access after it conflicts with another thread's access before it
tile.kernel @ring_stages(%X: !tile.tensor<[K], f32>, %O: !tile.tensor<[K], f32>) attributes {threads = 64 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %K = tile.dim %X[0] : !tile.tensor<[K], f32>
  %p = tile.var "p" {stages = 2 : i64} : !tile.var<128xf32>
  %first = tile.stage %p[%c0 + 0] : !tile.var<128xf32>
  tile.copy %X[%c0] to %first[%c0] [128] : !tile.tensor<[K], f32> to !tile.var<128xf32>
  tile.barrier {requested}
  scf.for %k = %c1 to %K step %c1 {
    %front = tile.stage %p[%k + 1] : !tile.var<128xf32>
    %v = tile.read %front : !tile.var<128xf32>
    %b = tile.broadcast %v : tensor<128xf32> -> tensor<128xf32>
    tile.store %v, %O[%k] : tensor<128xf32> -> !tile.tensor<[K], f32>
    %back = tile.stage %p[%k + 0] : !tile.var<128xf32>
    tile.copy %X[%k] to %back[%c0] [128] : !tile.tensor<[K], f32> to !tile.var<128xf32>
    tile.barrier {requested}
    tile.barrier {requested}
  }
  tile.return
}

// -----

// An async copy lands at the wait that covers it: the read of its stage by
// other threads needs a barrier after the wait, not after the copy. The
// copy of the next stage, issued after the read of the last iteration's,
// needs one too; here the barrier before it orders both.
// CHECK-LABEL: tile.kernel @async_stages
// CHECK: scf.for
// CHECK-NEXT: tile.wait_group 0
// CHECK-NEXT: tile.stage
// CHECK-NEXT: tile.barrier
// CHECK-NEXT: tile.copy
// CHECK-NEXT: tile.commit_group
// CHECK-NOT: tile.barrier
// CHECK: tile.return
tile.kernel @async_stages(%X: !tile.tensor<[K], f32>, %O: !tile.tensor<[K], f32>) attributes {threads = 64 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %K = tile.dim %X[0] : !tile.tensor<[K], f32>
  %p = tile.var "p" {stages = 2 : i64} : !tile.var<128xf32>
  %first = tile.stage %p[%c0 + 0] : !tile.var<128xf32>
  tile.copy %X[%c0] to %first[%c0] [128] {async} : !tile.tensor<[K], f32> to !tile.var<128xf32>
  tile.commit_group
  scf.for %k = %c0 to %K step %c1 {
    tile.wait_group 0
    %back = tile.stage %p[%k + 1] : !tile.var<128xf32>
    tile.copy %X[%k] to %back[%c0] [128] {async} : !tile.tensor<[K], f32> to !tile.var<128xf32>
    tile.commit_group
    %front = tile.stage %p[%k + 0] : !tile.var<128xf32>
    %v = tile.read %front : !tile.var<128xf32>
    %b = tile.broadcast %v : tensor<128xf32> -> tensor<128xf32>
    tile.store %b, %O[%k] : tensor<128xf32> -> !tile.tensor<[K], f32>
  }
  tile.wait_group 0
  tile.return
}

// -----

// rowscale's loop: each iteration stores the slice at the next 128
// columns, no wider than the step, so the store of one iteration touches
// no element that another iteration's threads stored: no barrier in the
// loop. The one before the broadcast (other threads' elements of the
// shared scale) stays.
// CHECK-LABEL: tile.kernel @slices_a_step_apart
// CHECK: tile.barrier
// CHECK-NEXT: tile.broadcast
// CHECK-NOT: tile.barrier
// CHECK: tile.return
tile.kernel @slices_a_step_apart(%X: !tile.tensor<[M, N], f32>, %S: !tile.tensor<[M, 1], f32>, %Y: !tile.tensor<[M, N], f32>) attributes {threads = 128 : i64} {
  %c0 = arith.constant 0 : index
  %c128 = arith.constant 128 : index
  %N = tile.dim %X[1] : !tile.tensor<[M, N], f32>
  %s = tile.load %S[%c0, %c0] : !tile.tensor<[M, 1], f32> -> tensor<16x1xf32>
  %scale = tile.var "scale" = %s : !tile.var<16x1xf32>
  %r = tile.read %scale : !tile.var<16x1xf32>
  %b = tile.broadcast %r : tensor<16x1xf32> -> tensor<16x128xf32>
  scf.for %col = %c0 to %N step %c128 {
    %x = tile.load %X[%c0, %col] : !tile.tensor<[M, N], f32> -> tensor<16x128xf32>
    %y = arith.mulf %x, %b : tensor<16x128xf32>
    tile.store %y, %Y[%c0, %col] : tensor<16x128xf32> -> !tile.tensor<[M, N], f32>
  }
  tile.return
}

// -----

// A slice wider than the step overlaps the next iteration's, whose threads
// for those elements are others: a barrier before the store.
// CHECK-LABEL: tile.kernel @slices_overlapping
// CHECK: scf.for
// CHECK: arith.mulf
// CHECK-NEXT: tile.barrier
// CHECK-NEXT: tile.store
// CHECK: tile.return
tile.kernel @slices_overlapping(%X: !tile.tensor<[M, N], f32>, %Y: !tile.tensor<[M, N], f32>) attributes {threads = 128 : i64} {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %N = tile.dim %X[1] : !tile.tensor<[M, N], f32>
  scf.for %col = %c0 to %N step %c64 {
    %x = tile.load %X[%c0, %col] : !tile.tensor<[M, N], f32> -> tensor<16x128xf32>
    %y = arith.mulf %x, %x : tensor<16x128xf32>
    tile.store %y, %Y[%c0, %col] : tensor<16x128xf32> -> !tile.tensor<[M, N], f32>
  }
  tile.return
}

// -----

// Slices a step apart in an inner loop, which starts its index again in
// each iteration of the outer one: the read of Y (other threads' elements
// than the store's) in the last inner iteration, at the column the next
// outer iteration's first store writes again, needs the barrier before
// that store (an inner loop of one iteration has no other; with it
// dropped, the emulator reports the race).
// CHECK-LABEL: tile.kernel @inner_loop_restarts
// CHECK: scf.for
// CHECK: scf.for
// CHECK-NEXT: tile.load {{.*}} -> tensor<16x128xf32>
// CHECK-NEXT: tile.barrier
// CHECK-NEXT: tile.store
// CHECK-NEXT: tile.barrier {requested}
// CHECK-NEXT: tile.load {{.*}} -> tensor<16x64xf32>
// CHECK-NOT: tile.barrier
// CHECK: tile.return
tile.kernel @inner_loop_restarts(%X: !tile.tensor<[M, N], f32>, %Y: !tile.tensor<[M, N], f32>, %O: !tile.tensor<[M, N], f32>) attributes {threads = 128 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c128 = arith.constant 128 : index
  %N = tile.dim %X[1] : !tile.tensor<[M, N], f32>
  scf.for %i = %c0 to %c4 step %c1 {
    scf.for %col = %c0 to %N step %c128 {
      %x = tile.load %X[%c0, %col] : !tile.tensor<[M, N], f32> -> tensor<16x128xf32>
      tile.store %x, %Y[%c0, %col] : tensor<16x128xf32> -> !tile.tensor<[M, N], f32>
      tile.barrier {requested}
      %y = tile.load %Y[%c0, %col] : !tile.tensor<[M, N], f32> -> tensor<16x64xf32>
      tile.store %y, %O[%c0, %col] : tensor<16x64xf32> -> !tile.tensor<[M, N], f32>
    }
  }
  tile.return
}
