// RUN: tile-opt %s -split-input-file --pass-pipeline='builtin.module(tile.kernel(tile-pipeline-loads))' | FileCheck %s
// RUN: tile-opt %s -split-input-file --pass-pipeline='builtin.module(tile.kernel(tile-pipeline-loads{remarks=true}))' \
// RUN:   --mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK

// stages = 3: the slices of the first two iterations are loaded before the
// loop; each iteration first loads the slice two iterations later (its
// offset recomputed from kt + 2 * 64) and uses the one loaded two
// iterations before, carried with the other in flight.
// CHECK-LABEL: tile.kernel @sum_columns
// CHECK: %[[FIRST:.*]] = tile.load %arg0[%c0, %c0]
// CHECK: %[[NEXT:.*]] = arith.addi %c0, %{{.*}} : index
// CHECK: %[[SECOND:.*]] = tile.load %arg0[%c0, %[[NEXT]]]
// CHECK: scf.for %[[KT:.*]] = %c0 to %{{.*}} step %c64 iter_args(%[[ACC:.*]] = %{{.*}}, %[[NOW:.*]] = %[[FIRST]], %[[SOON:.*]] = %[[SECOND]])
// CHECK: %[[TWO:.*]] = arith.muli %c64, %c2
// CHECK: %[[AHEAD:.*]] = arith.addi %[[KT]], %[[TWO]]
// CHECK: %[[LATER:.*]] = tile.load %arg0[%c0, %[[AHEAD]]]
// CHECK-NOT: tile.load
// CHECK: %[[SUM:.*]] = arith.addf %[[ACC]], %[[NOW]]
// CHECK: scf.yield %[[SUM]], %[[SOON]], %[[LATER]]
// CHECK: } {tile.index = "kt"}
// REMARK: pipeline-loads.mlir:[[@LINE+7]]:10: remark: loaded 2 iteration(s) ahead (@pipeline): 2 more tile(s) of 4 element(s) per thread in flight
tile.kernel @sum_columns(%X: !tile.tensor<[16, K], f32>, %O: !tile.tensor<[16, 64], f32>) attributes {threads = 256 : i64, pipeline = {names = ["kt"], stages = 3 : i64}} {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %K = tile.dim %X[1] : !tile.tensor<[16, K], f32>
  %zero = arith.constant dense<0.0> : tensor<16x64xf32>
  %sum = scf.for %kt = %c0 to %K step %c64 iter_args(%acc = %zero) -> (tensor<16x64xf32>) {
    %x = tile.load %X[%c0, %kt] : !tile.tensor<[16, K], f32> -> tensor<16x64xf32>
    %n = arith.addf %acc, %x : tensor<16x64xf32>
    scf.yield %n : tensor<16x64xf32>
  } {tile.index = "kt"}
  tile.store %sum, %O[%c0, %c0] : tensor<16x64xf32> -> !tile.tensor<[16, 64], f32>
  tile.return
}

// -----

// Named by the var it sets: the load into `b`, one iteration ahead (stages
// defaults to 2), with the offset computation (k * 2) recomputed for the
// next iteration; the load into `a`, not named, stays where it is.
// CHECK-LABEL: tile.kernel @by_var
// CHECK: %[[PRE:.*]] = arith.muli %c0, %c2
// CHECK: %[[B0:.*]] = tile.load %arg1[%[[PRE]], %c0]
// CHECK: scf.for %[[K:.*]] = {{.*}} iter_args(%[[B:.*]] = %[[B0]])
// CHECK: %[[NEXT:.*]] = arith.addi %[[K]], %{{.*}}
// CHECK: %[[ROW:.*]] = arith.muli %[[NEXT]], %c2
// CHECK: %[[BN:.*]] = tile.load %arg1[%[[ROW]], %c0]
// CHECK: tile.load %arg0
// CHECK: tile.var "b" = %[[B]]
// CHECK: scf.yield %[[BN]]
// REMARK: pipeline-loads.mlir:[[@LINE+9]]:11: remark: loaded 1 iteration(s) ahead (@pipeline): 1 more tile(s) of 1 element(s) per thread in flight
tile.kernel @by_var(%A: !tile.tensor<[16, K], f32>, %B: !tile.tensor<[K, 16], f32>, %O: !tile.tensor<[16, 16], f32>) attributes {threads = 256 : i64, pipeline = {names = ["b"]}} {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c8 = arith.constant 8 : index
  %K = tile.dim %A[1] : !tile.tensor<[16, K], f32>
  scf.for %k = %c0 to %K step %c8 {
    %a = tile.load %A[%c0, %k] : !tile.tensor<[16, K], f32> -> tensor<16x16xf32>
    %row = arith.muli %k, %c2 : index
    %b0 = tile.load %B[%row, %c0] : !tile.tensor<[K, 16], f32> -> tensor<16x16xf32>
    %b = tile.var "b" = %b0 : !tile.var<16x16xf32>
    %br = tile.read %b : !tile.var<16x16xf32>
    %s = arith.addf %a, %br : tensor<16x16xf32>
    tile.store %s, %O[%c0, %c0] : tensor<16x16xf32> -> !tile.tensor<[16, 16], f32>
  }
  tile.return
}

// -----

// Without @pipeline nothing changes.
// CHECK-LABEL: tile.kernel @no_pipeline
// CHECK: scf.for
// CHECK-NEXT: tile.load
tile.kernel @no_pipeline(%X: !tile.tensor<[16, K], f32>, %O: !tile.tensor<[16, 64], f32>) attributes {threads = 256 : i64} {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %K = tile.dim %X[1] : !tile.tensor<[16, K], f32>
  scf.for %kt = %c0 to %K step %c64 {
    %x = tile.load %X[%c0, %kt] : !tile.tensor<[16, K], f32> -> tensor<16x64xf32>
    tile.store %x, %O[%c0, %c0] : tensor<16x64xf32> -> !tile.tensor<[16, 64], f32>
  } {tile.index = "kt"}
  tile.return
}
