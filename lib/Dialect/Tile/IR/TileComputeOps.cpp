//===- TileComputeOps.cpp - reductions, dots, shapes, layouts -------------===//

#include "OpVerifiers.h"
#include "tile/Dialect/Tile/IR/Layouts.h"
#include "tile/Dialect/Tile/IR/TileDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/FunctionImplementation.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::tile;

LogicalResult mlir::tile::verifyReduction(Operation *op) {
  auto reduction = cast<ReductionOpInterface>(op);
  RankedTensorType in = reduction.getInput().getType(),
                   out = reduction.getResult().getType();
  int64_t axis = reduction.getAxis();
  if (reduction.getKind() == ReductionKind::argmax) {
    if (!out.getElementType().isInteger(32))
      return op->emitOpError("result element type must be i32 (an index), "
                             "got ")
             << out.getElementType();
  } else if (in.getElementType() != out.getElementType()) {
    return op->emitOpError("result element type ")
           << out.getElementType() << " differs from the input's "
           << in.getElementType();
  }
  SmallVector<int64_t> expected(in.getShape());
  expected[axis] = 1;
  auto print = [](ArrayRef<int64_t> shape) {
    std::string text = "[";
    llvm::raw_string_ostream os(text);
    llvm::interleaveComma(shape, os);
    return text + "]";
  };
  if (out.getShape() != ArrayRef<int64_t>(expected))
    return op->emitOpError("reduces ")
           << print(in.getShape()) << " to " << print(expected) << ", not "
           << print(out.getShape());
  // The result's layout is where the reduction leaves it: a row result
  // reduced where its input lives is a slice (#tile.rows) of the input's
  // layout, any other result is in the cyclic distribution.
  if (Attribute layout = out.getEncoding()) {
    MLIRContext *context = op->getContext();
    LayoutAttrInterface input = getLayout(reduction.getInput());
    Attribute leftIn =
        axis == 1 && reducesInPlace(reduction)
            ? Attribute(RowsLayoutAttr::get(context, in.getDimSize(1), input))
            : Attribute(getCyclicLayout(context));
    if (layout != leftIn)
      return op->emitOpError("result layout ")
             << layout << " is not where the reduction of an input in " << input
             << " leaves it, " << leftIn;
  }
  Value scratch = reduction.getScratch();
  if (!scratch)
    return success();
  if (!scratch.getDefiningOp<VarOp>())
    return op->emitOpError("scratch operand must be the result of a tile.var");
  if (getReductionStrategy(reduction) != ReductionStrategy::WarpSegmented)
    return op->emitOpError("has a scratch var, but rows of ")
           << in.getDimSize(1) << " " << in.getElementType()
           << " elements do not reduce a warp at a time";
  if (scratch.getType() != getScratchType(reduction))
    return op->emitOpError("scratch var must be ")
           << getScratchType(reduction)
           << " (a partial per warp of each row), not " << scratch.getType();
  return success();
}

void mlir::tile::getScratchEffects(
    MutableOperandRange scratch,
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
        &effects) {
  if (scratch.empty())
    return;
  effects.emplace_back(MemoryEffects::Read::get(), &scratch[0]);
  effects.emplace_back(MemoryEffects::Write::get(), &scratch[0]);
}

ReductionStrategy mlir::tile::getReductionStrategy(ReductionOpInterface op) {
  // Sums, maxima and minima combine alike; what decides is where the
  // elements of a row (a column) are.
  RankedTensorType input = op.getInput().getType();
  LayoutAttrInterface layout = getLayout(op.getInput());
  int64_t threads = getKernelThreads(op);
  if (op.getAxis() == 0) {
    // In the cyclic distribution element (i, j) is in thread
    // (i * C + j) % threads: j % threads when C is a multiple of threads.
    Type element = input.getElementType();
    int64_t columns = input.getDimSize(1);
    if (input.getRank() != 2 || !(element.isF32() || element.isInteger(32)) ||
        op.getKind() == ReductionKind::argmax || threads <= 0 ||
        !isCyclicLayout(layout))
      return ReductionStrategy::ThroughShared;
    if (columns % threads == 0)
      return ReductionStrategy::InThread;
    // In a CTA of one warp, column j is in lanes j, j + C, ...: xor
    // shuffles over lanes C apart fold it.
    if (threads == kLanes && kLanes % columns == 0)
      return ReductionStrategy::InWarp;
    return ReductionStrategy::ThroughShared;
  }
  // An argmax carries each value's column, which the shared path's
  // butterfly does; the in-place plans combine values only.
  if (op.getAxis() != 1 || op.getKind() == ReductionKind::argmax)
    return ReductionStrategy::ThroughShared;
  std::optional<RowReductionPlan> plan =
      getRowReductionPlan(layout, input, threads);
  if (!plan)
    return ReductionStrategy::ThroughShared;
  return plan->parts == 1 ? ReductionStrategy::InWarp
                          : ReductionStrategy::WarpSegmented;
}

