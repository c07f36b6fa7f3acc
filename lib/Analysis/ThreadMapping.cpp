//===- ThreadMapping.cpp - which threads a use of a tile reads ------------===//

#include "tile/Analysis/ThreadMapping.h"

using namespace mlir;
using namespace mlir::tile;

bool mlir::tile::isRowReplicated(Value value) {
  auto reduction = value.getDefiningOp<ReductionOpInterface>();
  return reduction && reducesInPlace(reduction);
}

TileUseKind mlir::tile::classifyTileUse(OpOperand &use) {
  if (!isa<RankedTensorType>(use.get().getType()))
    return TileUseKind::ByOwner;
  Operation *user = use.getOwner();
  if (auto reduction = dyn_cast<ReductionOpInterface>(user)) {
    if (use.get() != reduction.getInput())
      return TileUseKind::ByOwner;
    return reducesInPlace(reduction) ? TileUseKind::InPlaceReduction
                                     : TileUseKind::AcrossThreads;
  }
  if (isa<DotOp>(user))
    return TileUseKind::AcrossThreads;
  // A copy's thread for a box element is the chunk's: the element's owner
  // only when chunks are single elements.
  if (auto copy = dyn_cast<CopyOp>(user))
    return copy.getWidth() == 1 ? TileUseKind::ByOwner
                                : TileUseKind::AcrossThreads;
  if (auto broadcast = dyn_cast<BroadcastOp>(user)) {
    // A row result reduced in place is already in every lane of its row:
    // broadcasting it back over rows of the same length is free.
    Value input = broadcast.getInput();
    if (!isRowReplicated(input))
      return TileUseKind::AcrossThreads;
    auto reduced = input.getDefiningOp<ReductionOpInterface>();
    return reduced.getInput().getType().getShape() ==
                   broadcast.getResult().getType().getShape()
               ? TileUseKind::FreeBroadcast
               : TileUseKind::AcrossThreads;
  }
  return TileUseKind::ByOwner;
}

bool mlir::tile::hasOwnerUse(ReadOp read) {
  return llvm::any_of(read->getUses(),
                      [](OpOperand &use) { return !readsAcrossThreads(use); });
}
