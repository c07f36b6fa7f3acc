//===- EmitCall.cpp - .tile builtin calls ---------------------------------===//
//
// The builtin functions (reductions, dot, math, where, iota, reshape,
// transpose, load, store, atomics): one table of their names, their arity
// and the ops each emits; store and the atomics are statements.
//
//===----------------------------------------------------------------------===//

#include "Emitter.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tile::frontend;
using llvm::SMLoc;
using llvm::StringRef;
using llvm::Twine;

namespace {
/// The builtin functions, by what they emit.
enum class Builtin {
  RowSum,
  RowMax,
  RowMin,
  RowArgMax,
  ColSum,
  ColMax,
  ColMin,
  Dot,
  Iota,
  Reshape,
  Transpose,
  Load,
  Store,
  AtomicAdd,
  AtomicMax,
  AtomicMin,
  Pow,
  Abs,
  Max,
  Min,
  Where,
  CeilDiv,
  // Unary float math.
  Exp,
  Exp2,
  Log,
  Log2,
  Sqrt,
  Rsqrt,
  Tanh,
  Sin,
  Cos,
  Floor,
  Ceil,
  Erf,
  Sigmoid,
};
} // namespace

/// Every builtin function by its name: the one list that lookups, the
/// reserved names and other front ends (KernelBuilder) read.
static constexpr std::pair<const char *, Builtin> kBuiltins[] = {
    {"rowsum", Builtin::RowSum},
    {"rowmax", Builtin::RowMax},
    {"rowmin", Builtin::RowMin},
    {"rowargmax", Builtin::RowArgMax},
    {"colsum", Builtin::ColSum},
    {"colmax", Builtin::ColMax},
    {"colmin", Builtin::ColMin},
    {"dot", Builtin::Dot},
    {"abs", Builtin::Abs},
    {"max", Builtin::Max},
    {"min", Builtin::Min},
    {"where", Builtin::Where},
    {"cdiv", Builtin::CeilDiv},
    {"exp", Builtin::Exp},
    {"exp2", Builtin::Exp2},
    {"log", Builtin::Log},
    {"log2", Builtin::Log2},
    {"sqrt", Builtin::Sqrt},
    {"rsqrt", Builtin::Rsqrt},
    {"tanh", Builtin::Tanh},
    {"sin", Builtin::Sin},
    {"cos", Builtin::Cos},
    {"floor", Builtin::Floor},
    {"ceil", Builtin::Ceil},
    {"erf", Builtin::Erf},
    {"sigmoid", Builtin::Sigmoid},
    {"pow", Builtin::Pow},
    {"iota", Builtin::Iota},
    {"load", Builtin::Load},
    {"store", Builtin::Store},
    {"reshape", Builtin::Reshape},
    {"transpose", Builtin::Transpose},
    {"atomic_add", Builtin::AtomicAdd},
    {"atomic_max", Builtin::AtomicMax},
    {"atomic_min", Builtin::AtomicMin},
};

static std::optional<Builtin> lookupBuiltin(StringRef name) {
  for (auto [spelling, builtin] : kBuiltins)
    if (name == spelling)
      return builtin;
  return std::nullopt;
}

std::vector<StringRef> Emitter::getBuiltinNames() {
  std::vector<StringRef> names;
  for (auto [spelling, builtin] : kBuiltins)
    names.push_back(spelling);
  return names;
}

static unsigned arityOf(Builtin builtin) {
  switch (builtin) {
  case Builtin::Dot:
  case Builtin::Max:
  case Builtin::Min:
  case Builtin::CeilDiv:
  case Builtin::Iota:
  case Builtin::Reshape:
  case Builtin::Pow:
  case Builtin::Store:
  case Builtin::AtomicAdd:
  case Builtin::AtomicMax:
  case Builtin::AtomicMin:
    return 2;
  case Builtin::Where:
    return 3;
  default:
    return 1;
  }
}

static bool isAtomic(std::optional<Builtin> builtin) {
  return builtin == Builtin::AtomicAdd || builtin == Builtin::AtomicMax ||
         builtin == Builtin::AtomicMin;
}

