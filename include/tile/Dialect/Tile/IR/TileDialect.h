//===- TileDialect.h - the tile dialect -------------------------*- C++ -*-===//
//
// The one header for users of the tile dialect: the dialect, its types,
// attributes and ops.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_DIALECT_TILE_IR_TILEDIALECT_H
#define TILE_DIALECT_TILE_IR_TILEDIALECT_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace mlir::tile {
/// IR for the row-major index of `coords` in a tile of `shape`.
Value linearizeCoordinates(OpBuilder &builder, Location loc, ValueRange coords,
                           ArrayRef<int64_t> shape);
} // namespace mlir::tile

// The attributes first: the dialect's discardable attribute helpers use
// them.
#include "tile/Dialect/Tile/IR/TileAttrInterfaces.h.inc"
#include "tile/Dialect/Tile/IR/TileEnums.h.inc"
#define GET_ATTRDEF_CLASSES
#include "tile/Dialect/Tile/IR/TileAttrs.h.inc"

#include "tile/Dialect/Tile/IR/TileDialect.h.inc"

#define GET_TYPEDEF_CLASSES
#include "tile/Dialect/Tile/IR/TileTypes.h.inc"

namespace mlir::tile {
/// Threads per warp on every target tile supports (`ctx.lanes`).
constexpr int64_t kLanes = 32;
/// Elements of one tile at most: far beyond any chip, and small enough that
/// no size computation of a later pass (or buffer of interp) overflows.
constexpr int64_t kMaxTileElements = int64_t(1) << 24;

/// Whether `name` is `[A-Za-z_][A-Za-z0-9_]*`, as the names of parameters
/// and symbols in a manifest must be (docs/abi.md).
bool isIdentifier(StringRef name);

/// Fails, with an error on `op`, unless `op` is nested in a tile.kernel.
LogicalResult verifyInsideKernel(Operation *op);
/// The trait of every tile op but tile.kernel: verifyInsideKernel.
template <typename ConcreteType>
class InsideKernel : public OpTrait::TraitBase<ConcreteType, InsideKernel> {
public:
  static LogicalResult verifyTrait(Operation *op) {
    return verifyInsideKernel(op);
  }
};
/// Checks a ReductionOpInterface op: the reduced axis becomes 1 and the
/// element type stays, and the scratch var, when there is one, is what a
/// warp-segmented reduction of the input needs.
LogicalResult verifyReduction(Operation *op);
/// The most stages `@pipeline` may ask for.
constexpr int64_t kMaxPipelineStages = 8;

/// Checks one entry of a kernel's `pipeline` dictionary: `names`, a list of
/// strings, `stages`, an integer from 2 to kMaxPipelineStages, or
/// `shared`, a boolean; any other key is an error, reported with
/// `emitError`.
LogicalResult
verifyPipelineOption(StringRef key, Attribute value,
                     function_ref<InFlightDiagnostic()> emitError);

/// A row reduction reads and writes its scratch var, if any, and nothing
/// else.
void getScratchEffects(
    MutableOperandRange scratch,
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
        &effects);
} // namespace mlir::tile

#include "tile/Dialect/Tile/IR/TileInterfaces.h.inc"

#define GET_OP_CLASSES
#include "tile/Dialect/Tile/IR/TileOps.h.inc"

