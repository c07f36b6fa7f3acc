//===- EmitExpr.cpp - .tile expressions to arith/math/tile ops ------------===//
//
// Typing rules (docs/spec.md, "Typing"): no implicit conversions between
// element types except for literals, which take the type their context
// needs; scalars splat over tiles; size-1 dimensions broadcast.
//
//===----------------------------------------------------------------------===//

#include "Emitter.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tile::frontend;
using llvm::SMLoc;
using llvm::StringRef;
using llvm::Twine;

//===----------------------------------------------------------------------===//
// Literals and conversions
//===----------------------------------------------------------------------===//

/// `1e+06`, `0.5`: short, as a user would write the number.
static std::string formatNumber(double value) {
  char text[32];
  std::snprintf(text, sizeof(text), "%g", value);
  return text;
}

FailureOr<Value> Emitter::materialize(const Literal &literal, Type target,
                                      SMLoc loc, const Twine &what) {
  Type element = getElementTypeOrSelf(target);
  auto mismatch = [&](StringRef kind) {
    return error(loc) << "type mismatch: " << what << " is " << kind
                      << ", expected " << describe(target);
  };
  TypedAttr attr;
  switch (literal.kind) {
  case Literal::Kind::Bool:
    if (!element.isInteger(1))
      return mismatch("a boolean");
    attr = builder.getBoolAttr(literal.boolValue);
    break;
  case Literal::Kind::Int:
    if (element.isInteger(1))
      return mismatch("an integer");
    if (element.isInteger(32) &&
        (literal.intValue < INT32_MIN || literal.intValue > INT32_MAX))
      return error(loc) << "integer " << literal.intValue
                        << " does not fit in i32";
    if (element.isIntOrIndex()) {
      attr = builder.getIntegerAttr(element, literal.intValue);
      break;
    }
    [[fallthrough]];
  case Literal::Kind::Float: {
    auto floatType = dyn_cast<FloatType>(element);
    if (!floatType)
      return mismatch("a floating-point number");
    llvm::APFloat value(literal.asDouble());
    bool losesInfo;
    auto status = value.convert(floatType.getFloatSemantics(),
                                llvm::APFloat::rmNearestTiesToEven, &losesInfo);
    if (status & llvm::APFloat::opOverflow)
      return error(loc) << "number " << formatNumber(literal.asDouble())
                        << " is out of range for " << describe(element);
    attr = FloatAttr::get(floatType, value);
    break;
  }
  }
  Location location = getLoc(loc);
  if (auto tile = dyn_cast<RankedTensorType>(target))
    return arith::ConstantOp::create(builder, location,
                                     DenseElementsAttr::get(tile, attr))
        .getResult();
  return arith::ConstantOp::create(builder, location, attr).getResult();
}

static Type defaultType(const Literal &literal, MLIRContext *ctx) {
  switch (literal.kind) {
  case Literal::Kind::Bool:
    return IntegerType::get(ctx, 1);
  case Literal::Kind::Int:
    return IntegerType::get(ctx, 32);
  case Literal::Kind::Float:
    return Float32Type::get(ctx);
  }
  llvm_unreachable("unknown literal kind");
}

FailureOr<Value> Emitter::convert(const Operand &operand, Type target,
                                  const Twine &what) {
  if (operand.isLiteral())
    return materialize(*operand.literal, target, operand.loc, what);
  Value value = operand.value;
  Type type = value.getType();
  if (type == target)
    return value;
  if (getElementTypeOrSelf(type) != getElementTypeOrSelf(target))
    return error(operand.loc)
           << "type mismatch: " << what << " has type " << describe(type)
           << ", expected " << describe(target)
           << suggestConversion(type, target);
  auto targetTile = dyn_cast<RankedTensorType>(target);
  auto tile = dyn_cast<RankedTensorType>(type);
  if (!targetTile)
    return error(operand.loc)
           << "shape mismatch: " << what << " is a " << describe(type)
           << ", expected a scalar " << describe(target);
  Location loc = getLoc(operand.loc);
  if (!tile)
    return SplatOp::create(builder, loc, targetTile, value).getResult();
  bool broadcastable = tile.getRank() == targetTile.getRank();
  for (unsigned dim = 0; broadcastable && dim < tile.getRank(); ++dim)
    broadcastable = tile.getDimSize(dim) == targetTile.getDimSize(dim) ||
                    tile.getDimSize(dim) == 1;
  if (!broadcastable)
    return error(operand.loc)
           << "shape mismatch: " << what << " is a " << describe(type)
           << ", expected " << describe(target);
  return BroadcastOp::create(builder, loc, targetTile, value).getResult();
}

