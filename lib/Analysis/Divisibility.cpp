//===- Divisibility.cpp - what divides a kernel's index values ------------===//

#include "tile/Analysis/Divisibility.h"
#include "tile/Dialect/Tile/IR/Layouts.h"
#include "tile/Dialect/Tile/IR/SizeExpr.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Matchers.h"
#include "llvm/Support/MathExtras.h"

#include <functional>

using namespace mlir;
using namespace mlir::tile;

/// The largest power of two dividing `value` (kMaxDivisor for 0).
static int64_t powerOfTwoDividing(int64_t value) {
  if (value == 0)
    return kMaxDivisor;
  return std::min<int64_t>(kMaxDivisor,
                           int64_t(1) << llvm::countr_zero(uint64_t(value)));
}

DivisibilityInfo::DivisibilityInfo(KernelOp kernel,
                                   DictionaryAttr divisibility) {
  if (!divisibility)
    divisibility = kernel->getAttrOfType<DictionaryAttr>(kDivisibilityAttr);
  if (!divisibility)
    return;
  for (NamedAttribute entry : divisibility)
    if (auto divisor = dyn_cast<IntegerAttr>(entry.getValue()))
      symbols[entry.getName().getValue()] = divisor.getInt();
}

int64_t DivisibilityInfo::getSymbolDivisor(StringRef symbol) const {
  auto it = symbols.find(symbol);
  return it == symbols.end() ? 1 : it->second;
}

int64_t DivisibilityInfo::getDimDivisor(GlobalTensorType tensor,
                                        unsigned dim) const {
  // A size is a symbol, a constant or an expression of them (`2 * H`):
  // the power of two dividing a sum divides both terms, a product's is
  // its factors' product.
  SmallVector<StringAttr> names;
  std::function<int64_t(AffineExpr)> divisor = [&](AffineExpr expr) {
    if (auto constant = dyn_cast<AffineConstantExpr>(expr))
      return powerOfTwoDividing(constant.getValue());
    if (auto symbol = dyn_cast<AffineSymbolExpr>(expr))
      return getSymbolDivisor(names[symbol.getPosition()].getValue());
    auto binary = cast<AffineBinaryOpExpr>(expr);
    int64_t lhs = divisor(binary.getLHS()), rhs = divisor(binary.getRHS());
    return expr.getKind() == AffineExprKind::Mul
               ? std::min(kMaxDivisor, lhs * rhs)
               : std::min(lhs, rhs);
  };
  return divisor(getSizeExpr(tensor, dim, names));
}

Value DivisibilityInfo::getRecurrence(Value value) {
  if (auto arg = dyn_cast<BlockArgument>(value)) {
    auto loop = dyn_cast<scf::ForOp>(arg.getOwner()->getParentOp());
    return loop && arg != loop.getInductionVar() ? value : Value();
  }
  if (auto read = value.getDefiningOp<ReadOp>())
    if (VarOp var = getVarOp(read.getVar());
        var && var.getVarType().isScalar() && var.getInit())
      return var.getResult();
  return {};
}

int64_t DivisibilityInfo::computeSources(Value recurrence) {
  if (auto arg = dyn_cast<BlockArgument>(recurrence)) {
    auto loop = cast<scf::ForOp>(arg.getOwner()->getParentOp());
    unsigned index = arg.getArgNumber() - 1;
    return std::min(getDivisor(loop.getInitArgs()[index]),
                    getDivisor(loop.getYieldedValues()[index]));
  }
  // A scalar var holds its initial value or one that a write gave it.
  auto var = recurrence.getDefiningOp<VarOp>();
  int64_t divisor = getDivisor(var.getInit());
  for (Operation *user : var->getUsers())
    if (auto write = dyn_cast<WriteOp>(user))
      divisor = std::min(divisor, getDivisor(write.getValue()));
    else if (!isa<ReadOp>(user))
      return 1;
  return divisor;
}

int64_t DivisibilityInfo::getRecurrenceDivisor(Value recurrence) {
  if (auto it = solved.find(recurrence); it != solved.end())
    return it->second;
  for (auto [position, entry] : llvm::enumerate(assumed))
    if (entry.first == recurrence) {
      lowestAssumptionUsed = std::min(lowestAssumptionUsed, position);
      return entry.second;
    }
  if (solvesLeft-- <= 0)
    return 1;
  size_t position = assumed.size(), outerLowest = lowestAssumptionUsed;
  lowestAssumptionUsed = SIZE_MAX;
  // What was computed under an assumption is forgotten after each try.
  DenseMap<Value, int64_t> before = known;
  int64_t divisor = kMaxDivisor;
  assumed.push_back({recurrence, divisor});
  while (true) {
    assumed.back().second = divisor;
    known = before;
    int64_t holds = std::min(divisor, computeSources(recurrence));
    if (holds == divisor)
      break;
    divisor = holds;
  }
  assumed.pop_back();
  known = std::move(before);
  // Solved for good unless an enclosing solve's assumption was used.
  size_t used = lowestAssumptionUsed;
  if (used >= position)
    solved[recurrence] = divisor;
  lowestAssumptionUsed =
      std::min(outerLowest, used < position ? used : SIZE_MAX);
  return divisor;
}

int64_t DivisibilityInfo::getDivisor(Value value) {
  if (Value recurrence = getRecurrence(value))
    return getRecurrenceDivisor(recurrence);
  auto [it, inserted] = known.try_emplace(value, 1);
  if (!inserted)
    return it->second; // known, or on a cycle being computed: 1 is safe
  int64_t divisor = compute(value);
  known[value] = divisor;
  return divisor;
}

