// RUN: tile-opt %s -split-input-file --pass-pipeline='builtin.module(tile.kernel(tile-plan-shared,tile-insert-barriers),tile-to-gpu,canonicalize,cse)' | FileCheck %s

// dot reads both operands from shared memory after a barrier; each owner
// thread runs the inner products of its elements, f16 products in f32,
// unrolled (32 steps of 2 products). A thread's two slots are in one
// column: each step loads and converts that column's element of the right
// operand once, for both.
// CHECK-LABEL: gpu.func @dot_f16(
// CHECK-SAME: workgroup(%[[SMEM:.*]] : memref<2048xi8, #gpu.address_space<workgroup>>)
// CHECK-DAG: %[[LHS:.*]] = memref.view %[[SMEM]][%c0][] {{.*}} to memref<512xf16, #gpu.address_space<workgroup>>
// CHECK-DAG: %[[RHS:.*]] = memref.view %[[SMEM]][%c1024][] {{.*}} to memref<512xf16, #gpu.address_space<workgroup>>
// CHECK: gpu.barrier
// CHECK-NOT: scf.for
// CHECK: memref.load %[[LHS]]
// CHECK-NEXT: arith.extf
// CHECK: memref.load %[[RHS]]
// CHECK-COUNT-31: memref.load %[[RHS]]
// CHECK-NOT: memref.load %[[RHS]]
// CHECK-NOT: scf.for
// CHECK: gpu.return
tile.kernel @dot_f16(%A: !tile.tensor<[16, 32], f16>, %B: !tile.tensor<[32, 16], f16>, %C: !tile.tensor<[16, 16], f32>) attributes {threads = 128 : i64} {
  %c0 = arith.constant 0 : index
  %a = tile.load %A[%c0, %c0] : !tile.tensor<[16, 32], f16> -> tensor<16x32xf16>
  %b = tile.load %B[%c0, %c0] : !tile.tensor<[32, 16], f16> -> tensor<32x16xf16>
  %d = tile.dot %a, %b : tensor<16x32xf16>, tensor<32x16xf16> -> tensor<16x16xf32>
  tile.store %d, %C[%c0, %c0] : tensor<16x16xf32> -> !tile.tensor<[16, 16], f32>
  tile.return
}

// -----

// A broadcast of a loaded [1, C] row reads it from shared memory at row 0.
// CHECK-LABEL: gpu.func @broadcast_row(
// CHECK: gpu.barrier
// CHECK: %[[COL:.*]] = arith.remui %{{.*}}, %c64 : index
// CHECK: memref.load %{{.*}}[%[[COL]]]
tile.kernel @broadcast_row(%V: !tile.tensor<[1, 64], f32>, %O: !tile.tensor<[16, 64], f32>) attributes {threads = 128 : i64} {
  %c0 = arith.constant 0 : index
  %v = tile.load %V[%c0, %c0] : !tile.tensor<[1, 64], f32> -> tensor<1x64xf32>
  %b = tile.broadcast %v : tensor<1x64xf32> -> tensor<16x64xf32>
  tile.store %b, %O[%c0, %c0] : tensor<16x64xf32> -> !tile.tensor<[16, 64], f32>
  tile.return
}

// -----

// An inner product of more than 512 products a thread is a loop over the
// inner dimension, carrying every slot's sum (8 slots, 128 steps).
// CHECK-LABEL: gpu.func @dot_loop(
// CHECK: gpu.barrier
// CHECK: scf.for %{{.*}} = %c0 to %c128 step %c1 iter_args({{.*}}) -> (f32, f32, f32, f32, f32, f32, f32, f32)
tile.kernel @dot_loop(%A: !tile.tensor<[32, 128], f16>, %B: !tile.tensor<[128, 64], f16>, %C: !tile.tensor<[32, 64], f32>) attributes {threads = 256 : i64} {
  %c0 = arith.constant 0 : index
  %a = tile.load %A[%c0, %c0] : !tile.tensor<[32, 128], f16> -> tensor<32x128xf16>
  %b = tile.load %B[%c0, %c0] : !tile.tensor<[128, 64], f16> -> tensor<128x64xf16>
  %d = tile.dot %a, %b : tensor<32x128xf16>, tensor<128x64xf16> -> tensor<32x64xf32>
  tile.store %d, %C[%c0, %c0] : tensor<32x64xf32> -> !tile.tensor<[32, 64], f32>
  tile.return
}

// -----

// dot(a, transpose(b)), folded (test/Dialect/Tile/canonicalize.mlir): the
// right operand is staged as it is, [16, 32] (512 f16, the same 1024 bytes
// as an untransposed one, and no other shared tile), and read by columns:
// element (k, n) at n * 32 + k.
// CHECK-LABEL: gpu.func @dot_rhs_transposed(
// CHECK-SAME: workgroup(%[[SMEM:.*]] : memref<2048xi8, #gpu.address_space<workgroup>>)
// CHECK-DAG: %[[RHS:.*]] = memref.view %[[SMEM]][%c1024][] {{.*}} to memref<512xf16, #gpu.address_space<workgroup>>
// CHECK: gpu.barrier
// CHECK: %[[COL:.*]] = arith.remui %{{.*}}, %c16 : index
// CHECK: %[[START:.*]] = arith.muli %[[COL]], %c32 : index
// CHECK: memref.load %[[RHS]][%[[START]]]
// CHECK: %[[NEXT:.*]] = arith.addi %[[START]], %c1 : index
// CHECK: memref.load %[[RHS]][%[[NEXT]]]
// CHECK: gpu.return
tile.kernel @dot_rhs_transposed(%A: !tile.tensor<[16, 32], f16>, %B: !tile.tensor<[16, 32], f16>, %C: !tile.tensor<[16, 16], f32>) attributes {threads = 128 : i64} {
  %c0 = arith.constant 0 : index
  %a = tile.load %A[%c0, %c0] : !tile.tensor<[16, 32], f16> -> tensor<16x32xf16>
  %b = tile.load %B[%c0, %c0] : !tile.tensor<[16, 32], f16> -> tensor<16x32xf16>
  %d = tile.dot %a, %b rhs_transposed : tensor<16x32xf16>, tensor<16x32xf16> -> tensor<16x16xf32>
  tile.store %d, %C[%c0, %c0] : tensor<16x16xf32> -> !tile.tensor<[16, 16], f32>
  tile.return
}
