//===- TileLayouts.cpp - layouts, and what the generic code asks of them --===//

#include "tile/Dialect/Tile/IR/Layouts.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "llvm/Support/MathExtras.h"

#include <map>
#include <memory>
#include <mutex>
#include <string>

using namespace mlir;
using namespace mlir::tile;

Value mlir::tile::linearizeCoordinates(OpBuilder &builder, Location loc,
                                       ValueRange coords,
                                       ArrayRef<int64_t> shape) {
  Value linear = coords[0];
  for (size_t dim = 1; dim < coords.size(); ++dim)
    linear = arith::AddIOp::create(
        builder, loc,
        arith::MulIOp::create(
            builder, loc, linear,
            arith::ConstantIndexOp::create(builder, loc, shape[dim])),
        coords[dim]);
  return linear;
}

static int64_t numElementsOf(ArrayRef<int64_t> shape) {
  int64_t elements = 1;
  for (int64_t size : shape)
    elements *= size;
  return elements;
}

static SmallVector<int64_t> delinearize(int64_t element,
                                        ArrayRef<int64_t> shape) {
  SmallVector<int64_t> coords(shape.size());
  for (int64_t dim = shape.size() - 1; dim >= 0; --dim) {
    coords[dim] = element % shape[dim];
    element /= shape[dim];
  }
  return coords;
}

static int64_t linearize(ArrayRef<int64_t> coords, ArrayRef<int64_t> shape) {
  int64_t linear = 0;
  for (auto [coord, size] : llvm::zip(coords, shape))
    linear = linear * size + coord;
  return linear;
}

static Value constant(OpBuilder &builder, Location loc, int64_t value) {
  return arith::ConstantIndexOp::create(builder, loc, value);
}

//===----------------------------------------------------------------------===//
// #tile.blocked
//===----------------------------------------------------------------------===//

LogicalResult BlockedLayoutAttr::verifyLayout(
    RankedTensorType type, int64_t threads,
    function_ref<InFlightDiagnostic()> emitError) const {
  int64_t vector = getVector();
  if (vector < 1 || !llvm::isPowerOf2_64(vector))
    return emitError() << "#tile.blocked vector " << vector
                       << " must be a power of two";
  if (vector == 1)
    return success();
  if (type.getRank() == 0 || type.getShape().back() % vector != 0 ||
      type.getNumElements() % (threads * vector) != 0)
    return emitError() << "#tile.blocked vector " << vector
                       << " must divide the rows of " << type << " and, times "
                       << threads << " threads, its elements";
  return success();
}

int64_t BlockedLayoutAttr::getSlotCount(ArrayRef<int64_t> shape,
                                        int64_t threads) const {
  return llvm::divideCeil(numElementsOf(shape), threads);
}

std::optional<SmallVector<int64_t>>
BlockedLayoutAttr::getSlotElement(ArrayRef<int64_t> shape, int64_t threads,
                                  int64_t thread, int64_t slot) const {
  int64_t vector = getVector();
  int64_t element =
      slot / vector * threads * vector + thread * vector + slot % vector;
  if (element >= numElementsOf(shape))
    return std::nullopt;
  return delinearize(element, shape);
}

Value BlockedLayoutAttr::emitSlotLinearIndex(OpBuilder &builder, Location loc,
                                             ArrayRef<int64_t> shape,
                                             int64_t threads, Value thread,
                                             int64_t slot) const {
  int64_t vector = getVector();
  Value first = vector == 1
                    ? thread
                    : arith::MulIOp::create(builder, loc, thread,
                                            constant(builder, loc, vector));
  // Run slot / vector of this thread, element slot % vector of the run.
  int64_t offset = slot / vector * threads * vector + slot % vector;
  return offset == 0 ? first
                     : arith::AddIOp::create(builder, loc, first,
                                             constant(builder, loc, offset));
}

