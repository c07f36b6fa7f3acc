//===- PlanShared.cpp - storage of every tile var, shared-memory layout ---===//
//
// Decides which tile vars live in shared memory and which in registers,
// stores a tile into a shared temporary where an op must read it across
// threads, and records where the shared vars live (the SharedAllocation
// analysis: live ranges, offsets, the bytes the kernel needs).
//
//===----------------------------------------------------------------------===//

#include "tile/Analysis/Allocation.h"
#include "tile/Analysis/ThreadMapping.h"
#include "tile/Dialect/Tile/IR/ChipLimits.h"
#include "tile/Dialect/Tile/IR/Layouts.h"
#include "tile/Dialect/Tile/Transforms/Passes.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FormatVariadic.h"

namespace mlir::tile {
#define GEN_PASS_DEF_TILEPLANSHARED
#include "tile/Dialect/Tile/Transforms/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;
using namespace mlir::tile;

namespace {

/// Whether `op`, or an op nested in it, may change what the var handle
/// `handle` holds: it writes that var, unless both are stages of one
/// rotation of a ring at different offsets.
static bool mayChange(Operation *op, Value handle) {
  VarOp var = getVarOp(handle);
  auto stage = handle.getDefiningOp<StageOp>();
  return op
      ->walk([&](Operation *nested) {
        Value written;
        if (auto write = dyn_cast<WriteOp>(nested))
          written = write.getVar();
        else if (auto copy = dyn_cast<CopyOp>(nested))
          written = copy.getDest();
        if (!written || getVarOp(written) != var)
          return WalkResult::advance();
        auto other = written.getDefiningOp<StageOp>();
        int64_t stages = var.getStages().value_or(1);
        if (stage && other && stage.getRotation() == other.getRotation() &&
            llvm::mod(stage.getOffset(), stages) !=
                llvm::mod(other.getOffset(), stages))
          return WalkResult::advance();
        return WalkResult::interrupt();
      })
      .wasInterrupted();
}

/// Whether no op between `read` and `user` can change the var `read` read,
/// so `user` may read the var's shared buffer instead of the value. The
/// user may sit in a loop after the read (tile-hoist-invariants moves reads
/// out of loops) as long as nothing in that loop writes the var either.
bool unchangedBetween(ReadOp read, Operation *user) {
  Operation *ancestor = read->getBlock()->findAncestorOpInBlock(*user);
  if (!ancestor || !read->isBeforeInBlock(ancestor))
    return false;
  for (Operation *op = read->getNextNode(); op != ancestor;
       op = op->getNextNode())
    if (mayChange(op, read.getVar()))
      return false;
  return ancestor == user || !mayChange(ancestor, read.getVar());
}

/// Stores `value` into a new shared temporary at the builder's insertion
/// point and returns a read of it (in the cyclic distribution, as a read of
/// a shared var is until a layout pass says otherwise).
Value storeToSharedTemporary(OpBuilder &builder, Location loc, Value value,
                             StringRef name) {
  auto tensor = cast<RankedTensorType>(value.getType());
  auto type = VarType::get(builder.getContext(), tensor.getShape(),
                           tensor.getElementType());
  auto var = VarOp::create(builder, loc, name, type, value);
  var->setAttr(kTempAttr, builder.getUnitAttr());
  return ReadOp::create(builder, loc, var);
}

std::string temporaryName(OpOperand &use) {
  Operation *user = use.getOwner();
  std::string name = user->getName().stripDialect().str();
  if (auto read = use.get().getDefiningOp<ReadOp>())
    return getVarOp(read.getVar()).getName().str() + "." + name;
  if (isa<DotOp>(user))
    return name + (use.getOperandNumber() == 0 ? ".lhs" : ".rhs");
  return name + ".input";
}

/// The steps of tile-plan-shared, which tile-pipeline-loads also runs on a
/// copy of a kernel to find how many stages fit.
class SharedPlanner {
public:
  explicit SharedPlanner(bool report) : report(report) {}

