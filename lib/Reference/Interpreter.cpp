//===- Interpreter.cpp - the interp backend -------------------------------===//
//
// Plain loops over plain arrays (Value.h). Control flow that depends on
// ctx.thread runs its regions with a mask of the threads that take them, as
// the lowered code does: pure ops compute every element, while var writes,
// stores, and undefined results count only for the active threads (a tile
// element for its thread, e % threads).
//
//===----------------------------------------------------------------------===//

#include "tile/Reference/Interpreter.h"
#include "Value.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Interfaces/LoopLikeInterface.h"
#include "llvm/ADT/TypeSwitch.h"

#include <cmath>

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tile::reference;
namespace rt = ::tile::runtime;

static double toDouble(APFloat value) {
  bool losesInfo;
  value.convert(APFloat::IEEEdouble(), APFloat::rmNearestTiesToEven,
                &losesInfo);
  return value.convertToDouble();
}

static std::optional<rt::DType> toDType(Type type) {
  if (type.isF32())
    return rt::DType::F32;
  if (type.isF16())
    return rt::DType::F16;
  if (type.isBF16())
    return rt::DType::BF16;
  if (type.isInteger(32))
    return rt::DType::I32;
  if (type.isInteger(1))
    return rt::DType::I1;
  if (type.isIndex())
    return rt::DType::Index;
  return std::nullopt;
}

/// Scalars of the element types Val holds, and static tiles of them.
static bool isInterpretable(Type type) {
  if (auto tile = dyn_cast<RankedTensorType>(type)) {
    if (!tile.hasStaticShape())
      return false;
    type = tile.getElementType();
  }
  if (auto integer = dyn_cast<IntegerType>(type))
    return integer.getWidth() <= 64;
  return type.isIndex() || type.isF16() || type.isBF16() || type.isF32() ||
         type.isF64();
}

/// `x` (an f32) rounded to tf32, as a dot of precision tf32 takes its
/// operands: 11 significant bits (10 stored), to nearest with ties away
/// from zero (cvt.rna.tf32.f32); f32's exponent range, so below 2^-126 the
/// step is that of the smallest tf32, 2^-136. Computed on the value, not
/// on its bits, apart from the lowering's rounding.
static double roundToTF32(double x) {
  if (!std::isfinite(x) || x == 0)
    return x;
  int exponent;
  std::frexp(x, &exponent); // |x| = m 2^exponent, m in [0.5, 1)
  double step = std::ldexp(1.0, std::max(exponent - 11, -136));
  return std::round(x / step) * step;
}

static bool anyOf(const ThreadMask &mask) {
  return llvm::any_of(mask, [](uint8_t t) { return t; });
}

//===----------------------------------------------------------------------===//
// The interpreter
//===----------------------------------------------------------------------===//

namespace {
/// A var's content: none until first written; `written` (per thread) while
/// only some threads have written it.
struct VarState {
  std::optional<Val> value;
  ThreadMask written;
};

class Interpreter {
public:
  Interpreter(KernelOp kernel, const InterpOptions &options,
              InterpReport &report)
      : kernel(kernel), options(options), report(report),
        threads(kernel.getThreads()) {}

  LogicalResult run(ArrayRef<rt::HostTensor *> args,
                    rt::SymbolBindings &symbols);

private:
  FailureOr<SmallVector<Val>> runBlock(Block &block, ArrayRef<Val> args);
  /// runBlock with the threads of `mask` active (empty: every thread), and
  /// under a thresholded condition when `thresholded`.
  FailureOr<SmallVector<Val>> runBlockUnder(Block &block, ArrayRef<Val> args,
                                            ThreadMask mask, bool thresholded);
  LogicalResult execute(Operation &op);
  LogicalResult executeElementwise(Operation &op,
                                   const ElementwiseOp &elementwise);
  LogicalResult executeConstant(arith::ConstantOp op);
  /// Loads (`stored` null; elements outside the tensor read `other`, or 0)
  /// or stores (where `mask` holds, if given) the slice of `tensor` at
  /// `offsets` with the tile's shape; in the dimensions `indexDims`, each
  /// element's coordinate adds its (broadcast) element of the index tile
  /// `indices[k]` instead of its own position (a gather or scatter). A
  /// load goes to `loaded`, or to the op's result. Element `e` is the work
  /// of thread `(e / width) % threads` (a copy's chunks of `width`; 1 for
  /// slices).
  LogicalResult executeSlice(Operation &op, Value tensor, ValueRange offsets,
                             RankedTensorType tileType, const Val *stored,
                             const Val *other = nullptr,
                             const Val *mask = nullptr, int64_t width = 1,
                             Val *loaded = nullptr, ValueRange indices = {},
                             ArrayRef<int64_t> indexDims = {},
                             std::optional<AtomicKind> atomic = std::nullopt);
  LogicalResult executeCopy(CopyOp copy);
  /// The mark of tensor element `element` (parameter, linear index) after
  /// element `e` of `stored` updated it atomically from `before` to
  /// `after`, with what earlier updates of it left (atomicUpdates).
  rt::ElementMark markAtomicUpdate(std::pair<unsigned, int64_t> element,
                                   AtomicKind kind, const Val &stored, size_t e,
                                   bool thresholded, rt::ElementMark previous,
                                   double before, double after);
  /// The state of the var or ring stage `handle` names, or null after an
  /// error at `op` when none was made.
  VarState *stateOf(Operation &op, Value handle, bool create = false);
  LogicalResult executeIf(scf::IfOp op);
  LogicalResult executeFor(scf::ForOp op);
  LogicalResult executeForPerThread(scf::ForOp op);
  LogicalResult executeWhile(scf::WhileOp op);
  LogicalResult executeTileOp(Operation &op);
  LogicalResult writeVar(Value var, Val value);
  LogicalResult readVar(ReadOp read);

  /// Counts one op and the elements it computes; fails once the run has
  /// taken too many of either.
  LogicalResult tick(Operation *op, int64_t opElements = 1);
  /// An error at `op` about the kernel itself (undefined behaviour on these
  /// inputs, a run that does not end), not about what the interpreter
  /// supports: the run is a fault of the kernel.
  InFlightDiagnostic fault(Operation *op) {
    report.fault = true;
    return op->emitError();
  }
  /// A kernel fault unless every element of `value` that an active thread
  /// uses is defined: `what` (say, "the condition of 'scf.if'") would be
  /// computed from memory nothing wrote.
  LogicalResult requireDefined(Operation *op, const Val &value,
                               const Twine &what);
  InFlightDiagnostic undefinedUse(Operation *op, const Val &value,
                                  const Twine &what);
  /// `value` as read from var `var`: its elements nothing wrote, if any,
  /// named by their first (`elements`: the var's element of each of the
  /// value's; empty: the same).
  void noteOrigin(Val &value, Operation &read, Value var,
                  ArrayRef<int64_t> elements = {});
  bool isActive(int64_t thread) const {
    return active.empty() || active[thread];
  }
  /// The active threads as a mask with an entry per thread.
  ThreadMask activeMask() const {
    return active.empty() ? ThreadMask(threads, 1) : active;
  }
  const Val &get(Value value) { return values.find(value)->second; }
  void set(Value value, Val val) { values[value] = std::move(val); }
  /// The buffer of a kernel parameter, or an error when `value` is none.
  rt::HostTensor *getTensor(Operation &op, Value value) {
    rt::HostTensor *tensor = tensors.lookup(value);
    if (!tensor)
      op.emitError("the interp backend needs a kernel parameter here");
    return tensor;
  }

  KernelOp kernel;
  const InterpOptions &options;
  InterpReport &report;
  int64_t threads;
  uint64_t steps = 0;
  uint64_t elements = 0;
  /// The element budget of this launch (InterpOptions::elementsPerCTA).
  uint64_t maxElements = 0;
  /// The steps and elements when the current CTA started, and the CTAs
  /// started so far (tick's diagnosis).
  uint64_t ctaStartSteps = 0, ctaStartElements = 0;
  int64_t ctasStarted = 0;
  std::array<int64_t, 3> grid = {1, 1, 1};
  std::array<int64_t, 3> blockId = {0, 0, 0};
  DenseMap<Value, Val> values;
  DenseMap<Value, VarState> vars;
  /// The stages of each ring, and the stage each tile.stage last named.
  DenseMap<Value, SmallVector<VarState>> rings;
  DenseMap<Value, int64_t> stageIndex;
  DenseMap<Value, rt::HostTensor *> tensors;
  DenseMap<Value, unsigned> paramIndex;
  /// The scalar parameters and their values.
  SmallVector<std::pair<Value, Val>> scalarArgs;
  /// The threads running the current region; empty: all of them.
  ThreadMask active;
  /// The current region runs under a thresholded condition: what it writes
  /// is thresholded.
  bool controlThresholded = false;
  /// What the float atomic updates of a tensor element (parameter, linear
  /// index) so far add up to, for its error bound: the GPU applies them in
  /// an order of its own.
  struct AtomicUpdates {
    unsigned updates = 0;
    Accuracy accuracy = Accuracy::Exact;
    /// The magnitudes of the first value and of every term (add).
    double magnitude = 0;
    /// The absolute error of the first value and the terms: their sum
    /// (add), the largest (max, min).
    double error = 0;
    bool thresholded = false, unchecked = false;
  };
  DenseMap<std::pair<unsigned, int64_t>, AtomicUpdates> atomicUpdates;
};
} // namespace

