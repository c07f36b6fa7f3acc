//===- TileOps.cpp - tile dialect ops: kernels, context, helpers --------===//

// The ops by family: kernels and context ops here, vars and memory in
// TileMemoryOps.cpp, reductions, dots, shapes and layouts in
// TileComputeOps.cpp.

#include "OpVerifiers.h"
#include "tile/Dialect/Tile/IR/Layouts.h"
#include "tile/Dialect/Tile/IR/SizeExpr.h"
#include "tile/Dialect/Tile/IR/TileDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/FunctionImplementation.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::tile;

bool mlir::tile::isIdentifier(StringRef name) {
  return !name.empty() && !llvm::isDigit(name.front()) &&
         llvm::all_of(name,
                      [](char c) { return llvm::isAlnum(c) || c == '_'; });
}

bool mlir::tile::isSameIgnoringLayout(Type a, Type b) {
  auto tileA = dyn_cast<RankedTensorType>(a),
       tileB = dyn_cast<RankedTensorType>(b);
  if (!tileA || !tileB)
    return a == b;
  return tileA.getShape() == tileB.getShape() &&
         tileA.getElementType() == tileB.getElementType();
}

LogicalResult mlir::tile::verifyInsideKernel(Operation *op) {
  if (!op->getParentOfType<KernelOp>())
    return op->emitOpError("is only valid inside a tile.kernel");
  return success();
}

bool mlir::tile::isScalarParamType(Type type) {
  return type.isF16() || type.isBF16() || type.isF32() || type.isInteger(32) ||
         type.isIndex();
}

int64_t mlir::tile::getNumElements(Type type) {
  if (auto shaped = dyn_cast<RankedTensorType>(type))
    return shaped.getNumElements();
  return 1;
}

//===----------------------------------------------------------------------===//
// KernelOp
//===----------------------------------------------------------------------===//

void KernelOp::build(OpBuilder &builder, OperationState &state, StringRef name,
                     FunctionType type, int64_t threads) {
  state.addAttribute(getSymNameAttrName(state.name),
                     builder.getStringAttr(name));
  state.addAttribute(getFunctionTypeAttrName(state.name), TypeAttr::get(type));
  state.addAttribute(getThreadsAttrName(state.name),
                     builder.getI64IntegerAttr(threads));
  Region *body = state.addRegion();
  Block *block = new Block();
  body->push_back(block);
  for (Type input : type.getInputs())
    block->addArgument(input, state.location);
}

ParseResult KernelOp::parse(OpAsmParser &parser, OperationState &result) {
  auto buildFuncType =
      [](Builder &builder, ArrayRef<Type> argTypes, ArrayRef<Type> results,
         function_interface_impl::VariadicFlag,
         std::string &) { return builder.getFunctionType(argTypes, results); };
  SMLoc loc = parser.getCurrentLocation();
  if (function_interface_impl::parseFunctionOp(
          parser, result, /*allowVariadic=*/false,
          getFunctionTypeAttrName(result.name), buildFuncType,
          getArgAttrsAttrName(result.name), getResAttrsAttrName(result.name)))
    return failure();
  return verifyParsedAttrs<KernelOp>(parser, loc, result);
}

void KernelOp::print(OpAsmPrinter &p) {
  function_interface_impl::printFunctionOp(
      p, *this, /*isVariadic=*/false, getFunctionTypeAttrName(),
      getArgAttrsAttrName(), getResAttrsAttrName());
}

SmallVector<StringAttr> KernelOp::getSymbols() {
  SmallVector<StringAttr> symbols;
  for (Type type : getArgumentTypes())
    if (auto tensor = dyn_cast<GlobalTensorType>(type))
      for (StringAttr symbol : getSizeSymbols(tensor))
        if (!llvm::is_contained(symbols, symbol))
          symbols.push_back(symbol);
  return symbols;
}

