//===- LowerLanguage.cpp - iota, indexing, gathers, atomics ---------------===//
//
// The ops of the language's later features (docs/spec.md): each thread
// computes its own elements' indices, and the ops that read or write
// memory by index check every element against the tensor's bounds.
//
//===----------------------------------------------------------------------===//

#include "KernelLowering.h"
#include "tile/Analysis/ThreadMapping.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace mlir::tile;

LogicalResult KernelLowering::lowerIota(IotaOp op) {
  // Each thread's elements' indices along the axis, from its slots'
  // coordinates in the result's layout (an mma accumulator's, where the
  // iota masks a dot's result): no memory. A slot past the tile's end
  // holds an index no element has, which nothing reads.
  RankedTensorType type = op.getType();
  LayoutAttrInterface layout = getLayout(op.getResult());
  VectorType slotsType = getSlotsType(op.getResult());
  Value slots = zero(slotsType);
  for (int64_t slot = 0, e = slotsType.getNumElements(); slot < e; ++slot) {
    Value index = slotCoordinates(slot, type.getShape(), layout)[op.getAxis()];
    Value value =
        arith::IndexCastOp::create(builder, loc, builder.getI32Type(), index);
    slots = vector::InsertOp::create(builder, loc, value, slots, slot);
  }
  mapTile(op.getResult(), slots);
  return success();
}

//===----------------------------------------------------------------------===//
// Elements and sub-tiles of tiles
//===----------------------------------------------------------------------===//

/// The linear index of `coords` in a tile of `shape`.
static int64_t linearIndex(ArrayRef<int64_t> coords, ArrayRef<int64_t> shape) {
  int64_t linear = 0;
  for (auto [coord, size] : llvm::zip(coords, shape))
    linear = linear * size + coord;
  return linear;
}

LogicalResult KernelLowering::lowerExtract(ExtractOp op) {
  // One thread holds the element: every thread reads it from shared memory.
  FailureOr<Value> view = sharedViewOf(op, op.getInput());
  if (failed(view))
    return failure();
  int64_t linear =
      linearIndex(op.getIndices(), op.getInput().getType().getShape());
  scalars.map(op.getResult(),
              memref::LoadOp::create(builder, loc, *view,
                                     ValueRange{constantIndex(linear)})
                  .getResult());
  return success();
}

/// The index, in a tile of `full`'s shape, of the element at `coords` of a
/// sub-tile at `offsets`.
static SmallVector<Value> shifted(OpBuilder &builder, Location loc,
                                  ArrayRef<Value> coords,
                                  ArrayRef<int64_t> offsets) {
  SmallVector<Value> result;
  for (auto [coord, offset] : llvm::zip(coords, offsets))
    result.push_back(offset == 0
                         ? coord
                         : arith::AddIOp::create(builder, loc, coord,
                                                 arith::ConstantIndexOp::create(
                                                     builder, loc, offset)));
  return result;
}

LogicalResult KernelLowering::lowerExtractSlice(ExtractSliceOp op) {
  RankedTensorType type = op.getType(), fullType = op.getInput().getType();
  Value slots = zero(getSlotsType(type));
  if (std::optional<SmallVector<int64_t>> map = getOwnerSlotMap(
          fullType, op.getOffsets(), type.getShape(), threads)) {
    // Each thread's elements of the sub-tile are in its own slots.
    FailureOr<DistributedTile> input = lookupTile(op, op.getInput());
    if (failed(input))
      return failure();
    for (auto [slot, from] : llvm::enumerate(*map))
      slots = vector::InsertOp::create(
          builder, loc,
          vector::ExtractOp::create(builder, loc, input->slots, from), slots,
          slot);
    mapTile(op.getResult(), slots);
    return success();
  }
  FailureOr<Value> view = sharedViewOf(op, op.getInput());
  if (failed(view))
    return failure();
  SmallVector<Value> fullDims;
  for (int64_t size : fullType.getShape())
    fullDims.push_back(constantIndex(size));
  for (int64_t slot = 0, e = getSlots(type); slot < e; ++slot) {
    Value valid = slotIsValid(type.getNumElements(), slot);
    SmallVector<Value> coords = shifted(
        builder, loc, slotCoordinates(slot, type.getShape()), op.getOffsets());
    Value index = safeIndex(linearize(coords, fullDims), valid);
    Value value = memref::LoadOp::create(builder, loc, *view, index);
    slots = vector::InsertOp::create(builder, loc, value, slots, slot);
  }
  mapTile(op.getResult(), slots);
  return success();
}