LogicalResult Interpreter::tick(Operation *op, int64_t opElements) {
  elements += opElements;
  if (++steps <= options.maxSteps && elements <= maxElements)
    return success();
  bool inLoop = isa<LoopLikeOpInterface>(op) ||
                op->getParentOfType<LoopLikeOpInterface>();
  // Not fault(): a budget says how long the reference may run, not whether
  // the kernel is right.
  report.budgetExhausted = true;
  InFlightDiagnostic diag = op->emitError();
  if (steps > options.maxSteps)
    diag << "the interp backend stopped after " << options.maxSteps
         << " operations (InterpOptions::maxSteps)";
  else
    diag << "the interp backend stopped after computing " << maxElements
         << " tile elements (InterpOptions::maxElements)";
  // A loop is suspect only where this CTA took most of the budget; a
  // launch of many short CTAs is too large, not endless.
  bool thisCTA = (steps - ctaStartSteps) * 2 > options.maxSteps ||
                 (elements - ctaStartElements) * 2 > maxElements;
  int64_t ctas = grid[0] * grid[1] * grid[2];
  if (inLoop && thisCTA)
    diag << ": does a loop never end?";
  else if (ctas > 1 && !thisCTA)
    diag << ": the launch of " << grid[0] << " x " << grid[1] << " x "
         << grid[2] << " CTAs is too large for the reference's budget ("
         << ctasStarted << " CTAs ran); choose smaller sizes";
  else if (ctas > 1)
    diag << ": the kernel's tiles, or its grid of " << grid[0] << " x "
         << grid[1] << " x " << grid[2] << " CTAs, are too large for it";
  else
    diag << ": the kernel's tiles are too large for it";
  return diag;
}

InFlightDiagnostic Interpreter::undefinedUse(Operation *op, const Val &value,
                                             const Twine &what) {
  InFlightDiagnostic diag = fault(op);
  diag << what << " is computed from memory that nothing wrote";
  if (value.origin) {
    diag << ": " << value.origin->what;
    diag.attachNote(value.origin->read) << "read here";
  }
  return diag;
}

LogicalResult Interpreter::requireDefined(Operation *op, const Val &value,
                                          const Twine &what) {
  for (size_t i = 0, e = value.undefined.size(); i < e; ++i)
    if (value.undefined[i] && (!value.perThread || isActive(i)))
      return undefinedUse(op, value, what);
  return success();
}

void Interpreter::noteOrigin(Val &value, Operation &read, Value var,
                             ArrayRef<int64_t> elements) {
  if (value.origin || !value.anyUndefined())
    return;
  size_t first = std::find(value.undefined.begin(), value.undefined.end(), 1) -
                 value.undefined.begin();
  ArrayRef<int64_t> shape = cast<VarType>(var.getType()).getShape();
  int64_t element = elements.empty() ? first : elements[first];
  auto origin = std::make_shared<UndefinedOrigin>(
      UndefinedOrigin{("var '" + getVarOp(var).getName() +
                       "' was read before anything wrote its element " +
                       rt::formatIndex(shape.vec(), element))
                          .str(),
                      read.getLoc()});
  value.origin = std::move(origin);
}

FailureOr<SmallVector<Val>> Interpreter::runBlock(Block &block,
                                                  ArrayRef<Val> args) {
  for (auto [arg, val] : llvm::zip(block.getArguments(), args))
    set(arg, val);
  for (Operation &op : block.without_terminator())
    if (failed(execute(op)))
      return failure();
  SmallVector<Val> results;
  for (Value operand : block.getTerminator()->getOperands())
    results.push_back(get(operand));
  return results;
}

FailureOr<SmallVector<Val>> Interpreter::runBlockUnder(Block &block,
                                                       ArrayRef<Val> args,
                                                       ThreadMask mask,
                                                       bool thresholded) {
  std::swap(active, mask);
  bool outerThresholded = controlThresholded;
  controlThresholded |= thresholded;
  FailureOr<SmallVector<Val>> results = runBlock(block, args);
  controlThresholded = outerThresholded;
  std::swap(active, mask);
  return results;
}

LogicalResult Interpreter::execute(Operation &op) {
  int64_t opElements = 1;
  for (Type type :
       llvm::concat<const Type>(op.getOperandTypes(), op.getResultTypes()))
    if (auto tile = dyn_cast<RankedTensorType>(type))
      opElements = std::max(opElements, tile.getNumElements());
  if (failed(tick(&op, opElements)))
    return failure();
  // Values of an op the interpreter skipped would be missing: refuse
  // rather than read garbage.
  for (Value operand : op.getOperands())
    if (!isa<GlobalTensorType, VarType>(operand.getType()) &&
        !values.count(operand))
      return op.emitError("the interp backend has no value for an operand "
                          "of '")
             << op.getName() << "'";
  for (Type type : op.getResultTypes())
    if (!isa<VarType>(type) && !isInterpretable(type))
      return op.emitError("the interp backend does not support values of "
                          "type ")
             << type;

  if (auto constant = dyn_cast<arith::ConstantOp>(op))
    return executeConstant(constant);
  if (auto forOp = dyn_cast<scf::ForOp>(op))
    return executeFor(forOp);
  if (auto whileOp = dyn_cast<scf::WhileOp>(op))
    return executeWhile(whileOp);
  if (auto ifOp = dyn_cast<scf::IfOp>(op))
    return executeIf(ifOp);
  if (isa<TileDialect>(op.getDialect()))
    return executeTileOp(op);
  if (std::optional<ElementwiseOp> elementwise = ElementwiseOp::get(op))
    return executeElementwise(op, *elementwise);
  return op.emitError("the interp backend does not support '")
         << op.getName() << "'";
}

LogicalResult Interpreter::executeConstant(arith::ConstantOp op) {
  Val val = Val::zeros(op.getType());
  Attribute value = op.getValue();
  if (auto dense = dyn_cast<DenseElementsAttr>(value)) {
    if (val.isFloat) {
      size_t i = 0;
      for (APFloat element : dense.getValues<APFloat>())
        val.floats[i++] = toDouble(element);
    } else {
      size_t i = 0;
      for (APInt element : dense.getValues<APInt>())
        val.setInt(i++, element.getSExtValue());
    }
  } else if (auto floatAttr = dyn_cast<FloatAttr>(value)) {
    val.floats[0] = toDouble(floatAttr.getValue());
  } else if (auto intAttr = dyn_cast<IntegerAttr>(value)) {
    val.setInt(0, intAttr.getValue().getSExtValue());
  } else {
    return op.emitError("the interp backend does not support the constant ")
           << value;
  }
  set(op.getResult(), std::move(val));
  return success();
}

