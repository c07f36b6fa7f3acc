// RUN: tile-opt %s --pass-pipeline='builtin.module(tile.kernel(tile-plan-shared,tile-insert-barriers),tile-to-gpu,canonicalize,cse)' | FileCheck %s --implicit-check-not=memref.alloca --implicit-check-not=gpu.barrier

// An elementwise expression tree is one op per node on each thread's vector
// of elements: fused per element, with no temporary in memory.
// CHECK-LABEL: gpu.func @expression(
// CHECK-DAG: %[[T:.*]] = arith.constant dense<1.500000e+00> : vector<4xf32>
// CHECK-DAG: %[[HALF:.*]] = arith.constant dense<5.000000e-01> : vector<4xf32>
// CHECK: %[[X:.*]] = vector.from_elements %{{.*}} : vector<4xf32>
// CHECK: %[[Y:.*]] = vector.from_elements %{{.*}} : vector<4xf32>
// CHECK: %[[M:.*]] = arith.mulf %[[X]], %[[HALF]] fastmath<contract> : vector<4xf32>
// CHECK: %[[E:.*]] = math.exp %[[Y]] : vector<4xf32>
// CHECK: %[[S:.*]] = arith.addf %[[M]], %[[E]] fastmath<contract> : vector<4xf32>
// CHECK: %[[GT:.*]] = arith.cmpf ogt, %[[S]], %[[T]] : vector<4xf32>
// CHECK: %[[SEL:.*]] = arith.select %[[GT]], %[[S]], %[[T]] : vector<4xi1>, vector<4xf32>
// CHECK: vector.extract %[[SEL]][0] : f32 from vector<4xf32>
// CHECK: llvm.store
tile.kernel @expression(%X: !tile.tensor<[16, 64], f32>, %Y: !tile.tensor<[16, 64], f32>, %O: !tile.tensor<[16, 64], f32>) attributes {threads = 256 : i64} {
  %c0 = arith.constant 0 : index
  %x = tile.load %X[%c0, %c0] : !tile.tensor<[16, 64], f32> -> tensor<16x64xf32>
  %y = tile.load %Y[%c0, %c0] : !tile.tensor<[16, 64], f32> -> tensor<16x64xf32>
  %half = arith.constant dense<0.5> : tensor<16x64xf32>
  %m = arith.mulf %x, %half : tensor<16x64xf32>
  %e = math.exp %y : tensor<16x64xf32>
  %s = arith.addf %m, %e : tensor<16x64xf32>
  %threshold = arith.constant 1.5 : f32
  %t = tile.splat %threshold : tensor<16x64xf32>
  %gt = arith.cmpf ogt, %s, %t : tensor<16x64xf32>
  %r = arith.select %gt, %s, %t : tensor<16x64xi1>, tensor<16x64xf32>
  tile.store %r, %O[%c0, %c0] : tensor<16x64xf32> -> !tile.tensor<[16, 64], f32>
  tile.return
}
