//===- tile-mlir-lsp-server.cpp - MLIR's language server for tile IR ------===//
//
// mlir-lsp-server (MlirLspServerMain, in libMLIR) with the dialects tile-opt
// registers: the tile dialect and every upstream dialect tile IR is made
// of or lowers through, so .mlir files of tile IR at any stage of the
// pipeline get diagnostics, hovers and go-to-definition.
//
//===----------------------------------------------------------------------===//

#include "tile/InitAllTile.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-lsp-server/MlirLspServerMain.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  mlir::tile::registerAllTileDialects(registry);
  return mlir::failed(mlir::MlirLspServerMain(argc, argv, registry));
}