LogicalResult
Interpreter::executeElementwise(Operation &op,
                                const ElementwiseOp &elementwise) {
  Type resultType = op.getResult(0).getType();
  SmallVector<const Val *, 3> operands;
  for (Value operand : op.getOperands())
    operands.push_back(&get(operand));
  bool tile = isa<RankedTensorType>(resultType);
  bool perThread = !tile && llvm::any_of(operands, [](const Val *operand) {
    return operand->perThread;
  });
  Val result = Val::zeros(resultType, perThread ? threads : 0);
  // How exactly a backend must reproduce it (Check.h). An add of a product
  // may be one fused multiply-add in the compiled code.
  Accuracy accuracy = Accuracy::Exact;
  bool ofProduct = false;
  for (const Val *operand : operands) {
    accuracy = rt::loosest(accuracy, operand->accuracy);
    result.thresholded |= operand->thresholded;
    ofProduct |= operand->product;
  }
  // A division may be approximate: every f32 one with fp-div=full
  // (div.full.f32), and one that carries `afn`.
  auto division = dyn_cast<arith::DivFOp>(op);
  bool approximated =
      (options.compiled.contract && ofProduct &&
       isa<arith::AddFOp, arith::SubFOp>(op)) ||
      (division &&
       ((options.compiled.division == rt::FloatDivision::Full &&
         result.elementType.isF32()) ||
        bitEnumContainsAll(division.getFastmath(), arith::FastMathFlags::afn)));
  result.product = isa<arith::MulFOp>(op) ||
                   (isa<arith::NegFOp>(op) && operands[0]->product);
  if ((elementwise.getResultAccuracy() == ResultAccuracy::Inexact ||
       approximated) &&
      result.isFloat)
    accuracy = rt::loosest(accuracy, accuracyOfType(result.elementType));
  if (elementwise.getResultAccuracy() == ResultAccuracy::Threshold &&
      accuracy != Accuracy::Exact)
    result.thresholded = true;
  if (result.isFloat && accuracy != Accuracy::Exact)
    result.accuracy = rt::loosest(accuracy, accuracyOfType(result.elementType));
  bool bounded = result.isFloat && result.accuracy != Accuracy::Exact;

  SmallVector<size_t, 3> indices(operands.size());
  // Of an element nothing wrote the result is one too (a select's, of its
  // condition or the operand it picks).
  bool anyUndefined = llvm::any_of(
      operands, [](const Val *operand) { return operand->anyUndefined(); });
  bool isSelect = isa<arith::SelectOp>(op);
  for (size_t i = 0, e = result.size(); i < e; ++i) {
    for (auto [index, operand] : llvm::zip(indices, operands))
      index = operand->indexFor(i, tile, threads);
    bool undefined = false;
    for (auto [k, operand] : llvm::enumerate(operands)) {
      if (!anyUndefined || undefined)
        break;
      bool picked = !isSelect || k == 0 ||
                    (k == 1) == (operands[0]->ints[indices[0]] != 0);
      if (picked && operand->isUndefined(indices[k])) {
        result.setUndefined(i, true, operand->origin);
        undefined = true;
      }
    }
    if (elementwise.apply(result, i, operands, indices)) {
      // How far a correct kernel's element may be, from its operands'.
      if (bounded)
        result.setError(
            i, elementwise.errorOf(result, i, operands, indices, approximated));
      continue;
    }
    // Undefined only matters where a thread that runs the op computes it,
    // and from elements something wrote.
    if (undefined || ((tile || perThread) && !isActive(i % threads)))
      continue;
    InFlightDiagnostic diag = fault(&op);
    if (isa<arith::FPToSIOp, arith::FPToUIOp>(op))
      diag << "'" << op.getName() << "' of " << operands[0]->floats[indices[0]]
           << " (element " << i << ") is out of range for "
           << result.elementType;
    else
      diag << "'" << op.getName() << "' is undefined for "
           << operands[0]->ints[indices[0]] << " and "
           << operands[1]->ints[indices[1]] << " (element " << i
           << "): division by zero, overflow or a shift too far";
    return diag;
  }
  set(op.getResult(0), std::move(result));
  return success();
}

//===----------------------------------------------------------------------===//
// Control flow
//===----------------------------------------------------------------------===//

LogicalResult Interpreter::executeIf(scf::IfOp op) {
  const Val &condition = get(op.getCondition());
  if (failed(requireDefined(op, condition, "the condition of 'scf.if'")))
    return failure();
  bool thresholded = condition.thresholded;
  std::optional<SmallVector<Val>> thenValues, elseValues;
  ThreadMask takesThen;
  if (condition.isUniform()) {
    Region &region =
        condition.scalarInt() ? op.getThenRegion() : op.getElseRegion();
    if (region.empty())
      return success();
    FailureOr<SmallVector<Val>> results =
        runBlockUnder(region.front(), {}, active, thresholded);
    if (failed(results))
      return failure();
    thenValues = std::move(*results);
  } else {
    // Each thread takes its own branch.
    ThreadMask thenMask(threads), elseMask(threads);
    takesThen.assign(threads, 0);
    for (int64_t t = 0; t < threads; ++t) {
      takesThen[t] = condition.ints[t] != 0;
      thenMask[t] = isActive(t) && takesThen[t];
      elseMask[t] = isActive(t) && !takesThen[t];
    }
    if (anyOf(thenMask)) {
      FailureOr<SmallVector<Val>> results = runBlockUnder(
          op.getThenRegion().front(), {}, std::move(thenMask), thresholded);
      if (failed(results))
        return failure();
      thenValues = std::move(*results);
    }
    if (!op.getElseRegion().empty() && anyOf(elseMask)) {
      FailureOr<SmallVector<Val>> results = runBlockUnder(
          op.getElseRegion().front(), {}, std::move(elseMask), thresholded);
      if (failed(results))
        return failure();
      elseValues = std::move(*results);
    }
  }
  for (auto [index, result] : llvm::enumerate(op.getResults())) {
    Val value = thenValues && elseValues
                    ? mergeByThread((*elseValues)[index], (*thenValues)[index],
                                    takesThen, threads)
                : thenValues ? (*thenValues)[index]
                             : (*elseValues)[index];
    value.thresholded |= thresholded;
    set(result, std::move(value));
  }
  return success();
}

LogicalResult Interpreter::executeFor(scf::ForOp op) {
  const Val &lowerVal = get(op.getLowerBound()),
            &upperVal = get(op.getUpperBound()), &stepVal = get(op.getStep());
  for (const Val *bound : {&lowerVal, &upperVal, &stepVal})
    if (failed(requireDefined(op, *bound, "a bound of 'scf.for'")))
      return failure();
  if (!lowerVal.isUniform() || !upperVal.isUniform() || !stepVal.isUniform())
    return executeForPerThread(op);
  bool thresholded =
      lowerVal.thresholded || upperVal.thresholded || stepVal.thresholded;
  int64_t lower = lowerVal.scalarInt(), upper = upperVal.scalarInt(),
          step = stepVal.scalarInt();
  unsigned width = intWidth(op.getInductionVar().getType());
  if (step <= 0)
    return fault(op) << "scf.for step must be positive, got " << step;
  SmallVector<Val> carried;
  for (Value init : op.getInitArgs())
    carried.push_back(get(init));
  for (int64_t iv = lower;
       op.getUnsignedCmp() ? zeroExtend(iv, width) < zeroExtend(upper, width)
                           : iv < upper;) {
    if (failed(tick(op)))
      return failure();
    Val ivVal = Val::zeros(op.getInductionVar().getType());
    ivVal.ints[0] = iv;
    ivVal.thresholded = thresholded;
    SmallVector<Val> args = {std::move(ivVal)};
    args.append(carried.begin(), carried.end());
    FailureOr<SmallVector<Val>> yielded =
        runBlockUnder(*op.getBody(), args, active, thresholded);
    if (failed(yielded))
      return failure();
    carried = std::move(*yielded);
    int64_t next = wrap(static_cast<uint64_t>(iv) + step, width);
    if (next <= iv && !op.getUnsignedCmp())
      break; // the step overflowed past the type's end
    iv = next;
  }
  for (auto [result, val] : llvm::zip(op.getResults(), carried)) {
    val.thresholded |= thresholded;
    set(result, std::move(val));
  }
  return success();
}

/// A loop whose bounds differ by thread: each thread runs its own
/// iterations, the loop as long as one thread does.
LogicalResult Interpreter::executeForPerThread(scf::ForOp op) {
  const Val &lowerVal = get(op.getLowerBound()),
            &upperVal = get(op.getUpperBound()), &stepVal = get(op.getStep());
  bool thresholded =
      lowerVal.thresholded || upperVal.thresholded || stepVal.thresholded;
  unsigned width = intWidth(op.getInductionVar().getType());
  bool isUnsigned = op.getUnsignedCmp();
  auto below = [&](int64_t iv, int64_t upper) {
    return isUnsigned ? zeroExtend(iv, width) < zeroExtend(upper, width)
                      : iv < upper;
  };
  std::vector<int64_t> iv(threads), upper(threads), step(threads);
  ThreadMask running(threads);
  for (int64_t t = 0; t < threads; ++t) {
    iv[t] = lowerVal.ints[lowerVal.indexFor(t, false, threads)];
    upper[t] = upperVal.ints[upperVal.indexFor(t, false, threads)];
    step[t] = stepVal.ints[stepVal.indexFor(t, false, threads)];
    running[t] = isActive(t) && below(iv[t], upper[t]);
    if (isActive(t) && step[t] <= 0)
      return fault(op) << "scf.for step must be positive, got " << step[t]
                       << " (thread " << t << ")";
  }
  SmallVector<Val> carried;
  for (Value init : op.getInitArgs())
    carried.push_back(get(init));
  while (anyOf(running)) {
    if (failed(tick(op)))
      return failure();
    Val ivVal = Val::zeros(op.getInductionVar().getType(), threads);
    ivVal.ints = iv;
    ivVal.thresholded = thresholded;
    SmallVector<Val> args = {std::move(ivVal)};
    args.append(carried.begin(), carried.end());
    FailureOr<SmallVector<Val>> yielded =
        runBlockUnder(*op.getBody(), args, running, thresholded);
    if (failed(yielded))
      return failure();
    for (auto [value, next] : llvm::zip(carried, *yielded))
      value = mergeByThread(value, next, running, threads);
    for (int64_t t = 0; t < threads; ++t) {
      if (!running[t])
        continue;
      int64_t next = wrap(static_cast<uint64_t>(iv[t]) + step[t], width);
      running[t] = (next > iv[t] || isUnsigned) && below(next, upper[t]);
      iv[t] = next;
    }
  }
  for (auto [result, val] : llvm::zip(op.getResults(), carried)) {
    val.thresholded |= thresholded;
    set(result, std::move(val));
  }
  return success();
}