int64_t DivisibilityInfo::compute(Value value) {
  APInt constant;
  if (matchPattern(value, m_ConstantInt(&constant)))
    return powerOfTwoDividing(constant.getSExtValue());
  if (auto arg = dyn_cast<BlockArgument>(value)) {
    // A loop's index takes lb + i * step (its iteration arguments are
    // recurrences).
    auto loop = dyn_cast<scf::ForOp>(arg.getOwner()->getParentOp());
    if (!loop)
      return 1;
    return std::min(getDivisor(loop.getLowerBound()),
                    getDivisor(loop.getStep()));
  }
  Operation *op = value.getDefiningOp();
  if (auto mul = dyn_cast<arith::MulIOp>(op))
    return std::min(kMaxDivisor,
                    getDivisor(mul.getLhs()) * getDivisor(mul.getRhs()));
  if (isa<arith::AddIOp, arith::SubIOp>(op))
    return std::min(getDivisor(op->getOperand(0)),
                    getDivisor(op->getOperand(1)));
  if (auto select = dyn_cast<arith::SelectOp>(op))
    return std::min(getDivisor(select.getTrueValue()),
                    getDivisor(select.getFalseValue()));
  if (auto shift = dyn_cast<arith::ShLIOp>(op)) {
    if (!matchPattern(shift.getRhs(), m_ConstantInt(&constant)) ||
        constant.getSExtValue() < 0 || constant.getSExtValue() > 30)
      return 1;
    return std::min(kMaxDivisor, getDivisor(shift.getLhs())
                                     << constant.getSExtValue());
  }
  if (auto dim = dyn_cast<DimOp>(op))
    return getDimDivisor(dim.getSource().getType(), dim.getIndex());
  return 1;
}

RunAlignment DivisibilityInfo::getRunAlignment(Value lastOffset,
                                               GlobalTensorType tensor,
                                               int64_t rank, int64_t run,
                                               bool &offsetKnown,
                                               bool &rowsKnown) {
  offsetKnown = getDivisor(lastOffset) % run == 0;
  rowsKnown =
      rank == 1 || getDimDivisor(tensor, tensor.getRank() - 1) % run == 0;
  APInt constant;
  bool never = (matchPattern(lastOffset, m_ConstantInt(&constant)) &&
                constant.getSExtValue() % run != 0) ||
               (rank > 1 && !tensor.isDynamicDim(tensor.getRank() - 1) &&
                tensor.getShape().back() % run != 0);
  if (never)
    return RunAlignment::Never;
  return offsetKnown && rowsKnown ? RunAlignment::Always
                                  : RunAlignment::AtRunTime;
}

/// The alignment verdict of every vector access of the kernel and every
/// copy's chunk test, and whether each bounds-checked slice is tested once
/// (isSliceWhole), under `info`: what the lowering decides from divisors.
static SmallVector<bool> loweringFacts(KernelOp kernel,
                                       DivisibilityInfo &info) {
  SmallVector<bool> facts;
  auto slice = [&](RankedTensorType type, Value tensor, ValueRange offsets) {
    auto global = dyn_cast<GlobalTensorType>(tensor.getType());
    if (!global)
      return;
    for (auto [dim, offset] : llvm::enumerate(offsets))
      facts.push_back(
          info.isSliceWhole(offset, global, dim, type.getDimSize(dim)));
  };
  auto access = [&](Value tile, Value tensor, ValueRange offsets) {
    auto type = cast<RankedTensorType>(tile.getType());
    slice(type, tensor, offsets);
    int64_t run = getLayoutRun(tile);
    auto global = dyn_cast<GlobalTensorType>(tensor.getType());
    if (run <= 1 || !global || offsets.empty())
      return;
    bool offsetKnown, rowsKnown;
    info.getRunAlignment(offsets.back(), global, offsets.size(), run,
                         offsetKnown, rowsKnown);
    facts.append({offsetKnown, rowsKnown, info.hasWholeRuns(global, run)});
  };
  kernel.walk([&](Operation *op) {
    if (auto load = dyn_cast<LoadOp>(op))
      access(load.getResult(), load.getSource(), load.getOffsets());
    else if (auto gather = dyn_cast<GatherOp>(op))
      access(gather.getResult(), gather.getSource(), gather.getOffsets());
    else if (auto store = dyn_cast<StoreOp>(op))
      access(store.getValue(), store.getDest(), store.getOffsets());
    else if (auto copy = dyn_cast<CopyOp>(op)) {
      for (auto [side, offsets] :
           {std::pair{copy.getSource(), copy.getSourceOffsets()},
            std::pair{copy.getDest(), copy.getDestOffsets()}}) {
        slice(copy.getBoxType(), side, offsets);
        auto type = dyn_cast<GlobalTensorType>(side.getType());
        int64_t width = copy.getWidth();
        if (width <= 1 || !type || offsets.empty())
          continue;
        facts.append({info.getDivisor(offsets.back()) % width == 0,
                      info.hasWholeRuns(type, width)});
      }
    }
  });
  return facts;
}

bool mlir::tile::divisibilityChangesLowering(KernelOp kernel,
                                             DictionaryAttr divisibility) {
  DivisibilityInfo general(kernel), specialized(kernel, divisibility);
  return loweringFacts(kernel, general) != loweringFacts(kernel, specialized);
}
