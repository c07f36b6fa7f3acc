//===- TestAnalyses.cpp - passes that print the tile analyses -------------===//
//
// Test-only passes that print what an analysis computes, per op or value of
// each kernel, so that each analysis is tested alone (as MLIR's
// test-print-liveness and Triton's test-print-allocation, -membar and
// -alignment are): -tile-test-print-thread-mapping, -layouts,
// -divisibility, -allocation and -barriers. They change nothing.
//
// Every line names an op by its source position and name ("12:5
// tile.load"), positions that a test's [[# @LINE]] pins down; the text goes
// to standard error, in program order, after a header naming the kernel.
//
//===----------------------------------------------------------------------===//

#include "TestPasses.h"

#include "tile/Analysis/Allocation.h"
#include "tile/Analysis/Barriers.h"
#include "tile/Analysis/Divisibility.h"
#include "tile/Analysis/ThreadMapping.h"
#include "tile/Dialect/Tile/IR/Layouts.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassRegistry.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::tile;

namespace {

/// `LINE:COLUMN NAME` of `op`, from the first file position in its
/// location ("?" when it has none).
std::string describe(Operation *op) {
  std::string text = "?";
  op->getLoc()->walk([&](Location loc) {
    auto position = dyn_cast<FileLineColLoc>(loc);
    if (!position)
      return WalkResult::advance();
    text = std::to_string(position.getLine()) + ":" +
           std::to_string(position.getColumn());
    return WalkResult::interrupt();
  });
  return text + " " + op->getName().getStringRef().str();
}

/// How `value` is named after its op: the op alone for its only result,
/// `result N` otherwise, `iter_arg N` / `induction variable` for a loop's
/// block arguments.
std::string describe(Value value) {
  if (auto argument = dyn_cast<BlockArgument>(value)) {
    Operation *owner = argument.getOwner()->getParentOp();
    if (auto loop = dyn_cast<scf::ForOp>(owner)) {
      if (value == loop.getInductionVar())
        return describe(owner) + " induction variable";
      return describe(owner) + " iter_arg " +
             std::to_string(argument.getArgNumber() - 1);
    }
    if (isa<KernelOp>(owner))
      return "argument " + std::to_string(argument.getArgNumber());
    return describe(owner) + " block argument " +
           std::to_string(argument.getArgNumber());
  }
  Operation *op = value.getDefiningOp();
  std::string text = describe(op);
  if (auto var = dyn_cast<VarOp>(op))
    text += " \"" + var.getName().str() + "\"";
  if (op->getNumResults() != 1)
    text +=
        " result " + std::to_string(cast<OpResult>(value).getResultNumber());
  return text;
}

/// The values each op of `kernel` defines and the block arguments of its
/// loops, in program order.
void forEachValue(KernelOp kernel, function_ref<void(Value)> visit) {
  kernel.getBody().walk<WalkOrder::PreOrder>([&](Operation *op) {
    for (Value result : op->getResults())
      visit(result);
    for (Region &region : op->getRegions())
      for (Block &block : region)
        for (BlockArgument argument : block.getArguments())
          visit(argument);
  });
}

/// The base of the printing passes: prints a header per kernel and calls
/// `print` for it.
template <typename Derived>
struct PrintAnalysis : PassWrapper<Derived, OperationPass<ModuleOp>> {
  void runOnOperation() override {
    auto &self = static_cast<Derived &>(*this);
    for (KernelOp kernel : this->getOperation().template getOps<KernelOp>()) {
      llvm::errs() << self.getHeading() << " of @" << kernel.getSymName()
                   << " (" << kernel.getThreads() << " threads)\n";
      if (failed(self.print(kernel, llvm::errs())))
        return this->signalPassFailure();
    }
  }
};

StringRef stringifyUseKind(TileUseKind kind) {
  switch (kind) {
  case TileUseKind::ByOwner:
    return "by owner";
  case TileUseKind::InPlaceReduction:
    return "in-place reduction";
  case TileUseKind::FreeBroadcast:
    return "free broadcast";
  case TileUseKind::AcrossThreads:
    return "across threads";
  }
  llvm_unreachable("unknown use kind");
}

/// For each tile operand, how its use reads it (classifyTileUse); for each
/// tile result, whether every lane of its rows holds it (isRowReplicated);
/// for each read of a var, whether some use needs it in its owners.
struct PrintThreadMapping : PrintAnalysis<PrintThreadMapping> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(PrintThreadMapping)
  StringRef getArgument() const final {
    return "tile-test-print-thread-mapping";
  }
  StringRef getDescription() const final {
    return "test only: print how each use of a tile reads it";
  }
  StringRef getHeading() const { return "thread mapping"; }

