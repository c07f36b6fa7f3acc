//===- HoistInvariants.cpp - loop-invariant reads and tile ops ------------===//
//
// MLIR's loop-invariant code motion keeps every op with a memory effect in
// the loop; a tile.read is one, yet a read of a var that the loop never
// writes gives the same tile on every iteration. This pass moves such reads,
// and the pure ops that only depend on values from outside, before the
// loop.
//
//===----------------------------------------------------------------------===//

#include "tile/Dialect/Tile/IR/TileDialect.h"
#include "tile/Dialect/Tile/Transforms/Passes.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace mlir::tile {
#define GEN_PASS_DEF_TILEHOISTINVARIANTS
#include "tile/Dialect/Tile/Transforms/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;
using namespace mlir::tile;

namespace {

/// Whether `op` may write `var`: a write effect on it, or one on no value in
/// particular (tile.write's) by an op that takes it, or an op whose effects
/// are unknown that takes it. Every writer counts (tile.write, tile.copy
/// into the var, ...), not only tile.write: a read hoisted past a copy reads
/// the var before the copy fills it.
bool writes(Operation *op, Value var) {
  bool takesVar = llvm::is_contained(op->getOperands(), var);
  auto interface = dyn_cast<MemoryEffectOpInterface>(op);
  if (!interface)
    return takesVar && !op->hasTrait<OpTrait::HasRecursiveMemoryEffects>();
  SmallVector<MemoryEffects::EffectInstance> effects;
  interface.getEffects(effects);
  return llvm::any_of(effects, [&](const MemoryEffects::EffectInstance &e) {
    if (!isa<MemoryEffects::Write>(e.getEffect()))
      return false;
    Value on = e.getValue();
    return on ? on == var : takesVar;
  });
}

/// Whether `op`, in the body of `loop`, gives the same results on every
/// iteration.
bool isInvariant(Operation *op, scf::ForOp loop) {
  if (op->getNumRegions() != 0 || op->hasTrait<OpTrait::IsTerminator>())
    return false;
  bool operandsOutside = llvm::all_of(op->getOperands(), [&](Value value) {
    return loop.isDefinedOutsideOfLoop(value);
  });
  if (!operandsOutside)
    return false;
  auto writtenIn = [&](Value var) {
    return loop
        .walk([&](Operation *inner) {
          return writes(inner, var) ? WalkResult::interrupt()
                                    : WalkResult::advance();
        })
        .wasInterrupted();
  };
  if (auto read = dyn_cast<ReadOp>(op))
    return !writtenIn(read.getVar());
  // A var the loop declares from a value it does not change, and never
  // writes, holds that value on every iteration: a spill of a register
  // tile used in a loop that does not update it is stored once.
  if (auto var = dyn_cast<VarOp>(op))
    return var.getInit() && !writtenIn(var.getResult());
  return isPure(op);
}

struct TileHoistInvariants
    : tile::impl::TileHoistInvariantsBase<TileHoistInvariants> {
  void runOnOperation() override {
    // Post-order: inner loops first, so what leaves an inner loop may then
    // leave the outer one too.
    getOperation().walk([](scf::ForOp loop) {
      bool moved = true;
      while (moved) {
        moved = false;
        for (Operation &op :
             llvm::make_early_inc_range(loop.getBody()->without_terminator())) {
          if (!isInvariant(&op, loop))
            continue;
          op.moveBefore(loop);
          moved = true;
        }
      }
    });
  }
};

} // namespace