FailureOr<std::optional<SmallVector<int64_t>>>
Emitter::broadcastShape(ArrayRef<Operand> operands, const Twine &what,
                        SMLoc loc) {
  std::optional<SmallVector<int64_t>> shape;
  RankedTensorType shapeSource;
  for (const Operand &operand : operands) {
    auto tile = operand.isLiteral()
                    ? RankedTensorType()
                    : dyn_cast<RankedTensorType>(operand.value.getType());
    if (!tile)
      continue;
    if (!shape) {
      shape.emplace(tile.getShape());
      shapeSource = tile;
      continue;
    }
    bool compatible = shape->size() == static_cast<size_t>(tile.getRank());
    for (unsigned dim = 0; compatible && dim < shape->size(); ++dim) {
      int64_t &have = (*shape)[dim];
      int64_t size = tile.getDimSize(dim);
      if (have == 1)
        have = size;
      else
        compatible = size == have || size == 1;
    }
    if (!compatible)
      return error(loc) << "shape mismatch in " << what << ": "
                        << describe(shapeSource) << " and " << describe(tile)
                        << " (each dimension must agree or be 1)";
    shapeSource = tile.clone(*shape);
  }
  return shape;
}

void Emitter::noteLiteralTypedVar(InFlightDiagnostic &diag, Value value,
                                  Value other) {
  // `var kt = 0` is i32 by the rule for a lone literal; with an index (a
  // symbol, a loop bound) the fix is to say the type.
  auto read = value.getDefiningOp<ReadOp>();
  if (!read || !literalTypedVars.contains(read.getVar()) ||
      !other.getType().isIndex())
    return;
  auto var = read.getVar().getDefiningOp<VarOp>();
  diag.attachNote(var.getLoc())
      << "'" << var.getName()
      << "' is i32, the type of a lone integer literal; to use it with index "
         "values, declare it 'var "
      << var.getName() << ": index = ...'";
}

FailureOr<SmallVector<Value>> Emitter::unify(MutableArrayRef<Operand> operands,
                                             const Twine &what, SMLoc loc) {
  // One element type: the values' (which must agree), else the literals'.
  Value first;
  for (const Operand &operand : operands) {
    if (operand.isLiteral())
      continue;
    if (first && getElementTypeOrSelf(first.getType()) !=
                     getElementTypeOrSelf(operand.value.getType())) {
      InFlightDiagnostic diag = error(loc)
                                << "type mismatch in " << what << ": "
                                << describe(first.getType()) << " and "
                                << describe(operand.value.getType());
      noteLiteralTypedVar(diag, first, operand.value);
      noteLiteralTypedVar(diag, operand.value, first);
      return diag;
    }
    if (!first)
      first = operand.value;
  }
  Type element;
  if (first) {
    element = getElementTypeOrSelf(first.getType());
  } else {
    // Only literals: the widest kind among them decides.
    Literal::Kind kind = operands.front().literal->kind;
    for (const Operand &operand : operands)
      if (operand.literal->kind == Literal::Kind::Float ||
          (operand.literal->kind == Literal::Kind::Int &&
           kind == Literal::Kind::Bool))
        kind = operand.literal->kind;
    Literal probe;
    probe.kind = kind;
    element = defaultType(probe, builder.getContext());
  }

  FailureOr<std::optional<SmallVector<int64_t>>> shape =
      broadcastShape(operands, what, loc);
  if (failed(shape))
    return failure();
  Type target =
      *shape ? Type(RankedTensorType::get(**shape, element)) : element;
  SmallVector<Value> values;
  for (const Operand &operand : operands) {
    FailureOr<Value> value = convert(operand, target, "an operand of " + what);
    if (failed(value))
      return failure();
    values.push_back(*value);
  }
  return values;
}

