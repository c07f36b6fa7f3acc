//===- Divisibility.h - what divides a kernel's index values ----*- C++ -*-===//
//
// The powers of two the compiler knows to divide index values of a kernel
// (slice offsets, sizes), from constants, loop steps, arithmetic and the
// kernel's `tile.divisibility` (the symbols' divisors a launch guarantees),
// in the spirit of Triton's AxisInfo. The lowering asks it whether the runs
// of a vector layout are aligned; tile-specialize-divisibility asks it
// whether a variant under more divisibility would compile differently.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_ANALYSIS_DIVISIBILITY_H
#define TILE_ANALYSIS_DIVISIBILITY_H

#include "tile/Dialect/Tile/IR/TileDialect.h"

#include "llvm/ADT/DenseMap.h"

namespace mlir::tile {

/// The divisibility a variant compiled for launches of sizes divisible by
/// 16 assumes of every symbol (Triton's launcher's `div16`).
constexpr int64_t kVariantDivisor = 16;
/// The largest divisor tracked: 0 and other multiples of it count as it.
constexpr int64_t kMaxDivisor = int64_t(1) << 30;

/// How the runs of a vector access lie against their tensor.
enum class RunAlignment {
  /// Every run starts `run` elements aligned, whatever the launch.
  Always,
  /// Only a test at run time can tell.
  AtRunTime,
  /// No run can be aligned (a constant that is not a multiple).
  Never,
};

class DivisibilityInfo {
public:
  /// Divisors under the kernel's own `tile.divisibility`, or under
  /// `divisibility` instead when it is given (what a variant would know).
  explicit DivisibilityInfo(KernelOp kernel,
                            DictionaryAttr divisibility = nullptr);

  /// The largest power of two (at most kMaxDivisor) known to divide
  /// `value`, an index or integer; 1 when nothing is known.
  int64_t getDivisor(Value value);
  /// The same for dimension `dim` of `tensor`: its static size's, or its
  /// symbol's divisor.
  int64_t getDimDivisor(GlobalTensorType tensor, unsigned dim) const;
  /// Whether the last dimension of `tensor` is whole runs of `run`
  /// elements, so that an aligned run lies wholly inside it or wholly
  /// outside (what checking a run at a time needs).
  bool hasWholeRuns(GlobalTensorType tensor, int64_t run) const {
    return getDimDivisor(tensor, tensor.getRank() - 1) % run == 0;
  }
  /// Whether a slice of `extent` elements at `offset` along dimension
  /// `dim` of `tensor` lies wholly inside the dimension or wholly outside:
  /// the offset and the size are multiples of a group at least the extent,
  /// so the slice's first index answers the bounds check for all of it.
  bool isSliceWhole(Value offset, GlobalTensorType tensor, unsigned dim,
                    int64_t extent) {
    return std::min(getDivisor(offset), getDimDivisor(tensor, dim)) >= extent;
  }
  /// The divisor the kernel's launches guarantee of `symbol`.
  int64_t getSymbolDivisor(StringRef symbol) const;

  /// Whether the runs of `run` elements of a slice of rank `rank` at a last
  /// offset `lastOffset` of `tensor` start `run` elements aligned: the
  /// offset and (for rank > 1) the rows' length must be multiples of `run`.
  /// `offsetKnown` and `rowsKnown` say which of the two holds whatever the
  /// launch (the rest is a test at run time).
  RunAlignment getRunAlignment(Value lastOffset, GlobalTensorType tensor,
                               int64_t rank, int64_t run, bool &offsetKnown,
                               bool &rowsKnown);

private:
  int64_t compute(Value value);
  /// A scalar var (for its reads) or a loop-carried argument: a value that
  /// may depend on itself, whose divisor is a fixpoint.
  static Value getRecurrence(Value value);
  /// The largest divisor that its sources keep when it is assumed
  /// (starting from kMaxDivisor and lowering it until it holds), so that
  /// `col = 0; col += 64` is a multiple of 64.
  int64_t getRecurrenceDivisor(Value recurrence);
  /// The divisor of what `recurrence` may hold, from its sources.
  int64_t computeSources(Value recurrence);

  llvm::StringMap<int64_t> symbols;
  DenseMap<Value, int64_t> known;
  /// The recurrences being solved, innermost last, with their current
  /// assumptions; the lowest position whose assumption the current solve
  /// used; the recurrences solved independently of any other's assumption;
  /// and how many solves are left (then a recurrence counts as 1).
  SmallVector<std::pair<Value, int64_t>> assumed;
  size_t lowestAssumptionUsed = SIZE_MAX;
  DenseMap<Value, int64_t> solved;
  int64_t solvesLeft = 10000;
};

/// Whether the kernel would be lowered differently were each of its
/// symbols known divisible by `divisibility`'s divisors: some vector
/// access's alignment, or a copy's, would be decided at compile time, or
/// some slice's bounds would be checked once for the slice instead of
/// element by element (isSliceWhole).
bool divisibilityChangesLowering(KernelOp kernel, DictionaryAttr divisibility);

} // namespace mlir::tile

#endif // TILE_ANALYSIS_DIVISIBILITY_H
