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

/// `div.full.f32` of two f32 scalars (llvm.nvvm.div.full, which LLVM knows
/// is pure, so equal quotients fold and ptxas shares the reciprocal of a
/// common divisor).
static Value approximateDivision(OpBuilder &builder, Location loc, Value x,
                                 Value y) {
  return LLVM::CallIntrinsicOp::create(
             builder, loc, builder.getF32Type(),
             builder.getStringAttr("llvm.nvvm.div.full"), ValueRange{x, y})
      .getResult(0);
}

/// Replaces `op` by `scalar` applied to its operands, slot by slot where
/// they are rank-1 vectors (the lowering's slots); leaves an op of another
/// rank alone.
static void replaceByScalars(
    Operation *op,
    function_ref<Value(OpBuilder &, Location, ValueRange)> scalar) {
  OpBuilder builder(op);
  Location loc = op->getLoc();
  auto vector = dyn_cast<VectorType>(op->getResult(0).getType());
  if (vector && vector.getRank() != 1)
    return;
  Value result;
  if (!vector) {
    result = scalar(builder, loc, op->getOperands());
  } else {
    result = arith::ConstantOp::create(builder, loc, vector,
                                       builder.getZeroAttr(vector));
    for (int64_t slot = 0; slot < vector.getNumElements(); ++slot) {
      SmallVector<Value> elements;
      for (Value operand : op->getOperands())
        elements.push_back(
            vector::ExtractOp::create(builder, loc, operand, slot));
      result = vector::InsertOp::create(
          builder, loc, scalar(builder, loc, elements), result, slot);
    }
  }
  op->getResult(0).replaceAllUsesWith(result);
  op->erase();
}

namespace {
struct TileFastMath : mlir::tile::impl::TileFastMathBase<TileFastMath> {
  void runOnOperation() override {
    gpu::GPUModuleOp module = getOperation();
    bool hasTanh = getTargetChip(module) >= 75;
    SmallVector<Operation *> tanhs, divisions;
    module.walk([&](Operation *op) {
      if (auto tanh = dyn_cast<math::TanhOp>(op)) {
        Type element = getElementTypeOrSelf(tanh.getType());
        if (hasTanh && (element.isF16() || element.isBF16()))
          tanhs.push_back(op);
      } else if (auto division = dyn_cast<arith::DivFOp>(op)) {
        if (getElementTypeOrSelf(division.getType()).isF32() &&
            bitEnumContainsAll(division.getFastmath(),
                               arith::FastMathFlags::afn))
          divisions.push_back(op);
      }
    });
    for (Operation *op : tanhs)
      replaceByScalars(op, [](OpBuilder &builder, Location loc, ValueRange x) {
        return approximateTanh(builder, loc, x[0]);
      });
    for (Operation *op : divisions)
      replaceByScalars(op, [](OpBuilder &builder, Location loc, ValueRange xy) {
        return approximateDivision(builder, loc, xy[0], xy[1]);
      });
  }
};
} // namespace
