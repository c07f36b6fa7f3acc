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