VarType mlir::tile::getScratchType(ReductionOpInterface op) {
  RankedTensorType type = op.getInput().getType();
  std::optional<RowReductionPlan> plan =
      getRowReductionPlan(getLayout(op.getInput()), type, getKernelThreads(op));
  return VarType::get(type.getContext(),
                      {type.getDimSize(0), plan ? plan->parts : 1},
                      type.getElementType());
}

//===----------------------------------------------------------------------===//
// DotOp, BroadcastOp, SplatOp
//===----------------------------------------------------------------------===//

LogicalResult DotOp::verify() {
  RankedTensorType lhs = getLhs().getType(), rhs = getRhs().getType(),
                   result = getResult().getType();
  // The right operand as the product reads it: [K, N].
  int64_t rhsRows = rhs.getDimSize(getRhsTransposed() ? 1 : 0),
          rhsColumns = rhs.getDimSize(getRhsTransposed() ? 0 : 1);
  if (lhs.getDimSize(1) != rhsRows)
    return emitOpError("contracts [")
           << lhs.getDimSize(0) << ", " << lhs.getDimSize(1) << "] with ["
           << rhs.getDimSize(0) << ", " << rhs.getDimSize(1) << "]"
           << (getRhsTransposed() ? " transposed" : "")
           << ": inner dimensions differ";
  if (result.getDimSize(0) != lhs.getDimSize(0) ||
      result.getDimSize(1) != rhsColumns)
    return emitOpError("result must be [")
           << lhs.getDimSize(0) << ", " << rhsColumns << "], got ["
           << result.getDimSize(0) << ", " << result.getDimSize(1) << "]";
  Type in = lhs.getElementType(), out = result.getElementType();
  if (rhs.getElementType() != in)
    return emitOpError("operand element types differ: ")
           << in << " and " << rhs.getElementType();
  bool widening = (in.isF16() || in.isBF16()) && out.isF32();
  if (out != in && !widening)
    return emitOpError("result element type must be ")
           << in << (in.isF16() || in.isBF16() ? " or f32" : "") << ", got "
           << out;
  if (getPrecision() == DotPrecision::tf32 && !in.isF32())
    return emitOpError("precision tf32 rounds f32 operands to tf32; the "
                       "operands are ")
           << in;
  // The result's layout says where the dot runs: #tile.mma on tensor
  // cores, the cyclic distribution otherwise.
  Attribute layout = result.getEncoding();
  if (getWgmma()) {
    auto mma = dyn_cast_or_null<MmaLayoutAttr>(layout);
    if (!mma || mma.getWarpsN() != 1 || mma.getWarpsM() % 4 != 0 ||
        result.getDimSize(0) != 16 * mma.getWarpsM())
      return emitOpError("on wgmma needs a result in #tile.mma<warps = [W, "
                         "1]>, W a multiple of 4, with 16 W rows (64 a "
                         "warpgroup)");
    if (!(in.isF16() || in.isBF16()) || !out.isF32() ||
        result.getDimSize(1) % 8 != 0 || result.getDimSize(1) > 256 ||
        lhs.getDimSize(1) % 16 != 0)
      return emitOpError("on wgmma needs f16 or bf16 operands accumulating "
                         "in f32, N a multiple of 8 up to 256 and K a "
                         "multiple of 16");
  }
  if (!layout || isCyclicLayout(layout))
    return success();
  bool tf32 = getPrecision() == DotPrecision::tf32;
  if (!isa<MmaLayoutAttr>(layout))
    return emitOpError("result layout must be #tile.mma (on tensor cores) "
                       "or the cyclic distribution, not ")
           << layout;
  if (!(in.isF16() || in.isBF16() || tf32) || !out.isF32())
    return emitOpError("result in #tile.mma needs f16 or bf16 operands (or "
                       "f32 of precision tf32) accumulating in f32 "
                       "(mma.sync)");
  if (lhs.getDimSize(1) % getMmaK(*this) != 0)
    return emitOpError("result in #tile.mma needs an inner dimension that "
                       "is a multiple of ")
           << getMmaK(*this);
  return success();
}

