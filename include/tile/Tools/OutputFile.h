//===- OutputFile.h - the tools' output files -------------------*- C++ -*-===//
//
// An output file of tile-opt, tile-translate or tile-run, written whole or
// not at all (tile/Runtime/OutputFile.h), with its errors reported as
// "TOOL: error: cannot write PATH: REASON".
//
//===----------------------------------------------------------------------===//

#ifndef TILE_TOOLS_OUTPUTFILE_H
#define TILE_TOOLS_OUTPUTFILE_H

#include "mlir/Support/LLVM.h"

namespace mlir::tile {

enum class OutputStatus {
  Written,
  /// `write` failed (and said why); the output is as it was.
  Failed,
  /// The bytes could not be written; the error is printed.
  CannotWrite,
};

/// Writes `path` with `write`, through a temporary file renamed over it
/// only when `write` succeeds and every byte is written; `path` "-" is the
/// standard output (whose write errors are reported, not LLVM's abort).
OutputStatus writeOutputFile(StringRef tool, StringRef path,
                             function_ref<LogicalResult(raw_ostream &)> write);

/// Reports a failed write of the standard output (a full disk, a closed
/// pipe) as "TOOL: error: cannot write the standard output: REASON", once
/// everything is printed; true if there was one.
bool reportStandardOutputError(StringRef tool);

} // namespace mlir::tile

#endif // TILE_TOOLS_OUTPUTFILE_H
