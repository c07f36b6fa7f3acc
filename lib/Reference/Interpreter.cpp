//===- Interpreter.cpp - the interp backend -------------------------------===//
//
// The walk over a kernel's ops (Interpreter.h): budgets, faults of the
// kernel, constants and elementwise ops, and the kernel's launch over its
// grid with its parameters bound.
//
//===----------------------------------------------------------------------===//

#include "Interpreter.h"

#include "mlir/Interfaces/LoopLikeInterface.h"
#include "llvm/ADT/TypeSwitch.h"

#include <cmath>

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tile::reference;

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

//===----------------------------------------------------------------------===//
// The interpreter
//===----------------------------------------------------------------------===//

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
    // The symbols' values, then the integer scalars' a grid may name.
    SmallVector<int64_t> symbolValues;
    for (StringAttr symbol : kernel.getSymbols())
      symbolValues.push_back(symbols.at(symbol.str()));
    if (map->getNumSymbols() > symbolValues.size())
      for (auto [arg, tensor] :
           llvm::zip(kernel.getBodyBlock().getArguments(), args))
        if (arg.getType().isInteger(32) || arg.getType().isIndex())
          symbolValues.push_back(tensor->getInt(0));
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
