//===- LowerMemory.cpp - global slices, shared and per-thread vars --------===//

#include "KernelLowering.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;
using namespace mlir::tile;

//===----------------------------------------------------------------------===//
// Storage of vars
//===----------------------------------------------------------------------===//

/// Shared vars are views of the CTA's one shared buffer at their planned
/// offsets; per-thread vars are allocas, which LLVM keeps in registers since
/// every access has a constant slot. All are made once, at the kernel entry,
/// so a var declared in a loop costs nothing per iteration.
LogicalResult KernelLowering::createStorage() {
  auto workgroup = gpu::AddressSpaceAttr::get(builder.getContext(),
                                              gpu::AddressSpace::Workgroup);
  if (!func.getWorkgroupAttributions().empty()) {
    sharedBase = func.getWorkgroupAttributions().front();
  } else if (auto bytes = kernel->getAttrOfType<IntegerAttr>(kSharedBytesAttr);
             bytes && bytes.getInt() > 0) {
    auto type = MemRefType::get({ShapedType::kDynamic}, builder.getI8Type(),
                                MemRefLayoutAttrInterface{}, workgroup);
    sharedBase = gpu::DynamicSharedMemoryOp::create(builder, loc, type);
  }
  WalkResult walked = kernel.walk([&](VarOp var) {
    VarType type = var.getVarType();
    Location varLoc = var.getLoc();
    if (type.isScalar()) {
      varStorage[var] = memref::AllocaOp::create(
          builder, varLoc, MemRefType::get({}, type.getElementType()));
      return WalkResult::advance();
    }
    auto tensor = cast<RankedTensorType>(type.getValueType());
    // A ring's stages are views made where each tile.stage is.
    if (var.isRing())
      return WalkResult::advance();
    if (isInRegisters(var)) {
      // A slot per slot of the var's layout (a row statistic's #tile.rows:
      // one per row group of its parent).
      auto slots = VectorType::get(
          {getVarLayout(var).getSlotCount(tensor.getShape(), threads)},
          tensor.getElementType());
      varStorage[var] =
          memref::AllocaOp::create(builder, varLoc, MemRefType::get({}, slots));
      return WalkResult::advance();
    }
    auto offset = var->getAttrOfType<IntegerAttr>(kOffsetAttr);
    if (!offset || !sharedBase) {
      var.emitError("shared var '")
          << var.getName()
          << "' has no place in shared memory: run tile-plan-shared before "
             "tile-to-gpu";
      return WalkResult::interrupt();
    }
    auto viewType =
        MemRefType::get({getSharedElements(var)}, tensor.getElementType(),
                        MemRefLayoutAttrInterface{}, workgroup);
    Value bytes = constantIndex(offset.getInt());
    varStorage[var] = memref::ViewOp::create(builder, varLoc, viewType,
                                             sharedBase, bytes, ValueRange{});
    sharedOffsets[var] = bytes;
    return WalkResult::advance();
  });
  if (walked.wasInterrupted())
    return failure();
  // cp.async takes the shared address as a pointer.
  bool async = kernel
                   .walk([](CopyOp copy) {
                     return copy.getAsync() ? WalkResult::interrupt()
                                            : WalkResult::advance();
                   })
                   .wasInterrupted();
  if (async && sharedBase) {
    Value address = memref::ExtractAlignedPointerAsIndexOp::create(builder, loc,
                                                                   sharedBase);
    sharedPointer = LLVM::IntToPtrOp::create(
        builder, loc, LLVM::LLVMPointerType::get(builder.getContext(), 3),
        arith::IndexCastOp::create(builder, loc, builder.getI64Type(), address),
        /*dereferenceable=*/nullptr);
  }
  return success();
}

//===----------------------------------------------------------------------===//
// Global tensors
//===----------------------------------------------------------------------===//

Value KernelLowering::globalAddress(const GlobalTensor &tensor,
                                    ArrayRef<Value> coords) {
  Value linear = arith::IndexCastOp::create(builder, loc, builder.getI64Type(),
                                            linearize(coords, tensor.dims));
  return LLVM::GEPOp::create(builder, loc, tensor.pointer.getType(),
                             tensor.type.getElementType(), tensor.pointer,
                             ValueRange{linear});
}