OpFoldResult DotOp::fold(FoldAdaptor) {
  // dot(a, transpose(b)) reads b transposed: no transposed copy.
  auto transpose = getRhs().getDefiningOp<TransposeOp>();
  if (!transpose)
    return {};
  getRhsMutable().assign(transpose.getInput());
  setRhsTransposed(!getRhsTransposed());
  return getResult();
}

LogicalResult TransposeOp::verify() {
  RankedTensorType in = getInput().getType(), out = getResult().getType();
  if (in.getElementType() != out.getElementType() ||
      out.getDimSize(0) != in.getDimSize(1) ||
      out.getDimSize(1) != in.getDimSize(0))
    return emitOpError("result must be ")
           << RankedTensorType::get({in.getDimSize(1), in.getDimSize(0)},
                                    in.getElementType())
           << ", the input's transpose, got " << out;
  return success();
}

OpFoldResult TransposeOp::fold(FoldAdaptor adaptor) {
  if (auto inner = getInput().getDefiningOp<TransposeOp>())
    return inner.getInput();
  if (auto splat = dyn_cast_if_present<SplatElementsAttr>(adaptor.getInput()))
    return SplatElementsAttr::get(getResult().getType(),
                                  splat.getSplatValue<Attribute>());
  return {};
}

LogicalResult BroadcastOp::verify() {
  RankedTensorType in = getInput().getType(), out = getResult().getType();
  if (in.getElementType() != out.getElementType())
    return emitOpError("element type changes from ")
           << in.getElementType() << " to " << out.getElementType();
  if (in.getRank() != out.getRank())
    return emitOpError("rank changes from ")
           << in.getRank() << " to " << out.getRank();
  for (unsigned dim = 0; dim < in.getRank(); ++dim)
    if (in.getDimSize(dim) != out.getDimSize(dim) && in.getDimSize(dim) != 1)
      return emitOpError("dimension ")
             << dim << " of size " << in.getDimSize(dim)
             << " can only broadcast to itself, not to " << out.getDimSize(dim);
  // A row result broadcast back over the rows it was reduced from is where
  // its parent layout holds them.
  auto rows = dyn_cast_or_null<RowsLayoutAttr>(in.getEncoding());
  if (rows && out.getEncoding() && out.getRank() == 2 &&
      out.getDimSize(1) == rows.getColumns() &&
      out.getEncoding() != rows.getParent())
    return emitOpError("broadcasts a row result of ")
           << rows << " over its rows, which are in " << rows.getParent()
           << ", not " << out.getEncoding();
  return success();
}

OpFoldResult BroadcastOp::fold(FoldAdaptor adaptor) {
  if (getInput().getType() == getResult().getType())
    return getInput();
  if (auto splat = dyn_cast_if_present<SplatElementsAttr>(adaptor.getInput()))
    return SplatElementsAttr::get(getResult().getType(),
                                  splat.getSplatValue<Attribute>());
  return {};
}

LogicalResult ReshapeOp::verify() {
  RankedTensorType in = getInput().getType(), out = getResult().getType();
  if (in.getElementType() != out.getElementType())
    return emitOpError("element type changes from ")
           << in.getElementType() << " to " << out.getElementType();
  if (in.getNumElements() != out.getNumElements())
    return emitOpError("the number of elements changes from ")
           << in.getNumElements() << " to " << out.getNumElements();
  return success();
}

