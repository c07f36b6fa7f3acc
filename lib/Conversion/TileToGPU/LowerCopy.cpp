//===- LowerCopy.cpp - explicit copies, ring stages, async copies ---------===//
//
// A tile.copy is shared by the CTA's threads in chunks of `width`
// consecutive elements of a row of its box: chunk c (row-major) is moved
// by thread c % threads, as one vector access on each side. A copy with a
// global side that crosses its tensor's edge, or whose address is not
// aligned to a chunk at run time, takes the version that moves and checks
// one element at a time. An async copy is cp.async, which zero-fills what
// lies outside the tensor by its source size instead, with no branch;
// where it is not aligned and its elements are narrower than a cp.async,
// plain stores that stand for it (tile.async_copy).
// Below sm_80, which has no cp.async, it is the synchronous copy.
//
//===----------------------------------------------------------------------===//

#include "KernelLowering.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace mlir::tile;

/// cp.async of 16 bytes may bypass L1 (`.cg`); smaller ones may not.
static constexpr int64_t kCacheGlobalBytes = 16;

LogicalResult KernelLowering::lowerStage(StageOp op) {
  VarOp ring = op.getRingOp();
  auto offset = ring->getAttrOfType<IntegerAttr>(kOffsetAttr);
  if (!offset || !sharedBase)
    return op.emitError("ring '")
           << ring.getName()
           << "' has no place in shared memory: run tile-plan-shared before "
              "tile-to-gpu";
  int64_t stages = *ring.getStages();
  Value index = lookupScalar(op.getRotation());
  if (int64_t shift = llvm::mod(op.getOffset(), stages))
    index = arith::AddIOp::create(builder, loc, index, constantIndex(shift));
  index = arith::RemUIOp::create(builder, loc, index, constantIndex(stages));
  Value stride = constantIndex(getStageStride(ring));
  Value stageStart = arith::MulIOp::create(builder, loc, index, stride);
  Value first = constantIndex(offset.getInt());
  Value bytes = arith::AddIOp::create(builder, loc, first, stageStart);
  auto tensor = cast<RankedTensorType>(ring.getVarType().getValueType());
  auto viewType =
      MemRefType::get({getSharedElements(ring)}, tensor.getElementType(),
                      MemRefLayoutAttrInterface{},
                      cast<MemRefType>(sharedBase.getType()).getMemorySpace());
  varStorage[op.getResult()] = memref::ViewOp::create(
      builder, loc, viewType, sharedBase, bytes, ValueRange{});
  sharedOffsets[op.getResult()] = bytes;
  return success();
}

Value KernelLowering::chunkAligned(Value tensorHandle, ValueRange offsets,
                                   int64_t width, int64_t bytes) {
  if (width == 1)
    return {};
  const GlobalTensor &tensor = globals[tensorHandle];
  // Every chunk starts on a multiple of `width * bytes` when the base does,
  // rows are whole chunks and the box starts on one.
  Value chunk = constantIndex(width);
  auto divides = [&](Value value) -> Value {
    Value none = constantIndex(0);
    Value rest = arith::RemUIOp::create(builder, loc, value, chunk);
    return arith::CmpIOp::create(builder, loc, arith::CmpIPredicate::eq, rest,
                                 none);
  };
  Value base = LLVM::PtrToIntOp::create(builder, loc, builder.getI64Type(),
                                        tensor.pointer);
  Value none = arith::ConstantIntOp::create(builder, loc, 0, 64);
  Value mask =
      arith::ConstantIntOp::create(builder, loc, width * bytes - 1, 64);
  Value misalignment = arith::AndIOp::create(builder, loc, base, mask);
  Value baseAligned = arith::CmpIOp::create(
      builder, loc, arith::CmpIPredicate::eq, misalignment, none);
  // What the divisibility analysis knows is not tested again.
  Value rows = divisibility.hasWholeRuns(tensor.type, width)
                   ? Value()
                   : divides(tensor.dims.back());
  Value start = divisibility.getDivisor(offsets.back()) % width == 0
                    ? Value()
                    : divides(lookupScalar(offsets.back()));
  return both(baseAligned, both(rows, start));
}

void KernelLowering::forEachChunk(RankedTensorType box, int64_t width,
                                  function_ref<void(const Chunk &)> body) {
  int64_t chunks = box.getNumElements() / width;
  for (int64_t round = 0, e = llvm::divideCeil(chunks, threads); round < e;
       ++round) {
    Value index = elementIndex(round);
    Value valid =
        (round + 1) * threads <= chunks
            ? Value()
            : arith::CmpIOp::create(builder, loc, arith::CmpIPredicate::ult,
                                    index, constantIndex(chunks));
    guarded(valid, [&] {
      Value first =
          arith::MulIOp::create(builder, loc, index, constantIndex(width));
      body({round, first, delinearize(first, box.getShape())});
    });
  }
}

