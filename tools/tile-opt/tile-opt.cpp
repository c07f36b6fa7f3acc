//===- tile-opt.cpp - the tile optimizer driver ---------------------------===//
//
// mlir-opt with the tile dialect, its passes and the upstream dialects and
// passes a tile pipeline uses.
//
//===----------------------------------------------------------------------===//

#include "tile/InitAllTile.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  mlir::tile::registerAllTileDialects(registry);
  mlir::tile::registerAllTilePasses();
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "tile optimizer driver\n", registry));
}
