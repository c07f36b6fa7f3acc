//===- Server.h - the .tile language server ---------------------*- C++ -*-===//
//
// LSP 3.17 over LLVM's llvm/Support/LSP transport: documents are analysed
// on a worker thread (debounced, a newer edit cancels an older analysis, a
// time limit per analysis); requests are answered from the analysis of
// the version they are about, so the reading thread never waits.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_LIB_LSP_SERVER_H
#define TILE_LIB_LSP_SERVER_H

#include "Analysis.h"

#include "llvm/Support/LSP/Transport.h"

#include <chrono>

namespace mlir::tile::lsp {

/// Settings of the server: the defaults, then the client's
/// initializationOptions, then the tile.toml nearest a document.
struct ServerOptions {
  AnalysisOptions analysis;
  /// How long after an edit the analysis starts (edits in between restart
  /// the wait).
  std::chrono::milliseconds debounce{50};
  /// Remarks that flag a cost as hint diagnostics.
  bool remarkHints = true;
};

/// Reads `key = value` lines of a tile.toml (`chip`, `time_limit_ms`,
/// `remark_hints`) into `options`; a line it cannot use is
/// an error message `path:line: ...` in the result.
std::vector<std::string> applyTileToml(llvm::StringRef path,
                                       llvm::StringRef text,
                                       ServerOptions &options);

/// Serves until the client sends `exit` or the input ends; true after an
/// orderly `shutdown` then `exit`.
bool runTileLSPServer(llvm::lsp::JSONTransport &transport,
                      const ServerOptions &defaults);

} // namespace mlir::tile::lsp

#endif // TILE_LIB_LSP_SERVER_H
