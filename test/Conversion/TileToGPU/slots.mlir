// RUN: tile-opt %s --pass-pipeline='builtin.module(tile.kernel(tile-plan-shared,tile-insert-barriers),tile-to-gpu,canonicalize,cse)' | FileCheck %s

// Rows of 7 over 32 threads: neither divides the other. Every slot's row
// and column are the first slot's (one division) plus constants, and one
// row more where the column wraps: slot 1 (element tid + 32, 4 rows and 4
// columns on) wraps for columns from 3 on. No division a slot: LLVM took
// seconds over them in a [4096, 7] tile (utils/fuzz.py seed 103).
// CHECK-LABEL: gpu.func @rows_of_seven(
// CHECK: %[[TID:.*]] = gpu.thread_id x
// CHECK: %[[COL:.*]] = arith.remui %[[TID]], %c7
// CHECK: %[[ROW:.*]] = arith.divui %[[TID]], %c7
// CHECK: llvm.load
// CHECK-NOT: arith.divui
// CHECK-NOT: arith.remui
// CHECK: %[[R1:.*]] = arith.addi %[[ROW]], %c4
// CHECK: %[[WRAPS:.*]] = arith.cmpi uge, %[[COL]], %c3
// CHECK: %[[C1:.*]] = arith.addi %[[COL]], %c4
// CHECK: %[[C1W:.*]] = arith.addi %[[COL]], %c-3
// CHECK: %[[COL1:.*]] = arith.select %[[WRAPS]], %[[C1W]], %[[C1]]
// CHECK: %[[R1W:.*]] = arith.addi %[[ROW]], %c5
// CHECK: %[[ROW1:.*]] = arith.select %[[WRAPS]], %[[R1W]], %[[R1]]
// CHECK: %[[LIN:.*]] = arith.muli %[[ROW1]], %c7
// CHECK: arith.addi %[[LIN]], %[[COL1]]
// CHECK: llvm.load
// CHECK-NOT: arith.divui
// CHECK-NOT: arith.remui
// CHECK: gpu.return
tile.kernel @rows_of_seven(%X: !tile.tensor<[16, 7], f32>, %O: !tile.tensor<[16, 7], f32>) attributes {threads = 32 : i64} {
  %c0 = arith.constant 0 : index
  %x = tile.load %X[%c0, %c0] : !tile.tensor<[16, 7], f32> -> tensor<16x7xf32>
  tile.store %x, %O[%c0, %c0] : tensor<16x7xf32> -> !tile.tensor<[16, 7], f32>
  tile.return
}