SmallVector<StringRef> KernelOp::getRegisterNames() {
  SmallVector<StringRef> names;
  if (std::optional<ArrayAttr> registers = getRegisters())
    for (Attribute name : *registers)
      names.push_back(cast<StringAttr>(name).getValue());
  return names;
}

std::string KernelOp::getParamName(unsigned index) {
  if (auto name = getArgAttrOfType<StringAttr>(index, kParamNameAttr))
    return name.str();
  if (auto loc = dyn_cast<NameLoc>(getArgument(index).getLoc());
      loc && isIdentifier(loc.getName()))
    return loc.getName().str();
  return "arg" + std::to_string(index);
}

LogicalResult
mlir::tile::verifyPipelineOption(StringRef key, Attribute value,
                                 function_ref<InFlightDiagnostic()> emitError) {
  if (key == "names") {
    auto names = dyn_cast<ArrayAttr>(value);
    if (!names || !llvm::all_of(names, llvm::IsaPred<StringAttr>))
      return emitError() << "@pipeline names must be a list of names, got "
                         << value;
    return success();
  }
  if (key == "shared") {
    if (!isa<BoolAttr>(value))
      return emitError() << "@pipeline shared must be true or false";
    return success();
  }
  if (key != "stages")
    return emitError() << "unknown @pipeline option '" << key
                       << "' (the options are 'stages' and 'shared')";
  auto stages = dyn_cast<IntegerAttr>(value);
  if (stages && stages.getType().isInteger(64) && stages.getInt() >= 2 &&
      stages.getInt() <= kMaxPipelineStages)
    return success();
  // The value as the source wrote it: `9`, `2.5`, `3.0`, `true`, not
  // `9 : i64` (nor a boolean as the i1 -1 it is held in).
  InFlightDiagnostic diag = emitError()
                            << "@pipeline stages must be an integer from 2 to "
                            << kMaxPipelineStages << ", got ";
  if (auto boolean = dyn_cast<BoolAttr>(value))
    diag << (boolean.getValue() ? "true" : "false");
  else if (auto number = dyn_cast<IntegerAttr>(value))
    diag << number.getValue().getSExtValue();
  else if (auto number = dyn_cast<FloatAttr>(value)) {
    SmallString<16> text;
    number.getValue().toString(text);
    if (!StringRef(text).contains('.') &&
        !StringRef(text).contains_insensitive("e") &&
        number.getValue().isFinite())
      text += ".0";
    diag << text;
  } else
    diag << value;
  return diag;
}

/// Manifests, reports and tile-run's files name parameters by
/// getParamName: each an identifier, no two alike.
static LogicalResult verifyParamNames(KernelOp kernel) {
  llvm::StringMap<unsigned> seen;
  for (unsigned index = 0; index < kernel.getNumArguments(); ++index) {
    Attribute attr = kernel.getArgAttr(index, kParamNameAttr);
    if (attr && !isa<StringAttr>(attr))
      return kernel.emitOpError("tile.name of parameter #")
             << index << " must be a string, got " << attr;
    std::string name = kernel.getParamName(index);
    if (!isIdentifier(name))
      return kernel.emitOpError("tile.name of parameter #")
             << index << " is '" << name
             << "', not an identifier ([A-Za-z_][A-Za-z0-9_]*)";
    auto [it, inserted] = seen.try_emplace(name, index);
    if (!inserted)
      return kernel.emitOpError("parameters #")
             << it->second << " and #" << index << " are both named '" << name
             << "'";
  }
  return success();
}

