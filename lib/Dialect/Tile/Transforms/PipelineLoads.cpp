//===- PipelineLoads.cpp - loads issued iterations ahead ------------------===//
//
// `@pipeline(kt, stages = S)` asks for the slices that the loop over `kt`
// loads to be loaded S - 1 iterations ahead, so that their latency overlaps
// the work of the iterations in between. A slice past the end of its
// tensor reads zeros and touches no memory, so the loads for iterations
// that never run are harmless. Each load goes one of two ways:
//
// * Read across threads (a `dot` operand, a tile a reduction reads from
//   shared memory): it is bound for shared memory anyway, so it goes
//   there directly, into a ring of S shared stages filled by async copies
//   (cp.async), one group an iteration: iteration i waits for its group
//   (all but the S - 2 most recent), issues the copy for iteration
//   i + S - 1 into the stage iteration i - 1 read, and reads stage i mod
//   S. No register holds a tile in flight; tile-insert-barriers puts the
//   barrier between the wait and the copy.
// * Read only by the threads that own its elements: the tiles in flight
//   travel through the loop as iteration arguments, in registers.
//
// Without `stages`, the pass takes the most stages, up to
// kMaxAutoStages, that the kernel's shared memory and registers hold: it
// pipelines a copy of the kernel with each count and plans its shared
// memory (tile-plan-shared's planSharedMemory).
//
//===----------------------------------------------------------------------===//

#include "tile/Analysis/ThreadMapping.h"
#include "tile/Dialect/Tile/IR/ChipLimits.h"
#include "tile/Dialect/Tile/Transforms/Passes.h"

#include "mlir/Analysis/SliceAnalysis.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/SetVector.h"