  /// Plans `kernel`: the storage of every tile var, the temporaries and
  /// scratch vars it needs, the offsets; the bytes it needs, or failure
  /// (an error at the op) when a request was not carried out.
  FailureOr<int64_t> run(KernelOp kernel) {
    if (failed(checkRequestsCarriedOut(kernel)))
      return failure();
    forwardRowResultVars(kernel);
    elideDeadSpills(kernel);
    readAcrossThreadsFromShared(kernel);
    convertRowResultsForOtherUses(kernel);
    addReductionScratch(kernel);
    addConversionScratch(kernel);
    decideStorage(kernel);
    padTensorCoreOperands(kernel);
    SharedAllocation allocation(kernel);
    buffers.assign(allocation.getBuffers().begin(),
                   allocation.getBuffers().end());
    Builder builder(kernel);
    for (SharedBuffer &buffer : buffers) {
      buffer.var->setAttr(kOffsetAttr,
                          builder.getI64IntegerAttr(buffer.offset));
      buffer.var->setAttr(kLiveAttr,
                          builder.getStringAttr(buffer.describeLiveRange()));
    }
    int64_t total = allocation.getTotalBytes();
    kernel->setAttr(kSharedBytesAttr, builder.getI64IntegerAttr(total));
    if (report)
      reportPlan(kernel, buffers, total);
    return total;
  }

  /// The shared buffers of the last plan.
  SmallVector<SharedBuffer> buffers;

private:
  /// `storage = registers` is a request, which tile-promote-registers
  /// carries out (and removes); the planner's own decisions are
  /// `tile.local` and `tile.offset`.
  LogicalResult checkRequestsCarriedOut(KernelOp kernel) {
    WalkResult walked =
        kernel.walk([&](VarOp var) {
          if (var.getStorage() != Storage::registers)
            return WalkResult::advance();
          var.emitError("'")
              << var.getName()
              << "' asks to live in registers (storage = registers), a request "
                 "that tile-promote-registers carries out: run it before "
                 "tile-plan-shared";
          return WalkResult::interrupt();
        });
    return failure(walked.wasInterrupted());
  }

  /// A var that holds a row result reduced where its input lives and is
  /// never written is that result: its reads become the result itself,
  /// which is already in every lane of its row, so broadcasting it back
  /// over the rows costs nothing (the var would have cost a shared buffer
  /// and its barriers). Vars of @registers and spills keep their storage.
  void forwardRowResultVars(KernelOp kernel) {
    SmallVector<VarOp> vars;
    kernel.walk([&](VarOp var) {
      bool written = llvm::any_of(
          var->getUsers(), [](Operation *user) { return isa<WriteOp>(user); });
      if (var.getInit() && isRowReplicated(var.getInit()) && !written &&
          !var->hasAttr(kSpillOfAttr))
        vars.push_back(var);
    });
    for (VarOp var : vars) {
      if (report)
        emitRemark(var.getLoc())
            << "'" << var.getName()
            << "' takes no memory: it holds a row result, which every lane "
               "of its row has, and is never written";
      for (Operation *user : llvm::make_early_inc_range(var->getUsers())) {
        auto read = cast<ReadOp>(user);
        read.getResult().replaceAllUsesWith(var.getInit());
        read.erase();
      }
      var.erase();
    }
  }

  /// A spill of a @registers var (seed 000 spills for every use that is not
  /// elementwise) that no use reads across threads is a store no other
  /// thread reads: its reads take the registers instead, and the store and
  /// its buffer go (reported). In squares, the store to O and the rowsum of
  /// whole-warp rows both read only what each thread holds.
  void elideDeadSpills(KernelOp kernel) {
    SmallVector<VarOp> dead;
    kernel.walk([&](VarOp var) {
      if (!var->hasAttr(kSpillOfAttr) || !var.getInit())
        return;
      // A read in another layout than the value's is a conversion, which
      // goes through the spill (tile-tensor-cores: #tile.mma).
      LayoutAttrInterface layout = getLayout(var.getInit());
      bool deadStore = llvm::all_of(var->getUsers(), [&](Operation *user) {
        auto read = dyn_cast<ReadOp>(user);
        return read && getLayout(read.getResult()) == layout &&
               llvm::none_of(read->getUses(), readsAcrossThreads);
      });
      if (deadStore)
        dead.push_back(var);
      else if (report && isa<MmaLayoutAttr>(layout))
        emitRemark(var.getLoc())
            << "'" << var.getName()
            << "' spill converts the tile from the mma accumulator layout "
               "once, through shared memory, for the uses that need another";
    });
    SmallVector<Attribute> names;
    if (auto earlier = kernel->getAttrOfType<ArrayAttr>(kElidedSpillsAttr))
      llvm::append_range(names, earlier);
    for (VarOp var : dead) {
      if (!llvm::is_contained(names, var.getNameAttr()))
        names.push_back(var.getNameAttr());
      if (report) {
        int64_t uses = 0;
        for (Operation *read : var->getUsers())
          uses += llvm::range_size(read->getUses());
        emitRemark(var.getLoc())
            << "'" << var.getName()
            << "' spill store elided: no use of it reads another thread's "
               "elements, so its "
            << uses << " use(s) read the registers";
      }
      for (Operation *user : llvm::make_early_inc_range(var->getUsers())) {
        user->getResult(0).replaceAllUsesWith(var.getInit());
        user->erase();
      }
      var.erase();
    }
    if (!names.empty())
      kernel->setAttr(kElidedSpillsAttr,
                      ArrayAttr::get(kernel.getContext(), names));
  }

