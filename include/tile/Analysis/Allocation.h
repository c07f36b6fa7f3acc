//===- Allocation.h - where each shared var lives in shared memory -*- C++ -*-//
//
// The shared-memory allocation of a kernel whose storage is decided (after
// tile-plan-shared's decisions, or as they stand): the live range of every
// shared tile var (ring, temporary, scratch) in program order, a byte offset
// for each so that vars live at once do not overlap, and the bytes the CTA
// needs, in the spirit of Triton's Allocation analysis. tile-plan-shared
// records it in the IR (`tile.offset`, `tile.live`, `tile.shared_bytes`).
//
//===----------------------------------------------------------------------===//

#ifndef TILE_ANALYSIS_ALLOCATION_H
#define TILE_ANALYSIS_ALLOCATION_H

#include "tile/Dialect/Tile/IR/TileDialect.h"

namespace mlir::tile {

/// One shared var and where it lives.
struct SharedBuffer {
  VarOp var;
  /// Its bytes (getStorageBytes: every stage, the rows' padding).
  int64_t bytes = 0;
  /// Its live range in program order (a region op spans its contents), and
  /// the ops that begin and end it.
  int64_t first = 0, last = 0;
  Operation *firstOp = nullptr, *lastOp = nullptr;
  int64_t offset = 0;
  /// Where it may start: a multiple of getSharedAlignment.
  int64_t alignment = kSharedAlignment;

  /// `file:first-last`, the source lines it is live over.
  std::string describeLiveRange() const;
};

class SharedAllocation {
public:
  /// Allocates every shared tile var of `kernel` (isSharedTile): first fit,
  /// largest first, among the vars live at once, at kSharedAlignment.
  explicit SharedAllocation(KernelOp kernel);

  /// The shared vars in program order.
  ArrayRef<SharedBuffer> getBuffers() const { return buffers; }
  /// The bytes of shared memory the kernel needs: the end of the highest
  /// buffer.
  int64_t getTotalBytes() const { return totalBytes; }

private:
  SmallVector<SharedBuffer> buffers;
  int64_t totalBytes = 0;
};

/// The source line of `op`'s location, or "?".
std::string getSourceLine(Operation *op);

} // namespace mlir::tile

#endif // TILE_ANALYSIS_ALLOCATION_H