SmallVector<Value>
BlockedLayoutAttr::emitSlotElement(OpBuilder &builder, Location loc,
                                   ArrayRef<int64_t> shape, int64_t threads,
                                   Value thread, int64_t slot) const {
  auto c = [&](int64_t value) { return constant(builder, loc, value); };
  int64_t vector = getVector();
  // Rows whose runs tile the threads evenly: every slot of a thread is in
  // the same columns, a constant number of rows further (threads * vector a
  // multiple of the row), or in rows known at compile time (the row a
  // multiple of threads * vector). Either way the slots share most of their
  // arithmetic, and their bounds checks.
  if (shape.size() == 2) {
    int64_t columns = shape[1], span = threads * vector;
    if (span % columns == 0) {
      Value first = vector == 1
                        ? thread
                        : arith::MulIOp::create(builder, loc, thread, c(vector))
                              .getResult();
      Value column = arith::RemUIOp::create(builder, loc, first, c(columns));
      if (slot % vector != 0)
        column = arith::AddIOp::create(builder, loc, column, c(slot % vector));
      Value row = arith::DivUIOp::create(builder, loc, first, c(columns));
      if (slot / vector != 0)
        row = arith::AddIOp::create(builder, loc, row,
                                    c(slot / vector * (span / columns)));
      return {row, column};
    }
    if (vector == 1 && columns % threads == 0) {
      int64_t first = slot * threads;
      Value column = thread;
      if (first % columns != 0)
        column =
            arith::AddIOp::create(builder, loc, thread, c(first % columns));
      return {c(first / columns), column};
    }
    if (vector == 1) {
      // Otherwise a slot's coordinates are the first slot's plus constants,
      // and one row more where its column wraps: no division a slot (rows
      // of 7 over 128 threads divided each of a [4096, 7] tile's 224
      // slots, and LLVM took seconds over the arithmetic; utils/fuzz.py
      // seed 103).
      Value column = arith::RemUIOp::create(builder, loc, thread, c(columns));
      Value row = arith::DivUIOp::create(builder, loc, thread, c(columns));
      int64_t offset = slot * threads;
      if (offset / columns != 0)
        row = arith::AddIOp::create(builder, loc, row, c(offset / columns));
      int64_t shift = offset % columns;
      if (shift == 0)
        return {row, column};
      Value wraps = arith::CmpIOp::create(
          builder, loc, arith::CmpIPredicate::uge, column, c(columns - shift));
      Value shifted = arith::AddIOp::create(builder, loc, column, c(shift));
      Value wrapped = arith::SubIOp::create(builder, loc, shifted, c(columns));
      column = arith::SelectOp::create(builder, loc, wraps, wrapped, shifted);
      Value nextRow = arith::AddIOp::create(builder, loc, row, c(1));
      row = arith::SelectOp::create(builder, loc, wraps, nextRow, row);
      return {row, column};
    }
  }
  Value rest = emitSlotLinearIndex(builder, loc, shape, threads, thread, slot);
  SmallVector<Value> coords(shape.size());
  for (int64_t dim = shape.size() - 1; dim > 0; --dim) {
    coords[dim] = arith::RemUIOp::create(builder, loc, rest, c(shape[dim]));
    rest = arith::DivUIOp::create(builder, loc, rest, c(shape[dim]));
  }
  coords[0] = rest;
  return coords;
}

Value BlockedLayoutAttr::emitSlotValid(OpBuilder &builder, Location loc,
                                       ArrayRef<int64_t> shape, int64_t threads,
                                       Value thread, int64_t slot) const {
  int64_t elements = numElementsOf(shape);
  if (getVector() > 1 || (slot + 1) * threads <= elements)
    return {};
  return arith::CmpIOp::create(
      builder, loc, arith::CmpIPredicate::ult, thread,
      constant(builder, loc, elements - slot * threads));
}

bool BlockedLayoutAttr::isReplicated() const { return false; }

bool BlockedLayoutAttr::isPrimaryHolder(ArrayRef<int64_t> shape,
                                        int64_t threads, int64_t thread,
                                        int64_t slot) const {
  return getSlotElement(shape, threads, thread, slot).has_value();
}

Value BlockedLayoutAttr::emitPrimaryHolder(OpBuilder &builder, Location loc,
                                           ArrayRef<int64_t> shape,
                                           int64_t threads, Value thread,
                                           int64_t slot) const {
  return emitSlotValid(builder, loc, shape, threads, thread, slot);
}

std::pair<int64_t, int64_t>
BlockedLayoutAttr::getElementHolder(ArrayRef<int64_t> shape, int64_t threads,
                                    ArrayRef<int64_t> coords) const {
  int64_t vector = getVector();
  int64_t element = linearize(coords, shape);
  return {element / vector % threads,
          element / (vector * threads) * vector + element % vector};
}

Value BlockedLayoutAttr::emitElementHolderThread(OpBuilder &builder,
                                                 Location loc,
                                                 ArrayRef<int64_t> shape,
                                                 int64_t threads,
                                                 ValueRange coords) const {
  Value element = linearizeCoordinates(builder, loc, coords, shape);
  if (getVector() > 1)
    element = arith::DivUIOp::create(builder, loc, element,
                                     constant(builder, loc, getVector()));
  return arith::RemUIOp::create(builder, loc, element,
                                constant(builder, loc, threads));
}

int64_t BlockedLayoutAttr::getRunLength(ArrayRef<int64_t>, int64_t) const {
  return getVector();
}

//===----------------------------------------------------------------------===//
// Rows of a layout, grouped
//===----------------------------------------------------------------------===//

namespace {
/// The row groups of each (layout, shape, threads) asked for: computed once,
/// since #tile.rows asks for them at every slot.
class RowGroupCache {
public:
  using Groups = SmallVector<SmallVector<int64_t>>;