  LogicalResult print(KernelOp kernel, raw_ostream &os) {
    kernel.getBody().walk<WalkOrder::PreOrder>([&](Operation *op) {
      for (OpOperand &use : op->getOpOperands())
        if (isa<RankedTensorType>(use.get().getType()))
          os << "  " << describe(op) << " operand " << use.getOperandNumber()
             << ": " << stringifyUseKind(classifyTileUse(use)) << "\n";
      for (Value result : op->getResults())
        if (isa<RankedTensorType>(result.getType()) && isRowReplicated(result))
          os << "  " << describe(result) << ": row-replicated\n";
      if (auto read = dyn_cast<ReadOp>(op); read && hasOwnerUse(read))
        os << "  " << describe(op) << ": read by owners\n";
    });
    return success();
  }
};

StringRef stringifyReductionStrategy(ReductionStrategy strategy) {
  switch (strategy) {
  case ReductionStrategy::InWarp:
    return "in warp";
  case ReductionStrategy::WarpSegmented:
    return "warp-segmented";
  case ReductionStrategy::InThread:
    return "in thread";
  case ReductionStrategy::ThroughShared:
    return "through shared";
  }
  llvm_unreachable("unknown reduction strategy");
}

/// The layout of every tile value (getLayout) and tile var (getVarLayout),
/// with how each reduction is carried out and how each conversion moves
/// its elements.
struct PrintLayouts : PrintAnalysis<PrintLayouts> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(PrintLayouts)
  StringRef getArgument() const final { return "tile-test-print-layouts"; }
  StringRef getDescription() const final {
    return "test only: print the layout of every tile value and var";
  }
  StringRef getHeading() const { return "layouts"; }

  LogicalResult print(KernelOp kernel, raw_ostream &os) {
    forEachValue(kernel, [&](Value value) {
      Operation *op = value.getDefiningOp();
      if (auto var = dyn_cast_or_null<VarOp>(op)) {
        if (!var.getVarType().isScalar())
          os << "  " << describe(value) << ": " << getVarLayout(var) << "\n";
        return;
      }
      if (!isa<RankedTensorType>(value.getType()))
        return;
      os << "  " << describe(value) << ": " << getLayout(value);
      if (auto reduction = dyn_cast_or_null<ReductionOpInterface>(op))
        os << ", reduction: "
           << stringifyReductionStrategy(getReductionStrategy(reduction));
      if (auto convert = dyn_cast_or_null<ConvertLayoutOp>(op))
        os << ", conversion: "
           << stringifyConversionKind(getConversionPlan(convert).kind);
      os << "\n";
    });
    return success();
  }
};

