//===- EmitTypes.cpp - the types .tile source names -----------------------===//
//
// Element types by where they appear (tensors, tiles, scalars), tile shapes
// within what fits on chip, and the types of parameters and vars.
//
//===----------------------------------------------------------------------===//

#include "Emitter.h"

#include "tile/Dialect/Tile/IR/SizeExpr.h"

#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tile::frontend;
using llvm::SMLoc;
using llvm::StringRef;

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

FailureOr<Type> Emitter::emitParamType(const Param &param) {
  const TypeRef &type = param.type;
  if (type.kind == TypeRef::Kind::Scalar) {
    FailureOr<Type> element =
        emitDtype(type.dtype, type.dtypeLoc, DtypeUse::Scalar);
    if (failed(element))
      return failure();
    if (element->isInteger(1))
      return error(type.dtypeLoc) << "a scalar parameter is f32, f16, bf16, "
                                     "i32 or index, not i1";
    return *element;
  }
  FailureOr<Type> element =
      emitDtype(type.dtype, type.dtypeLoc, DtypeUse::Tensor);
  if (failed(element))
    return failure();
  SmallVector<int64_t> shape;
  SmallVector<StringAttr> symbols;
  for (const Dim &dim : type.dims) {
    // An expression of symbols (`2 * H`), or of integers and consts only.
    if (dim.expr || (!dim.symbol.empty() && !isIdentifier(dim.symbol))) {
      int64_t size = 0;
      FailureOr<std::optional<StringAttr>> text = emitSizeExprDim(dim, size);
      if (failed(text))
        return failure();
      shape.push_back(*text ? ShapedType::kDynamic : size);
      if (*text)
        symbols.push_back(**text);
      continue;
    }
    // A name is a symbol unless it is a const.
    if (dim.symbol.empty() || lookupConst(dim.symbol)) {
      FailureOr<int64_t> size = emitDimSize(dim);
      if (failed(size))
        return failure();
      shape.push_back(*size);
      continue;
    }
    shape.push_back(ShapedType::kDynamic);
    symbols.push_back(builder.getStringAttr(dim.symbol));
  }
  return Type(
      GlobalTensorType::get(builder.getContext(), shape, symbols, *element));
}

FailureOr<int64_t> Emitter::emitDimSize(const Dim &dim) {
  if (dim.symbol.empty())
    return dim.size;
  const Literal *constant = lookupConst(dim.symbol);
  if (!constant) {
    if (lookup(dim.symbol))
      return error(dim.loc) << "'" << dim.symbol
                            << "' is not a const; a tile dimension is an "
                               "integer or the name of a const";
    return error(dim.loc) << "undefined name '" << dim.symbol
                          << "'; a tile dimension is an integer or the name "
                             "of a const";
  }
  if (constant->kind != Literal::Kind::Int || constant->intValue <= 0)
    return error(dim.loc) << "a dimension must be a positive integer; const '"
                          << dim.symbol << "' is "
                          << (constant->kind == Literal::Kind::Int
                                  ? std::to_string(constant->intValue)
                                  : "a number");
  return constant->intValue;
}

FailureOr<std::string> Emitter::emitSizeText(const Expr &expr) {
  auto usage = [&](const Expr &at) {
    return error(at.getLoc())
           << "a tensor dimension is an integer, a symbol or a const, or an "
              "expression of them with + - * (2 * H, H + 1)";
  };
  // An operand in parentheses where the operator binds tighter than it.
  auto operand = [&](const Expr &child,
                     bool parenthesizeSums) -> FailureOr<std::string> {
    FailureOr<std::string> text = emitSizeText(child);
    auto *binary = dyn_cast<BinaryExpr>(&child);
    if (succeeded(text) && binary && parenthesizeSums &&
        binary->op != BinaryOp::Mul)
      return "(" + *text + ")";
    return text;
  };
  if (auto *integer = dyn_cast<IntExpr>(&expr))
    return std::to_string(integer->value);
  if (auto *name = dyn_cast<NameExpr>(&expr)) {
    const Literal *constant = lookupConst(name->name);
    if (!constant)
      return name->name.str();
    if (constant->kind != Literal::Kind::Int)
      return error(expr.getLoc()) << "const '" << name->name
                                  << "' is a number; a dimension is made of "
                                     "integers";
    return std::to_string(constant->intValue);
  }
  if (auto *unary = dyn_cast<UnaryExpr>(&expr)) {
    if (unary->op != UnaryOp::Neg)
      return usage(expr);
    FailureOr<std::string> inner = operand(*unary->operand, true);
    if (failed(inner))
      return failure();
    return "-" + *inner;
  }
  auto *binary = dyn_cast<BinaryExpr>(&expr);
  if (!binary || (binary->op != BinaryOp::Add && binary->op != BinaryOp::Sub &&
                  binary->op != BinaryOp::Mul))
    return usage(expr);
  bool isProduct = binary->op == BinaryOp::Mul;
  FailureOr<std::string> lhs = operand(*binary->lhs, isProduct);
  if (failed(lhs))
    return failure();
  FailureOr<std::string> rhs =
      operand(*binary->rhs, binary->op != BinaryOp::Add);
  if (failed(rhs))
    return failure();
  return *lhs + " " + spell(binary->op).str() + " " + *rhs;
}

FailureOr<std::optional<StringAttr>> Emitter::emitSizeExprDim(const Dim &dim,
                                                              int64_t &size) {
  std::string text = dim.symbol.str(); // a front end's text (Python)
  if (dim.expr) {
    FailureOr<std::string> spelled = emitSizeText(*dim.expr);
    if (failed(spelled))
      return failure();
    text = *spelled;
  }
  SmallVector<StringAttr> names;
  std::string why, canonical;
  if (succeeded(
          parseSizeExpr(text, names, builder.getContext(), why, &canonical)))
    return std::optional<StringAttr>(builder.getStringAttr(canonical));
  if (!names.empty() || !dim.expr)
    return error(dim.loc) << "tensor dimension '" << text << "': " << why;
  // Integers and consts only: a static size.
  FailureOr<Literal> value = evaluateConstant(*dim.expr, "a tensor dimension");
  if (failed(value))
    return failure();
  if (value->kind != Literal::Kind::Int || value->intValue <= 0)
    return error(dim.loc) << "a dimension must be a positive integer, got '"
                          << text << "'";
  size = value->intValue;
  return std::optional<StringAttr>();
}
