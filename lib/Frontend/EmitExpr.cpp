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
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/MathExtras.h"

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

std::string Emitter::describe(Type type) {
  std::string text;
  llvm::raw_string_ostream os(text);
  if (auto tile = dyn_cast<RankedTensorType>(type)) {
    os << "tile<" << tile.getElementType() << ">[";
    llvm::interleaveComma(tile.getShape(), os);
    os << "]";
  } else {
    os << type;
  }
  return text;
}

FailureOr<Type> Emitter::emitDtype(StringRef name, SMLoc loc, DtypeUse use) {
  MLIRContext *ctx = builder.getContext();
  Type type =
      llvm::StringSwitch<Type>(name)
          .Case("f32", Float32Type::get(ctx))
          .Case("f16", Float16Type::get(ctx))
          .Case("bf16", BFloat16Type::get(ctx))
          .Case("i32", IntegerType::get(ctx, 32))
          .Case("i1",
                use != DtypeUse::Tensor ? IntegerType::get(ctx, 1) : Type())
          .Case("index", use == DtypeUse::Scalar ? IndexType::get(ctx) : Type())
          .Default(Type());
  if (type)
    return type;
  auto diag = error(loc) << "unknown element type '" << name << "'; expected ";
  switch (use) {
  case DtypeUse::Tensor:
    diag << "f32, f16, bf16 or i32";
    break;
  case DtypeUse::Tile:
    diag << "f32, f16, bf16, i32 or i1";
    break;
  case DtypeUse::Scalar:
    diag << "f32, f16, bf16, i32, i1 or index";
    break;
  }
  return failure();
}

LogicalResult Emitter::checkTileShape(ArrayRef<int64_t> shape, SMLoc loc) {
  int64_t elements = 1;
  for (int64_t size : shape)
    if (llvm::MulOverflow(elements, size, elements) ||
        elements > kMaxTileElements)
      return error(loc) << "a tile holds at most " << kMaxTileElements
                        << " elements";
  return success();
}

FailureOr<Type> Emitter::emitVarType(const TypeRef &type) {
  // A pipeline's type is that of each of its stages.
  bool isTile = type.kind != TypeRef::Kind::Scalar;
  FailureOr<Type> element = emitDtype(
      type.dtype, type.dtypeLoc, isTile ? DtypeUse::Tile : DtypeUse::Scalar);
  if (failed(element))
    return failure();
  if (!isTile)
    return *element;
  SmallVector<int64_t> shape;
  for (const Dim &dim : type.dims) {
    FailureOr<int64_t> size = emitDimSize(dim);
    if (failed(size))
      return failure();
    shape.push_back(*size);
  }
  if (failed(checkTileShape(shape, type.loc)))
    return failure();
  return Type(RankedTensorType::get(shape, *element));
}

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

//===----------------------------------------------------------------------===//
// Calls
//===----------------------------------------------------------------------===//

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

//===----------------------------------------------------------------------===//
// Slices
//===----------------------------------------------------------------------===//

Value Emitter::emitExp(Value x, Location loc) {
  // The hardware's path, `__expf` (ex2.approx of x * log2(e)): at most
  // 2 + floor(1.173 |x|) ulp from exp (docs/spec.md, "Math").
  return math::ExpOp::create(builder, loc, x, arith::FastMathFlags::afn);
}

