//===- ExternDynamicShared.cpp - dynamic shared memory as extern [] -------===//
//
// convert-gpu-to-nvvm gives gpu.dynamic_shared_memory an internal global
// of type [0 x i8] in address space 3, which NVPTX prints as a static
// `.shared .b8 NAME;` of one byte. PTX's dynamic shared memory is an extern
// array of no size; NVPTX prints that for an external global. In a module
// for sm_90a (a kernel on wgmma), 1024-byte aligned: wgmma's swizzled
// operands (tile.swizzle) are laid out from 1024-byte boundaries.
//
//===----------------------------------------------------------------------===//

#include "tile/Conversion/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"

namespace mlir::tile {
#define GEN_PASS_DEF_TILEEXTERNDYNAMICSHARED
#include "tile/Conversion/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;

namespace {
struct TileExternDynamicShared
    : mlir::tile::impl::TileExternDynamicSharedBase<TileExternDynamicShared> {
  void runOnOperation() override {
    bool wgmma = false;
    if (ArrayAttr targets = getOperation().getTargetsAttr())
      for (Attribute target : targets)
        if (auto nvvm = dyn_cast<NVVM::NVVMTargetAttr>(target))
          wgmma |= nvvm.getChip() == "sm_90a";
    for (auto global : getOperation().getOps<LLVM::GlobalOp>()) {
      auto array = dyn_cast<LLVM::LLVMArrayType>(global.getGlobalType());
      if (global.getAddrSpace() !=
              static_cast<unsigned>(NVVM::NVVMMemorySpace::Shared) ||
          !array || array.getNumElements() != 0 || global.getValueOrNull() ||
          global.getInitializerBlock())
        continue;
      global.setLinkage(LLVM::Linkage::External);
      // An external global has the default visibility.
      global.setVisibility_(LLVM::Visibility::Default);
      if (wgmma)
        global.setAlignment(
            std::max<uint64_t>(global.getAlignment().value_or(0), 1024));
    }
  }
};
} // namespace