FailureOr<Value> Emitter::emitValue(const Expr &expr) {
  FailureOr<Operand> operand = emitExpr(expr);
  if (failed(operand))
    return failure();
  if (!operand->isLiteral())
    return operand->value;
  return materialize(*operand->literal,
                     defaultType(*operand->literal, builder.getContext()),
                     operand->loc, "the literal");
}

FailureOr<Value> Emitter::emitIndex(const Expr &expr, StringRef what) {
  FailureOr<Operand> operand = emitExpr(expr);
  if (failed(operand))
    return failure();
  return convert(*operand, builder.getIndexType(), what);
}

FailureOr<int64_t> Emitter::emitConstantInt(const Expr &expr, StringRef what) {
  FailureOr<Operand> operand = emitExpr(expr);
  if (failed(operand))
    return failure();
  if (!operand->isLiteral() || operand->literal->kind != Literal::Kind::Int)
    return error(expr.getLoc())
           << what << " must be a compile-time integer constant";
  return operand->literal->intValue;
}

FailureOr<Value> Emitter::emitCondition(const Expr &expr, StringRef what) {
  FailureOr<Operand> operand = emitExpr(expr);
  if (failed(operand))
    return failure();
  Type i1 = builder.getI1Type();
  if (!operand->isLiteral() && isa<RankedTensorType>(operand->value.getType()))
    return error(expr.getLoc())
           << "the condition of " << what << " must be a scalar boolean, got "
           << describe(operand->value.getType())
           << "; use where(c, a, b) to select elementwise";
  return convert(*operand, i1, "the condition of " + what);
}

FailureOr<Value> Emitter::emitConversion(Value value, Type element, SMLoc loc) {
  Type type = value.getType();
  Type from = getElementTypeOrSelf(type);
  if (from == element)
    return value;
  auto tile = dyn_cast<RankedTensorType>(type);
  if (tile && element.isIndex())
    return error(loc) << "index(...) converts scalars; got " << describe(type);
  Type target = tile ? Type(tile.clone(element)) : element;
  Location location = getLoc(loc);
  MLIRContext *ctx = builder.getContext();
  auto fromFloat = dyn_cast<FloatType>(from);
  auto toFloat = dyn_cast<FloatType>(element);
  // Between index and floats, and from i1, the way is through i32.
  Type i32 = IntegerType::get(ctx, 32);
  if ((from.isIndex() || from.isInteger(1)) && !element.isInteger(32)) {
    FailureOr<Value> through = emitConversion(value, i32, loc);
    if (failed(through))
      return failure();
    return emitConversion(*through, element, loc);
  }
  if (from.isInteger(1))
    return arith::ExtUIOp::create(builder, location, target, value).getResult();
  if (element.isIndex() && fromFloat) {
    FailureOr<Value> through = emitConversion(value, i32, loc);
    if (failed(through))
      return failure();
    return emitConversion(*through, element, loc);
  }
  if (from.isIndex() || element.isIndex())
    return arith::IndexCastOp::create(builder, location, target, value)
        .getResult();
  if (element.isInteger(1))
    return error(loc) << "there is no conversion to i1; compare instead "
                         "(x != 0)";
  if (fromFloat && toFloat) {
    if (fromFloat.getWidth() == toFloat.getWidth()) {
      // f16 <-> bf16: through f32, which holds both exactly.
      FailureOr<Value> wide = emitConversion(value, Float32Type::get(ctx), loc);
      if (failed(wide))
        return failure();
      return emitConversion(*wide, element, loc);
    }
    if (fromFloat.getWidth() < toFloat.getWidth())
      return arith::ExtFOp::create(builder, location, target, value)
          .getResult();
    return arith::TruncFOp::create(builder, location, target, value)
        .getResult();
  }
  if (toFloat)
    return arith::SIToFPOp::create(builder, location, target, value)
        .getResult();
  return arith::FPToSIOp::create(builder, location, target, value).getResult();
}