  const Groups &get(LayoutAttrInterface layout, ArrayRef<int64_t> shape,
                    int64_t threads) {
    // By the layout's parameters, not its address: a context's attributes
    // die with it, and a later context's may take the same address (the
    // Python package compiles each kernel in a context of its own).
    Key key{{}, {}, std::vector<int64_t>(shape.begin(), shape.end()), threads};
    describe(layout, std::get<0>(key), std::get<1>(key));
    {
      std::lock_guard<std::mutex> lock(mutex);
      auto found = groups.find(key);
      if (found != groups.end())
        return *found->second;
    }
    // Computed without the lock, which is not recursive: the groups of a
    // #tile.rows layout (a row statistic of a row statistic) ask for its
    // parent's, and this deadlocked (utils/fuzz.py seeds 104 and 105).
    auto computed = std::make_unique<Groups>(compute(layout, shape, threads));
    std::lock_guard<std::mutex> lock(mutex);
    std::unique_ptr<Groups> &entry = groups[key];
    if (!entry)
      entry = std::move(computed);
    return *entry;
  }

private:
  /// The layout's parameters (the known kinds, without printing: this is
  /// asked at every slot), the text of any other, the shape, the threads.
  using Key = std::tuple<std::vector<int64_t>, std::string,
                         std::vector<int64_t>, int64_t>;

  static void describe(LayoutAttrInterface layout,
                       std::vector<int64_t> &parameters, std::string &text) {
    if (auto blocked = dyn_cast<BlockedLayoutAttr>(layout)) {
      parameters.insert(parameters.end(), {1, blocked.getVector()});
    } else if (auto mma = dyn_cast<MmaLayoutAttr>(layout)) {
      parameters.insert(parameters.end(),
                        {2, mma.getWarpsM(), mma.getWarpsN()});
    } else if (auto rows = dyn_cast<RowsLayoutAttr>(layout)) {
      parameters.insert(parameters.end(), {3, rows.getColumns()});
      describe(rows.getParent(), parameters, text);
    } else {
      llvm::raw_string_ostream(text) << Attribute(layout);
    }
  }

  static Groups compute(LayoutAttrInterface layout, ArrayRef<int64_t> shape,
                        int64_t threads) {
    int64_t slots = layout.getSlotCount(shape, threads);
    // Each slot's row in every thread (-1: no element): slots with equal
    // vectors are one group.
    std::map<std::vector<int64_t>, int64_t> groupOf;
    Groups result;
    for (int64_t slot = 0; slot < slots; ++slot) {
      std::vector<int64_t> rows(threads);
      for (int64_t thread = 0; thread < threads; ++thread) {
        auto element = layout.getSlotElement(shape, threads, thread, slot);
        rows[thread] = element ? (*element)[0] : -1;
      }
      auto [it, inserted] = groupOf.try_emplace(rows, result.size());
      if (inserted)
        result.emplace_back();
      result[it->second].push_back(slot);
    }
    return result;
  }

  std::mutex mutex;
  std::map<Key, std::unique_ptr<Groups>> groups;
};
} // namespace

const SmallVector<SmallVector<int64_t>> &
mlir::tile::getRowSlotGroups(LayoutAttrInterface layout,
                             ArrayRef<int64_t> shape, int64_t threads) {
  static RowGroupCache cache;
  return cache.get(layout, shape, threads);
}

//===----------------------------------------------------------------------===//
// #tile.rows
//===----------------------------------------------------------------------===//

LogicalResult RowsLayoutAttr::verifyLayout(
    RankedTensorType type, int64_t threads,
    function_ref<InFlightDiagnostic()> emitError) const {
  if (type.getRank() != 2 || type.getDimSize(1) != 1)
    return emitError() << "#tile.rows lays out [R, 1] row results, not "
                       << type;
  if (getColumns() < 1)
    return emitError() << "#tile.rows columns must be positive";
  if (getParent().isReplicated())
    return emitError() << "#tile.rows parent " << getParent()
                       << " must hold each element once";
  return getParent().verifyLayout(
      RankedTensorType::get(getParentShape(type.getShape()),
                            type.getElementType()),
      threads, emitError);
}

int64_t RowsLayoutAttr::getSlotCount(ArrayRef<int64_t> shape,
                                     int64_t threads) const {
  return getRowSlotGroups(getParent(), getParentShape(shape), threads).size();
}

std::optional<SmallVector<int64_t>>
RowsLayoutAttr::getSlotElement(ArrayRef<int64_t> shape, int64_t threads,
                               int64_t thread, int64_t slot) const {
  SmallVector<int64_t> parentShape = getParentShape(shape);
  int64_t first = getRowSlotGroups(getParent(), parentShape, threads)[slot][0];
  auto element =
      getParent().getSlotElement(parentShape, threads, thread, first);
  if (!element)
    return std::nullopt;
  return SmallVector<int64_t>{(*element)[0], 0};
}

SmallVector<Value>
RowsLayoutAttr::emitSlotElement(OpBuilder &builder, Location loc,
                                ArrayRef<int64_t> shape, int64_t threads,
                                Value thread, int64_t slot) const {
  SmallVector<int64_t> parentShape = getParentShape(shape);
  int64_t first = getRowSlotGroups(getParent(), parentShape, threads)[slot][0];
  SmallVector<Value> coords = getParent().emitSlotElement(
      builder, loc, parentShape, threads, thread, first);
  return {coords[0], constant(builder, loc, 0)};
}

Value RowsLayoutAttr::emitSlotLinearIndex(OpBuilder &builder, Location loc,
                                          ArrayRef<int64_t> shape,
                                          int64_t threads, Value thread,
                                          int64_t slot) const {
  return emitSlotElement(builder, loc, shape, threads, thread, slot)[0];
}

