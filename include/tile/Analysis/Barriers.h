//===- Barriers.h - memory accesses of tile ops, where barriers go -*- C++ -*-//
//
// Which shared bytes and global elements each tile op touches and under
// which thread mapping, and from that where a tile kernel needs a barrier
// (as Triton's Membar analysis does for its shared memory). The
// tile-insert-barriers pass acts on it.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_ANALYSIS_BARRIERS_H
#define TILE_ANALYSIS_BARRIERS_H

#include "tile/Analysis/ThreadMapping.h"

#include "llvm/ADT/DenseSet.h"

namespace mlir::tile {

/// One access of a tile op to memory other threads of the CTA see: a
/// shared var, or a global tensor parameter.
struct SharedAccess {
  Value buffer;       // the tile.var result, or the tensor parameter
  int64_t begin, end; // a shared var's bytes; a global tensor: all of it
  bool write;
  /// Each element is touched by the thread that owns it (element e in
  /// thread e % threads) of a tile laid over the buffer as `mapping` says
  /// (a shared var's own tile; a global slice's offsets and shape);
  /// otherwise any thread may touch any element.
  bool byOwner;
  SmallVector<Value> offsets; // of a global slice
  Type tileType;              // of a global slice
  /// An atomic read-modify-write: atomics never conflict with each other.
  bool atomic = false;
  /// A stage of a ring (`buffer` is the ring): the stage `(rotation +
  /// stage) mod stages`, when `rotation` is known; the whole ring when
  /// `rotation` is null.
  Value rotation;
  int64_t stage = 0, stages = 0;
  /// Of an owners' access: the layout of the tile whose owners touch the
  /// elements (getLayout; null for others).
  Attribute layout;
  /// Of a global access: it touches only elements of the box at `offsets`
  /// of `tileType`'s shape (not where index tiles pick them).
  bool withinBox = false;
  /// Of an access made in an earlier iteration of an enclosing scf.for
  /// with a constant step than the one being walked: the loop's induction
  /// variable and step. Its `offsets` are that iteration's values, so an
  /// offset that is the induction variable was smaller by a multiple of
  /// `step` than it is now.
  Value earlierIteration;
  int64_t step = 0;

  /// Whether the boxes of `this` and `other`, both global accesses within
  /// their boxes, one of them made in an earlier iteration, are disjoint:
  /// in some dimension both start at the induction variable and the
  /// earlier box is no wider than the step, so it ends before the later
  /// one starts.
  bool inDisjointIterations(const SharedAccess &other) const;

  /// Two accesses need a barrier between them when they touch the same
  /// memory, one writes, and they are not both the owners' accesses to the
  /// same elements (a thread rereading what it wrote itself). Shared vars
  /// are compared by bytes, since planned vars share bytes; distinct tensor
  /// parameters are distinct memory.
  bool conflictsWith(const SharedAccess &other) const {
    bool global = isa<BlockArgument>(buffer);
    if (global != isa<BlockArgument>(other.buffer) ||
        (global && buffer != other.buffer))
      return false;
    // Two stages of one rotation of a ring are distinct memory.
    if (buffer == other.buffer && stages && rotation &&
        rotation == other.rotation && stage != other.stage)
      return false;
    if (atomic && other.atomic)
      return false;
    bool overlap = begin < other.end && other.begin < end &&
                   !(global && inDisjointIterations(other));
    bool sameThreads = byOwner && other.byOwner && buffer == other.buffer &&
                       offsets == other.offsets && tileType == other.tileType &&
                       layout == other.layout;
    return overlap && (write || other.write) && !sameThreads;
  }
};

/// The accesses of `op` itself (not of ops nested in it) to shared vars and
/// global tensors.
SmallVector<SharedAccess> getSharedAccesses(Operation *op);

/// Whether `op` is a tile.copy that only issues its write (`async`): the
/// write lands at the tile.wait_group that covers it.
bool isAsyncCopy(Operation *op);

/// Whether `op` lowers to code with a barrier of its own between its
/// writes and its reads (a warp-segmented reduction: lane 0 of each warp
/// writes the warp's partials, and after the barrier every thread reads its
/// rows'), so that only its reads are unordered after it.
bool hasBarrierAfterWrites(Operation *op);

/// Where barriers go: before each op of `before`, in addition to the
/// kernel's tile.barrier ops (which order everything before them). Fails,
/// with an error at the op, where a barrier (planned or already there) or
/// a warp shuffle would sit under control flow that depends on the thread,
/// and where a group of async copies would be committed or waited for
/// under such control flow (groups are counted per thread).
/// The plan acts as if the tile.barrier ops in `ignored` were not there
/// (to tell whether a requested barrier orders anything).
struct BarrierPlan {
  llvm::DenseSet<Operation *> before;
};
FailureOr<BarrierPlan>
planBarriers(KernelOp kernel, const llvm::DenseSet<Operation *> &ignored = {});

} // namespace mlir::tile

#endif // TILE_ANALYSIS_BARRIERS_H
