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
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "tile/Dialect/Tile/IR/TileDialect.h.inc"
#include "tile/Dialect/Tile/IR/TileEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "tile/Dialect/Tile/IR/TileAttrs.h.inc"

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
/// Checks `[R, C] -> [R, 1]` with one element type, and the scratch var of
/// a warp-segmented reduction when there is one.
LogicalResult verifyRowReduction(Operation *op, Type input, Type result,
                                 Value scratch);
/// The most stages `@pipeline` may ask for.
constexpr int64_t kMaxPipelineStages = 8;

/// Checks one entry of a kernel's `pipeline` dictionary: `names`, a list of
/// strings, or `stages`, an integer from 2 to kMaxPipelineStages; any other
/// key is an error, reported with `emitError`.
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

#define GET_OP_CLASSES
#include "tile/Dialect/Tile/IR/TileOps.h.inc"

namespace mlir::tile {
/// Whether rowsum/rowmax of a tile of `type` folds into a butterfly of warp
/// shuffles where the tile lives: f32 or i32 rows of a power of two of at
/// most ctx.lanes elements, so that under the element-to-thread mapping
/// (element e in thread e % threads) each row is a run of lanes of one warp.
bool isShuffleFoldable(RankedTensorType type);

/// Whether rowsum/rowmax of a tile of `type` reduces in two steps where the
/// tile lives: f32 or i32 rows of a multiple of ctx.lanes elements, more
/// than one warp's worth, so that (ctx.threads being a multiple of ctx.lanes
/// too) the lanes of a warp hold a run of one row in each slot. A butterfly
/// gives each warp's partial, and each row's partials combine through an
/// [R, C / ctx.lanes] shared scratch var.
bool isWarpSegmented(RankedTensorType type);

/// The scratch var type a warp-segmented reduction of `type` needs.
VarType getScratchType(RankedTensorType type);

/// The scratch var of a rowsum/rowmax (`through %p`), or null: none yet, or
/// not a row reduction.
Value getReductionScratch(Operation *op);

/// Whether `value` is the result of a rowsum/rowmax reduced where its input
/// lives (shuffle-folded or warp-segmented): every lane that holds an
/// element of a row holds that row's result.
bool isRowReplicated(Value value);

/// Whether `use` reads its tile under a thread mapping other than the
/// element owner's (a reduction through shared memory, a dot operand, a
/// broadcast that is not free), so that the tile must be in shared memory.
bool readsAcrossThreads(OpOperand &use);

/// The number of elements of a tile type (1 for a scalar).
int64_t getNumElements(Type type);

/// The bytes a var's tile takes in memory.
int64_t getVarBytes(VarType type);

/// Whether some use of `read`'s value needs it in the threads that own its
/// elements (anything but an op reading it across threads, which reads the
/// var itself).
bool hasOwnerUse(ReadOp read);
} // namespace mlir::tile

#endif // TILE_DIALECT_TILE_IR_TILEDIALECT_H