LogicalResult Interpreter::executeWhile(scf::WhileOp op) {
  SmallVector<Val> carried;
  for (Value init : op.getInits())
    carried.push_back(get(init));
  // Each thread leaves when its condition fails, with the values it passed.
  ThreadMask running = activeMask();
  std::optional<SmallVector<Val>> results;
  bool thresholded = false;
  while (true) {
    if (failed(tick(op)))
      return failure();
    // scf.condition's operands: the condition, then the values passed on.
    FailureOr<SmallVector<Val>> before =
        runBlockUnder(op.getBefore().front(), carried, running, thresholded);
    if (failed(before))
      return failure();
    const Val &condition = before->front();
    std::swap(active, running);
    LogicalResult defined =
        requireDefined(op, condition, "the condition of 'scf.while'");
    std::swap(active, running);
    if (failed(defined))
      return failure();
    thresholded |= condition.thresholded;
    SmallVector<Val> passed(std::make_move_iterator(before->begin() + 1),
                            std::make_move_iterator(before->end()));
    ThreadMask leaving(threads), staying(threads);
    for (int64_t t = 0; t < threads; ++t) {
      bool proceed = condition.ints[condition.indexFor(t, false, threads)] != 0;
      leaving[t] = running[t] && !proceed;
      staying[t] = running[t] && proceed;
    }
    if (anyOf(leaving)) {
      if (!results)
        results = passed;
      else
        for (auto [result, value] : llvm::zip(*results, passed))
          result = mergeByThread(result, value, leaving, threads);
    }
    if (!anyOf(staying))
      break;
    running = std::move(staying);
    FailureOr<SmallVector<Val>> after =
        runBlockUnder(op.getAfter().front(), passed, running, thresholded);
    if (failed(after))
      return failure();
    carried = std::move(*after);
  }
  for (auto [result, val] : llvm::zip(op.getResults(), *results)) {
    val.thresholded |= thresholded;
    set(result, std::move(val));
  }
  return success();
}

//===----------------------------------------------------------------------===//
// Tile ops
//===----------------------------------------------------------------------===//

/// Loads (`stored` null) or stores the slice of `tensor` at `offsets` with
/// the tile's shape; elements outside the tensor read 0 and are dropped on
/// store. Each element uses its thread's offsets.
LogicalResult Interpreter::executeSlice(
    Operation &op, Value tensorValue, ValueRange offsetValues,
    RankedTensorType tileType, const Val *stored, const Val *other,
    const Val *mask, int64_t width, Val *loadedOut, ValueRange indices,
    ArrayRef<int64_t> indexDims, std::optional<AtomicKind> atomic) {
  rt::HostTensor *tensor = getTensor(op, tensorValue);
  if (!tensor)
    return failure();
  SmallVector<const Val *> offsets;
  bool offsetsThresholded = false;
  for (Value offset : offsetValues) {
    offsets.push_back(&get(offset));
    offsetsThresholded |= offsets.back()->thresholded;
    if (failed(requireDefined(&op, *offsets.back(),
                              "an offset of '" + op.getName().getStringRef() +
                                  "'")))
      return failure();
  }
  // The index tile of each dimension, or null.
  SmallVector<const Val *> indexOf(offsets.size(), nullptr);
  for (auto [index, dim] : llvm::zip(indices, indexDims)) {
    indexOf[dim] = &get(index);
    offsetsThresholded |= indexOf[dim]->thresholded;
  }
  // A scatter's targets, to catch two elements reaching one: the element
  // of the tile that first wrote each.
  DenseMap<int64_t, int64_t> scattered;
  std::vector<rt::ElementMark> *marks = nullptr;
  if (stored && !report.marks.empty())
    marks = &report.marks[paramIndex.lookup(tensorValue)];
  rt::ElementMark mark;
  // An element stored under a mask of an inexact comparison is thresholded
  // like one under such control flow.
  Accuracy storedAccuracy = stored ? stored->accuracy : Accuracy::Exact;
  bool storedThresholded =
      stored && (stored->thresholded || offsetsThresholded ||
                 controlThresholded || (mask && mask->thresholded));
  if (stored)
    mark = rt::ElementMark::written(storedAccuracy, storedThresholded);
  Val loaded = Val::zeros(tileType);
  loaded.thresholded = offsetsThresholded;
  if (other) {
    // Per thread when `other` is: each element takes its thread's value.
    for (size_t e = 0; e < loaded.size(); ++e)
      loaded.copyElement(e, *other, other->indexFor(e, true, threads));
    loaded.accuracy = other->accuracy;
    loaded.thresholded |= other->thresholded;
  }
  ArrayRef<int64_t> tileShape = tileType.getShape();
  int64_t rank = tileShape.size();
  for (int64_t e = 0; e < tileType.getNumElements(); ++e) {
    if (stored && !isActive((e / width) % threads))
      continue;
    // Row-major position of element e in the tile, then in the tensor.
    SmallVector<int64_t> coords(rank);
    for (int64_t dim = rank - 1, remaining = e; dim >= 0; --dim) {
      coords[dim] = remaining % tileShape[dim];
      remaining /= tileShape[dim];
    }
    int64_t linear = 0;
    bool inside = true;
    for (int64_t dim = rank - 1, stride = 1; dim >= 0; --dim) {
      const Val &offset = *offsets[dim];
      int64_t local = coords[dim];
      if (const Val *index = indexOf[dim]) {
        // Its element at e's position, size-1 dimensions broadcast.
        int64_t at = 0;
        for (int64_t d = 0; d < rank; ++d)
          at = at * index->shape[d] + (index->shape[d] == 1 ? 0 : coords[d]);
        local = index->ints[at];
        if (index->isUndefined(at))
          return undefinedUse(
              &op, *index,
              "index " +
                  rt::formatIndex({index->shape.begin(), index->shape.end()},
                                  at) +
                  " of '" + op.getName().getStringRef() + "'");
      }
      int64_t position;
      if (__builtin_add_overflow(offset.ints[offset.indexFor(e, true, threads)],
                                 local, &position) ||
          position < 0 || position >= tensor->shape[dim])
        inside = false;
      else
        linear += position * stride;
      stride *= tensor->shape[dim];
    }
    if (mask && mask->isUndefined(e))
      return undefinedUse(&op, *mask,
                          "mask element " +
                              rt::formatIndex(tileShape.vec(), e) + " of '" +
                              op.getName().getStringRef() + "'");
    if (!inside || (mask && mask->ints[e] == 0))
      continue;
    if (stored && !indices.empty() && !atomic) {
      auto [first, isNew] = scattered.try_emplace(linear, e);
      if (!isNew)
        return fault(&op) << "scatter writes element "
                          << rt::formatIndex(tensor->shape, linear) << " of '"
                          << kernel.getParamName(paramIndex.lookup(tensorValue))
                          << "' from elements "
                          << rt::formatIndex(tileShape.vec(), first->second)
                          << " and " << rt::formatIndex(tileShape.vec(), e)
                          << " of the tile: which one lands is undefined";
    }
    if (stored && stored->isUndefined(e))
      return undefinedUse(
          &op, *stored,
          "the value written to element " +
              rt::formatIndex(tensor->shape, linear) + " of '" +
              kernel.getParamName(paramIndex.lookup(tensorValue)) + "'");
    if (stored) {
      double value = stored->isFloat ? stored->floats[e]
                                     : static_cast<double>(stored->ints[e]);
      double current = tensor->get(linear);
      if (atomic) {
        // One read-modify-write, rounded (or wrapped) to the tensor's type.
        if (*atomic == AtomicKind::add)
          value += current;
        else if (stored->isFloat)
          value = *atomic == AtomicKind::max ? std::fmax(current, value)
                                             : std::fmin(current, value);
        else
          value = *atomic == AtomicKind::max ? std::max(current, value)
                                             : std::min(current, value);
      }
      tensor->set(linear, value);
      if (!marks)
        continue;
      unsigned param = paramIndex.lookup(tensorValue);
      if (atomic && stored->isFloat) {
        (*marks)[linear] = markAtomicUpdate(
            {param, linear}, *atomic, *stored, e, storedThresholded,
            (*marks)[linear], current, tensor->get(linear));
        continue;
      }
      atomicUpdates.erase(std::make_pair(param, linear)); // starts over
      if (stored->isFloat &&
          isUncheckedError(errorBound(*stored, e, storedAccuracy)))
        (*marks)[linear] = rt::ElementMark::unchecked();
      else
        (*marks)[linear] =
            storedAccuracy == Accuracy::Exact
                ? mark
                : rt::ElementMark::written(
                      storedAccuracy, storedThresholded,
                      amplificationOf(errorBound(*stored, e, storedAccuracy),
                                      stored->floats[e], storedAccuracy));
    } else if (loaded.isFloat) {
      loaded.floats[e] = tensor->get(linear);
      loaded.setUndefined(e, false, nullptr);
      if (!loaded.errors.empty())
        loaded.setError(e, 0);
    } else {
      loaded.setInt(e, static_cast<int64_t>(tensor->get(linear)));
      loaded.setUndefined(e, false, nullptr);
    }
  }
  if (loadedOut)
    *loadedOut = std::move(loaded);
  else if (!stored)
    set(op.getResult(0), std::move(loaded));
  return success();
}

