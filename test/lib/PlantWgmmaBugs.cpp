//===- PlantWgmmaBugs.cpp - wgmma bugs in lowered kernels -----------------===//
//
// Test-only passes that break a correct dot on wgmma (LowerWgmma.cpp) the
// way a wrong lowering would; the emulator catches each (ExecWgmma.cpp).
//
//===----------------------------------------------------------------------===//

#include "TestPasses.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassRegistry.h"

using namespace mlir;

namespace {
/// Erases every wgmma.wait_group: the accumulator is read, and the operands
/// overwritten, while the mma_asyncs that write and read them may still
/// run.
struct DropWgmmaWaits : PassWrapper<DropWgmmaWaits, OperationPass<>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(DropWgmmaWaits)
  StringRef getArgument() const final { return "tile-test-drop-wgmma-waits"; }
  StringRef getDescription() const final {
    return "test only: erase every nvvm.wgmma.wait.group.sync.aligned";
  }
  void runOnOperation() override {
    getOperation()->walk([](NVVM::WgmmaWaitGroupSyncOp wait) { wait.erase(); });
  }
};

/// Gives every wgmma.mma_async descriptor a swizzle other than the one its
/// data is laid out in (128B <-> 64B, 32B -> 128B, none stays): the
/// descriptor's bits 62-63 XORed with 3 where they say 1 or 2, set to 1
/// where they say 3. The matrices read are then permuted: the emulator's
/// result differs from the reference's.
struct WrongSwizzle : PassWrapper<WrongSwizzle, OperationPass<>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(WrongSwizzle)
  StringRef getArgument() const final { return "tile-test-wrong-swizzle"; }
  StringRef getDescription() const final {
    return "test only: build every wgmma.mma_async descriptor with another "
           "swizzle than its data's";
  }
  void getDependentDialects(DialectRegistry &registry) const override {
    registry.insert<arith::ArithDialect>();
  }
  void runOnOperation() override {
    getOperation()->walk([](NVVM::WgmmaMmaAsyncOp mma) {
      for (OpOperand *operand :
           {&mma.getDescriptorAMutable(), &mma.getDescriptorBMutable()}) {
        OpBuilder builder(mma);
        Location loc = mma.getLoc();
        Type i64 = builder.getI64Type();
        auto constant = [&](uint64_t value) {
          return arith::ConstantIntOp::create(builder, loc, i64,
                                              static_cast<int64_t>(value))
              .getResult();
        };
        // mode 1 (128B) -> 2 (64B), 2 -> 1, 3 (32B) -> 1; 0 stays.
        Value mode =
            arith::ShRUIOp::create(builder, loc, operand->get(), constant(62));
        Value isNarrowest = arith::CmpIOp::create(
            builder, loc, arith::CmpIPredicate::eq, mode, constant(3));
        Value swapped = arith::SelectOp::create(
            builder, loc, isNarrowest, constant(1),
            arith::XOrIOp::create(
                builder, loc, mode,
                arith::SelectOp::create(
                    builder, loc,
                    arith::CmpIOp::create(builder, loc,
                                          arith::CmpIPredicate::eq, mode,
                                          constant(0)),
                    constant(0), constant(3))));
        Value cleared = arith::AndIOp::create(
            builder, loc, operand->get(), constant((uint64_t(1) << 62) - 1));
        operand->set(arith::OrIOp::create(
            builder, loc, cleared,
            arith::ShLIOp::create(builder, loc, swapped, constant(62))));
      }
    });
  }
};

template <typename Visit> void forEachWgmmaBugPlanter(Visit visit) {
  visit(DropWgmmaWaits());
  visit(WrongSwizzle());
}
} // namespace

void mlir::tile::registerWgmmaBugPlanters() {
  forEachWgmmaBugPlanter([](auto pass) { PassRegistration<decltype(pass)>(); });
}

void mlir::tile::appendWgmmaBugPlanters(
    std::vector<std::pair<std::string, std::string>> &bugs) {
  forEachWgmmaBugPlanter([&](const auto &pass) {
    bugs.emplace_back(pass.getArgument().str(), pass.getDescription().str());
  });
}