static bool isDtypeName(StringRef name) {
  return llvm::is_contained(
      {"f32", "f16", "bf16", "i32", "i1", "index", "tile", "tensor", "range"},
      name);
}

bool Emitter::isReservedName(StringRef name) {
  return lookupBuiltin(name).has_value() || isDtypeName(name) ||
         isMovementStatement(name) || isStageAccessor(name) ||
         name == "pipeline";
}

FailureOr<Operand> Emitter::emitCall(const CallExpr &call) {
  SMLoc loc = call.getLoc();
  Location location = getLoc(loc);
  if (isStageAccessor(call.callee))
    return emitStageRead(call);
  if (isMovementStatement(call.callee))
    return error(loc) << "'" << call.callee
                      << "' has no value; it is a statement of its own";
  std::optional<Builtin> builtin = lookupBuiltin(call.callee);
  FailureOr<Type> castTarget = failure();
  if (!builtin && isDtypeName(call.callee) && call.callee != "i1" &&
      call.callee != "tile" && call.callee != "tensor" &&
      call.callee != "range")
    castTarget = emitDtype(call.callee, loc, DtypeUse::Scalar);
  if (!builtin && failed(castTarget))
    return error(loc) << "unknown function '" << call.callee << "'"
                      << suggestFunction(call.callee, builtinPrefix);
  unsigned arity = builtin ? arityOf(*builtin) : 1;
  if (call.args.size() != arity)
    return error(loc) << "'" << call.callee << "' takes " << arity
                      << (arity == 1 ? " argument" : " arguments") << ", got "
                      << call.args.size();
  // The named arguments a builtin knows.
  StringRef knownName = builtin == Builtin::Load ? "other"
                        : builtin == Builtin::Store || isAtomic(builtin)
                            ? "mask"
                        : builtin == Builtin::Dot ? "precision"
                                                  : "";
  for (const NamedArg &arg : call.named) {
    if (arg.name != knownName) {
      InFlightDiagnostic diag = error(arg.loc) << "'" << call.callee
                                               << "' has no argument named '"
                                               << arg.name << "'";
      if (!knownName.empty())
        diag << "; it takes '" << knownName << "'";
      return diag;
    }
    if (&arg != &call.named.front())
      return error(arg.loc) << "argument '" << arg.name << "' given twice";
  }
  if (!builtin)
    return emitCast(call, *castTarget);
  switch (*builtin) {
  case Builtin::Iota:
    return emitIota(call);
  case Builtin::Reshape:
    return emitReshape(call);
  case Builtin::Load:
    return emitLoadCall(call);
  case Builtin::Store:
  case Builtin::AtomicAdd:
  case Builtin::AtomicMax:
  case Builtin::AtomicMin:
    return error(loc) << "'" << call.callee
                      << "' has no value; it is a statement of its own";
  default:
    break;
  }

  SmallVector<Operand, 3> operands;
  for (const ExprPtr &arg : call.args) {
    FailureOr<Operand> operand = emitExpr(*arg);
    if (failed(operand))
      return failure();
    operands.push_back(*operand);
  }
  std::string what = ("'" + call.callee + "'").str();
  auto result = [&](Value value) -> FailureOr<Operand> {
    return Operand{value, std::nullopt, loc};
  };
  auto matrix = [&](const Operand &operand) -> FailureOr<RankedTensorType> {
    auto tile = operand.isLiteral()
                    ? RankedTensorType()
                    : dyn_cast<RankedTensorType>(operand.value.getType());
    if (!tile || tile.getRank() != 2 || tile.getElementType().isInteger(1))
      return error(operand.loc)
             << what << " needs a rank-2 tile of f32, f16, bf16 or i32, got "
             << (operand.isLiteral() ? std::string("a literal")
                                     : describe(operand.value.getType()));
    return tile;
  };

  switch (*builtin) {
  case Builtin::RowSum:
  case Builtin::RowMax:
  case Builtin::RowMin:
  case Builtin::RowArgMax:
  case Builtin::ColSum:
  case Builtin::ColMax:
  case Builtin::ColMin: {
    if (failed(matrix(operands[0])))
      return failure();
    Value input = operands[0].value;
    switch (*builtin) {
    case Builtin::RowSum:
      return result(RowSumOp::create(builder, location, input));
    case Builtin::RowMax:
      return result(RowMaxOp::create(builder, location, input));
    case Builtin::RowMin:
      return result(RowMinOp::create(builder, location, input));
    case Builtin::RowArgMax:
      return result(RowArgMaxOp::create(builder, location, input));
    case Builtin::ColSum:
      return result(ColSumOp::create(builder, location, input));
    case Builtin::ColMax:
      return result(ColMaxOp::create(builder, location, input));
    default:
      return result(ColMinOp::create(builder, location, input));
    }
  }
  case Builtin::Transpose: {
    FailureOr<RankedTensorType> input = matrix(operands[0]);
    if (failed(input))
      return failure();
    auto type = RankedTensorType::get(
        {input->getDimSize(1), input->getDimSize(0)}, input->getElementType());
    return result(
        TransposeOp::create(builder, location, type, operands[0].value));
  }
  case Builtin::Dot: {
    FailureOr<RankedTensorType> lhs = matrix(operands[0]);
    if (failed(lhs))
      return failure();
    FailureOr<RankedTensorType> rhs = matrix(operands[1]);
    if (failed(rhs))
      return failure();
    if (lhs->getElementType() != rhs->getElementType())
      return error(loc) << "type mismatch in 'dot': " << describe(*lhs)
                        << " and " << describe(*rhs);
    if (lhs->getDimSize(1) != rhs->getDimSize(0))
      return error(loc) << "shape mismatch in 'dot': " << describe(*lhs)
                        << " and " << describe(*rhs)
                        << " (the columns of the first must equal the rows "
                           "of the second)";
    Type element = lhs->getElementType();
    // `precision = ieee | tf32`: a name, not a value.
    DotPrecision precision = DotPrecision::ieee;
    if (!call.named.empty()) {
      const NamedArg &arg = call.named.front();
      auto *name = dyn_cast<NameExpr>(arg.value.get());
      std::optional<DotPrecision> named =
          name ? symbolizeDotPrecision(name->name) : std::nullopt;
      if (!named)
        return error(arg.value->getLoc())
               << "unknown precision for 'dot': it is 'ieee' (exact, the "
                  "default) or 'tf32' (f32 operands rounded to tf32, on "
                  "tensor cores)";
      if (*named == DotPrecision::tf32 && !element.isF32())
        return error(arg.value->getLoc())
               << "'precision = tf32' rounds f32 operands to tf32; these are "
               << describe(*lhs);
      precision = *named;
    }
    if (element.isF16() || element.isBF16())
      element = builder.getF32Type();
    auto type = RankedTensorType::get({lhs->getDimSize(0), rhs->getDimSize(1)},
                                      element);
    // dot(a, transpose(b)) reads b transposed (as tile.dot's folder
    // does): no transposed copy is made.
    Value rhsValue = operands[1].value;
    auto transpose = rhsValue.getDefiningOp<TransposeOp>();
    auto dot =
        DotOp::create(builder, location, type, operands[0].value,
                      transpose ? transpose.getInput() : rhsValue,
                      /*acc=*/Value(),
                      /*rhs_transposed=*/transpose != nullptr, precision);
    if (transpose && transpose->use_empty())
      transpose->erase();
    return result(dot);
  }
  case Builtin::Where: {
    Type i1 = builder.getI1Type();
    if (!operands[0].isLiteral() &&
        !getElementTypeOrSelf(operands[0].value.getType()).isInteger(1))
      return error(operands[0].loc)
             << "the condition of 'where' must be boolean, got "
             << describe(operands[0].value.getType());
    FailureOr<SmallVector<Value>> values =
        unify(MutableArrayRef<Operand>(operands).drop_front(), what, loc);
    if (failed(values))
      return failure();
    // Broadcast the condition and the unified values against each other.
    Operand all[] = {operands[0],
                     {(*values)[0], std::nullopt, operands[1].loc},
                     {(*values)[1], std::nullopt, operands[2].loc}};
    FailureOr<std::optional<SmallVector<int64_t>>> shape =
        broadcastShape(all, what, loc);
    if (failed(shape))
      return failure();
    SmallVector<Value, 3> shaped;
    for (const Operand &operand : all) {
      Type element = operand.isLiteral()
                         ? i1
                         : getElementTypeOrSelf(operand.value.getType());
      Type target =
          *shape ? Type(RankedTensorType::get(**shape, element)) : element;
      FailureOr<Value> value =
          convert(operand, target, "an operand of 'where'");
      if (failed(value))
        return failure();
      shaped.push_back(*value);
    }
    return result(arith::SelectOp::create(builder, location, shaped[0],
                                          shaped[1], shaped[2]));
  }
  default:
    break;
  }

  FailureOr<SmallVector<Value>> values = unify(operands, what, loc);
  if (failed(values))
    return failure();
  Value x = values->front();
  Type element = getElementTypeOrSelf(x.getType());
  bool isFloat = isa<FloatType>(element);
  if (element.isInteger(1) || (!isFloat && *builtin >= Builtin::Exp))
    return error(loc) << what << " needs "
                      << (*builtin >= Builtin::Exp ? "floating-point"
                                                   : "numeric")
                      << " operands, got " << describe(x.getType());
  switch (*builtin) {
  case Builtin::Abs:
    if (element.isIndex())
      return error(loc) << "'abs' needs f32, f16, bf16 or i32, got index";
    if (isFloat)
      return result(math::AbsFOp::create(builder, location, x));
    return result(math::AbsIOp::create(builder, location, x));
  case Builtin::Max:
    if (isFloat)
      return result(
          arith::MaximumFOp::create(builder, location, x, (*values)[1]));
    return result(arith::MaxSIOp::create(builder, location, x, (*values)[1]));
  case Builtin::Min:
    if (isFloat)
      return result(
          arith::MinimumFOp::create(builder, location, x, (*values)[1]));
    return result(arith::MinSIOp::create(builder, location, x, (*values)[1]));
  case Builtin::CeilDiv:
    if (isFloat)
      return error(loc) << "'cdiv' needs integer operands, got "
                        << describe(x.getType());
    return result(
        arith::CeilDivSIOp::create(builder, location, x, (*values)[1]));
  case Builtin::Exp:
    return result(emitExp(x, location));
  case Builtin::Exp2:
    return result(math::Exp2Op::create(builder, location, x));
  case Builtin::Log:
    return result(math::LogOp::create(builder, location, x));
  case Builtin::Log2:
    return result(math::Log2Op::create(builder, location, x));
  case Builtin::Sqrt:
    return result(math::SqrtOp::create(builder, location, x));
  case Builtin::Rsqrt:
    return result(math::RsqrtOp::create(builder, location, x));
  case Builtin::Tanh:
    return result(math::TanhOp::create(builder, location, x));
  case Builtin::Sin:
    return result(math::SinOp::create(builder, location, x));
  case Builtin::Cos:
    return result(math::CosOp::create(builder, location, x));
  case Builtin::Floor:
    return result(math::FloorOp::create(builder, location, x));
  case Builtin::Ceil:
    return result(math::CeilOp::create(builder, location, x));
  case Builtin::Erf:
    return result(math::ErfOp::create(builder, location, x));
  case Builtin::Pow:
    if (!isFloat)
      return error(loc) << "'pow' needs floating-point operands, got "
                        << describe(x.getType());
    return result(math::PowFOp::create(builder, location, x, (*values)[1]));
  case Builtin::Sigmoid: {
    // 1 / (1 + exp(-x)): exp's fast path, and an exact division.
    Literal one;
    one.intValue = 1;
    FailureOr<Value> ones = materialize(one, x.getType(), loc, "the constant");
    if (failed(ones))
      return failure();
    Value negated = arith::NegFOp::create(builder, location, x);
    Value denominator = arith::AddFOp::create(builder, location, *ones,
                                              emitExp(negated, location));
    return result(arith::DivFOp::create(builder, location, *ones, denominator));
  }
  default:
    llvm_unreachable("builtin handled above");
  }
}

