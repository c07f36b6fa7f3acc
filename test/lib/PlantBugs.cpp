//===- PlantBugs.cpp - passes that plant bugs in lowered kernels ----------===//

#include "TestPasses.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
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

/// Makes every scf.if that guards a global load, store or atomic update
/// unconditional: a slice that crosses a tensor's edge, or a gather's,
/// scatter's or atomic's index outside it, then reaches outside it.
struct DropBoundMasks : PassWrapper<DropBoundMasks, OperationPass<>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(DropBoundMasks)
  StringRef getArgument() const final { return "tile-test-drop-bound-masks"; }
  StringRef getDescription() const final {
    return "test only: make every scf.if around an llvm.load, llvm.store "
           "or atomic unconditional";
  }
  void getDependentDialects(DialectRegistry &registry) const override {
    registry.insert<arith::ArithDialect>();
  }
  void runOnOperation() override {
    getOperation()->walk([](scf::IfOp branch) {
      bool guardsGlobalAccess = false;
      branch.getThenRegion().walk([&](Operation *op) {
        guardsGlobalAccess |= isa<LLVM::LoadOp, LLVM::StoreOp,
                                  LLVM::AtomicRMWOp, LLVM::AtomicCmpXchgOp>(op);
      });
      if (!guardsGlobalAccess)
        return;
      OpBuilder builder(branch);
      branch.getConditionMutable().assign(arith::ConstantOp::create(
          builder, branch.getLoc(), builder.getBoolAttr(true)));
    });
  }
};
/// Erases every cp.async.wait_group: copies are read before they land.
struct DropAsyncWaits : PassWrapper<DropAsyncWaits, OperationPass<>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(DropAsyncWaits)
  StringRef getArgument() const final { return "tile-test-drop-async-waits"; }
  StringRef getDescription() const final {
    return "test only: erase every nvvm.cp.async.wait.group";
  }
  void runOnOperation() override {
    getOperation()->walk([](NVVM::CpAsyncWaitGroupOp wait) { wait.erase(); });
  }
};

/// Makes every cp.async.wait_group leave one more group pending: a wait of
/// the wrong depth, which covers too few groups.
struct ShallowAsyncWaits : PassWrapper<ShallowAsyncWaits, OperationPass<>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(ShallowAsyncWaits)
  StringRef getArgument() const final {
    return "tile-test-shallow-async-waits";
  }
  StringRef getDescription() const final {
    return "test only: add 1 to the groups every nvvm.cp.async.wait.group "
           "leaves pending";
  }
  void runOnOperation() override {
    getOperation()->walk(
        [](NVVM::CpAsyncWaitGroupOp wait) { wait.setN(wait.getN() + 1); });
  }
};

/// Erases the first gpu.barrier after each cp.async.wait_group in its
/// block: other threads then read what a thread's copies wrote unordered.
struct DropBarriersAfterWaits
    : PassWrapper<DropBarriersAfterWaits, OperationPass<>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(DropBarriersAfterWaits)
  StringRef getArgument() const final {
    return "tile-test-drop-barriers-after-waits";
  }
  StringRef getDescription() const final {
    return "test only: erase the first gpu.barrier after every "
           "nvvm.cp.async.wait.group of its block";
  }
  void runOnOperation() override {
    SmallVector<gpu::BarrierOp> barriers;
    getOperation()->walk([&](NVVM::CpAsyncWaitGroupOp wait) {
      for (Operation *op = wait->getNextNode(); op; op = op->getNextNode())
        if (auto barrier = dyn_cast<gpu::BarrierOp>(op)) {
          barriers.push_back(barrier);
          break;
        }
    });
    for (gpu::BarrierOp barrier : barriers)
      barrier.erase();
  }
};

/// Swaps the two K halves of every mma.sync's A fragment (its registers
/// {a0, a1}, {a2, a3} with {a4, a5}, {a6, a7}): each lane's A elements are
/// multiplied with the B elements of the other half of K.
struct SwapMmaHalves : PassWrapper<SwapMmaHalves, OperationPass<>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(SwapMmaHalves)
  StringRef getArgument() const final { return "tile-test-swap-mma-halves"; }
  StringRef getDescription() const final {
    return "test only: swap the K halves of every nvgpu.mma.sync's A "
           "fragment";
  }
  void getDependentDialects(DialectRegistry &registry) const override {
    registry.insert<vector::VectorDialect>();
  }
  void runOnOperation() override {
    getOperation()->walk([](nvgpu::MmaSyncOp mma) {
      auto type = cast<VectorType>(mma.getMatrixA().getType());
      if (type.getShape()[0] != 4)
        return;
      OpBuilder builder(mma);
      Location loc = mma.getLoc();
      SmallVector<Value> elements;
      for (int64_t row : {2, 3, 0, 1})
        for (int64_t column = 0; column < type.getShape()[1]; ++column)
          elements.push_back(vector::ExtractOp::create(
              builder, loc, mma.getMatrixA(), ArrayRef<int64_t>{row, column}));
      mma.getMatrixAMutable().assign(
          vector::FromElementsOp::create(builder, loc, type, elements));
    });
  }
};

