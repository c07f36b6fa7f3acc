//===- ReuseReads.cpp - one read for repeated reads -----------------------===//
//
// The front end reads a var at every use, so `acc += x` a hundred thousand
// times is as many reads of `x`. Each is replaced by the first one since the
// last op that may write, found in a hash table cleared at every such op:
// linear, where upstream cse rescans the block for each repeat.
//
//===----------------------------------------------------------------------===//

#include "tile/Dialect/Tile/IR/TileDialect.h"
#include "tile/Dialect/Tile/Transforms/Passes.h"

#include "mlir/IR/OperationSupport.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace mlir::tile {
#define GEN_PASS_DEF_TILEREUSEREADS
#include "tile/Dialect/Tile/Transforms/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;
using namespace mlir::tile;

namespace {

/// Two reads are the same when they are the same op on the same operands.
struct SameRead : DenseMapInfo<Operation *> {
  static unsigned getHashValue(const Operation *op) {
    return OperationEquivalence::computeHash(
        const_cast<Operation *>(op), OperationEquivalence::directHashValue,
        OperationEquivalence::ignoreHashValue,
        OperationEquivalence::IgnoreLocations);
  }
  static bool isEqual(const Operation *lhs, const Operation *rhs) {
    if (lhs == rhs)
      return true;
    if (lhs == getEmptyKey() || lhs == getTombstoneKey() ||
        rhs == getEmptyKey() || rhs == getTombstoneKey())
      return false;
    return OperationEquivalence::isEquivalentTo(
        const_cast<Operation *>(lhs), const_cast<Operation *>(rhs),
        OperationEquivalence::IgnoreLocations);
  }
};

/// Whether `op` (or an op nested in it) may write memory; an op that says
/// nothing of its effects may.
bool mayWrite(Operation *op) {
  if (isMemoryEffectFree(op))
    return false;
  auto effects = dyn_cast<MemoryEffectOpInterface>(op);
  if (effects && (effects.hasEffect<MemoryEffects::Write>() ||
                  effects.hasEffect<MemoryEffects::Free>()))
    return true;
  if (op->hasTrait<OpTrait::HasRecursiveMemoryEffects>())
    for (Region &region : op->getRegions())
      for (Operation &nested : region.getOps())
        if (mayWrite(&nested))
          return true;
  return !effects && !op->hasTrait<OpTrait::HasRecursiveMemoryEffects>();
}

struct TileReuseReads : tile::impl::TileReuseReadsBase<TileReuseReads> {
  void runOnOperation() override {
    getOperation()->walk([](Block *block) {
      DenseMap<Operation *, Operation *, SameRead> reads;
      for (Operation &op : llvm::make_early_inc_range(*block)) {
        if (isa<ReadOp, LoadOp>(op)) {
          auto [found, first] = reads.try_emplace(&op, &op);
          if (!first) {
            op.replaceAllUsesWith(found->second);
            op.erase();
          }
        } else if (mayWrite(&op)) {
          reads.clear();
        }
      }
    });
  }
};

} // namespace
