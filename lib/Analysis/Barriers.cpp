//===- Barriers.cpp - memory accesses of tile ops, where barriers go ------===//

#include "tile/Analysis/Barriers.h"

#include "mlir/Dialect/SCF/IR/SCF.h"

#include <limits>

using namespace mlir;
using namespace mlir::tile;

static VarOp getSharedVar(Value var) {
  auto op = var ? var.getDefiningOp<VarOp>() : VarOp();
  if (!op || !isSharedTile(op))
    return {};
  return op;
}

static SharedAccess makeAccess(VarOp var, bool write, bool byOwner) {
  auto offset = var->getAttrOfType<IntegerAttr>(kOffsetAttr);
  int64_t begin = offset ? offset.getInt() : 0;
  return {var.getResult(), begin, begin + getVarBytes(var.getVarType()), write,
          byOwner};
}

/// A slice of a global tensor: what a barrier orders between threads of a
/// CTA as well as shared memory.
static SharedAccess makeAccess(Value tensor, ValueRange offsets, Type tile,
                               bool write) {
  SharedAccess access{tensor, 0, std::numeric_limits<int64_t>::max(), write,
                      /*byOwner=*/true};
  access.offsets.assign(offsets.begin(), offsets.end());
  access.tileType = tile;
  return access;
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
    if (VarOp var = getSharedVar(read.getVar()); var && hasOwnerUse(read))
      accesses.push_back(makeAccess(var, /*write=*/false, /*byOwner=*/true));
  } else if (auto load = dyn_cast<LoadOp>(op)) {
    accesses.push_back(makeAccess(load.getSource(), load.getOffsets(),
                                  load.getType(), /*write=*/false));
  } else if (auto store = dyn_cast<StoreOp>(op)) {
    // A row result folded with shuffles is stored by the first lanes of the
    // rows of the tile it was reduced from: that tile's type names the
    // mapping.
    Value value = store.getValue();
    Type mapping =
        isRowReplicated(value)
            ? value.getDefiningOp<ReductionOpInterface>().getInput().getType()
            : value.getType();
    accesses.push_back(makeAccess(store.getDest(), store.getOffsets(), mapping,
                                  /*write=*/true));
  }
  // A warp-segmented reduction's lane 0s write their warps' partials, and
  // after a barrier every thread reads its rows' partials.
  if (auto reduction = dyn_cast<ReductionOpInterface>(op)) {
    if (VarOp var = getSharedVar(reduction.getScratch())) {
      accesses.push_back(makeAccess(var, /*write=*/true, /*byOwner=*/false));
      accesses.push_back(makeAccess(var, /*write=*/false, /*byOwner=*/false));
    }
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

bool mlir::tile::hasBarrierAfterWrites(Operation *op) {
  auto reduction = dyn_cast<ReductionOpInterface>(op);
  return reduction && reduction.getScratch();
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
    kernel.walk([&](BarrierOp barrier) {
      requireUniform(barrier, "this barrier waits for every thread of the "
                              "CTA");
    });
    // Every way of reducing rows has a butterfly of warp shuffles.
    kernel.walk([&](Operation *op) {
      if (hasBarrierAfterWrites(op))
        requireUniform(op, "this reduction exchanges values among the lanes "
                           "of a warp and, with a barrier, among warps");
      else if (isa<ReductionOpInterface>(op))
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
      if (isa<BarrierOp>(op)) {
        state.clear();
        continue;
      }
      AccessSet accesses = getSharedAccesses(&op);
      for (const SharedAccess &access : accesses) {
        bool conflict = llvm::any_of(state, [&](const SharedAccess &earlier) {
          return access.conflictsWith(earlier);
        });
        if (conflict) {
          plan.before.insert(&op);
          state.clear();
          break;
        }
      }
      if (hasBarrierAfterWrites(&op)) {
        // Its own barrier orders everything before it, its writes included.
        state.clear();
        llvm::erase_if(accesses,
                       [](const SharedAccess &access) { return access.write; });
      }
      llvm::append_range(state, accesses);
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
  /// control flow). Dependence flows through operands to results, through
  /// vars, and through the values regions pass around (iter_args, yields,
  /// scf.condition), to a fixed point.
  void markThreadDependentControlFlow() {
    DenseSet<Value> dependent;
    DenseSet<Operation *> dependentVars;
    bool changed = true;
    auto mark = [&](Value value) {
      if (!isa<RankedTensorType>(value.getType()) &&
          dependent.insert(value).second)
        changed = true;
    };
    auto markAll = [&](ValueRange values) {
      for (Value value : values)
        mark(value);
    };
    auto isDependent = [&](Value value) { return dependent.contains(value); };
    auto decides = [&](Operation *op) {
      changed |= threadDependent.insert(op).second;
    };
    while (changed) {
      changed = false;
      kernel.walk([&](Operation *op) {
        if (isa<ThreadIdOp>(op))
          mark(op->getResult(0));
        if (auto read = dyn_cast<ReadOp>(op))
          if (dependentVars.contains(read.getVar().getDefiningOp()))
            mark(read.getResult());
        if (isa<WriteOp, VarOp>(op)) {
          Value value = isa<WriteOp>(op) ? cast<WriteOp>(op).getValue()
                                         : cast<VarOp>(op).getInit();
          Operation *var = isa<WriteOp>(op)
                               ? cast<WriteOp>(op).getVar().getDefiningOp()
                               : op;
          if ((value && isDependent(value)) || getThreadDependentAncestor(op))
            if (dependentVars.insert(var).second)
              changed = true;
          return;
        }
        if (auto loop = dyn_cast<scf::ForOp>(op)) {
          if (llvm::any_of(ValueRange{loop.getLowerBound(),
                                      loop.getUpperBound(), loop.getStep()},
                           isDependent)) {
            decides(loop);
            mark(loop.getInductionVar());
            markAll(loop.getResults());
          }
          for (auto [init, arg, result] :
               llvm::zip(loop.getInitArgs(), loop.getRegionIterArgs(),
                         loop.getResults()))
            if (isDependent(init)) {
              mark(arg);
              mark(result);
            }
          return;
        }
        if (auto ifOp = dyn_cast<scf::IfOp>(op)) {
          if (isDependent(ifOp.getCondition())) {
            decides(ifOp);
            markAll(ifOp.getResults());
          }
          return;
        }
        if (auto loop = dyn_cast<scf::WhileOp>(op)) {
          for (auto [init, arg] :
               llvm::zip(loop.getInits(), loop.getBeforeArguments()))
            if (isDependent(init))
              mark(arg);
          return;
        }
        if (auto condition = dyn_cast<scf::ConditionOp>(op)) {
          auto loop = cast<scf::WhileOp>(op->getParentOp());
          if (isDependent(condition.getCondition())) {
            decides(loop);
            markAll(loop.getResults());
            markAll(loop.getAfterArguments());
          }
          for (auto [arg, after, result] :
               llvm::zip(condition.getArgs(), loop.getAfterArguments(),
                         loop.getResults()))
            if (isDependent(arg)) {
              mark(after);
              mark(result);
            }
          return;
        }
        if (auto yield = dyn_cast<scf::YieldOp>(op)) {
          Operation *parent = op->getParentOp();
          for (auto [index, value] : llvm::enumerate(yield.getOperands())) {
            if (!isDependent(value))
              continue;
            if (auto loop = dyn_cast<scf::ForOp>(parent)) {
              mark(loop.getRegionIterArgs()[index]);
              mark(loop.getResult(index));
            } else if (auto loop = dyn_cast<scf::WhileOp>(parent)) {
              mark(loop.getBeforeArguments()[index]);
            } else {
              mark(parent->getResult(index));
            }
          }
          return;
        }
        if (llvm::any_of(op->getOperands(), isDependent))
          markAll(op->getResults());
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