  /// Makes every operand read across threads the unchanged content of a
  /// var, which needsSharedMemory then places in shared memory.
  void readAcrossThreadsFromShared(KernelOp kernel) {
    SmallVector<OpOperand *> uses;
    kernel.walk([&](Operation *op) {
      for (OpOperand &use : op->getOpOperands())
        if (isa<RankedTensorType>(use.get().getType()) &&
            readsAcrossThreads(use))
          uses.push_back(&use);
    });
    // Each temporary named apart, so the plan's report tells two of one
    // kind apart (layernorm's two broadcasts on one line): the second
    // 'broadcast.input' is 'broadcast.input.2'.
    llvm::StringMap<unsigned> named;
    for (OpOperand *use : uses) {
      Operation *user = use->getOwner();
      auto read = use->get().getDefiningOp<ReadOp>();
      if (read && unchangedBetween(read, user))
        continue;
      OpBuilder builder(user);
      std::string name = temporaryName(*use);
      if (unsigned count = ++named[name]; count > 1)
        name += "." + std::to_string(count);
      use->set(
          storeToSharedTemporary(builder, user->getLoc(), use->get(), name));
    }
  }

  /// A row result reduced in place lives in every lane of its row
  /// (#tile.rows), not in the lane that owns each element of [R, 1]: any
  /// use but a free broadcast, a store or a var write reads it converted
  /// to the cyclic distribution (tile.convert_layout, which moves it within
  /// the thread, with shuffles or through shared memory, as the layouts
  /// allow).
  void convertRowResultsForOtherUses(KernelOp kernel) {
    SmallVector<ReductionOpInterface> reductions;
    kernel.walk([&](ReductionOpInterface op) {
      if (isRowReplicated(op.getResult()))
        reductions.push_back(op);
    });
    for (ReductionOpInterface reduction : reductions) {
      Value result = reduction.getResult();
      SmallVector<OpOperand *> others;
      for (OpOperand &use : result.getUses()) {
        Operation *user = use.getOwner();
        if (isa<BroadcastOp>(user) && !readsAcrossThreads(use))
          continue;
        // The first lane of each row stores the row's result itself
        // (unless a mask, which the owners of [R, 1] hold, decides).
        if (auto store = dyn_cast<StoreOp>(user); store && !store.getMask())
          continue;
        // A var written with it is shared (needsSharedMemory) or in its
        // layout; a conversion moves it itself.
        if (isa<VarOp, WriteOp, ConvertLayoutOp>(user))
          continue;
        // An elementwise op in the result's layout (a row statistic kept in
        // the rows' layout: tile-tensor-cores) computes where it is.
        if (isSameShapeElementwise(user) &&
            getLayout(user->getResult(0)) == getLayout(result))
          continue;
        others.push_back(&use);
      }
      if (others.empty())
        continue;
      OpBuilder builder(reduction->getContext());
      builder.setInsertionPointAfter(reduction);
      // To the cyclic distribution, which a type without a layout is in
      // until tile-assign-layouts writes it.
      Value converted = ConvertLayoutOp::create(
          builder, reduction->getLoc(), result,
          withLayout(cast<RankedTensorType>(result.getType()), nullptr));
      for (OpOperand *use : others)
        use->set(converted);
    }
  }

  /// Gives every warp-segmented reduction the shared var its warps'
  /// partials meet in, declared just before it.
  void addReductionScratch(KernelOp kernel) {
    SmallVector<ReductionOpInterface> reductions;
    kernel.walk([&](ReductionOpInterface op) {
      if (!op.getScratch() &&
          getReductionStrategy(op) == ReductionStrategy::WarpSegmented)
        reductions.push_back(op);
    });
    for (ReductionOpInterface reduction : reductions) {
      OpBuilder builder(reduction);
      auto var = VarOp::create(
          builder, reduction->getLoc(),
          (reduction->getName().stripDialect() + ".partials").str(),
          getScratchType(reduction), /*init=*/Value());
      var->setAttr(kTempAttr, builder.getUnitAttr());
      reduction.setScratch(var.getResult());
    }
  }

