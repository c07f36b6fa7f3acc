//===- LowerCrossThread.cpp - reductions, dot, broadcast, splat -----------===//
//
// The ops whose result elements need elements of other threads: through
// warp shuffles where a row is a run of lanes, else from shared memory
// (tile-plan-shared made their operands reads of shared vars).
//
//===----------------------------------------------------------------------===//

#include "KernelLowering.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

#include <limits>

using namespace mlir;
using namespace mlir::tile;

/// The most products of one thread's dot that are unrolled.
static constexpr int64_t kMaxUnrolledProducts = 512;

/// f16 and bf16 accumulate in f32; others in their own type.
static Type getAccumulatorType(Type element) {
  if (element.isF16() || element.isBF16())
    return Float32Type::get(element.getContext());
  return element;
}

static Value convert(OpBuilder &builder, Location loc, Value value, Type to) {
  if (value.getType() == to)
    return value;
  if (value.getType().getIntOrFloatBitWidth() < to.getIntOrFloatBitWidth())
    return arith::ExtFOp::create(builder, loc, to, value);
  return arith::TruncFOp::create(builder, loc, to, value);
}

/// The f32 `value` rounded to tf32 (to nearest, ties away from zero, as
/// cvt.rna.tf32.f32): half a tf32 ulp added to the magnitude's bits, the 13
/// lower mantissa bits cleared; a NaN becomes the canonical one (adding to
/// its bits could carry into the sign). In integer ops, so that it runs on
/// every chip (cvt.rna.tf32 is sm_80's) and the emulator needs no model.
Value mlir::tile::roundToTF32(OpBuilder &builder, Location loc, Value value) {
  Type i32 = builder.getI32Type();
  auto constant = [&](uint32_t bits) {
    return arith::ConstantIntOp::create(builder, loc, i32,
                                        static_cast<int32_t>(bits));
  };
  // One statement per op-creating argument (the order of the ops must not
  // be the C++ compiler's order of evaluating arguments).
  Value bits = arith::BitcastOp::create(builder, loc, i32, value);
  Value half = constant(0x1000);
  Value up = arith::AddIOp::create(builder, loc, bits, half);
  Value mask = constant(0xffffe000u);
  Value rounded = arith::AndIOp::create(builder, loc, up, mask);
  Value isNaN = arith::CmpFOp::create(builder, loc, arith::CmpFPredicate::UNO,
                                      value, value);
  return arith::BitcastOp::create(builder, loc, value.getType(),
                                  arith::SelectOp::create(builder, loc, isNaN,
                                                          constant(0x7fffffff),
                                                          rounded));
}

static Value combine(OpBuilder &builder, Location loc, ReductionKind kind,
                     Value a, Value b) {
  bool isFloat = isa<FloatType>(a.getType());
  switch (kind) {
  case ReductionKind::sum:
    return isFloat ? arith::AddFOp::create(builder, loc, a, b).getResult()
                   : arith::AddIOp::create(builder, loc, a, b).getResult();
  case ReductionKind::max:
    return isFloat ? arith::MaximumFOp::create(builder, loc, a, b).getResult()
                   : arith::MaxSIOp::create(builder, loc, a, b).getResult();
  case ReductionKind::min:
    return isFloat ? arith::MinimumFOp::create(builder, loc, a, b).getResult()
                   : arith::MinSIOp::create(builder, loc, a, b).getResult();
  case ReductionKind::argmax:
    break;
  }
  llvm_unreachable("an argmax combines values with their indices");
}

