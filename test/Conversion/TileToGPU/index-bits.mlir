// RUN: tile-opt %s --split-input-file --pass-pipeline='builtin.module(tile.kernel(tile-plan-shared,tile-assign-layouts,tile-insert-barriers),tile-to-gpu{index-bits=32})' | FileCheck %s
// RUN: tile-opt %s --split-input-file --pass-pipeline='builtin.module(tile.kernel(tile-plan-shared,tile-assign-layouts,tile-insert-barriers),tile-to-gpu{index-bits=32},gpu.module(convert-scf-to-cf,convert-gpu-to-nvvm))' | FileCheck %s --check-prefix=NVVM
// RUN: tile-opt %s --split-input-file --pass-pipeline='builtin.module(tile.kernel(tile-plan-shared,tile-assign-layouts,tile-insert-barriers),tile-to-gpu)' | FileCheck %s --check-prefix=WIDE
// RUN: not tile-opt %s --split-input-file --pass-pipeline='builtin.module(tile.kernel(tile-plan-shared,tile-assign-layouts,tile-insert-barriers),tile-to-gpu{index-bits=48})' 2>&1 | FileCheck %s --check-prefix=BAD

// With index-bits=32 the gpu.module's data layout makes index 32 bits
// wide, and convert-gpu-to-nvvm lowers the index arithmetic to i32: the
// symbol still arrives as an i64 (docs/abi.md) and is truncated, the loop
// and the bounds compare i32. By default (64) there is no data layout.
// CHECK: gpu.module @tile_kernels {{.*}}attributes {dlti.dl_spec = #dlti.dl_spec<index = 32 : i64>}
// CHECK-LABEL: gpu.func @scale
// NVVM-LABEL: llvm.func @scale
// NVVM-SAME: %{{.*}}: i64
// NVVM: llvm.trunc %{{.*}} : i64 to i32
// NVVM: llvm.icmp "slt" %{{.*}}, %{{.*}} : i32
// NVVM: llvm.sext %{{.*}} : i32 to i64
// NVVM: llvm.getelementptr
// WIDE-NOT: dlti.dl_spec
// WIDE-LABEL: gpu.func @scale
// BAD: error: index-bits must be 32 or 64, not 48
tile.kernel @scale(%X: !tile.tensor<[M, N], f32>, %Y: !tile.tensor<[M, N], f32>) attributes {threads = 128 : i64} {
  %c0 = arith.constant 0 : index
  %c128 = arith.constant 128 : index
  %N = tile.dim %X[1] : !tile.tensor<[M, N], f32>
  scf.for %col = %c0 to %N step %c128 {
    %x = tile.load %X[%c0, %col] : !tile.tensor<[M, N], f32> -> tensor<16x128xf32>
    %y = arith.mulf %x, %x : tensor<16x128xf32>
    tile.store %y, %Y[%c0, %col] : tensor<16x128xf32> -> !tile.tensor<[M, N], f32>
  }
  tile.return
}

// -----

// A kernel that names a number beyond 32 bits (an index constant of 2^31,
// a static tensor of 2^31 elements) keeps 64-bit index arithmetic: 32 bits
// would wrap it.
// CHECK-NOT: dlti.dl_spec
// CHECK-LABEL: gpu.func @far
// NVVM-LABEL: llvm.func @far
// NVVM: llvm.icmp {{.*}} : i64
tile.kernel @far(%X: !tile.tensor<[16, K], f32>, %O: !tile.tensor<[16, 64], f32>) attributes {threads = 128 : i64} {
  %c0 = arith.constant 0 : index
  %far = arith.constant 2147483648 : index
  %x = tile.load %X[%c0, %far] : !tile.tensor<[16, K], f32> -> tensor<16x64xf32>
  tile.store %x, %O[%c0, %c0] : tensor<16x64xf32> -> !tile.tensor<[16, 64], f32>
  tile.return
}

// -----

// CHECK-NOT: dlti.dl_spec
// CHECK-LABEL: gpu.func @huge
tile.kernel @huge(%X: !tile.tensor<[65536, 32768], f32>, %O: !tile.tensor<[16, 64], f32>) attributes {threads = 128 : i64} {
  %c0 = arith.constant 0 : index
  %x = tile.load %X[%c0, %c0] : !tile.tensor<[65536, 32768], f32> -> tensor<16x64xf32>
  tile.store %x, %O[%c0, %c0] : tensor<16x64xf32> -> !tile.tensor<[16, 64], f32>
  tile.return
}
