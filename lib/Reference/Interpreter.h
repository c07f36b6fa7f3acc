//===- Interpreter.h - the interp backend's interpreter ---------*- C++ -*-===//
//
// One Interpreter runs a kernel's CTAs, op by op, over Vals (Value.h).
// Control flow that depends on ctx.thread runs its regions with a mask of
// the threads that take them, as the lowered code does: pure ops compute
// every element, while var writes, stores, and undefined results count only
// for the active threads (a tile element for its thread, e % threads).
//
// Split by what the ops do: Interpreter.cpp (the walk, budgets, faults,
// constants, elementwise ops, kernels and their parameters),
// ExecControlFlow.cpp (scf), ExecMemory.cpp (slices, copies, atomics,
// vars), ExecTileOps.cpp (the rest of the tile dialect).
//
//===----------------------------------------------------------------------===//

#ifndef TILE_LIB_REFERENCE_INTERPRETER_H
#define TILE_LIB_REFERENCE_INTERPRETER_H

#include "Value.h"
#include "tile/Reference/Interpreter.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "llvm/ADT/DenseMap.h"

#include <array>
#include <optional>

namespace mlir::tile::reference {

namespace rt = ::tile::runtime;

/// A var's content: none until first written; `written` (per thread) while
/// only some threads have written it.
struct VarState {
  std::optional<Val> value;
  ThreadMask written;
};

class Interpreter {
public:
  Interpreter(KernelOp kernel, const InterpOptions &options,
              InterpReport &report)
      : kernel(kernel), options(options), report(report),
        threads(kernel.getThreads()) {}

  LogicalResult run(ArrayRef<rt::HostTensor *> args,
                    rt::SymbolBindings &symbols);

private:
  FailureOr<SmallVector<Val>> runBlock(Block &block, ArrayRef<Val> args);
  /// runBlock with the threads of `mask` active (empty: every thread), and
  /// under a thresholded condition when `thresholded`.
  FailureOr<SmallVector<Val>> runBlockUnder(Block &block, ArrayRef<Val> args,
                                            ThreadMask mask, bool thresholded);
  LogicalResult execute(Operation &op);
  LogicalResult executeElementwise(Operation &op,
                                   const ElementwiseOp &elementwise);
  LogicalResult executeConstant(arith::ConstantOp op);
  /// Loads (`stored` null; elements outside the tensor read `other`, or 0)
  /// or stores (where `mask` holds, if given) the slice of `tensor` at
  /// `offsets` with the tile's shape; in the dimensions `indexDims`, each
  /// element's coordinate adds its (broadcast) element of the index tile
  /// `indices[k]` instead of its own position (a gather or scatter). A
  /// load goes to `loaded`, or to the op's result. Element `e` is the work
  /// of thread `(e / width) % threads` (a copy's chunks of `width`; 1 for
  /// slices).
  LogicalResult executeSlice(Operation &op, Value tensor, ValueRange offsets,
                             RankedTensorType tileType, const Val *stored,
                             const Val *other = nullptr,
                             const Val *mask = nullptr, int64_t width = 1,
                             Val *loaded = nullptr, ValueRange indices = {},
                             ArrayRef<int64_t> indexDims = {},
                             std::optional<AtomicKind> atomic = std::nullopt);
  LogicalResult executeCopy(CopyOp copy);
  /// The mark of tensor element `element` (parameter, linear index) after
  /// element `e` of `stored` updated it atomically from `before` to
  /// `after`, with what earlier updates of it left (atomicUpdates).
  rt::ElementMark markAtomicUpdate(std::pair<unsigned, int64_t> element,
                                   AtomicKind kind, const Val &stored, size_t e,
                                   bool thresholded, rt::ElementMark previous,
                                   double before, double after);
  /// The state of the var or ring stage `handle` names, or null after an
  /// error at `op` when none was made.
  VarState *stateOf(Operation &op, Value handle, bool create = false);
  LogicalResult executeIf(scf::IfOp op);
  LogicalResult executeFor(scf::ForOp op);
  LogicalResult executeForPerThread(scf::ForOp op);
  LogicalResult executeWhile(scf::WhileOp op);
  LogicalResult executeTileOp(Operation &op);
  LogicalResult writeVar(Value var, Val value);
  LogicalResult readVar(ReadOp read);