/// Whether `(y, yIndex)` beats `(x, xIndex)` in an argmax: a greater value
/// (a NaN above every number), or an equal one at a smaller index. A total
/// order, so the first index of the maximum wins in any combining order.
static Value beats(OpBuilder &builder, Location loc, Value x, Value xIndex,
                   Value y, Value yIndex) {
  Value greater, equal;
  if (isa<FloatType>(x.getType())) {
    using arith::CmpFPredicate;
    auto cmp = [&](CmpFPredicate predicate, Value a, Value b) {
      return arith::CmpFOp::create(builder, loc, predicate, a, b).getResult();
    };
    Value xNaN = cmp(CmpFPredicate::UNO, x, x);
    Value yNaN = cmp(CmpFPredicate::UNO, y, y);
    Value xNumber = cmp(CmpFPredicate::ORD, x, x);
    Value yNaNOverNumber = arith::AndIOp::create(builder, loc, yNaN, xNumber);
    greater = arith::OrIOp::create(builder, loc, cmp(CmpFPredicate::OGT, y, x),
                                   yNaNOverNumber);
    Value bothNaN = arith::AndIOp::create(builder, loc, yNaN, xNaN);
    equal = arith::OrIOp::create(builder, loc, cmp(CmpFPredicate::OEQ, y, x),
                                 bothNaN);
  } else {
    greater =
        arith::CmpIOp::create(builder, loc, arith::CmpIPredicate::sgt, y, x);
    equal = arith::CmpIOp::create(builder, loc, arith::CmpIPredicate::eq, y, x);
  }
  Value earlier = arith::CmpIOp::create(builder, loc, arith::CmpIPredicate::slt,
                                        yIndex, xIndex);
  return arith::OrIOp::create(
      builder, loc, greater,
      arith::AndIOp::create(builder, loc, equal, earlier));
}

/// Two partial results combined: the value, and for an argmax its index.
static Partial combinePartials(OpBuilder &builder, Location loc,
                               ReductionKind kind, const Partial &x,
                               const Partial &y) {
  if (kind != ReductionKind::argmax)
    return {combine(builder, loc, kind, x[0], y[0])};
  Value take = beats(builder, loc, x[0], x[1], y[0], y[1]);
  return {arith::SelectOp::create(builder, loc, take, y[0], x[0]),
          arith::SelectOp::create(builder, loc, take, y[1], x[1])};
}

/// The identity of the reduction: 0 for a sum, the lowest value for a
/// max (an argmax, with the highest index), the highest for a min.
static Partial identity(OpBuilder &builder, Location loc, ReductionKind kind,
                        Type type) {
  if (kind == ReductionKind::sum)
    return {arith::ConstantOp::create(builder, loc, type,
                                      builder.getZeroAttr(type))};
  bool negative = kind != ReductionKind::min;
  Value value;
  if (auto floatType = dyn_cast<FloatType>(type)) {
    value = arith::ConstantOp::create(
        builder, loc, type,
        builder.getFloatAttr(
            type, APFloat::getInf(floatType.getFloatSemantics(), negative)));
  } else {
    unsigned width = type.getIntOrFloatBitWidth();
    value = arith::ConstantOp::create(
        builder, loc, type,
        builder.getIntegerAttr(type, negative
                                         ? APInt::getSignedMinValue(width)
                                         : APInt::getSignedMaxValue(width)));
  }
  if (kind != ReductionKind::argmax)
    return {value};
  return {value, arith::ConstantIntOp::create(
                     builder, loc, std::numeric_limits<int32_t>::max(), 32)};
}

FailureOr<Value> KernelLowering::sharedViewOf(Operation *user, Value operand) {
  auto read = operand.getDefiningOp<ReadOp>();
  Value view = read ? varStorage.lookup(read.getVar()) : Value();
  if (!view || !isa<MemRefType>(view.getType()) ||
      !isSharedTile(getVarOp(read.getVar())))
    return user->emitError("internal error: this op reads its operand across "
                           "threads but the operand is not in a shared var; "
                           "run tile-plan-shared first");
  return view;
}

Partial KernelLowering::butterfly(ReductionKind kind, Partial value,
                                  int64_t laneMask) {
  Value width = arith::ConstantIntOp::create(builder, loc, kWarpSize, 32);
  for (int64_t distance = kWarpSize / 2; distance >= 1; distance /= 2) {
    if (!(laneMask & distance))
      continue;
    Value offset = arith::ConstantIntOp::create(builder, loc, distance, 32);
    Partial other;
    for (Value part : value)
      other.push_back(gpu::ShuffleOp::create(builder, loc, part, offset, width,
                                             gpu::ShuffleMode::XOR)
                          .getShuffleResult());
    value = combinePartials(builder, loc, kind, value, other);
  }
  return value;
}

