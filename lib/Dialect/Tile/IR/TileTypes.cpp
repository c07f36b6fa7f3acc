//===- TileTypes.cpp - tile dialect types ---------------------------------===//

#include "tile/Dialect/Tile/IR/SizeExpr.h"
#include "tile/Dialect/Tile/IR/TileDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::tile;

#define GET_TYPEDEF_CLASSES
#include "tile/Dialect/Tile/IR/TileTypes.cpp.inc"

void TileDialect::registerTypes() {
  addTypes<
#define GET_TYPEDEF_LIST
#include "tile/Dialect/Tile/IR/TileTypes.cpp.inc"
      >();
}

static LogicalResult verifyElementType(function_ref<InFlightDiagnostic()> emit,
                                       Type type) {
  if (type.isF16() || type.isBF16() || type.isF32() || type.isInteger(1) ||
      type.isInteger(32))
    return success();
  return emit() << "element type must be f16, bf16, f32, i1 or i32, got "
                << type;
}

//===----------------------------------------------------------------------===//
// GlobalTensorType: !tile.tensor<[16, K], f32>
//===----------------------------------------------------------------------===//

Type GlobalTensorType::parse(AsmParser &parser) {
  SmallVector<int64_t> shape;
  SmallVector<StringAttr> symbols;
  Type elementType;
  auto parseDim = [&]() -> ParseResult {
    int64_t size;
    OptionalParseResult isInt = parser.parseOptionalInteger(size);
    if (isInt.has_value()) {
      if (failed(*isInt))
        return failure();
      shape.push_back(size);
      return success();
    }
    std::string name;
    if (parser.parseKeywordOrString(&name))
      return failure();
    shape.push_back(ShapedType::kDynamic);
    symbols.push_back(StringAttr::get(parser.getContext(), name));
    return success();
  };
  if (parser.parseLess() ||
      parser.parseCommaSeparatedList(AsmParser::Delimiter::Square, parseDim) ||
      parser.parseComma() || parser.parseType(elementType) ||
      parser.parseGreater())
    return {};
  return getChecked([&] { return parser.emitError(parser.getNameLoc()); },
                    parser.getContext(), shape, symbols, elementType);
}

void GlobalTensorType::print(AsmPrinter &printer) const {
  printer << "<[";
  unsigned nextSymbol = 0;
  llvm::interleaveComma(getShape(), printer, [&](int64_t size) {
    if (ShapedType::isDynamic(size))
      printer.printKeywordOrString(getSymbols()[nextSymbol++].getValue());
    else
      printer << size;
  });
  printer << "], " << getElementType() << ">";
}

LogicalResult
GlobalTensorType::verify(function_ref<InFlightDiagnostic()> emitError,
                         ArrayRef<int64_t> shape, ArrayRef<StringAttr> symbols,
                         Type elementType) {
  if (shape.empty())
    return emitError() << "a tensor parameter needs at least one dimension";
  size_t dynamic = llvm::count_if(shape, ShapedType::isDynamic);
  if (dynamic != symbols.size())
    return emitError() << "expected one symbol per dynamic dimension ("
                       << dynamic << "), got " << symbols.size();
  for (int64_t size : shape)
    if (!ShapedType::isDynamic(size) && size <= 0)
      return emitError() << "tensor dimensions must be positive, got " << size;
  for (StringAttr symbol : symbols) {
    if (!symbol || symbol.getValue().empty())
      return emitError() << "a symbolic dimension is a symbol or an "
                            "expression of symbols, got ''";
    if (isIdentifier(symbol.getValue()))
      continue;
    SmallVector<StringAttr> names;
    std::string why, canonical;
    if (failed(parseSizeExpr(symbol.getValue(), names, symbol.getContext(), why,
                             &canonical)))
      return emitError() << "a symbolic dimension is a symbol "
                            "([A-Za-z_][A-Za-z0-9_]*) or an affine expression "
                            "of symbols and integers (+ - *), got '"
                         << symbol.getValue() << "': " << why;
    // One spelling per size, so that equal sizes are equal types.
    if (canonical != symbol.getValue())
      return emitError() << "write the size '" << symbol.getValue() << "' as '"
                         << canonical << "' (one space around each operator)";
  }
  return verifyElementType(emitError, elementType);
}

StringAttr GlobalTensorType::getSymbolOfDim(unsigned dim) const {
  if (!isDynamicDim(dim))
    return {};
  unsigned before =
      llvm::count_if(getShape().take_front(dim), ShapedType::isDynamic);
  return getSymbols()[before];
}

//===----------------------------------------------------------------------===//
// VarType: !tile.var<16x64xf32>, !tile.var<i32>
//===----------------------------------------------------------------------===//

Type VarType::parse(AsmParser &parser) {
  SmallVector<int64_t> shape;
  Type elementType;
  if (parser.parseLess() ||
      parser.parseDimensionList(shape, /*allowDynamic=*/false,
                                /*withTrailingX=*/true) ||
      parser.parseType(elementType) || parser.parseGreater())
    return {};
  return getChecked([&] { return parser.emitError(parser.getNameLoc()); },
                    parser.getContext(), shape, elementType);
}

void VarType::print(AsmPrinter &printer) const {
  printer << "<";
  for (int64_t size : getShape())
    printer << size << "x";
  printer << getElementType() << ">";
}

LogicalResult VarType::verify(function_ref<InFlightDiagnostic()> emitError,
                              ArrayRef<int64_t> shape, Type elementType) {
  for (int64_t size : shape)
    if (size <= 0)
      return emitError() << "tile dimensions must be positive, got " << size;
  if (shape.empty() && elementType.isIndex())
    return success();
  return verifyElementType(emitError, elementType);
}

Type VarType::getValueType() const {
  if (isScalar())
    return getElementType();
  return RankedTensorType::get(getShape(), getElementType());
}
