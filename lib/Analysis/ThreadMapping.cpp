//===- ThreadMapping.cpp - which threads a use of a tile reads ------------===//

#include "tile/Analysis/ThreadMapping.h"
#include "tile/Dialect/Tile/IR/Layouts.h"

#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::tile;

bool mlir::tile::isRowReplicated(Value value) {
  return isa<RankedTensorType>(value.getType()) &&
         isa<RowsLayoutAttr>(getLayout(value));
}

std::optional<SmallVector<int64_t>>
mlir::tile::getOwnerSlotMap(RankedTensorType full, ArrayRef<int64_t> offsets,
                            ArrayRef<int64_t> subShape, int64_t threads) {
  int64_t elements = 1;
  for (int64_t size : subShape)
    elements *= size;
  SmallVector<int64_t> slots(llvm::divideCeil(elements, threads), -1);
  for (int64_t e = 0; e < elements; ++e) {
    // The element's position in the full tile, row-major.
    int64_t rest = e, linear = 0, stride = 1;
    for (int64_t dim = subShape.size() - 1; dim >= 0; --dim) {
      linear += (offsets[dim] + rest % subShape[dim]) * stride;
      rest /= subShape[dim];
      stride *= full.getDimSize(dim);
    }
    int64_t &slot = slots[e / threads];
    if (linear % threads != e % threads ||
        (slot >= 0 && slot != linear / threads))
      return std::nullopt;
    slot = linear / threads;
  }
  return slots;
}

/// The owner slot map of a sub-tile op, if its sub-tile keeps its owners.
static std::optional<SmallVector<int64_t>> getSubTileSlotMap(Operation *op) {
  auto kernel = op->getParentOfType<KernelOp>();
  if (!kernel)
    return std::nullopt;
  if (auto extract = dyn_cast<ExtractSliceOp>(op))
    return getOwnerSlotMap(extract.getInput().getType(), extract.getOffsets(),
                           extract.getType().getShape(), kernel.getThreads());
  auto insert = cast<InsertSliceOp>(op);
  return getOwnerSlotMap(insert.getDest().getType(), insert.getOffsets(),
                         insert.getSource().getType().getShape(),
                         kernel.getThreads());
}

/// Whether index tile `index` of a gather or scatter of `tile` gives each
/// element's index to the thread that holds the element: it has the
/// tile's own shape.
static TileUseKind classifyIndexTile(Value index, Type tile) {
  return cast<RankedTensorType>(index.getType()).getShape() ==
                 cast<RankedTensorType>(tile).getShape()
             ? TileUseKind::ByOwner
             : TileUseKind::AcrossThreads;
}

TileUseKind mlir::tile::classifyTileUse(OpOperand &use) {
  if (!isa<RankedTensorType>(use.get().getType()))
    return TileUseKind::ByOwner;
  Operation *user = use.getOwner();
  // One element, read by every thread.
  if (isa<ExtractOp>(user))
    return TileUseKind::AcrossThreads;
  if (isa<ExtractSliceOp>(user) ||
      (isa<InsertSliceOp>(user) && use.getOperandNumber() == 0))
    return getSubTileSlotMap(user) ? TileUseKind::ByOwner
                                   : TileUseKind::AcrossThreads;
  if (auto gather = dyn_cast<GatherOp>(user))
    return classifyIndexTile(use.get(), gather.getType());
  if (auto scatter = dyn_cast<ScatterOp>(user)) {
    // The value and the mask are read by their owners; the index tiles
    // (operand group 3) may need broadcasting.
    auto [first, count] = scatter.getODSOperandIndexAndLength(3);
    unsigned number = use.getOperandNumber();
    if (number >= first && number < first + count)
      return classifyIndexTile(use.get(), scatter.getValue().getType());
    return TileUseKind::ByOwner;
  }
  if (auto reduction = dyn_cast<ReductionOpInterface>(user)) {
    if (use.get() != reduction.getInput())
      return TileUseKind::ByOwner;
    return reducesInPlace(reduction) ? TileUseKind::InPlaceReduction
                                     : TileUseKind::AcrossThreads;
  }
  // A dot's accumulator is read at the element of the result it adds to.
  if (auto dot = dyn_cast<DotOp>(user))
    return use.get() == dot.getAcc() && use.getOperandNumber() == 2
               ? TileUseKind::ByOwner
               : TileUseKind::AcrossThreads;
  if (isa<TransposeOp>(user))
    return TileUseKind::AcrossThreads;
  // A copy's thread for a box element is the chunk's: the element's owner
  // only when chunks are single elements.
  if (auto copy = dyn_cast<CopyOp>(user))
    return copy.getWidth() == 1 ? TileUseKind::ByOwner
                                : TileUseKind::AcrossThreads;
  if (auto broadcast = dyn_cast<BroadcastOp>(user)) {
    // A row result reduced in place is already in every lane of its row:
    // broadcasting it back over rows of the same length is free.
    auto rows = dyn_cast<RowsLayoutAttr>(getLayout(broadcast.getInput()));
    RankedTensorType type = broadcast.getType();
    return rows && type.getRank() == 2 &&
                   type.getDimSize(1) == rows.getColumns()
               ? TileUseKind::FreeBroadcast
               : TileUseKind::AcrossThreads;
  }
  return TileUseKind::ByOwner;
}

bool mlir::tile::hasOwnerUse(ReadOp read) {
  return llvm::any_of(read->getUses(),
                      [](OpOperand &use) { return !readsAcrossThreads(use); });
}
