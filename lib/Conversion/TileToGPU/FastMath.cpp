//===- FastMath.cpp - hardware fast paths for math, where results allow ---===//

#include "tile/Conversion/Passes.h"
#include "tile/Conversion/TileToGPU/TileToGPU.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Builders.h"

namespace mlir::tile {
#define GEN_PASS_DEF_TILEFASTMATH
#include "tile/Conversion/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;
using namespace mlir::tile;

/// The chip the module targets: the `sm_NN` of its #nvvm.target, else 0.
static int getTargetChip(gpu::GPUModuleOp module) {
  if (ArrayAttr targets = module.getTargetsAttr())
    for (Attribute target : targets)
      if (auto nvvm = dyn_cast<NVVM::NVVMTargetAttr>(target))
        if (FailureOr<int> chip = parseChip(nvvm.getChip()); succeeded(chip))
          return *chip;
  return 0;
}

/// `tanh.approx.f32` of one f16/bf16 scalar, through f32.
static Value approximateTanh(OpBuilder &builder, Location loc, Value x) {
  Type f32 = builder.getF32Type();
  Value wide = arith::ExtFOp::create(builder, loc, f32, x);
  auto tanh = LLVM::InlineAsmOp::create(
      builder, loc, f32, ValueRange{wide}, "tanh.approx.f32 $0, $1;", "=f,f",
      /*has_side_effects=*/false, /*is_align_stack=*/false,
      LLVM::tailcallkind::TailCallKind::None,
      /*asm_dialect=*/LLVM::AsmDialectAttr(),
      /*operand_attrs=*/ArrayAttr());
  return arith::TruncFOp::create(builder, loc, x.getType(), tanh.getResult(0));
}

namespace {
struct TileFastMath : tile::impl::TileFastMathBase<TileFastMath> {
  void runOnOperation() override {
    gpu::GPUModuleOp module = getOperation();
    if (getTargetChip(module) < 75)
      return;
    SmallVector<math::TanhOp> tanhs;
    module.walk([&](math::TanhOp op) {
      Type element = getElementTypeOrSelf(op.getType());
      if (element.isF16() || element.isBF16())
        tanhs.push_back(op);
    });
    for (math::TanhOp op : tanhs) {
      OpBuilder builder(op);
      Location loc = op.getLoc();
      Value input = op.getOperand();
      auto vector = dyn_cast<VectorType>(input.getType());
      if (!vector) {
        op.replaceAllUsesWith(approximateTanh(builder, loc, input));
        op.erase();
        continue;
      }
      if (vector.getRank() != 1)
        continue; // the lowering makes only rank-1 vectors of slots
      Value result = arith::ConstantOp::create(builder, loc, vector,
                                               builder.getZeroAttr(vector));
      for (int64_t slot = 0; slot < vector.getNumElements(); ++slot) {
        Value element = vector::ExtractOp::create(builder, loc, input, slot);
        result = vector::InsertOp::create(
            builder, loc, approximateTanh(builder, loc, element), result, slot);
      }
      op.replaceAllUsesWith(result);
      op.erase();
    }
  }
};
} // namespace