OpFoldResult ReshapeOp::fold(FoldAdaptor adaptor) {
  if (getInput().getType() == getResult().getType())
    return getInput();
  if (auto inner = getInput().getDefiningOp<ReshapeOp>()) {
    // A reshape of a reshape is one reshape of the first input.
    getInputMutable().assign(inner.getInput());
    return getResult();
  }
  if (auto splat = dyn_cast_if_present<SplatElementsAttr>(adaptor.getInput()))
    return SplatElementsAttr::get(getResult().getType(),
                                  splat.getSplatValue<Attribute>());
  return {};
}

//===----------------------------------------------------------------------===//
// Indexing tiles
//===----------------------------------------------------------------------===//

/// Checks that a sub-tile of `sub`'s shape at `offsets` lies in `full`.
static LogicalResult verifySubTile(Operation *op, RankedTensorType full,
                                   RankedTensorType sub,
                                   ArrayRef<int64_t> offsets) {
  if (sub.getElementType() != full.getElementType())
    return op->emitOpError("element types differ: ")
           << sub.getElementType() << " and " << full.getElementType();
  if (sub.getRank() != full.getRank() ||
      offsets.size() != static_cast<size_t>(full.getRank()))
    return op->emitOpError("needs one offset per dimension and a sub-tile of ")
           << "the tile's rank " << full.getRank();
  for (int64_t dim = 0; dim < full.getRank(); ++dim)
    if (offsets[dim] < 0 || sub.getDimSize(dim) > full.getDimSize(dim) ||
        offsets[dim] > full.getDimSize(dim) - sub.getDimSize(dim))
      return op->emitOpError("sub-tile ")
             << sub << " at offset " << offsets[dim] << " of dimension " << dim
             << " is not inside " << full;
  return success();
}

LogicalResult ExtractOp::verify() {
  RankedTensorType type = getInput().getType();
  if (getIndices().size() != static_cast<size_t>(type.getRank()))
    return emitOpError("needs ") << type.getRank() << " indices for " << type
                                 << ", got " << getIndices().size();
  for (auto [dim, index] : llvm::enumerate(getIndices()))
    if (index < 0 || index >= type.getDimSize(dim))
      return emitOpError("index ")
             << index << " is outside dimension " << dim << " of " << type;
  return success();
}

LogicalResult ExtractSliceOp::verify() {
  return verifySubTile(*this, getInput().getType(), getResult().getType(),
                       getOffsets());
}

LogicalResult InsertSliceOp::verify() {
  return verifySubTile(*this, getDest().getType(), getSource().getType(),
                       getOffsets());
}

LogicalResult IotaOp::verify() {
  int64_t rank = getResult().getType().getRank();
  if (getAxis() >= static_cast<uint64_t>(rank))
    return emitOpError("axis ")
           << getAxis() << " is out of range for a rank-" << rank << " tile";
  return success();
}

LogicalResult ConvertLayoutOp::verify() {
  RankedTensorType in = getInput().getType(), out = getType();
  if (!isSameIgnoringLayout(in, out))
    return emitOpError("converts ")
           << in << " to " << out
           << ": the two types differ in their layout alone";
  Value scratch = getScratch();
  if (!scratch)
    return success();
  if (!scratch.getDefiningOp<VarOp>())
    return emitOpError("scratch operand must be the result of a tile.var");
  auto expected =
      VarType::get(getContext(), out.getShape(), out.getElementType());
  if (scratch.getType() != expected)
    return emitOpError("scratch var must be ")
           << expected << " (the tile's shape), not " << scratch.getType();
  return success();
}

OpFoldResult ConvertLayoutOp::fold(FoldAdaptor) {
  // The same layout: nothing moves. (Before the layouts are written into
  // the types, two types without one may still be two layouts.)
  if (!getScratch() &&
      tile::getLayout(getInput()) == tile::getLayout(getResult()))
    return getInput();
  return {};
}

void ConvertLayoutOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
        &effects) {
  getScratchEffects(getScratchMutable(), effects);
}

OpFoldResult SplatOp::fold(FoldAdaptor adaptor) {
  if (!adaptor.getInput())
    return {};
  return SplatElementsAttr::get(getResult().getType(), adaptor.getInput());
}
