//===- LowerLanguage.cpp - iota, indexing, gathers, atomics ---------------===//
//
// The ops of the language's later features (docs/spec.md): each thread
// computes its own elements' indices, and the ops that read or write
// memory by index check every element against the tensor's bounds.
//
//===----------------------------------------------------------------------===//

#include "KernelLowering.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace mlir::tile;

LogicalResult KernelLowering::lowerIota(IotaOp op) {
  // Each thread's elements' indices along the axis, from its slots'
  // coordinates: no memory.
  RankedTensorType type = op.getType();
  Value slots = zero(getSlotsType(type));
  for (int64_t slot = 0, e = getSlots(type); slot < e; ++slot) {
    Value index = slotCoordinates(slot, type.getShape())[op.getAxis()];
    Value value =
        arith::IndexCastOp::create(builder, loc, builder.getI32Type(), index);
    slots = vector::InsertOp::create(builder, loc, value, slots, slot);
  }
  mapTile(op.getResult(), slots);
  return success();
}
