//===- Parser.h - the .tile surface language front end ----------*- C++ -*-===//
//
// Reads kernels written in the .tile language (docs/spec.md, "The language")
// into the tile dialect.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_FRONTEND_PARSER_H
#define TILE_FRONTEND_PARSER_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"

namespace llvm {
class SourceMgr;
} // namespace llvm

namespace mlir::tile {

/// Parses the main buffer of `sourceMgr` into a module of `tile.kernel`s, one
/// per kernel of the source, every op located at its `file:line:col`. On a
/// syntax or semantic error, reports it through the context's diagnostic
/// handler and returns null: never a partial module. Loads the dialects the
/// module uses into `context`.
OwningOpRef<ModuleOp> parseTileSource(llvm::SourceMgr &sourceMgr,
                                      MLIRContext *context);

} // namespace mlir::tile

#endif // TILE_FRONTEND_PARSER_H
