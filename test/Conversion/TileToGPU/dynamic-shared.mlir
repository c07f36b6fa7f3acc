// RUN: tile-opt %s --pass-pipeline='builtin.module(tile.kernel(tile-plan-shared,tile-insert-barriers),tile-to-gpu,canonicalize)' | FileCheck %s
// RUN: tile-translate --tile-to-manifest %s | FileCheck %s --check-prefix=MANIFEST
// RUN: tile-run --backend=emulate %s | FileCheck %s --check-prefix=EMULATE

// 60 KiB of shared tiles (rows of 120 reduce through shared memory) is more than a static array may hold (48 KiB):
// the kernel uses dynamic shared memory, which the launch opts in to.
// CHECK-LABEL: gpu.func @wide(
// CHECK-NOT: workgroup(
// CHECK: %[[BASE:.*]] = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
// CHECK: memref.view %[[BASE]][%{{.*}}][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<15360xf32, #gpu.address_space<workgroup>>
// MANIFEST: "dynamic_shared": true
// MANIFEST: "shared_bytes": 61440
// EMULATE: arg1 matches interp (128 elements)
tile.kernel @wide(%A: !tile.tensor<[128, 120], f32>, %M: !tile.tensor<[128, 1], f32>) attributes {threads = 1024 : i64} {
  %c0 = arith.constant 0 : index
  %a = tile.load %A[%c0, %c0] : !tile.tensor<[128, 120], f32> -> tensor<128x120xf32>
  %t = tile.var "t" = %a : !tile.var<128x120xf32>
  %r = tile.read %t : !tile.var<128x120xf32>
  %s = tile.rowsum %r : tensor<128x120xf32> -> tensor<128x1xf32>
  tile.store %s, %M[%c0, %c0] : tensor<128x1xf32> -> !tile.tensor<[128, 1], f32>
  tile.return
}
