//===- SizeExpr.cpp - dimensions of global tensors as expressions ---------===//

#include "tile/Dialect/Tile/IR/SizeExpr.h"
#include "tile/Dialect/Tile/IR/TileDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "llvm/ADT/StringExtras.h"

using namespace mlir;
using namespace mlir::tile;

bool mlir::tile::isSymbolSize(StringRef text) { return isIdentifier(text); }

namespace {
/// expr := term (("+" | "-") term)*; term := factor ("*" factor)*;
/// factor := INTEGER | IDENT | "(" expr ")" | "-" factor.
class SizeParser {
public:
  SizeParser(StringRef text, SmallVectorImpl<StringAttr> &symbols,
             MLIRContext *context, std::string &error)
      : text(text), symbols(symbols), context(context), error(error) {}

  FailureOr<AffineExpr> parse() {
    FailureOr<AffineExpr> expr = parseExpr();
    skipBlanks();
    if (succeeded(expr) && pos != text.size())
      return fail(StringRef("/%").contains(text[pos])
                      ? "a size is affine in its symbols: + - and * by an "
                        "integer, not '" +
                            text.substr(pos, 1).str() + "'"
                      : "unexpected '" + text.substr(pos, 1).str() + "'");
    if (succeeded(expr) && !sawSymbol)
      return fail("a size without a symbol is an integer");
    return expr;
  }

  /// The text as parsed, one space around each binary operator.
  std::string canonical;

private:
  FailureOr<AffineExpr> fail(const std::string &message) {
    if (error.empty())
      error = message;
    return failure();
  }
  void skipBlanks() {
    while (pos < text.size() && text[pos] == ' ')
      ++pos;
  }
  bool consume(char c) {
    skipBlanks();
    if (pos < text.size() && text[pos] == c) {
      ++pos;
      return true;
    }
    return false;
  }

  FailureOr<AffineExpr> parseExpr() {
    FailureOr<AffineExpr> lhs = parseTerm();
    while (succeeded(lhs)) {
      bool plus = consume('+');
      if (!plus && !consume('-'))
        break;
      canonical += plus ? " + " : " - ";
      FailureOr<AffineExpr> rhs = parseTerm();
      if (failed(rhs))
        return failure();
      lhs = plus ? *lhs + *rhs : *lhs - *rhs;
    }
    return lhs;
  }

  FailureOr<AffineExpr> parseTerm() {
    FailureOr<AffineExpr> lhs = parseFactor();
    while (succeeded(lhs) && consume('*')) {
      canonical += " * ";
      FailureOr<AffineExpr> rhs = parseFactor();
      if (failed(rhs))
        return failure();
      if (!isa<AffineConstantExpr>(*lhs) && !isa<AffineConstantExpr>(*rhs))
        return fail("one factor of '*' must be an integer (a size is "
                    "affine in its symbols)");
      lhs = *lhs * *rhs;
    }
    return lhs;
  }

  FailureOr<AffineExpr> parseFactor() {
    skipBlanks();
    if (consume('(')) {
      canonical += "(";
      FailureOr<AffineExpr> inner = parseExpr();
      if (succeeded(inner) && !consume(')'))
        return fail("expected ')'");
      canonical += ")";
      return inner;
    }
    if (consume('-')) {
      canonical += "-";
      FailureOr<AffineExpr> inner = parseFactor();
      if (failed(inner))
        return failure();
      return -*inner;
    }
    size_t start = pos;
    if (pos < text.size() && llvm::isDigit(text[pos])) {
      while (pos < text.size() && llvm::isDigit(text[pos]))
        ++pos;
      int64_t value;
      if (text.substr(start, pos - start).getAsInteger(10, value) ||
          value > (int64_t(1) << 31) - 1)
        return fail("integer " + text.substr(start, pos - start).str() +
                    " in a size is over 2^31 - 1");
      canonical += std::to_string(value);
      return getAffineConstantExpr(value, context);
    }
    while (pos < text.size() && (llvm::isAlnum(text[pos]) || text[pos] == '_'))
      ++pos;
    StringRef name = text.substr(start, pos - start);
    if (!isIdentifier(name))
      return fail(pos < text.size()
                      ? "unexpected '" + text.substr(pos, 1).str() + "'"
                      : "expected an integer, a symbol or '('");
    sawSymbol = true;
    canonical += name.str();
    StringAttr symbol = StringAttr::get(context, name);
    auto *found = llvm::find(symbols, symbol);
    if (found == symbols.end()) {
      symbols.push_back(symbol);
      found = std::prev(symbols.end());
    }
    return getAffineSymbolExpr(found - symbols.begin(), context);
  }