namespace mlir::tile {
/// The names of the discardable attributes declared in TileDialect.td
/// (`discardableAttrs`), which TileDialect::verifyOperationAttribute checks.
inline constexpr StringLiteral kOffsetAttr =
    TileDialect::OffsetAttrHelper::getNameStr();
inline constexpr StringLiteral kLiveAttr =
    TileDialect::LiveAttrHelper::getNameStr();
inline constexpr StringLiteral kLocalAttr =
    TileDialect::LocalAttrHelper::getNameStr();
inline constexpr StringLiteral kTempAttr =
    TileDialect::TempAttrHelper::getNameStr();
inline constexpr StringLiteral kSpillOfAttr =
    TileDialect::SpillOfAttrHelper::getNameStr();
inline constexpr StringLiteral kFoldAttr =
    TileDialect::FoldAttrHelper::getNameStr();
inline constexpr StringLiteral kPromotedAttr =
    TileDialect::PromotedAttrHelper::getNameStr();
inline constexpr StringLiteral kElidedSpillsAttr =
    TileDialect::ElidedSpillsAttrHelper::getNameStr();
inline constexpr StringLiteral kSharedBytesAttr =
    TileDialect::SharedBytesAttrHelper::getNameStr();
inline constexpr StringLiteral kPipelinedAttr =
    TileDialect::PipelinedAttrHelper::getNameStr();
inline constexpr StringLiteral kSynchronizedAttr =
    TileDialect::SynchronizedAttrHelper::getNameStr();
inline constexpr StringLiteral kPaddingAttr =
    TileDialect::PaddingAttrHelper::getNameStr();
inline constexpr StringLiteral kSwizzleAttr =
    TileDialect::SwizzleAttrHelper::getNameStr();
inline constexpr StringLiteral kIndexAttr =
    TileDialect::IndexAttrHelper::getNameStr();
inline constexpr StringLiteral kScatterAttr =
    TileDialect::ScatterAttrHelper::getNameStr();
inline constexpr StringLiteral kAsyncCopyAttr =
    TileDialect::AsyncCopyAttrHelper::getNameStr();
inline constexpr StringLiteral kDivisibilityAttr =
    TileDialect::DivisibilityAttrHelper::getNameStr();
inline constexpr StringLiteral kVariantOfAttr =
    TileDialect::VariantOfAttrHelper::getNameStr();
/// The argument attribute naming a kernel parameter (the front end sets it).
inline constexpr StringLiteral kParamNameAttr = "tile.name";

/// Whether `a` and `b` are one type but for a tile's layout (the encoding
/// of a tensor type): what a var's value type, a tile.read, a tile.write
/// and a dot's accumulator may differ in.
bool isSameIgnoringLayout(Type a, Type b);

/// The tile.var a var handle refers to: the var itself, or the ring a
/// tile.stage is a stage of; null for anything else.
VarOp getVarOp(Value handle);
/// Whether `op`, or an op nested in it, writes `var`: a tile.write or a
/// tile.copy into it or into one of its stages.
bool writesVar(Operation *op, VarOp var);
/// The chips tile targets: sm_70 to sm_100.
constexpr int kMinChip = 70, kMaxChip = 100;
/// The number of `sm_NN` (or `sm_NNa`), if tile supports it.
FailureOr<int> parseChip(StringRef chip);
/// The shape of one mma.sync tile tensor cores multiply: [16, 16] x
/// [16, 8], the m16n8k16 of f16 and bf16; tf32's is m16n8k8.
constexpr int64_t kMmaM = 16, kMmaN = 8, kMmaK = 16, kMmaKTF32 = 8;
/// The K of one mma.sync of `dot`: 8 for a dot of precision tf32, else 16.
inline int64_t getMmaK(DotOp dot) {
  return dot.getPrecision() == DotPrecision::tf32 ? kMmaKTF32 : kMmaK;
}
/// The first chip with mma.sync.m16n8k16: sm_80.
constexpr int kMinMmaChip = 80;
/// The warp grid of a dot on tensor cores (tile-tensor-cores gives its
/// result type the #tile.mma encoding), or null for a dot that runs SIMT.
inline MmaLayoutAttr getMmaLayout(Operation *dot) {
  auto type = cast<RankedTensorType>(dot->getResult(0).getType());
  return dyn_cast_or_null<MmaLayoutAttr>(type.getEncoding());
}
/// The elements after each row of a var's tile in shared memory
/// (`tile.padding`, tile-plan-shared), or 0.
inline int64_t getRowPadding(Operation *var) {
  auto padding = var->getAttrOfType<IntegerAttr>(kPaddingAttr);
  return padding ? padding.getInt() : 0;
}

/// The bytes of the wgmma swizzle a var's tile is laid out in
/// (`tile.swizzle`, tile-tensor-cores: 128, 64 or 32), or 0.
inline int64_t getSwizzleBytes(Operation *var) {
  auto swizzle = var->getAttrOfType<IntegerAttr>(kSwizzleAttr);
  return swizzle ? swizzle.getInt() : 0;
}
/// The alignment of a swizzled var: its 8-row groups start at 1024 bytes.
constexpr int64_t kSwizzleAlignment = 1024;
/// The element index, in a var of shape [R, C] of `elementBytes`-byte
/// elements laid out in the wgmma swizzle of `swizzle` bytes
/// (`tile.swizzle`), of its element (row, column): the column block
/// `column / (swizzle / elementBytes)` of R rows of `swizzle` bytes, the
/// row in it, the 16-byte chunk XORed with the row's bits.
int64_t getSwizzledIndex(int64_t rows, int64_t swizzle, int64_t elementBytes,
                         int64_t row, int64_t column);
/// Whether a dot of `kernel` runs on wgmma (`on wgmma`): its PTX targets
/// sm_90a, wgmma's architecture.
bool usesWgmma(KernelOp kernel);

/// Whether `var` lives in per-thread registers: a request not yet carried
/// out (`storage = registers`), or the planner's decision (`tile.local`).
inline bool isInRegisters(VarOp var) {
  return var.getStorage() == Storage::registers || var->hasAttr(kLocalAttr);
}
/// Whether `var` is a tile in shared memory.
inline bool isSharedTile(VarOp var) {
  return !var.getVarType().isScalar() && !isInRegisters(var);
}
} // namespace mlir::tile

