//===- SharedAccess.h - shared-memory accesses and barrier placement ------===//
//
// Which shared bytes each tile op touches and under which thread mapping,
// and from that where a tile kernel needs a barrier.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_LIB_CONVERSION_TILETOGPU_SHAREDACCESS_H
#define TILE_LIB_CONVERSION_TILETOGPU_SHAREDACCESS_H

#include "tile/Dialect/Tile/IR/TileDialect.h"

#include "llvm/ADT/DenseSet.h"

namespace mlir::tile {

/// One access of a tile op to a shared var.
struct SharedAccess {
  Operation *var;     // the tile.var
  int64_t begin, end; // its bytes in the CTA's shared memory
  bool write;
  /// Each element is touched by the thread that owns it (element e in
  /// thread e % threads); otherwise any thread may touch any element.
  bool byOwner;

  /// Two accesses need a barrier between them when they share bytes, one
  /// writes, and they are not both the owners' accesses to one var (a
  /// thread reading back what it wrote itself).
  bool conflictsWith(const SharedAccess &other) const {
    bool overlap = begin < other.end && other.begin < end;
    bool sameThreads = byOwner && other.byOwner && var == other.var;
    return overlap && (write || other.write) && !sameThreads;
  }
};

/// The shared-memory accesses of `op` itself (not of ops nested in it).
SmallVector<SharedAccess> getSharedAccesses(Operation *op);

/// Where barriers go: before each op of `before`. Fails, with an error at
/// the op, where a barrier or a warp shuffle would sit under control flow
/// that depends on the thread.
struct BarrierPlan {
  llvm::DenseSet<Operation *> before;
};
FailureOr<BarrierPlan> planBarriers(KernelOp kernel);

} // namespace mlir::tile

#endif // TILE_LIB_CONVERSION_TILETOGPU_SHAREDACCESS_H