Value KernelLowering::boxVarIndex(Value handle, ValueRange offsets,
                                  ArrayRef<Value> coords) {
  ArrayRef<int64_t> shape = cast<VarType>(handle.getType()).getShape();
  SmallVector<Value> position, dims;
  for (auto [offset, coord, size] : llvm::zip(offsets, coords, shape)) {
    position.push_back(
        arith::AddIOp::create(builder, loc, lookupScalar(offset), coord));
    dims.push_back(constantIndex(size));
  }
  // In wgmma's swizzle (tile.swizzle), or rows `columns + padding`
  // elements apart (tile.padding).
  if (getSwizzleBytes(getVarOp(handle)))
    return swizzledIndex(getVarOp(handle), position);
  if (int64_t padding = getRowPadding(getVarOp(handle)))
    dims.back() = constantIndex(shape.back() + padding);
  return linearize(position, dims);
}

/// `fast` where `condition` holds at run time, else `checked`; `fast`
/// alone when there is no condition.
void KernelLowering::fastOrChecked(Value condition, function_ref<void()> fast,
                                   function_ref<void()> checked) {
  if (!condition)
    return fast();
  versioned(condition, Type(), [&](bool checkBounds) {
    checkBounds ? checked() : fast();
    return Value();
  });
}

/// Box element `coords` moved `j` along the innermost dimension.
static SmallVector<Value> along(OpBuilder &builder, Location loc,
                                ArrayRef<Value> coords, int64_t j) {
  SmallVector<Value> moved(coords);
  if (j != 0)
    moved.back() =
        arith::AddIOp::create(builder, loc, moved.back(),
                              arith::ConstantIndexOp::create(builder, loc, j));
  return moved;
}

