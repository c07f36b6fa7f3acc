//===- KernelLowering.cpp - driver, elementwise ops, context, scf ---------===//

#include "KernelLowering.h"

#include "tile/Conversion/TileToGPU/TileToGPU.h"
#include "tile/Dialect/Tile/IR/SizeExpr.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::tile;

/// A tile of more elements per thread than this is not unrolled into one
/// thread's code.
static constexpr int64_t kMaxSlots = 256;

LoweringContext::LoweringContext(KernelOp kernel, gpu::GPUFuncOp func)
    : kernel(kernel), func(func), builder(func.getContext()),
      loc(kernel.getLoc()), threads(kernel.getThreads()) {}

KernelLowering::KernelLowering(KernelOp kernel, gpu::GPUFuncOp func)
    : LoweringContext(kernel, func), divisibility(kernel),
      asyncCopies(getTargetChip(func->getParentOfType<gpu::GPUModuleOp>()) >=
                  kMinAsyncCopyChip) {}

LogicalResult KernelLowering::run() {
  Block &entry = func.getBody().front();
  builder.setInsertionPointToEnd(&entry);
  threadId = gpu::ThreadIdOp::create(builder, loc, gpu::Dimension::x);

  // Parameters: one pointer per tensor, then one i64 per symbol.
  SmallVector<StringAttr> symbols = kernel.getSymbols();
  unsigned numTensors = kernel.getArgumentTypes().size();
  DenseMap<StringAttr, Value> symbolValues;
  for (auto [index, symbol] : llvm::enumerate(symbols))
    symbolValues[symbol] =
        arith::IndexCastOp::create(builder, loc, builder.getIndexType(),
                                   entry.getArgument(numTensors + index));
  for (auto [index, arg] :
       llvm::enumerate(kernel.getBodyBlock().getArguments())) {
    if (!isa<GlobalTensorType>(arg.getType())) {
      Value value = entry.getArgument(index);
      if (arg.getType().isIndex())
        value = arith::IndexCastOp::create(builder, loc, builder.getIndexType(),
                                           value);
      scalars.map(arg, value);
      continue;
    }
    GlobalTensor tensor;
    tensor.type = cast<GlobalTensorType>(arg.getType());
    tensor.pointer = entry.getArgument(index);
    for (unsigned dim = 0; dim < tensor.type.getRank(); ++dim)
      tensor.dims.push_back(buildSizeValue(
          builder, loc, getSizeExpr(tensor.type, dim, symbols),
          [&](unsigned i) { return symbolValues.lookup(symbols[i]); }));
    globals[arg] = tensor;
  }
  if (failed(checkSlots()) || failed(createStorage()) ||
      failed(lowerBlock(kernel.getBodyBlock())))
    return failure();
  gpu::ReturnOp::create(builder, loc);
  return success();
}

