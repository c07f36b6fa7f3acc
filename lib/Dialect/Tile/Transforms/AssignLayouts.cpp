//===- AssignLayouts.cpp - wide runs for tiles no one can observe ---------===//
//
// Groups the tiles joined by same-shape elementwise ops; a group whose
// every member is made and used only by ops that read or write each element
// by coordinates (slices, stores, splats, constants, broadcasts from shared
// memory) gets runs of several consecutive elements a thread.
//
//===----------------------------------------------------------------------===//

#include "tile/Analysis/ThreadMapping.h"
#include "tile/Dialect/Tile/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
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

/// Whether `value` may take a layout of its group's choosing: it is made by
/// an op that computes each element from its coordinates alone.
bool isFreelyMade(Value value) {
  Operation *def = value.getDefiningOp();
  if (!def || def->getNumResults() != 1)
    return false; // a block argument: carried by a loop, or a yield
  if (auto read = dyn_cast<ReadOp>(def))
    return getLocalVar(read.getVar()) != nullptr;
  if (isa<LoadOp, SplatOp>(def) || isSameShapeElementwise(def))
    return true;
  if (auto constant = dyn_cast<arith::ConstantOp>(def)) {
    auto dense = dyn_cast<DenseElementsAttr>(constant.getValue());
    return dense && dense.isSplat();
  }
  // A broadcast read from shared memory reads each element by coordinates;
  // a free broadcast of a row result is in the rows' lanes.
  if (auto broadcast = dyn_cast<BroadcastOp>(def))
    return readsAcrossThreads(broadcast->getOpOperand(0));
  return false;
}

/// Whether `use` reads its tile element by element, whatever its layout.
bool isFreeUse(OpOperand &use) {
  Operation *user = use.getOwner();
  // A masked store reads its mask slot by slot with the value's.
  if (auto store = dyn_cast<StoreOp>(user))
    return use.get() == store.getValue() && !store.getMask();
  if (auto write = dyn_cast<WriteOp>(user))
    return getLocalVar(write.getVar()) != nullptr;
  if (auto var = dyn_cast<VarOp>(user))
    return var->hasAttr(kLocalAttr);
  return isSameShapeElementwise(user);
}

struct TileAssignLayouts
    : tile::impl::TileAssignLayoutsBase<TileAssignLayouts> {
  using Base::Base;

  void runOnOperation() override {
    KernelOp kernel = getOperation();
    int64_t threads = kernel.getThreads();
    // In a kernel that reads ctx.thread, which thread holds which element
    // is observable (a per-thread value splat over a tile, a store under a
    // branch only some threads take): every tile keeps seed 000's
    // distribution.
    if (kernel.walk([](ThreadIdOp) { return WalkResult::interrupt(); })
            .wasInterrupted())
      return;
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
      // Loop-carried values, which keep seed 000's distribution.
      for (Region &region : op->getRegions())
        for (Block &block : region)
          llvm::for_each(block.getArguments(), addTile);
      if (isSameShapeElementwise(op))
        for (Value operand : op->getOperands())
          groups.unionSets(operand, op->getResult(0));
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
      bool free = !getTileLayout(tile) && isFreelyMade(tile) &&
                  llvm::all_of(tile.getUses(), isFreeUse);
      vector = free ? std::min(vector, widest(tile, threads)) : 1;
    }
    for (Value tile : tiles) {
      int64_t vector = vectorOf.lookup(groups.getLeaderValue(tile));
      // A group made only of splats and constants has no slice to widen.
      if (vector <= 1 || !hasSlice(groups, tile))
        continue;
      Operation *def = tile.getDefiningOp();
      def->setAttr(kLayoutAttr,
                   BlockedLayoutAttr::get(kernel.getContext(), vector));
      if (remarks && isa<LoadOp>(def))
        emitRemark(def->getLoc())
            << "slice read " << vector << " elements a thread at a time ("
            << vector * bitsOf(tile) / 8
            << "-byte accesses): layout #tile.blocked<vector = " << vector
            << ">, which no other use observes";
    }
  }

  static int64_t bitsOf(Value tile) {
    return cast<RankedTensorType>(tile.getType())
        .getElementType()
        .getIntOrFloatBitWidth();
  }

  /// The longest run of `tile`'s elements a thread can hold: at most
  /// kMaxAccessBytes, dividing the rows and, times `threads`, the elements.
  static int64_t widest(Value tile, int64_t threads) {
    auto type = cast<RankedTensorType>(tile.getType());
    int64_t bits = type.getElementType().getIntOrFloatBitWidth();
    if (bits % 8 != 0)
      return 1; // i1
    int64_t vector = kMaxAccessBytes * 8 / bits;
    while (vector > 1 && (type.getShape().back() % vector != 0 ||
                          type.getNumElements() % (threads * vector) != 0))
      vector /= 2;
    return vector;
  }

  static bool hasSlice(llvm::EquivalenceClasses<Value> &groups, Value tile) {
    for (auto it = groups.findLeader(tile); it != groups.member_end(); ++it)
      if ((*it).getDefiningOp<LoadOp>() ||
          llvm::any_of((*it).getUsers(),
                       [](Operation *user) { return isa<StoreOp>(user); }))
        return true;
    return false;
  }
};

} // namespace
