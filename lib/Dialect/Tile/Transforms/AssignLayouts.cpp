//===- AssignLayouts.cpp - wide runs for tiles no one can observe ---------===//
//
// Groups the tiles joined by same-shape elementwise ops, loops (an init, its
// iteration argument, what the body yields and the result) and free
// broadcasts of row results (with the tile the rows were reduced from); a
// group whose every member is made and used only by ops that read or write
// each element by coordinates (slices, gathers of whole rows, stores,
// splats, iotas, constants, reads and writes of register vars, broadcasts
// from shared memory) or that reduce its rows where they live gets runs of
// several consecutive elements a thread: 16-byte accesses, and rows of up
// to 64 f32 inside one warp, which a reduction folds with shuffles alone.
//
//===----------------------------------------------------------------------===//

#include "tile/Analysis/ThreadMapping.h"
#include "tile/Dialect/Tile/IR/Gathers.h"
#include "tile/Dialect/Tile/IR/Layouts.h"
#include "tile/Dialect/Tile/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/EquivalenceClasses.h"

namespace mlir::tile {
#define GEN_PASS_DEF_TILEASSIGNLAYOUTS
#include "tile/Dialect/Tile/Transforms/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;
using namespace mlir::tile;

namespace {

/// The most bytes one access of a thread moves (ld.global.v4.b32).
constexpr int64_t kMaxAccessBytes = 16;

/// A tile var the planner keeps in the registers of its owners
/// (tile.local): its slots hold whatever layout its values share.
VarOp getLocalVar(Value var) {
  auto op = var.getDefiningOp<VarOp>();
  return op && op->hasAttr(kLocalAttr) ? op : VarOp();
}

/// The shared tile var (not a ring, not the spill of a register tile)
/// that `var` is, or null: its writes address each element by its
/// coordinates, whatever the layout of the value written.
VarOp getSharedTileVar(Value var) {
  auto op = var.getDefiningOp<VarOp>();
  return op && isSharedTile(op) && !op.isRing() && op->hasAttr(kOffsetAttr) &&
                 !op->hasAttr(kSpillOfAttr)
             ? op
             : VarOp();
}

/// The reduction whose row result `broadcast` spreads back over the rows
/// it was reduced from, where every lane of a row already holds it; null
/// for any other broadcast.
ReductionOpInterface getFreelyBroadcastRows(BroadcastOp broadcast) {
  if (classifyTileUse(broadcast->getOpOperand(0)) != TileUseKind::FreeBroadcast)
    return {};
  return broadcast.getInput().getDefiningOp<ReductionOpInterface>();
}

/// Whether `value` may take a layout of its group's choosing: it is made by
/// an op that computes each element from its coordinates alone, or carried
/// by a loop whose init and yield are in its group.
bool isFreelyMade(Value value) {
  if (auto arg = dyn_cast<BlockArgument>(value))
    return isa<scf::ForOp>(arg.getOwner()->getParentOp()) &&
           arg.getArgNumber() > 0;
  Operation *def = value.getDefiningOp();
  if (isa<scf::ForOp>(def))
    return true;
  if (def->getNumResults() != 1)
    return false;
  if (auto read = dyn_cast<ReadOp>(def))
    return getLocalVar(read.getVar()) != nullptr;
  if (isa<LoadOp, SplatOp, IotaOp>(def) || isSameShapeElementwise(def))
    return true;
  if (auto gather = dyn_cast<GatherOp>(def))
    return gathersWholeRows(gather);
  if (auto constant = dyn_cast<arith::ConstantOp>(def)) {
    auto dense = dyn_cast<DenseElementsAttr>(constant.getValue());
    return dense && dense.isSplat();
  }
  // A broadcast read from shared memory reads each element by coordinates;
  // a free broadcast of a row result is in the layout of the rows' tile,
  // which is in its group.
  if (auto broadcast = dyn_cast<BroadcastOp>(def))
    return readsAcrossThreads(broadcast->getOpOperand(0)) ||
           getFreelyBroadcastRows(broadcast);
  // A transpose reads each element from shared memory by coordinates.
  if (isa<TransposeOp>(def))
    return true;
  return false;
}

/// Whether `use` reads its tile element by element, whatever its layout, or
/// reduces its rows where they live (checked against the chosen layout).
bool isFreeUse(OpOperand &use) {
  Operation *user = use.getOwner();
  // A masked store reads its mask slot by slot with the value's.
  if (auto store = dyn_cast<StoreOp>(user))
    return use.get() == store.getValue() && !store.getMask();
  // A var in registers holds the tile in its layout; a shared one is
  // written element by element at each element's coordinates (a dot's
  // operands: 16-byte loads where the runs allow).
  if (auto write = dyn_cast<WriteOp>(user))
    return getLocalVar(write.getVar()) || getSharedTileVar(write.getVar());
  if (auto var = dyn_cast<VarOp>(user))
    return var->hasAttr(kLocalAttr) || getSharedTileVar(var.getResult());
  if (auto reduction = dyn_cast<ReductionOpInterface>(user))
    return classifyTileUse(use) == TileUseKind::InPlaceReduction;
  // A loop's init and its body's yield are in the group of the carried
  // value.
  if (isa<scf::ForOp>(user))
    return use.getOperandNumber() >=
           cast<scf::ForOp>(user).getNumControlOperands();
  if (isa<scf::YieldOp>(user))
    return isa<scf::ForOp>(user->getParentOp());
  return isSameShapeElementwise(user);
}

/// Whether the rows of a tile of `type` reduce where they live in
/// `layout` as well as in the cyclic distribution: in one lane set, or in
/// as many (so the scratch var tile-plan-shared gave it still fits).
bool reducesAsWell(LayoutAttrInterface layout, RankedTensorType type,
                   int64_t threads) {
  std::optional<RowReductionPlan> plan =
      getRowReductionPlan(layout, type, threads);
  std::optional<RowReductionPlan> seed =
      getRowReductionPlan(getCyclicLayout(type.getContext()), type, threads);
  return plan && seed && (plan->parts == 1 || plan->parts == seed->parts);
}

struct TileAssignLayouts
    : tile::impl::TileAssignLayoutsBase<TileAssignLayouts> {
  using Base::Base;

  void runOnOperation() override {
    KernelOp kernel = getOperation();
    int64_t threads = kernel.getThreads();
    // In a kernel that reads ctx.thread, which thread holds which element
    // is observable (a per-thread value splat over a tile, a store under a
    // branch only some threads take): every tile keeps the cyclic
    // distribution.
    if (kernel.walk([](ThreadIdOp) { return WalkResult::interrupt(); })
            .wasInterrupted())
      return writeLayoutTypes(kernel);
    // Groups of tiles joined by elementwise ops: one layout each.
    llvm::EquivalenceClasses<Value> groups;
    SmallVector<Value> tiles;
    auto addTile = [&](Value tile) {
      if (!isa<RankedTensorType>(tile.getType()))
        return;
      groups.insert(tile);
      tiles.push_back(tile);
    };
    kernel.walk([&](Operation *op) {
      llvm::for_each(op->getResults(), addTile);
      for (Region &region : op->getRegions())
        for (Block &block : region)
          llvm::for_each(block.getArguments(), addTile);
      if (isSameShapeElementwise(op))
        for (Value operand : op->getOperands())
          groups.unionSets(operand, op->getResult(0));
      // A loop-carried value has one layout through the loop.
      if (auto loop = dyn_cast<scf::ForOp>(op))
        for (auto [init, arg, yielded, result] :
             llvm::zip(loop.getInitArgs(), loop.getRegionIterArgs(),
                       loop.getYieldedValues(), loop.getResults()))
          if (isa<RankedTensorType>(init.getType()))
            for (Value member : {Value(arg), yielded, Value(result)})
              groups.unionSets(init, member);
      // A free broadcast of a row result is in the layout of the rows' tile.
      if (auto broadcast = dyn_cast<BroadcastOp>(op))
        if (ReductionOpInterface rows = getFreelyBroadcastRows(broadcast))
          groups.unionSets(rows.getInput(), broadcast.getResult());
    });
    // A local var's values, written and read, share one layout.
    kernel.walk([&](VarOp var) {
      if (!var->hasAttr(kLocalAttr))
        return;
      SmallVector<Value> values;
      if (var.getInit())
        values.push_back(var.getInit());
      for (Operation *user : var->getUsers()) {
        if (auto read = dyn_cast<ReadOp>(user))
          values.push_back(read.getResult());
        else if (auto write = dyn_cast<WriteOp>(user))
          values.push_back(write.getValue());
      }
      for (Value value : values) {
        groups.insert(value);
        groups.unionSets(values.front(), value);
      }
    });
    DenseMap<Value, int64_t> vectorOf; // by group leader; 1 when fixed
    for (Value tile : tiles) {
      Value leader = groups.getLeaderValue(tile);
      auto [it, inserted] = vectorOf.try_emplace(leader, kMaxAccessBytes);
      int64_t &vector = it->second;
      // A tile tile-tensor-cores gave the mma layout keeps its group's.
      bool free = !isa<MmaLayoutAttr>(getLayout(tile)) && isFreelyMade(tile) &&
                  llvm::all_of(tile.getUses(), isFreeUse);
      vector = free ? std::min(vector, widest(tile, threads)) : 1;
    }
    // A tile whose rows are reduced keeps a run that reduces them as well.
    MLIRContext *context = kernel.getContext();
    for (Value tile : tiles)
      for (Operation *user : tile.getUsers())
        if (auto reduction = dyn_cast<ReductionOpInterface>(user)) {
          int64_t &vector = vectorOf[groups.getLeaderValue(tile)];
          auto type = cast<RankedTensorType>(tile.getType());
          // Columns fold in place in the cyclic distribution only.
          if (reduction.getAxis() != 1 && reducesInPlace(reduction))
            vector = 1;
          while (vector > 1 &&
                 !reducesAsWell(BlockedLayoutAttr::get(context, vector), type,
                                threads))
            vector /= 2;
        }
    DenseSet<Location> remarked;
    for (Value tile : tiles) {
      int64_t vector = vectorOf.lookup(groups.getLeaderValue(tile));
      // A group made only of splats and constants has no slice to widen.
      if (vector <= 1 || !hasSlice(groups, tile))
        continue;
      auto layout = BlockedLayoutAttr::get(context, vector);
      // A layout written by hand is the pass's to choose: said, not lost.
      auto written = dyn_cast_or_null<LayoutAttrInterface>(
          cast<RankedTensorType>(tile.getType()).getEncoding());
      Operation *def = tile.getDefiningOp();
      if (remarks && def && written && written != layout)
        emitRemark(def->getLoc())
            << "layout " << written << " replaced by " << layout << " ("
            << vector << " elements a thread at a time, the widest the "
            << "tile's shape, its threads and its uses allow)";
      // Every member of the group, in its type: the group is closed under
      // what needs one layout (elementwise ops, loops, register vars).
      setLayout(tile, layout);
      // Once per source line: @pipeline's copies of a load (its prologue
      // and its steady state) are one load to the author.
      if (remarks && isa_and_present<LoadOp, GatherOp>(def) &&
          remarked.insert(def->getLoc()).second)
        emitRemark(def->getLoc())
            << (isa<GatherOp>(def) ? "rows gathered " : "slice read ") << vector
            << " elements a thread at a time (" << vector * bitsOf(tile) / 8
            << "-byte accesses): layout " << layout
            << ", which no other use observes";
    }
    updateReductions(kernel);
    // Every other tile takes the layout it is made in: from here on each
    // tile type carries its layout.
    writeLayoutTypes(kernel);
  }

  /// Reports how each row reduction runs in its input's layout, and drops
  /// the scratch var of one that no longer spans several lane sets (its
  /// rows now lie in one warp), with the shared bytes it took.
  void updateReductions(KernelOp kernel) {
    int64_t threads = kernel.getThreads();
    bool dropped = false;
    kernel.walk([&](ReductionOpInterface op) {
      RankedTensorType type = op.getInput().getType();
      LayoutAttrInterface layout = getLayout(op.getInput());
      std::optional<RowReductionPlan> plan =
          op.getAxis() == 1 ? getRowReductionPlan(layout, type, threads)
                            : std::nullopt;
      if (!plan)
        return;
      int64_t shuffles = llvm::popcount(uint64_t(plan->laneMask));
      if (remarks)
        emitRemark(op.getLoc())
            << "rows of " << type.getDimSize(1) << " reduced where they live ("
            << layout << "): " << plan->groups.size()
            << " row results a thread, a butterfly of " << shuffles
            << " shuffles over " << (int64_t(1) << shuffles) << " lanes"
            << (plan->parts > 1
                    ? ", partials of " + std::to_string(plan->parts) +
                          " lane sets through shared memory"
                    : std::string(", no shared memory"))
            << "; result layout " << getLayout(op.getResult());
      Value scratch = op.getScratch();
      if (plan->parts > 1 || !scratch)
        return;
      op.setScratch(Value());
      if (!scratch.use_empty())
        return;
      auto var = cast<VarOp>(scratch.getDefiningOp());
      if (remarks)
        emitRemark(var.getLoc())
            << "'" << var.getName() << "' dropped: the rows lie in one warp";
      var->erase();
      dropped = true;
    });
    if (!dropped)
      return;
    int64_t total = 0;
    kernel.walk([&](VarOp var) {
      if (auto offset = var->getAttrOfType<IntegerAttr>(kOffsetAttr))
        total = std::max(total, offset.getInt() + getStorageBytes(var));
    });
    kernel->setAttr(kSharedBytesAttr, Builder(kernel).getI64IntegerAttr(total));
    if (remarks)
      emitRemark(kernel.getLoc())
          << "shared-memory plan of '" << kernel.getSymName()
          << "' after layouts: " << total << " bytes";
  }

  static int64_t bitsOf(Value tile) {
    return cast<RankedTensorType>(tile.getType())
        .getElementType()
        .getIntOrFloatBitWidth();
  }

  /// The longest run of `tile`'s elements a thread can hold: at most
  /// kMaxAccessBytes (an i1 in registers counted a byte), dividing the rows
  /// and, times `threads`, the elements.
  static int64_t widest(Value tile, int64_t threads) {
    auto type = cast<RankedTensorType>(tile.getType());
    int64_t bits = type.getElementType().getIntOrFloatBitWidth();
    if (bits % 8 != 0) {
      // An i1 tile in global memory moves byte by byte; one made and used
      // in registers (a mask of iota and compares) takes its group's runs.
      bool inMemory = tile.getDefiningOp<LoadOp>() ||
                      llvm::any_of(tile.getUsers(), [](Operation *user) {
                        return isa<StoreOp>(user);
                      });
      if (inMemory)
        return 1;
      bits = 8;
    }
    int64_t vector = kMaxAccessBytes * 8 / bits;
    while (vector > 1 && (type.getShape().back() % vector != 0 ||
                          type.getNumElements() % (threads * vector) != 0))
      vector /= 2;
    return vector;
  }

  static bool hasSlice(llvm::EquivalenceClasses<Value> &groups, Value tile) {
    for (auto it = groups.findLeader(tile); it != groups.member_end(); ++it)
      if ((*it).getDefiningOp<LoadOp>() || (*it).getDefiningOp<GatherOp>() ||
          llvm::any_of((*it).getUsers(),
                       [](Operation *user) { return isa<StoreOp>(user); }))
        return true;
    return false;
  }
};

} // namespace