namespace mlir::tile {
#define GEN_PASS_DEF_TILEPIPELINELOADS
#include "tile/Dialect/Tile/Transforms/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;
using namespace mlir::tile;

namespace {

/// The most stages `@pipeline` without `stages` takes: four stages keep
/// three tiles in flight, which hides a global load's latency behind the
/// work of as many iterations (Triton's GEMMs use 3 or 4).
constexpr int64_t kMaxAutoStages = 4;
/// Registers a thread keeps for what is not a tile (addresses, indices,
/// loop state) when estimating whether a pipeline's tiles fit.
constexpr int64_t kReservedRegisters = 32;
/// The same for the "ptxas may spill" warning about a loop with a SIMT dot
/// above 256 threads, where ptxas, reading .maxntid, spills to fit two
/// CTAs an SM (docs/design.md): in that share (64 registers at 512
/// threads) the estimate's shortfall on a SIMT dot counts for more.
/// Measured: at 512 threads a SIMT GEMM estimated at 25 spills, ptxas
/// needing 122 registers for it unconstrained.
constexpr int64_t kTwoCtaReservedRegisters = 2 * kReservedRegisters;

/// The ops of `loop`'s body that `load`'s offsets are computed from, in
/// order; failure when one of them cannot be recomputed for another
/// iteration (it reads memory, has regions, or uses a value the loop
/// carries).
FailureOr<SetVector<Operation *>> offsetSlice(LoadOp load, scf::ForOp loop) {
  BackwardSliceOptions options;
  options.inclusive = false;
  options.filter = [&](Operation *op) {
    return op->getBlock() == loop.getBody();
  };
  SetVector<Operation *> slice;
  if (failed(getBackwardSlice(load.getOperation(), &slice, options)))
    return failure();
  // Every value they use is the index, theirs, or from outside the loop
  // (not one the loop carries from iteration to iteration).
  auto recomputable = [&](Value value) {
    return value == loop.getInductionVar() ||
           loop.isDefinedOutsideOfLoop(value) ||
           slice.contains(value.getDefiningOp());
  };
  for (Operation *op : slice)
    if (!isPure(op) || op->getNumRegions() != 0 ||
        !llvm::all_of(op->getOperands(), recomputable))
      return failure();
  if (!llvm::all_of(load->getOperands(), recomputable))
    return failure();
  return slice;
}

/// Why `load`, directly in `loop`'s body, cannot be issued early, or an
/// empty string.
std::string whyNotPipelined(LoadOp load, scf::ForOp loop) {
  bool stored =
      loop.walk([&](Operation *op) {
            auto copy = dyn_cast<CopyOp>(op);
            bool writes = (writesTensor(op) &&
                           getAccessedTensor(op) == load.getSource()) ||
                          (copy && copy.getDest() == load.getSource());
            return writes ? WalkResult::interrupt() : WalkResult::advance();
          })
          .wasInterrupted();
  if (stored)
    return "the loop also stores to that tensor";
  if (failed(offsetSlice(load, loop)))
    return "its offsets depend on memory the loop reads or on values it "
           "carries from one iteration to the next";
  return "";
}

/// The widest chunk of an async copy of `type`: `width` elements of 16, 8
/// or 4 bytes that divide its rows; 0 when none does.
int64_t asyncCopyWidth(RankedTensorType type) {
  int64_t bytes =
      llvm::divideCeil(type.getElementType().getIntOrFloatBitWidth(), 8);
  for (int64_t chunk : {16, 8, 4})
    if (chunk % bytes == 0 && type.getShape().back() % (chunk / bytes) == 0)
      return chunk / bytes;
  return 0;
}

/// One load of a pipelined loop and how its tiles are staged.
struct StagedLoad {
  LoadOp load;
  /// The var of the loop's body the load initialises, whose reads are the
  /// load's uses (`var a = A[...]`); null when the load's own uses are.
  VarOp var;
  /// Shared stages with async copies of `width` elements, or registers.
  bool shared = false;
  int64_t width = 0;
  /// What reads the tile, for the remark.
  std::string reader;
};

/// How `load`'s tile is read in `loop`, and so how it is staged.
StagedLoad classify(LoadOp load, scf::ForOp loop, bool sharedStages) {
  StagedLoad staged{load};
  Value result = load.getResult();
  SmallVector<OpOperand *> uses;
  if (result.hasOneUse())
    if (auto var = dyn_cast<VarOp>(*result.getUsers().begin());
        var && var->getBlock() == loop.getBody() &&
        llvm::all_of(var->getUsers(), llvm::IsaPred<ReadOp>))
      staged.var = var;
  if (staged.var) {
    for (Operation *read : staged.var->getUsers())
      for (OpOperand &use : read->getUses())
        uses.push_back(&use);
  } else {
    for (OpOperand &use : result.getUses())
      uses.push_back(&use);
  }
  for (OpOperand *use : uses) {
    if (!readsAcrossThreads(*use))
      continue;
    staged.reader = use->getOwner()->getName().getStringRef().str();
    staged.width = sharedStages ? asyncCopyWidth(load.getType()) : 0;
    staged.shared = staged.width != 0;
    break;
  }
  return staged;
}

/// Why `staged` went where it did, for its remark and the manifest.
std::string whyStaged(const StagedLoad &staged, bool sharedStages) {
  if (staged.reader.empty())
    return "only the threads that own its elements read it";
  std::string reader = "'" + staged.reader + "' reads it across threads";
  if (staged.shared)
    return reader + ", so it goes to shared memory anyway, and no register "
                    "holds it in flight";
  return reader + (sharedStages ? ", but its rows are no whole chunks of 4 "
                                  "bytes for cp.async"
                                : ", and @pipeline says shared = false");
}

/// The bytes of one element of `type`.
int64_t elementBytes(RankedTensorType type) {
  return llvm::divideCeil(type.getElementType().getIntOrFloatBitWidth(), 8);
}

/// About how many registers a thread keeps for a SIMT `dot` in the
/// inner product tile-to-gpu lowers it to (the thread of element e is
/// e % threads, its slot e / threads): a partial sum a slot (unless it
/// accumulates into a register tile, counted already), the operand
/// elements of one step (one a distinct row of the left operand and one a
/// distinct column of the right that its slots read), and the 64-bit
/// shared address of each, which ptxas keeps through the inner loop,
/// unless that row (column) is at the same distance from slot 0's in every
/// thread (an immediate offset). Slots that may hold no element compute
/// their coordinates at run time: nothing is shared or immediate. An upper
/// bound rather than a plan: ptxas may recompute or reuse some.
int64_t simtDotRegisters(DotOp dot, int64_t threads) {
  RankedTensorType type = dot.getType();
  int64_t columns = type.getDimSize(1), elements = type.getNumElements();
  int64_t slots = llvm::divideCeil(elements, threads);
  bool sumsCounted = dot.getAcc() && isa<BlockArgument>(dot.getAcc());
  int64_t sums = sumsCounted ? 0 : slots;
  if (elements % threads != 0)
    return sums + 2 * slots + 2 * 2 * slots;
  // Whether slot s's row (column) is at one distance from slot 0's in
  // every thread.
  auto rowOf = [&](int64_t thread, int64_t slot) {
    return (slot * threads + thread) / columns;
  };
  auto columnOf = [&](int64_t thread, int64_t slot) {
    return (slot * threads + thread) % columns;
  };
  SmallVector<bool> rowImmediate(slots, true), columnImmediate(slots, true);
  for (int64_t thread = 1; thread < threads; ++thread)
    for (int64_t slot = 1; slot < slots; ++slot) {
      rowImmediate[slot] =
          rowImmediate[slot] && rowOf(thread, slot) - rowOf(thread, 0) ==
                                    rowOf(0, slot) - rowOf(0, 0);
      columnImmediate[slot] = columnImmediate[slot] &&
                              columnOf(thread, slot) - columnOf(thread, 0) ==
                                  columnOf(0, slot) - columnOf(0, 0);
    }
  int64_t most = 0;
  for (int64_t thread = 0; thread < threads; ++thread) {
    llvm::SmallDenseSet<int64_t> rows, cols, addressedRows, addressedCols;
    for (int64_t slot = 0; slot < slots; ++slot) {
      rows.insert(rowOf(thread, slot));
      cols.insert(columnOf(thread, slot));
      if (!rowImmediate[slot])
        addressedRows.insert(rowOf(thread, slot));
      if (!columnImmediate[slot])
        addressedCols.insert(columnOf(thread, slot));
    }
    // Slot 0's row and column are the two base addresses.
    int64_t addresses = 2 * (2 + addressedRows.size() + addressedCols.size());
    most = std::max<int64_t>(most, rows.size() + cols.size() + addresses);
  }
  return sums + most;
}

struct TilePipelineLoads
    : tile::impl::TilePipelineLoadsBase<TilePipelineLoads> {
  using TilePipelineLoadsBase::TilePipelineLoadsBase;

  using Work = llvm::MapVector<Operation *, SetVector<Operation *>>;

  /// `shared = false` keeps every tile in flight in registers.
  bool sharedStages = true;
  /// The chip's number (90 for sm_90).
  int chipVersion = 0;
  /// The shared memory the kernel may use: max-shared-bytes, else the
  /// chip's.
  int64_t sharedLimit = 0;
  /// Whether @pipeline gave the stages ("given") or the pass chose them
  /// ("auto"), for the manifest.
  StringRef stagesChosen = "given";

  void runOnOperation() override {
    KernelOp kernel = getOperation();
    DictionaryAttr pipeline = kernel.getPipelineAttr();
    if (!pipeline)
      return;
    // Carried out once: the loops it pipelines are recorded in
    // tile.pipelined, and a second run changes nothing.
    kernel.removePipelineAttr();
    auto names = pipeline.getAs<ArrayAttr>("names");
    if (!names || names.empty()) {
      kernel.emitWarning("@pipeline names no loop or var: nothing to "
                         "pipeline");
      return;
    }
    // Each loop once, with the loads of every name that reaches it.
    Work work;
    for (Attribute name : names)
      collect(kernel, cast<StringAttr>(name).getValue(), work);
    if (work.empty())
      return;
    FailureOr<int> chipNumber = parseChip(chip);
    if (failed(chipNumber)) {
      kernel.emitError("unsupported chip '") << chip << "'";
      return signalPassFailure();
    }
    chipVersion = *chipNumber;
    sharedLimit =
        maxSharedBytes > 0 ? maxSharedBytes : getMaxSharedBytes(chipVersion);
    // The kernel's verifier checked the options.
    auto sharedAttr = pipeline.getAs<BoolAttr>("shared");
    sharedStages = !sharedAttr || sharedAttr.getValue();
    auto stagesAttr = pipeline.getAs<IntegerAttr>("stages");
    int64_t stages = stagesAttr ? stagesAttr.getInt() : chooseStages(work);
    stagesChosen = stagesAttr ? "given" : "auto";
    int64_t tiles = estimateRegisters(kernel, work, stages);
    int64_t simtDot = 0;
    int64_t inLoop = estimateLoopRegisters(work, simtDot);
    int64_t reserved =
        simtDot > 0 && kernel.getThreads() > kMostThreadsWithEveryRegister
            ? kTwoCtaReservedRegisters
            : kReservedRegisters;
    int64_t budget = spillBudget(reserved);
    if (tiles + inLoop > budget)
      kernel.emitWarning("@pipeline with ")
          << stages << " stages keeps about " << tiles + inLoop
          << " registers a thread (" << tiles
          << " of tiles: register tiles, and tiles in flight in registers; "
          << inLoop
          << " in the loop: a SIMT dot's sums, operands and their addresses, "
             "and the async copies' addresses), more than the "
          << budget << " a thread has for them with " << kernel.getThreads()
          << " threads"
          << (kernel.getThreads() > kMostThreadsWithEveryRegister
                  ? " at ptxas's target of two CTAs an SM (" +
                        std::to_string(getRegistersPerThread(
                            kernel.getThreads(), /*ctas=*/2)) +
                        " registers a thread, less " +
                        std::to_string(reserved) + " for the rest)"
                  : std::string())
          << ": ptxas may spill";
    for (auto &[loop, loads] : work)
      pipelineLoop(kernel, cast<scf::ForOp>(loop), loads.getArrayRef(), stages,
                   remarks);
  }

  /// Registers a thread may use for tiles: its share of the register file
  /// with one CTA an SM, at most 255.
  int64_t registerBudget() {
    return getRegistersPerThread(getOperation().getThreads(), /*ctas=*/1) -
           kReservedRegisters;
  }

  /// Registers a thread may use for tiles before ptxas may spill, keeping
  /// `reserved`: as registerBudget up to 256 threads (the PTX has no
  /// .maxntid); above, the share of two CTAs an SM, ptxas's target under
  /// .maxntid.
  int64_t spillBudget(int64_t reserved) {
    int64_t threads = getOperation().getThreads();
    if (threads <= kMostThreadsWithEveryRegister)
      return registerBudget();
    return std::max<int64_t>(0, getRegistersPerThread(threads, /*ctas=*/2) -
                                    reserved);
  }

  /// About how many registers a thread keeps for tiles with `stages`:
  /// its register tiles, and for each load staged in registers the tile in
  /// use and those in flight (one register an element).
  int64_t estimateRegisters(KernelOp kernel, const Work &work, int64_t stages) {
    int64_t registers = 0;
    if (auto promoted = kernel->getAttrOfType<ArrayAttr>(kPromotedAttr))
      for (auto entry : promoted.getAsRange<PromotedVarAttr>())
        registers += entry.getSlots();
    int64_t threads = kernel.getThreads();
    for (auto &[loop, loads] : work)
      for (Operation *op : loads) {
        StagedLoad staged =
            classify(cast<LoadOp>(op), cast<scf::ForOp>(loop), sharedStages);
        if (!staged.shared)
          registers +=
              stages *
              llvm::divideCeil(getNumElements(staged.load.getType()), threads);
      }
    return registers;
  }

  /// About how many registers a thread keeps, whatever the stages, for
  /// the work of a pipelined loop: the SIMT dot with the largest working
  /// set (simtDotRegisters), and 2 (a 64-bit global address) for each
  /// cp.async a thread issues an iteration. Stages do not change it, so
  /// chooseStages leaves it out; it is added for the warning. `simtDot` is
  /// set to the SIMT dot's part (0 when every dot is on tensor cores).
  int64_t estimateLoopRegisters(const Work &work, int64_t &simtDot) {
    KernelOp kernel = getOperation();
    int64_t threads = kernel.getThreads();
    int64_t registers = 0;
    for (auto &[loop, loads] : work)
      for (Operation *op : loads) {
        StagedLoad staged =
            classify(cast<LoadOp>(op), cast<scf::ForOp>(loop), sharedStages);
        if (staged.shared)
          registers +=
              2 * llvm::divideCeil(getNumElements(staged.load.getType()),
                                   staged.width * threads);
      }
    // Which dots stay SIMT is tile-tensor-cores' decision: taken on a copy.
    IRMapping mapping;
    OwningOpRef<ModuleOp> scratch = ModuleOp::create(kernel.getLoc());
    auto copy = cast<KernelOp>(kernel->clone(mapping));
    scratch->getBody()->push_back(copy);
    assignTensorCores(copy, chipVersion);
    int64_t largestDot = 0;
    for (auto &entry : work)
      mapping.lookup(entry.first)->walk([&](DotOp dot) {
        if (!getMmaLayout(dot))
          largestDot = std::max(largestDot, simtDotRegisters(dot, threads));
      });
    simtDot = largestDot;
    return registers + largestDot;
  }

  /// The most stages, from kMaxAutoStages down to 2, with which the
  /// kernel's shared memory fits `sharedLimit` and its tiles the
  /// registers; 2 when none fits (tile-plan-shared then names the buffers).
  int64_t chooseStages(const Work &work) {
    KernelOp kernel = getOperation();
    int64_t budget = registerBudget();
    std::string why; // why 3 stages do not fit
    for (int64_t stages = kMaxAutoStages; stages > 2; --stages) {
      int64_t registers = estimateRegisters(kernel, work, stages);
      if (registers > budget) {
        why = std::to_string(registers) +
              " registers a thread of tiles, "
              "more than the " +
              std::to_string(budget) + " it has for them";
        continue;
      }
      FailureOr<int64_t> bytes = sharedBytesWith(work, stages);
      if (succeeded(bytes) && *bytes <= sharedLimit) {
        if (remarks)
          kernel.emitRemark("@pipeline: ")
              << stages << " stages (the most, up to " << kMaxAutoStages
              << ", that fit: " << *bytes << " bytes of shared memory)";
        return stages;
      }
      why = succeeded(bytes) ? std::to_string(*bytes) +
                                   " bytes of shared memory, more than the " +
                                   std::to_string(sharedLimit) + " a CTA has"
                             : "a shared-memory plan that fails";
    }
    if (remarks)
      kernel.emitRemark("@pipeline: 2 stages (3 would need ") << why << ")";
    return 2;
  }

  /// The shared memory the kernel needs when its loops of `work` are
  /// pipelined with `stages`: planned on a copy of the kernel.
  FailureOr<int64_t> sharedBytesWith(const Work &work, int64_t stages) {
    KernelOp kernel = getOperation();
    IRMapping mapping;
    OwningOpRef<ModuleOp> scratch = ModuleOp::create(kernel.getLoc());
    auto copy = cast<KernelOp>(kernel->clone(mapping));
    scratch->getBody()->push_back(copy);
    ScopedDiagnosticHandler quiet(kernel.getContext(),
                                  [](Diagnostic &) { return success(); });
    for (auto &[loop, loads] : work) {
      SmallVector<Operation *> copies = llvm::map_to_vector(
          loads, [&](Operation *load) { return mapping.lookup(load); });
      pipelineLoop(copy, cast<scf::ForOp>(mapping.lookup(loop)), copies, stages,
                   /*remark=*/false);
    }
    // Which dots run on tensor cores decides which operands the plan pads
    // (and which results convert through shared memory).
    assignTensorCores(copy, chipVersion);
    return planSharedMemory(copy);
  }

  /// Adds to `work` the loads of every loop whose index is `name`, and the
  /// loads that set the vars named `name` in a loop, that can be issued
  /// early; warns about the others, and when `name` reaches no load.
  void collect(KernelOp kernel, StringRef name, Work &work) {
    SmallVector<std::pair<scf::ForOp, LoadOp>> candidates;
    bool loopNamed = false;
    kernel.walk([&](scf::ForOp loop) {
      auto index = loop->getAttrOfType<StringAttr>(kIndexAttr);
      if (!index || index.getValue() != name)
        return;
      loopNamed = true;
      bool any = false;
      for (Operation &op : loop.getBody()->without_terminator())
        if (auto load = dyn_cast<LoadOp>(op)) {
          candidates.push_back({loop, load});
          any = true;
        }
      if (!any)
        loop.emitWarning("@pipeline(")
            << name << "): the loop loads no slice: nothing to pipeline";
    });
    kernel.walk([&](Operation *op) {
      Value value, var;
      if (auto varOp = dyn_cast<VarOp>(op)) {
        value = varOp.getInit();
        var = varOp.getResult();
      } else if (auto write = dyn_cast<WriteOp>(op)) {
        value = write.getValue();
        var = write.getVar();
      }
      auto load = value ? value.getDefiningOp<LoadOp>() : LoadOp();
      auto loop =
          load ? dyn_cast<scf::ForOp>(load->getParentOp()) : scf::ForOp();
      if (loop && getVarOp(var).getName() == name)
        candidates.push_back({loop, load});
    });
    if (candidates.empty() && !loopNamed)
      kernel.emitWarning("@pipeline(")
          << name << "): no loop over '" << name << "' and no var '" << name
          << "' set by a load in a loop: nothing to pipeline";
    for (auto [loop, load] : candidates) {
      std::string reason = whyNotPipelined(load, loop);
      if (reason.empty())
        work[loop].insert(load);
      else
        load.emitWarning("@pipeline(")
            << name << "): this load is not issued early: " << reason;
    }
  }

  /// Issues each of `loadOps` of `loop` `stages - 1` iterations ahead:
  /// into shared stages or in registers (see the file's comment).
  void pipelineLoop(KernelOp kernel, scf::ForOp loop,
                    ArrayRef<Operation *> loadOps, int64_t stages,
                    bool remark) {
    SmallVector<StagedLoad> shared, inRegisters;
    for (Operation *op : loadOps) {
      StagedLoad staged = classify(cast<LoadOp>(op), loop, sharedStages);
      (staged.shared ? shared : inRegisters).push_back(staged);
    }
    SmallVector<Attribute> staging; // one record a load, for the manifest
    int64_t sharedBytes = stageInShared(loop, shared, stages, remark, staging);
    int64_t inFlight = 0; // elements per thread
    if (!inRegisters.empty())
      loop = stageInRegisters(kernel, loop, inRegisters, stages - 1, inFlight,
                              remark, staging);
    record(kernel, loop, loadOps.size(), stages, shared.size(), sharedBytes,
           inFlight, staging);
  }

  /// The manifest's record of how `staged` is staged: `in` shared memory
  /// or registers, the `bytes` that holds (the ring's stages, or the tiles
  /// in flight across the CTA's registers), the bytes a thread moves at a
  /// time by cp.async (0 in registers), and why.
  StagedLoadAttr stagingRecord(StagedLoad staged, StringRef medium,
                               int64_t bytes) {
    Builder builder(staged.load.getContext());
    int64_t chunk = staged.width * elementBytes(staged.load.getType());
    return StagedLoadAttr::get(
        builder.getContext(),
        builder.getStringAttr(staged.var ? staged.var.getName()
                                         : StringRef("load")),
        staged.load.getLoc(), builder.getStringAttr(medium), bytes,
        staged.shared ? chunk : 0,
        builder.getStringAttr(whyStaged(staged, sharedStages)));
  }

  /// The iteration `ahead` steps after the one whose index is `index`.
  static Value later(OpBuilder &builder, scf::ForOp loop, Value index,
                     int64_t ahead) {
    if (ahead == 0)
      return index;
    Location loc = loop.getLoc();
    Value count = arith::ConstantIndexOp::create(builder, loc, ahead);
    Value offset = arith::MulIOp::create(builder, loc, loop.getStep(), count);
    return arith::AddIOp::create(builder, loc, index, offset).getResult();
  }

  /// Fills a ring of `stages` shared tiles for each of `loads` with async
  /// copies; returns the bytes of the rings.
  int64_t stageInShared(scf::ForOp loop, MutableArrayRef<StagedLoad> loads,
                        int64_t stages, bool remark,
                        SmallVectorImpl<Attribute> &staging) {
    if (loads.empty())
      return 0;
    Location loc = loop.getLoc();
    OpBuilder builder(loop);
    Value zero = arith::ConstantIndexOp::create(builder, loc, 0);
    SmallVector<VarOp> rings;
    SmallVector<SetVector<Operation *>> slices;
    int64_t bytes = 0;
    for (StagedLoad &staged : loads) {
      RankedTensorType type = staged.load.getType();
      std::string name =
          (staged.var ? staged.var.getName() : StringRef("load")).str() +
          ".stages";
      auto ring =
          VarOp::create(builder, staged.load.getLoc(), name,
                        VarType::get(builder.getContext(), type.getShape(),
                                     type.getElementType()),
                        /*init=*/Value());
      ring.setStages(stages);
      rings.push_back(ring);
      slices.push_back(*offsetSlice(staged.load, loop));
      bytes += getStorageBytes(ring);
    }
    // The copy of `staged`'s slice for the iteration whose index is
    // `index` into the stage `rotation + offset`.
    auto issue = [&](OpBuilder &at, size_t i, Value index, Value rotation,
                     int64_t offset) {
      StagedLoad &staged = loads[i];
      IRMapping mapping;
      mapping.map(loop.getInductionVar(), index);
      for (Operation *op : slices[i])
        at.clone(*op, mapping);
      Value stage =
          StageOp::create(at, staged.load.getLoc(), rings[i], rotation, offset);
      SmallVector<Value> sourceOffsets =
          llvm::map_to_vector(staged.load.getOffsets(), [&](Value offset) {
            return mapping.lookupOrDefault(offset);
          });
      SmallVector<Value> destOffsets(sourceOffsets.size(), zero);
      CopyOp::create(at, staged.load.getLoc(), staged.load.getSource(),
                     sourceOffsets, stage, destOffsets, /*mask=*/Value(),
                     at.getDenseI64ArrayAttr(staged.load.getType().getShape()),
                     at.getI64IntegerAttr(staged.width), at.getUnitAttr());
    };
    // Before the loop: the stages of the first `stages - 1` iterations,
    // one group each.
    for (int64_t ahead = 0; ahead + 1 < stages; ++ahead) {
      Value index = later(builder, loop, loop.getLowerBound(), ahead);
      for (size_t i = 0; i < loads.size(); ++i)
        issue(builder, i, index, zero, ahead);
      CommitGroupOp::create(builder, loc);
    }
    // Each iteration: wait for its group, issue the one `stages - 1`
    // later, read its stage. The rotation is the iteration's number.
    OpBuilder body = OpBuilder::atBlockBegin(loop.getBody());
    Value rotation = arith::DivUIOp::create(
        body, loc,
        arith::SubIOp::create(body, loc, loop.getInductionVar(),
                              loop.getLowerBound()),
        loop.getStep());
    WaitGroupOp::create(body, loc, stages - 2);
    Value next = later(body, loop, loop.getInductionVar(), stages - 1);
    for (size_t i = 0; i < loads.size(); ++i)
      issue(body, i, next, rotation, stages - 1);
    CommitGroupOp::create(body, loc);
    for (auto [staged, ring] : llvm::zip(loads, rings)) {
      staging.push_back(stagingRecord(staged, "shared", getStorageBytes(ring)));
      OpBuilder at(staged.var ? staged.var.getOperation()
                              : staged.load.getOperation());
      Value front =
          StageOp::create(at, staged.load.getLoc(), ring, rotation, 0);
      if (staged.var) {
        staged.var.getResult().replaceAllUsesWith(front);
        staged.var.erase();
      } else {
        staged.load.getResult().replaceAllUsesWith(ReadOp::create(
            at, staged.load.getLoc(), staged.load.getType(), front));
      }
      if (remark)
        staged.load.emitRemark("loaded ")
            << stages - 1 << " iteration(s) ahead (@pipeline) into " << stages
            << " shared stages of " << getStageStride(ring) << " B ('"
            << ring.getName() << "') by cp.async, "
            << staged.width * elementBytes(staged.load.getType())
            << " B a thread at a time: " << whyStaged(staged, sharedStages);
      staged.load.erase();
    }
    // After the loop, every copy lands before the ring's bytes are reused
    // (at the loop's last line, for the plan's live range).
    OpBuilder after(loop->getBlock(), std::next(loop->getIterator()));
    Operation *last = loop.getBody()->getTerminator()->getPrevNode();
    WaitGroupOp::create(after, last ? last->getLoc() : loc, 0);
    return bytes;
  }

  /// Issues each of `loads` `distance` iterations ahead in registers: the
  /// first `distance` iterations' slices are loaded before the loop, and
  /// each iteration loads the slice of the iteration `distance` later.
  /// Returns the new loop.
  scf::ForOp stageInRegisters(KernelOp kernel, scf::ForOp loop,
                              ArrayRef<StagedLoad> staged, int64_t distance,
                              int64_t &inFlight, bool remark,
                              SmallVectorImpl<Attribute> &staging) {
    SmallVector<LoadOp> loads = llvm::map_to_vector(
        staged, [](const StagedLoad &load) { return load.load; });
    // whyNotPipelined checked that each slice exists.
    SmallVector<SetVector<Operation *>> slices = llvm::map_to_vector(
        loads, [&](LoadOp load) { return *offsetSlice(load, loop); });
    IRRewriter rewriter(loop.getContext());
    rewriter.setInsertionPoint(loop);
    SmallVector<Value> inits;
    for (auto [load, slice] : llvm::zip(loads, slices))
      for (int64_t ahead = 0; ahead < distance; ++ahead)
        inits.push_back(
            cloneLoad(rewriter, load, slice, loop,
                      later(rewriter, loop, loop.getLowerBound(), ahead)));
    auto newYields = [&](OpBuilder &builder, Location,
                         ArrayRef<BlockArgument> carried) {
      OpBuilder::InsertionGuard guard(builder);
      Block *body = carried.front().getOwner();
      builder.setInsertionPointToStart(body);
      Value index = body->getArgument(0);
      Value next = later(builder, loop, index, distance);
      SmallVector<Value> yields;
      for (auto [i, load] : llvm::enumerate(loads)) {
        ArrayRef<BlockArgument> inFlightArgs =
            carried.slice(i * distance, distance);
        yields.append(inFlightArgs.begin() + 1, inFlightArgs.end());
        yields.push_back(cloneLoad(builder, load, slices[i], loop, next));
      }
      return yields;
    };
    FailureOr<LoopLikeOpInterface> replaced = loop.replaceWithAdditionalYields(
        rewriter, inits,
        /*replaceInitOperandUsesInLoop=*/false, newYields);
    auto pipelined = cast<scf::ForOp>(replaced->getOperation());
    ArrayRef<BlockArgument> carried = pipelined.getRegionIterArgs().take_back(
        static_cast<int64_t>(loads.size()) * distance);
    for (auto [i, load] : llvm::enumerate(loads)) {
      rewriter.replaceAllUsesWith(load.getResult(), carried[i * distance]);
      int64_t slots =
          llvm::divideCeil(getNumElements(load.getType()), kernel.getThreads());
      inFlight += slots * distance;
      staging.push_back(
          stagingRecord(staged[i], "registers",
                        distance * getNumElements(load.getType()) *
                            elementBytes(load.getType())));
      if (remark)
        load.emitRemark("loaded ")
            << distance
            << " iteration(s) ahead (@pipeline) in registers: " << distance
            << " more tile(s) of " << slots
            << " element(s) per thread in flight; "
            << whyStaged(staged[i], sharedStages);
      rewriter.eraseOp(load);
    }
    return pipelined;
  }

  /// Adds the loop to the kernel's `tile.pipelined` list, which the
  /// manifest and tile-run's report show.
  void record(KernelOp kernel, scf::ForOp loop, int64_t loads, int64_t stages,
              int64_t sharedLoads, int64_t sharedBytes, int64_t inFlight,
              ArrayRef<Attribute> staging) {
    Builder builder(kernel);
    auto index = loop->getAttrOfType<StringAttr>(kIndexAttr);
    SmallVector<Attribute> entries;
    if (auto list = kernel->getAttrOfType<ArrayAttr>(kPipelinedAttr))
      llvm::append_range(entries, list);
    entries.push_back(PipelinedLoopAttr::get(
        kernel.getContext(), index ? index : builder.getStringAttr("?"),
        loop.getLoc(), loads, stages, builder.getStringAttr(stagesChosen),
        stages - 1, sharedLoads, sharedBytes, inFlight,
        builder.getArrayAttr(staging)));
    kernel->setAttr(kPipelinedAttr, builder.getArrayAttr(entries));
  }

  /// A copy of `load` at the builder's insertion point for the iteration
  /// whose index is `index`: its offsets are recomputed from that index by
  /// copies of `slice`, the ops of the loop's body they come from.
  static Value cloneLoad(OpBuilder &builder, LoadOp load,
                         const SetVector<Operation *> &slice, scf::ForOp loop,
                         Value index) {
    IRMapping mapping;
    mapping.map(loop.getInductionVar(), index);
    for (Operation *op : slice)
      builder.clone(*op, mapping);
    return builder.clone(*load, mapping)->getResult(0);
  }
};

} // namespace
