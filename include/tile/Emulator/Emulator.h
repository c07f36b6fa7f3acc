//===- Emulator.h - the emulate backend -------------------------*- C++ -*-===//
//
// Runs a kernel after tile-to-gpu (per-thread gpu/scf/arith/math/vector/
// memref/llvm code, before convert-gpu-to-nvvm) on the CPU: every thread of
// every CTA, with barriers, warp shuffles and per-CTA shared memory, so the
// code the GPU would run executes where there is no GPU. It checks, while it
// runs, what a GPU would not report: accesses outside a global tensor or a
// shared buffer, shared-memory races between barriers, barriers that only
// part of a CTA reaches and shuffles that read an inactive lane. Each problem
// is an MLIR error at the op's location (the .tile line), naming the block
// and the thread. Global memory is checked across CTAs too: a write and
// another access to one element from two CTAs, not both atomic, race.
// docs/design.md, "The emulate backend", explains the design.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_EMULATOR_EMULATOR_H
#define TILE_EMULATOR_EMULATOR_H

#include "tile/Runtime/Tensor.h"

#include "mlir/IR/BuiltinOps.h"

#include <array>

namespace mlir::gpu {
class GPUFuncOp;
} // namespace mlir::gpu

namespace mlir::tile::emulator {

/// One `!llvm.ptr<1>` parameter: the host tensor it points to, read and
/// written in place, and its name for error messages.
struct EmulatedBuffer {
  std::string name;
  ::tile::runtime::HostTensor *tensor = nullptr;
  /// When given (one entry per element), set for each element a store
  /// writes.
  std::vector<bool> *written = nullptr;
};

struct EmulatorOptions {
  /// Ops one thread may execute before the run fails, so that a loop that
  /// never ends is an error rather than a hang.
  uint64_t maxStepsPerThread = 50'000'000;
  /// Bytes of `gpu.dynamic_shared_memory` (the manifest's `shared_bytes`);
  /// only kernels that use dynamic shared memory need it.
  int64_t dynamicSharedBytes = 0;
  /// Track every shared byte's accesses between barriers.
  bool checkRaces = true;
  /// Distinct races (pairs of ops) reported before the run stops.
  unsigned maxRaceReports = 4;
};

struct EmulatorReport {
  /// The run failed at a check of the kernel (an out-of-bounds access, a
  /// race, a barrier or shuffle error, division by zero, the step limit),
  /// not at something the emulator does not support.
  bool fault = false;
  int64_t ctas = 0;
  /// Threads emulated over all CTAs.
  int64_t threads = 0;
  /// Ops executed over all threads.
  uint64_t steps = 0;
  double seconds = 0;
};

/// Runs every CTA of `grid` of `kernel`, a gpu.func of the lowered ABI
/// (docs/abi.md: one `!llvm.ptr<1>` per buffer, then one i64 per symbol;
/// the block size from `known_block_size`). Fails, with errors emitted at
/// the offending ops, on bad arguments, unsupported ops and every check.
LogicalResult
emulateKernel(gpu::GPUFuncOp kernel, ArrayRef<EmulatedBuffer> buffers,
              ArrayRef<int64_t> symbols, std::array<int64_t, 3> grid,
              const EmulatorOptions &options, EmulatorReport &report);

/// The same for the kernel named `kernel` in the `gpu.module` of `module`
/// (what tile-to-gpu produces); an error at the module when it is missing.
LogicalResult emulateKernel(ModuleOp module, StringRef kernel,
                            ArrayRef<EmulatedBuffer> buffers,
                            ArrayRef<int64_t> symbols,
                            std::array<int64_t, 3> grid,
                            const EmulatorOptions &options,
                            EmulatorReport &report);

} // namespace mlir::tile::emulator

#endif // TILE_EMULATOR_EMULATOR_H