namespace mlir::tile {
/// How a reduction is carried out, which the promotion, the plan, the
/// barrier analysis and the lowering all follow. It depends on where the
/// input's elements are (its layout, getRowReductionPlan in Layouts.h).
enum class ReductionStrategy {
  /// The lanes of one warp that hold a row are a xor butterfly of lanes
  /// (the cyclic distribution: f32 or i32 rows of a power of two of at most
  /// ctx.lanes elements, each a run of lanes), reduced by warp shuffles
  /// where the tile lives; every lane of a row ends with the row's result.
  /// A column in a CTA of one warp: the lanes C apart that hold it.
  InWarp,
  /// The same, per warp, for rows that span several warps (the cyclic
  /// distribution: f32 or i32 rows of a multiple of ctx.lanes elements):
  /// each warp's partials combine through an [R, parts] shared scratch var.
  WarpSegmented,
  /// Columns of f32 or i32 of a multiple of ctx.threads elements: each
  /// column is in one thread's slots, which fold there; the results are in
  /// their owners (no other thread is read, nothing is replicated).
  InThread,
  /// Anything else: the tile is read from shared memory, a warp per row
  /// (a thread per column).
  ThroughShared,
};

/// The strategy for `op`, from its input's layout (columns and argmax:
/// the cyclic distribution only).
ReductionStrategy getReductionStrategy(ReductionOpInterface op);
/// Whether `op` reduces where its input lives (InWarp, WarpSegmented or
/// InThread). For a row reduction every lane that holds an element of a
/// row ends with that row's result (isRowReplicated).
inline bool reducesInPlace(ReductionOpInterface op) {
  return getReductionStrategy(op) != ReductionStrategy::ThroughShared;
}

/// The scratch var a warp-segmented reduction needs: a partial per lane set
/// of each row.
VarType getScratchType(ReductionOpInterface op);

/// Whether `type` is that of a scalar kernel parameter: f16, bf16, f32,
/// i32 or index.
bool isScalarParamType(Type type);

/// The tensor parameter `op` reads or writes elements of (a load, gather,
/// store, scatter or atomic update), or null.
Value getAccessedTensor(Operation *op);
/// Whether `op` reads (writes) the tensor getAccessedTensor names; an
/// atomic update does both.
bool readsTensor(Operation *op);
bool writesTensor(Operation *op);

/// The number of elements of a tile type (1 for a scalar).
int64_t getNumElements(Type type);

/// The bytes a var's tile takes in memory, unpadded.
int64_t getVarBytes(VarType type);
/// The elements one tile of `var` takes in shared memory: its rows at
/// `columns + padding` elements apart (getRowPadding).
int64_t getSharedElements(VarOp var);

/// Shared buffers, and the stages of a ring, start at multiples of this
/// many bytes (a 16-byte vector access, a cp.async of 16 bytes).
constexpr int64_t kSharedAlignment = 16;
/// The bytes from one stage of a ring to the next: its tile's (padded),
/// aligned.
int64_t getStageStride(VarOp ring);
/// The alignment of a shared var's storage: kSharedAlignment, or
/// kSwizzleAlignment for a swizzled one.
int64_t getSharedAlignment(VarOp var);
/// The bytes a var takes in shared memory: its tile's, or every stage of a
/// ring.
int64_t getStorageBytes(VarOp var);

} // namespace mlir::tile

#endif // TILE_DIALECT_TILE_IR_TILEDIALECT_H
