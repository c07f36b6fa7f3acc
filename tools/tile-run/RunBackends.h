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

/// Runs the kernel on `buffers` (one per parameter) and prints what the
/// backend measured. Failure: a compile error, already reported; otherwise
/// the exit code, 0 when it ran, 3 when the backend is unavailable, 1 when
/// the run itself failed.
FailureOr<int> runOnBackend(Backend backend, const RunRequest &request,
                            std::vector<::tile::runtime::HostTensor> &buffers);

/// Lowers the placed kernel and runs it on the emulator (EmulateBackend.cpp).
LogicalResult runOnEmulator(const RunRequest &request,
                            std::vector<::tile::runtime::HostTensor> &buffers);

/// The compile-side figures: ptxas -v on the PTX (when ptxas is present)
/// and the placement decisions of the manifest.
void printCompileReport(const std::string &ptx,
                        const ::tile::runtime::KernelManifest &manifest,
                        const std::string &manifestJSON, StringRef chip);

} // namespace mlir::tile

#endif // TILE_TOOLS_TILE_RUN_RUNBACKENDS_H