LogicalResult KernelLowering::lowerInsertSlice(InsertSliceOp op) {
  RankedTensorType type = op.getType(), subType = op.getSource().getType();
  FailureOr<DistributedTile> dest = lookupTile(op, op.getDest());
  if (failed(dest))
    return failure();
  Value slots = dest->slots;
  if (std::optional<SmallVector<int64_t>> map =
          getOwnerSlotMap(type, op.getOffsets(), subType.getShape(), threads)) {
    // Slot j of the sub-tile is slot map[j] of the tile, in every thread
    // whose slot j holds an element.
    FailureOr<DistributedTile> source = lookupTile(op, op.getSource());
    if (failed(source))
      return failure();
    for (auto [slot, to] : llvm::enumerate(*map)) {
      Value value =
          vector::ExtractOp::create(builder, loc, source->slots, slot);
      if (Value valid = slotIsValid(subType.getNumElements(), slot))
        value = arith::SelectOp::create(
            builder, loc, valid, value,
            vector::ExtractOp::create(builder, loc, slots, to));
      slots = vector::InsertOp::create(builder, loc, value, slots, to);
    }
    mapTile(op.getResult(), slots);
    return success();
  }
  FailureOr<Value> view = sharedViewOf(op, op.getSource());
  if (failed(view))
    return failure();
  SmallVector<Value> subDims;
  for (int64_t size : subType.getShape())
    subDims.push_back(constantIndex(size));
  for (int64_t slot = 0, e = getSlots(type); slot < e; ++slot) {
    SmallVector<Value> coords = slotCoordinates(slot, type.getShape());
    // Inside the sub-tile: its element at coords - offsets.
    Value inside = slotIsValid(type.getNumElements(), slot);
    SmallVector<Value> local;
    for (auto [dim, coord] : llvm::enumerate(coords)) {
      int64_t offset = op.getOffsets()[dim];
      Value first = constantIndex(offset);
      Value end = constantIndex(offset + subType.getDimSize(dim));
      // One statement each: the order of the ops must not be the C++
      // compiler's order of evaluating arguments.
      Value beforeEnd = arith::CmpIOp::create(
          builder, loc, arith::CmpIPredicate::ult, coord, end);
      Value fromFirst = arith::CmpIOp::create(
          builder, loc, arith::CmpIPredicate::uge, coord, first);
      inside = both(inside,
                    arith::AndIOp::create(builder, loc, fromFirst, beforeEnd));
      local.push_back(arith::SubIOp::create(builder, loc, coord, first));
    }
    Value index = safeIndex(linearize(local, subDims), inside);
    Value value = memref::LoadOp::create(builder, loc, *view, index);
    Value old = vector::ExtractOp::create(builder, loc, slots, slot);
    value = arith::SelectOp::create(builder, loc, inside, value, old);
    slots = vector::InsertOp::create(builder, loc, value, slots, slot);
  }
  mapTile(op.getResult(), slots);
  return success();
}

//===----------------------------------------------------------------------===//
// Gathers and scatters
//===----------------------------------------------------------------------===//