FailureOr<Operand> Emitter::emitCast(const CallExpr &call, Type element) {
  SMLoc loc = call.getLoc();
  FailureOr<Operand> operand = emitExpr(*call.args[0]);
  if (failed(operand))
    return failure();
  if (operand->isLiteral()) {
    Literal literal = *operand->literal;
    // An explicit cast may truncate a float literal toward zero.
    if (literal.kind == Literal::Kind::Float && element.isIntOrIndex() &&
        !element.isInteger(1)) {
      double truncated = std::trunc(literal.floatValue);
      if (!(truncated >= -9.2e18 && truncated <= 9.2e18))
        return error(loc) << "number " << formatNumber(literal.floatValue)
                          << " is out of range for " << describe(element);
      literal.kind = Literal::Kind::Int;
      literal.intValue = static_cast<int64_t>(truncated);
    }
    FailureOr<Value> value =
        materialize(literal, element, operand->loc, "the argument of the cast");
    if (failed(value))
      return failure();
    return Operand{*value, std::nullopt, loc};
  }
  FailureOr<Value> value = emitConversion(operand->value, element, loc);
  if (failed(value))
    return failure();
  return Operand{*value, std::nullopt, loc};
}

//===----------------------------------------------------------------------===//
// Expressions
//===----------------------------------------------------------------------===//

FailureOr<Operand> Emitter::emitExpr(const Expr &expr) {
  auto literal = [&](Literal value) -> FailureOr<Operand> {
    return Operand{Value(), value, expr.getLoc()};
  };
  switch (expr.getKind()) {
  case Expr::Kind::Int: {
    Literal value;
    value.kind = Literal::Kind::Int;
    value.intValue = cast<IntExpr>(expr).value;
    return literal(value);
  }
  case Expr::Kind::Float: {
    Literal value;
    value.kind = Literal::Kind::Float;
    value.floatValue = cast<FloatExpr>(expr).value;
    return literal(value);
  }
  case Expr::Kind::Bool: {
    Literal value;
    value.kind = Literal::Kind::Bool;
    value.boolValue = cast<BoolExpr>(expr).value;
    return literal(value);
  }
  case Expr::Kind::Name:
    return emitName(cast<NameExpr>(expr));
  case Expr::Kind::Context:
    return emitContext(cast<ContextExpr>(expr));
  case Expr::Kind::Unary:
    return emitUnary(cast<UnaryExpr>(expr));
  case Expr::Kind::Binary: {
    const auto &binary = cast<BinaryExpr>(expr);
    FailureOr<Operand> lhs = emitExpr(*binary.lhs);
    if (failed(lhs))
      return failure();
    FailureOr<Operand> rhs = emitExpr(*binary.rhs);
    if (failed(rhs))
      return failure();
    return emitBinary(binary.op, *lhs, *rhs, binary.getLoc());
  }
  case Expr::Kind::Call:
    return emitCall(cast<CallExpr>(expr));
  case Expr::Kind::Slice:
    return emitIndexed(cast<SliceExpr>(expr));
  case Expr::Kind::List:
    return error(expr.getLoc())
           << "a list [...] is only the shape argument of iota and reshape";
  case Expr::Kind::Value:
    return evaluated[cast<ValueExpr>(expr).index];
  }
  llvm_unreachable("unknown expression kind");
}