/// Whether `offset` is a constant that keeps a slice of `extent` inside a
/// static dimension of `size`.
static bool isStaticallyInside(Value offset, Value size, int64_t extent) {
  APInt constantOffset, constantSize;
  // offset <= size - extent: offset + extent could overflow.
  return matchPattern(offset, m_ConstantInt(&constantOffset)) &&
         matchPattern(size, m_ConstantInt(&constantSize)) &&
         constantOffset.getSExtValue() >= 0 &&
         constantOffset.getSExtValue() <= constantSize.getSExtValue() - extent;
}

/// The condition for `index` to fall inside a dimension of `size`:
/// 0 <= index < size is one unsigned compare, since a size is never
/// negative (a launch refuses sizes below 1, docs/abi.md), so a negative
/// index is above it as an unsigned number.
Value KernelLowering::insideDimension(Value index, Value size) {
  return arith::CmpIOp::create(builder, loc, arith::CmpIPredicate::ult, index,
                               size);
}

Value KernelLowering::sliceInside(ValueRange offsets, RankedTensorType type,
                                  const GlobalTensor &tensor) {
  Value whole;
  for (auto [dim, offset] : llvm::enumerate(offsets)) {
    Value size = tensor.dims[dim];
    int64_t extent = type.getDimSize(dim);
    if (isStaticallyInside(offset, size, extent))
      continue;
    // 0 <= first <= size - extent, which cannot overflow (a size is at
    // least 0, an extent positive) where first + extent <= size could: a
    // start near 2^63 would wrap and pass.
    Value first = lookupScalar(offset);
    Value notBelow = arith::CmpIOp::create(
        builder, loc, arith::CmpIPredicate::sge, first, constantIndex(0));
    Value lastStart =
        arith::SubIOp::create(builder, loc, size, constantIndex(extent));
    Value notAbove = arith::CmpIOp::create(
        builder, loc, arith::CmpIPredicate::sle, first, lastStart);
    whole = both(whole, both(notBelow, notAbove));
  }
  return whole;
}

Value KernelLowering::versioned(Value whole, Type type,
                                function_ref<Value(bool checkBounds)> body) {
  if (!whole)
    return body(/*checkBounds=*/true);
  auto ifOp = scf::IfOp::create(builder, loc,
                                type ? TypeRange{type} : TypeRange{}, whole,
                                /*withElseRegion=*/true);
  OpBuilder::InsertionGuard guard(builder);
  for (auto [region, checkBounds] : {std::pair{&ifOp.getThenRegion(), false},
                                     std::pair{&ifOp.getElseRegion(), true}}) {
    Block &block = region->front();
    if (!block.empty())
      block.back().erase(); // the default terminator of a result-less if
    builder.setInsertionPointToStart(&block);
    Value value = body(checkBounds);
    scf::YieldOp::create(builder, loc, type ? ValueRange{value} : ValueRange{});
  }
  return type ? ifOp.getResult(0) : Value();
}

LogicalResult KernelLowering::lowerLoad(LoadOp op) {
  RankedTensorType type = op.getType();
  const GlobalTensor &tensor = globals[op.getSource()];
  Type element = type.getElementType();
  VectorType slotsType = getSlotsType(type);
  // Outside the tensor, `other` (or 0).
  Value outside = op.getOther() ? lookupScalar(op.getOther()) : zero(element);
  Value whole = sliceInside(op.getOffsets(), type, tensor);
  int64_t run = getVector(op.getResult());
  LayoutAttrInterface layout = getLayout(op.getResult());
  auto perElement = [&](bool checkBounds) {
    Value slots = zero(slotsType);
    for (int64_t slot = 0, e = getSlots(type); slot < e; ++slot) {
      // One statement each: the order of the ops they create must not be
      // the compiler's order of evaluating arguments.
      Value valid = slotIsValid(type.getNumElements(), slot);
      SmallVector<Value> local = slotCoordinates(slot, type.getShape(), layout);
      auto [coords, inside] = sliceElement(op.getOffsets(), type, tensor, local,
                                           valid, checkBounds);
      Value value = guarded(inside, element, outside, [&] {
        return LLVM::LoadOp::create(builder, loc, element,
                                    globalAddress(tensor, coords));
      });
      slots = vector::InsertOp::create(builder, loc, value, slots, slot);
    }
    return slots;
  };
  // A load that is its block's only access of global memory has no other
  // access to share a test of the whole slice with: its runs, where known
  // aligned, are each checked, which costs a compare and the zeroing of a
  // predicated load's registers (tile-predicated-accesses) where the test and
  // its branch cost more and keep ptxas from unrolling the loop.
  bool alone = llvm::none_of(*op->getBlock(), [&](Operation &other) {
    return &other != op.getOperation() &&
           other
               .walk([](Operation *nested) {
                 return getAccessedTensor(nested) || isa<CopyOp>(nested)
                            ? WalkResult::interrupt()
                            : WalkResult::advance();
               })
               .wasInterrupted();
  });
  Value slots = withRuns(
      op.getOffsets(), type, tensor, run, whole, slotsType, perElement,
      [&](bool checkBounds) {
        return vectorAccess(op.getOffsets(), type, tensor, run, {}, checkBounds,
                            outside);
      },
      /*checkedOnly=*/alone);
  mapTile(op.getResult(), slots);
  return success();
}

