//===- VerifyLowered.cpp - reject IR the lowering to PTX cannot take ------===//
//
// The verifiers accept some IR that MLIR's conversions and the NVPTX
// backend then crash on, abort on, or take minutes and gigabytes over.
// Checked here, before anything is lowered, as located errors (Passes.td).
//
//===----------------------------------------------------------------------===//

#include "tile/Conversion/Passes.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMTypes.h"
#include "mlir/IR/BuiltinTypes.h"

namespace mlir::tile {
#define GEN_PASS_DEF_TILEVERIFYLOWERED
#include "tile/Conversion/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;

/// The most elements of a vector type the lowering takes (docs/spec.md,
/// "Limits"): far above the 16 bytes tile's own accesses use, far below
/// where LLVM's unrolling runs out of room.
static constexpr int64_t kMaxVectorElements = 1024;

namespace {
struct TileVerifyLowered
    : tile::impl::TileVerifyLoweredBase<TileVerifyLowered> {
  void runOnOperation() override {
    WalkResult walked = getOperation()->walk([](Operation *op) {
      return failed(verify(op)) ? WalkResult::interrupt()
                                : WalkResult::advance();
    });
    if (walked.wasInterrupted())
      signalPassFailure();
  }

  /// The first vector type in `type` (itself, or nested in a function or
  /// struct type) of more than kMaxVectorElements elements, or null.
  static VectorType findHugeVector(Type type) {
    VectorType huge;
    type.walk([&](VectorType vector) {
      if (!huge &&
          (vector.isScalable() || vector.getNumElements() > kMaxVectorElements))
        huge = vector;
    });
    return huge;
  }

  static LogicalResult verify(Operation *op) {
    SmallVector<Type> types(op->getOperandTypes());
    llvm::append_range(types, op->getResultTypes());
    for (Region &region : op->getRegions())
      for (Block &block : region)
        llvm::append_range(types, block.getArgumentTypes());
    for (NamedAttribute attribute : op->getAttrs())
      attribute.getValue().walk([&](Type type) { types.push_back(type); });
    for (Type type : types)
      if (VectorType huge = findHugeVector(type))
        return op->emitOpError("uses ")
               << huge << ", a vector of more than " << kMaxVectorElements
               << " elements, which the lowering to PTX does not take";
    if (!isa_and_nonnull<LLVM::LLVMDialect>(op->getDialect()))
      return success();
    // A type an llvm op names (an element type, a global's type); an
    // attribute's own type, as `llvm.mlir.constant(0 : index)`'s, is fine.
    for (NamedAttribute attribute : op->getAttrs()) {
      auto type = dyn_cast<TypeAttr>(attribute.getValue());
      if (type && !LLVM::isCompatibleType(type.getValue()))
        return op->emitOpError("has the type ")
               << type.getValue() << " as its '" << attribute.getName().str()
               << "', which LLVM does not have (use an integer of the "
                  "index's width)";
    }
    return success();
  }
};
} // namespace