/// The front end's rules for a grid expression, which keep the launch's
/// evaluation of it (docs/abi.md) from dividing by zero and the manifest
/// from holding a number it cannot read: constants within 32 bits (the
/// parser folds `(s0 * 2^61) * 4` to `s0 * -2^63`), divisors positive
/// constants.
static LogicalResult verifyGridExpr(KernelOp kernel, AffineExpr grid) {
  WalkResult walked = grid.walk([&](AffineExpr expr) {
    if (auto constant = dyn_cast<AffineConstantExpr>(expr)) {
      int64_t value = constant.getValue();
      if (value >= -INT32_MAX && value <= INT32_MAX)
        return WalkResult::advance();
      kernel.emitOpError("grid constant ")
          << value << " is out of range: at most 2^31 - 1 in magnitude";
      return WalkResult::interrupt();
    }
    auto binary = dyn_cast<AffineBinaryOpExpr>(expr);
    if (!binary || binary.getKind() == AffineExprKind::Add ||
        binary.getKind() == AffineExprKind::Mul)
      return WalkResult::advance();
    auto divisor = dyn_cast<AffineConstantExpr>(binary.getRHS());
    if (divisor && divisor.getValue() > 0)
      return WalkResult::advance();
    std::string text;
    llvm::raw_string_ostream(text) << expr;
    kernel.emitOpError("grid expression '")
        << text << "' divides by a value that is not a positive constant";
    return WalkResult::interrupt();
  });
  return failure(walked.wasInterrupted());
}

LogicalResult KernelOp::verify() {
  // The name is the PTX entry's: an identifier, not one PTX reserves.
  StringRef name = getSymName();
  if (!isIdentifier(name))
    return emitOpError("kernel name '")
           << name
           << "' is not an identifier ([A-Za-z_][A-Za-z0-9_]*), which the "
              "PTX entry needs";
  if (name == "_" || name == "WARP_SZ")
    return emitOpError("kernel name '")
           << name << "' is reserved in PTX; choose another";
  if (!getResultTypes().empty())
    return emitOpError("a kernel returns nothing; results go to tensor "
                       "parameters");
  for (auto [index, type] : llvm::enumerate(getArgumentTypes()))
    if (!isa<GlobalTensorType>(type) && !isScalarParamType(type))
      return emitOpError("parameter #")
             << index
             << " must be a global tensor (!tile.tensor) or a scalar (f32, "
                "f16, bf16, i32, index), got "
             << type;
  int64_t threads = getThreads();
  if (threads <= 0 || threads % kLanes != 0 || threads > 1024)
    return emitOpError("launch threads must be a positive multiple of 32 "
                       "and at most 1024, got ")
           << threads;
  // The runtime binds each symbol from a dimension that is the symbol
  // alone; an expression of symbols is only checked against them.
  SmallVector<StringAttr> alone;
  for (Type type : getArgumentTypes())
    if (auto tensor = dyn_cast<GlobalTensorType>(type))
      for (StringAttr size : tensor.getSymbols())
        if (isIdentifier(size.getValue()))
          alone.push_back(size);
  for (StringAttr symbol : getSymbols())
    if (!llvm::is_contained(alone, symbol))
      return emitOpError("symbol '")
             << symbol.getValue()
             << "' is only in dimension expressions, which cannot bind it: "
                "it must also be a dimension of its own";
  if (std::optional<AffineMap> grid = getGrid()) {
    size_t symbols = getSymbols().size(),
           scalars = getIntegerScalarNames(*this).size();
    if (grid->getNumDims() != 0 || (grid->getNumSymbols() != symbols &&
                                    grid->getNumSymbols() != symbols + scalars))
      return emitOpError("grid must be a map ()[s0, ...] over the kernel's ")
             << symbols << " symbol(s), or those and its " << scalars
             << " integer scalar parameter(s), got "
             << AffineMapAttr::get(*grid);
    if (grid->getNumResults() < 1 || grid->getNumResults() > 3)
      return emitOpError("grid has 1 to 3 dimensions, got ")
             << grid->getNumResults();
    for (AffineExpr expr : grid->getResults())
      if (failed(verifyGridExpr(*this, expr)))
        return failure();
  }
  if (DictionaryAttr pipeline = getPipelineAttr())
    for (NamedAttribute option : pipeline)
      if (failed(verifyPipelineOption(option.getName(), option.getValue(),
                                      [&] { return emitOpError(); })))
        return failure();
  if (failed(verifyParamNames(*this)))
    return failure();
  SmallVector<StringRef> seen;
  for (StringRef name : getRegisterNames()) {
    if (llvm::is_contained(seen, name))
      return emitOpError("registers names '") << name << "' twice";
    seen.push_back(name);
  }
  return success();
}