rt::ElementMark
Interpreter::markAtomicUpdate(std::pair<unsigned, int64_t> element,
                              AtomicKind kind, const Val &stored, size_t e,
                              bool thresholded, rt::ElementMark previous,
                              double before, double after) {
  auto [updates, first] = atomicUpdates.try_emplace(element);
  AtomicUpdates &state = updates->second;
  if (first && previous.isWritten()) {
    // What was there: its own bound, as absolute error.
    state.unchecked = previous.isUnchecked();
    state.thresholded = previous.isThresholded();
    state.accuracy = previous.getAccuracy();
    if (!state.unchecked && state.accuracy != Accuracy::Exact)
      state.error = previous.isUnbounded()
                        ? INFINITY
                        : std::ldexp(rt::relativeTolerance(state.accuracy),
                                     previous.getAmplification()) *
                              std::fabs(before);
  }
  if (first)
    state.magnitude = std::fabs(before);
  ++state.updates;
  state.thresholded |= thresholded;
  state.accuracy = rt::loosest(state.accuracy, stored.accuracy);
  double termError = errorBound(stored, e, stored.accuracy) *
                     rt::relativeTolerance(stored.accuracy);
  state.unchecked |= isUncheckedError(termError);
  double term = stored.floats[e];
  if (kind == AtomicKind::add) {
    state.magnitude += std::fabs(term);
    state.error += termError;
  } else {
    // A maximum or minimum is as far off as the farthest of its terms.
    state.error = std::max(state.error, termError);
  }
  if (state.unchecked)
    return rt::ElementMark::unchecked();
  // One update rounds once, as the reference does; more round in the
  // order they come, which may be any: one tolerance of their magnitudes,
  // as a sum's. Past the type's range that order decides which overflow.
  Accuracy accuracy = state.accuracy;
  double error = state.error;
  if (kind == AtomicKind::add && state.updates > 1) {
    if (mayOverflow(state.magnitude, stored.elementType))
      return rt::ElementMark::unchecked();
    accuracy = rt::loosest(accuracy, accuracyOfType(stored.elementType));
    error += rt::relativeTolerance(accuracy) * state.magnitude;
  }
  if (accuracy == Accuracy::Exact)
    return rt::ElementMark::written(Accuracy::Exact, state.thresholded);
  double units = error / rt::relativeTolerance(accuracy);
  if (kind == AtomicKind::add && state.updates > 1)
    units = std::max(units, ownError(after, accuracy, true));
  return rt::ElementMark::written(accuracy, state.thresholded,
                                  amplificationOf(units, after, accuracy));
}

VarState *Interpreter::stateOf(Operation &op, Value handle, bool create) {
  if (auto stage = handle.getDefiningOp<StageOp>()) {
    auto ring = rings.find(stage.getRing());
    auto index = stageIndex.find(handle);
    if (ring != rings.end() && index != stageIndex.end())
      return &ring->second[index->second];
  } else if (auto found = vars.find(handle); found != vars.end()) {
    return &found->second;
  } else if (create && handle.getDefiningOp<VarOp>()) {
    return &vars[handle];
  }
  op.emitError("the interp backend accesses only vars made by tile.var and "
               "stages made by tile.stage");
  return nullptr;
}

LogicalResult Interpreter::executeCopy(CopyOp copy) {
  Operation &op = *copy;
  RankedTensorType box = copy.getBoxType();
  int64_t width = copy.getWidth();
  const Val *mask = copy.getMask() ? &get(copy.getMask()) : nullptr;
  // A box of a var at uniform offsets, as flat element indices of the var.
  auto varElements =
      [&](Value handle, ValueRange offsets) -> FailureOr<SmallVector<int64_t>> {
    ArrayRef<int64_t> dims = cast<VarType>(handle.getType()).getShape();
    SmallVector<int64_t> start;
    for (auto [dim, offset] : llvm::enumerate(offsets)) {
      const Val &value = get(offset);
      if (failed(requireDefined(&op, value, "an offset of 'tile.copy'")))
        return failure();
      if (!value.isUniform())
        return op.emitError("the interp backend needs the offsets into a "
                            "var to be the same in every thread");
      // start > size - extent: start + extent overflowed for a start near
      // 2^63 and the box passed (utils/fuzz.py seed 104, iteration 28756).
      if (value.scalarInt() < 0 ||
          value.scalarInt() > dims[dim] - box.getDimSize(dim))
        return fault(&op) << "the box [" << value.scalarInt() << " :+ "
                          << box.getDimSize(dim) << "] in dimension " << dim
                          << " is outside the var of size " << dims[dim];
      start.push_back(value.scalarInt());
    }
    SmallVector<int64_t> elements;
    for (int64_t e = 0; e < box.getNumElements(); ++e) {
      int64_t remaining = e, linear = 0, stride = 1;
      for (int64_t dim = box.getRank() - 1; dim >= 0; --dim) {
        linear += (start[dim] + remaining % box.getDimSize(dim)) * stride;
        stride *= dims[dim];
        remaining /= box.getDimSize(dim);
      }
      elements.push_back(linear);
    }
    return elements;
  };

  // The var side's state and the elements of its box.
  struct VarBox {
    VarState *state;
    SmallVector<int64_t> elements;
  };
  auto varBox = [&](Value handle, ValueRange offsets) -> FailureOr<VarBox> {
    VarState *state = stateOf(op, handle);
    if (!state)
      return failure();
    FailureOr<SmallVector<int64_t>> elements = varElements(handle, offsets);
    if (failed(elements))
      return failure();
    return VarBox{state, std::move(*elements)};
  };

  Val moved = Val::zeros(box);
  if (isa<GlobalTensorType>(copy.getSource().getType())) {
    if (failed(executeSlice(op, copy.getSource(), copy.getSourceOffsets(), box,
                            nullptr, nullptr, nullptr, width, &moved)))
      return failure();
  } else {
    FailureOr<VarBox> from = varBox(copy.getSource(), copy.getSourceOffsets());
    if (failed(from))
      return failure();
    const VarState &state = *from->state;
    if (!state.value || !state.written.empty())
      return fault(&op) << "copies from var '"
                        << getVarOp(copy.getSource()).getName()
                        << "' before every thread wrote it";
    for (auto [e, element] : llvm::enumerate(from->elements))
      moved.copyElement(e, *state.value, element);
    noteOrigin(moved, op, copy.getSource(), from->elements);
    moved.accuracy = state.value->accuracy;
    moved.thresholded = state.value->thresholded;
  }

  if (isa<GlobalTensorType>(copy.getDest().getType()))
    return executeSlice(op, copy.getDest(), copy.getDestOffsets(), box, &moved,
                        nullptr, mask, width);
  if (!active.empty())
    return op.emitError("the interp backend copies into a var only where "
                        "every thread runs the copy, not under control flow "
                        "that depends on ctx.thread");
  FailureOr<VarBox> to = varBox(copy.getDest(), copy.getDestOffsets());
  if (failed(to))
    return failure();
  VarState *state = to->state;
  // A var a copy first fills holds nothing where the copy does not reach:
  // on a GPU whatever the memory held. Using those is the kernel's fault.
  if (!state->value) {
    state->value =
        Val::zeros(cast<VarType>(copy.getDest().getType()).getValueType());
    state->value->undefined.assign(state->value->size(), 1);
  }
  state->written.clear();
  Val &value = *state->value;
  for (auto [e, element] : llvm::enumerate(to->elements))
    if (!mask || mask->ints[e])
      value.copyElement(element, moved, e);
  value.accuracy = rt::loosest(value.accuracy, moved.accuracy);
  value.thresholded |= moved.thresholded || controlThresholded;
  return success();
}

LogicalResult Interpreter::writeVar(Value var, Val value) {
  VarState *found = stateOf(*var.getDefiningOp(), var, /*create=*/true);
  if (!found)
    return failure();
  VarState &state = *found;
  value.thresholded |= controlThresholded;
  if (!state.value) {
    state.value = std::move(value);
    state.written = active;
    return success();
  }
  if (active.empty()) {
    state.value = std::move(value);
    state.written.clear();
    return success();
  }
  state.value = mergeByThread(*state.value, value, active, threads);
  if (!state.written.empty())
    for (int64_t t = 0; t < threads; ++t)
      state.written[t] |= active[t];
  return success();
}

