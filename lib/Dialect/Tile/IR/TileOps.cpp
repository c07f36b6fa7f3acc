//===- TileOps.cpp - tile dialect ops -------------------------------------===//

#include "tile/Dialect/Tile/IR/Layouts.h"
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

LogicalResult mlir::tile::verifyInsideKernel(Operation *op) {
  if (!op->getParentOfType<KernelOp>())
    return op->emitOpError("is only valid inside a tile.kernel");
  return success();
}

LogicalResult mlir::tile::verifyReduction(Operation *op) {
  auto reduction = cast<ReductionOpInterface>(op);
  RankedTensorType in = reduction.getInput().getType(),
                   out = reduction.getResult().getType();
  int64_t axis = reduction.getAxis();
  if (reduction.getKind() == ReductionKind::argmax) {
    if (!out.getElementType().isInteger(32))
      return op->emitOpError("result element type must be i32 (an index), "
                             "got ")
             << out.getElementType();
  } else if (in.getElementType() != out.getElementType()) {
    return op->emitOpError("result element type ")
           << out.getElementType() << " differs from the input's "
           << in.getElementType();
  }
  SmallVector<int64_t> expected(in.getShape());
  expected[axis] = 1;
  auto print = [](ArrayRef<int64_t> shape) {
    std::string text = "[";
    llvm::raw_string_ostream os(text);
    llvm::interleaveComma(shape, os);
    return text + "]";
  };
  if (out.getShape() != ArrayRef<int64_t>(expected))
    return op->emitOpError("reduces ")
           << print(in.getShape()) << " to " << print(expected) << ", not "
           << print(out.getShape());
  Value scratch = reduction.getScratch();
  if (!scratch)
    return success();
  if (!scratch.getDefiningOp<VarOp>())
    return op->emitOpError("scratch operand must be the result of a tile.var");
  if (getReductionStrategy(reduction) != ReductionStrategy::WarpSegmented)
    return op->emitOpError("has a scratch var, but rows of ")
           << in.getDimSize(1) << " " << in.getElementType()
           << " elements do not reduce a warp at a time";
  if (scratch.getType() != getScratchType(reduction))
    return op->emitOpError("scratch var must be ")
           << getScratchType(reduction)
           << " (a partial per warp of each row), not " << scratch.getType();
  return success();
}

void mlir::tile::getScratchEffects(
    MutableOperandRange scratch,
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
        &effects) {
  if (scratch.empty())
    return;
  effects.emplace_back(MemoryEffects::Read::get(), &scratch[0]);
  effects.emplace_back(MemoryEffects::Write::get(), &scratch[0]);
}

ReductionStrategy mlir::tile::getReductionStrategy(ReductionOpInterface op) {
  // Sums, maxima and minima combine alike; what decides is where the
  // elements of a row (a column) are.
  RankedTensorType input = op.getInput().getType();
  LayoutAttrInterface layout = getLayout(op.getInput());
  int64_t threads = getKernelThreads(op);
  if (op.getAxis() == 0) {
    // In seed 000's distribution element (i, j) is in thread
    // (i * C + j) % threads: j % threads when C is a multiple of threads.
    Type element = input.getElementType();
    int64_t columns = input.getDimSize(1);
    if (input.getRank() != 2 || !(element.isF32() || element.isInteger(32)) ||
        op.getKind() == ReductionKind::argmax || threads <= 0 ||
        !isSeedLayout(layout))
      return ReductionStrategy::ThroughShared;
    if (columns % threads == 0)
      return ReductionStrategy::InThread;
    // In a CTA of one warp, column j is in lanes j, j + C, ...: xor
    // shuffles over lanes C apart fold it.
    if (threads == kLanes && kLanes % columns == 0)
      return ReductionStrategy::InWarp;
    return ReductionStrategy::ThroughShared;
  }
  // An argmax carries each value's column, which the shared path's
  // butterfly does; the in-place plans combine values only.
  if (op.getAxis() != 1 || op.getKind() == ReductionKind::argmax)
    return ReductionStrategy::ThroughShared;
  std::optional<RowReductionPlan> plan =
      getRowReductionPlan(layout, input, threads);
  if (!plan)
    return ReductionStrategy::ThroughShared;
  return plan->parts == 1 ? ReductionStrategy::InWarp
                          : ReductionStrategy::WarpSegmented;
}