/// Checks a value defined in a kernel's body (`owner` defines it): a tile
/// has static, positive dimensions and at most kMaxTileElements elements
/// (later passes divide by them and size buffers from them), a var is the
/// result of its tile.var, and a global tensor is a parameter. The lowering
/// and interp map each var and tensor to its storage, so neither may flow
/// through control flow (an scf.if or scf.for result, a block argument).
static LogicalResult verifyKernelValue(Operation *owner, Value value) {
  Type type = value.getType();
  if (auto var = dyn_cast<VarType>(type))
    type = var.getValueType();
  if (auto tile = dyn_cast<RankedTensorType>(type)) {
    // A tile's encoding is its layout, checked against its shape and the
    // kernel's threads.
    if (Attribute encoding = tile.getEncoding()) {
      auto layout = dyn_cast<LayoutAttrInterface>(encoding);
      if (!layout)
        return owner->emitOpError("a tile type's encoding is its layout "
                                  "(#tile.blocked, #tile.rows, #tile.mma), "
                                  "not ")
               << encoding;
      if (int64_t threads = getKernelThreads(owner))
        if (failed(layout.verifyLayout(withLayout(tile, nullptr), threads,
                                       [&] { return owner->emitOpError(); })))
          return failure();
    }
    int64_t elements = 1;
    for (int64_t size : tile.getShape()) {
      if (size <= 0) // also ShapedType::kDynamic
        return owner->emitOpError("a tile has static, positive dimensions, "
                                  "not ")
               << value.getType();
      if (llvm::MulOverflow(elements, size, elements) ||
          elements > kMaxTileElements)
        return owner->emitOpError("a tile holds at most ")
               << kMaxTileElements << " elements, not " << value.getType();
    }
  }
  bool isVarResult = value.getDefiningOp<VarOp>() != nullptr ||
                     value.getDefiningOp<StageOp>() != nullptr;
  if (isa<VarType>(value.getType()) && !isVarResult)
    return owner->emitOpError("passes ")
           << value.getType()
           << " along: a var is only the result of its tile.var (or a "
              "tile.stage of a ring), used by tile.read, tile.write and "
              "tile.copy";
  if (isa<GlobalTensorType>(value.getType()))
    return owner->emitOpError("passes ")
           << value.getType()
           << " along: a global tensor is only a parameter of the tile.kernel";
  return success();
}

/// An elementwise op computes each element where its operands hold it:
/// its tile operands and result share one layout (one encoding; none
/// before tile-assign-layouts writes them).
static LogicalResult verifyElementwiseLayouts(Operation *op) {
  if (!isSameShapeElementwise(op))
    return success();
  auto result = cast<RankedTensorType>(op->getResult(0).getType());
  for (Value operand : op->getOperands()) {
    auto type = cast<RankedTensorType>(operand.getType());
    if (type.getEncoding() != result.getEncoding())
      return op->emitOpError("is elementwise, but its operand of type ")
             << type << " and its result of type " << result
             << " differ in layout";
  }
  return success();
}