LogicalResult Interpreter::readVar(ReadOp read) {
  VarState *found = stateOf(*read, read.getVar());
  if (!found)
    return failure();
  StringRef name = getVarOp(read.getVar()).getName();
  const VarState &state = *found;
  if (!state.value)
    return fault(read) << "reads var '" << name
                       << "' before anything was written to it";
  if (!state.written.empty()) {
    // Only threads that own elements read any.
    int64_t owners = state.value->isTile
                         ? std::min<int64_t>(threads, state.value->size())
                         : threads;
    for (int64_t t = 0; t < owners; ++t)
      if (isActive(t) && !state.written[t])
        return fault(read) << "reads var '" << name << "' in thread " << t
                           << ", which never wrote it";
  }
  Val value = *state.value;
  noteOrigin(value, *read, read.getVar());
  set(read.getResult(), std::move(value));
  return success();
}

LogicalResult Interpreter::executeTileOp(Operation &op) {
  auto setIndex = [&](int64_t value) {
    Val val = Val::zeros(op.getResult(0).getType());
    val.ints[0] = value;
    set(op.getResult(0), std::move(val));
    return success();
  };
  return llvm::TypeSwitch<Operation *, LogicalResult>(&op)
      // Whole tiles at a time: every thread is always at the same op.
      .Case([&](BarrierOp) { return success(); })
      .Case([&](ThreadIdOp id) {
        Val val = Val::zeros(id.getType(), threads);
        for (int64_t t = 0; t < threads; ++t)
          val.ints[t] = t;
        set(id.getResult(), std::move(val));
        return success();
      })
      .Case([&](NumThreadsOp) { return setIndex(threads); })
      .Case([&](LanesOp) { return setIndex(kLanes); })
      .Case([&](BlockIdOp id) {
        return setIndex(blockId[static_cast<int>(id.getDim())]);
      })
      .Case([&](NumBlocksOp blocks) {
        return setIndex(grid[static_cast<int>(blocks.getDim())]);
      })
      .Case([&](DimOp dim) -> LogicalResult {
        rt::HostTensor *tensor = getTensor(op, dim.getSource());
        if (!tensor)
          return failure();
        return setIndex(tensor->shape[dim.getIndex()]);
      })
      .Case([&](VarOp var) -> LogicalResult {
        if (std::optional<int64_t> stages = var.getStages()) {
          // Declared again (in a loop): every stage undefined again.
          if (!active.empty())
            return op.emitError("the interp backend declares a ring only "
                                "where every thread runs");
          rings[var.getResult()].assign(*stages, VarState());
          return success();
        }
        if (var.getInit())
          return writeVar(var.getResult(), get(var.getInit()));
        // Declared again (in a loop): undefined again for its threads.
        VarState &state = vars[var.getResult()];
        if (active.empty() || !state.value) {
          state = VarState();
          return success();
        }
        if (state.written.empty())
          state.written.assign(threads, 1);
        for (int64_t t = 0; t < threads; ++t)
          state.written[t] &= !active[t];
        return success();
      })
      .Case([&](ReadOp read) { return readVar(read); })
      .Case([&](WriteOp write) {
        return writeVar(write.getVar(), get(write.getValue()));
      })
      .Case([&](StageOp stage) -> LogicalResult {
        const Val &rotation = get(stage.getRotation());
        if (failed(
                requireDefined(&op, rotation, "the rotation of 'tile.stage'")))
          return failure();
        if (!rotation.isUniform())
          return op.emitError("the interp backend needs a ring's rotation to "
                              "be the same in every thread");
        int64_t stages = *stage.getRingOp().getStages();
        stageIndex[stage.getResult()] =
            llvm::mod(rotation.scalarInt() + stage.getOffset(), stages);
        return success();
      })
      .Case([&](CopyOp copy) { return executeCopy(copy); })
      // Copies land at once: groups and waits have nothing to do.
      .Case<CommitGroupOp, WaitGroupOp>([&](Operation *) { return success(); })
      .Case([&](LoadOp load) {
        return executeSlice(op, load.getSource(), load.getOffsets(),
                            load.getResult().getType(), nullptr,
                            load.getOther() ? &get(load.getOther()) : nullptr);
      })
      .Case([&](StoreOp store) {
        return executeSlice(op, store.getDest(), store.getOffsets(),
                            store.getValue().getType(), &get(store.getValue()),
                            nullptr,
                            store.getMask() ? &get(store.getMask()) : nullptr);
      })
      .Case([&](GatherOp gather) {
        return executeSlice(
            op, gather.getSource(), gather.getOffsets(), gather.getType(),
            nullptr, gather.getOther() ? &get(gather.getOther()) : nullptr,
            nullptr, /*width=*/1, /*loaded=*/nullptr, gather.getIndices(),
            gather.getIndexDims());
      })
      .Case([&](ScatterOp scatter) {
        return executeSlice(
            op, scatter.getDest(), scatter.getOffsets(),
            scatter.getValue().getType(), &get(scatter.getValue()), nullptr,
            scatter.getMask() ? &get(scatter.getMask()) : nullptr,
            /*width=*/1, /*loaded=*/nullptr, scatter.getIndices(),
            scatter.getIndexDims());
      })
      .Case([&](AtomicOp update) {
        return executeSlice(
            op, update.getDest(), update.getOffsets(),
            update.getValue().getType(), &get(update.getValue()), nullptr,
            update.getMask() ? &get(update.getMask()) : nullptr,
            /*width=*/1, /*loaded=*/nullptr, update.getIndices(),
            update.getIndexDims(), update.getKind());
      })
      .Case([&](ExtractOp extract) {
        const Val &input = get(extract.getInput());
        int64_t linear = 0;
        for (auto [dim, index] : llvm::enumerate(extract.getIndices()))
          linear = linear * input.shape[dim] + index;
        Val result = Val::zeros(extract.getType());
        result.copyElement(0, input, linear);
        result.accuracy = input.accuracy;
        result.thresholded = input.thresholded;
        set(extract.getResult(), std::move(result));
        return success();
      })
      .Case<ExtractSliceOp, InsertSliceOp>([&](auto op) {
        // Element (a + i, b + j) of the whole tile is element (i, j) of the
        // sub-tile.
        bool isExtract = isa<ExtractSliceOp>(op.getOperation());
        Value full = isExtract ? op->getOperand(0) : op->getOperand(1);
        Value sub = isExtract ? op->getResult(0) : op->getOperand(0);
        auto subType = cast<RankedTensorType>(sub.getType());
        const Val &whole = get(full);
        Val result = isExtract ? Val::zeros(subType) : whole;
        const Val *part = isExtract ? nullptr : &get(sub);
        for (int64_t e = 0; e < subType.getNumElements(); ++e) {
          int64_t rest = e, linear = 0, stride = 1;
          for (int64_t dim = subType.getRank() - 1; dim >= 0; --dim) {
            linear += (op.getOffsets()[dim] + rest % subType.getDimSize(dim)) *
                      stride;
            rest /= subType.getDimSize(dim);
            stride *= whole.shape[dim];
          }
          if (isExtract)
            result.copyElement(e, whole, linear);
          else
            result.copyElement(linear, *part, e);
        }
        result.accuracy =
            part ? rt::loosest(whole.accuracy, part->accuracy) : whole.accuracy;
        result.thresholded = whole.thresholded || (part && part->thresholded);
        set(op->getResult(0), std::move(result));
        return success();
      })
      .Case([&](IotaOp iota) {
        Val result = Val::zeros(iota.getType());
        ArrayRef<int64_t> shape = iota.getType().getShape();
        int64_t stride = 1;
        for (int64_t dim = shape.size() - 1;
             dim > static_cast<int64_t>(iota.getAxis()); --dim)
          stride *= shape[dim];
        for (size_t e = 0; e < result.size(); ++e)
          result.setInt(e, (e / stride) % shape[iota.getAxis()]);
        set(iota.getResult(), std::move(result));
        return success();
      })
      .Case([&](ReductionOpInterface reduce) {
        const Val &input = get(reduce.getInput());
        Val result = Val::zeros(reduce.getResult().getType());
        int64_t rows = input.shape[0], cols = input.shape[1];
        // Over rows (axis 1) or columns (axis 0): `outer` results of
        // `inner` elements each.
        bool overRows = reduce.getAxis() == 1;
        int64_t outer = overRows ? rows : cols, inner = overRows ? cols : rows;
        auto at = [&](int64_t o, int64_t i) {
          return overRows ? o * cols + i : i * cols + o;
        };
        ReductionKind kind = reduce.getKind();
        bool inputUndefined = input.anyUndefined();
        // A float sum depends on its order; a maximum or minimum does not.
        // An argmax is exact, but a step function of its input: of an
        // inexact input it may land on another index (as a comparison).
        result.accuracy = kind == ReductionKind::sum && result.isFloat
                              ? rt::loosest(input.accuracy,
                                            accuracyOfType(result.elementType))
                          : kind == ReductionKind::argmax ? Accuracy::Exact
                                                          : input.accuracy;
        for (int64_t o = 0; o < outer; ++o) {
          for (int64_t i = 0; inputUndefined && i < inner; ++i)
            if (input.isUndefined(at(o, i))) {
              result.setUndefined(o, true, input.origin);
              break;
            }
          if (kind == ReductionKind::argmax) {
            // The first index of the maximum; a NaN is above every number.
            int64_t best = 0;
            for (int64_t i = 1; i < inner; ++i) {
              if (input.isFloat) {
                double x = input.floats[at(o, i)],
                       top = input.floats[at(o, best)];
                if (!std::isnan(top) && (std::isnan(x) || x > top))
                  best = i;
              } else if (input.ints[at(o, i)] > input.ints[at(o, best)]) {
                best = i;
              }
            }
            result.setInt(o, best);
            continue;
          }
          if (input.isFloat) {
            // Accumulated in double, rounded once.
            double acc = kind == ReductionKind::sum   ? 0.0
                         : kind == ReductionKind::max ? -INFINITY
                                                      : INFINITY;
            // The error bound: a sum's is its terms' and their rounding in
            // any order (one tolerance of their magnitudes), a maximum's or
            // minimum's the largest of its terms'.
            // A sum whose terms' magnitudes add up past the type's range
            // has partial sums that may overflow on the GPU (in its order,
            // not the reference's): its value is not known.
            double error = 0, magnitude = 0;
            bool unchecked = false;
            for (int64_t i = 0; i < inner; ++i) {
              double x = input.floats[at(o, i)];
              acc = kind == ReductionKind::sum   ? acc + x
                    : kind == ReductionKind::max ? maximumf(acc, x)
                                                 : minimumf(acc, x);
              double termError = errorBound(input, at(o, i), result.accuracy);
              unchecked |= isUncheckedError(termError);
              magnitude += std::fabs(x);
              error = kind == ReductionKind::sum
                          ? error + termError + std::fabs(x)
                          : std::max(error, termError);
            }
            result.setFloat(o, acc);
            unchecked |= kind == ReductionKind::sum &&
                         mayOverflow(magnitude, result.elementType);
            if (result.accuracy != Accuracy::Exact)
              result.setError(
                  o, unchecked ? kUncheckedError
                     : kind == ReductionKind::sum
                         ? std::max(error, ownError(result.floats[o],
                                                    result.accuracy, true))
                         : error);
          } else {
            int64_t acc = kind == ReductionKind::sum   ? 0
                          : kind == ReductionKind::max ? INT64_MIN
                                                       : INT64_MAX;
            for (int64_t i = 0; i < inner; ++i) {
              int64_t x = input.ints[at(o, i)];
              acc = kind == ReductionKind::sum
                        ? static_cast<int64_t>(static_cast<uint64_t>(acc) +
                                               static_cast<uint64_t>(x))
                    : kind == ReductionKind::max ? std::max(acc, x)
                                                 : std::min(acc, x);
            }
            result.setInt(o, acc);
          }
        }
        result.thresholded =
            input.thresholded || (kind == ReductionKind::argmax &&
                                  input.accuracy != Accuracy::Exact);
        set(reduce.getResult(), std::move(result));
        return success();
      })
      .Case([&](DotOp dot) {
        const Val &lhs = get(dot.getLhs()), &rhs = get(dot.getRhs());
        const Val *acc = dot.getAcc() ? &get(dot.getAcc()) : nullptr;
        Val result = Val::zeros(dot.getResult().getType());
        bool transposed = dot.getRhsTransposed();
        bool anyUndefined = lhs.anyUndefined() || rhs.anyUndefined() ||
                            (acc && acc->anyUndefined());
        bool tf32 = dot.getPrecision() == DotPrecision::tf32;
        if (result.isFloat)
          result.accuracy = rt::loosest(rt::loosest(lhs.accuracy, rhs.accuracy),
                                        accuracyOfType(result.elementType));
        if (acc)
          result.accuracy = rt::loosest(result.accuracy, acc->accuracy);
        // An operand's error bound as the dot multiplies it: rounded to
        // tf32, an inexact operand may land on the neighbouring tf32 value.
        double tf32Units =
            result.isFloat ? 0x1p-10 / rt::relativeTolerance(result.accuracy)
                           : 0;
        auto operandError = [&](const Val &operand, size_t index) {
          double error = errorBound(operand, index, result.accuracy);
          if (tf32 && operand.accuracy != Accuracy::Exact)
            error += tf32Units * std::fabs(operand.floats[index]);
          return error;
        };
        int64_t m = lhs.shape[0], k = lhs.shape[1],
                n = rhs.shape[transposed ? 0 : 1];
        // The operands as the inner loop reads them, computed once rather
        // than once per product: each row of lhs and each column of rhs
        // contiguous, tf32-rounded where the dot is, with their error
        // bounds (a 1024^3 GEMM's reference spent most of its time here).
        bool bounded = lhs.isFloat && result.isFloat &&
                       result.accuracy != Accuracy::Exact;
        std::vector<double> lhsRounded, rhsColumns, rhsRounded, lhsErrors,
            rhsErrors;
        if (lhs.isFloat) {
          rhsColumns.resize(n * k);
          if (bounded) {
            lhsErrors.resize(m * k);
            rhsErrors.resize(n * k);
          }
          for (int64_t index = 0; index < m * k && bounded; ++index)
            lhsErrors[index] = operandError(lhs, index);
          for (int64_t j = 0; j < n; ++j)
            for (int64_t p = 0; p < k; ++p) {
              int64_t b = transposed ? j * k + p : p * n + j;
              rhsColumns[j * k + p] = rhs.floats[b];
              if (bounded)
                rhsErrors[j * k + p] = operandError(rhs, b);
            }
          if (tf32) {
            for (double x : lhs.floats)
              lhsRounded.push_back(roundToTF32(x));
            for (double y : rhsColumns)
              rhsRounded.push_back(roundToTF32(y));
          }
        }
        double tolerance =
            bounded ? rt::relativeTolerance(result.accuracy) : 0;
        for (int64_t i = 0; i < m; ++i) {
          for (int64_t j = 0; j < n; ++j) {
            // The accumulator, then the products, rounded once.
            double floatAcc = acc && acc->isFloat ? acc->floats[i * n + j] : 0;
            // The error bound: the accumulator's, the products' (relative
            // errors add) and the sum's rounding, a tolerance of its terms.
            double error = std::fabs(floatAcc) +
                           (acc && acc->isFloat
                                ? errorBound(*acc, i * n + j, result.accuracy)
                                : 0);
            uint64_t intAcc = acc && !acc->isFloat
                                  ? static_cast<uint64_t>(acc->ints[i * n + j])
                                  : 0;
            // The products and partial sums past the result type's range:
            // which overflow depends on the order (and a tf32 operand may
            // round up to inf).
            double magnitude = std::fabs(floatAcc);
            if (lhs.isFloat) {
              const double *row = &lhs.floats[i * k],
                           *column = &rhsColumns[j * k];
              const double *rowFactors = tf32 ? &lhsRounded[i * k] : row,
                           *columnFactors =
                               tf32 ? &rhsRounded[j * k] : column;
              for (int64_t p = 0; p < k; ++p) {
                double product = rowFactors[p] * columnFactors[p];
                if (tf32)
                  magnitude = std::max({magnitude, std::fabs(rowFactors[p]),
                                        std::fabs(columnFactors[p])});
                floatAcc += product;
                magnitude += std::fabs(product);
                if (!bounded)
                  continue;
                double ex = lhsErrors[i * k + p], ey = rhsErrors[j * k + p];
                error += std::fabs(product) + std::fabs(column[p]) * ex +
                         std::fabs(row[p]) * ey + ex * ey * tolerance;
              }
            } else {
              for (int64_t p = 0; p < k; ++p) {
                int64_t b = transposed ? j * k + p : p * n + j;
                intAcc += static_cast<uint64_t>(lhs.ints[i * k + p]) *
                          static_cast<uint64_t>(rhs.ints[b]);
              }
            }
            if (result.isFloat)
              result.setFloat(i * n + j, floatAcc);
            else
              result.setInt(i * n + j, intAcc);
            if (result.isFloat)
              result.setError(
                  i * n + j,
                  mayOverflow(magnitude, result.elementType)
                      ? kUncheckedError
                      : std::max(error, ownError(result.floats[i * n + j],
                                                 result.accuracy, true)));
            if (!anyUndefined)
              continue;
            // Of a row of `lhs` or a column of `rhs` nothing wrote.
            const Val *from =
                acc && acc->isUndefined(i * n + j) ? acc : nullptr;
            for (int64_t p = 0; p < k && !from; ++p)
              from = lhs.isUndefined(i * k + p) ? &lhs
                     : rhs.isUndefined(transposed ? j * k + p : p * n + j)
                         ? &rhs
                         : nullptr;
            if (from)
              result.setUndefined(i * n + j, true, from->origin);
          }
        }
        result.thresholded = lhs.thresholded || rhs.thresholded;
        if (acc)
          result.thresholded |= acc->thresholded;
        set(dot.getResult(), std::move(result));
        return success();
      })
      .Case([&](TransposeOp transpose) {
        const Val &input = get(transpose.getInput());
        Val result = Val::zeros(transpose.getResult().getType());
        int64_t rows = input.shape[0], columns = input.shape[1];
        for (int64_t i = 0; i < rows; ++i) {
          for (int64_t j = 0; j < columns; ++j) {
            result.copyElement(j * rows + i, input, i * columns + j);
          }
        }
        result.accuracy = input.accuracy;
        result.thresholded = input.thresholded;
        set(transpose.getResult(), std::move(result));
        return success();
      })
      .Case([&](BroadcastOp broadcast) {
        const Val &input = get(broadcast.getInput());
        Val result = Val::zeros(broadcast.getResult().getType());
        int64_t rank = result.shape.size();
        for (size_t e = 0; e < result.size(); ++e) {
          // Size-1 input dimensions repeat: their index is always 0.
          int64_t remaining = e, source = 0;
          for (int64_t dim = rank - 1, stride = 1; dim >= 0; --dim) {
            int64_t position = remaining % result.shape[dim];
            remaining /= result.shape[dim];
            if (input.shape[dim] != 1)
              source += position * stride;
            stride *= input.shape[dim];
          }
          result.copyElement(e, input, source);
        }
        result.accuracy = input.accuracy;
        result.thresholded = input.thresholded;
        result.product = input.product;
        set(broadcast.getResult(), std::move(result));
        return success();
      })
      .Case([&](ConvertLayoutOp convert) {
        // Which thread holds which element is invisible here: the same tile.
        set(convert.getResult(), get(convert.getInput()));
        return success();
      })
      .Case([&](ReshapeOp reshape) {
        // The same elements, in row-major order, in the result's shape.
        Val result = get(reshape.getInput());
        ArrayRef<int64_t> shape = reshape.getResult().getType().getShape();
        result.shape.assign(shape.begin(), shape.end());
        set(reshape.getResult(), std::move(result));
        return success();
      })
      .Case([&](SplatOp splat) {
        // A per-thread scalar gives each element its thread's value.
        const Val &input = get(splat.getInput());
        Val result = Val::zeros(splat.getResult().getType());
        for (size_t e = 0; e < result.size(); ++e)
          result.copyElement(e, input, input.indexFor(e, true, threads));
        result.accuracy = input.accuracy;
        result.thresholded = input.thresholded;
        result.product = input.product;
        set(splat.getResult(), std::move(result));
        return success();
      })
      .Default([&](Operation *) {
        return op.emitError("the interp backend does not support '")
               << op.getName() << "'";
      });
}