Value RowsLayoutAttr::emitSlotValid(OpBuilder &builder, Location loc,
                                    ArrayRef<int64_t> shape, int64_t threads,
                                    Value thread, int64_t slot) const {
  SmallVector<int64_t> parentShape = getParentShape(shape);
  int64_t first = getRowSlotGroups(getParent(), parentShape, threads)[slot][0];
  return getParent().emitSlotValid(builder, loc, parentShape, threads, thread,
                                   first);
}

bool RowsLayoutAttr::isReplicated() const { return true; }

bool RowsLayoutAttr::isPrimaryHolder(ArrayRef<int64_t> shape, int64_t threads,
                                     int64_t thread, int64_t slot) const {
  SmallVector<int64_t> parentShape = getParentShape(shape);
  for (int64_t member :
       getRowSlotGroups(getParent(), parentShape, threads)[slot]) {
    auto element =
        getParent().getSlotElement(parentShape, threads, thread, member);
    if (element && (*element)[1] == 0)
      return true;
  }
  return false;
}

Value RowsLayoutAttr::emitPrimaryHolder(OpBuilder &builder, Location loc,
                                        ArrayRef<int64_t> shape,
                                        int64_t threads, Value thread,
                                        int64_t slot) const {
  // The thread whose slot of the group holds column 0 of the row; only the
  // slots that hold column 0 in some thread are tested.
  SmallVector<int64_t> parentShape = getParentShape(shape);
  Value primary;
  for (int64_t member :
       getRowSlotGroups(getParent(), parentShape, threads)[slot]) {
    bool somewhere = false;
    for (int64_t other = 0; other < threads && !somewhere; ++other) {
      auto element =
          getParent().getSlotElement(parentShape, threads, other, member);
      somewhere = element && (*element)[1] == 0;
    }
    if (!somewhere)
      continue;
    Value column = getParent().emitSlotElement(builder, loc, parentShape,
                                               threads, thread, member)[1];
    Value first = arith::CmpIOp::create(builder, loc, arith::CmpIPredicate::eq,
                                        column, constant(builder, loc, 0));
    if (Value valid = getParent().emitSlotValid(builder, loc, parentShape,
                                                threads, thread, member))
      first = arith::AndIOp::create(builder, loc, first, valid);
    primary =
        primary ? arith::OrIOp::create(builder, loc, primary, first).getResult()
                : first;
  }
  // No slot of the group ever holds column 0: no thread stores from it.
  return primary ? primary
                 : arith::ConstantIntOp::create(builder, loc, 0, 1).getResult();
}

std::pair<int64_t, int64_t>
RowsLayoutAttr::getElementHolder(ArrayRef<int64_t> shape, int64_t threads,
                                 ArrayRef<int64_t> coords) const {
  SmallVector<int64_t> parentShape = getParentShape(shape);
  auto [thread, member] =
      getParent().getElementHolder(parentShape, threads, {coords[0], 0});
  const auto &groups = getRowSlotGroups(getParent(), parentShape, threads);
  for (auto [index, group] : llvm::enumerate(groups))
    if (llvm::is_contained(group, member))
      return {thread, index};
  llvm_unreachable("a slot outside every row group");
}

Value RowsLayoutAttr::emitElementHolderThread(OpBuilder &builder, Location loc,
                                              ArrayRef<int64_t> shape,
                                              int64_t threads,
                                              ValueRange coords) const {
  return getParent().emitElementHolderThread(
      builder, loc, getParentShape(shape), threads,
      {coords[0], constant(builder, loc, 0)});
}

int64_t RowsLayoutAttr::getRunLength(ArrayRef<int64_t>, int64_t) const {
  return 1;
}

//===----------------------------------------------------------------------===//
// #tile.mma
//===----------------------------------------------------------------------===//

LogicalResult MmaLayoutAttr::verifyLayout(
    RankedTensorType type, int64_t threads,
    function_ref<InFlightDiagnostic()> emitError) const {
  int64_t warpsM = getWarpsM(), warpsN = getWarpsN();
  if (warpsM < 1 || warpsN < 1 || warpsM * warpsN * kLanes != threads)
    return emitError() << "warps [" << warpsM << ", " << warpsN
                       << "] must be the " << threads / kLanes
                       << " warps of the CTA";
  if (type.getRank() != 2 || type.getDimSize(0) % (warpsM * kMmaM) != 0 ||
      type.getDimSize(1) % (warpsN * kMmaN) != 0)
    return emitError() << type << " is not " << warpsM << " x " << warpsN
                       << " blocks of whole [" << kMmaM << ", " << kMmaN
                       << "] mma tiles";
  return success();
}

int64_t MmaLayoutAttr::getSlotCount(ArrayRef<int64_t> shape,
                                    int64_t threads) const {
  return numElementsOf(shape) / threads;
}

