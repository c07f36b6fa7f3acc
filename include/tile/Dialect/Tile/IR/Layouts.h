//===- Layouts.h - where each element of a tile lives -----------*- C++ -*-===//
//
// The layout of every tile value (a LayoutAttrInterface attribute: the
// encoding of its tensor type, which the layout passes write), and what the
// layout-generic code asks of a layout: which slots of a thread hold one
// row (row reductions, #tile.rows), how a row reduction is carried out
// where the tile lives, and how a conversion between two layouts moves the
// elements. Everything here is computed from the interface alone, by
// enumerating (thread, slot) pairs, so a new layout needs no code here.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_DIALECT_TILE_IR_LAYOUTS_H
#define TILE_DIALECT_TILE_IR_LAYOUTS_H

#include "tile/Dialect/Tile/IR/TileDialect.h"

namespace mlir::tile {

/// The cyclic distribution, #tile.blocked<vector = 1>: element e (row-major)
/// in thread e % threads, slot e / threads.
BlockedLayoutAttr getCyclicLayout(MLIRContext *context);
bool isCyclicLayout(Attribute layout);

/// The threads of the kernel `op` is in, or 0 outside a kernel.
int64_t getKernelThreads(Operation *op);

/// Whether `op` is an elementwise op whose one result and every operand are
/// tiles of one shape: each element of the result is computed from the
/// operands' elements at its coordinates.
bool isSameShapeElementwise(Operation *op);

/// The layout of the tile value `tile`: the encoding of its type. Before
/// tile-assign-layouts has written every tile type (writeLayoutTypes), a
/// type without one is in the layout its value is made in
/// (getUnwrittenLayout).
LayoutAttrInterface getLayout(Value tile);

/// The layout of a tile whose type carries none yet, from how it is made:
/// the #tile.rows slice of its input's layout for a row reduction carried
/// out where the input lives; the parent of a #tile.rows input for a
/// broadcast back over its rows; the init's for a loop-carried value, the
/// then branch's for an scf.if result. Otherwise the cyclic distribution.
LayoutAttrInterface getUnwrittenLayout(Value tile);

/// The run length of `tile`'s layout (getRunLength): how many consecutive
/// elements of a row a thread holds in consecutive slots, 1 for the cyclic
/// distribution.
int64_t getLayoutRun(Value tile);

/// `type` with `layout` as its encoding (none for a null `layout`).
RankedTensorType withLayout(RankedTensorType type, Attribute layout);

/// Gives the tile value `tile` the type of `layout`, in place (a constant's
/// value too, whose type is its result's).
void setLayout(Value tile, LayoutAttrInterface layout);

/// Writes the layout of every tile value under `root` into its type
/// (getLayout, in program order, so each value's is derived from written
/// ones), and the layout of a var the plan keeps in registers into its
/// `layout`. After it every tile type carries its layout.
void writeLayoutTypes(Operation *root);

/// Whether `tile`'s layout was chosen for it (by tile-tensor-cores or
/// tile-assign-layouts, or by hand), rather than following from how it is
/// made (getUnwrittenLayout) or from its var's (a read of a var in
/// registers): what the manifest and the language server list.
bool hasChosenLayout(Value tile);

/// A tile var's values' layout: its `layout`, else the cyclic distribution.
LayoutAttrInterface getVarLayout(VarOp var);

/// The slots of `layout` on a rank-2 tile of `shape` grouped by row: the
/// slots of one group hold one row in every thread (a slot that holds no
/// element in some thread is grouped only with slots that hold none
/// there). Groups are in order of their first slot. Cached per layout.
const SmallVector<SmallVector<int64_t>> &
getRowSlotGroups(LayoutAttrInterface layout, ArrayRef<int64_t> shape,
                 int64_t threads);

/// How the rows of a tile are reduced where they live: each thread first
/// combines the slots of each of `groups` (the row groups, or single slots
/// where a row group's slots hold columns of different segments), then a
/// butterfly of xor shuffles over the lanes in `laneMask` combines the
/// lanes of a warp that hold the row; with `parts > 1` the row spans
/// `parts` such lane sets (other warps, or other groups), whose partials
/// meet in an [R, parts] scratch var at index `column / segmentColumns`.
struct RowReductionPlan {
  SmallVector<SmallVector<int64_t>> groups;
  int64_t laneMask = 0;
  int64_t parts = 1;
  int64_t segmentColumns = 0;
};

/// The plan for reducing the rows of a tile of `type` laid out by `layout`
/// in `threads` threads where it lives, or none when its rows do not allow
/// it (which lanes hold a row differs between rows, or an element type
/// warp shuffles do not carry: only f32 and i32 reduce in place).
std::optional<RowReductionPlan> getRowReductionPlan(LayoutAttrInterface layout,
                                                    RankedTensorType type,
                                                    int64_t threads);

/// How tile.convert_layout moves the elements of a tile between two layouts.
enum class ConversionKind {
  /// The layouts are the same: nothing moves.
  None,
  /// Every thread already holds the elements it needs, in a slot that is the
  /// same in every thread: a permutation of its own slots.
  InThread,
  /// Every element a thread needs is held, in a slot that is the same in
  /// every thread, by a lane of its own warp: one shuffle a slot.
  Shuffle,
  /// Through a shared scratch var of the tile's shape: the primary holders
  /// write their elements, a barrier, and every thread reads its own.
  Shared,
};
StringRef stringifyConversionKind(ConversionKind kind);

struct ConversionPlan {
  ConversionKind kind = ConversionKind::Shared;
  /// InThread and Shuffle: the source slot of each destination slot.
  SmallVector<int64_t> sourceSlots;
};

ConversionPlan getConversionPlan(LayoutAttrInterface from,
                                 LayoutAttrInterface to, RankedTensorType type,
                                 int64_t threads);

/// The plan of a tile.convert_layout, from its operand's layout to its own.
ConversionPlan getConversionPlan(ConvertLayoutOp op);

/// The shared scratch var an op exchanges values among warps through, with
/// a barrier of its own between its writes and its reads: a warp-segmented
/// reduction's partials, a conversion through shared memory; null for
/// others.
Value getScratchOf(Operation *op);

} // namespace mlir::tile

#endif // TILE_DIALECT_TILE_IR_LAYOUTS_H
