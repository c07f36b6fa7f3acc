//===- TileDialect.cpp - the tile dialect ---------------------------------===//

#include "tile/Dialect/Tile/IR/TileDialect.h"
#include "tile/Dialect/Tile/IR/Gathers.h"
#include "tile/Dialect/Tile/IR/Layouts.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::tile;

#include "tile/Dialect/Tile/IR/TileAttrInterfaces.cpp.inc"
#include "tile/Dialect/Tile/IR/TileDialect.cpp.inc"
#include "tile/Dialect/Tile/IR/TileEnums.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "tile/Dialect/Tile/IR/TileAttrs.cpp.inc"

FailureOr<int> mlir::tile::parseChip(StringRef chip) {
  StringRef digits = chip;
  int number = 0;
  if (!digits.consume_front("sm_"))
    return failure();
  digits.consume_back("a");
  if (digits.getAsInteger(10, number) || number < kMinChip || number > kMaxChip)
    return failure();
  return number;
}

void TileDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "tile/Dialect/Tile/IR/TileOps.cpp.inc"
      >();
  registerTypes();
  addAttributes<
#define GET_ATTRDEF_LIST
#include "tile/Dialect/Tile/IR/TileAttrs.cpp.inc"
      >();
}

Operation *TileDialect::materializeConstant(OpBuilder &builder, Attribute value,
                                            Type type, Location loc) {
  if (auto typed = dyn_cast<TypedAttr>(value))
    if (arith::ConstantOp::isBuildableWith(typed, type))
      return arith::ConstantOp::create(builder, loc, type, typed);
  return nullptr;
}

bool mlir::tile::gathersWholeRows(GatherOp gather) {
  RankedTensorType type = gather.getType();
  return !llvm::is_contained(gather.getIndexDims(), type.getRank() - 1) &&
         llvm::none_of(gather.getIndices(), [&](Value index) {
           return cast<RankedTensorType>(index.getType()).getShape() ==
                  type.getShape();
         });
}

namespace {
/// Checks one discardable attribute of the dialect on `op`: which op may
/// carry it, its kind and its value.
class AttributeVerifier {
public:
  AttributeVerifier(Operation *op, NamedAttribute attribute)
      : op(op), name(attribute.getName().getValue()),
        value(attribute.getValue()) {}