std::optional<SmallVector<int64_t>>
MmaLayoutAttr::getSlotElement(ArrayRef<int64_t> shape, int64_t threads,
                              int64_t thread, int64_t slot) const {
  int64_t blockM = shape[0] / getWarpsM(), blockN = shape[1] / getWarpsN();
  int64_t tilesN = blockN / kMmaN, tile = slot / 4, element = slot % 4;
  int64_t warp = thread / kLanes, lane = thread % kLanes;
  return SmallVector<int64_t>{
      warp / getWarpsN() * blockM + kMmaM * (tile / tilesN) + lane / 4 +
          8 * (element / 2),
      warp % getWarpsN() * blockN + kMmaN * (tile % tilesN) + 2 * (lane % 4) +
          element % 2};
}

SmallVector<Value> MmaLayoutAttr::emitSlotElement(OpBuilder &builder,
                                                  Location loc,
                                                  ArrayRef<int64_t> shape,
                                                  int64_t threads, Value thread,
                                                  int64_t slot) const {
  auto c = [&](int64_t value) { return constant(builder, loc, value); };
  int64_t blockM = shape[0] / getWarpsM(), blockN = shape[1] / getWarpsN();
  int64_t tilesN = blockN / kMmaN, tile = slot / 4, element = slot % 4;
  Value lane = arith::RemUIOp::create(builder, loc, thread, c(kLanes));
  Value warp = arith::DivUIOp::create(builder, loc, thread, c(kLanes));
  auto add = [&](Value a, Value b) {
    return arith::AddIOp::create(builder, loc, a, b).getResult();
  };
  auto times = [&](Value a, int64_t b) {
    return arith::MulIOp::create(builder, loc, a, c(b)).getResult();
  };
  // The warp's block, the lane's place in each mma tile (groupID = lane / 4
  // rows, 2 (lane % 4) columns), the tile and the element in it.
  Value blockRow =
      times(arith::DivUIOp::create(builder, loc, warp, c(getWarpsN())), blockM);
  Value blockColumn =
      times(arith::RemUIOp::create(builder, loc, warp, c(getWarpsN())), blockN);
  Value row = add(blockRow, arith::DivUIOp::create(builder, loc, lane, c(4)));
  Value column = add(
      blockColumn, times(arith::RemUIOp::create(builder, loc, lane, c(4)), 2));
  return {add(row, c(kMmaM * (tile / tilesN) + 8 * (element / 2))),
          add(column, c(kMmaN * (tile % tilesN) + element % 2))};
}

Value MmaLayoutAttr::emitSlotValid(OpBuilder &, Location, ArrayRef<int64_t>,
                                   int64_t, Value, int64_t) const {
  return {}; // the mma tiles cover the tile, four elements a lane each
}

std::pair<int64_t, int64_t>
MmaLayoutAttr::getElementHolder(ArrayRef<int64_t> shape, int64_t threads,
                                ArrayRef<int64_t> coords) const {
  int64_t blockM = shape[0] / getWarpsM(), blockN = shape[1] / getWarpsN();
  int64_t tilesN = blockN / kMmaN;
  int64_t row = coords[0] % blockM, column = coords[1] % blockN;
  int64_t warp = coords[0] / blockM * getWarpsN() + coords[1] / blockN;
  int64_t lane = row % 8 * 4 + column % kMmaN / 2;
  int64_t tile = row / kMmaM * tilesN + column / kMmaN;
  int64_t element = row % kMmaM / 8 * 2 + column % 2;
  return {warp * kLanes + lane, 4 * tile + element};
}

Value MmaLayoutAttr::emitElementHolderThread(OpBuilder &builder, Location loc,
                                             ArrayRef<int64_t> shape,
                                             int64_t threads,
                                             ValueRange coords) const {
  // One op a statement: the order of the ops must not be the compiler's
  // order of evaluating arguments.
  auto apply = [&](auto kind, Value a, int64_t b) -> Value {
    Value constantB = constant(builder, loc, b);
    return decltype(kind)::create(builder, loc, a, constantB);
  };
  auto add = [&](Value a, Value b) -> Value {
    return arith::AddIOp::create(builder, loc, a, b);
  };
  int64_t blockM = shape[0] / getWarpsM(), blockN = shape[1] / getWarpsN();
  // Warp (r / blockM) warpsN + c / blockN; lane 4 (r % 8) + (c % 8) / 2.
  Value blockRow = apply(arith::DivUIOp(), coords[0], blockM);
  Value warpRow = apply(arith::MulIOp(), blockRow, getWarpsN());
  Value blockColumn = apply(arith::DivUIOp(), coords[1], blockN);
  Value warp = add(warpRow, blockColumn);
  Value group =
      apply(arith::MulIOp(), apply(arith::RemUIOp(), coords[0], 8), 4);
  Value pair =
      apply(arith::DivUIOp(), apply(arith::RemUIOp(), coords[1], kMmaN), 2);
  Value lane = add(group, pair);
  return add(apply(arith::MulIOp(), warp, kLanes), lane);
}

//===----------------------------------------------------------------------===//
// The layout of a value, written in its type
//===----------------------------------------------------------------------===//

BlockedLayoutAttr mlir::tile::getCyclicLayout(MLIRContext *context) {
  return BlockedLayoutAttr::get(context, 1);
}