FailureOr<Operand> Emitter::emitName(const NameExpr &expr) {
  FailureOr<Symbol> symbol = resolve(expr.name, expr.getLoc());
  if (failed(symbol))
    return failure();
  switch (symbol->kind) {
  case Symbol::Kind::Param:
    return error(expr.getLoc())
           << "'" << expr.name << "' is a tensor parameter; read a slice of "
           << "it: " << expr.name << "[start :+ extent, ...]";
  case Symbol::Kind::Const:
    return Operand{Value(), symbol->constant, expr.getLoc()};
  case Symbol::Kind::Scalar:
  case Symbol::Kind::Dim:
  case Symbol::Kind::LoopIndex:
    return Operand{symbol->value, std::nullopt, expr.getLoc()};
  case Symbol::Kind::Var:
    if (failed(checkNotPipeline(symbol->value, expr.name, expr.getLoc())))
      return failure();
    return Operand{
        ReadOp::create(builder, getLoc(expr.getLoc()), symbol->value),
        std::nullopt, expr.getLoc()};
  }
  llvm_unreachable("unknown symbol kind");
}

FailureOr<Operand> Emitter::emitContext(const ContextExpr &expr) {
  Location loc = getLoc(expr.getLoc());
  auto dim = static_cast<GridDim>(expr.dim);
  Value value;
  switch (expr.field) {
  case ContextExpr::Field::Thread:
    value = ThreadIdOp::create(builder, loc);
    break;
  case ContextExpr::Field::Threads:
    value = NumThreadsOp::create(builder, loc);
    break;
  case ContextExpr::Field::Lanes:
    value = LanesOp::create(builder, loc);
    break;
  case ContextExpr::Field::Block:
    value = BlockIdOp::create(builder, loc, dim);
    break;
  case ContextExpr::Field::Blocks:
    value = NumBlocksOp::create(builder, loc, dim);
    break;
  }
  return Operand{value, std::nullopt, expr.getLoc()};
}

FailureOr<Operand> Emitter::foldBinary(BinaryOp op, const Literal &lhs,
                                       const Literal &rhs, SMLoc loc) {
  Literal result;
  bool isBool = lhs.kind == Literal::Kind::Bool;
  if (isBool != (rhs.kind == Literal::Kind::Bool) ||
      (isBool && op != BinaryOp::And && op != BinaryOp::Or &&
       op != BinaryOp::Eq && op != BinaryOp::Ne) ||
      (!isBool && (op == BinaryOp::And || op == BinaryOp::Or)))
    return error(loc) << "type mismatch in '" << spell(op)
                      << "': operands must both be numbers, or booleans "
                         "for 'and', 'or', '==' and '!='";
  if (isBool) {
    result.kind = Literal::Kind::Bool;
    bool a = lhs.boolValue, b = rhs.boolValue;
    result.boolValue = op == BinaryOp::And  ? a && b
                       : op == BinaryOp::Or ? a || b
                       : op == BinaryOp::Eq ? a == b
                                            : a != b;
    return Operand{Value(), result, loc};
  }
  bool isFloat =
      lhs.kind == Literal::Kind::Float || rhs.kind == Literal::Kind::Float;
  double a = lhs.asDouble(), b = rhs.asDouble();
  int64_t x = lhs.intValue, y = rhs.intValue;
  auto compare = [&](bool value) -> FailureOr<Operand> {
    result.kind = Literal::Kind::Bool;
    result.boolValue = value;
    return Operand{Value(), result, loc};
  };
  switch (op) {
  case BinaryOp::Lt:
    return compare(isFloat ? a < b : x < y);
  case BinaryOp::Le:
    return compare(isFloat ? a <= b : x <= y);
  case BinaryOp::Gt:
    return compare(isFloat ? a > b : x > y);
  case BinaryOp::Ge:
    return compare(isFloat ? a >= b : x >= y);
  case BinaryOp::Eq:
    return compare(isFloat ? a == b : x == y);
  case BinaryOp::Ne:
    return compare(isFloat ? a != b : x != y);
  default:
    break;
  }
  if (isFloat) {
    result.kind = Literal::Kind::Float;
    switch (op) {
    case BinaryOp::Add:
      result.floatValue = a + b;
      break;
    case BinaryOp::Sub:
      result.floatValue = a - b;
      break;
    case BinaryOp::Mul:
      result.floatValue = a * b;
      break;
    case BinaryOp::Div:
      result.floatValue = a / b;
      break;
    case BinaryOp::Rem:
      result.floatValue = std::fmod(a, b);
      break;
    default:
      llvm_unreachable("not an arithmetic operator");
    }
    // inf is a number; an overflow of finite numbers or a NaN is not.
    if (std::isnan(result.floatValue) ||
        (std::isinf(result.floatValue) && std::isfinite(a) && std::isfinite(b)))
      return error(loc) << "constant expression is not a finite number";
    return Operand{Value(), result, loc};
  }
  result.kind = Literal::Kind::Int;
  int64_t &out = result.intValue;
  bool overflow = false;
  switch (op) {
  case BinaryOp::Add:
    overflow = llvm::AddOverflow(x, y, out);
    break;
  case BinaryOp::Sub:
    overflow = llvm::SubOverflow(x, y, out);
    break;
  case BinaryOp::Mul:
    overflow = llvm::MulOverflow(x, y, out);
    break;
  case BinaryOp::Div:
  case BinaryOp::Rem:
    if (y == 0)
      return error(loc) << "division by zero in a constant expression";
    overflow = x == INT64_MIN && y == -1;
    if (!overflow)
      out = op == BinaryOp::Div ? x / y : x % y;
    break;
  default:
    llvm_unreachable("not an arithmetic operator");
  }
  if (overflow)
    return error(loc) << "integer overflow in a constant expression";
  return Operand{Value(), result, loc};
}