FailureOr<Emitter::Slice> Emitter::emitSlice(const SliceExpr &expr) {
  StringRef name = expr.baseName();
  SMLoc nameLoc = expr.base->getLoc();
  FailureOr<Symbol> symbol = resolve(name, nameLoc);
  if (failed(symbol))
    return failure();
  if (symbol->kind != Symbol::Kind::Param)
    return error(nameLoc) << "only tensor parameters can be sliced; '" << name
                          << "' is not one";
  Slice slice;
  slice.tensor = symbol->value;
  slice.type = cast<GlobalTensorType>(slice.tensor.getType());
  int64_t rank = slice.type.getRank();
  if (expr.ranges.size() != static_cast<size_t>(rank))
    return error(expr.getLoc()) << "'" << name << "' has " << rank
                                << (rank == 1 ? " dimension" : " dimensions")
                                << " but the slice has " << expr.ranges.size();
  // Each range contributes its extent to its dimension, each index tile
  // its shape; the tile's shape is their broadcast.
  SmallVector<int64_t> shape(rank, 1), extents(rank, 0);
  SmallVector<SMLoc> extentLocs(rank);
  for (auto [dim, range] : llvm::enumerate(expr.ranges)) {
    FailureOr<Operand> start = emitExpr(*range.start);
    if (failed(start))
      return failure();
    auto indexTile = start->isLiteral()
                         ? RankedTensorType()
                         : dyn_cast<RankedTensorType>(start->value.getType());
    if (indexTile) {
      if (range.isRange())
        return error(range.extent->getLoc())
               << "an index tile gives the coordinates of a whole dimension; "
                  "it takes no extent (write "
               << name << "[rows, ...])";
      if (!indexTile.getElementType().isInteger(32))
        return error(range.start->getLoc())
               << "an index tile in a slice is of i32, got "
               << describe(indexTile);
      if (indexTile.getRank() != rank)
        return error(range.start->getLoc())
               << "an index tile of '" << name << "' has its rank, " << rank
               << "; got " << describe(indexTile) << " (a [R, 1] tile gives "
               << "one index per row)";
      slice.indices.push_back(start->value);
      slice.indexDims.push_back(dim);
      slice.offsets.push_back(arith::ConstantIndexOp::create(
          builder, getLoc(range.start->getLoc()), 0));
      continue;
    }
    FailureOr<Value> offset =
        convert(*start, builder.getIndexType(), "the slice start");
    if (failed(offset))
      return failure();
    // A single index is a range of one element.
    int64_t extent = 1;
    if (range.isRange()) {
      FailureOr<int64_t> constant =
          emitConstantInt(*range.extent, "a slice extent");
      if (failed(constant))
        return failure();
      extent = *constant;
    }
    extentLocs[dim] =
        range.isRange() ? range.extent->getLoc() : range.start->getLoc();
    if (extent <= 0)
      return error(extentLocs[dim])
             << "a slice extent must be positive, got " << extent;
    int64_t size = slice.type.getShape()[dim];
    if (!ShapedType::isDynamic(size) && extent > size)
      return error(extentLocs[dim])
             << "slice extent " << extent << " exceeds dimension " << dim
             << " of '" << name << "', which has size " << size;
    slice.offsets.push_back(*offset);
    extents[dim] = shape[dim] = extent;
  }
  for (auto [index, dim] : llvm::zip(slice.indices, slice.indexDims)) {
    auto type = cast<RankedTensorType>(index.getType());
    for (int64_t d = 0; d < rank; ++d) {
      int64_t size = type.getDimSize(d);
      if (size == 1 || size == shape[d])
        continue;
      if (shape[d] != 1 || extents[d] > 0)
        return error(expr.ranges[dim].start->getLoc())
               << "shape mismatch in the slice of '" << name
               << "': the index tile " << describe(type) << " has " << size
               << " in dimension " << d << ", where the slice has " << shape[d];
      shape[d] = size;
    }
  }
  if (failed(checkTileShape(shape, expr.getLoc())))
    return failure();
  slice.tileType = RankedTensorType::get(shape, slice.type.getElementType());
  return slice;
}

Value Emitter::emitLoad(const Slice &slice, SMLoc loc, Value other) {
  if (slice.isGather())
    return GatherOp::create(builder, getLoc(loc), slice.tileType, slice.tensor,
                            slice.offsets, slice.indices, slice.indexDims,
                            other);
  return LoadOp::create(builder, getLoc(loc), slice.tileType, slice.tensor,
                        slice.offsets, other);
}