bool mlir::tile::isCyclicLayout(Attribute layout) {
  auto blocked = dyn_cast_or_null<BlockedLayoutAttr>(layout);
  return blocked && blocked.getVector() == 1;
}

int64_t mlir::tile::getKernelThreads(Operation *op) {
  auto kernel =
      isa<KernelOp>(op) ? cast<KernelOp>(op) : op->getParentOfType<KernelOp>();
  // 0 for a kernel without `threads`, which its verifier reports (an
  // attribute's verifier may run before it).
  auto threads =
      kernel ? kernel->getAttrOfType<IntegerAttr>(kernel.getThreadsAttrName())
             : IntegerAttr();
  return threads ? threads.getInt() : 0;
}

bool mlir::tile::isSameShapeElementwise(Operation *op) {
  if (!op->hasTrait<OpTrait::Elementwise>() || op->getNumResults() != 1 ||
      op->getNumRegions() != 0)
    return false;
  auto type = dyn_cast<RankedTensorType>(op->getResult(0).getType());
  return type && llvm::all_of(op->getOperandTypes(), [&](Type operand) {
           auto tile = dyn_cast<RankedTensorType>(operand);
           return tile && tile.getShape() == type.getShape();
         });
}

LayoutAttrInterface mlir::tile::getLayout(Value tile) {
  if (auto type = dyn_cast<RankedTensorType>(tile.getType()))
    if (auto layout = dyn_cast_or_null<LayoutAttrInterface>(type.getEncoding()))
      return layout;
  return getUnwrittenLayout(tile);
}

LayoutAttrInterface mlir::tile::getUnwrittenLayout(Value tile) {
  MLIRContext *context = tile.getContext();
  if (auto arg = dyn_cast<BlockArgument>(tile)) {
    Operation *owner = arg.getOwner()->getParentOp();
    unsigned number = arg.getArgNumber();
    if (auto loop = dyn_cast<scf::ForOp>(owner); loop && number > 0)
      return getLayout(loop.getInitArgs()[number - 1]);
    if (auto loop = dyn_cast<scf::WhileOp>(owner))
      return arg.getOwner() == loop.getBeforeBody()
                 ? getLayout(loop.getInits()[number])
                 : getLayout(loop.getConditionOp().getArgs()[number]);
    return getCyclicLayout(context);
  }
  Operation *def = tile.getDefiningOp();
  unsigned number = cast<OpResult>(tile).getResultNumber();
  if (auto reduction = dyn_cast<ReductionOpInterface>(def)) {
    LayoutAttrInterface input = getLayout(reduction.getInput());
    RankedTensorType type = reduction.getInput().getType();
    if (reduction.getAxis() == 1 && reducesInPlace(reduction))
      return RowsLayoutAttr::get(context, type.getDimSize(1), input);
    return getCyclicLayout(context);
  }
  if (auto broadcast = dyn_cast<BroadcastOp>(def)) {
    auto rows = dyn_cast<RowsLayoutAttr>(getLayout(broadcast.getInput()));
    RankedTensorType type = broadcast.getType();
    if (rows && type.getRank() == 2 && type.getDimSize(1) == rows.getColumns())
      return rows.getParent();
    return getCyclicLayout(context);
  }
  if (auto loop = dyn_cast<scf::ForOp>(def))
    return getLayout(loop.getInitArgs()[number]);
  if (auto ifOp = dyn_cast<scf::IfOp>(def))
    return getLayout(ifOp.thenYield().getOperand(number));
  if (auto loop = dyn_cast<scf::WhileOp>(def))
    return getLayout(loop.getConditionOp().getArgs()[number]);
  return getCyclicLayout(context);
}

int64_t mlir::tile::getLayoutRun(Value tile) {
  auto type = dyn_cast<RankedTensorType>(tile.getType());
  Operation *scope = tile.getDefiningOp();
  if (!scope)
    scope = cast<BlockArgument>(tile).getOwner()->getParentOp();
  if (!type)
    return 1;
  return getLayout(tile).getRunLength(type.getShape(), getKernelThreads(scope));
}

RankedTensorType mlir::tile::withLayout(RankedTensorType type,
                                        Attribute layout) {
  return RankedTensorType::get(type.getShape(), type.getElementType(), layout);
}

void mlir::tile::setLayout(Value tile, LayoutAttrInterface layout) {
  auto type = cast<RankedTensorType>(tile.getType());
  RankedTensorType laidOut = withLayout(type, layout);
  if (laidOut == type)
    return;
  tile.setType(laidOut);
  // A constant's value has its result's type.
  if (auto constant = tile.getDefiningOp<arith::ConstantOp>())
    if (auto dense = dyn_cast<DenseElementsAttr>(constant.getValue()))
      constant.setValueAttr(cast<TypedAttr>(dense.reshape(laidOut)));
}

bool mlir::tile::hasChosenLayout(Value tile) {
  if (!isa<RankedTensorType>(tile.getType()))
    return false;
  if (auto read = tile.getDefiningOp<ReadOp>())
    if (VarOp var = getVarOp(read.getVar()); var && var.getLayoutAttr())
      return false;
  return getLayout(tile) != getUnwrittenLayout(tile);
}

