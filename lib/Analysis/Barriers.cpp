//===- Barriers.cpp - memory accesses of tile ops, where barriers go ------===//

#include "tile/Analysis/Barriers.h"
#include "tile/Dialect/Tile/IR/Layouts.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

#include <limits>

using namespace mlir;
using namespace mlir::tile;

/// The shared tile var a var handle (a tile.var or a stage of a ring)
/// refers to, or null.
static VarOp getSharedVar(Value handle) {
  VarOp var = getVarOp(handle);
  if (!var || !isSharedTile(var))
    return {};
  return var;
}

/// An access to the var `handle` refers to: its whole bytes, or those of
/// the ring with the stage, for a stage; by the owners of `tile`'s
/// elements, when `byOwner`.
static SharedAccess makeAccess(Value handle, bool write, bool byOwner,
                               Value tile = {}) {
  VarOp var = getSharedVar(handle);
  auto offset = var->getAttrOfType<IntegerAttr>(kOffsetAttr);
  int64_t begin = offset ? offset.getInt() : 0;
  SharedAccess access{var.getResult(), begin, begin + getStorageBytes(var),
                      write, byOwner};
  if (byOwner && tile)
    access.layout = getLayout(tile);
  if (auto stage = handle.getDefiningOp<StageOp>()) {
    access.stages = *var.getStages();
    access.rotation = stage.getRotation();
    access.stage = llvm::mod(stage.getOffset(), access.stages);
  }
  return access;
}

/// A slice of a global tensor: what a barrier orders between threads of a
/// CTA as well as shared memory.
static SharedAccess makeAccess(Value tensor, ValueRange offsets, Type tile,
                               bool write, Attribute layout) {
  SharedAccess access{tensor, 0, std::numeric_limits<int64_t>::max(), write,
                      /*byOwner=*/true};
  access.offsets.assign(offsets.begin(), offsets.end());
  access.tileType = tile;
  access.layout = layout;
  access.withinBox = static_cast<bool>(tile);
  return access;
}

bool SharedAccess::inDisjointIterations(const SharedAccess &other) const {
  if (static_cast<bool>(earlierIteration) ==
      static_cast<bool>(other.earlierIteration))
    return false;
  const SharedAccess &earlier = earlierIteration ? *this : other;
  if (!withinBox || !other.withinBox || offsets.size() != other.offsets.size())
    return false;
  auto shape = cast<RankedTensorType>(earlier.tileType).getShape();
  if (shape.size() != offsets.size())
    return false;
  for (auto [dim, mine, theirs] : llvm::enumerate(offsets, other.offsets))
    if (mine == earlier.earlierIteration && theirs == mine &&
        shape[dim] <= earlier.step)
      return true;
  return false;
}

bool mlir::tile::isAsyncCopy(Operation *op) {
  auto copy = dyn_cast<CopyOp>(op);
  return copy && copy.getAsync();
}

