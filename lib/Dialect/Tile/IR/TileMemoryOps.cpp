//===- TileMemoryOps.cpp - vars, slices, copies, gathers ------------------===//

#include "OpVerifiers.h"
#include "tile/Dialect/Tile/IR/Gathers.h"
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
  return llvm::alignTo(getSharedTileBytes(ring), getSharedAlignment(ring));
}

int64_t mlir::tile::getSharedAlignment(VarOp var) {
  return getSwizzleBytes(var) ? kSwizzleAlignment : kSharedAlignment;
}

int64_t mlir::tile::getSwizzledIndex(int64_t rows, int64_t swizzle,
                                     int64_t elementBytes, int64_t row,
                                     int64_t column) {
  int64_t perRow = swizzle / elementBytes;
  int64_t byte = ((column / perRow) * rows + row) * swizzle +
                 (column % perRow) * elementBytes;
  byte ^= ((byte >> 7) & (swizzle / 16 - 1)) << 4;
  return byte / elementBytes;
}

bool mlir::tile::usesWgmma(KernelOp kernel) {
  return kernel
      .walk([](DotOp dot) {
        return dot.getWgmma() ? WalkResult::interrupt() : WalkResult::advance();
      })
      .wasInterrupted();
}

int64_t mlir::tile::getStorageBytes(VarOp var) {
  if (std::optional<int64_t> stages = var.getStages())
    return *stages * getStageStride(var);
  return getSharedTileBytes(var);
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
// VarOp
//===----------------------------------------------------------------------===//

void VarOp::build(OpBuilder &builder, OperationState &state, StringRef name,
                  VarType type, Value init) {
  build(builder, state, type, builder.getStringAttr(name), init,
        StorageAttr::get(builder.getContext(), Storage::any),
        /*stages=*/IntegerAttr(), /*layout=*/LayoutAttrInterface());
}

// tile.var "acc" (= %init)? attr-dict : !tile.var<...> (, init-type)?
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
  // The initial value's type, when it carries a layout the var's does not.
  Type initType = type.getValueType();
  if (hasInit && succeeded(parser.parseOptionalComma()) &&
      parser.parseType(initType))
    return failure();
  if (hasInit && parser.resolveOperand(init, initType, result.operands))
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
  if (getInit() && getInit().getType() != getVarType().getValueType())
    p << ", " << getInit().getType();
}

/// A value a var in registers holds (its initial value, what a tile.write
/// writes, what a tile.read reads) is in the var's layout.
static LogicalResult verifyVarValueLayout(Operation *op, Value var,
                                          Value value) {
  VarOp varOp = getVarOp(var);
  LayoutAttrInterface layout = varOp ? varOp.getLayoutAttr() : nullptr;
  if (!layout || getLayout(value) == layout)
    return success();
  return op->emitOpError("value in layout ")
         << getLayout(value) << ", but var '" << varOp.getName()
         << "' holds its values in " << layout;
}

LogicalResult VarOp::verify() {
  if (getName().empty())
    return emitOpError("a var needs a name");
  if (getInit() &&
      !isSameIgnoringLayout(getInit().getType(), getVarType().getValueType()))
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
  if (LayoutAttrInterface layout = getLayoutAttr()) {
    if (getVarType().isScalar() || isRing())
      return emitOpError("a layout is that of a tile var's values, not of a ")
             << (isRing() ? "ring" : "scalar");
    auto tile = cast<RankedTensorType>(getVarType().getValueType());
    // Outside a kernel (a test of the op alone), one warp.
    int64_t threads = getKernelThreads(*this);
    if (failed(layout.verifyLayout(tile, threads ? threads : kLanes,
                                   [&] { return emitOpError(); })))
      return failure();
    if (getInit() &&
        failed(verifyVarValueLayout(*this, getResult(), getInit())))
      return failure();
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

LogicalResult ReadOp::verify() {
  if (failed(verifyVarOperand(*this, getVar())))
    return failure();
  Type valueType = cast<VarType>(getVar().getType()).getValueType();
  if (!isSameIgnoringLayout(getType(), valueType))
    return emitOpError("result type ")
           << getType() << " is not the var's value type " << valueType;
  return verifyVarValueLayout(*this, getVar(), getResult());
}

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

LogicalResult WriteOp::verify() {
  if (failed(verifyVarOperand(*this, getVar())))
    return failure();
  return verifyVarValueLayout(*this, getVar(), getValue());
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
  // A gather in runs reads each run from one row (its lowering's vector
  // loads) and its index tiles by coordinates.
  Attribute layout = getType().getEncoding();
  if (layout && !isCyclicLayout(layout) &&
      (!isa<BlockedLayoutAttr>(layout) || !gathersWholeRows(*this)))
    return emitOpError("in a layout other than the cyclic one must be "
                       "#tile.blocked, and the gather of whole rows: no index "
                       "on its last dimension, no index tile of its own shape");
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