void Emitter::emitStore(const Slice &slice, Value value, Value mask,
                        Location loc) {
  if (slice.isGather()) {
    ScatterOp::create(builder, loc, value, slice.tensor, slice.offsets,
                      slice.indices, slice.indexDims, mask);
    return;
  }
  StoreOp::create(builder, loc, value, slice.tensor, slice.offsets, mask);
}

FailureOr<Emitter::SubTile> Emitter::emitSubTile(const SliceExpr &expr,
                                                 RankedTensorType type) {
  if (expr.ranges.size() != static_cast<size_t>(type.getRank()))
    return error(expr.getLoc())
           << "a " << describe(type) << " has " << type.getRank()
           << (type.getRank() == 1 ? " dimension" : " dimensions")
           << " but the index has " << expr.ranges.size();
  SubTile sub;
  for (auto [dim, range] : llvm::enumerate(expr.ranges)) {
    FailureOr<Literal> start =
        evaluateConstant(*range.start, "an index into a tile");
    if (failed(start))
      return failure();
    int64_t extent = 1;
    if (range.isRange()) {
      FailureOr<Literal> size =
          evaluateConstant(*range.extent, "an index into a tile");
      if (failed(size))
        return failure();
      if (size->kind != Literal::Kind::Int || size->intValue <= 0)
        return error(range.extent->getLoc())
               << "an extent in a tile is a positive integer constant";
      extent = size->intValue;
      sub.isElement = false;
    }
    // start > size - extent, not start + extent > size, which overflows
    // for a start near 2^63 (utils/fuzz.py seed 103).
    if (start->kind != Literal::Kind::Int || start->intValue < 0 ||
        extent > type.getDimSize(dim) ||
        start->intValue > type.getDimSize(dim) - extent)
      return error(range.start->getLoc())
             << (range.isRange() ? "the sub-tile " : "the index ")
             << (start->kind == Literal::Kind::Int
                     ? std::to_string(start->intValue)
                     : std::string("(a number)"))
             << (range.isRange() ? " :+ " + std::to_string(extent)
                                 : std::string())
             << " is outside dimension " << dim << " of a " << describe(type)
             << ": an index into a tile is a constant inside it";
    sub.offsets.push_back(start->intValue);
    sub.shape.push_back(extent);
  }
  return sub;
}

FailureOr<Operand> Emitter::emitIndexed(const SliceExpr &expr) {
  StringRef name = expr.baseName();
  if (!name.empty() && failed(resolve(name, expr.base->getLoc())))
    return failure();
  const Symbol *symbol = name.empty() ? nullptr : lookup(name);
  if (symbol && symbol->kind == Symbol::Kind::Param) {
    FailureOr<Slice> slice = emitSlice(expr);
    if (failed(slice))
      return failure();
    return Operand{emitLoad(*slice, expr.getLoc()), std::nullopt,
                   expr.getLoc()};
  }
  // A tile value: an element, or a sub-tile.
  FailureOr<Operand> base = emitExpr(*expr.base);
  if (failed(base))
    return failure();
  auto type = base->isLiteral()
                  ? RankedTensorType()
                  : dyn_cast<RankedTensorType>(base->value.getType());
  if (!type)
    return error(expr.base->getLoc())
           << "only tensors and tiles can be indexed; this is "
           << (base->isLiteral()
                   ? std::string("a literal")
                   : "a scalar " + describe(base->value.getType()));
  FailureOr<SubTile> sub = emitSubTile(expr, type);
  if (failed(sub))
    return failure();
  Location loc = getLoc(expr.getLoc());
  if (sub->isElement)
    return Operand{ExtractOp::create(builder, loc, base->value, sub->offsets),
                   std::nullopt, expr.getLoc()};
  return Operand{ExtractSliceOp::create(builder, loc, type.clone(sub->shape),
                                        base->value, sub->offsets),
                 std::nullopt, expr.getLoc()};
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