SmallVector<SharedAccess> mlir::tile::getSharedAccesses(Operation *op) {
  SmallVector<SharedAccess> accesses;
  if (auto var = dyn_cast<VarOp>(op)) {
    if (getSharedVar(var) && var.getInit())
      accesses.push_back(makeAccess(
          var, /*write=*/true, !isRowReplicated(var.getInit()), var.getInit()));
  } else if (auto write = dyn_cast<WriteOp>(op)) {
    if (getSharedVar(write.getVar()))
      accesses.push_back(makeAccess(write.getVar(), /*write=*/true,
                                    !isRowReplicated(write.getValue()),
                                    write.getValue()));
  } else if (auto read = dyn_cast<ReadOp>(op)) {
    if (getSharedVar(read.getVar()) && hasOwnerUse(read))
      accesses.push_back(makeAccess(read.getVar(), /*write=*/false,
                                    /*byOwner=*/true, read.getResult()));
  } else if (auto copy = dyn_cast<CopyOp>(op)) {
    // The threads share a copy's chunks as no tile's owners do: any thread
    // may touch any element of either side.
    for (auto [side, offsets, write] :
         {std::tuple{copy.getSource(), copy.getSourceOffsets(), false},
          std::tuple{copy.getDest(), copy.getDestOffsets(), true}}) {
      if (isa<GlobalTensorType>(side.getType())) {
        SharedAccess access =
            makeAccess(side, offsets, copy.getBoxType(), write, Attribute());
        access.byOwner = false;
        access.withinBox = true;
        accesses.push_back(access);
      } else if (getSharedVar(side)) {
        accesses.push_back(makeAccess(side, write, /*byOwner=*/false));
      }
    }
  } else if (auto load = dyn_cast<LoadOp>(op)) {
    accesses.push_back(makeAccess(load.getSource(), load.getOffsets(),
                                  load.getType(), /*write=*/false,
                                  getLayout(load.getResult())));
  } else if (auto store = dyn_cast<StoreOp>(op)) {
    // A row result folded with shuffles is stored by the first lanes of the
    // rows of the tile it was reduced from: that tile's type names the
    // mapping.
    Value value = store.getValue();
    auto rows = dyn_cast<RowsLayoutAttr>(getLayout(value));
    Type mapping = value.getType();
    if (rows)
      mapping = RankedTensorType::get(
          rows.getParentShape(cast<RankedTensorType>(mapping).getShape()),
          cast<RankedTensorType>(mapping).getElementType());
    SharedAccess access =
        makeAccess(store.getDest(), store.getOffsets(), mapping, /*write=*/true,
                   rows ? rows.getParent() : getLayout(value));
    // The analysis knows seed 000's distribution and runs; a row result of
    // another parent may be stored by any thread.
    if (rows && !isCyclicLayout(rows.getParent()))
      access.byOwner = false;
    accesses.push_back(access);
  } else if (isa<GatherOp, ScatterOp>(op)) {
    // Which elements a thread touches depends on the index tiles' data:
    // any thread, any element.
    SharedAccess access = makeAccess(getAccessedTensor(op), {}, Type(),
                                     /*write=*/writesTensor(op), Attribute());
    access.byOwner = false;
    accesses.push_back(access);
  } else if (auto update = dyn_cast<AtomicOp>(op)) {
    // Atomic updates need no barrier among themselves, only against the
    // plain accesses of other threads.
    SharedAccess access = makeAccess(
        update.getDest(), update.getOffsets(), update.getValue().getType(),
        /*write=*/true, getLayout(update.getValue()));
    access.byOwner = update.getIndices().empty();
    access.withinBox = access.byOwner;
    access.atomic = true;
    accesses.push_back(access);
  }
  // A warp-segmented reduction's lane 0s write their warps' partials, and
  // after a barrier every thread reads its rows' partials.
  // So does a layout conversion through shared memory: the primary
  // holders write every element, and after a barrier each thread reads its
  // own.
  if (VarOp var = getSharedVar(getScratchOf(op))) {
    accesses.push_back(makeAccess(var, /*write=*/true, /*byOwner=*/false));
    accesses.push_back(makeAccess(var, /*write=*/false, /*byOwner=*/false));
  }
  // An op reading across threads reads the shared var its operand came from.
  for (OpOperand &use : op->getOpOperands()) {
    if (!isa<RankedTensorType>(use.get().getType()) || !readsAcrossThreads(use))
      continue;
    if (auto read = use.get().getDefiningOp<ReadOp>())
      if (getSharedVar(read.getVar()))
        accesses.push_back(
            makeAccess(read.getVar(), /*write=*/false, /*byOwner=*/false));
  }
  return accesses;
}

bool mlir::tile::hasBarrierAfterWrites(Operation *op) {
  return getScratchOf(op) != nullptr;
}

namespace {

using AccessSet = SmallVector<SharedAccess>;

/// What the walk knows at a point of the kernel: the accesses since the
/// last barrier, and the writes of async copies not yet waited for, as
/// PTX counts them per thread: the group being formed, and the committed
/// groups, oldest first.
struct State {
  AccessSet accesses;
  AccessSet open;
  SmallVector<AccessSet> committed;