Value KernelLowering::reduceInPlace(ReductionKind kind, Value slots,
                                    RankedTensorType type,
                                    const RowReductionPlan &plan,
                                    RowsLayoutAttr rows, Value scratch) {
  // Each thread combines the slots of a row group (they hold one row), and
  // a butterfly over the lanes that hold the row leaves the result, or the
  // lane set's partial, in every one of them.
  SmallVector<Value> partials;
  for (const SmallVector<int64_t> &group : plan.groups) {
    Value value;
    for (int64_t slot : group) {
      Value element = vector::ExtractOp::create(builder, loc, slots, slot);
      value = value ? combine(builder, loc, kind, value, element) : element;
    }
    partials.push_back(butterfly(kind, value, plan.laneMask));
  }
  Type element = type.getElementType();
  if (plan.parts == 1)
    return toRowSlots(partials, plan, rows, type);
  // Several lane sets a row: the first lane of each set (no bit of the
  // mask) writes its partial at [row, segment], a barrier, and every
  // thread combines its rows' partials. Whole lane sets are valid or not,
  // so every butterfly has all its lanes.
  LayoutAttrInterface parent = rows.getParent();
  ArrayRef<int64_t> shape = type.getShape();
  Value first = constantIndex(0);
  Value laneInSet = arith::AndIOp::create(builder, loc, threadId,
                                          constantIndex(plan.laneMask));
  Value firstOfSet = arith::CmpIOp::create(
      builder, loc, arith::CmpIPredicate::eq, laneInSet, first);
  SmallVector<Value> rowStarts, valids;
  for (auto [group, partial] : llvm::zip(plan.groups, partials)) {
    SmallVector<Value> coords = parent.emitSlotElement(
        builder, loc, shape, threads, threadId, group.front());
    valids.push_back(parent.emitSlotValid(builder, loc, shape, threads,
                                          threadId, group.front()));
    rowStarts.push_back(arith::MulIOp::create(builder, loc, coords[0],
                                              constantIndex(plan.parts)));
    Value segment = arith::DivUIOp::create(builder, loc, coords[1],
                                           constantIndex(plan.segmentColumns));
    Value index =
        arith::AddIOp::create(builder, loc, rowStarts.back(), segment);
    guarded(both(firstOfSet, valids.back()), [&] {
      memref::StoreOp::create(builder, loc, partial, scratch, index);
    });
  }
  gpu::BarrierOp::create(builder, loc);
  SmallVector<Value> totals;
  for (auto [rowStart, valid] : llvm::zip(rowStarts, valids)) {
    Value otherwise = zero(element);
    Value total = guarded(valid, element, otherwise, [&] {
      Value total;
      for (int64_t part = 0; part < plan.parts; ++part) {
        Value partial = memref::LoadOp::create(
            builder, loc, scratch,
            arith::AddIOp::create(builder, loc, rowStart, constantIndex(part))
                .getResult());
        total = total ? combine(builder, loc, kind, total, partial) : partial;
      }
      return total;
    });
    totals.push_back(total);
  }
  return toRowSlots(totals, plan, rows, type);
}

Value KernelLowering::toRowSlots(ArrayRef<Value> results,
                                 const RowReductionPlan &plan,
                                 RowsLayoutAttr rows, RankedTensorType type) {
  // The plan's groups are the row groups of `rows`, or finer: each row
  // group's result is that of the plan group of its first slot.
  const SmallVector<SmallVector<int64_t>> &rowGroups =
      getRowSlotGroups(rows.getParent(), type.getShape(), threads);
  Value slots = zero(VectorType::get({static_cast<int64_t>(rowGroups.size())},
                                     type.getElementType()));
  for (auto [index, group] : llvm::enumerate(rowGroups)) {
    int64_t first = group.front();
    auto planGroup = llvm::find_if(plan.groups, [&](ArrayRef<int64_t> slots) {
      return llvm::is_contained(slots, first);
    });
    slots = vector::InsertOp::create(
        builder, loc, results[planGroup - plan.groups.begin()], slots, index);
  }
  return slots;
}

