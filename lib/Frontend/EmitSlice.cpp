//===- EmitSlice.cpp - .tile slices of tensors and tiles ------------------===//
//
// `X[...]` of a tensor parameter: a load or store of a rectangle, or with
// index tiles a gather or scatter; `t[...]` of a tile var: an element or a
// constant sub-tile.
//
//===----------------------------------------------------------------------===//

#include "Emitter.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tile::frontend;
using llvm::SMLoc;
using llvm::StringRef;
using llvm::Twine;

FailureOr<Emitter::Slice> Emitter::emitSlice(const SliceExpr &expr) {
  StringRef name = expr.baseName();
  SMLoc nameLoc = expr.base->getLoc();
  FailureOr<Symbol> symbol = resolve(name, nameLoc);
  if (failed(symbol))
    return failure();
  if (symbol->kind != Symbol::Kind::Param)
    return error(nameLoc) << "only tensor parameters can be sliced; '" << name
                          << "' is not one";
  Slice slice;
  slice.tensor = symbol->value;
  slice.type = cast<GlobalTensorType>(slice.tensor.getType());
  int64_t rank = slice.type.getRank();
  if (expr.ranges.size() != static_cast<size_t>(rank))
    return error(expr.getLoc()) << "'" << name << "' has " << rank
                                << (rank == 1 ? " dimension" : " dimensions")
                                << " but the slice has " << expr.ranges.size();
  // Each range contributes its extent to its dimension, each index tile
  // its shape; the tile's shape is their broadcast.
  SmallVector<int64_t> shape(rank, 1), extents(rank, 0);
  SmallVector<SMLoc> extentLocs(rank);
  for (auto [dim, range] : llvm::enumerate(expr.ranges)) {
    FailureOr<Operand> start = emitExpr(*range.start);
    if (failed(start))
      return failure();
    auto indexTile = start->isLiteral()
                         ? RankedTensorType()
                         : dyn_cast<RankedTensorType>(start->value.getType());
    if (indexTile) {
      if (range.isRange())
        return error(range.extent->getLoc())
               << "an index tile gives the coordinates of a whole dimension; "
                  "it takes no extent (write "
               << name << "[rows, ...])";
      if (!indexTile.getElementType().isInteger(32))
        return error(range.start->getLoc())
               << "an index tile in a slice is of i32, got "
               << describe(indexTile);
      if (indexTile.getRank() != rank)
        return error(range.start->getLoc())
               << "an index tile of '" << name << "' has its rank, " << rank
               << "; got " << describe(indexTile) << " (a [R, 1] tile gives "
               << "one index per row)";
      slice.indices.push_back(start->value);
      slice.indexDims.push_back(dim);
      slice.offsets.push_back(arith::ConstantIndexOp::create(
          builder, getLoc(range.start->getLoc()), 0));
      continue;
    }
    FailureOr<Value> offset =
        convert(*start, builder.getIndexType(), "the slice start");
    if (failed(offset))
      return failure();
    // A single index is a range of one element.
    int64_t extent = 1;
    if (range.isRange()) {
      FailureOr<int64_t> constant =
          emitConstantInt(*range.extent, "a slice extent");
      if (failed(constant))
        return failure();
      extent = *constant;
    }
    extentLocs[dim] =
        range.isRange() ? range.extent->getLoc() : range.start->getLoc();
    if (extent <= 0)
      return error(extentLocs[dim])
             << "a slice extent must be positive, got " << extent;
    int64_t size = slice.type.getShape()[dim];
    if (!ShapedType::isDynamic(size) && extent > size)
      return error(extentLocs[dim])
             << "slice extent " << extent << " exceeds dimension " << dim
             << " of '" << name << "', which has size " << size;
    slice.offsets.push_back(*offset);
    extents[dim] = shape[dim] = extent;
  }
  for (auto [index, dim] : llvm::zip(slice.indices, slice.indexDims)) {
    auto type = cast<RankedTensorType>(index.getType());
    for (int64_t d = 0; d < rank; ++d) {
      int64_t size = type.getDimSize(d);
      if (size == 1 || size == shape[d])
        continue;
      if (shape[d] != 1 || extents[d] > 0)
        return error(expr.ranges[dim].start->getLoc())
               << "shape mismatch in the slice of '" << name
               << "': the index tile " << describe(type) << " has " << size
               << " in dimension " << d << ", where the slice has " << shape[d];
      shape[d] = size;
    }
  }
  if (failed(checkTileShape(shape, expr.getLoc())))
    return failure();
  slice.tileType = RankedTensorType::get(shape, slice.type.getElementType());
  return slice;
}

