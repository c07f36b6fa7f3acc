//===- Run.h - compile, run and report a tile kernel ------------*- C++ -*-===//
//
// What tile-run does with a parsed kernel, as a library, so that every
// front end that runs kernels (tile-run, the Python package) places,
// compiles, runs and reports them with the same code: the backends
// (cuda, emulate, interp), ptxas's figures and the run report.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_TOOLS_RUN_H
#define TILE_TOOLS_RUN_H

#include "tile/Emulator/Emulator.h"
#include "tile/Runtime/Cuda.h"
#include "tile/Target/PTX/TileToPTX.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"

#include <optional>

namespace mlir::tile {

enum class Backend { Auto, Cuda, Emulate, Interp };

/// "auto", "cuda", "emulate", "interp".
StringRef getBackendName(Backend backend);
std::optional<Backend> parseBackend(StringRef name);
/// `requested`, or for Auto: cuda when a device answers, else emulate.
Backend chooseBackend(Backend requested);

/// A kernel with every placement decided: the placed copy of its module
/// (register promotion and the shared plan) and its manifest, as the JSON
/// the compiler writes and as the runtime parses it, so that a run reads
/// exactly what a deployed kernel ships with.
struct PlacedKernel {
  OwningOpRef<ModuleOp> placed;
  std::string manifestJSON;
  ::tile::runtime::KernelManifest manifest;
};
/// Places a copy of `module` and builds the manifest of its kernel `name`.
/// Errors are emitted as diagnostics.
FailureOr<PlacedKernel> placeKernel(ModuleOp module, StringRef name,
                                    const TileToPTXOptions &options);

/// What `ptxas -v` says about a kernel's PTX.
struct PtxasFigures {
  enum class Status { Ok, NoPtxas, Rejected } status = Status::NoPtxas;
  int registers = 0, spillStoreBytes = 0, spillLoadBytes = 0, stackBytes = 0,
      sharedBytes = 0;
  /// The entry's `.maxntid` in the PTX (0: none), which caps its CTAs.
  int maxThreads = 0;
};
/// The figures of the PTX entry `entry` (a module's PTX holds every kernel
/// of the file, and their variants).
PtxasFigures runPtxas(const std::string &ptx, StringRef chip, StringRef entry);

/// The PTX entry of the variant a launch of `manifest` with `symbols` runs
/// (chooseVariant), or the general entry when the symbols choose none.
std::string getVariantEntry(const ::tile::runtime::KernelManifest &manifest,
                            const ::tile::runtime::SymbolBindings &symbols);

/// The run report's figures without a GPU: ptxas's registers, stack and
/// static shared memory, and the largest CTA, the CTAs per SM and the
/// occupancy computed from them, the CTA's threads and shared memory and
/// the chip's limits (ChipLimits.h: the CUDA occupancy calculator's
/// rules); what limits the CTAs per SM. None when ptxas gave no figures.
struct ComputedResources {
  ::tile::runtime::KernelResources resources;
  StringRef limitedBy; // "registers", "shared memory", ...
};
std::optional<ComputedResources>
computeResources(const ::tile::runtime::KernelManifest &manifest,
                 const PtxasFigures &ptxas, StringRef chip);

/// The run report's resource table without a GPU: ptxas's registers and
/// stack of `entry`, the shared memory of the plan, and the maximum CTA,
/// CTAs per SM and occupancy computed from them and the chip's limits
/// (ChipLimits.h), labelled as computed; the time "-". Empty when ptxas
/// gave no figures.
std::string formatComputedTable(const ::tile::runtime::KernelManifest &manifest,
                                StringRef entry, const PtxasFigures &ptxas,
                                StringRef chip);

/// "dims: K=4096, N=64" (the symbols a run bound; `defaulted` names those
/// nobody gave, marked "(default)"), empty for a kernel without symbols.
std::string formatDims(const ::tile::runtime::SymbolBindings &symbols,
                       ArrayRef<std::string> defaulted = {});

/// The compile-side lines of the report: ptxas's figures (`ptx` empty: no
/// PTX was made) and the placement decisions of the manifest (register
/// tiles, pipelined loops, the shared-memory plan).
std::string formatCompileReport(const std::string &ptx,
                                const PtxasFigures &ptxas,
                                const PlacedKernel &kernel, StringRef chip);

struct RunRequest {
  /// Handles: the ops they point to change, not the request.
  mutable ModuleOp source; // the tile IR as written
  mutable ModuleOp placed; // after register promotion and the shared plan
  std::string kernel;
  const ::tile::runtime::KernelManifest &manifest;
  const std::string &ptx;
  ::tile::runtime::SymbolBindings symbols;
  int warmupRuns = 3, timedRuns = 10;
  /// Test only: a pass pipeline (the tile-test-* passes) that plants a bug
  /// in the code the emulator runs, to show that the check catches it.
  std::string plantedBugs;
  /// emulate: count the shared-memory wavefronts and bank conflicts of
  /// every warp, and report them (in all and per op).
  bool countBankConflicts = false;
  /// The emulator's code (lowerForEmulation of `placed`), when the caller
  /// keeps it from run to run; else it is lowered for this run.
  mutable ModuleOp lowered;
};

/// What one run measured, by backend.
struct RunFigures {
  Backend backend = Backend::Interp;
  /// The PTX entry of the variant that ran (on interp, that a launch with
  /// these sizes would run): the one whose ptxas figures the report quotes.
  std::string entry;
  std::optional<::tile::runtime::LaunchReport> launch; // cuda
  std::optional<emulator::EmulatorReport> emulation;   // emulate
  double seconds = 0;                                  // wall time of the run
  /// The backend's lines of the report.
  std::string report;
  /// Per parameter, the elements the backend wrote; empty where the
  /// backend cannot say (cuda).
  std::vector<std::vector<bool>> written;
};

/// How a run ended.
enum class RunStatus {
  Ran,
  /// The compiler or the input failed: a diagnostic, or `error`.
  BadInput,
  /// The backend cannot run here (no driver, no device, a driver call
  /// failed): `error` says why.
  NoBackend,
  /// The kernel faulted: the emulator's or the reference's checks found
  /// undefined behaviour (a race, an out-of-bounds access, a barrier only
  /// part of the CTA reaches, a division by zero, a loop that does not end),
  /// reported as a diagnostic at the op.
  KernelFault,
};

/// Runs the kernel on `buffers` (one per parameter) into `figures`. Errors
/// of the compiler and the kernel are diagnostics at their location; those
/// of the runtime are in `error`.
RunStatus runOnBackend(Backend backend, const RunRequest &request,
                       std::vector<::tile::runtime::HostTensor> &buffers,
                       RunFigures &figures, std::string &error);

/// The per-thread code the GPU would run, as the emulator runs it:
/// tile-to-gpu on the placed module with the kernel's float options (its
/// fastmath marks say which ops the GPU fuses or approximates), then the
/// cleanups the PTX pipeline runs before leaving the gpu dialect.
FailureOr<OwningOpRef<ModuleOp>>
lowerForEmulation(ModuleOp placed, StringRef chip, unsigned indexBits,
                  const ::tile::runtime::FloatOptions &floatOptions,
                  StringRef plantedBugs = "");

} // namespace mlir::tile

#endif // TILE_TOOLS_RUN_H