FailureOr<Operand> Emitter::emitBinary(BinaryOp op, Operand lhs, Operand rhs,
                                       SMLoc loc) {
  if (isBitOperator(op)) {
    if (lhs.isLiteral() && rhs.isLiteral())
      return foldBitOperator(op, *lhs.literal, *rhs.literal, loc);
    return emitBitOperator(op, lhs, rhs, loc);
  }
  if (lhs.isLiteral() && rhs.isLiteral())
    return foldBinary(op, *lhs.literal, *rhs.literal, loc);
  std::string what = ("'" + spell(op) + "'").str();
  Operand operands[] = {lhs, rhs};
  FailureOr<SmallVector<Value>> values = unify(operands, what, loc);
  if (failed(values))
    return failure();
  Value a = (*values)[0], b = (*values)[1];
  Type element = getElementTypeOrSelf(a.getType());
  bool isFloat = isa<FloatType>(element);
  bool isBool = element.isInteger(1);
  Location location = getLoc(loc);
  auto result = [&](Value value) -> FailureOr<Operand> {
    return Operand{value, std::nullopt, loc};
  };

  if (op == BinaryOp::And || op == BinaryOp::Or) {
    if (!isBool)
      return error(loc) << what << " needs booleans, got "
                        << describe(a.getType());
    if (op == BinaryOp::And)
      return result(arith::AndIOp::create(builder, location, a, b));
    return result(arith::OrIOp::create(builder, location, a, b));
  }

  std::optional<arith::CmpFPredicate> fpred;
  std::optional<arith::CmpIPredicate> ipred;
  switch (op) {
  case BinaryOp::Lt:
    fpred = arith::CmpFPredicate::OLT, ipred = arith::CmpIPredicate::slt;
    break;
  case BinaryOp::Le:
    fpred = arith::CmpFPredicate::OLE, ipred = arith::CmpIPredicate::sle;
    break;
  case BinaryOp::Gt:
    fpred = arith::CmpFPredicate::OGT, ipred = arith::CmpIPredicate::sgt;
    break;
  case BinaryOp::Ge:
    fpred = arith::CmpFPredicate::OGE, ipred = arith::CmpIPredicate::sge;
    break;
  case BinaryOp::Eq:
    fpred = arith::CmpFPredicate::OEQ, ipred = arith::CmpIPredicate::eq;
    break;
  case BinaryOp::Ne:
    fpred = arith::CmpFPredicate::UNE, ipred = arith::CmpIPredicate::ne;
    break;
  default:
    break;
  }
  if (ipred) {
    if (isBool && op != BinaryOp::Eq && op != BinaryOp::Ne)
      return error(loc) << what << " needs numbers, got "
                        << describe(a.getType());
    if (isFloat)
      return result(arith::CmpFOp::create(builder, location, *fpred, a, b));
    return result(arith::CmpIOp::create(builder, location, *ipred, a, b));
  }

  if (isBool)
    return error(loc) << what << " needs numbers, got "
                      << describe(a.getType());
  switch (op) {
  case BinaryOp::Add:
    if (isFloat)
      return result(arith::AddFOp::create(builder, location, a, b));
    return result(arith::AddIOp::create(builder, location, a, b));
  case BinaryOp::Sub:
    if (isFloat)
      return result(arith::SubFOp::create(builder, location, a, b));
    return result(arith::SubIOp::create(builder, location, a, b));
  case BinaryOp::Mul:
    if (isFloat)
      return result(arith::MulFOp::create(builder, location, a, b));
    return result(arith::MulIOp::create(builder, location, a, b));
  case BinaryOp::Div:
    if (isFloat)
      return result(arith::DivFOp::create(builder, location, a, b));
    return result(arith::DivSIOp::create(builder, location, a, b));
  case BinaryOp::Rem:
    if (isFloat)
      return result(arith::RemFOp::create(builder, location, a, b));
    return result(arith::RemSIOp::create(builder, location, a, b));
  default:
    llvm_unreachable("operator handled above");
  }
}

