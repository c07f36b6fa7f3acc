//===- PipelineLoads.cpp - loads issued iterations ahead ------------------===//
//
// `@pipeline(kt, stages = S)` asks for the slices that the loop over `kt`
// loads to be loaded S - 1 iterations ahead, so that their latency overlaps
// the work of the iterations in between. The tiles in flight travel through
// the loop as iteration arguments (registers, like any tile only its owners
// read). A slice past the end of its tensor reads zeros and touches no
// memory, so the loads for iterations that never run are harmless.
//
//===----------------------------------------------------------------------===//

#include "tile/Dialect/Tile/IR/TileDialect.h"
#include "tile/Dialect/Tile/Transforms/Passes.h"

#include "mlir/Analysis/SliceAnalysis.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/SetVector.h"

namespace mlir::tile {
#define GEN_PASS_DEF_TILEPIPELINELOADS
#include "tile/Dialect/Tile/Transforms/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;
using namespace mlir::tile;

namespace {

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
            return writesTensor(op) && getAccessedTensor(op) == load.getSource()
                       ? WalkResult::interrupt()
                       : WalkResult::advance();
          })
          .wasInterrupted();
  if (stored)
    return "the loop also stores to that tensor";
  if (failed(offsetSlice(load, loop)))
    return "its offsets depend on memory the loop reads or on values it "
           "carries from one iteration to the next";
  return "";
}

struct TilePipelineLoads
    : tile::impl::TilePipelineLoadsBase<TilePipelineLoads> {
  using TilePipelineLoadsBase::TilePipelineLoadsBase;

  void runOnOperation() override {
    KernelOp kernel = getOperation();
    DictionaryAttr pipeline = kernel.getPipelineAttr();
    if (!pipeline)
      return;
    // Carried out once: the loops it pipelines are recorded in
    // tile.pipelined, and a second run changes nothing.
    kernel.removePipelineAttr();
    // The kernel's verifier checked the options.
    auto stagesAttr = pipeline.getAs<IntegerAttr>("stages");
    int64_t stages = stagesAttr ? stagesAttr.getInt() : 2;
    auto names = pipeline.getAs<ArrayAttr>("names");
    if (!names || names.empty()) {
      kernel.emitWarning("@pipeline names no loop or var: nothing to "
                         "pipeline");
      return;
    }
    // Each loop once, with the loads of every name that reaches it.
    llvm::MapVector<Operation *, SetVector<Operation *>> work;
    for (Attribute name : names)
      collect(kernel, cast<StringAttr>(name).getValue(), work);
    for (auto &[loop, loads] : work)
      pipelineLoop(cast<scf::ForOp>(loop), loads.getArrayRef(), stages - 1);
  }

  /// Adds to `work` the loads of every loop whose index is `name`, and the
  /// loads that set the vars named `name` in a loop, that can be issued
  /// early; warns about the others, and when `name` reaches no load.
  void collect(KernelOp kernel, StringRef name,
               llvm::MapVector<Operation *, SetVector<Operation *>> &work) {
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

  /// Issues each of `loads` `distance` iterations ahead: the first
  /// `distance` iterations' slices are loaded before the loop, and each
  /// iteration loads the slice of the iteration `distance` later.
  void pipelineLoop(scf::ForOp loop, ArrayRef<Operation *> loadOps,
                    int64_t distance) {
    SmallVector<LoadOp> loads = llvm::map_to_vector(
        loadOps, [](Operation *op) { return cast<LoadOp>(op); });
    // whyNotPipelined checked that each slice exists.
    SmallVector<SetVector<Operation *>> slices = llvm::map_to_vector(
        loads, [&](LoadOp load) { return *offsetSlice(load, loop); });
    IRRewriter rewriter(loop.getContext());
    rewriter.setInsertionPoint(loop);
    Location loc = loop.getLoc();
    // The iteration `ahead` steps after the one whose index is `index`.
    auto later = [&](OpBuilder &builder, Value index, int64_t ahead) {
      if (ahead == 0)
        return index;
      Value count = arith::ConstantIndexOp::create(builder, loc, ahead);
      Value offset = arith::MulIOp::create(builder, loc, loop.getStep(), count);
      return arith::AddIOp::create(builder, loc, index, offset).getResult();
    };
    SmallVector<Value> inits;
    for (auto [load, slice] : llvm::zip(loads, slices))
      for (int64_t ahead = 0; ahead < distance; ++ahead)
        inits.push_back(
            cloneLoad(rewriter, load, slice, loop,
                      later(rewriter, loop.getLowerBound(), ahead)));
    auto newYields = [&](OpBuilder &builder, Location,
                         ArrayRef<BlockArgument> carried) {
      OpBuilder::InsertionGuard guard(builder);
      Block *body = carried.front().getOwner();
      builder.setInsertionPointToStart(body);
      Value index = body->getArgument(0);
      Value next = later(builder, index, distance);
      SmallVector<Value> yields;
      for (auto [i, load] : llvm::enumerate(loads)) {
        ArrayRef<BlockArgument> inFlight =
            carried.slice(i * distance, distance);
        yields.append(inFlight.begin() + 1, inFlight.end());
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
    int64_t inFlight = 0; // elements per thread
    for (auto [i, load] : llvm::enumerate(loads)) {
      rewriter.replaceAllUsesWith(load.getResult(), carried[i * distance]);
      int64_t slots = llvm::divideCeil(getNumElements(load.getType()),
                                       getOperation().getThreads());
      inFlight += slots * distance;
      if (remarks)
        load.emitRemark("loaded ")
            << distance << " iteration(s) ahead (@pipeline): " << distance
            << " more tile(s) of " << slots
            << " element(s) per thread in flight";
      rewriter.eraseOp(load);
    }
    record(pipelined, loads.size(), distance, inFlight);
  }

  /// Adds the loop to the kernel's `tile.pipelined` list, which the
  /// manifest and tile-run's report show.
  void record(scf::ForOp loop, int64_t loads, int64_t distance,
              int64_t inFlight) {
    KernelOp kernel = getOperation();
    Builder builder(kernel);
    auto index = loop->getAttrOfType<StringAttr>(kIndexAttr);
    SmallVector<Attribute> entries;
    if (auto list = kernel->getAttrOfType<ArrayAttr>(kPipelinedAttr))
      llvm::append_range(entries, list);
    entries.push_back(builder.getDictionaryAttr({
        builder.getNamedAttr("loop",
                             index ? index : builder.getStringAttr("?")),
        builder.getNamedAttr("loc", loop.getLoc()),
        builder.getNamedAttr("loads", builder.getI64IntegerAttr(loads)),
        builder.getNamedAttr("ahead", builder.getI64IntegerAttr(distance)),
        builder.getNamedAttr("elements_per_thread",
                             builder.getI64IntegerAttr(inFlight)),
    }));
    kernel->setAttr(kPipelinedAttr, builder.getArrayAttr(entries));
  }

  /// A copy of `load` at the builder's insertion point for the iteration
  /// whose index is `index`: its offsets are recomputed from that index by
  /// copies of `slice`, the ops of the loop's body they come from.
  Value cloneLoad(OpBuilder &builder, LoadOp load,
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