  /// Gives every layout conversion that moves elements between warps the
  /// shared var of the tile's shape they move through, and reports how
  /// each conversion moves its elements.
  void addConversionScratch(KernelOp kernel) {
    kernel.walk([&](ConvertLayoutOp op) {
      ConversionPlan plan = getConversionPlan(op);
      if (report)
        emitRemark(op.getLoc())
            << "layout conversion from " << getLayout(op.getInput()) << " to "
            << getLayout(op.getResult()) << ": "
            << stringifyConversionKind(plan.kind);
      if (op.getScratch() || plan.kind != ConversionKind::Shared)
        return;
      OpBuilder builder(op);
      RankedTensorType type = op.getType();
      // Named after what it holds: a row result, or any other value.
      Operation *def = op.getInput().getDefiningOp();
      std::string name = isa_and_present<ReductionOpInterface>(def)
                             ? (def->getName().stripDialect() + ".result").str()
                             : "convert_layout.scratch";
      auto var =
          VarOp::create(builder, op.getLoc(), name,
                        VarType::get(builder.getContext(), type.getShape(),
                                     type.getElementType()),
                        /*init=*/Value());
      var->setAttr(kTempAttr, builder.getUnitAttr());
      op.getScratchMutable().assign(var.getResult());
    });
  }

  /// Whether `var` must be in shared memory: some thread other than an
  /// element's owner reads or writes it, or seed 000 says so. Decided from
  /// the IR alone, so a planned kernel planned again gets the same plan.
  static bool needsSharedMemory(VarOp var, int64_t threads) {
    // A spill of @registers (seed 000), a request, a ring, and tiles too
    // large for registers.
    if (var->hasAttr(kSpillOfAttr) || var.getStorage() == Storage::shared ||
        var.isRing() ||
        llvm::divideCeil(getNumElements(var.getVarType().getValueType()),
                         threads) > kMaxRegisterSlots)
      return true;
    // A row result is written by the first lane of each row, not by the
    // owners of [R, 1], unless the var's registers hold its #tile.rows
    // layout (tile-tensor-cores).
    auto foreignRows = [&](Value value) {
      return isRowReplicated(value) && getLayout(value) != getVarLayout(var);
    };
    if (var.getInit() && foreignRows(var.getInit()))
      return true;
    for (Operation *user : var->getUsers()) {
      if (auto write = dyn_cast<WriteOp>(user)) {
        if (foreignRows(write.getValue()))
          return true;
        continue;
      }
      auto read = dyn_cast<ReadOp>(user);
      // A reduction's scratch, or any other op taking the var itself.
      if (!read)
        return true;
      if (llvm::any_of(read->getUses(), readsAcrossThreads))
        return true;
    }
    return false;
  }

  /// Keeps in registers (`tile.local`) every tile var that needs no shared
  /// memory; the others are laid out by the SharedAllocation.
  void decideStorage(KernelOp kernel) {
    int64_t threads = kernel.getThreads();
    kernel.walk([&](VarOp var) {
      if (var.getVarType().isScalar())
        return;
      var->removeAttr(kOffsetAttr);
      var->removeAttr(kLiveAttr);
      var->removeAttr(kLocalAttr);
      if (needsSharedMemory(var, threads))
        return;
      var->setAttr(kLocalAttr, UnitAttr::get(var.getContext()));
      if (report)
        emitRemark(var.getLoc())
            << "'" << var.getName() << "' kept in registers ("
            << getVarLayout(var).getSlotCount(var.getVarType().getShape(),
                                              threads)
            << " per thread): every element is read only by "
               "the thread that owns it";
    });
  }