LogicalResult KernelLowering::lowerStore(StoreOp op) {
  RankedTensorType type = op.getValue().getType();
  const GlobalTensor &tensor = globals[op.getDest()];
  FailureOr<DistributedTile> tile =
      lookupTile(op, op.getValue(), /*requireOwner=*/false);
  if (failed(tile))
    return failure();
  // A row result reduced where its input lives is stored by the primary
  // holder of each row (#tile.rows: the holder of its column 0), where it
  // already is: no trip through shared memory.
  bool rows = tile->layout == Layout::RowReplicated;
  Value mask;
  if (op.getMask()) {
    // tile-plan-shared gives a masked store a value its owners hold.
    if (rows)
      return op.emitError("internal error: a masked store of a row result "
                          "must read it from a shared temporary; run "
                          "tile-plan-shared first");
    FailureOr<DistributedTile> maskTile = lookupTile(op, op.getMask());
    if (failed(maskTile))
      return failure();
    mask = maskTile->slots;
  }
  Value whole = sliceInside(op.getOffsets(), type, tensor);
  int64_t run = rows ? 1 : getVector(op.getValue());
  LayoutAttrInterface valueLayout = getLayout(op.getValue());
  auto perElement = [&](bool checkBounds) {
    int64_t numSlots = rows ? tile->rows.getSlotCount(type.getShape(), threads)
                            : getSlots(type);
    for (int64_t slot = 0; slot < numSlots; ++slot) {
      Value valid;
      SmallVector<Value> local;
      if (rows) {
        valid = tile->rows.emitPrimaryHolder(builder, loc, type.getShape(),
                                             threads, threadId, slot);
        local = tile->rows.emitSlotElement(builder, loc, type.getShape(),
                                           threads, threadId, slot);
      } else {
        valid = slotIsValid(type.getNumElements(), slot);
        local = slotCoordinates(slot, type.getShape(), valueLayout);
      }
      if (mask)
        valid =
            both(valid, vector::ExtractOp::create(builder, loc, mask, slot));
      auto [coords, inside] = sliceElement(op.getOffsets(), type, tensor, local,
                                           valid, checkBounds);
      Value value = vector::ExtractOp::create(builder, loc, tile->slots, slot);
      guarded(inside, [&] {
        LLVM::StoreOp::create(builder, loc, value,
                              globalAddress(tensor, coords));
      });
    }
    return Value();
  };
  withRuns(op.getOffsets(), type, tensor, run, whole, Type(), perElement,
           [&](bool checkBounds) {
             return vectorAccess(op.getOffsets(), type, tensor, run,
                                 tile->slots, checkBounds);
           });
  return success();
}

Value KernelLowering::runsAligned(ValueRange offsets, RankedTensorType type,
                                  const GlobalTensor &tensor, int64_t run,
                                  RunAlignment &alignment) {
  // Runs start at multiples of `run` of the slice's last dimension: they
  // are aligned when the slice's start there and the rows' pitch are. What
  // the divisibility analysis knows (constants, loop steps, the kernel's
  // tile.divisibility) is not tested again.
  bool offsetKnown, rowsKnown;
  alignment = divisibility.getRunAlignment(
      offsets.back(), tensor.type, type.getRank(), run, offsetKnown, rowsKnown);
  if (alignment != RunAlignment::AtRunTime)
    return {};
  auto multiple = [&](Value value) -> Value {
    Value rest =
        arith::RemSIOp::create(builder, loc, value, constantIndex(run));
    return arith::CmpIOp::create(builder, loc, arith::CmpIPredicate::eq, rest,
                                 constantIndex(0));
  };
  Value aligned;
  if (!offsetKnown)
    aligned = both(aligned, multiple(lookupScalar(offsets.back())));
  if (!rowsKnown)
    aligned = both(aligned, multiple(tensor.dims.back()));
  return aligned;
}

