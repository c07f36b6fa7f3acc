//===- TileToGPU.h - tile kernels to gpu.func kernels -----------*- C++ -*-===//

#ifndef TILE_CONVERSION_TILETOGPU_TILETOGPU_H
#define TILE_CONVERSION_TILETOGPU_TILETOGPU_H

#include "tile/Dialect/Tile/IR/TileDialect.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"

namespace mlir::tile {

/// The gpu.module that holds every lowered kernel.
constexpr llvm::StringLiteral kGPUModuleName = "tile_kernels";
/// Shared memory above this is dynamic, opted in to at launch.
constexpr int64_t kMaxStaticSharedBytes = 48 * 1024;
/// The NVVM target features (PTX ISA version) for a chip.
std::string getPTXFeatures(int chip);

/// Lowers `kernel`, after tile-promote-registers, tile-plan-shared and
/// tile-insert-barriers, to a gpu.func kernel in `gpuModule` that follows
/// docs/abi.md. With `fpContract`, every float op may be fused with another
/// (fastmath `contract`: a multiply and an add become one FMA, rounded
/// once); without, each rounds on its own, in IEEE order. Leaves the kernel
/// in place; fails with an error at the offending op.
LogicalResult lowerKernelToGPU(KernelOp kernel, gpu::GPUModuleOp gpuModule,
                               bool fpContract = true);

} // namespace mlir::tile

#endif // TILE_CONVERSION_TILETOGPU_TILETOGPU_H
