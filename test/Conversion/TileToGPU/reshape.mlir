// RUN: tile-opt %s --pass-pipeline='builtin.module(tile.kernel(tile-plan-shared,tile-insert-barriers),tile-to-gpu,canonicalize,cse)' | FileCheck %s --implicit-check-not=tile.reshape --implicit-check-not=gpu.barrier --implicit-check-not=gpu.shuffle

// A reshape keeps every element in the thread that holds it (element e in
// thread e % threads, slot e / threads, in every shape): the per-thread
// slots go on as they are, with no shared memory, barrier or shuffle.
// CHECK-LABEL: gpu.func @flatten(
// CHECK-NOT: memref.alloca
// CHECK-NOT: workgroup
// CHECK: %[[X:.*]] = vector.from_elements %{{.*}}, %{{.*}} : vector<2xf32>
// CHECK: arith.mulf %[[X]], %{{.*}} : vector<2xf32>
tile.kernel @flatten(%X: !tile.tensor<[2, 64], f32>, %Y: !tile.tensor<[128], f32>) attributes {threads = 64 : i64} {
  %c0 = arith.constant 0 : index
  %x = tile.load %X[%c0, %c0] : !tile.tensor<[2, 64], f32> -> tensor<2x64xf32>
  %flat = tile.reshape %x : tensor<2x64xf32> -> tensor<128xf32>
  %two = arith.constant dense<2.0> : tensor<128xf32>
  %y = arith.mulf %flat, %two : tensor<128xf32>
  tile.store %y, %Y[%c0] : tensor<128xf32> -> !tile.tensor<[128], f32>
  tile.return
}
