//===- PlantBugs.cpp - passes that plant bugs in lowered kernels ----------===//

#include "TestPasses.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassRegistry.h"

using namespace mlir;

namespace {
/// Erases every gpu.barrier: a missing barrier, which the race check finds.
struct DropBarriers : PassWrapper<DropBarriers, OperationPass<>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(DropBarriers)
  StringRef getArgument() const final { return "tile-test-drop-barriers"; }
  StringRef getDescription() const final {
    return "test only: erase every gpu.barrier";
  }
  void runOnOperation() override {
    getOperation()->walk([](gpu::BarrierOp barrier) { barrier.erase(); });
  }
};

/// Doubles the offset of every gpu.shuffle: lanes read the wrong lanes.
/// (Adding 1 would not do: a butterfly over xor 17, 9, 5, 3, 2 still sums
/// all 32 lanes, as those offsets still span them.)
struct BreakShuffle : PassWrapper<BreakShuffle, OperationPass<>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(BreakShuffle)
  StringRef getArgument() const final { return "tile-test-break-shuffle"; }
  StringRef getDescription() const final {
    return "test only: double the offset of every gpu.shuffle";
  }
  void getDependentDialects(DialectRegistry &registry) const override {
    registry.insert<arith::ArithDialect>();
  }
  void runOnOperation() override {
    getOperation()->walk([](gpu::ShuffleOp shuffle) {
      OpBuilder builder(shuffle);
      Location loc = shuffle.getLoc();
      Value one =
          arith::ConstantOp::create(builder, loc, builder.getI32IntegerAttr(1));
      Value offset =
          arith::ShLIOp::create(builder, loc, shuffle.getOffset(), one);
      shuffle.getOffsetMutable().assign(offset);
    });
  }
};

/// Makes every scf.if that guards a global load or store unconditional: a
/// slice that crosses a tensor's edge then reads or writes outside it.
struct DropBoundMasks : PassWrapper<DropBoundMasks, OperationPass<>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(DropBoundMasks)
  StringRef getArgument() const final { return "tile-test-drop-bound-masks"; }
  StringRef getDescription() const final {
    return "test only: make every scf.if around an llvm.load/llvm.store "
           "unconditional";
  }
  void getDependentDialects(DialectRegistry &registry) const override {
    registry.insert<arith::ArithDialect>();
  }
  void runOnOperation() override {
    getOperation()->walk([](scf::IfOp branch) {
      bool guardsGlobalAccess = false;
      branch.getThenRegion().walk([&](Operation *op) {
        guardsGlobalAccess |= isa<LLVM::LoadOp, LLVM::StoreOp>(op);
      });
      if (!guardsGlobalAccess)
        return;
      OpBuilder builder(branch);
      branch.getConditionMutable().assign(arith::ConstantOp::create(
          builder, branch.getLoc(), builder.getBoolAttr(true)));
    });
  }
};
} // namespace

void mlir::tile::registerEmulatorTestPasses() {
  PassRegistration<DropBarriers>();
  PassRegistration<BreakShuffle>();
  PassRegistration<DropBoundMasks>();
}
