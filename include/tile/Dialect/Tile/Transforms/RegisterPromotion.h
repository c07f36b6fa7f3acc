//===- RegisterPromotion.h - which tile vars can live in registers -*- C++ -*-//
//
// RegisterPromotionAnalysis decides, for the vars a kernel names in
// `registers` (`@registers(...)`), whether each can be kept in per-thread
// registers, and how every use of it is served. It changes nothing; the
// `tile-promote-registers` pass acts on its result, and other tools (reports,
// another compiler's pipeline) can run it on their own.
//
// Distribution: element `e` (row-major) of a register tile lives in thread
// `e % threads` at slot `e / threads`.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_DIALECT_TILE_TRANSFORMS_REGISTERPROMOTION_H
#define TILE_DIALECT_TILE_TRANSFORMS_REGISTERPROMOTION_H

#include "tile/Analysis/ThreadMapping.h"

#include <string>

namespace mlir::tile {

/// The thread and slot holding element `element` (row-major) of a register
/// tile spread over `threads` threads.
struct RegisterSlot {
  int64_t thread, slot;
};
inline RegisterSlot getRegisterSlot(int64_t element, int64_t threads) {
  return {element % threads, element / threads};
}

/// How one use of a register tile is served.
enum class RegisterUseKind {
  /// `t = e`, or a read by an elementwise op: each thread touches only its
  /// own elements, so the use reads and writes registers.
  Elementwise,
  /// A reduction whose strategy is ReductionStrategy::InWarp (`rowsum`/
  /// `rowmax` of an f32 or i32 tile whose rows are a power of two of at most
  /// `kLanes` elements): each row is a run of lanes of one warp, reduced with
  /// warp shuffles where it lives.
  ShuffleFoldable,
  /// Anything else: the tile is first stored to a shared tile.
  Spill,
};

/// Returns "elementwise", "shuffle" or "spill".
llvm::StringRef stringifyRegisterUseKind(RegisterUseKind kind);

/// One use of a register tile.
struct RegisterUse {
  RegisterUseKind kind;
  /// The `tile.write` (an update) or the op consuming a `tile.read` result.
  Operation *user;
  /// For a read, the operand of `user` that holds the value; 0 for a write.
  unsigned operandNumber;
  /// Why a use is folded or spilled, for remarks; empty otherwise.
  std::string reason;

  bool isWrite() const { return isa<WriteOp>(user); }
};

/// Classifies the use of a register tile value `use` (an operand holding the
/// tile's current value) as Elementwise, ShuffleFoldable or Spill, filling
/// `reason` for the latter two. Works on any op, tile dialect or not.
///
/// This is the @registers contract, stricter than classifyTileUse: it spills
/// for uses that read only the owners' elements but are not elementwise
/// (a store to a tensor, a copy into a var, a reduction of whole-warp
/// rows). Such a spill is read by no other thread; tile-plan-shared then
/// serves its reads from the registers and reports the store as elided.
RegisterUseKind classifyRegisterUse(OpOperand &use, std::string &reason);

/// The register-promotion decision for the `registers` of one tile.kernel.
class RegisterPromotionAnalysis {
public:
  /// One var that can live in registers.
  struct Var {
    VarOp op;
    int64_t elements, threads;
    /// Elements per thread: `elements / threads`.
    int64_t slots;
    /// In program order: updates, then reads' consumers, var by var.
    SmallVector<RegisterUse> uses;
  };

  /// A reason a requested var cannot live in registers.
  struct Error {
    Location loc;
    std::string message;
    /// Where the var is declared, when the error points elsewhere.
    std::optional<Location> noteLoc;
    std::string note;
    /// How to fix it, when there is a usual way (a note at `loc`).
    std::string hint;
  };

  /// Analyses `kernel`, a tile.kernel; the request is its `registers` list
  /// plus every tile var already marked `storage = registers`.
  explicit RegisterPromotionAnalysis(Operation *kernel);

  /// The vars that can be promoted (all requested ones when there are no
  /// errors).
  ArrayRef<Var> getVars() const { return vars; }
  ArrayRef<Error> getErrors() const { return errors; }
  bool hasErrors() const { return !errors.empty(); }

private:
  void analyzeVar(VarOp var, int64_t threads);

  SmallVector<Var> vars;
  SmallVector<Error> errors;
};

} // namespace mlir::tile

#endif // TILE_DIALECT_TILE_TRANSFORMS_REGISTERPROMOTION_H