  LogicalResult verify() {
    if (name == kOffsetAttr)
      return onVar([&](VarOp var) -> LogicalResult {
        auto offset = dyn_cast<IntegerAttr>(value);
        if (!offset || !offset.getType().isInteger(64) || offset.getInt() < 0)
          return error() << "must be a byte offset (a non-negative i64)";
        if (!isSharedTile(var))
          return error() << "places a var in shared memory, but the var is "
                         << (var.getVarType().isScalar() ? "a scalar"
                                                         : "in registers");
        return success();
      });
    if (name == kLocalAttr)
      return onVar([&](VarOp var) -> LogicalResult {
        if (!isa<UnitAttr>(value))
          return error() << "is a unit attribute";
        if (var.getVarType().isScalar())
          return error() << "keeps a tile in registers, not a scalar";
        if (var->hasAttr(kOffsetAttr))
          return error() << "and '" << kOffsetAttr
                         << "' both: a var is in registers or in shared "
                            "memory";
        return success();
      });
    if (name == kTempAttr)
      return onVar([&](VarOp) -> LogicalResult {
        if (!isa<UnitAttr>(value))
          return error() << "is a unit attribute";
        return success();
      });
    if (name == kLiveAttr || name == kSpillOfAttr)
      return onVar([&](VarOp) { return nonEmptyString(); });
    if (name == kFoldAttr) {
      if (!isa<ReductionOpInterface>(op))
        return error() << "belongs on a reduction";
      auto fold = dyn_cast<StringAttr>(value);
      if (!fold || fold.getValue() != "shuffle")
        return error() << "must be \"shuffle\"";
      return success();
    }
    if (name == kSharedBytesAttr)
      return onKernel([&]() -> LogicalResult {
        auto bytes = dyn_cast<IntegerAttr>(value);
        if (!bytes || !bytes.getType().isInteger(64) || bytes.getInt() < 0)
          return error() << "must be a byte count (a non-negative i64)";
        return success();
      });
    if (name == kElidedSpillsAttr)
      return onKernel([&]() -> LogicalResult {
        auto names = dyn_cast<ArrayAttr>(value);
        if (!names || !llvm::all_of(names, llvm::IsaPred<StringAttr>))
          return error() << "must be an array of var names";
        return success();
      });
    if (name == kPromotedAttr)
      return onKernel(
          [&] { return recordsOf<PromotedVarAttr>("promoted_var"); });
    if (name == kPipelinedAttr)
      return onKernel(
          [&] { return recordsOf<PipelinedLoopAttr>("pipelined_loop"); });
    if (name == kSynchronizedAttr)
      return onKernel([&]() -> LogicalResult {
        if (!isa<UnitAttr>(value))
          return error() << "is a unit attribute";
        return success();
      });
    if (name == kDivisibilityAttr)
      return onKernel([&]() -> LogicalResult {
        auto divisors = dyn_cast<DictionaryAttr>(value);
        if (!divisors)
          return error() << "must be a dictionary of symbol divisors, {K = "
                            "16}";
        // Without its type the kernel's own verifier reports the kernel.
        auto kernel = cast<KernelOp>(op);
        if (!kernel->getAttrOfType<TypeAttr>(kernel.getFunctionTypeAttrName()))
          return success();
        SmallVector<StringAttr> symbols = kernel.getSymbols();
        for (NamedAttribute entry : divisors) {
          if (!llvm::is_contained(symbols, entry.getName()))
            return error() << "names '" << entry.getName().getValue()
                           << "', which is not a symbolic dimension of the "
                              "kernel's parameters";
          auto divisor = dyn_cast<IntegerAttr>(entry.getValue());
          if (!divisor || !divisor.getType().isInteger(64) ||
              divisor.getInt() < 1 || divisor.getInt() > (int64_t(1) << 30) ||
              !llvm::isPowerOf2_64(divisor.getInt()))
            return error() << "gives '" << entry.getName().getValue()
                           << "' the divisor " << entry.getValue()
                           << ": a divisor is a power of two from 1 to 2^30 "
                              "(an i64)";
        }
        return success();
      });
    if (name == kVariantOfAttr)
      return onKernel([&]() -> LogicalResult {
        auto general = dyn_cast<FlatSymbolRefAttr>(value);
        if (!general)
          return error() << "must name a kernel (@name)";
        auto kernel = cast<KernelOp>(op);
        auto base = SymbolTable::lookupNearestSymbolFrom<KernelOp>(
            op->getParentOp(), general.getAttr());
        if (!base || base == kernel)
          return error() << "names " << general
                         << ", which is not another kernel of the module";
        if (base->hasAttr(kVariantOfAttr))
          return error() << "names " << general
                         << ", which is a variant itself";
        // Compared as attributes: the kernels' own verifiers run after
        // this one, and a kernel without `threads` crashed getThreads()
        // (utils/fuzz.py seed 104, iteration 19985).
        auto threadsOf = [](KernelOp of) {
          return of->getAttr(of.getThreadsAttrName());
        };
        auto gridOf = [](KernelOp of) {
          return of->getAttr(of.getGridAttrName());
        };
        auto typeOf = [](KernelOp of) {
          return of->getAttr(of.getFunctionTypeAttrName());
        };
        if (!typeOf(kernel) || typeOf(base) != typeOf(kernel) ||
            threadsOf(base) != threadsOf(kernel) ||
            gridOf(base) != gridOf(kernel))
          return error() << "names " << general
                         << ", whose parameters, threads or grid differ: a "
                            "variant is launched in its place";
        return success();
      });
    if (name == kPaddingAttr)
      return onVar([&](VarOp var) -> LogicalResult {
        auto padding = dyn_cast<IntegerAttr>(value);
        if (!padding || !padding.getType().isInteger(64) ||
            padding.getInt() < 0)
          return error() << "must be an element count (a non-negative i64)";
        if (var.getVarType().getShape().size() != 2 || !isSharedTile(var))
          return error() << "pads the rows of a shared tile of rank 2";
        return success();
      });
    if (name == kSwizzleAttr)
      return onVar([&](VarOp var) -> LogicalResult {
        auto swizzle = dyn_cast<IntegerAttr>(value);
        if (!swizzle || !swizzle.getType().isInteger(64) ||
            !llvm::is_contained({32, 64, 128}, swizzle.getInt()))
          return error() << "must be wgmma's swizzle in bytes: 32, 64 or 128";
        VarType type = var.getVarType();
        int64_t rowBytes =
            type.getShape().empty()
                ? 0
                : type.getShape().back() *
                      type.getElementType().getIntOrFloatBitWidth() / 8;
        if (type.getShape().size() != 2 || rowBytes % swizzle.getInt() != 0)
          return error() << "swizzles a tile of rank 2 whose rows are whole "
                            "blocks of "
                         << swizzle.getInt() << " bytes";
        if (getRowPadding(var))
          return error() << "and tile.padding exclude each other";
        return success();
      });
    if (name == kIndexAttr) {
      if (!isa<scf::ForOp>(op))
        return error() << "belongs on an scf.for";
      return nonEmptyString();
    }
    if (name == kScatterAttr) {
      auto marker = dyn_cast<DenseI64ArrayAttr>(value);
      if (op->getName().getStringRef() != "llvm.store")
        return error() << "belongs on an llvm.store";
      if (!marker || marker.size() != 2 || marker[0] < 0 || marker[1] < 0)
        return error() << "must be [scatter number, slot]";
      return success();
    }
    if (name == kAsyncCopyAttr) {
      // By name, as `scatter`: the dialect does not depend on memref's.
      if (op->getName().getStringRef() != "memref.store")
        return error() << "belongs on a memref.store";
      if (!isa<UnitAttr>(value))
        return error() << "must be a unit attribute";
      return success();
    }
    return op->emitOpError("has unknown attribute '")
           << name << "' of the tile dialect";
  }

private:
  InFlightDiagnostic error() {
    return op->emitOpError("attribute '") << name << "' ";
  }

