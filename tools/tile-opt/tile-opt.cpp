//===- tile-opt.cpp - the tile optimizer driver ---------------------------===//
//
// mlir-opt with the tile dialect, its passes and the upstream dialects and
// passes a tile pipeline uses.
//
//===----------------------------------------------------------------------===//

#include "tile/InitAllTile.h"
#include "tile/Target/PTX/TileToPTX.h"
#ifdef TILE_TEST_PASSES
#include "TestPasses.h"
#endif

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  mlir::tile::registerAllTileDialects(registry);
  mlir::tile::registerAllTilePasses();
#ifdef TILE_TEST_PASSES
  // -tile-test-drop-barriers and the other bug planters (test/lib).
  mlir::tile::registerEmulatorTestPasses();
#endif
  // For --tile-to-ptx; a -vectorize-slp on the command line still wins.
  mlir::tile::ScopedSLPVectorizerOff slpOff;
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "tile optimizer driver\n", registry));
}