  /// Counts one op and the elements it computes; fails once the run has
  /// taken too many of either.
  LogicalResult tick(Operation *op, int64_t opElements = 1);
  /// An error at `op` about the kernel itself (undefined behaviour on these
  /// inputs, a run that does not end), not about what the interpreter
  /// supports: the run is a fault of the kernel.
  InFlightDiagnostic fault(Operation *op) {
    report.fault = true;
    return op->emitError();
  }
  /// A kernel fault unless every element of `value` that an active thread
  /// uses is defined: `what` (say, "the condition of 'scf.if'") would be
  /// computed from memory nothing wrote.
  LogicalResult requireDefined(Operation *op, const Val &value,
                               const Twine &what);
  InFlightDiagnostic undefinedUse(Operation *op, const Val &value,
                                  const Twine &what);
  /// `value` as read from var `var`: its elements nothing wrote, if any,
  /// named by their first (`elements`: the var's element of each of the
  /// value's; empty: the same).
  void noteOrigin(Val &value, Operation &read, Value var,
                  ArrayRef<int64_t> elements = {});
  bool isActive(int64_t thread) const {
    return active.empty() || active[thread];
  }
  /// The active threads as a mask with an entry per thread.
  ThreadMask activeMask() const {
    return active.empty() ? ThreadMask(threads, 1) : active;
  }
  const Val &get(Value value) { return values.find(value)->second; }
  void set(Value value, Val val) { values[value] = std::move(val); }
  /// The buffer of a kernel parameter, or an error when `value` is none.
  rt::HostTensor *getTensor(Operation &op, Value value) {
    rt::HostTensor *tensor = tensors.lookup(value);
    if (!tensor)
      op.emitError("the interp backend needs a kernel parameter here");
    return tensor;
  }

  KernelOp kernel;
  const InterpOptions &options;
  InterpReport &report;
  int64_t threads;
  uint64_t steps = 0;
  uint64_t elements = 0;
  /// The element budget of this launch (InterpOptions::elementsPerCTA).
  uint64_t maxElements = 0;
  /// The steps and elements when the current CTA started, and the CTAs
  /// started so far (tick's diagnosis).
  uint64_t ctaStartSteps = 0, ctaStartElements = 0;
  int64_t ctasStarted = 0;
  std::array<int64_t, 3> grid = {1, 1, 1};
  std::array<int64_t, 3> blockId = {0, 0, 0};
  DenseMap<Value, Val> values;
  DenseMap<Value, VarState> vars;
  /// The stages of each ring, and the stage each tile.stage last named.
  DenseMap<Value, SmallVector<VarState>> rings;
  DenseMap<Value, int64_t> stageIndex;
  DenseMap<Value, rt::HostTensor *> tensors;
  DenseMap<Value, unsigned> paramIndex;
  /// The scalar parameters and their values.
  SmallVector<std::pair<Value, Val>> scalarArgs;
  /// The threads running the current region; empty: all of them.
  ThreadMask active;
  /// The current region runs under a thresholded condition: what it writes
  /// is thresholded.
  bool controlThresholded = false;
  /// What the float atomic updates of a tensor element (parameter, linear
  /// index) so far add up to, for its error bound: the GPU applies them in
  /// an order of its own.
  struct AtomicUpdates {
    unsigned updates = 0;
    Accuracy accuracy = Accuracy::Exact;
    /// The magnitudes of the first value and of every term (add).
    double magnitude = 0;
    /// The absolute error of the first value and the terms: their sum
    /// (add), the largest (max, min).
    double error = 0;
    bool thresholded = false, unchecked = false;
  };
  DenseMap<std::pair<unsigned, int64_t>, AtomicUpdates> atomicUpdates;
};

} // namespace mlir::tile::reference

#endif // TILE_LIB_REFERENCE_INTERPRETER_H