//===----------------------------------------------------------------------===//
// Kernels
//===----------------------------------------------------------------------===//

/// The affine grid expression with the symbols' values, with the runtime's
/// integer semantics and errors (division by zero, overflow).
static rt::Expected<int64_t> evaluateAffine(AffineExpr expr,
                                            ArrayRef<int64_t> symbols) {
  if (auto constant = dyn_cast<AffineConstantExpr>(expr))
    return constant.getValue();
  if (auto symbol = dyn_cast<AffineSymbolExpr>(expr))
    return symbols[symbol.getPosition()];
  auto binary = dyn_cast<AffineBinaryOpExpr>(expr);
  if (!binary)
    return rt::Error::input("the grid may not use dimensions");
  rt::Expected<int64_t> lhs = evaluateAffine(binary.getLHS(), symbols);
  if (!lhs)
    return lhs;
  rt::Expected<int64_t> rhs = evaluateAffine(binary.getRHS(), symbols);
  if (!rhs)
    return rhs;
  rt::IntOp op = rt::IntOp::Add;
  switch (expr.getKind()) {
  case AffineExprKind::Mul:
    op = rt::IntOp::Mul;
    break;
  case AffineExprKind::FloorDiv:
    op = rt::IntOp::FloorDiv;
    break;
  case AffineExprKind::CeilDiv:
    op = rt::IntOp::CeilDiv;
    break;
  case AffineExprKind::Mod:
    op = rt::IntOp::Mod;
    break;
  default:
    break;
  }
  return rt::applyIntOp(op, *lhs, *rhs);
}