LogicalResult KernelLowering::lowerCopy(CopyOp op) {
  RankedTensorType box = op.getBoxType();
  Type element = box.getElementType();
  int64_t width = op.getWidth();
  int64_t bytes = llvm::divideCeil(element.getIntOrFloatBitWidth(), 8);
  Value source = op.getSource(), dest = op.getDest();
  bool globalSource = isa<GlobalTensorType>(source.getType());
  bool globalDest = isa<GlobalTensorType>(dest.getType());
  for (Value var : {source, dest})
    if (isa<VarType>(var.getType()) &&
        !isa_and_nonnull<MemRefType>(varStorage.lookup(var).getType()))
      return op.emitError("internal error: a side of this copy is not in "
                          "shared memory; run tile-plan-shared first");
  // Below sm_80 an async copy is this synchronous one, with the same
  // zero-fill outside the tensor; its groups and waits are nothing, and
  // the barriers that order its stage's writes and reads stay.
  if (op.getAsync() && asyncCopies)
    return lowerAsyncCopy(op);

  // A box element's mask: in this thread's slot for chunks of one element
  // (its owner moves it), else read from the shared var tile-plan-shared
  // stored it in.
  std::function<Value(const Chunk &, ArrayRef<Value>, int64_t)> maskOf;
  if (Value mask = op.getMask()) {
    if (width == 1) {
      FailureOr<DistributedTile> tile = lookupTile(op, mask);
      if (failed(tile))
        return failure();
      Value slots = tile->slots;
      maskOf = [&, slots](const Chunk &chunk, ArrayRef<Value>, int64_t) {
        return vector::ExtractOp::create(builder, loc, slots, chunk.round)
            .getResult();
      };
    } else {
      FailureOr<Value> view = sharedViewOf(op, mask);
      if (failed(view))
        return failure();
      Value shared = *view;
      maskOf = [&, shared](const Chunk &chunk, ArrayRef<Value>, int64_t j) {
        Value index =
            arith::AddIOp::create(builder, loc, chunk.first, constantIndex(j));
        return memref::LoadOp::create(builder, loc, shared, index).getResult();
      };
    }
  }

  VectorType vector = VectorType::get({width}, element);
  auto vectorPath = [&] {
    forEachChunk(box, width, [&](const Chunk &chunk) {
      Value value;
      if (globalSource) {
        const GlobalTensor &tensor = globals[source];
        auto [global, inside] =
            sliceElement(op.getSourceOffsets(), box, tensor, chunk.coords,
                         Value(), /*checkBounds=*/false);
        value = LLVM::LoadOp::create(
            builder, loc, vector, globalAddress(tensor, global), width * bytes);
      } else {
        value = vector::LoadOp::create(
            builder, loc, vector, varStorage.lookup(source),
            ValueRange{
                boxVarIndex(source, op.getSourceOffsets(), chunk.coords)},
            /*nontemporal=*/false, llvm::MaybeAlign(width * bytes));
      }
      if (globalDest) {
        const GlobalTensor &tensor = globals[dest];
        auto [global, inside] =
            sliceElement(op.getDestOffsets(), box, tensor, chunk.coords,
                         Value(), /*checkBounds=*/false);
        LLVM::StoreOp::create(builder, loc, value,
                              globalAddress(tensor, global), width * bytes);
      } else {
        vector::StoreOp::create(
            builder, loc, value, varStorage.lookup(dest),
            ValueRange{boxVarIndex(dest, op.getDestOffsets(), chunk.coords)},
            /*nontemporal=*/false, llvm::MaybeAlign(width * bytes));
      }
    });
  };
  auto elementPath = [&] {
    forEachChunk(box, width, [&](const Chunk &chunk) {
      for (int64_t j = 0; j < width; ++j) {
        SmallVector<Value> coords = along(builder, loc, chunk.coords, j);
        Value selected = maskOf ? maskOf(chunk, coords, j) : Value();
        Value value;
        if (globalSource) {
          const GlobalTensor &tensor = globals[source];
          auto [global, inside] =
              sliceElement(op.getSourceOffsets(), box, tensor, coords, selected,
                           /*checkBounds=*/true);
          value = guarded(inside, element, zero(element), [&] {
            return LLVM::LoadOp::create(builder, loc, element,
                                        globalAddress(tensor, global))
                .getResult();
          });
        } else {
          value = memref::LoadOp::create(
              builder, loc, varStorage.lookup(source),
              boxVarIndex(source, op.getSourceOffsets(), coords));
        }
        if (globalDest) {
          const GlobalTensor &tensor = globals[dest];
          auto [global, inside] =
              sliceElement(op.getDestOffsets(), box, tensor, coords, selected,
                           /*checkBounds=*/true);
          guarded(inside, [&] {
            LLVM::StoreOp::create(builder, loc, value,
                                  globalAddress(tensor, global));
          });
        } else {
          guarded(selected, [&] {
            memref::StoreOp::create(
                builder, loc, value, varStorage.lookup(dest),
                boxVarIndex(dest, op.getDestOffsets(), coords));
          });
        }
      }
    });
  };
  if (maskOf) {
    elementPath();
    return success();
  }
  // The whole box inside its tensors and aligned to chunks: vector
  // accesses with no check.
  Value whole;
  for (auto [side, offsets, global] :
       {std::tuple{source, op.getSourceOffsets(), globalSource},
        std::tuple{dest, op.getDestOffsets(), globalDest}})
    if (global) {
      Value aligned = chunkAligned(side, offsets, width, bytes);
      Value inside = sliceInside(offsets, box, globals[side]);
      whole = both(whole, both(inside, aligned));
    }
  fastOrChecked(whole, vectorPath, elementPath);
  return success();
}