  /// Either of `a` and `b` (the branches of an if, a loop that runs or
  /// not): every access of both, and the groups of both, aligned on the
  /// most recent.
  static State join(State a, const State &b) {
    llvm::append_range(a.accesses, b.accesses);
    llvm::append_range(a.open, b.open);
    size_t common = std::min(a.committed.size(), b.committed.size());
    if (b.committed.size() > a.committed.size())
      a.committed.insert(a.committed.begin(), b.committed.begin(),
                         b.committed.end() - common);
    for (size_t i = 0; i < common; ++i)
      llvm::append_range(a.committed[a.committed.size() - 1 - i],
                         b.committed[b.committed.size() - 1 - i]);
    return a;
  }
};

/// Whether `value` may differ from one iteration of `loop` to the next:
/// the loop's own values, and what is computed from them in it.
static bool isLoopVariant(Value value, Operation *loop) {
  return value && loop->isAncestor(value.getParentRegion()->getParentOp());
}

/// `access`, made in one iteration of `loop`, as a later iteration sees
/// it: a stage or a slice named by values of the iteration is any stage,
/// any element, except that a slice starting at the induction variable of
/// a loop with a constant step started a step or more before (an access
/// marked for an enclosing loop keeps that mark: it is from an earlier
/// iteration of that loop still).
static SharedAccess fromOtherIteration(SharedAccess access, Operation *loop) {
  if (isLoopVariant(access.rotation, loop))
    access.rotation = Value();
  if (llvm::any_of(access.offsets,
                   [&](Value offset) { return isLoopVariant(offset, loop); }))
    access.byOwner = false;
  auto forOp = dyn_cast<scf::ForOp>(loop);
  std::optional<int64_t> step =
      forOp ? getConstantIntValue(forOp.getStep()) : std::nullopt;
  if (!access.earlierIteration && step && *step > 0) {
    access.earlierIteration = forOp.getInductionVar();
    access.step = *step;
  }
  return access;
}

/// Drops the marks of `loop`'s earlier iterations from `accesses` once the
/// walk leaves it: a later run of the loop starts its induction variable
/// again.
static void forgetIterations(AccessSet &accesses, Operation *loop) {
  auto forOp = dyn_cast<scf::ForOp>(loop);
  if (!forOp)
    return;
  for (SharedAccess &access : accesses)
    if (access.earlierIteration == forOp.getInductionVar())
      access.earlierIteration = Value();
}

/// A dataflow walk over the kernel: the accesses since the last barrier,
/// and a barrier before an access that conflicts with one of them.
class BarrierPlanner {
public:
  BarrierPlanner(KernelOp kernel, const DenseSet<Operation *> &ignored)
      : kernel(kernel), ignored(ignored) {}

  FailureOr<BarrierPlan> run() {
    markThreadDependentControlFlow();
    State state;
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
    kernel.walk([&](Operation *op) {
      if (isa<BarrierOp>(op))
        requireUniform(op, "this barrier waits for every thread of the CTA");
      else if (isa<CommitGroupOp, WaitGroupOp>(op))
        requireUniform(op, "this op counts groups of async copies, which "
                           "every thread must count alike");
      // Every thread must name the same stage: the analysis (and the
      // copies, which any thread may do) take a stage to be one memory.
      if (auto stage = dyn_cast<StageOp>(op);
          stage && threadDependentValues.contains(stage.getRotation()) &&
          reported.insert(op).second) {
        op->emitError() << "the rotation of ring '"
                        << stage.getRingOp().getName()
                        << "' depends on ctx.thread: every thread of the CTA "
                           "must name the same stage (an advance under "
                           "control flow that depends on ctx.thread?)";
        failed = true;
      }
    });
    // Every way of reducing rows has a butterfly of warp shuffles.
    kernel.walk([&](Operation *op) {
      if (hasBarrierAfterWrites(op))
        requireUniform(op, "this reduction exchanges values among the lanes "
                           "of a warp and, with a barrier, among warps");
      else if (isa<ReductionOpInterface>(op))
        requireUniform(op, "this reduction exchanges values among the lanes "
                           "of a warp");
      else if (auto convert = dyn_cast<ConvertLayoutOp>(op);
               convert &&
               getConversionPlan(convert).kind == ConversionKind::Shuffle)
        requireUniform(op, "this conversion exchanges values among the "
                           "lanes of a warp");
    });
    if (failed)
      return failure();
    return std::move(plan);
  }

private:
  void walk(Block &block, State &state) {
    for (Operation &op : block) {
      if (isa<BarrierOp>(op) && !ignored.contains(&op)) {
        // A barrier orders what landed, not the copies still in flight.
        state.accesses.clear();
        continue;
      }
      if (isa<CommitGroupOp>(op)) {
        state.committed.push_back(std::move(state.open));
        state.open.clear();
        continue;
      }
      if (auto wait = dyn_cast<WaitGroupOp>(op)) {
        // The groups but the `pending` most recent land here.
        auto pending = static_cast<size_t>(wait.getPending());
        while (state.committed.size() > pending) {
          llvm::append_range(state.accesses, state.committed.front());
          state.committed.erase(state.committed.begin());
        }
        continue;
      }
      AccessSet accesses = getSharedAccesses(&op);
      for (const SharedAccess &access : accesses) {
        bool conflict =
            llvm::any_of(state.accesses, [&](const SharedAccess &earlier) {
              return access.conflictsWith(earlier);
            });
        if (conflict) {
          plan.before.insert(&op);
          state.accesses.clear();
          break;
        }
      }
      if (hasBarrierAfterWrites(&op)) {
        // Its own barrier orders everything before it, its writes included.
        state.accesses.clear();
        llvm::erase_if(accesses,
                       [](const SharedAccess &access) { return access.write; });
      }
      for (SharedAccess &access : accesses) {
        // An async copy's write may happen at any time until it is waited
        // for: it needs the order of its issue, and orders others after
        // the wait.
        if (access.write && isAsyncCopy(&op))
          state.open.push_back(std::move(access));
        else
          state.accesses.push_back(std::move(access));
      }
      walkRegions(&op, state);
    }
  }