FailureOr<Value> KernelLowering::broadcastElement(Operation *user, Value tile,
                                                  ArrayRef<int64_t> shape,
                                                  int64_t slot,
                                                  ArrayRef<Value> coords,
                                                  Value valid) {
  auto type = cast<RankedTensorType>(tile.getType());
  if (type.getShape() == shape) {
    FailureOr<DistributedTile> own = lookupTile(user, tile);
    if (failed(own))
      return failure();
    return vector::ExtractOp::create(builder, loc, own->slots, slot)
        .getResult();
  }
  FailureOr<Value> view = sharedViewOf(user, tile);
  if (failed(view))
    return failure();
  SmallVector<Value> position, dims;
  for (auto [coord, size] : llvm::zip(coords, type.getShape())) {
    position.push_back(size == 1 ? constantIndex(0) : coord);
    dims.push_back(constantIndex(size));
  }
  Value index = safeIndex(linearize(position, dims), valid);
  return memref::LoadOp::create(builder, loc, *view, index).getResult();
}

/// The llvm.atomicrmw operation of an atomic update of `element`s.
static LLVM::AtomicBinOp getAtomicBinOp(AtomicKind kind, Type element) {
  bool isFloat = isa<FloatType>(element);
  switch (kind) {
  case AtomicKind::add:
    return isFloat ? LLVM::AtomicBinOp::fadd : LLVM::AtomicBinOp::add;
  case AtomicKind::max:
    return isFloat ? LLVM::AtomicBinOp::fmax : LLVM::AtomicBinOp::max;
  case AtomicKind::min:
    return isFloat ? LLVM::AtomicBinOp::fmin : LLVM::AtomicBinOp::min;
  }
  llvm_unreachable("unknown atomic kind");
}

FailureOr<std::pair<SmallVector<Value>, Value>> KernelLowering::indexedElement(
    Operation *op, const GlobalTensor &tensor, ValueRange offsets,
    ValueRange indices, ArrayRef<int64_t> indexDims, RankedTensorType type,
    int64_t slot, ArrayRef<Value> local, Value valid, Value inside) {
  SmallVector<Value> coords;
  for (auto [dim, offset] : llvm::enumerate(offsets)) {
    Value position = local[dim];
    if (const auto *k = llvm::find(indexDims, dim); k != indexDims.end()) {
      FailureOr<Value> index =
          broadcastElement(op, indices[k - indexDims.begin()], type.getShape(),
                           slot, local, valid);
      if (failed(index))
        return failure();
      position = arith::IndexCastOp::create(builder, loc,
                                            builder.getIndexType(), *index);
    }
    Value coord =
        arith::AddIOp::create(builder, loc, lookupScalar(offset), position);
    inside = both(inside, insideDimension(coord, tensor.dims[dim]));
    coords.push_back(coord);
  }
  return std::pair{coords, inside};
}

FailureOr<Value> KernelLowering::lowerIndexedAccess(
    Operation *op, Value tensorValue, ValueRange offsets, ValueRange indices,
    ArrayRef<int64_t> indexDims, RankedTensorType type, Value other,
    Value stored, Value mask, std::optional<AtomicKind> atomic) {
  const GlobalTensor &tensor = globals[tensorValue];
  Type element = type.getElementType();
  Value outside = other ? lookupScalar(other) : zero(element);
  Value storedSlots, maskSlots;
  if (stored) {
    FailureOr<DistributedTile> value = lookupTile(op, stored);
    if (failed(value))
      return failure();
    storedSlots = value->slots;
  }
  if (mask) {
    FailureOr<DistributedTile> value = lookupTile(op, mask);
    if (failed(value))
      return failure();
    maskSlots = value->slots;
  }
  // A gather with runs (tile-assign-layouts) holds its elements in them.
  LayoutAttrInterface layout = getLayout(stored ? stored : op->getResult(0));
  // The emulator tells the stores of one scatter apart by this number.
  int64_t scatterId = stored && !atomic ? nextScatterId++ : -1;
  Value slots = stored ? Value() : zero(getSlotsType(type));
  for (int64_t slot = 0, e = getSlots(type); slot < e; ++slot) {
    Value valid = slotIsValid(type.getNumElements(), slot);
    SmallVector<Value> local = slotCoordinates(slot, type.getShape(), layout);
    Value inside = valid;
    if (maskSlots)
      inside = both(inside,
                    vector::ExtractOp::create(builder, loc, maskSlots, slot));
    auto addressed = indexedElement(op, tensor, offsets, indices, indexDims,
                                    type, slot, local, valid, inside);
    if (failed(addressed))
      return failure();
    auto [coords, insideAll] = *addressed;
    if (!stored) {
      Value value = guarded(insideAll, element, outside, [&] {
        return LLVM::LoadOp::create(builder, loc, element,
                                    globalAddress(tensor, coords));
      });
      slots = vector::InsertOp::create(builder, loc, value, slots, slot);
      continue;
    }
    Value value = vector::ExtractOp::create(builder, loc, storedSlots, slot);
    guarded(insideAll, [&] {
      Value address = globalAddress(tensor, coords);
      if (atomic) {
        // Relaxed, device scope: the updates only need to be atomic.
        LLVM::AtomicRMWOp::create(builder, loc,
                                  getAtomicBinOp(*atomic, element), address,
                                  value, LLVM::AtomicOrdering::monotonic);
        return;
      }
      auto store = LLVM::StoreOp::create(builder, loc, value, address);
      store->setAttr(kScatterAttr,
                     builder.getDenseI64ArrayAttr({scatterId, slot}));
    });
  }
  return slots;
}

