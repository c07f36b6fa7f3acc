//===- TileToGPU.h - tile kernels to gpu.func kernels -----------*- C++ -*-===//

#ifndef TILE_CONVERSION_TILETOGPU_TILETOGPU_H
#define TILE_CONVERSION_TILETOGPU_TILETOGPU_H

#include "tile/Conversion/TileToGPU/FloatDivision.h"
#include "tile/Dialect/Tile/IR/TileDialect.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"

namespace mlir::tile {

/// The gpu.module that holds every lowered kernel.
constexpr llvm::StringLiteral kGPUModuleName = "tile_kernels";
/// Shared memory above this is dynamic, opted in to at launch.
constexpr int64_t kMaxStaticSharedBytes = 48 * 1024;
/// The NVVM target features (PTX ISA version) for a chip.
std::string getPTXFeatures(int chip);
/// The chip `module` targets: the `sm_NN` of its #nvvm.target, else 0.
int getTargetChip(gpu::GPUModuleOp module);
/// The first chip with cp.async: sm_80. Below it an async copy is a plain
/// copy and its groups and waits are nothing (CUTLASS's SM < 80 path).
constexpr int kMinAsyncCopyChip = 80;

/// Lowers `kernel`, after tile-promote-registers, tile-plan-shared and
/// tile-insert-barriers, to a gpu.func kernel in `gpuModule` that follows
/// docs/abi.md. With `fpContract`, every float op may be fused with another
/// (fastmath `contract`: a multiply and an add become one FMA, rounded
/// once); without, each rounds on its own, in IEEE order. With
/// FloatDivision::Full, every f32 division carries fastmath `afn`, which
/// tile-fast-math turns into div.full.f32. Leaves the kernel in place;
/// fails with an error at the offending op.
LogicalResult lowerKernelToGPU(KernelOp kernel, gpu::GPUModuleOp gpuModule,
                               bool fpContract = true,
                               FloatDivision fpDiv = FloatDivision::IEEE);

/// The largest size, tensor element count and index scalar a kernel with
/// 32-bit index arithmetic takes: 2^31 - 1.
constexpr int64_t kMaxIndex32 = 2147483647;
/// The width of index arithmetic the kernels of `module` are compiled with
/// when `requested` (32 or 64) is asked for: 64 if asked, or if some kernel
/// names a number that 32 bits cannot hold (an index constant outside
/// [-2^31, 2^31), a static tensor of more than kMaxIndex32 elements),
/// whose arithmetic would wrap; else 32. Sizes and scalars given at launch
/// are checked there, against the manifest's `index_bits`.
unsigned chooseIndexBits(ModuleOp module, unsigned requested);

} // namespace mlir::tile

#endif // TILE_CONVERSION_TILETOGPU_TILETOGPU_H