Value KernelLowering::withRuns(ValueRange offsets, RankedTensorType type,
                               const GlobalTensor &tensor, int64_t run,
                               Value whole, Type result,
                               function_ref<Value(bool checkBounds)> perElement,
                               function_ref<Value(bool checkBounds)> runs,
                               bool checkedOnly) {
  if (run <= 1)
    return versioned(whole, result, perElement);
  RunAlignment alignment;
  Value aligned = runsAligned(offsets, type, tensor, run, alignment);
  if (alignment == RunAlignment::Never)
    return versioned(whole, result, perElement);
  // Runs known aligned are each wholly inside or wholly outside the
  // tensor where its last dimension is whole runs too, so the checked
  // version tests a run, not each element. (Without the second, a 1-D
  // tensor of 130 elements ended inside the run [128, 132) and its vector
  // load read past the end: utils/fuzz.py seed 105, iteration 15816.)
  if (alignment == RunAlignment::Always &&
      divisibility.hasWholeRuns(tensor.type, run)) {
    return checkedOnly ? runs(/*checkBounds=*/true)
                       : versioned(whole, result, runs);
  }
  // Inside the tensor the runs are taken whole where they are aligned and
  // element by element, unchecked, where not: a row pitch the compiler
  // cannot see is a multiple of the run still skips every bounds check on
  // every slice but the last. Outside, each element is checked.
  auto inside = [&] {
    if (!aligned) // known aligned, but the tensor may end inside a run
      return runs(/*checkBounds=*/false);
    return versioned(aligned, result, [&](bool unaligned) {
      return unaligned ? perElement(/*checkBounds=*/false)
                       : runs(/*checkBounds=*/false);
    });
  };
  if (!whole)
    return inside();
  return versioned(whole, result, [&](bool checkBounds) {
    return checkBounds ? perElement(/*checkBounds=*/true) : inside();
  });
}

Value KernelLowering::vectorAccess(ValueRange offsets, RankedTensorType type,
                                   const GlobalTensor &tensor, int64_t run,
                                   Value store, bool checkBounds,
                                   Value outside) {
  Type element = type.getElementType();
  auto runType = VectorType::get({run}, element);
  unsigned alignment = run * element.getIntOrFloatBitWidth() / 8;
  Value slots = store ? Value() : zero(getSlotsType(type));
  for (int64_t first = 0, e = getSlots(type); first < e; first += run) {
    SmallVector<Value> local = slotCoordinates(first, type.getShape(), run);
    // An aligned run is inside the tensor exactly when its first element
    // is: the row length is a multiple of the run.
    auto [coords, inside] =
        sliceElement(offsets, type, tensor, local,
                     slotIsValid(type.getNumElements(), first), checkBounds);
    if (store) {
      SmallVector<Value> elements;
      for (int64_t i = 0; i < run; ++i)
        elements.push_back(
            vector::ExtractOp::create(builder, loc, store, first + i));
      Value value =
          vector::FromElementsOp::create(builder, loc, runType, elements);
      guarded(inside, [&] {
        LLVM::StoreOp::create(builder, loc, value,
                              globalAddress(tensor, coords), alignment);
      });
      continue;
    }
    Value otherwise =
        inside ? vector::BroadcastOp::create(builder, loc, runType,
                                             outside ? outside : zero(element))
               : Value();
    Value value = guarded(inside, runType, otherwise, [&] {
      return LLVM::LoadOp::create(builder, loc, runType,
                                  globalAddress(tensor, coords), alignment);
    });
    slots = insertRun(slots, value, first);
  }
  return slots;
}

std::pair<SmallVector<Value>, Value>
KernelLowering::sliceElement(ValueRange offsets, RankedTensorType type,
                             const GlobalTensor &tensor, ArrayRef<Value> local,
                             Value inside, bool checkBounds) {
  SmallVector<Value> global;
  for (auto [dim, offset] : llvm::enumerate(offsets)) {
    Value index =
        arith::AddIOp::create(builder, loc, lookupScalar(offset), local[dim]);
    global.push_back(index);
    if (!checkBounds ||
        isStaticallyInside(offset, tensor.dims[dim], type.getDimSize(dim)))
      continue;
    // A slice wholly inside the dimension or wholly outside: its first
    // index answers for all (one test a slice, the same for every thread
    // and slot, where the loop may hoist it).
    Value tested = divisibility.isSliceWhole(offset, tensor.type, dim,
                                             type.getDimSize(dim))
                       ? lookupScalar(offset)
                       : index;
    inside = both(inside, insideDimension(tested, tensor.dims[dim]));
  }
  return {global, inside};
}