LayoutAttrInterface mlir::tile::getVarLayout(VarOp var) {
  if (LayoutAttrInterface layout = var.getLayoutAttr())
    return layout;
  return getCyclicLayout(var.getContext());
}

/// Writes the layouts of the tile values of `op` (its results, after those
/// of its regions, and its regions' arguments, before their ops).
static void writeLayoutTypesOf(Operation *op) {
  auto write = [](Value value) {
    auto type = dyn_cast<RankedTensorType>(value.getType());
    if (type && !isa_and_present<LayoutAttrInterface>(type.getEncoding()))
      setLayout(value, getLayout(value));
  };
  for (Region &region : op->getRegions())
    for (Block &block : region) {
      llvm::for_each(block.getArguments(), write);
      for (Operation &nested : block)
        writeLayoutTypesOf(&nested);
    }
  llvm::for_each(op->getResults(), write);
}

void mlir::tile::writeLayoutTypes(Operation *root) {
  writeLayoutTypesOf(root);
  // A var in registers holds its values in their layout, which its reads
  // and writes share.
  root->walk([](VarOp var) {
    if (var.getVarType().isScalar() || !isInRegisters(var))
      return;
    Value value = var.getInit();
    for (Operation *user : var->getUsers()) {
      if (value)
        break;
      if (auto read = dyn_cast<ReadOp>(user))
        value = read.getResult();
      else if (auto write = dyn_cast<WriteOp>(user))
        value = write.getValue();
    }
    if (value)
      var.setLayoutAttr(getLayout(value));
  });
}

//===----------------------------------------------------------------------===//
// Row reductions where the tile lives
//===----------------------------------------------------------------------===//

/// The plan that first combines the slots of each of `groups` (slots that
/// hold one row in every thread) in the thread, or none.
static std::optional<RowReductionPlan>
planRowReduction(LayoutAttrInterface layout, ArrayRef<int64_t> shape,
                 int64_t threads, SmallVector<SmallVector<int64_t>> groups) {
  int64_t columns = shape[1];
  RowReductionPlan plan;
  plan.groups = std::move(groups);
  // The lane sets: the lanes of one warp that hold one row in one group,
  // with the columns they hold.
  struct LaneSet {
    uint64_t lanes = 0;
    int64_t firstColumn = std::numeric_limits<int64_t>::max(), lastColumn = -1;
  };
  std::map<std::tuple<int64_t, int64_t, int64_t>, LaneSet>
      sets; // row, warp, group
  for (auto [group, members] : llvm::enumerate(plan.groups))
    for (int64_t thread = 0; thread < threads; ++thread)
      for (int64_t slot : members) {
        auto coords = layout.getSlotElement(shape, threads, thread, slot);
        if (!coords)
          continue;
        LaneSet &set =
            sets[{(*coords)[0], thread / kLanes, static_cast<int64_t>(group)}];
        set.lanes |= uint64_t(1) << (thread % kLanes);
        set.firstColumn = std::min(set.firstColumn, (*coords)[1]);
        set.lastColumn = std::max(set.lastColumn, (*coords)[1]);
      }
  // Each set is the lanes of a xor butterfly: a first lane and every
  // combination of the same bits, in every warp and row alike.
  std::optional<int64_t> mask;
  std::map<int64_t, SmallVector<const LaneSet *>> setsOfRow;
  for (auto &[key, set] : sets) {
    int64_t first = llvm::countr_zero(set.lanes), bits = 0;
    for (int64_t lane = 0; lane < kLanes; ++lane)
      if (set.lanes >> lane & 1)
        bits |= lane ^ first;
    if (llvm::popcount(set.lanes) != int64_t(1)
                                         << llvm::popcount(uint64_t(bits)))
      return std::nullopt;
    if (mask && *mask != bits)
      return std::nullopt;
    mask = bits;
    setsOfRow[std::get<0>(key)].push_back(&set);
  }
  plan.laneMask = mask.value_or(0);
  // Every row spans as many lane sets; more than one meet through a scratch
  // var, each at the index of the aligned column segment it holds.
  std::optional<int64_t> parts;
  for (auto &[row, rowSets] : setsOfRow) {
    int64_t count = rowSets.size();
    if (parts && *parts != count)
      return std::nullopt;
    parts = count;
  }
  plan.parts = parts.value_or(1);
  if (plan.parts == 1)
    return plan;
  if (columns % plan.parts != 0)
    return std::nullopt;
  plan.segmentColumns = columns / plan.parts;
  for (auto &[row, rowSets] : setsOfRow) {
    uint64_t seen = 0;
    for (const LaneSet *set : rowSets) {
      int64_t segment = set->firstColumn / plan.segmentColumns;
      if (set->lastColumn / plan.segmentColumns != segment ||
          (seen >> segment & 1))
        return std::nullopt;
      seen |= uint64_t(1) << segment;
    }
  }
  return plan;
}

