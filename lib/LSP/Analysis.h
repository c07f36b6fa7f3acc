//===- Analysis.h - what the compiler says about one .tile text -*- C++ -*-===//
//
// The language server's view of a document: the front end's index of its
// names, and what the front end and the placement passes (register
// promotion, pipelining, tensor cores, the shared-memory plan, layouts,
// barriers) report and decide, by source position. Nothing is lowered to
// GPU code and nothing is run.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_LIB_LSP_ANALYSIS_H
#define TILE_LIB_LSP_ANALYSIS_H

#include "tile/Frontend/SourceIndex.h"

#include "mlir/IR/Types.h"

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"

#include <chrono>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace mlir {
class DialectRegistry;
} // namespace mlir

namespace mlir::tile::lsp {

/// A place in the text: 1-based line, 1-based byte column (MLIR's
/// FileLineColLoc).
struct SourcePos {
  unsigned line = 1, column = 1;
  friend bool operator==(SourcePos a, SourcePos b) {
    return a.line == b.line && a.column == b.column;
  }
};

struct Finding {
  enum class Severity { Error, Warning, Remark, Note };
  Severity severity;
  SourcePos pos;
  std::string message;
  /// The notes attached to it.
  std::vector<Finding> notes;
};

/// Where one tile var of a kernel lives after the placement passes.
struct Placement {
  std::string kernel, var;
  /// The var's statement (`var` keyword); line 0 for a var promoted to
  /// registers, which the IR no longer has.
  SourcePos pos{0, 0};
  /// The tile type in the language's words: `tile<f32>[16, 64]`.
  std::string type;
  bool inRegisters = false;
  /// In registers: elements a thread holds, and the uses folded with
  /// shuffles and spilled.
  int64_t perThread = 0, shuffles = 0, spills = 0;
  /// In shared memory: bytes and offset in the kernel's plan (-1 when the
  /// plan did not place it), and stages of a ring.
  int64_t bytes = 0, offset = -1, stages = 0;
  /// Which register tile this shared tile is a spill of, if any.
  std::string spillOf;
  /// Its layout in words, where the passes chose one.
  std::string layout;
};

/// A decision at one source position: a loop's pipelining, a dot's
/// instruction, a value's type.
struct PositionNote {
  SourcePos pos;
  std::string text;
};

struct KernelSummary {
  std::string name;
  SourcePos pos;
  int64_t threads = 0, sharedBytes = 0;
};

struct AnalysisOptions {
  std::string chip = "sm_90";
  /// After this long the placement passes left are skipped (the front end's
  /// diagnostics and the index are still reported).
  std::chrono::milliseconds timeLimit{2000};
};

struct Analysis {
  std::vector<Finding> findings;
  /// Null after a syntax error.
  std::optional<SourceIndex> index;
  std::vector<Placement> placements;
  /// `@pipeline` loops, dots' instructions, the front end's value types,
  /// and the layouts the passes chose (in the tile types), in words.
  std::vector<PositionNote> loops, dots, values, layouts;
  std::vector<KernelSummary> kernels;
  /// Why the placement passes did not all run ("" when they did).
  std::string stopped;
  /// Whether a newer edit cancelled it: its results are to be dropped.
  bool cancelled = false;
  /// Kernels whose results came from the cache.
  unsigned reusedKernels = 0;
  double milliseconds = 0;
};

/// What the placement passes said about one kernel: an edit elsewhere in
/// the file reuses it, its lines shifted.
struct KernelResult {
  /// The kernel's first line when it was analysed.
  unsigned firstLine = 1;
  std::vector<Finding> findings;
  std::vector<Placement> placements;
  std::vector<PositionNote> loops, dots, layouts;
  std::vector<KernelSummary> summary;
};
/// Kernel results by all they depend on: the chip, the file's consts and
/// the kernel's own text (its first attribute to the next kernel's).
using KernelCache = std::map<std::string, KernelResult>;

/// Analyses `text` (named `path`, for diagnostics) with the dialects of
/// `registry`. `isStale` is polled between passes: when it says true, the
/// analysis stops and comes back cancelled. With a `cache`, the kernels it
/// holds skip the passes, and a complete analysis refills it with this
/// text's kernels.
Analysis analyzeTileSource(llvm::StringRef path, llvm::StringRef text,
                           const AnalysisOptions &options,
                           const DialectRegistry &registry,
                           llvm::function_ref<bool()> isStale,
                           KernelCache *cache = nullptr);

/// The language's spelling of an MLIR type (`tile<f32>[16, 64]`,
/// `tensor<f16>[M, K]`, `f32`).
std::string spellType(mlir::Type type);

} // namespace mlir::tile::lsp

#endif // TILE_LIB_LSP_ANALYSIS_H
