//===- BF16Mma.cpp - nvgpu.mma.sync of bf16 to nvvm.mma.sync --------------===//
//
// convert-nvgpu-to-nvvm (MLIR 22) lowers nvgpu.mma.sync of f16, tf32, f64
// and integers, but not of bf16, which nvvm.mma.sync and PTX have
// (mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32). tile-to-gpu emits
// nvgpu.mma.sync for every type, so that the emulator models one op; this
// pass lowers the bf16 ones itself, after emulation's cut and before
// convert-nvgpu-to-nvvm: each 32-bit register of A and B (two bf16 of a
// fragment row) is an i32 operand, C's four f32 are scalars, and the result
// struct becomes the vector<2x2xf32> again.
//
//===----------------------------------------------------------------------===//

#include "tile/Conversion/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Builders.h"

namespace mlir::tile {
#define GEN_PASS_DEF_TILEBF16MMATONVVM
#include "tile/Conversion/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;
using namespace mlir::tile;

/// The 32-bit registers of a fragment of rows of two 16-bit elements, as
/// i32 values.
static SmallVector<Value> registersOf(OpBuilder &builder, Location loc,
                                      Value fragment) {
  auto type = cast<VectorType>(fragment.getType());
  auto word = VectorType::get({1}, builder.getI32Type());
  SmallVector<Value> registers;
  for (int64_t row = 0; row < type.getDimSize(0); ++row) {
    Value pair = vector::ExtractOp::create(builder, loc, fragment, row);
    Value bits = vector::BitCastOp::create(builder, loc, word, pair);
    registers.push_back(vector::ExtractOp::create(builder, loc, bits, 0));
  }
  return registers;
}

namespace {
struct TileBF16MmaToNVVM
    : mlir::tile::impl::TileBF16MmaToNVVMBase<TileBF16MmaToNVVM> {
  void runOnOperation() override {
    WalkResult walked = getOperation().walk([](nvgpu::MmaSyncOp mma) {
      if (!mma.getMatrixA().getType().getElementType().isBF16())
        return WalkResult::advance();
      auto result = cast<VectorType>(mma.getRes().getType());
      if (mma.getMmaShapeAsArray() != std::array<int64_t, 3>{16, 8, 16} ||
          !result.getElementType().isF32()) {
        mma.emitOpError("of bf16 is lowered for m16n8k16 accumulating in f32 "
                        "only");
        return WalkResult::interrupt();
      }
      OpBuilder builder(mma);
      Location loc = mma.getLoc();
      SmallVector<Value> c;
      for (int64_t row = 0; row < 2; ++row)
        for (int64_t column = 0; column < 2; ++column)
          c.push_back(vector::ExtractOp::create(
              builder, loc, mma.getMatrixC(), ArrayRef<int64_t>{row, column}));
      Type f32 = builder.getF32Type();
      auto structType = LLVM::LLVMStructType::getLiteral(builder.getContext(),
                                                         {f32, f32, f32, f32});
      SmallVector<Value> b = registersOf(builder, loc, mma.getMatrixB());
      SmallVector<Value> a = registersOf(builder, loc, mma.getMatrixA());
      auto nvvm =
          NVVM::MmaOp::create(builder, loc, structType, a, b, c, {16, 8, 16},
                              std::nullopt, std::nullopt,
                              std::array<NVVM::MMATypes, 2>{
                                  NVVM::MMATypes::bf16, NVVM::MMATypes::bf16},
                              std::array<NVVM::MMALayout, 2>{
                                  NVVM::MMALayout::row, NVVM::MMALayout::col});
      SmallVector<Value> d;
      for (int64_t i = 0; i < 4; ++i)
        d.push_back(LLVM::ExtractValueOp::create(builder, loc, nvvm, i));
      mma.replaceAllUsesWith(
          vector::FromElementsOp::create(builder, loc, result, d).getResult());
      mma.erase();
      return WalkResult::advance();
    });
    if (walked.wasInterrupted())
      signalPassFailure();
  }
};
} // namespace