  /// Pads the rows of every shared var a tensor-core dot reads an operand
  /// from, when the var's other accesses all address it by coordinates
  /// (reads and writes by owners, copies), so that the eight 16-byte rows
  /// of each ldmatrix fall in distinct banks: a row pitch of an odd number
  /// of 16-byte units spreads eight rows over the 128 bytes of the banks.
  /// That pitch also keeps a tf32 dot's loads of A (and of a B given
  /// transposed) apart: lane (g, t) reads word g pitch + t, 32 distinct
  /// banks. A tf32 dot's B as [K, N] is read at word t pitch + g (t < 4,
  /// g < 8): its pitch must be an odd number of 32-byte units instead.
  void padTensorCoreOperands(KernelOp kernel) {
    kernel.walk([&](VarOp var) {
      var->removeAttr(kPaddingAttr);
      // A wgmma operand's swizzle spreads its rows over the banks instead.
      if (!isSharedTile(var) || var.getVarType().getShape().size() != 2 ||
          getSwizzleBytes(var))
        return;
      bool operand = false, addressable = true;
      // The unit whose odd multiples the pitch must be: 16 bytes, or 32
      // for a tf32 B ([K, N]) when every dot reading the var wants that.
      int64_t unit = 0;
      auto visit = [&](Operation *user) {
        if (isa<WriteOp, CopyOp>(user))
          return;
        auto read = dyn_cast<ReadOp>(user);
        if (!read) {
          addressable = false;
          return;
        }
        for (OpOperand &use : read->getUses()) {
          if (!readsAcrossThreads(use))
            continue;
          auto dot = dyn_cast<DotOp>(use.getOwner());
          if (dot && getMmaLayout(dot) && use.getOperandNumber() < 2) {
            operand = true;
            int64_t wants = dot.getPrecision() == DotPrecision::tf32 &&
                                    use.getOperandNumber() == 1 &&
                                    !dot.getRhsTransposed()
                                ? 32
                                : 16;
            unit = unit && unit != wants ? 16 : wants;
          } else {
            addressable = false;
          }
        }
      };
      for (Operation *user : var->getUsers()) {
        if (isa<StageOp>(user))
          llvm::for_each(user->getUsers(), visit);
        else
          visit(user);
      }
      int64_t rowBytes =
          var.getVarType().getShape().back() *
          var.getVarType().getElementType().getIntOrFloatBitWidth() / 8;
      if (!operand || !addressable || rowBytes % unit != 0 ||
          (rowBytes / unit) % 2 != 0)
        return;
      int64_t padding =
          unit * 8 / var.getVarType().getElementType().getIntOrFloatBitWidth();
      var->setAttr(kPaddingAttr, Builder(var).getI64IntegerAttr(padding));
      if (report)
        emitRemark(var.getLoc())
            << "'" << var.getName() << "' rows padded by " << padding
            << " elements (" << rowBytes + unit << "-byte pitch): the "
            << (var.getVarType().getElementType().isF32()
                    ? "tf32 fragment loads"
                    : "ldmatrix rows")
            << " of a tensor-core dot's operand fall in distinct banks";
    });
  }

  void reportPlan(KernelOp kernel, MutableArrayRef<SharedBuffer> buffers,
                  int64_t total) {
    InFlightDiagnostic remark = emitRemark(kernel.getLoc());
    remark << "shared-memory plan of '" << kernel.getSymName() << "': " << total
           << " bytes, " << buffers.size() << " buffer(s)";
    for (SharedBuffer &buffer : buffers)
      remark << llvm::formatv("\n  {0,-16} {1,7} B at offset {2,6}, live "
                              "lines {3}-{4}",
                              "'" + buffer.var.getName().str() + "'",
                              buffer.bytes, buffer.offset,
                              getSourceLine(buffer.firstOp),
                              getSourceLine(buffer.lastOp))
                    .str();
  }

  bool report;
};

struct TilePlanShared : tile::impl::TilePlanSharedBase<TilePlanShared> {
  using TilePlanSharedBase::TilePlanSharedBase;

  void runOnOperation() override {
    KernelOp kernel = getOperation();
    FailureOr<int> chipNumber = parseChip(chip);
    if (failed(chipNumber)) {
      kernel.emitError("unsupported chip '") << chip << "'";
      return signalPassFailure();
    }
    int64_t limit = maxBytes > 0 ? maxBytes : getMaxSharedBytes(*chipNumber);
    SharedPlanner planner(report);
    FailureOr<int64_t> total = planner.run(kernel);
    if (failed(total))
      return signalPassFailure();
    if (*total <= limit)
      return;
    InFlightDiagnostic diag = kernel.emitError()
                              << "kernel '" << kernel.getSymName() << "' needs "
                              << *total
                              << " bytes of shared memory, more than the "
                              << limit << " "
                              << (maxBytes > 0 ? StringRef("the target")
                                               : StringRef(chip))
                              << " allows:";
    for (SharedBuffer &buffer : planner.buffers) {
      diag << " '" << buffer.var.getName() << "' (";
      if (std::optional<int64_t> stages = buffer.var.getStages())
        diag << *stages << " stages of " << getStageStride(buffer.var) << " B)";
      else
        diag << buffer.bytes << " B)";
    }
    signalPassFailure();
  }
};

} // namespace

FailureOr<int64_t> mlir::tile::planSharedMemory(KernelOp kernel) {
  return SharedPlanner(/*report=*/false).run(kernel);
}
