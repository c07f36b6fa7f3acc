//===- RunBackends.h - where tile-run runs a kernel -------------*- C++ -*-===//

#ifndef TILE_TOOLS_TILE_RUN_RUNBACKENDS_H
#define TILE_TOOLS_TILE_RUN_RUNBACKENDS_H

#include "tile/Runtime/Manifest.h"
#include "tile/Runtime/Tensor.h"

#include "mlir/IR/BuiltinOps.h"

namespace mlir::tile {

enum class Backend { Auto, Cuda, Emulate, Interp };

/// `requested`, or for Auto: cuda when a device answers, else emulate.
Backend chooseBackend(Backend requested);

struct RunRequest {
  // Handles: the ops they point to change, not the request.
  mutable ModuleOp source; // the tile IR as written
  mutable ModuleOp placed; // after register promotion and the shared plan
  std::string kernel;
  const ::tile::runtime::KernelManifest &manifest;
  const std::string &ptx;
  ::tile::runtime::SymbolBindings symbols;
  int warmupRuns = 3, timedRuns = 10;
};

/// tile-run's exit codes (docs/spec.md).
enum ExitCode {
  kMatch = 0,
  kMismatch = 1,
  /// A compile error, bad input or a bad command line.
  kBadInput = 2,
  kNoBackend = 3,
  /// The kernel faulted: the emulator's or the reference's checks found
  /// undefined behaviour (a race, an out-of-bounds access, a barrier only
  /// part of the CTA reaches, a division by zero, a loop that does not end).
  kKernelFault = 4,
};

/// Runs the kernel on `buffers` (one per parameter) and prints what the
/// backend measured; `written` receives, per parameter, the elements the
/// backend wrote, or stays empty where the backend cannot say (cuda).
/// Returns kMatch when it ran, else the exit code (its error reported).
int runOnBackend(Backend backend, const RunRequest &request,
                 std::vector<::tile::runtime::HostTensor> &buffers,
                 std::vector<std::vector<bool>> &written);

/// Lowers the placed kernel and runs it on the emulator (EmulateBackend.cpp).
int runOnEmulator(const RunRequest &request,
                  std::vector<::tile::runtime::HostTensor> &buffers,
                  std::vector<std::vector<bool>> &written);

/// The compile-side figures: ptxas -v on the PTX (when ptxas is present)
/// and the placement decisions of the manifest.
void printCompileReport(const std::string &ptx,
                        const ::tile::runtime::KernelManifest &manifest,
                        const std::string &manifestJSON, StringRef chip);

} // namespace mlir::tile

#endif // TILE_TOOLS_TILE_RUN_RUNBACKENDS_H
