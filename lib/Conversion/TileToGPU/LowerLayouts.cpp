//===- LowerLayouts.cpp - tile.convert_layout -----------------------------===//
//
// A conversion moves each element to the slot and thread its new layout
// names, as getConversionPlan decided: within each thread, with one warp
// shuffle a slot, or through a shared scratch var. Everything is asked of
// the two layouts' interface, so any layout converts.
//
//===----------------------------------------------------------------------===//

#include "KernelLowering.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace mlir::tile;

LogicalResult KernelLowering::lowerConvertLayout(ConvertLayoutOp op) {
  RankedTensorType type = op.getType();
  ArrayRef<int64_t> shape = type.getShape();
  LayoutAttrInterface from = getLayout(op.getInput()),
                      to = getLayout(op.getResult());
  ConversionPlan plan = getConversionPlan(from, to, type, threads);
  FailureOr<DistributedTile> input =
      lookupTile(op, op.getInput(), /*requireOwner=*/false);
  if (failed(input))
    return failure();
  Value source = input->slots;
  Type element = type.getElementType();
  int64_t toSlots = to.getSlotCount(shape, threads);
  Value result = zero(VectorType::get({toSlots}, element));
  switch (plan.kind) {
  case ConversionKind::None:
    result = source;
    break;
  case ConversionKind::InThread:
    result = permuteSlots(source, plan.sourceSlots);
    break;
  case ConversionKind::Shuffle: {
    // Each thread fetches its element of the slot from the lane that holds
    // it; a slot that holds nothing fetches from a lane of the tile's first
    // element.
    Value width = arith::ConstantIntOp::create(builder, loc, kWarpSize, 32);
    for (int64_t slot = 0; slot < toSlots; ++slot) {
      SmallVector<Value> coords =
          to.emitSlotElement(builder, loc, shape, threads, threadId, slot);
      if (Value valid =
              to.emitSlotValid(builder, loc, shape, threads, threadId, slot))
        for (Value &coord : coords)
          coord = safeIndex(coord, valid);
      Value holder =
          from.emitElementHolderThread(builder, loc, shape, threads, coords);
      Value lane = arith::IndexCastOp::create(
          builder, loc, builder.getI32Type(),
          arith::RemUIOp::create(builder, loc, holder,
                                 constantIndex(kWarpSize)));
      Value value = vector::ExtractOp::create(builder, loc, source,
                                              plan.sourceSlots[slot]);
      auto shuffle = gpu::ShuffleOp::create(builder, loc, value, lane, width,
                                            gpu::ShuffleMode::IDX);
      result = vector::InsertOp::create(
          builder, loc, shuffle.getShuffleResult(), result, slot);
    }
    break;
  }
  case ConversionKind::Shared: {
    Value scratchVar = op.getScratch();
    Value scratch = scratchVar ? varStorage.lookup(scratchVar) : Value();
    if (!scratch || !isa<MemRefType>(scratch.getType()))
      return op->emitError("internal error: this conversion moves elements "
                           "between warps through a shared scratch var, but "
                           "it has none; run tile-plan-shared first");
    // The primary holder of each element writes it, a barrier, and every
    // thread reads the elements of its new slots.
    for (int64_t slot = 0, e = from.getSlotCount(shape, threads); slot < e;
         ++slot) {
      Value primary =
          from.emitPrimaryHolder(builder, loc, shape, threads, threadId, slot);
      Value index = from.emitSlotLinearIndex(builder, loc, shape, threads,
                                             threadId, slot);
      Value value = vector::ExtractOp::create(builder, loc, source, slot);
      guarded(primary, [&] {
        memref::StoreOp::create(builder, loc, value, scratch, index);
      });
    }
    gpu::BarrierOp::create(builder, loc);
    for (int64_t slot = 0; slot < toSlots; ++slot) {
      Value valid =
          to.emitSlotValid(builder, loc, shape, threads, threadId, slot);
      Value value = guarded(valid, element, zero(element), [&] {
        Value index = to.emitSlotLinearIndex(builder, loc, shape, threads,
                                             threadId, slot);
        return memref::LoadOp::create(builder, loc, scratch, index).getResult();
      });
      result = vector::InsertOp::create(builder, loc, value, result, slot);
    }
    break;
  }
  }
  if (auto rows = dyn_cast<RowsLayoutAttr>(to))
    mapTile(op.getResult(), result, Layout::RowReplicated, rows);
  else
    mapTile(op.getResult(), result);
  return success();
}