Value Emitter::emitExp(Value x, Location loc) {
  // The hardware's path, `__expf` (ex2.approx of x * log2(e)): at most
  // 2 + floor(1.173 |x|) ulp from exp (docs/spec.md, "Math").
  return math::ExpOp::create(builder, loc, x, arith::FastMathFlags::afn);
}

/// The tensor slice an argument of load/store names, or an error.
static const SliceExpr *getSliceArgument(const CallExpr &call) {
  return call.args.empty() ? nullptr
                           : dyn_cast<SliceExpr>(call.args.front().get());
}

FailureOr<Operand> Emitter::emitLoadCall(const CallExpr &call) {
  const SliceExpr *sliceExpr = getSliceArgument(call);
  if (!sliceExpr || sliceExpr->baseName().empty())
    return error(call.args.front()->getLoc())
           << "the first argument of 'load' is a slice of a tensor: "
              "load(X[a :+ R, ...], other = v)";
  FailureOr<Slice> slice = emitSlice(*sliceExpr);
  if (failed(slice))
    return failure();
  Value other;
  if (!call.named.empty()) {
    const NamedArg &arg = call.named.front();
    FailureOr<Operand> value = emitExpr(*arg.value);
    if (failed(value))
      return failure();
    if (!value->isLiteral() && isa<RankedTensorType>(value->value.getType()))
      return error(arg.value->getLoc())
             << "'other' is a scalar, the value of every element outside the "
                "tensor; got "
             << describe(value->value.getType());
    FailureOr<Value> converted =
        convert(*value, slice->type.getElementType(), "'other'");
    if (failed(converted))
      return failure();
    other = *converted;
  }
  return Operand{emitLoad(*slice, call.getLoc(), other), std::nullopt,
                 call.getLoc()};
}