  LogicalResult onVar(function_ref<LogicalResult(VarOp)> check) {
    auto var = dyn_cast<VarOp>(op);
    if (!var)
      return error() << "belongs on a tile.var";
    return check(var);
  }

  LogicalResult onKernel(function_ref<LogicalResult()> check) {
    if (!isa<KernelOp>(op))
      return error() << "belongs on a tile.kernel";
    return check();
  }

  LogicalResult nonEmptyString() {
    auto string = dyn_cast<StringAttr>(value);
    if (!string || string.getValue().empty())
      return error() << "must be a non-empty string";
    return success();
  }

  /// `list`, an array of dictionaries holding exactly `fields`, of those
  /// kinds.
  /// An array of #tile.MNEMONIC records (which verified themselves).
  template <typename Record> LogicalResult recordsOf(StringRef mnemonic) {
    auto array = dyn_cast<ArrayAttr>(value);
    if (!array || !llvm::all_of(array, llvm::IsaPred<Record>))
      return error() << "must be an array of #tile." << mnemonic << " records";
    return success();
  }

  Operation *op;
  StringRef name;
  Attribute value;
};
} // namespace

LogicalResult TileDialect::verifyOperationAttribute(Operation *op,
                                                    NamedAttribute attribute) {
  return AttributeVerifier(op, attribute).verify();
}

LogicalResult TileDialect::verifyRegionArgAttribute(Operation *op, unsigned,
                                                    unsigned,
                                                    NamedAttribute attribute) {
  // tile.kernel checks its parameters' names itself (verifyParamNames).
  if (attribute.getName() == kParamNameAttr && isa<KernelOp>(op))
    return success();
  return op->emitOpError("has unknown argument attribute '")
         << attribute.getName().getValue() << "' of the tile dialect";
}