Value KernelLowering::expandRows(Value slots, RowsLayoutAttr rows,
                                 RankedTensorType type) {
  ArrayRef<int64_t> shape = type.getShape();
  SmallVector<int64_t> mask(getSlots(type));
  for (auto [index, group] :
       llvm::enumerate(getRowSlotGroups(rows.getParent(), shape, threads)))
    for (int64_t slot : group)
      mask[slot] = index;
  return permuteSlots(slots, mask);
}

Value KernelLowering::permuteSlots(Value slots, ArrayRef<int64_t> sources) {
  auto type = cast<VectorType>(slots.getType());
  if (type.getNumElements() == static_cast<int64_t>(sources.size()) &&
      llvm::equal(sources, llvm::seq<int64_t>(0, sources.size())))
    return slots;
  // Extracts and inserts, as every slot access of the lowering (the
  // emulator runs these; LLVM folds them into register moves).
  Value result = zero(VectorType::get({static_cast<int64_t>(sources.size())},
                                      type.getElementType()));
  for (auto [slot, source] : llvm::enumerate(sources))
    result = vector::InsertOp::create(
        builder, loc, vector::ExtractOp::create(builder, loc, slots, source),
        result, slot);
  return result;
}

LogicalResult KernelLowering::lowerReduction(ReductionOpInterface op) {
  if (op.getAxis() == 0)
    return lowerColumnReduction(op);
  RankedTensorType inputType = op.getInput().getType();
  RankedTensorType resultType = op.getResult().getType();
  ReductionKind kind = op.getKind();
  bool withIndex = kind == ReductionKind::argmax;
  ReductionStrategy strategy = getReductionStrategy(op);
  if (op.getAxis() != 1)
    return op->emitError("cannot lower a reduction over axis ")
           << op.getAxis() << " yet";
  if (strategy != ReductionStrategy::ThroughShared) {
    FailureOr<DistributedTile> input = lookupTile(op, op.getInput());
    if (failed(input))
      return failure();
    std::optional<RowReductionPlan> plan =
        getRowReductionPlan(getLayout(op.getInput()), inputType, threads);
    auto rows = cast<RowsLayoutAttr>(getLayout(op.getResult()));
    Value scratch;
    if (plan->parts > 1) {
      Value scratchVar = op.getScratch();
      scratch = scratchVar ? varStorage.lookup(scratchVar) : Value();
      if (!scratch || !isa<MemRefType>(scratch.getType()))
        return op->emitError("internal error: this reduction combines its "
                             "warps' partials in a shared scratch var, but "
                             "it has none; run tile-plan-shared first");
    }
    mapTile(op.getResult(),
            reduceInPlace(kind, input->slots, inputType, *plan, rows, scratch),
            Layout::RowReplicated, rows);
    return success();
  }
  // Through shared memory, a warp per row: the warp of the thread that owns
  // a row's result reduces that row, its lanes reading consecutive
  // elements (no bank conflicts), and a butterfly over the warp leaves the
  // result in every lane, the owner's among them. The warp's rows go one
  // after the other; a warp's control flow stays uniform. An argmax
  // carries each lane's best column along.
  FailureOr<Value> view = sharedViewOf(op, op.getInput());
  if (failed(view))
    return failure();
  Type element = inputType.getElementType();
  Type accumulator = getAccumulatorType(element);
  int64_t rows = inputType.getDimSize(0), columns = inputType.getDimSize(1);
  Value lane =
      arith::RemUIOp::create(builder, loc, threadId, constantIndex(kWarpSize));
  Value firstLane = arith::SubIOp::create(builder, loc, threadId, lane);
  Partial none = identity(builder, loc, kind, accumulator);
  Value slots = zero(getSlotsType(resultType));
  for (int64_t slot = 0, e = getSlots(resultType); slot < e; ++slot) {
    Value warpRows = arith::AddIOp::create(builder, loc, firstLane,
                                           constantIndex(slot * threads));
    // One statement per op-creating argument: the order of the ops must
    // not be the C++ compiler's order of evaluating arguments.
    Value one = constantIndex(1);
    Value warpSize = constantIndex(kWarpSize);
    Value start = constantIndex(0);
    auto overRows =
        scf::ForOp::create(builder, loc, start, warpSize, one, none);
    {
      OpBuilder::InsertionGuard guard(builder);
      builder.setInsertionPointToStart(overRows.getBody());
      Value j = overRows.getInductionVar();
      Value row = arith::AddIOp::create(builder, loc, warpRows, j);
      Value isRow = arith::CmpIOp::create(
          builder, loc, arith::CmpIPredicate::ult, row, constantIndex(rows));
      auto ifRow = scf::IfOp::create(builder, loc, ValueRange(none).getTypes(),
                                     isRow, /*withElseRegion=*/true);
      {
        OpBuilder::InsertionGuard guard(builder);
        builder.setInsertionPointToStart(&ifRow.getThenRegion().front());
        Value rowStart =
            arith::MulIOp::create(builder, loc, row, constantIndex(columns));
        Value columnStep = constantIndex(kWarpSize);
        Value columnEnd = constantIndex(columns);
        auto overColumns = scf::ForOp::create(
            builder, loc, lane, columnEnd, columnStep, none,
            [&](OpBuilder &nested, Location nestedLoc, Value column,
                ValueRange carried) {
              Value index =
                  arith::AddIOp::create(nested, nestedLoc, rowStart, column);
              Partial value{convert(
                  nested, nestedLoc,
                  memref::LoadOp::create(nested, nestedLoc, *view, index),
                  accumulator)};
              if (withIndex)
                value.push_back(arith::IndexCastOp::create(
                    nested, nestedLoc, nested.getI32Type(), column));
              scf::YieldOp::create(nested, nestedLoc,
                                   combinePartials(nested, nestedLoc, kind,
                                                   Partial(carried), value));
            });
        scf::YieldOp::create(
            builder, loc,
            butterfly(kind, Partial(overColumns.getResults()), kWarpSize - 1));
        builder.setInsertionPointToStart(&ifRow.getElseRegion().front());
        scf::YieldOp::create(builder, loc, none);
      }
      Value mine = arith::CmpIOp::create(builder, loc, arith::CmpIPredicate::eq,
                                         lane, j);
      SmallVector<Value> next;
      for (auto [rowResult, carried] :
           llvm::zip(ifRow.getResults(), overRows.getRegionIterArgs()))
        next.push_back(
            arith::SelectOp::create(builder, loc, mine, rowResult, carried));
      scf::YieldOp::create(builder, loc, next);
    }
    Value result = withIndex
                       ? overRows.getResult(1)
                       : convert(builder, loc, overRows.getResult(0), element);
    slots = vector::InsertOp::create(builder, loc, result, slots, slot);
  }
  mapTile(op.getResult(), slots);
  return success();
}