std::optional<RowReductionPlan>
mlir::tile::getRowReductionPlan(LayoutAttrInterface layout,
                                RankedTensorType type, int64_t threads) {
  Type element = type.getElementType();
  if (type.getRank() != 2 || threads <= 0 || threads % kLanes != 0 ||
      !(element.isF32() || element.isInteger(32)))
    return std::nullopt;
  ArrayRef<int64_t> shape = type.getShape();
  const SmallVector<SmallVector<int64_t>> &rowGroups =
      getRowSlotGroups(layout, shape, threads);
  if (auto plan = planRowReduction(layout, shape, threads, rowGroups))
    return plan;
  // A row group whose slots hold columns of several warps' segments (seed
  // 000's rows of 256 in 128 threads: columns t and t + 128) meets in the
  // scratch var slot by slot, each slot its own lane set.
  SmallVector<SmallVector<int64_t>> slots;
  for (int64_t slot = 0, e = layout.getSlotCount(shape, threads); slot < e;
       ++slot)
    slots.push_back({slot});
  if (slots.size() == rowGroups.size())
    return std::nullopt;
  return planRowReduction(layout, shape, threads, std::move(slots));
}

//===----------------------------------------------------------------------===//
// Conversions
//===----------------------------------------------------------------------===//

StringRef mlir::tile::stringifyConversionKind(ConversionKind kind) {
  switch (kind) {
  case ConversionKind::None:
    return "none";
  case ConversionKind::InThread:
    return "registers";
  case ConversionKind::Shuffle:
    return "shuffles";
  case ConversionKind::Shared:
    return "shared memory";
  }
  llvm_unreachable("unknown conversion kind");
}

ConversionPlan mlir::tile::getConversionPlan(LayoutAttrInterface from,
                                             LayoutAttrInterface to,
                                             RankedTensorType type,
                                             int64_t threads) {
  ConversionPlan plan;
  if (from == to) {
    plan.kind = ConversionKind::None;
    return plan;
  }
  ArrayRef<int64_t> shape = type.getShape();
  int64_t elements = type.getNumElements();
  int64_t fromSlots = from.getSlotCount(shape, threads);
  int64_t toSlots = to.getSlotCount(shape, threads);
  // Which slots of a thread hold each element, by thread: a thread holds at
  // most a few copies of one element.
  std::vector<SmallVector<std::pair<int32_t, int32_t>, 1>> holders(elements);
  for (int64_t thread = 0; thread < threads; ++thread)
    for (int64_t slot = 0; slot < fromSlots; ++slot)
      if (auto coords = from.getSlotElement(shape, threads, thread, slot))
        holders[linearize(*coords, shape)].push_back(
            {static_cast<int32_t>(thread), static_cast<int32_t>(slot)});
  // In each thread: a source slot per destination slot, the same in every
  // thread.
  SmallVector<int64_t> inThread, shuffled;
  // Warp shuffles move 32 bits.
  bool ownThread = true,
       ownWarp = type.getElementType().getIntOrFloatBitWidth() == 32;
  for (int64_t slot = 0; slot < toSlots && (ownThread || ownWarp); ++slot) {
    std::optional<SmallVector<int64_t>> candidates;
    std::optional<int64_t> fromWarpSlot;
    for (int64_t thread = 0; thread < threads; ++thread) {
      auto coords = to.getSlotElement(shape, threads, thread, slot);
      if (!coords)
        continue;
      int64_t linear = linearize(*coords, shape);
      if (ownThread) {
        SmallVector<int64_t> own;
        for (auto [holder, holderSlot] : holders[linear])
          if (holder == thread)
            own.push_back(holderSlot);
        if (!candidates)
          candidates = own;
        else
          llvm::erase_if(*candidates, [&](int64_t candidate) {
            return !llvm::is_contained(own, candidate);
          });
        ownThread = !candidates->empty();
      }
      if (ownWarp) {
        auto [holder, holderSlot] =
            from.getElementHolder(shape, threads, *coords);
        ownWarp = holder / kLanes == thread / kLanes &&
                  (!fromWarpSlot || *fromWarpSlot == holderSlot);
        fromWarpSlot = holderSlot;
      }
    }
    inThread.push_back(candidates && !candidates->empty() ? candidates->front()
                                                          : 0);
    shuffled.push_back(fromWarpSlot.value_or(0));
  }
  if (ownThread) {
    plan.kind = ConversionKind::InThread;
    plan.sourceSlots = std::move(inThread);
  } else if (ownWarp) {
    plan.kind = ConversionKind::Shuffle;
    plan.sourceSlots = std::move(shuffled);
  } else {
    plan.kind = ConversionKind::Shared;
  }
  return plan;
}

ConversionPlan mlir::tile::getConversionPlan(ConvertLayoutOp op) {
  return getConversionPlan(getLayout(op.getInput()), getLayout(op.getResult()),
                           op.getType(), getKernelThreads(op));
}

Value mlir::tile::getScratchOf(Operation *op) {
  if (auto reduction = dyn_cast<ReductionOpInterface>(op))
    return reduction.getScratch();
  if (auto convert = dyn_cast<ConvertLayoutOp>(op))
    return convert.getScratch();
  return {};
}