/// Drops .trans from every ldmatrix that has it: B's fragments hold B
/// transposed.
struct TransposeMmaB : PassWrapper<TransposeMmaB, OperationPass<>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(TransposeMmaB)
  StringRef getArgument() const final { return "tile-test-transpose-mma-b"; }
  StringRef getDescription() const final {
    return "test only: drop .trans from every nvgpu.ldmatrix";
  }
  void runOnOperation() override {
    getOperation()->walk([](nvgpu::LdMatrixOp load) {
      if (load.getTranspose())
        load.setTranspose(false);
    });
  }
};

/// Drops the row padding tile-plan-shared gave tensor-core operands (after
/// the plan, before tile-to-gpu: every access of the var then uses the
/// unpadded pitch, inside the padded buffer), so the bank-conflict count
/// shows what the padding saves.
struct DropPadding : PassWrapper<DropPadding, OperationPass<>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(DropPadding)
  StringRef getArgument() const final { return "tile-test-drop-padding"; }
  StringRef getDescription() const final {
    return "test only: drop tile.padding from every tile.var";
  }
  void runOnOperation() override {
    // By name: the test passes do not link the dialect.
    getOperation()->walk([](Operation *op) {
      if (op->getName().getStringRef() == "tile.var")
        op->removeAttr("tile.padding");
    });
  }
};
/// Adds one ulp to every f32 quotient (arith.divf of f32, scalar or
/// vector): a division off by the least it can be, which the check must
/// catch where the quotient is exact (fp-div=ieee) and allow where it is
/// div.full.f32's (fp-div=full).
struct NudgeQuotients : PassWrapper<NudgeQuotients, OperationPass<>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(NudgeQuotients)
  StringRef getArgument() const final { return "tile-test-nudge-quotients"; }
  StringRef getDescription() const final {
    return "test only: add one ulp to every f32 arith.divf";
  }
  void getDependentDialects(DialectRegistry &registry) const override {
    registry.insert<arith::ArithDialect>();
  }
  void runOnOperation() override {
    getOperation()->walk([](arith::DivFOp division) {
      Type type = division.getType();
      if (!getElementTypeOrSelf(type).isF32())
        return;
      OpBuilder builder(division->getContext());
      builder.setInsertionPointAfter(division);
      Location loc = division.getLoc();
      Type bits = builder.getI32Type();
      if (auto vector = dyn_cast<VectorType>(type))
        bits = vector.clone(bits);
      Value one = arith::ConstantOp::create(builder, loc, bits,
                                            builder.getOneAttr(bits));
      Value word = arith::BitcastOp::create(builder, loc, bits, division);
      Value next = arith::AddIOp::create(builder, loc, word, one);
      Value nudged = arith::BitcastOp::create(builder, loc, type, next);
      division.getResult().replaceAllUsesExcept(nudged, word.getDefiningOp());
    });
  }
};
} // namespace

/// Every bug planter, for registration and for the list tools show.
template <typename Visit> static void forEachPlantedBug(Visit visit) {
  visit(DropBarriers());
  visit(BreakShuffle());
  visit(DropBoundMasks());
  visit(DropAsyncWaits());
  visit(ShallowAsyncWaits());
  visit(DropBarriersAfterWaits());
  visit(SwapMmaHalves());
  visit(TransposeMmaB());
  visit(DropPadding());
  visit(NudgeQuotients());
}

void mlir::tile::registerEmulatorTestPasses() {
  forEachPlantedBug([](auto pass) { PassRegistration<decltype(pass)>(); });
  registerWgmmaBugPlanters();
}

std::vector<std::pair<std::string, std::string>> mlir::tile::getPlantedBugs() {
  std::vector<std::pair<std::string, std::string>> bugs;
  forEachPlantedBug([&](const auto &pass) {
    bugs.emplace_back(pass.getArgument().str(), pass.getDescription().str());
  });
  appendWgmmaBugPlanters(bugs);
  return bugs;
}
