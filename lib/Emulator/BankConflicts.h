//===- BankConflicts.h - shared-memory wavefronts per warp ------*- C++ -*-===//
//
// Shared memory has 32 banks of 4-byte words; a warp's access is served in
// wavefronts, one per set of words no two of which share a bank (lanes that
// read one word share it). Each lane runs on its own in the emulator, so a
// warp's instruction is rebuilt from its lanes: the k-th execution of an op
// by each lane of a warp is one warp-wide request. At the end of each CTA
// the requests are counted (see BankConflicts.cpp for the model).
//
//===----------------------------------------------------------------------===//

#ifndef TILE_LIB_EMULATOR_BANKCONFLICTS_H
#define TILE_LIB_EMULATOR_BANKCONFLICTS_H

#include "tile/Emulator/Emulator.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"

#include <map>
#include <tuple>

namespace mlir::tile::emulator {

class BankConflictCounter {
public:
  /// Lane `lane` of warp `warp`, in its `instance`-th execution of `op`,
  /// accesses the `size` bytes at byte `offset` of shared memory.
  void record(Operation *op, SharedAccessKind kind, unsigned warp,
              unsigned lane, uint32_t instance, int64_t offset, int64_t size);
  /// An ldmatrix of warp `warp`: the row addresses (byte offsets) of its
  /// matrices, 8 rows of 16 bytes each.
  void recordLdMatrix(Operation *op, unsigned warp, uint32_t instance,
                      ArrayRef<int64_t> rows);
  /// Counts the requests recorded since the last flush into the totals.
  void flush();
  /// The totals per kind and per site, in the order sites were first seen.
  void fill(EmulatorReport &report) const;

private:
  struct Request {
    SharedAccessKind kind;
    int64_t size = 0;
    /// (lane, byte offset); for an ldmatrix, (row, byte offset).
    SmallVector<std::pair<unsigned, int64_t>, 32> accesses;
  };
  std::map<std::tuple<unsigned, Operation *, uint32_t>, Request> pending;
  SharedAccessCount totals[kSharedAccessKinds];
  /// The site of each (location, kind): the ops of one source line (a
  /// tile's slots, unrolled) count as one.
  llvm::DenseMap<std::pair<const void *, unsigned>, unsigned> siteIndex;
  std::vector<SharedAccessSite> perOp;
};

} // namespace mlir::tile::emulator

#endif // TILE_LIB_EMULATOR_BANKCONFLICTS_H