LogicalResult KernelLowering::lowerGather(GatherOp op) {
  RankedTensorType type = op.getType();
  const GlobalTensor &tensor = globals[op.getSource()];
  Type element = type.getElementType();
  VectorType slotsType = getSlotsType(type);
  bool failedElement = false;
  auto perElement = [&](bool) -> Value {
    FailureOr<Value> slots = lowerIndexedAccess(
        op, op.getSource(), op.getOffsets(), op.getIndices(), op.getIndexDims(),
        type, op.getOther(), Value(), Value());
    failedElement |= failed(slots);
    return succeeded(slots) ? *slots : zero(slotsType);
  };
  // tile-assign-layouts gives runs only to a gather of whole rows: no
  // index addresses the last dimension, so a run's elements are
  // consecutive in one row. Where they are aligned (the slice's column
  // offset and the row pitch multiples of the run; tensors are 16-byte
  // aligned, docs/abi.md) a run is one vector load, its row's index read
  // once, and wholly inside the tensor or wholly outside it: its first
  // element answers for it.
  int64_t run = getVector(op.getResult());
  RunAlignment alignment = RunAlignment::Never;
  Value aligned;
  if (run > 1)
    aligned = runsAligned(op.getOffsets(), type, tensor, run, alignment);
  auto runs = [&](bool) -> Value {
    auto runType = VectorType::get({run}, element);
    unsigned bytes = run * element.getIntOrFloatBitWidth() / 8;
    Value outside = vector::BroadcastOp::create(
        builder, loc, runType,
        op.getOther() ? lookupScalar(op.getOther()) : zero(element));
    Value slots = zero(slotsType);
    for (int64_t first = 0, e = getSlots(type); first < e; first += run) {
      Value valid = slotIsValid(type.getNumElements(), first);
      auto addressed = indexedElement(
          op, tensor, op.getOffsets(), op.getIndices(), op.getIndexDims(), type,
          first, slotCoordinates(first, type.getShape(), run), valid, valid);
      if (failed(addressed)) {
        failedElement = true;
        return slots;
      }
      auto [coords, inside] = *addressed;
      Value value = guarded(inside, runType, outside, [&] {
        return LLVM::LoadOp::create(builder, loc, runType,
                                    globalAddress(tensor, coords), bytes);
      });
      slots = insertRun(slots, value, first);
    }
    return slots;
  };
  Value slots;
  if (alignment == RunAlignment::Never)
    slots = perElement(true);
  else if (alignment == RunAlignment::Always)
    slots = runs(true);
  else
    slots = versioned(aligned, slotsType, [&](bool unaligned) {
      return unaligned ? perElement(true) : runs(true);
    });
  if (failedElement)
    return failure();
  mapTile(op.getResult(), slots);
  return success();
}