VarType mlir::tile::getScratchType(ReductionOpInterface op) {
  RankedTensorType type = op.getInput().getType();
  std::optional<RowReductionPlan> plan =
      getRowReductionPlan(getLayout(op.getInput()), type, getKernelThreads(op));
  return VarType::get(type.getContext(),
                      {type.getDimSize(0), plan ? plan->parts : 1},
                      type.getElementType());
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

int64_t mlir::tile::getVarBytes(VarType type) {
  return getNumElements(type.getValueType()) *
         llvm::divideCeil(type.getElementType().getIntOrFloatBitWidth(), 8);
}

int64_t mlir::tile::getSharedElements(VarOp var) {
  VarType type = var.getVarType();
  int64_t elements = getNumElements(type.getValueType());
  if (int64_t padding = getRowPadding(var)) {
    ArrayRef<int64_t> shape = type.getShape();
    elements = elements / shape.back() * (shape.back() + padding);
  }
  return elements;
}

static int64_t getSharedTileBytes(VarOp var) {
  return getSharedElements(var) *
         llvm::divideCeil(
             var.getVarType().getElementType().getIntOrFloatBitWidth(), 8);
}

int64_t mlir::tile::getStageStride(VarOp ring) {
  return llvm::alignTo(getSharedTileBytes(ring), kSharedAlignment);
}

int64_t mlir::tile::getStorageBytes(VarOp var) {
  if (std::optional<int64_t> stages = var.getStages())
    return *stages * getStageStride(var);
  return getSharedTileBytes(var);
}

/// Global tensors are the kernel's parameters, never values computed in
/// it: the lowering maps each to its pointer argument.
static LogicalResult verifyKernelParameter(Operation *op, Value tensor) {
  auto arg = dyn_cast<BlockArgument>(tensor);
  if (!arg || !isa<KernelOp>(arg.getOwner()->getParentOp()))
    return op->emitOpError("tensor operand must be a parameter of the "
                           "enclosing tile.kernel");
  return success();
}

VarOp mlir::tile::getVarOp(Value handle) {
  if (!handle)
    return {};
  if (auto stage = handle.getDefiningOp<StageOp>())
    return stage.getRing().getDefiningOp<VarOp>();
  return handle.getDefiningOp<VarOp>();
}

bool mlir::tile::writesVar(Operation *op, VarOp var) {
  auto into = [&](Value handle) { return getVarOp(handle) == var; };
  return op
      ->walk([&](Operation *nested) {
        bool writes = false;
        if (auto write = dyn_cast<WriteOp>(nested))
          writes = into(write.getVar());
        else if (auto copy = dyn_cast<CopyOp>(nested))
          writes = into(copy.getDest());
        return writes ? WalkResult::interrupt() : WalkResult::advance();
      })
      .wasInterrupted();
}

/// A var operand is the result of its tile.var (or a stage of a ring), not
/// a value passed around; a ring is only accessed through its stages.
static LogicalResult verifyVarOperand(Operation *op, Value var) {
  VarOp varOp = getVarOp(var);
  if (!varOp)
    return op->emitOpError("var operand must be the result of a tile.var "
                           "or a tile.stage");
  if (varOp.isRing() && !var.getDefiningOp<StageOp>())
    return op->emitOpError("'")
           << varOp.getName()
           << "' is a ring of tiles: access one of its stages (tile.stage)";
  return success();
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

/// The op's inherent attributes as parsed, checked against their declared
/// kinds: an attribute of the wrong kind (`threads = "256"`, `storage = 1`)
/// is an error here, where a custom parser would otherwise hand it to the
/// properties, which drop it without a word.
template <typename OpT>
static ParseResult verifyParsedAttrs(OpAsmParser &parser, SMLoc loc,
                                     OperationState &result) {
  return OpT::verifyInherentAttrs(result.name, result.attributes,
                                  [&]() { return parser.emitError(loc); });
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
      for (StringAttr symbol : tensor.getSymbols())
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
  if (std::optional<AffineMap> grid = getGrid()) {
    size_t symbols = getSymbols().size();
    if (grid->getNumDims() != 0 || grid->getNumSymbols() != symbols)
      return emitOpError("grid must be a map ()[s0, ...] over the kernel's ")
             << symbols << " symbol(s), got " << AffineMapAttr::get(*grid);
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
// VarOp
//===----------------------------------------------------------------------===//

void VarOp::build(OpBuilder &builder, OperationState &state, StringRef name,
                  VarType type, Value init) {
  build(builder, state, type, builder.getStringAttr(name), init,
        StorageAttr::get(builder.getContext(), Storage::any),
        /*stages=*/IntegerAttr());
}

// tile.var "acc" (= %init)? attr-dict : !tile.var<...>
ParseResult VarOp::parse(OpAsmParser &parser, OperationState &result) {
  std::string name;
  OpAsmParser::UnresolvedOperand init;
  VarType type;
  // A plain string: parseAttribute would take `"n" : type` as a typed string.
  if (parser.parseString(&name))
    return failure();
  result.addAttribute(getNameAttrName(result.name),
                      parser.getBuilder().getStringAttr(name));
  bool hasInit = succeeded(parser.parseOptionalEqual());
  if (hasInit && parser.parseOperand(init))
    return failure();
  SMLoc attrLoc = parser.getCurrentLocation();
  if (parser.parseOptionalAttrDict(result.attributes) ||
      verifyParsedAttrs<VarOp>(parser, attrLoc, result) ||
      parser.parseColonType(type))
    return failure();
  if (hasInit &&
      parser.resolveOperand(init, type.getValueType(), result.operands))
    return failure();
  result.addTypes(type);
  return success();
}

void VarOp::print(OpAsmPrinter &p) {
  p << ' ';
  p.printAttributeWithoutType(getNameAttr());
  if (getInit())
    p << " = " << getInit();
  SmallVector<StringRef> elided = {getNameAttrName()};
  if (getStorage() == Storage::any)
    elided.push_back(getStorageAttrName());
  p.printOptionalAttrDict((*this)->getAttrs(), elided);
  p << " : " << getType();
}

LogicalResult VarOp::verify() {
  if (getName().empty())
    return emitOpError("a var needs a name");
  if (getInit() && getInit().getType() != getVarType().getValueType())
    return emitOpError("initial value of type ")
           << getInit().getType() << " does not match the var's "
           << getVarType().getValueType();
  if (getStorage() != Storage::any && getVarType().isScalar())
    return emitOpError("only a tile var can ask for ")
           << stringifyStorage(getStorage()) << " storage";
  if (std::optional<int64_t> stages = getStages()) {
    if (*stages < 2)
      return emitOpError("a ring has at least 2 stages, got ") << *stages;
    if (getVarType().isScalar())
      return emitOpError("a ring holds tiles, not scalars");
    if (getInit())
      return emitOpError("a ring has no initial value: fill its stages");
    if (getStorage() == Storage::registers)
      return emitOpError("a ring lives in shared memory, not in registers");
  }
  return success();
}

//===----------------------------------------------------------------------===//
// StageOp
//===----------------------------------------------------------------------===//

VarOp StageOp::getRingOp() { return getRing().getDefiningOp<VarOp>(); }

LogicalResult StageOp::verify() {
  VarOp ring = getRingOp();
  if (!ring || !ring.isRing())
    return emitOpError("takes a ring: a tile.var with stages");
  return success();
}

//===----------------------------------------------------------------------===//
// Slices
//===----------------------------------------------------------------------===//

/// The rules of a slice of `tile`'s shape of `tensor`; the dimensions
/// `indexDims` take index tiles (a gather's), which have no extent.
static LogicalResult verifySlice(Operation *op, GlobalTensorType tensor,
                                 RankedTensorType tile, size_t numOffsets,
                                 ArrayRef<int64_t> indexDims = {}) {
  if (numOffsets != tensor.getRank())
    return op->emitOpError("expected ")
           << tensor.getRank() << " offsets for a rank-" << tensor.getRank()
           << " tensor, got " << numOffsets;
  if (tile.getRank() != tensor.getRank())
    return op->emitOpError("tile rank ")
           << tile.getRank() << " differs from the tensor's rank "
           << tensor.getRank();
  if (tile.getElementType() != tensor.getElementType())
    return op->emitOpError("tile element type ")
           << tile.getElementType() << " differs from the tensor's "
           << tensor.getElementType();
  for (unsigned dim = 0; dim < tensor.getRank(); ++dim) {
    int64_t size = tensor.getShape()[dim];
    if (llvm::is_contained(indexDims, dim))
      continue;
    if (!ShapedType::isDynamic(size) && tile.getDimSize(dim) > size)
      return op->emitOpError("slice extent ")
             << tile.getDimSize(dim) << " of dimension " << dim
             << " exceeds the tensor's size " << size;
  }
  return success();
}

LogicalResult LoadOp::verify() {
  if (failed(verifyKernelParameter(*this, getSource())))
    return failure();
  return verifySlice(*this, getSource().getType(), getResult().getType(),
                     getOffsets().size());
}

LogicalResult StoreOp::verify() {
  if (failed(verifyKernelParameter(*this, getDest())))
    return failure();
  return verifySlice(*this, getDest().getType(), getValue().getType(),
                     getOffsets().size());
}

LogicalResult ReadOp::verify() { return verifyVarOperand(*this, getVar()); }

//===----------------------------------------------------------------------===//
// CopyOp
//===----------------------------------------------------------------------===//

Type CopyOp::getElementType() {
  Type type = getSource().getType();
  if (auto tensor = dyn_cast<GlobalTensorType>(type))
    return tensor.getElementType();
  return cast<VarType>(type).getElementType();
}

RankedTensorType CopyOp::getBoxType() {
  return RankedTensorType::get(getShape(), getElementType());
}

void CopyOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
        &effects) {
  effects.emplace_back(MemoryEffects::Read::get(), &getSourceMutable());
  effects.emplace_back(MemoryEffects::Write::get(), &getDestMutable());
}

/// One side of a copy: a kernel parameter or a tile var, with one offset a
/// dimension, holding the box; `what` is "source" or "destination".
static LogicalResult verifyCopySide(CopyOp op, Value side, ValueRange offsets,
                                    StringRef what) {
  ArrayRef<int64_t> box = op.getShape();
  int64_t width = op.getWidth();
  ArrayRef<int64_t> dims;
  Type element;
  if (auto tensor = dyn_cast<GlobalTensorType>(side.getType())) {
    if (failed(verifyKernelParameter(op, side)))
      return failure();
    dims = tensor.getShape();
    element = tensor.getElementType();
  } else if (auto var = dyn_cast<VarType>(side.getType())) {
    if (failed(verifyVarOperand(op, side)))
      return failure();
    if (var.isScalar())
      return op.emitOpError("the ") << what << " is a scalar var, not a tile";
    dims = var.getShape();
    element = var.getElementType();
  } else {
    return op.emitOpError("the ")
           << what << " must be a global tensor or a tile var, got "
           << side.getType();
  }
  if (element != op.getElementType())
    return op.emitOpError("element types differ: ")
           << op.getElementType() << " and " << element;
  if (dims.size() != box.size() || offsets.size() != box.size())
    return op.emitOpError("the ")
           << what << " has rank " << dims.size() << " and " << offsets.size()
           << " offsets for a box of rank " << box.size();
  bool isVar = isa<VarType>(side.getType());
  for (auto [dim, size, offset, extent] : llvm::enumerate(dims, offsets, box)) {
    if (!ShapedType::isDynamic(size) && extent > size)
      return op.emitOpError("the box's extent ")
             << extent << " in dimension " << dim << " exceeds the " << what
             << "'s size " << size;
    APInt constant;
    bool isConstant = matchPattern(offset, m_ConstantInt(&constant));
    if (isVar && isConstant &&
        (constant.getSExtValue() < 0 ||
         constant.getSExtValue() > size - extent))
      return op.emitOpError("the box [")
             << constant.getSExtValue() << " :+ " << extent << "] in dimension "
             << dim << " is outside the " << what << " var of size " << size;
    bool innermost = dim + 1 == box.size();
    if (isVar && innermost && width > 1) {
      if (size % width != 0)
        return op.emitOpError("width ")
               << width << " needs rows of the " << what
               << " var that are a multiple of it, not " << size;
      if (!isConstant || constant.getSExtValue() % width != 0)
        return op.emitOpError("width ")
               << width << " needs the " << what
               << " var's innermost offset to be a constant multiple of it";
    }
  }
  return success();
}

LogicalResult CopyOp::verify() {
  ArrayRef<int64_t> box = getShape();
  if (box.empty() ||
      llvm::any_of(box, [](int64_t extent) { return extent <= 0; }))
    return emitOpError("the box needs at least one dimension, each of a "
                       "positive extent");
  Type element = getElementType();
  int64_t width = getWidth();
  int64_t bytes = llvm::divideCeil(element.getIntOrFloatBitWidth(), 8);
  if (width != 1 && width != 2 && width != 4 && width != 8)
    return emitOpError("width is 1, 2, 4 or 8 elements a thread, got ")
           << width;
  if (width > 1 && element.isInteger(1))
    return emitOpError("i1 elements are copied one at a time (width 1)");
  if (width * bytes > 16)
    return emitOpError("width ")
           << width << " of " << element << " is " << width * bytes
           << " bytes: a vector access moves at most 16";
  if (box.back() % width != 0)
    return emitOpError("width ")
           << width << " does not divide the box's innermost extent "
           << box.back();
  bool globalSource = isa<GlobalTensorType>(getSource().getType());
  bool globalDest = isa<GlobalTensorType>(getDest().getType());
  if (globalSource && globalDest)
    return emitOpError("copies from a global tensor to a global tensor: "
                       "load a tile and store it instead");
  if (failed(
          verifyCopySide(*this, getSource(), getSourceOffsets(), "source")) ||
      failed(verifyCopySide(*this, getDest(), getDestOffsets(), "destination")))
    return failure();
  if (Value mask = getMask()) {
    auto type = cast<RankedTensorType>(mask.getType());
    if (!type.getElementType().isInteger(1) || type.getShape() != box)
      return emitOpError("the mask must be an i1 tile of the box's shape, "
                         "got ")
             << type;
  }
  if (getAsync()) {
    if (!globalSource || globalDest)
      return emitOpError("an async copy goes from a global tensor to a "
                         "shared tile");
    if (getMask())
      return emitOpError("an async copy takes no mask");
    if (width * bytes < 4)
      return emitOpError("an async copy moves 4, 8 or 16 bytes a thread at "
                         "a time; width ")
             << width << " of " << element << " is " << width * bytes;
  }
  return success();
}

LogicalResult WriteOp::verify() { return verifyVarOperand(*this, getVar()); }

//===----------------------------------------------------------------------===//
// DotOp, BroadcastOp, SplatOp
//===----------------------------------------------------------------------===//

LogicalResult DotOp::verify() {
  RankedTensorType lhs = getLhs().getType(), rhs = getRhs().getType(),
                   result = getResult().getType();
  // The right operand as the product reads it: [K, N].
  int64_t rhsRows = rhs.getDimSize(getRhsTransposed() ? 1 : 0),
          rhsColumns = rhs.getDimSize(getRhsTransposed() ? 0 : 1);
  if (lhs.getDimSize(1) != rhsRows)
    return emitOpError("contracts [")
           << lhs.getDimSize(0) << ", " << lhs.getDimSize(1) << "] with ["
           << rhs.getDimSize(0) << ", " << rhs.getDimSize(1) << "]"
           << (getRhsTransposed() ? " transposed" : "")
           << ": inner dimensions differ";
  if (result.getDimSize(0) != lhs.getDimSize(0) ||
      result.getDimSize(1) != rhsColumns)
    return emitOpError("result must be [")
           << lhs.getDimSize(0) << ", " << rhsColumns << "], got ["
           << result.getDimSize(0) << ", " << result.getDimSize(1) << "]";
  Type in = lhs.getElementType(), out = result.getElementType();
  if (rhs.getElementType() != in)
    return emitOpError("operand element types differ: ")
           << in << " and " << rhs.getElementType();
  bool widening = (in.isF16() || in.isBF16()) && out.isF32();
  if (out != in && !widening)
    return emitOpError("result element type must be ")
           << in << (in.isF16() || in.isBF16() ? " or f32" : "") << ", got "
           << out;
  if (getPrecision() == DotPrecision::tf32 && !in.isF32())
    return emitOpError("precision tf32 rounds f32 operands to tf32; the "
                       "operands are ")
           << in;
  return success();
}

OpFoldResult DotOp::fold(FoldAdaptor) {
  // dot(a, transpose(b)) reads b transposed: no transposed copy.
  auto transpose = getRhs().getDefiningOp<TransposeOp>();
  if (!transpose)
    return {};
  getRhsMutable().assign(transpose.getInput());
  setRhsTransposed(!getRhsTransposed());
  return getResult();
}

LogicalResult TransposeOp::verify() {
  RankedTensorType in = getInput().getType(), out = getResult().getType();
  if (in.getElementType() != out.getElementType() ||
      out.getDimSize(0) != in.getDimSize(1) ||
      out.getDimSize(1) != in.getDimSize(0))
    return emitOpError("result must be ")
           << RankedTensorType::get({in.getDimSize(1), in.getDimSize(0)},
                                    in.getElementType())
           << ", the input's transpose, got " << out;
  return success();
}

OpFoldResult TransposeOp::fold(FoldAdaptor adaptor) {
  if (auto inner = getInput().getDefiningOp<TransposeOp>())
    return inner.getInput();
  if (auto splat = dyn_cast_if_present<SplatElementsAttr>(adaptor.getInput()))
    return SplatElementsAttr::get(getResult().getType(),
                                  splat.getSplatValue<Attribute>());
  return {};
}

LogicalResult BroadcastOp::verify() {
  RankedTensorType in = getInput().getType(), out = getResult().getType();
  if (in.getElementType() != out.getElementType())
    return emitOpError("element type changes from ")
           << in.getElementType() << " to " << out.getElementType();
  if (in.getRank() != out.getRank())
    return emitOpError("rank changes from ")
           << in.getRank() << " to " << out.getRank();
  for (unsigned dim = 0; dim < in.getRank(); ++dim)
    if (in.getDimSize(dim) != out.getDimSize(dim) && in.getDimSize(dim) != 1)
      return emitOpError("dimension ")
             << dim << " of size " << in.getDimSize(dim)
             << " can only broadcast to itself, not to " << out.getDimSize(dim);
  return success();
}

OpFoldResult BroadcastOp::fold(FoldAdaptor adaptor) {
  if (getInput().getType() == getResult().getType())
    return getInput();
  if (auto splat = dyn_cast_if_present<SplatElementsAttr>(adaptor.getInput()))
    return SplatElementsAttr::get(getResult().getType(),
                                  splat.getSplatValue<Attribute>());
  return {};
}

LogicalResult ReshapeOp::verify() {
  RankedTensorType in = getInput().getType(), out = getResult().getType();
  if (in.getElementType() != out.getElementType())
    return emitOpError("element type changes from ")
           << in.getElementType() << " to " << out.getElementType();
  if (in.getNumElements() != out.getNumElements())
    return emitOpError("the number of elements changes from ")
           << in.getNumElements() << " to " << out.getNumElements();
  return success();
}

OpFoldResult ReshapeOp::fold(FoldAdaptor adaptor) {
  if (getInput().getType() == getResult().getType())
    return getInput();
  if (auto inner = getInput().getDefiningOp<ReshapeOp>()) {
    // A reshape of a reshape is one reshape of the first input.
    getInputMutable().assign(inner.getInput());
    return getResult();
  }
  if (auto splat = dyn_cast_if_present<SplatElementsAttr>(adaptor.getInput()))
    return SplatElementsAttr::get(getResult().getType(),
                                  splat.getSplatValue<Attribute>());
  return {};
}

//===----------------------------------------------------------------------===//
// Indexing tiles
//===----------------------------------------------------------------------===//

/// Checks that a sub-tile of `sub`'s shape at `offsets` lies in `full`.
static LogicalResult verifySubTile(Operation *op, RankedTensorType full,
                                   RankedTensorType sub,
                                   ArrayRef<int64_t> offsets) {
  if (sub.getElementType() != full.getElementType())
    return op->emitOpError("element types differ: ")
           << sub.getElementType() << " and " << full.getElementType();
  if (sub.getRank() != full.getRank() ||
      offsets.size() != static_cast<size_t>(full.getRank()))
    return op->emitOpError("needs one offset per dimension and a sub-tile of ")
           << "the tile's rank " << full.getRank();
  for (int64_t dim = 0; dim < full.getRank(); ++dim)
    if (offsets[dim] < 0 || sub.getDimSize(dim) > full.getDimSize(dim) ||
        offsets[dim] > full.getDimSize(dim) - sub.getDimSize(dim))
      return op->emitOpError("sub-tile ")
             << sub << " at offset " << offsets[dim] << " of dimension " << dim
             << " is not inside " << full;
  return success();
}

LogicalResult ExtractOp::verify() {
  RankedTensorType type = getInput().getType();
  if (getIndices().size() != static_cast<size_t>(type.getRank()))
    return emitOpError("needs ") << type.getRank() << " indices for " << type
                                 << ", got " << getIndices().size();
  for (auto [dim, index] : llvm::enumerate(getIndices()))
    if (index < 0 || index >= type.getDimSize(dim))
      return emitOpError("index ")
             << index << " is outside dimension " << dim << " of " << type;
  return success();
}

LogicalResult ExtractSliceOp::verify() {
  return verifySubTile(*this, getInput().getType(), getResult().getType(),
                       getOffsets());
}

LogicalResult InsertSliceOp::verify() {
  return verifySubTile(*this, getDest().getType(), getSource().getType(),
                       getOffsets());
}

//===----------------------------------------------------------------------===//
// Gathers and scatters
//===----------------------------------------------------------------------===//

/// The rules of a gather or scatter of `tile` on `tensor`: one offset per
/// dimension, index tiles of the tensor's rank that broadcast to the tile,
/// one for each of the increasing `indexDims`.
static LogicalResult verifyIndexedAccess(Operation *op, GlobalTensorType tensor,
                                         RankedTensorType tile,
                                         size_t numOffsets, ValueRange indices,
                                         ArrayRef<int64_t> indexDims) {
  if (failed(verifySlice(op, tensor, tile, numOffsets, indexDims)))
    return failure();
  if (indices.empty() || indices.size() != indexDims.size())
    return op->emitOpError("needs one index tile per dimension of dims, and "
                           "at least one; got ")
           << indices.size() << " for " << indexDims.size();
  for (auto [k, dim] : llvm::enumerate(indexDims)) {
    if (dim < 0 || dim >= tile.getRank() || (k > 0 && dim <= indexDims[k - 1]))
      return op->emitOpError("dims must be increasing dimensions of the ")
             << "tensor, got " << dim;
    auto index = cast<RankedTensorType>(indices[k].getType());
    bool broadcasts = index.getRank() == tile.getRank();
    for (int64_t d = 0; broadcasts && d < tile.getRank(); ++d)
      broadcasts =
          index.getDimSize(d) == tile.getDimSize(d) || index.getDimSize(d) == 1;
    if (!broadcasts)
      return op->emitOpError("index tile ")
             << index << " does not broadcast to " << tile;
  }
  return success();
}

LogicalResult GatherOp::verify() {
  if (failed(verifyKernelParameter(*this, getSource())))
    return failure();
  return verifyIndexedAccess(*this, getSource().getType(),
                             getResult().getType(), getOffsets().size(),
                             getIndices(), getIndexDims());
}

LogicalResult ScatterOp::verify() {
  if (failed(verifyKernelParameter(*this, getDest())))
    return failure();
  return verifyIndexedAccess(*this, getDest().getType(), getValue().getType(),
                             getOffsets().size(), getIndices(), getIndexDims());
}

LogicalResult AtomicOp::verify() {
  if (failed(verifyKernelParameter(*this, getDest())))
    return failure();
  RankedTensorType type = getValue().getType();
  Type element = type.getElementType();
  bool supported = element.isF32() || element.isInteger(32) ||
                   (element.isF16() && getKind() == AtomicKind::add);
  if (!supported)
    return emitOpError("atomic ")
           << stringifyAtomicKind(getKind()) << " of " << element
           << " is not supported: atomics are add, max and min of f32 and "
              "i32, and add of f16";
  if (getIndices().empty()) {
    if (!getIndexDims().empty())
      return emitOpError("dims without index tiles");
    return verifySlice(*this, getDest().getType(), type, getOffsets().size());
  }
  return verifyIndexedAccess(*this, getDest().getType(), type,
                             getOffsets().size(), getIndices(), getIndexDims());
}

Value mlir::tile::getAccessedTensor(Operation *op) {
  return llvm::TypeSwitch<Operation *, Value>(op)
      .Case<LoadOp, GatherOp>([](auto read) { return read.getSource(); })
      .Case<StoreOp, ScatterOp, AtomicOp>(
          [](auto write) { return write.getDest(); })
      .Default([](Operation *) { return Value(); });
}

bool mlir::tile::readsTensor(Operation *op) {
  return isa<LoadOp, GatherOp, AtomicOp>(op);
}

bool mlir::tile::writesTensor(Operation *op) {
  return isa<StoreOp, ScatterOp, AtomicOp>(op);
}

LogicalResult IotaOp::verify() {
  int64_t rank = getResult().getType().getRank();
  if (getAxis() >= static_cast<uint64_t>(rank))
    return emitOpError("axis ")
           << getAxis() << " is out of range for a rank-" << rank << " tile";
  return success();
}

LogicalResult ConvertLayoutOp::verify() {
  auto emitError = [&]() { return emitOpError(); };
  if (failed(getLayout().verifyLayout(getType(), getKernelThreads(*this),
                                      emitError)))
    return failure();
  Value scratch = getScratch();
  if (!scratch)
    return success();
  if (!scratch.getDefiningOp<VarOp>())
    return emitOpError("scratch operand must be the result of a tile.var");
  auto expected = VarType::get(getContext(), getType().getShape(),
                               getType().getElementType());
  if (scratch.getType() != expected)
    return emitOpError("scratch var must be ")
           << expected << " (the tile's shape), not " << scratch.getType();
  return success();
}

OpFoldResult ConvertLayoutOp::fold(FoldAdaptor) {
  // The same layout: nothing moves.
  if (!getScratch() && tile::getLayout(getInput()) == getLayout())
    return getInput();
  return {};
}

void ConvertLayoutOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
        &effects) {
  getScratchEffects(getScratchMutable(), effects);
}

OpFoldResult SplatOp::fold(FoldAdaptor adaptor) {
  if (!adaptor.getInput())
    return {};
  return SplatElementsAttr::get(getResult().getType(), adaptor.getInput());
}

#include "tile/Dialect/Tile/IR/TileInterfaces.cpp.inc"

#define GET_OP_CLASSES
#include "tile/Dialect/Tile/IR/TileOps.cpp.inc"