LogicalResult Emitter::emitCallStmt(const CallStmt &stmt) {
  const auto &call = cast<CallExpr>(*stmt.call);
  if (isMovementStatement(call.callee))
    return emitMovementStmt(call);
  std::optional<Builtin> builtin = lookupBuiltin(call.callee);
  if (builtin != Builtin::Store && !isAtomic(builtin)) {
    if (failed(emitCall(call)))
      return failure();
    return error(call.getLoc())
           << "the value of '" << call.callee
           << "(...)' is unused; a call alone on a line is store(...), "
              "atomic_add(...), atomic_max(...), atomic_min(...), copy(...), "
              "barrier(), advance(p), commit_group() or wait_group(n)";
  }
  StringRef name = call.callee;
  if (call.args.size() != 2)
    return error(call.getLoc())
           << "'" << name << "' takes 2 arguments, got " << call.args.size();
  for (const NamedArg &arg : call.named) {
    if (arg.name != "mask")
      return error(arg.loc) << "'" << name << "' has no argument named '"
                            << arg.name << "'; it takes 'mask'";
    if (&arg != &call.named.front())
      return error(arg.loc) << "argument 'mask' given twice";
  }
  const SliceExpr *sliceExpr = getSliceArgument(call);
  if (!sliceExpr || sliceExpr->baseName().empty())
    return error(call.args.front()->getLoc())
           << "the first argument of '" << name
           << "' is a slice of a tensor: " << name
           << "(X[a :+ R, ...], value, mask = m)";
  FailureOr<Slice> slice = emitSlice(*sliceExpr);
  if (failed(slice))
    return failure();
  FailureOr<Operand> value = emitExpr(*call.args[1]);
  if (failed(value))
    return failure();
  std::string what =
      "the value " +
      std::string(isAtomic(builtin) ? "combined into" : "stored to") + " '" +
      sliceExpr->baseName().str() + "'";
  FailureOr<Value> stored = convert(*value, slice->tileType, what);
  if (failed(stored))
    return failure();
  Value mask;
  if (!call.named.empty()) {
    const NamedArg &arg = call.named.front();
    FailureOr<Operand> operand = emitExpr(*arg.value);
    if (failed(operand))
      return failure();
    Type maskType = slice->tileType.clone(builder.getI1Type());
    if (!operand->isLiteral() &&
        !getElementTypeOrSelf(operand->value.getType()).isInteger(1))
      return error(arg.value->getLoc())
             << "the mask of '" << name << "' is boolean, got "
             << describe(operand->value.getType());
    FailureOr<Value> converted = convert(*operand, maskType, "the mask");
    if (failed(converted))
      return failure();
    mask = *converted;
  }
  Location loc = getLoc(stmt.getLoc());
  if (!isAtomic(builtin)) {
    emitStore(*slice, *stored, mask, loc);
    return success();
  }
  AtomicKind kind = builtin == Builtin::AtomicAdd   ? AtomicKind::add
                    : builtin == Builtin::AtomicMax ? AtomicKind::max
                                                    : AtomicKind::min;
  Type element = slice->tileType.getElementType();
  if (!element.isF32() && !element.isInteger(32) &&
      !(element.isF16() && kind == AtomicKind::add))
    return error(call.getLoc())
           << "'" << name << "' of " << describe(element)
           << " is not supported: atomics are add, max and min of f32 and "
              "i32, and add of f16";
  AtomicOp::create(builder, loc, kind, *stored, slice->tensor, slice->offsets,
                   slice->indices, slice->indexDims, mask);
  return success();
}