/// The divisor of every index and integer value (DivisibilityInfo), after
/// those of the kernel's size symbols.
struct PrintDivisibility : PrintAnalysis<PrintDivisibility> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(PrintDivisibility)
  StringRef getArgument() const final { return "tile-test-print-divisibility"; }
  StringRef getDescription() const final {
    return "test only: print the power of two known to divide every index "
           "and integer value";
  }
  StringRef getHeading() const { return "divisibility"; }

  LogicalResult print(KernelOp kernel, raw_ostream &os) {
    DivisibilityInfo info(kernel);
    llvm::SetVector<StringRef> symbols;
    for (Type type : kernel.getFunctionType().getInputs())
      if (auto tensor = dyn_cast<GlobalTensorType>(type))
        for (unsigned dim = 0; dim < tensor.getRank(); ++dim)
          if (tensor.isDynamicDim(dim))
            symbols.insert(tensor.getSymbolOfDim(dim).getValue());
    for (StringRef symbol : symbols)
      os << "  symbol " << symbol << ": " << info.getSymbolDivisor(symbol)
         << "\n";
    forEachValue(kernel, [&](Value value) {
      if (value.getType().isIntOrIndex())
        os << "  " << describe(value) << ": " << info.getDivisor(value) << "\n";
    });
    return success();
  }
};

/// The live range, offset and bytes of every shared var (SharedAllocation)
/// and the bytes the kernel needs.
struct PrintAllocation : PrintAnalysis<PrintAllocation> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(PrintAllocation)
  StringRef getArgument() const final { return "tile-test-print-allocation"; }
  StringRef getDescription() const final {
    return "test only: print the shared-memory allocation of every shared "
           "var";
  }
  StringRef getHeading() const { return "allocation"; }

  LogicalResult print(KernelOp kernel, raw_ostream &os) {
    SharedAllocation allocation(kernel);
    for (SharedBuffer buffer : allocation.getBuffers())
      os << "  " << describe(buffer.var.getResult()) << ": offset "
         << buffer.offset << ", " << buffer.bytes << " bytes, live from "
         << describe(buffer.firstOp) << " to " << describe(buffer.lastOp)
         << "\n";
    os << "  total " << allocation.getTotalBytes() << " bytes\n";
    return success();
  }
};

/// The accesses of each op to shared vars and global tensors
/// (getSharedAccesses), and where barriers go (planBarriers).
struct PrintBarriers : PrintAnalysis<PrintBarriers> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(PrintBarriers)
  StringRef getArgument() const final { return "tile-test-print-barriers"; }
  StringRef getDescription() const final {
    return "test only: print each op's shared and global accesses and the "
           "barriers they need";
  }
  StringRef getHeading() const { return "barriers"; }

  static void printAccess(const SharedAccess &access, raw_ostream &os) {
    os << (access.atomic ? "atomic" : access.write ? "write" : "read");
    if (auto var = access.buffer.getDefiningOp<VarOp>()) {
      os << " '" << var.getName() << "' bytes [" << access.begin << ", "
         << access.end << ")";
      if (access.stages)
        os << (access.rotation ? " stage rotation+" : " any stage of ")
           << (access.rotation ? std::to_string(access.stage) + " of " : "")
           << access.stages;
    } else {
      os << " tensor argument "
         << cast<BlockArgument>(access.buffer).getArgNumber();
      if (access.withinBox)
        os << " within its box";
    }
    os << (access.byOwner ? ", by owners" : ", by any thread");
  }

  LogicalResult print(KernelOp kernel, raw_ostream &os) {
    FailureOr<BarrierPlan> plan = planBarriers(kernel);
    if (failed(plan))
      return failure();
    kernel.getBody().walk<WalkOrder::PreOrder>([&](Operation *op) {
      if (plan->before.contains(op))
        os << "  " << describe(op) << ": barrier before\n";
      for (const SharedAccess &access : getSharedAccesses(op)) {
        os << "  " << describe(op) << ": ";
        printAccess(access, os);
        os << "\n";
      }
    });
    return success();
  }
};

} // namespace

void mlir::tile::registerAnalysisTestPasses() {
  PassRegistration<PrintThreadMapping>();
  PassRegistration<PrintLayouts>();
  PassRegistration<PrintDivisibility>();
  PassRegistration<PrintAllocation>();
  PassRegistration<PrintBarriers>();
}