  void walkRegions(Operation *op, State &state) {
    if (auto ifOp = dyn_cast<scf::IfOp>(op)) {
      State thenState = state, elseState = state;
      walk(ifOp.getThenRegion().front(), thenState);
      if (!ifOp.getElseRegion().empty())
        walk(ifOp.getElseRegion().front(), elseState);
      state = State::join(std::move(thenState), elseState);
      return;
    }
    if (isa<scf::ForOp, scf::WhileOp>(op)) {
      // Twice: the second pass starts from what the first left, as another
      // iteration sees it, so an access conflicts with the previous
      // iteration's too.
      State first = state;
      walkLoopBody(op, first);
      State second = State::join(state, carried(first, op));
      second.open = carried(first, op).open;
      second.committed = carried(first, op).committed;
      walkLoopBody(op, second);
      // The loop may run no iteration, one, or more.
      state = State::join(State::join(std::move(state), first),
                          carried(second, op));
      forgetIterations(state.accesses, op);
      forgetIterations(state.open, op);
      for (AccessSet &group : state.committed)
        forgetIterations(group, op);
    }
  }

  /// `state` at the end of an iteration of `loop`, as the next iteration
  /// and the code after the loop see it.
  static State carried(const State &state, Operation *loop) {
    State other;
    auto convert = [&](const AccessSet &from, AccessSet &to) {
      for (const SharedAccess &access : from)
        to.push_back(fromOtherIteration(access, loop));
    };
    convert(state.accesses, other.accesses);
    convert(state.open, other.open);
    for (const AccessSet &group : state.committed)
      convert(group, other.committed.emplace_back());
    return other;
  }

  void walkLoopBody(Operation *loop, State &state) {
    for (Region &region : loop->getRegions())
      walk(region.front(), state);
  }

  /// Scalar values computed from ctx.thread, and the control flow they
  /// decide (tile values are per-thread by construction and never decide
  /// control flow). Dependence flows through operands to results, through
  /// vars, and through the values regions pass around (iter_args, yields,
  /// scf.condition), to a fixed point.
  void markThreadDependentControlFlow() {
    DenseSet<Value> &dependent = threadDependentValues;
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
  const DenseSet<Operation *> &ignored;
  BarrierPlan plan;
  DenseSet<Operation *> threadDependent;
  /// The scalar values computed from ctx.thread.
  DenseSet<Value> threadDependentValues;
};

} // namespace

FailureOr<BarrierPlan>
mlir::tile::planBarriers(KernelOp kernel,
                         const DenseSet<Operation *> &ignored) {
  return BarrierPlanner(kernel, ignored).run();
}