LogicalResult KernelLowering::lowerColumnReduction(ReductionOpInterface op) {
  RankedTensorType inputType = op.getInput().getType();
  RankedTensorType resultType = op.getResult().getType();
  ReductionKind kind = op.getKind();
  int64_t rows = inputType.getDimSize(0), columns = inputType.getDimSize(1);
  Value slots = zero(getSlotsType(resultType));
  ReductionStrategy strategy = getReductionStrategy(op);
  if (strategy == ReductionStrategy::InWarp) {
    // One warp: column j is in lanes j, j + C, ... of every slot. Each lane
    // folds its slots (the invalid ones are the identity), then lanes C
    // apart combine; lane j, the owner of result j, ends with it.
    FailureOr<DistributedTile> input = lookupTile(op, op.getInput());
    if (failed(input))
      return failure();
    Type element = inputType.getElementType();
    Value none = identity(builder, loc, kind, element)[0];
    Value total;
    for (int64_t slot = 0, e = getSlots(inputType); slot < e; ++slot) {
      Value value = vector::ExtractOp::create(builder, loc, input->slots, slot);
      if (Value valid = slotIsValid(inputType.getNumElements(), slot))
        value = arith::SelectOp::create(builder, loc, valid, value, none);
      total = total ? combine(builder, loc, kind, total, value) : value;
    }
    total = butterfly(kind, total, (kWarpSize - 1) & ~(columns - 1));
    mapTile(op.getResult(),
            vector::InsertOp::create(builder, loc, total, slots, 0));
    return success();
  }
  if (strategy == ReductionStrategy::InThread) {
    // Column j is in thread j % threads: its element in row i at slot
    // i * (C / threads) + j / threads. Each thread folds its slots, and
    // holds the results it owns.
    FailureOr<DistributedTile> input = lookupTile(op, op.getInput());
    if (failed(input))
      return failure();
    int64_t slotsPerRow = columns / threads;
    for (int64_t slot = 0; slot < slotsPerRow; ++slot) {
      Value total;
      for (int64_t row = 0; row < rows; ++row) {
        Value value = vector::ExtractOp::create(builder, loc, input->slots,
                                                row * slotsPerRow + slot);
        total = total ? combine(builder, loc, kind, total, value) : value;
      }
      slots = vector::InsertOp::create(builder, loc, total, slots, slot);
    }
    mapTile(op.getResult(), slots);
    return success();
  }
  // Through shared memory, a thread per column: consecutive threads read
  // consecutive elements of each row (no bank conflicts).
  FailureOr<Value> view = sharedViewOf(op, op.getInput());
  if (failed(view))
    return failure();
  Type element = inputType.getElementType();
  Type accumulator = getAccumulatorType(element);
  Value none = identity(builder, loc, kind, accumulator)[0];
  for (int64_t slot = 0, e = getSlots(resultType); slot < e; ++slot) {
    Value valid = slotIsValid(resultType.getNumElements(), slot);
    Value column = safeIndex(elementIndex(slot), valid);
    Value one = constantIndex(1);
    Value end = constantIndex(rows);
    Value start = constantIndex(0);
    auto overRows = scf::ForOp::create(
        builder, loc, start, end, one, ValueRange{none},
        [&](OpBuilder &nested, Location nestedLoc, Value row,
            ValueRange carried) {
          Value index = arith::AddIOp::create(
              nested, nestedLoc,
              arith::MulIOp::create(
                  nested, nestedLoc, row,
                  arith::ConstantIndexOp::create(nested, nestedLoc, columns)),
              column);
          Value value =
              convert(nested, nestedLoc,
                      memref::LoadOp::create(nested, nestedLoc, *view, index),
                      accumulator);
          scf::YieldOp::create(
              nested, nestedLoc,
              combine(nested, nestedLoc, kind, carried[0], value));
        });
    Value result = convert(builder, loc, overRows.getResult(0), element);
    slots = vector::InsertOp::create(builder, loc, result, slots, slot);
  }
  mapTile(op.getResult(), slots);
  return success();
}