LogicalResult KernelOp::verifyRegions() {
  Block &body = getBodyBlock();
  if (body.getNumArguments() != getArgumentTypes().size())
    return emitOpError("body has ")
           << body.getNumArguments() << " arguments for "
           << getArgumentTypes().size() << " parameters";
  for (auto [arg, type] : llvm::zip(body.getArguments(), getArgumentTypes()))
    if (arg.getType() != type)
      return emitOpError("body argument type ")
             << arg.getType() << " differs from the parameter's " << type;
  WalkResult walked = getBody().walk([&](Operation *op) {
    for (Value result : op->getResults())
      if (failed(verifyKernelValue(op, result)))
        return WalkResult::interrupt();
    if (failed(verifyElementwiseLayouts(op)))
      return WalkResult::interrupt();
    for (Region &region : op->getRegions())
      for (Block &block : region)
        for (BlockArgument arg : block.getArguments())
          if (failed(verifyKernelValue(op, arg)))
            return WalkResult::interrupt();
    return WalkResult::advance();
  });
  return failure(walked.wasInterrupted());
}

//===----------------------------------------------------------------------===//
// Context ops
//===----------------------------------------------------------------------===//

OpFoldResult NumThreadsOp::fold(FoldAdaptor) {
  if (auto kernel = (*this)->getParentOfType<KernelOp>())
    return IntegerAttr::get(IndexType::get(getContext()), kernel.getThreads());
  return {};
}

OpFoldResult LanesOp::fold(FoldAdaptor) {
  return IntegerAttr::get(IndexType::get(getContext()), kLanes);
}

LogicalResult DimOp::verify() {
  if (failed(verifyKernelParameter(*this, getSource())))
    return failure();
  int64_t rank = getSource().getType().getRank();
  if (getIndex() >= static_cast<uint64_t>(rank))
    return emitOpError("dimension ")
           << getIndex() << " is out of range for a rank-" << rank << " tensor";
  return success();
}

OpFoldResult DimOp::fold(FoldAdaptor) {
  int64_t size = getSource().getType().getShape()[getIndex()];
  if (ShapedType::isDynamic(size))
    return {};
  return IntegerAttr::get(IndexType::get(getContext()), size);
}

//===----------------------------------------------------------------------===//
// The value types of tile.read and tile.write
//===----------------------------------------------------------------------===//

// `: !tile.var<...>` alone when the value type is the var's; `-> type` (a
// read's result) or `, type` (a written value) when it carries a layout.
static ParseResult parseVarValueType(OpAsmParser &parser, Type var, Type &value,
                                     bool isResult) {
  value = cast<VarType>(var).getValueType();
  ParseResult marked =
      isResult ? parser.parseOptionalArrow() : parser.parseOptionalComma();
  return succeeded(marked) ? parser.parseType(value) : success();
}

static ParseResult parseReadType(OpAsmParser &parser, Type var, Type &value) {
  return parseVarValueType(parser, var, value, /*isResult=*/true);
}

static ParseResult parseWrittenType(OpAsmParser &parser, Type var,
                                    Type &value) {
  return parseVarValueType(parser, var, value, /*isResult=*/false);
}

static void printReadType(OpAsmPrinter &p, Operation *, Type var, Type value) {
  if (value != cast<VarType>(var).getValueType())
    p << " -> " << value;
}

static void printWrittenType(OpAsmPrinter &p, Operation *, Type var,
                             Type value) {
  if (value != cast<VarType>(var).getValueType())
    p << ", " << value;
}

// A dot's accumulator has its result's type, written only when its layout
// differs: `-> tensor<...> acc tensor<...>`.
static ParseResult
parseAccType(OpAsmParser &parser,
             std::optional<OpAsmParser::UnresolvedOperand> acc, Type result,
             Type &accType) {
  if (!acc)
    return success();
  accType = result;
  if (succeeded(parser.parseOptionalKeyword("acc")))
    return parser.parseType(accType);
  return success();
}

static void printAccType(OpAsmPrinter &p, Operation *, Value acc, Type result,
                         Type accType) {
  if (acc && accType != result)
    p << " acc " << accType;
}

#include "tile/Dialect/Tile/IR/TileInterfaces.cpp.inc"

#define GET_OP_CLASSES
#include "tile/Dialect/Tile/IR/TileOps.cpp.inc"