  StringRef text;
  SmallVectorImpl<StringAttr> &symbols;
  MLIRContext *context;
  std::string &error;
  size_t pos = 0;
  bool sawSymbol = false;
};
} // namespace

FailureOr<AffineExpr>
mlir::tile::parseSizeExpr(StringRef text, SmallVectorImpl<StringAttr> &symbols,
                          MLIRContext *context, std::string &error,
                          std::string *canonical) {
  SizeParser parser(text, symbols, context, error);
  FailureOr<AffineExpr> expr = parser.parse();
  if (succeeded(expr) && canonical)
    *canonical = std::move(parser.canonical);
  return expr;
}

Value mlir::tile::buildSizeValue(OpBuilder &builder, Location loc,
                                 AffineExpr size,
                                 function_ref<Value(unsigned)> symbolValue) {
  if (auto constant = dyn_cast<AffineConstantExpr>(size))
    return arith::ConstantIndexOp::create(builder, loc, constant.getValue());
  if (auto symbol = dyn_cast<AffineSymbolExpr>(size))
    return symbolValue(symbol.getPosition());
  auto binary = cast<AffineBinaryOpExpr>(size);
  Value lhs = buildSizeValue(builder, loc, binary.getLHS(), symbolValue);
  Value rhs = buildSizeValue(builder, loc, binary.getRHS(), symbolValue);
  if (size.getKind() == AffineExprKind::Add)
    return arith::AddIOp::create(builder, loc, lhs, rhs);
  assert(size.getKind() == AffineExprKind::Mul && "sizes are + - * only");
  return arith::MulIOp::create(builder, loc, lhs, rhs);
}

SmallVector<StringAttr> mlir::tile::getSizeSymbols(GlobalTensorType tensor) {
  SmallVector<StringAttr> names;
  std::string ignored; // the type's verifier parsed each size already
  for (StringAttr size : tensor.getSymbols())
    (void)parseSizeExpr(size.getValue(), names, tensor.getContext(), ignored);
  return names;
}

AffineExpr mlir::tile::getSizeExpr(GlobalTensorType tensor, unsigned dim,
                                   SmallVectorImpl<StringAttr> &symbols) {
  if (!tensor.isDynamicDim(dim))
    return getAffineConstantExpr(tensor.getShape()[dim], tensor.getContext());
  std::string ignored;
  return *parseSizeExpr(tensor.getSymbolOfDim(dim).getValue(), symbols,
                        tensor.getContext(), ignored);
}

SmallVector<StringAttr> mlir::tile::getIntegerScalarNames(KernelOp kernel) {
  SmallVector<StringAttr> names;
  for (auto [index, type] : llvm::enumerate(kernel.getArgumentTypes()))
    if (type.isInteger(32) || type.isIndex())
      names.push_back(
          StringAttr::get(kernel.getContext(), kernel.getParamName(index)));
  return names;
}

SmallVector<StringAttr> mlir::tile::getGridSymbols(KernelOp kernel) {
  SmallVector<StringAttr> names = kernel.getSymbols();
  std::optional<AffineMap> grid = kernel.getGrid();
  if (grid && grid->getNumSymbols() > names.size())
    llvm::append_range(names, getIntegerScalarNames(kernel));
  return names;
}