LogicalResult KernelLowering::lowerDot(DotOp op) {
  FailureOr<Value> lhs = sharedViewOf(op, op.getLhs());
  FailureOr<Value> rhs = sharedViewOf(op, op.getRhs());
  if (failed(lhs) || failed(rhs))
    return failure();
  if (MmaLayoutAttr layout = getMmaLayout(op))
    return op.getWgmma()
               ? lowerDotOnWgmma(*this, op, layout, *lhs, *rhs)
               : lowerDotOnTensorCores(*this, op, layout, *lhs, *rhs);
  RankedTensorType type = op.getType();
  Type element = type.getElementType();
  Type accumulator = getAccumulatorType(element);
  bool isFloat = isa<FloatType>(element);
  int64_t inner = op.getLhs().getType().getDimSize(1);
  int64_t columns = type.getDimSize(1);
  // Element (k, n) of the right operand: k * N + n, or n * K + k when it
  // is given transposed.
  bool transposed = op.getRhsTransposed();
  // tf32 (on a chip without tensor cores, or a shape they do not take):
  // the same products of operands rounded to tf32, exact in f32.
  bool tf32 = op.getPrecision() == DotPrecision::tf32;
  int64_t numSlots = getSlots(type);
  // Each slot's row and column. When every slot holds an element, the
  // slots of a thread share their column (or their row) as one value, and
  // the operand element they share is loaded and converted once.
  bool allValid = type.getNumElements() % threads == 0;
  SmallVector<Value> lhsRows, rhsColumns;
  for (int64_t slot = 0; slot < numSlots; ++slot) {
    SmallVector<Value> coords;
    if (allValid) {
      coords = slotCoordinates(slot, type.getShape());
    } else {
      Value valid = slotIsValid(type.getNumElements(), slot);
      coords =
          delinearize(safeIndex(elementIndex(slot), valid), type.getShape());
    }
    lhsRows.push_back(
        arith::MulIOp::create(builder, loc, coords[0], constantIndex(inner)));
    rhsColumns.push_back(transposed
                             ? arith::MulIOp::create(builder, loc, coords[1],
                                                     constantIndex(inner))
                                   .getResult()
                             : coords[1]);
  }
  // One step of the inner dimension for all slots: each operand element
  // the slots share is loaded and converted once.
  auto step = [&](OpBuilder &nested, Location nestedLoc, Value k,
                  ValueRange sums) {
    DenseMap<Value, Value> lhsOf, rhsOf; // by row, by column
    Value rhsRow = transposed
                       ? k
                       : arith::MulIOp::create(nested, nestedLoc, k,
                                               arith::ConstantIndexOp::create(
                                                   nested, nestedLoc, columns))
                             .getResult();
    auto operand = [&](DenseMap<Value, Value> &cache, Value key, Value view,
                       Value index) {
      Value &value = cache[key];
      if (value)
        return value;
      value = convert(nested, nestedLoc,
                      memref::LoadOp::create(nested, nestedLoc, view, index),
                      accumulator);
      if (tf32)
        value = roundToTF32(nested, nestedLoc, value);
      return value;
    };
    SmallVector<Value> next;
    for (int64_t slot = 0; slot < numSlots; ++slot) {
      Value a =
          operand(lhsOf, lhsRows[slot], *lhs,
                  arith::AddIOp::create(nested, nestedLoc, lhsRows[slot], k));
      Value b = operand(
          rhsOf, rhsColumns[slot], *rhs,
          arith::AddIOp::create(nested, nestedLoc, rhsRow, rhsColumns[slot]));
      next.push_back(isFloat
                         ? arith::AddFOp::create(
                               nested, nestedLoc, sums[slot],
                               arith::MulFOp::create(nested, nestedLoc, a, b))
                               .getResult()
                         : arith::AddIOp::create(
                               nested, nestedLoc, sums[slot],
                               arith::MulIOp::create(nested, nestedLoc, a, b))
                               .getResult());
    }
    return next;
  };
  // Unrolled up to kMaxUnrolledProducts products a thread, as nvcc and
  // Triton unroll their inner products (consecutive elements of a row of
  // the left operand then merge into vector loads); else a loop carrying
  // every slot's sum.
  SmallVector<Value> sums(numSlots, zero(accumulator));
  if (Value acc = op.getAcc()) {
    FailureOr<DistributedTile> tile = lookupTile(op, acc);
    if (failed(tile))
      return failure();
    for (int64_t slot = 0; slot < numSlots; ++slot)
      sums[slot] = vector::ExtractOp::create(builder, loc, tile->slots, slot);
  }
  if (inner * numSlots <= kMaxUnrolledProducts) {
    for (int64_t k = 0; k < inner; ++k)
      sums = step(builder, loc, constantIndex(k), sums);
  } else {
    Value one = constantIndex(1);
    Value end = constantIndex(inner);
    Value start = constantIndex(0);
    auto loop = scf::ForOp::create(builder, loc, start, end, one, sums,
                                   [&](OpBuilder &nested, Location nestedLoc,
                                       Value k, ValueRange carried) {
                                     scf::YieldOp::create(
                                         nested, nestedLoc,
                                         step(nested, nestedLoc, k, carried));
                                   });
    sums.assign(loop.getResults().begin(), loop.getResults().end());
  }
  Value slots = zero(getSlotsType(type));
  for (int64_t slot = 0; slot < numSlots; ++slot) {
    Value result = convert(builder, loc, sums[slot], element);
    slots = vector::InsertOp::create(builder, loc, result, slots, slot);
  }
  mapTile(op.getResult(), slots);
  return success();
}

