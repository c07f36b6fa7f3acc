//===- Interpreter.h - the interp backend -----------------------*- C++ -*-===//
//
// A tile-level interpreter of the tile dialect before promotion and
// lowering: the golden model every other backend is checked against.
// Written for obvious correctness, not speed: tiles are arrays of double
// (floats) or int64 (integers, wrapped to their width after each op); each
// float op rounds to its type, as the GPU's do, while reductions and dot
// accumulate in double; values computed from ctx.thread have one value per
// thread, and control flow on them masks the threads that take it; every
// CTA of the grid runs in turn. For every output element it says whether
// the kernel wrote it and how exactly a backend must reproduce it.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_REFERENCE_INTERPRETER_H
#define TILE_REFERENCE_INTERPRETER_H

#include "tile/Dialect/Tile/IR/TileDialect.h"
#include "tile/Runtime/Check.h"
#include "tile/Runtime/Manifest.h"

namespace mlir::tile::reference {

struct InterpOptions {
  /// Ops executed over the whole run before the interpreter gives up, so a
  /// loop that never ends is an error rather than a hang.
  uint64_t maxSteps = 50'000'000;
  /// Elements computed over the whole run (an op counts the elements of its
  /// largest tile operand or result) before the interpreter gives up: a
  /// loop over tiles reaches it long before maxSteps.
  uint64_t maxElements = 250'000'000;
  /// When not 0, the element budget follows the launch: the run may compute
  /// this many elements per CTA of its grid, or maxElements if that is
  /// more (tile-run's --reference-budget), so a large grid is not taken
  /// for a loop that never ends.
  uint64_t elementsPerCTA = 0;
  /// tile-run's and the Python package's elementsPerCTA: 2^28 elements, a
  /// few seconds of the reference per CTA, far more than any example's
  /// CTA computes, so a loop that never ends still stops in seconds.
  static constexpr uint64_t kDefaultElementsPerCTA = uint64_t(1) << 28;
  /// How the kernel the marks are for is compiled (its manifest's
  /// fp_contract and fp_div). With `contract` (the default) an add or
  /// subtract of a product is rounded once on the GPU, and with fp_div=full
  /// an f32 division is div.full.f32 (up to 2 ulp): neither is then exact.
  /// (A division that carries fastmath `afn`, of any float type, is
  /// approximate either way.)
  ::tile::runtime::FloatOptions compiled;
};

/// What a run found besides the buffers' contents.
struct InterpReport {
  /// Per parameter, per element: written, and how exactly (Check.h).
  std::vector<std::vector<::tile::runtime::ElementMark>> marks;
  /// The run failed at a fault of the kernel (undefined behaviour on these
  /// inputs, a read of a var never written), not at something the
  /// interpreter does not support.
  bool fault = false;
  /// The run stopped at its step or element budget (InterpOptions): a loop
  /// that never ends, or a launch larger than the budget. Not a fault: the
  /// budget may be raised.
  bool budgetExhausted = false;
};

/// The kernel's parameters as the runtime describes them (names, dtypes,
/// shapes with symbols), in order.
FailureOr<std::vector<::tile::runtime::ParamSpec>>
getParamSpecs(KernelOp kernel);

/// Runs every CTA of `kernel` on `args` (one per parameter, in order),
/// which are checked against the parameters first; `symbols` may fix
/// symbol values beforehand and receives those the buffers bind. Errors
/// are emitted at the failing op's location; `report`, when given,
/// receives the marks and whether a failure is the kernel's fault.
LogicalResult interpretKernel(KernelOp kernel,
                              ArrayRef<::tile::runtime::HostTensor *> args,
                              ::tile::runtime::SymbolBindings &symbols,
                              const InterpOptions &options = {},
                              InterpReport *report = nullptr);

} // namespace mlir::tile::reference

#endif // TILE_REFERENCE_INTERPRETER_H