LogicalResult KernelLowering::checkSlots() {
  WalkResult walked = kernel.walk([&](Operation *op) {
    for (Type type : op->getResultTypes()) {
      auto tile = dyn_cast<RankedTensorType>(type);
      if (!tile || getSlots(tile) <= kMaxSlots)
        continue;
      op->emitError("a tile of ")
          << tile.getNumElements() << " elements is " << getSlots(tile)
          << " per thread with " << threads << " threads, more than the "
          << kMaxSlots << " one thread's code holds";
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return failure(walked.wasInterrupted());
}

LogicalResult KernelLowering::lowerBlock(Block &block) {
  for (Operation &op : block.without_terminator()) {
    loc = op.getLoc();
    if (failed(lowerOp(&op)))
      return failure();
  }
  return success();
}

LogicalResult KernelLowering::lowerOp(Operation *op) {
  return llvm::TypeSwitch<Operation *, LogicalResult>(op)
      .Case([&](LoadOp op) { return lowerLoad(op); })
      .Case([&](StoreOp op) { return lowerStore(op); })
      .Case([&](VarOp op) { return lowerVar(op); })
      .Case([&](ReadOp op) { return lowerRead(op); })
      .Case([&](WriteOp op) { return lowerWrite(op); })
      .Case([&](ReductionOpInterface op) { return lowerReduction(op); })
      .Case([&](DotOp op) { return lowerDot(op); })
      .Case([&](ConvertLayoutOp op) { return lowerConvertLayout(op); })
      .Case([&](BroadcastOp op) { return lowerBroadcast(op); })
      .Case([&](SplatOp op) { return lowerSplat(op); })
      .Case([&](ReshapeOp op) { return lowerReshape(op); })
      .Case([&](TransposeOp op) { return lowerTranspose(op); })
      .Case([&](BarrierOp) {
        gpu::BarrierOp::create(builder, loc);
        return success();
      })
      .Case([&](IotaOp op) { return lowerIota(op); })
      .Case([&](StageOp op) { return lowerStage(op); })
      .Case([&](CopyOp op) { return lowerCopy(op); })
      .Case<CommitGroupOp, WaitGroupOp>(
          [&](Operation *op) { return lowerAsyncGroupOp(op); })
      .Case([&](ExtractOp op) { return lowerExtract(op); })
      .Case([&](ExtractSliceOp op) { return lowerExtractSlice(op); })
      .Case([&](InsertSliceOp op) { return lowerInsertSlice(op); })
      .Case([&](GatherOp op) { return lowerGather(op); })
      .Case([&](ScatterOp op) {
        return lowerIndexedAccess(op, op.getDest(), op.getOffsets(),
                                  op.getIndices(), op.getIndexDims(),
                                  op.getValue().getType(), Value(),
                                  op.getValue(), op.getMask());
      })
      .Case([&](AtomicOp op) {
        return lowerIndexedAccess(op, op.getDest(), op.getOffsets(),
                                  op.getIndices(), op.getIndexDims(),
                                  op.getValue().getType(), Value(),
                                  op.getValue(), op.getMask(), op.getKind());
      })
      .Case([&](scf::ForOp op) { return lowerFor(op); })
      .Case([&](scf::IfOp op) { return lowerIf(op); })
      .Case([&](scf::WhileOp op) { return lowerWhile(op); })
      .Case<ThreadIdOp, NumThreadsOp, LanesOp, BlockIdOp, NumBlocksOp, DimOp>(
          [&](Operation *op) { return lowerContext(op); })
      .Default([&](Operation *op) -> LogicalResult {
        if (isa<arith::ArithDialect, math::MathDialect>(op->getDialect()))
          return lowerElementwise(op);
        return op->emitError("cannot lower '")
               << op->getName() << "' to per-thread GPU code";
      });
}

//===----------------------------------------------------------------------===//
// Context
//===----------------------------------------------------------------------===//

static gpu::Dimension toGPU(GridDim dim) {
  switch (dim) {
  case GridDim::x:
    return gpu::Dimension::x;
  case GridDim::y:
    return gpu::Dimension::y;
  case GridDim::z:
    return gpu::Dimension::z;
  }
  llvm_unreachable("unknown grid dimension");
}

LogicalResult KernelLowering::lowerContext(Operation *op) {
  Value result =
      llvm::TypeSwitch<Operation *, Value>(op)
          .Case([&](ThreadIdOp) { return threadId; })
          .Case([&](NumThreadsOp) { return constantIndex(threads); })
          .Case([&](LanesOp) { return constantIndex(kLanes); })
          .Case([&](BlockIdOp op) {
            return gpu::BlockIdOp::create(builder, loc, toGPU(op.getDim()));
          })
          .Case([&](NumBlocksOp op) {
            return gpu::GridDimOp::create(builder, loc, toGPU(op.getDim()));
          })
          .Case([&](DimOp op) {
            return globals[op.getSource()].dims[op.getIndex()];
          });
  scalars.map(op->getResult(0), result);
  return success();
}

//===----------------------------------------------------------------------===//
// Elementwise arith/math: the same op on each thread's vector of elements.
//===----------------------------------------------------------------------===//

LogicalResult KernelLowering::lowerElementwise(Operation *op) {
  bool onTiles = llvm::any_of(op->getResultTypes(), [](Type type) {
    return isa<RankedTensorType>(type);
  });
  if (!onTiles) {
    builder.clone(*op, scalars);
    return success();
  }
  auto tileType = cast<RankedTensorType>(op->getResult(0).getType());
  if (auto constant = dyn_cast<arith::ConstantOp>(op)) {
    auto dense = dyn_cast<DenseElementsAttr>(constant.getValue());
    if (!dense || !dense.isSplat())
      return op->emitError("only a tile constant with one value for every "
                           "element can be lowered");
    auto type = getSlotsType(op->getResult(0));
    Value slots = arith::ConstantOp::create(
        builder, loc, type,
        DenseElementsAttr::get(type, dense.getSplatValue<Attribute>()));
    mapTile(op->getResult(0), slots);
    return success();
  }
  if (!op->hasTrait<OpTrait::Elementwise>())
    return op->emitError("'")
           << op->getName() << "' on tiles is not elementwise";
  // Slot k of every operand must hold the element slot k of the result
  // holds.
  LayoutAttrInterface layout = getLayout(op->getResult(0));
  for (Value operand : op->getOperands())
    if (isa<RankedTensorType>(operand.getType()) &&
        getLayout(operand) != layout)
      return op->emitError("an operand of '")
             << op->getName() << "' is in layout " << getLayout(operand)
             << ", its result in " << layout
             << ": the operands and result of an elementwise op share one "
                "layout (a tile type without one is in the layout its value "
                "is made in, which differs here)";
  FailureOr<SmallVector<Value>> operands = lowerValues(op, op->getOperands());
  if (failed(operands))
    return failure();
  OperationState state(loc, op->getName());
  // The op's own attributes; the tile dialect's decisions stay behind.
  for (NamedAttribute attr : op->getAttrs())
    if (!isa_and_present<TileDialect>(attr.getNameDialect()))
      state.addAttribute(attr.getName(), attr.getValue());
  state.addOperands(*operands);
  for (Value result : op->getResults())
    state.addTypes(lowerType(result));
  mapValues(op->getResults(), builder.create(state)->getResults());
  return success();
}

//===----------------------------------------------------------------------===//
// Structured control flow
//===----------------------------------------------------------------------===//

Type KernelLowering::lowerType(Type type) const {
  if (auto tensor = dyn_cast<RankedTensorType>(type))
    return getSlotsType(tensor);
  return type;
}

Type KernelLowering::lowerType(Value value) const {
  if (isa<RankedTensorType>(value.getType()))
    return getSlotsType(value);
  return value.getType();
}

FailureOr<SmallVector<Value>> KernelLowering::lowerValues(Operation *user,
                                                          ValueRange values) {
  SmallVector<Value> lowered;
  for (Value value : values) {
    if (!isa<RankedTensorType>(value.getType())) {
      lowered.push_back(lookupScalar(value));
      continue;
    }
    // A value whose layout is #tile.rows is every row's result in every
    // lane of the row by design; the user's layout was checked against it.
    FailureOr<DistributedTile> tile =
        lookupTile(user, value, !isa<RowsLayoutAttr>(getLayout(value)));
    if (failed(tile))
      return failure();
    lowered.push_back(tile->slots);
  }
  return lowered;
}

void KernelLowering::mapValues(ValueRange from, ValueRange to) {
  for (auto [source, lowered] : llvm::zip(from, to)) {
    if (isa<RankedTensorType>(source.getType()))
      mapTile(source, lowered);
    else
      scalars.map(source, lowered);
  }
}

LogicalResult KernelLowering::lowerRegion(
    Region &from, Block &to,
    function_ref<void(Operation *, ValueRange)> terminate) {
  Block &source = from.front();
  mapValues(source.getArguments(), to.getArguments());
  OpBuilder::InsertionGuard guard(builder);
  builder.setInsertionPointToEnd(&to);
  if (failed(lowerBlock(source)))
    return failure();
  Operation *terminator = source.getTerminator();
  FailureOr<SmallVector<Value>> operands =
      lowerValues(terminator, terminator->getOperands());
  if (failed(operands))
    return failure();
  loc = terminator->getLoc();
  terminate(terminator, *operands);
  return success();
}

LogicalResult KernelLowering::lowerFor(scf::ForOp op) {
  FailureOr<SmallVector<Value>> inits = lowerValues(op, op.getInitArgs());
  if (failed(inits))
    return failure();
  auto loop = scf::ForOp::create(builder, loc, lookupScalar(op.getLowerBound()),
                                 lookupScalar(op.getUpperBound()),
                                 lookupScalar(op.getStep()), *inits);
  // scf.for::create gives a body with a yield only without iter_args.
  Block &body = *loop.getBody();
  if (!body.empty())
    body.getTerminator()->erase();
  if (failed(lowerRegion(op.getRegion(), body,
                         [&](Operation *, ValueRange operands) {
                           scf::YieldOp::create(builder, loc, operands);
                         })))
    return failure();
  mapValues(op.getResults(), loop.getResults());
  return success();
}

LogicalResult KernelLowering::lowerIf(scf::IfOp op) {
  SmallVector<Type> types;
  for (Value result : op.getResults())
    types.push_back(lowerType(result));
  auto lowered =
      scf::IfOp::create(builder, loc, types, lookupScalar(op.getCondition()),
                        /*addThenBlock=*/false,
                        /*addElseBlock=*/false);
  auto yield = [&](Operation *, ValueRange operands) {
    scf::YieldOp::create(builder, loc, operands);
  };
  Block *thenBlock = builder.createBlock(&lowered.getThenRegion());
  if (failed(lowerRegion(op.getThenRegion(), *thenBlock, yield)))
    return failure();
  Block *elseBlock = builder.createBlock(&lowered.getElseRegion());
  if (op.getElseRegion().empty())
    scf::YieldOp::create(builder, loc);
  else if (failed(lowerRegion(op.getElseRegion(), *elseBlock, yield)))
    return failure();
  builder.setInsertionPointAfter(lowered);
  mapValues(op.getResults(), lowered.getResults());
  return success();
}

LogicalResult KernelLowering::lowerWhile(scf::WhileOp op) {
  FailureOr<SmallVector<Value>> inits = lowerValues(op, op.getInits());
  if (failed(inits))
    return failure();
  SmallVector<Type> resultTypes;
  for (Value result : op.getResults())
    resultTypes.push_back(lowerType(result));
  auto lowered = scf::WhileOp::create(builder, loc, resultTypes, *inits);
  auto makeBlock = [&](Region &from, Region &to) {
    SmallVector<Type> types;
    SmallVector<Location> locs;
    for (BlockArgument arg : from.getArguments()) {
      types.push_back(lowerType(arg));
      locs.push_back(arg.getLoc());
    }
    OpBuilder::InsertionGuard guard(builder);
    return builder.createBlock(&to, {}, types, locs);
  };
  Block *before = makeBlock(op.getBefore(), lowered.getBefore());
  if (failed(lowerRegion(op.getBefore(), *before,
                         [&](Operation *terminator, ValueRange operands) {
                           scf::ConditionOp::create(builder, loc, operands[0],
                                                    operands.drop_front());
                         })))
    return failure();
  Block *after = makeBlock(op.getAfter(), lowered.getAfter());
  if (failed(lowerRegion(op.getAfter(), *after,
                         [&](Operation *, ValueRange operands) {
                           scf::YieldOp::create(builder, loc, operands);
                         })))
    return failure();
  mapValues(op.getResults(), lowered.getResults());
  return success();
}

//===----------------------------------------------------------------------===//
// Per-thread element arithmetic
//===----------------------------------------------------------------------===//

int64_t LoweringContext::getSlots(Type tileType) const {
  return llvm::divideCeil(getNumElements(tileType), threads);
}

VectorType LoweringContext::getSlotsType(RankedTensorType type) const {
  return VectorType::get({getSlots(type)}, type.getElementType());
}

VectorType LoweringContext::getSlotsType(Value tile) const {
  auto type = cast<RankedTensorType>(tile.getType());
  return VectorType::get(
      {getLayout(tile).getSlotCount(type.getShape(), threads)},
      type.getElementType());
}

Value LoweringContext::constantIndex(int64_t value) {
  return arith::ConstantIndexOp::create(builder, loc, value);
}

Value LoweringContext::insertRun(Value slots, Value run, int64_t first) {
  int64_t length = cast<VectorType>(run.getType()).getNumElements();
  for (int64_t i = 0; i < length; ++i)
    slots = vector::InsertOp::create(
        builder, loc, vector::ExtractOp::create(builder, loc, run, i), slots,
        first + i);
  return slots;
}

Value LoweringContext::zero(Type type) {
  return arith::ConstantOp::create(builder, loc, type,
                                   builder.getZeroAttr(type));
}

Value KernelLowering::elementIndex(int64_t slot, int64_t run) {
  return BlockedLayoutAttr::get(builder.getContext(), run)
      .emitSlotLinearIndex(builder, loc, {}, threads, threadId, slot);
}

int64_t KernelLowering::getVector(Value tile) { return getLayoutRun(tile); }

Value KernelLowering::slotIsValid(int64_t numElements, int64_t slot) {
  return getCyclicLayout(builder.getContext())
      .emitSlotValid(builder, loc, {numElements}, threads, threadId, slot);
}

Value KernelLowering::safeIndex(Value element, Value valid) {
  if (!valid)
    return element;
  return arith::SelectOp::create(builder, loc, valid, element,
                                 constantIndex(0));
}

SmallVector<Value> KernelLowering::slotCoordinates(int64_t slot,
                                                   ArrayRef<int64_t> shape,
                                                   int64_t run) {
  return slotCoordinates(slot, shape,
                         BlockedLayoutAttr::get(builder.getContext(), run));
}

SmallVector<Value> KernelLowering::slotCoordinates(int64_t slot,
                                                   ArrayRef<int64_t> shape,
                                                   LayoutAttrInterface layout) {
  return layout.emitSlotElement(builder, loc, shape, threads, threadId, slot);
}

Value KernelLowering::sharedIndex(VarOp var, int64_t slot,
                                  LayoutAttrInterface layout) {
  int64_t padding = getRowPadding(var);
  if (isCyclicLayout(layout) && !padding && !getSwizzleBytes(var))
    return elementIndex(slot);
  ArrayRef<int64_t> shape = var.getVarType().getShape();
  SmallVector<Value> coords = slotCoordinates(slot, shape, layout);
  if (getSwizzleBytes(var))
    return swizzledIndex(var, coords);
  SmallVector<Value> pitches;
  for (int64_t size : shape)
    pitches.push_back(constantIndex(size));
  pitches.back() = constantIndex(shape.back() + padding);
  return linearize(coords, pitches);
}

Value KernelLowering::swizzledIndex(VarOp var, ArrayRef<Value> coords) {
  // getSwizzledIndex at run time: the block of `perRow` columns, the row
  // in it, then the 16-byte chunk (element bits from 4 - log2(bytes) up)
  // XORed with the 128-byte row's bits (from 7 - log2(bytes) up).
  VarType type = var.getVarType();
  int64_t bytes = type.getElementType().getIntOrFloatBitWidth() / 8;
  int64_t swizzle = getSwizzleBytes(var), perRow = swizzle / bytes;
  int64_t shift = llvm::Log2_64(bytes);
  Value perRowValue = constantIndex(perRow);
  Value block = arith::DivUIOp::create(builder, loc, coords[1], perRowValue);
  Value within = arith::RemUIOp::create(builder, loc, coords[1], perRowValue);
  Value blockRows = arith::MulIOp::create(
      builder, loc, block, constantIndex(type.getShape()[0]));
  Value row = arith::AddIOp::create(builder, loc, blockRows, coords[0]);
  Value rowStart = arith::MulIOp::create(builder, loc, row, perRowValue);
  Value element = arith::AddIOp::create(builder, loc, rowStart, within);
  Value rowBits = arith::ShRUIOp::create(builder, loc, element,
                                         constantIndex(7 - shift));
  Value phase = arith::AndIOp::create(builder, loc, rowBits,
                                      constantIndex(swizzle / 16 - 1));
  Value chunkBits =
      arith::ShLIOp::create(builder, loc, phase, constantIndex(4 - shift));
  return arith::XOrIOp::create(builder, loc, element, chunkBits);
}

SmallVector<Value> KernelLowering::delinearize(Value element,
                                               ArrayRef<int64_t> shape) {
  SmallVector<Value> coords(shape.size());
  Value rest = element;
  for (int64_t dim = shape.size() - 1; dim > 0; --dim) {
    Value size = constantIndex(shape[dim]);
    coords[dim] = arith::RemUIOp::create(builder, loc, rest, size);
    rest = arith::DivUIOp::create(builder, loc, rest, size);
  }
  coords[0] = rest;
  return coords;
}

Value KernelLowering::linearize(ArrayRef<Value> coords, ArrayRef<Value> dims) {
  Value linear = coords[0];
  for (size_t dim = 1; dim < coords.size(); ++dim)
    linear = arith::AddIOp::create(
        builder, loc, arith::MulIOp::create(builder, loc, linear, dims[dim]),
        coords[dim]);
  return linear;
}

Value KernelLowering::both(Value a, Value b) {
  if (!a)
    return b;
  if (!b)
    return a;
  return arith::AndIOp::create(builder, loc, a, b);
}

Value KernelLowering::guarded(Value condition, Type type, Value otherwise,
                              function_ref<Value()> body) {
  if (!condition)
    return body();
  auto ifOp = scf::IfOp::create(builder, loc, type, condition,
                                /*withElseRegion=*/true);
  OpBuilder::InsertionGuard guard(builder);
  builder.setInsertionPointToStart(&ifOp.getThenRegion().front());
  scf::YieldOp::create(builder, loc, body());
  builder.setInsertionPointToStart(&ifOp.getElseRegion().front());
  scf::YieldOp::create(builder, loc, otherwise);
  return ifOp.getResult(0);
}

void KernelLowering::guarded(Value condition, function_ref<void()> body) {
  if (!condition)
    return body();
  auto ifOp = scf::IfOp::create(builder, loc, condition);
  OpBuilder::InsertionGuard guard(builder);
  builder.setInsertionPoint(ifOp.getThenRegion().front().getTerminator());
  body();
}

FailureOr<DistributedTile>
LoweringContext::lookupTile(Operation *user, Value value, bool requireOwner) {
  auto it = tiles.find(value);
  if (it == tiles.end())
    return user->emitError("internal error: tile operand not lowered");
  if (requireOwner && it->second.layout != Layout::Owner)
    return user->emitError("internal error: a shuffle-folded row result "
                           "reached a use that needs it in its owner thread; "
                           "run tile-plan-shared first");
  return it->second;
}

void LoweringContext::mapTile(Value from, Value slots, Layout layout,
                              RowsLayoutAttr rows) {
  // A value laid out as #tile.rows (a row statistic kept in the layout of
  // the rows it was reduced from) holds its rows replicated.
  if (layout == Layout::Owner)
    if (auto own = dyn_cast<RowsLayoutAttr>(getLayout(from))) {
      layout = Layout::RowReplicated;
      rows = own;
    }
  tiles[from] = {slots, layout, rows};
}