Value Emitter::emitLoad(const Slice &slice, SMLoc loc, Value other) {
  if (slice.isGather())
    return GatherOp::create(builder, getLoc(loc), slice.tileType, slice.tensor,
                            slice.offsets, slice.indices, slice.indexDims,
                            other);
  return LoadOp::create(builder, getLoc(loc), slice.tileType, slice.tensor,
                        slice.offsets, other);
}

void Emitter::emitStore(const Slice &slice, Value value, Value mask,
                        Location loc) {
  if (slice.isGather()) {
    ScatterOp::create(builder, loc, value, slice.tensor, slice.offsets,
                      slice.indices, slice.indexDims, mask);
    return;
  }
  StoreOp::create(builder, loc, value, slice.tensor, slice.offsets, mask);
}

FailureOr<Emitter::SubTile> Emitter::emitSubTile(const SliceExpr &expr,
                                                 RankedTensorType type) {
  if (expr.ranges.size() != static_cast<size_t>(type.getRank()))
    return error(expr.getLoc())
           << "a " << describe(type) << " has " << type.getRank()
           << (type.getRank() == 1 ? " dimension" : " dimensions")
           << " but the index has " << expr.ranges.size();
  SubTile sub;
  for (auto [dim, range] : llvm::enumerate(expr.ranges)) {
    FailureOr<Literal> start =
        evaluateConstant(*range.start, "an index into a tile");
    if (failed(start))
      return failure();
    int64_t extent = 1;
    if (range.isRange()) {
      FailureOr<Literal> size =
          evaluateConstant(*range.extent, "an index into a tile");
      if (failed(size))
        return failure();
      if (size->kind != Literal::Kind::Int || size->intValue <= 0)
        return error(range.extent->getLoc())
               << "an extent in a tile is a positive integer constant";
      extent = size->intValue;
      sub.isElement = false;
    }
    // start > size - extent, not start + extent > size, which overflows
    // for a start near 2^63 (utils/fuzz.py seed 103).
    if (start->kind != Literal::Kind::Int || start->intValue < 0 ||
        extent > type.getDimSize(dim) ||
        start->intValue > type.getDimSize(dim) - extent)
      return error(range.start->getLoc())
             << (range.isRange() ? "the sub-tile " : "the index ")
             << (start->kind == Literal::Kind::Int
                     ? std::to_string(start->intValue)
                     : std::string("(a number)"))
             << (range.isRange() ? " :+ " + std::to_string(extent)
                                 : std::string())
             << " is outside dimension " << dim << " of a " << describe(type)
             << ": an index into a tile is a constant inside it";
    sub.offsets.push_back(start->intValue);
    sub.shape.push_back(extent);
  }
  return sub;
}

FailureOr<Operand> Emitter::emitIndexed(const SliceExpr &expr) {
  StringRef name = expr.baseName();
  if (!name.empty() && failed(resolve(name, expr.base->getLoc())))
    return failure();
  const Symbol *symbol = name.empty() ? nullptr : lookup(name);
  if (symbol && symbol->kind == Symbol::Kind::Param) {
    FailureOr<Slice> slice = emitSlice(expr);
    if (failed(slice))
      return failure();
    return Operand{emitLoad(*slice, expr.getLoc()), std::nullopt,
                   expr.getLoc()};
  }
  // A tile value: an element, or a sub-tile.
  FailureOr<Operand> base = emitExpr(*expr.base);
  if (failed(base))
    return failure();
  auto type = base->isLiteral()
                  ? RankedTensorType()
                  : dyn_cast<RankedTensorType>(base->value.getType());
  if (!type)
    return error(expr.base->getLoc())
           << "only tensors and tiles can be indexed; this is "
           << (base->isLiteral()
                   ? std::string("a literal")
                   : "a scalar " + describe(base->value.getType()));
  FailureOr<SubTile> sub = emitSubTile(expr, type);
  if (failed(sub))
    return failure();
  Location loc = getLoc(expr.getLoc());
  if (sub->isElement)
    return Operand{ExtractOp::create(builder, loc, base->value, sub->offsets),
                   std::nullopt, expr.getLoc()};
  return Operand{ExtractSliceOp::create(builder, loc, type.clone(sub->shape),
                                        base->value, sub->offsets),
                 std::nullopt, expr.getLoc()};
}
