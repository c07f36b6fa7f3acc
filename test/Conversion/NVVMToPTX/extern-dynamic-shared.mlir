// RUN: tile-opt %s --pass-pipeline='builtin.module(gpu.module(tile-extern-dynamic-shared))' | FileCheck %s
// RUN: tile-translate --tile-to-ptx %S/../TileToGPU/dynamic-shared.mlir | FileCheck %s --check-prefix=PTX

// convert-gpu-to-nvvm's global for gpu.dynamic_shared_memory is internal,
// which NVPTX prints as one static byte of shared memory; external, it is
// PTX's dynamic shared memory. Other shared globals stay as they are.
// CHECK: llvm.mlir.global external @__dynamic_shmem__0() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<0 x i8>
// CHECK: llvm.mlir.global internal @static_tile() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<64 x i8>
// CHECK: llvm.mlir.global internal @other_space() {addr_space = 1 : i32} : !llvm.array<0 x i8>
// PTX: .extern .shared .align 16 .b8 __dynamic_shmem__0[];
// PTX-NOT: .shared .align 16 .b8 __dynamic_shmem__0;
module attributes {gpu.container_module} {
  gpu.module @kernels {
    llvm.mlir.global internal @__dynamic_shmem__0() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<0 x i8>
    llvm.mlir.global internal @static_tile() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<64 x i8>
    llvm.mlir.global internal @other_space() {addr_space = 1 : i32} : !llvm.array<0 x i8>
  }
}