FailureOr<SmallVector<int64_t>>
Emitter::emitShapeList(const Expr &expr, StringRef what, StringRef usage) {
  auto *list = dyn_cast<ListExpr>(&expr);
  if (!list || list->elements.empty())
    return error(expr.getLoc()) << usage;
  SmallVector<int64_t> shape;
  std::string shapeOf = ("the shape of '" + what + "'").str();
  for (const ExprPtr &element : list->elements) {
    FailureOr<Literal> size = evaluateConstant(*element, shapeOf);
    if (failed(size))
      return failure();
    if (size->kind != Literal::Kind::Int || size->intValue <= 0)
      return error(element->getLoc())
             << "a dimension of '" << what << "' is a positive integer "
             << "constant";
    shape.push_back(size->intValue);
  }
  if (failed(checkTileShape(shape, list->getLoc())))
    return failure();
  return shape;
}

FailureOr<Operand> Emitter::emitReshape(const CallExpr &call) {
  FailureOr<Operand> input = emitExpr(*call.args[0]);
  if (failed(input))
    return failure();
  auto tile = input->isLiteral()
                  ? RankedTensorType()
                  : dyn_cast<RankedTensorType>(input->value.getType());
  if (!tile)
    return error(call.args[0]->getLoc())
           << "'reshape' takes a tile, got "
           << (input->isLiteral() ? std::string("a literal")
                                  : describe(input->value.getType()));
  FailureOr<SmallVector<int64_t>> shape =
      emitShapeList(*call.args[1], "reshape",
                    "the second argument of 'reshape' is the shape: "
                    "reshape(t, [R, C])");
  if (failed(shape))
    return failure();
  auto type = RankedTensorType::get(*shape, tile.getElementType());
  if (type.getNumElements() != tile.getNumElements())
    return error(call.args[1]->getLoc())
           << "'reshape' keeps the number of elements: " << describe(tile)
           << " has " << tile.getNumElements() << ", " << describe(type)
           << " has " << type.getNumElements();
  return Operand{
      ReshapeOp::create(builder, getLoc(call.getLoc()), type, input->value),
      std::nullopt, call.getLoc()};
}

FailureOr<Operand> Emitter::emitIota(const CallExpr &call) {
  FailureOr<SmallVector<int64_t>> shapeList =
      emitShapeList(*call.args[0], "iota",
                    "the first argument of 'iota' is the tile's shape: "
                    "iota([R, C], axis)");
  if (failed(shapeList))
    return failure();
  ArrayRef<int64_t> shape = *shapeList;
  FailureOr<Literal> axis = evaluateConstant(*call.args[1], "iota's axis");
  if (failed(axis))
    return failure();
  if (axis->kind != Literal::Kind::Int || axis->intValue < 0 ||
      axis->intValue >= static_cast<int64_t>(shape.size()))
    return error(call.args[1]->getLoc())
           << "the axis of 'iota' is an integer from 0 to " << shape.size() - 1;
  auto type = RankedTensorType::get(shape, builder.getI32Type());
  Value iota = IotaOp::create(builder, getLoc(call.getLoc()), type,
                              static_cast<uint64_t>(axis->intValue));
  return Operand{iota, std::nullopt, call.getLoc()};
}
