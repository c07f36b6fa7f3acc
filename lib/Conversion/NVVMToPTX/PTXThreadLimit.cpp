//===- PTXThreadLimit.cpp - .maxntid only where it limits registers -------===//
//
// ptxas takes .maxntid as a target of CTAs an SM as well as a limit, and
// spills to reach two CTAs of 256 threads; up to 256 threads the limit
// allows every register a thread may have, so the directive goes.
//
//===----------------------------------------------------------------------===//

#include "tile/Conversion/Passes.h"
#include "tile/Dialect/Tile/IR/ChipLimits.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"

namespace mlir::tile {
#define GEN_PASS_DEF_TILEPTXTHREADLIMIT
#include "tile/Conversion/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;

namespace {
struct TilePTXThreadLimit
    : tile::impl::TilePTXThreadLimitBase<TilePTXThreadLimit> {
  void runOnOperation() override {
    StringRef name = NVVM::NVVMDialect::getMaxntidAttrName();
    for (auto func : getOperation().getOps<LLVM::LLVMFuncOp>()) {
      auto threads = func->getAttrOfType<DenseI32ArrayAttr>(name);
      if (!threads)
        continue;
      int64_t total = 1;
      for (int32_t extent : threads.asArrayRef())
        total *= extent;
      if (total <= tile::kMostThreadsWithEveryRegister)
        func->removeAttr(name);
    }
  }
};
} // namespace
