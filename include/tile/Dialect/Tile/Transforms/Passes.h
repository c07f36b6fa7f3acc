//===- Passes.h - tile dialect passes ---------------------------*- C++ -*-===//

#ifndef TILE_DIALECT_TILE_TRANSFORMS_PASSES_H
#define TILE_DIALECT_TILE_TRANSFORMS_PASSES_H

#include "mlir/Pass/Pass.h"

namespace mlir::tile {
class KernelOp;

/// What tile-plan-shared does to `kernel` (the storage of every tile var,
/// temporaries, offsets), without its report or its limit: the bytes of
/// shared memory the kernel needs, or failure with an error at an op.
FailureOr<int64_t> planSharedMemory(KernelOp kernel);
/// What tile-tensor-cores does to `kernel` for sm_`chip`, without its
/// remarks: which dots run on tensor cores, in which layouts.
void assignTensorCores(KernelOp kernel, int chip);

#define GEN_PASS_DECL
#include "tile/Dialect/Tile/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "tile/Dialect/Tile/Transforms/Passes.h.inc"
} // namespace mlir::tile

#endif // TILE_DIALECT_TILE_TRANSFORMS_PASSES_H