LogicalResult Interpreter::run(ArrayRef<rt::HostTensor *> args,
                               rt::SymbolBindings &symbols) {
  FailureOr<std::vector<rt::ParamSpec>> params =
      reference::getParamSpecs(kernel);
  if (failed(params))
    return failure();
  std::vector<const rt::HostTensor *> buffers(args.begin(), args.end());
  if (rt::Error error = rt::bindArguments(*params, buffers, symbols))
    return kernel.emitError(error.message());
  report.marks.clear();
  for (auto [index, arg, tensor] :
       llvm::enumerate(kernel.getBodyBlock().getArguments(), args)) {
    paramIndex[arg] = index;
    report.marks.emplace_back(tensor->numElements());
    if (!tensor->isScalar()) {
      tensors[arg] = tensor;
      continue;
    }
    // A scalar parameter's value, which every CTA reads.
    Val value = Val::zeros(arg.getType());
    if (value.isFloat)
      value.setFloat(0, tensor->get(0));
    else
      value.setInt(0, tensor->getInt(0));
    scalarArgs.push_back({arg, std::move(value)});
  }

  if (std::optional<AffineMap> map = kernel.getGrid()) {
    SmallVector<int64_t> symbolValues;
    for (StringAttr symbol : kernel.getSymbols())
      symbolValues.push_back(symbols.at(symbol.str()));
    for (auto [axis, expr] : llvm::enumerate(map->getResults())) {
      rt::Expected<int64_t> size = evaluateAffine(expr, symbolValues);
      if (!size)
        return kernel.emitError("grid: ") << size.getError().message();
      grid[axis] = *size;
    }
  }
  if (rt::Error error = rt::checkGrid(grid))
    return kernel.emitError(error.message());
  maxElements = options.maxElements;
  uint64_t ctas = grid[0] * grid[1] * grid[2], perLaunch;
  if (__builtin_mul_overflow(options.elementsPerCTA, ctas, &perLaunch))
    perLaunch = ~uint64_t(0);
  maxElements = std::max(maxElements, perLaunch);

  for (blockId[2] = 0; blockId[2] < grid[2]; ++blockId[2])
    for (blockId[1] = 0; blockId[1] < grid[1]; ++blockId[1])
      for (blockId[0] = 0; blockId[0] < grid[0]; ++blockId[0]) {
        // Each CTA is a step: an empty kernel over 2^31 - 1 CTAs ran for
        // minutes and never reached the budget (utils/fuzz.py).
        if (failed(tick(kernel)))
          return failure();
        ctaStartSteps = steps;
        ctaStartElements = elements;
        ++ctasStarted;
        vars.clear();
        for (auto &[arg, value] : scalarArgs)
          set(arg, value);
        rings.clear();
        stageIndex.clear();
        if (failed(runBlock(kernel.getBodyBlock(), {})))
          return failure();
      }
  return success();
}

FailureOr<std::vector<rt::ParamSpec>>
reference::getParamSpecs(KernelOp kernel) {
  std::vector<rt::ParamSpec> params;
  for (auto [index, type] : llvm::enumerate(kernel.getArgumentTypes())) {
    auto tensor = dyn_cast<GlobalTensorType>(type);
    if (!tensor) {
      std::optional<rt::DType> dtype = toDType(type);
      if (!dtype || *dtype == rt::DType::I1)
        return kernel.emitError("parameter #")
               << index << " has type " << type
               << ", which no scalar parameter has";
      rt::ParamSpec param;
      param.name = kernel.getParamName(index);
      param.dtype = *dtype;
      param.access = rt::Access::Read;
      params.push_back(std::move(param));
      continue;
    }
    std::optional<rt::DType> dtype = toDType(tensor.getElementType());
    if (!dtype)
      return kernel.emitError("parameter #")
             << index << " has element type " << tensor.getElementType()
             << ", which no tensor buffer holds";
    rt::ParamSpec param;
    param.name = kernel.getParamName(index);
    param.dtype = *dtype;
    for (unsigned dim = 0; dim < tensor.getRank(); ++dim) {
      if (StringAttr symbol = tensor.getSymbolOfDim(dim))
        param.shape.push_back({0, symbol.str()});
      else
        param.shape.push_back({tensor.getShape()[dim], ""});
    }
    params.push_back(std::move(param));
  }
  return params;
}

LogicalResult reference::interpretKernel(KernelOp kernel,
                                         ArrayRef<rt::HostTensor *> args,
                                         rt::SymbolBindings &symbols,
                                         const InterpOptions &options,
                                         InterpReport *report) {
  InterpReport local;
  return Interpreter(kernel, options, report ? *report : local)
      .run(args, symbols);
}