FailureOr<Operand> Emitter::emitUnary(const UnaryExpr &expr) {
  FailureOr<Operand> operand = emitExpr(*expr.operand);
  if (failed(operand))
    return failure();
  SMLoc loc = expr.getLoc();
  if (expr.op == UnaryOp::BitNot)
    return emitComplement(*operand, loc);
  if (operand->isLiteral()) {
    Literal value = *operand->literal;
    if (expr.op == UnaryOp::Not) {
      if (value.kind != Literal::Kind::Bool)
        return error(loc) << "'not' needs a boolean";
      value.boolValue = !value.boolValue;
    } else if (value.kind == Literal::Kind::Bool) {
      return error(loc) << "unary '-' needs a number";
    } else if (value.kind == Literal::Kind::Float) {
      value.floatValue = -value.floatValue;
    } else if (value.intValue == INT64_MIN) {
      return error(loc) << "integer overflow in a constant expression";
    } else {
      value.intValue = -value.intValue;
    }
    return Operand{Value(), value, loc};
  }
  Value value = operand->value;
  Type type = value.getType();
  Type element = getElementTypeOrSelf(type);
  Location location = getLoc(loc);
  auto constant = [&](Literal::Kind kind, int64_t intValue) {
    Literal literal;
    literal.kind = kind;
    literal.intValue = intValue;
    literal.boolValue = intValue != 0;
    return materialize(literal, type, loc, "the constant");
  };
  if (expr.op == UnaryOp::Not) {
    if (!element.isInteger(1))
      return error(loc) << "'not' needs a boolean, got " << describe(type);
    FailureOr<Value> ones = constant(Literal::Kind::Bool, 1);
    if (failed(ones))
      return failure();
    return Operand{arith::XOrIOp::create(builder, location, value, *ones),
                   std::nullopt, loc};
  }
  if (element.isInteger(1))
    return error(loc) << "unary '-' needs a number, got " << describe(type);
  if (isa<FloatType>(element))
    return Operand{arith::NegFOp::create(builder, location, value),
                   std::nullopt, loc};
  FailureOr<Value> zero = constant(Literal::Kind::Int, 0);
  if (failed(zero))
    return failure();
  return Operand{arith::SubIOp::create(builder, location, *zero, value),
                 std::nullopt, loc};
}
