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
  /// Count the wavefronts (and so the bank conflicts) of every warp's
  /// shared-memory accesses, into EmulatorReport::shared.
  bool countBankConflicts = false;
};

/// The shared-memory accesses whose bank conflicts the emulator counts:
/// ordinary loads and stores (scalar or vector), ldmatrix, and the shared
/// writes of cp.async.
enum class SharedAccessKind : unsigned { Load, Store, LdMatrix, AsyncCopy };
constexpr unsigned kSharedAccessKinds = 4;
/// "ld.shared", "st.shared", "ldmatrix", "cp.async".
const char *sharedAccessName(SharedAccessKind kind);

/// Warp-wide shared-memory instructions and the wavefronts that serve
/// them (32 banks of 4 bytes; lib/Emulator/BankConflicts.cpp has the
/// model): `minimum` is the fewest they could take, the rest are bank
/// conflicts.
struct SharedAccessCount {
  uint64_t instructions = 0, wavefronts = 0, minimum = 0;
  uint64_t conflicts() const { return wavefronts - minimum; }
  SharedAccessCount &operator+=(const SharedAccessCount &other) {
    instructions += other.instructions;
    wavefronts += other.wavefronts;
    minimum += other.minimum;
    return *this;
  }
};

/// The shared-memory accesses of one kind at one location over the run
/// (the ops lowered from one source op, `op` the first one's name).
struct SharedAccessSite {
  Location loc;
  std::string op;
  SharedAccessKind kind;
  SharedAccessCount count;
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
  /// With EmulatorOptions::countBankConflicts: the shared-memory
  /// instructions of every warp of every CTA, per kind and per site.
  SharedAccessCount shared[kSharedAccessKinds];
  std::vector<SharedAccessSite> sharedSites;
  double seconds = 0;
};

/// The report's shared-memory counts as lines of text: the totals per
/// kind, then one line per site ("file:line:col: kind (op) ...").
std::string describeBankConflicts(const EmulatorReport &report);

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