LogicalResult KernelLowering::lowerAsyncCopy(CopyOp op) {
  RankedTensorType box = op.getBoxType();
  Type element = box.getElementType();
  int64_t width = op.getWidth();
  int64_t bytes = llvm::divideCeil(element.getIntOrFloatBitWidth(), 8);
  const GlobalTensor &tensor = globals[op.getSource()];
  ValueRange offsets = op.getSourceOffsets();
  Value dest = op.getDest();
  Value destBytes = sharedOffsets.lookup(dest);
  if (!sharedPointer || !destBytes)
    return op.emitError("internal error: the destination of this async copy "
                        "has no address in shared memory");
  auto i32 = builder.getI32Type();
  auto destAddress = [&](ArrayRef<Value> coords) {
    Value index = boxVarIndex(dest, op.getDestOffsets(), coords);
    Value byte = arith::AddIOp::create(
        builder, loc, destBytes,
        arith::MulIOp::create(builder, loc, index, constantIndex(bytes)));
    return LLVM::GEPOp::create(builder, loc, sharedPointer.getType(),
                               builder.getI8Type(), sharedPointer,
                               ValueRange{arith::IndexCastOp::create(
                                   builder, loc, builder.getI64Type(), byte)});
  };
  auto issue = [&](Value to, Value from, int64_t size, Value sourceSize) {
    NVVM::CpAsyncOp::create(builder, loc, to, from, size,
                            size == kCacheGlobalBytes
                                ? NVVM::LoadCacheModifierKind::CG
                                : NVVM::LoadCacheModifierKind::CA,
                            sourceSize);
  };
  // Chunks aligned: one cp.async each, whose source size (0 to `width`
  // elements, as many as lie inside the tensor) zero-fills the rest. The
  // chunks start on multiples of `width`, so one crossing the tensor's
  // edge starts inside it.
  // A box wholly inside the tensor needs no source size.
  bool alwaysInside = !sliceInside(offsets, box, tensor);
  auto chunked = [&] {
    forEachChunk(box, width, [&](const Chunk &chunk) {
      if (alwaysInside) {
        auto [global, inside] =
            sliceElement(offsets, box, tensor, chunk.coords, Value(),
                         /*checkBounds=*/false);
        Value from = globalAddress(tensor, global);
        issue(destAddress(chunk.coords), from, width * bytes, Value());
        return;
      }
      auto [global, inside] =
          sliceElement(offsets, box, tensor, chunk.coords, Value(),
                       /*checkBounds=*/false);
      // The rows: every dimension but the innermost, checked as a slice
      // of the leading dimensions.
      Value rowsInside;
      if (int64_t last = box.getRank() - 1) {
        GlobalTensor rows{
            tensor.pointer,
            SmallVector<Value>(tensor.dims.begin(), tensor.dims.begin() + last),
            tensor.type};
        rowsInside =
            sliceElement(
                offsets.drop_back(),
                RankedTensorType::get(box.getShape().drop_back(), element),
                rows, ArrayRef<Value>(chunk.coords).drop_back(), Value(),
                /*checkBounds=*/true)
                .second;
      }
      Value column = global.back();
      Value left =
          arith::SubIOp::create(builder, loc, tensor.dims.back(), column);
      Value most = constantIndex(width);
      Value none = constantIndex(0);
      Value count = arith::MinSIOp::create(
          builder, loc, arith::MaxSIOp::create(builder, loc, left, none), most);
      Value before = arith::CmpIOp::create(
          builder, loc, arith::CmpIPredicate::slt, column, constantIndex(0));
      count = arith::SelectOp::create(builder, loc, before, constantIndex(0),
                                      count);
      if (rowsInside)
        count = arith::SelectOp::create(builder, loc, rowsInside, count,
                                        constantIndex(0));
      Value sourceSize = arith::IndexCastOp::create(
          builder, loc, i32,
          arith::MulIOp::create(builder, loc, count, constantIndex(bytes)));
      Value from = globalAddress(tensor, global);
      issue(destAddress(chunk.coords), from, width * bytes, sourceSize);
    });
  };
  // Not aligned: an element at a time, async where an element is a
  // cp.async's 4 bytes, else a load and a store, marked as the async
  // copy's: the kernel may read it only after the wait that covers the
  // copy, and the emulator holds it in flight until then.
  auto elementwise = [&] {
    forEachChunk(box, width, [&](const Chunk &chunk) {
      for (int64_t j = 0; j < width; ++j) {
        SmallVector<Value> coords = along(builder, loc, chunk.coords, j);
        auto [global, inside] = sliceElement(offsets, box, tensor, coords,
                                             Value(), /*checkBounds=*/true);
        if (bytes == 4) {
          Value size;
          if (inside) {
            Value none = arith::ConstantIntOp::create(builder, loc, 0, 32);
            Value four = arith::ConstantIntOp::create(builder, loc, 4, 32);
            size = arith::SelectOp::create(builder, loc, inside, four, none);
          }
          Value from = globalAddress(tensor, global);
          issue(destAddress(coords), from, 4, size);
          continue;
        }
        Value value = guarded(inside, element, zero(element), [&] {
          return LLVM::LoadOp::create(builder, loc, element,
                                      globalAddress(tensor, global))
              .getResult();
        });
        auto store = memref::StoreOp::create(
            builder, loc, value, varStorage.lookup(dest),
            boxVarIndex(dest, op.getDestOffsets(), coords));
        store->setAttr(kAsyncCopyAttr, builder.getUnitAttr());
      }
    });
  };
  fastOrChecked(chunkAligned(op.getSource(), offsets, width, bytes), chunked,
                elementwise);
  return success();
}

LogicalResult KernelLowering::lowerAsyncGroupOp(Operation *op) {
  if (!asyncCopies)
    return success();
  if (auto wait = dyn_cast<WaitGroupOp>(op))
    NVVM::CpAsyncWaitGroupOp::create(builder, loc, wait.getPending());
  else
    NVVM::CpAsyncCommitGroupOp::create(builder, loc);
  return success();
}
