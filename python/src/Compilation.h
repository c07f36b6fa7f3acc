//===- Compilation.h - one kernel of the Python package ---------*- C++ -*-===//
//
// What the `tile` package's extension holds for a kernel specialised to one
// signature: its own MLIR context, the Python source as a buffer (so every
// diagnostic shows the Python line and a caret), the KernelBuilder the
// Python front end drives, and, once built, the module and what is derived
// from it lazily (placement and manifest, PTX, the IR after each pass).
// Running goes through lib/Tools' Run.h, the code tile-run uses.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_PYTHON_COMPILATION_H
#define TILE_PYTHON_COMPILATION_H

#include "tile/Frontend/KernelBuilder.h"
#include "tile/Runtime/Check.h"
#include "tile/Runtime/Tensor.h"
#include "tile/Tools/Run.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <map>
#include <mutex>

namespace tile::python {

/// A diagnostic handler that prints on request (the dispatcher below).
struct DiagnosticPrinter : mlir::SourceMgrDiagnosticHandler {
  using mlir::SourceMgrDiagnosticHandler::emitDiagnostic;
  using mlir::SourceMgrDiagnosticHandler::SourceMgrDiagnosticHandler;
};

/// Diagnostics of one compilation, as tile-run prints them (with the source
/// line and a caret): errors and warnings apart from remarks.
class DiagnosticCapture {
public:
  DiagnosticCapture(llvm::SourceMgr &sourceMgr, mlir::MLIRContext *context);
  ~DiagnosticCapture();
  /// The errors (and warnings) since the last call.
  std::string takeErrors();
  std::vector<std::string> remarks, warnings;

private:
  std::string errors, remarkText;
  llvm::raw_string_ostream errorStream, remarkStream;
  DiagnosticPrinter errorHandler, remarkHandler;
  mlir::MLIRContext *context;
  mlir::DiagnosticEngine::HandlerID id;
};

/// What `run` reports back to Python.
struct RunResult {
  std::string backend;
  std::string report;
  /// Per written parameter: its name and the first mismatch, if any.
  struct Check {
    std::string name;
    size_t elements = 0;
    std::optional<runtime::Mismatch> mismatch;
    std::string message;
    std::vector<int64_t> shape;
  };
  std::vector<Check> checks;
  mlir::tile::RunFigures figures;
  mlir::tile::PtxasFigures ptxas;
  /// Without a GPU: the table's figures computed from ptxas's.
  std::optional<mlir::tile::ComputedResources> computed;
  std::map<std::string, int64_t> symbols;
};

/// Raised to Python as tile.Error (Kind::Input), tile.BackendUnavailable
/// (NoDevice), tile.CompileError (Compile: a diagnostic), tile.KernelFault
/// (Fault: the emulator or the reference stopped the kernel).
struct Failure {
  enum class Kind { Compile, Input, NoDevice, Driver, Fault } kind;
  std::string message;
};

class Compilation {
public:
  /// `source` is the text of the file the kernel is in, `filename` its name.
  Compilation(const std::string &filename, const std::string &source);
  ~Compilation();

  mlir::tile::KernelBuilder &getBuilder() { return *builder; }
  /// The errors the last failing builder call emitted.
  std::string takeErrors() { return diagnostics->takeErrors(); }

  /// Ends building: the module, verified (a Compile failure otherwise),
  /// to compile for `chip` with f32 division `fpDiv` ("ieee" or "full",
  /// an Input failure otherwise).
  std::optional<Failure> finish(const std::string &kernelName, bool remarks,
                                const std::string &chip,
                                const std::string &fpDiv);

  /// Instead of building: parses the source as a kernel file (.tile, or
  /// tile IR in MLIR's syntax: a name ending in .mlir) and takes its
  /// kernel `kernelName` (empty: the file's only kernel), to compile as
  /// finish() does. Returns the kernel's name, or a Compile failure (a
  /// syntax error, no such kernel) located in the file.
  std::variant<std::string, Failure> load(const std::string &kernelName,
                                          bool remarks, const std::string &chip,
                                          const std::string &fpDiv);

  /// The tile IR after the front end, or after the pass `stage` of the
  /// compile pipeline ("stage#2" for its second run); with `locations`,
  /// each op's `loc(...)` too (the source's file:line:col).
  std::variant<std::string, Failure> getIR(const std::string &stage,
                                           bool locations = false);
  std::vector<std::string> getStages();
  std::variant<std::string, Failure> getPTX();
  /// Gives the PTX a compile made before (the package's compile cache), so
  /// that a run does not compile it again.
  void setPTX(std::string text) {
    std::lock_guard<std::recursive_mutex> lock(mutex);
    ptx = std::move(text);
  }
  std::variant<std::string, Failure> getManifest();

  /// Runs on `buffers` (one per parameter, in order; the written ones are
  /// updated), checking against the reference interpreter when `check`.
  std::variant<RunResult, Failure>
  run(std::vector<runtime::HostTensor> &buffers, const std::string &backend,
      bool check, int warmupRuns, int timedRuns, bool ptxFigures,
      const std::string &plantedBugs = "");

  /// Copies: a run on another thread may be adding to them.
  std::vector<std::string> getRemarks() {
    std::lock_guard<std::recursive_mutex> lock(mutex);
    return diagnostics->remarks;
  }
  std::vector<std::string> getWarnings() {
    std::lock_guard<std::recursive_mutex> lock(mutex);
    return diagnostics->warnings;
  }

private:
  Failure compileFailure();
  /// Sets the compile options of finish() and load().
  std::optional<Failure> setOptions(const std::string &kernelName, bool remarks,
                                    const std::string &chip,
                                    const std::string &fpDiv);
  std::optional<Failure> place();
  using Stages = std::vector<std::pair<std::string, std::string>>;
  std::optional<Failure> computeStages(bool locations);

  /// Held by every use after building: the state derived lazily (the
  /// placement, the PTX, ptxas's figures, the emulator's code) is built
  /// once, and runs, which share the single-threaded MLIR context and the
  /// diagnostics, take turns. Each run's buffers are its caller's own.
  std::recursive_mutex mutex;
  std::unique_ptr<mlir::MLIRContext> context;
  llvm::SourceMgr sourceMgr;
  std::unique_ptr<DiagnosticCapture> diagnostics;
  std::unique_ptr<mlir::tile::KernelBuilder> builder;
  mlir::OwningOpRef<mlir::ModuleOp> module;
  std::string kernelName;
  mlir::tile::TileToPTXOptions options;
  std::optional<mlir::tile::PlacedKernel> placed;
  std::optional<std::string> ptx;
  /// ptxas's figures of each entry of `ptx` that ran, asked once.
  std::map<std::string, mlir::tile::PtxasFigures> ptxasFigures;
  /// The emulator's code, lowered once.
  mlir::OwningOpRef<mlir::ModuleOp> lowered;
  /// The IR after each pass, printed without and with locations.
  Stages stages, stagesWithLocations;
};

} // namespace tile::python

#endif // TILE_PYTHON_COMPILATION_H