//===----------------------------------------------------------------------===//
// Vars
//===----------------------------------------------------------------------===//

LogicalResult KernelLowering::lowerVar(VarOp op) {
  if (!op.getInit())
    return success();
  return storeToVar(op, op.getResult(), op.getInit());
}

LogicalResult KernelLowering::lowerWrite(WriteOp op) {
  return storeToVar(op, op.getVar(), op.getValue());
}

LogicalResult KernelLowering::storeToVar(Operation *op, Value var,
                                         Value value) {
  Value storage = varStorage.lookup(var);
  VarOp varOp = getVarOp(var);
  if (varOp.getVarType().isScalar()) {
    memref::StoreOp::create(builder, loc, lookupScalar(value), storage);
    return success();
  }
  FailureOr<DistributedTile> tile =
      lookupTile(op, value, /*requireOwner=*/false);
  if (failed(tile))
    return failure();
  if (isInRegisters(varOp)) {
    // A register var holds its values slot by slot: a row result only in a
    // var of its #tile.rows layout.
    if (tile->layout != Layout::Owner &&
        Attribute(tile->rows) != Attribute(getVarLayout(varOp)))
      return lookupTile(op, value); // reports the layout error
    memref::StoreOp::create(builder, loc, tile->slots, storage);
    return success();
  }
  auto type = cast<RankedTensorType>(varOp.getVarType().getValueType());
  if (tile->layout == Layout::RowReplicated) {
    // The primary holder of each row stores the row's result.
    RowsLayoutAttr rows = tile->rows;
    for (int64_t slot = 0, e = rows.getSlotCount(type.getShape(), threads);
         slot < e; ++slot) {
      Value store = rows.emitPrimaryHolder(builder, loc, type.getShape(),
                                           threads, threadId, slot);
      Value row = rows.emitSlotElement(builder, loc, type.getShape(), threads,
                                       threadId, slot)[0];
      Value result = vector::ExtractOp::create(builder, loc, tile->slots, slot);
      guarded(store, [&] {
        memref::StoreOp::create(builder, loc, result, storage, row);
      });
    }
    return success();
  }
  LayoutAttrInterface layout = getLayout(value);
  for (int64_t slot = 0, e = getSlots(type); slot < e; ++slot) {
    Value element = sharedIndex(varOp, slot, layout);
    Value value = vector::ExtractOp::create(builder, loc, tile->slots, slot);
    guarded(slotIsValid(type.getNumElements(), slot), [&] {
      memref::StoreOp::create(builder, loc, value, storage, element);
    });
  }
  return success();
}

LogicalResult KernelLowering::lowerRead(ReadOp op) {
  Value storage = varStorage.lookup(op.getVar());
  VarOp varOp = getVarOp(op.getVar());
  if (varOp.getVarType().isScalar()) {
    scalars.map(op.getResult(),
                memref::LoadOp::create(builder, loc, storage).getResult());
    return success();
  }
  if (isInRegisters(varOp)) {
    mapTile(op.getResult(), memref::LoadOp::create(builder, loc, storage));
    return success();
  }
  // Ops reading across threads read the shared var where they stand; the
  // owners load their elements only for the other uses.
  if (!hasOwnerUse(op))
    return success();
  // A thread whose slot holds no element reads nothing: the barrier plan
  // counts this read as the owners' own, so touching another element (a
  // clamped index) would race with its owner's write.
  auto type = cast<RankedTensorType>(op.getType());
  Type element = type.getElementType();
  VectorType slotsType = getSlotsType(op.getResult());
  Value slots = zero(slotsType);
  LayoutAttrInterface layout = getLayout(op.getResult());
  for (int64_t slot = 0, e = slotsType.getNumElements(); slot < e; ++slot) {
    Value index = sharedIndex(varOp, slot, layout);
    Value otherwise = zero(element);
    Value valid = layout.emitSlotValid(builder, loc, type.getShape(), threads,
                                       threadId, slot);
    Value value = guarded(valid, element, otherwise, [&] {
      return memref::LoadOp::create(builder, loc, storage, index);
    });
    slots = vector::InsertOp::create(builder, loc, value, slots, slot);
  }
  mapTile(op.getResult(), slots);
  return success();
}
