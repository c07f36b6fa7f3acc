//===- ThreadMapping.h - which threads a use of a tile reads ----*- C++ -*-===//
//
// The one definition of "does this use need other threads' data", which
// register promotion, the shared-memory plan, the barrier analysis and the
// lowering all ask. Every tile value is spread over the CTA as seed 000
// spreads register tiles: element e (row-major) in thread e % threads, slot
// e / threads.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_ANALYSIS_THREADMAPPING_H
#define TILE_ANALYSIS_THREADMAPPING_H

#include "tile/Dialect/Tile/IR/TileDialect.h"

namespace mlir::tile {

/// The most elements one thread may hold of one tile kept in registers: the
/// cap of `@registers` (seed 000), and the planner's for the vars it keeps
/// in registers itself.
constexpr int64_t kMaxRegisterSlots = 64;

/// How a use reads the tile value it is given, relative to the threads
/// that hold its elements.
enum class TileUseKind {
  /// Each thread reads only the elements it holds (an elementwise op, a
  /// store to a tensor or a var, ...), or the use is not of a tile.
  ByOwner,
  /// A reduction carried out where the tile lives (ReductionStrategy
  /// InWarp or WarpSegmented): warp shuffles among the lanes that hold a
  /// row, never another warp's registers.
  InPlaceReduction,
  /// A broadcast back over its rows of a row result reduced in place,
  /// which every lane of the row already holds: no data moves.
  FreeBroadcast,
  /// Needs elements that other threads hold (a reduction through shared
  /// memory, a `dot` operand, any other broadcast): the value is read from
  /// shared memory.
  AcrossThreads,
};

/// Classifies `use`.
TileUseKind classifyTileUse(OpOperand &use);

/// For a sub-tile of `subShape` at `offsets` in a tile of `full`'s shape,
/// spread over `threads` threads: the slot of the tile that holds each
/// slot's element of the sub-tile, when every element of the sub-tile is
/// held by the thread that holds it in the tile, in a slot that is the
/// same for every thread (so each thread moves it between its own
/// registers); none otherwise.
std::optional<SmallVector<int64_t>> getOwnerSlotMap(RankedTensorType full,
                                                    ArrayRef<int64_t> offsets,
                                                    ArrayRef<int64_t> subShape,
                                                    int64_t threads);

/// Whether `use` needs elements other threads hold (TileUseKind
/// AcrossThreads), so that the tile must be in shared memory.
inline bool readsAcrossThreads(OpOperand &use) {
  return classifyTileUse(use) == TileUseKind::AcrossThreads;
}

/// Whether `value` is the result of a reduction carried out where its input
/// lives: every lane that holds an element of a row holds that row's result
/// (the lowering's RowReplicated layout).
bool isRowReplicated(Value value);

/// Whether some use of `read`'s value needs it in the threads that own its
/// elements (anything but an op reading it across threads, which reads the
/// var itself).
bool hasOwnerUse(ReadOp read);

} // namespace mlir::tile

#endif // TILE_ANALYSIS_THREADMAPPING_H