LogicalResult KernelLowering::lowerBroadcast(BroadcastOp op) {
  OpOperand &input = op->getOpOperand(0);
  if (!readsAcrossThreads(input)) {
    // A shuffle-folded row result is already in every lane of its row.
    FailureOr<DistributedTile> tile =
        lookupTile(op, input.get(), /*requireOwner=*/false);
    if (failed(tile))
      return failure();
    mapTile(op.getResult(), expandRows(tile->slots, tile->rows, op.getType()));
    return success();
  }
  FailureOr<Value> view = sharedViewOf(op, input.get());
  if (failed(view))
    return failure();
  RankedTensorType type = op.getType();
  RankedTensorType inputType = op.getInput().getType();
  SmallVector<Value> inputDims;
  for (int64_t size : inputType.getShape())
    inputDims.push_back(constantIndex(size));
  Value slots = zero(getSlotsType(type));
  LayoutAttrInterface layout = getLayout(op.getResult());
  for (int64_t slot = 0, e = getSlots(type); slot < e; ++slot) {
    SmallVector<Value> coords;
    if (!isa<BlockedLayoutAttr>(layout)) {
      coords = slotCoordinates(slot, type.getShape(), layout);
    } else {
      Value valid = slotIsValid(type.getNumElements(), slot);
      Value index =
          safeIndex(elementIndex(slot, getVector(op.getResult())), valid);
      coords = delinearize(index, type.getShape());
    }
    for (auto [dim, size] : llvm::enumerate(inputType.getShape()))
      if (size == 1)
        coords[dim] = constantIndex(0);
    Value value = memref::LoadOp::create(builder, loc, *view,
                                         linearize(coords, inputDims));
    slots = vector::InsertOp::create(builder, loc, value, slots, slot);
  }
  mapTile(op.getResult(), slots);
  return success();
}

