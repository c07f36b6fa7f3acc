//===- SharedAccess.cpp - shared-memory accesses and barrier placement ----===//

#include "SharedAccess.h"

#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace mlir::tile;

static VarOp getSharedVar(Value var) {
  auto op = var.getDefiningOp<VarOp>();
  if (!op || op.getStorage() != Storage::shared || op.getVarType().isScalar())
    return {};
  return op;
}

static SharedAccess makeAccess(VarOp var, bool write, bool byOwner) {
  auto offset = var->getAttrOfType<IntegerAttr>("tile.offset");
  VarType type = var.getVarType();
  int64_t bytes =
      getNumElements(type.getValueType()) *
      llvm::divideCeil(type.getElementType().getIntOrFloatBitWidth(), 8);
  int64_t begin = offset ? offset.getInt() : 0;
  return {var, begin, begin + bytes, write, byOwner};
}

SmallVector<SharedAccess> mlir::tile::getSharedAccesses(Operation *op) {
  SmallVector<SharedAccess> accesses;
  if (auto var = dyn_cast<VarOp>(op)) {
    if (getSharedVar(var) && var.getInit())
      accesses.push_back(
          makeAccess(var, /*write=*/true, !isRowReplicated(var.getInit())));
  } else if (auto write = dyn_cast<WriteOp>(op)) {
    if (VarOp var = getSharedVar(write.getVar()))
      accesses.push_back(
          makeAccess(var, /*write=*/true, !isRowReplicated(write.getValue())));
  } else if (auto read = dyn_cast<ReadOp>(op)) {
    VarOp var = getSharedVar(read.getVar());
    bool loadsValue = llvm::any_of(read->getUses(), [](OpOperand &use) {
      return !readsAcrossThreads(use);
    });
    if (var && loadsValue)
      accesses.push_back(makeAccess(var, /*write=*/false, /*byOwner=*/true));
  }
  // An op reading across threads reads the shared var its operand came from.
  for (OpOperand &use : op->getOpOperands()) {
    if (!isa<RankedTensorType>(use.get().getType()) || !readsAcrossThreads(use))
      continue;
    if (auto read = use.get().getDefiningOp<ReadOp>())
      if (VarOp var = getSharedVar(read.getVar()))
        accesses.push_back(makeAccess(var, /*write=*/false, /*byOwner=*/false));
  }
  return accesses;
}

namespace {

using AccessSet = SmallVector<SharedAccess>;

/// A dataflow walk over the kernel: the accesses since the last barrier,
/// and a barrier before an access that conflicts with one of them.
class BarrierPlanner {
public:
  explicit BarrierPlanner(KernelOp kernel) : kernel(kernel) {}

  FailureOr<BarrierPlan> run() {
    markThreadDependentControlFlow();
    AccessSet state;
    walk(kernel.getBodyBlock(), state);
    bool failed = false;
    DenseSet<Operation *> reported; // one error an op
    auto requireUniform = [&](Operation *op, StringRef what) {
      if (reported.contains(op))
        return;
      if (Operation *region = getThreadDependentAncestor(op)) {
        reported.insert(op);
        InFlightDiagnostic diag = op->emitError()
                                  << what
                                  << ", but the control flow around it depends "
                                     "on ctx.thread, so not every thread of "
                                     "the CTA would reach it";
        diag.attachNote(region->getLoc()) << "this control flow";
        failed = true;
      }
    };
    for (Operation *op : plan.before)
      requireUniform(op, "a barrier is needed here (another thread's access "
                         "to the same shared bytes)");
    // Both ways of reducing rows end in a butterfly of warp shuffles.
    kernel.walk([&](Operation *op) {
      if (isa<RowSumOp, RowMaxOp>(op))
        requireUniform(op, "this reduction exchanges values among the lanes "
                           "of a warp");
    });
    if (failed)
      return failure();
    return std::move(plan);
  }

private:
  void walk(Block &block, AccessSet &state) {
    for (Operation &op : block) {
      for (const SharedAccess &access : getSharedAccesses(&op)) {
        bool conflict = llvm::any_of(state, [&](const SharedAccess &earlier) {
          return access.conflictsWith(earlier);
        });
        if (conflict) {
          plan.before.insert(&op);
          state.clear();
          break;
        }
      }
      llvm::append_range(state, getSharedAccesses(&op));
      walkRegions(&op, state);
    }
  }

  void walkRegions(Operation *op, AccessSet &state) {
    if (auto ifOp = dyn_cast<scf::IfOp>(op)) {
      AccessSet thenState = state, elseState = state;
      walk(ifOp.getThenRegion().front(), thenState);
      if (!ifOp.getElseRegion().empty())
        walk(ifOp.getElseRegion().front(), elseState);
      state = std::move(thenState);
      llvm::append_range(state, elseState);
      return;
    }
    if (isa<scf::ForOp, scf::WhileOp>(op)) {
      // Twice: the second pass starts from what the first left, so an
      // access conflicts with the previous iteration's too.
      AccessSet entry = state;
      AccessSet first = entry;
      walkLoopBody(op, first);
      AccessSet second = entry;
      llvm::append_range(second, first);
      walkLoopBody(op, second);
      state = std::move(entry); // the loop may run no iteration
      llvm::append_range(state, second);
    }
  }

  void walkLoopBody(Operation *loop, AccessSet &state) {
    for (Region &region : loop->getRegions())
      walk(region.front(), state);
  }

  /// Scalar values computed from ctx.thread, and the control flow they
  /// decide (tile values are per-thread by construction and never decide
  /// control flow).
  void markThreadDependentControlFlow() {
    DenseSet<Value> dependent;
    DenseSet<Operation *> dependentVars;
    bool changed = true;
    auto mark = [&](Value value) {
      if (!isa<RankedTensorType>(value.getType()) &&
          dependent.insert(value).second)
        changed = true;
    };
    while (changed) {
      changed = false;
      kernel.walk([&](Operation *op) {
        if (isa<ThreadIdOp>(op))
          mark(op->getResult(0));
        if (auto read = dyn_cast<ReadOp>(op))
          if (dependentVars.contains(read.getVar().getDefiningOp()))
            mark(read.getResult());
        bool fromThread = llvm::any_of(op->getOperands(), [&](Value value) {
          return dependent.contains(value);
        });
        if (auto write = dyn_cast<WriteOp>(op))
          if (fromThread || getThreadDependentAncestor(op))
            if (dependentVars.insert(write.getVar().getDefiningOp()).second)
              changed = true;
        if (!fromThread)
          return;
        for (Value result : op->getResults())
          mark(result);
        if (isa<scf::IfOp, scf::ForOp>(op))
          changed |= threadDependent.insert(op).second;
        if (isa<scf::ConditionOp>(op))
          changed |= threadDependent.insert(op->getParentOp()).second;
      });
    }
  }

  Operation *getThreadDependentAncestor(Operation *op) {
    for (Operation *parent = op->getParentOp(); parent && parent != kernel;
         parent = parent->getParentOp())
      if (threadDependent.contains(parent))
        return parent;
    return nullptr;
  }

  KernelOp kernel;
  BarrierPlan plan;
  DenseSet<Operation *> threadDependent;
};

} // namespace

FailureOr<BarrierPlan> mlir::tile::planBarriers(KernelOp kernel) {
  return BarrierPlanner(kernel).run();
}
