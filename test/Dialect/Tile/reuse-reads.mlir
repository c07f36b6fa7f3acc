// RUN: tile-opt %s -split-input-file --pass-pipeline='builtin.module(tile.kernel(tile-reuse-reads))' | FileCheck %s

// Repeated reads of a var and loads of a slice with no write between are
// one; a write (to any var or tensor) starts afresh, and so does an op
// whose region writes.
// CHECK-LABEL: tile.kernel @reads
// CHECK: %[[X:.*]] = tile.var "x"
// CHECK: tile.var "acc"
// CHECK-NEXT: %[[A:.*]] = tile.read %[[X]]
// CHECK-NEXT: %[[L:.*]] = tile.load
// CHECK-NEXT: arith.addf %[[A]], %[[A]]
// CHECK-NEXT: arith.addf %[[L]], %[[L]]
// CHECK: tile.write
// CHECK-NEXT: tile.read %[[X]]
// CHECK-NEXT: tile.load
// CHECK: scf.if
// CHECK: }
// CHECK-NEXT: %[[E:.*]] = tile.read %[[X]]
// CHECK-NEXT: arith.addf %{{.*}}, %[[E]]
// CHECK-NEXT: tile.return
tile.kernel @reads(%X: !tile.tensor<[16, 64], f32>) attributes {threads = 128 : i64} {
  %c0 = arith.constant 0 : index
  %l = tile.load %X[%c0, %c0] : !tile.tensor<[16, 64], f32> -> tensor<16x64xf32>
  %x = tile.var "x" = %l : !tile.var<16x64xf32>
  %acc = tile.var "acc" = %l : !tile.var<16x64xf32>
  %a = tile.read %x : !tile.var<16x64xf32>
  %b = tile.read %x : !tile.var<16x64xf32>
  %la = tile.load %X[%c0, %c0] : !tile.tensor<[16, 64], f32> -> tensor<16x64xf32>
  %lb = tile.load %X[%c0, %c0] : !tile.tensor<[16, 64], f32> -> tensor<16x64xf32>
  %s = arith.addf %a, %b : tensor<16x64xf32>
  %t = arith.addf %la, %lb : tensor<16x64xf32>
  %u = arith.addf %s, %t : tensor<16x64xf32>
  tile.write %u, %acc : !tile.var<16x64xf32>
  %d = tile.read %x : !tile.var<16x64xf32>
  %ld = tile.load %X[%c0, %c0] : !tile.tensor<[16, 64], f32> -> tensor<16x64xf32>
  %true = arith.constant true
  scf.if %true {
    tile.write %ld, %acc : !tile.var<16x64xf32>
  }
  %e = tile.read %x : !tile.var<16x64xf32>
  %f = arith.addf %d, %e : tensor<16x64xf32>
  %g = tile.read %x : !tile.var<16x64xf32>
  tile.return
}