LogicalResult KernelLowering::lowerReshape(ReshapeOp op) {
  // Element e is in thread e % threads, slot e / threads, in both shapes:
  // the same slots.
  FailureOr<DistributedTile> input =
      lookupTile(op, op.getInput(), /*requireOwner=*/true);
  if (failed(input))
    return failure();
  mapTile(op.getResult(), input->slots);
  return success();
}

LogicalResult KernelLowering::lowerTranspose(TransposeOp op) {
  // Each thread reads its elements (i, j) as (j, i) of the input's shared
  // copy.
  FailureOr<Value> view = sharedViewOf(op, op.getInput());
  if (failed(view))
    return failure();
  RankedTensorType type = op.getType();
  Value inputColumns = constantIndex(type.getDimSize(0));
  Value slots = zero(getSlotsType(type));
  for (int64_t slot = 0, e = getSlots(type); slot < e; ++slot) {
    Value valid = slotIsValid(type.getNumElements(), slot);
    Value index =
        safeIndex(elementIndex(slot, getVector(op.getResult())), valid);
    SmallVector<Value> coords = delinearize(index, type.getShape());
    Value value = memref::LoadOp::create(
        builder, loc, *view,
        linearize({coords[1], coords[0]}, {Value(), inputColumns}));
    slots = vector::InsertOp::create(builder, loc, value, slots, slot);
  }
  mapTile(op.getResult(), slots);
  return success();
}

LogicalResult KernelLowering::lowerSplat(SplatOp op) {
  mapTile(op.getResult(), vector::BroadcastOp::create(
                              builder, loc, getSlotsType(op.getResult()),
                              lookupScalar(op.getInput())));
  return success();
}
