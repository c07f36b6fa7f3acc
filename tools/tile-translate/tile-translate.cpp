//===- tile-translate.cpp - translations into and out of tile IR ----------===//
//
// mlir-translate with the tile translations:
//   --import-tile       a .tile source file (or `-` for stdin) to tile IR,
//                       with its .tile locations
//   --tile-to-ptx       a .tile or .mlir file to PTX text
//   --tile-to-manifest  a .tile or .mlir file to its kernels' JSON manifests
//
//===----------------------------------------------------------------------===//

#include "tile/Dialect/Tile/IR/TileDialect.h"
#include "tile/Frontend/Parser.h"
#include "tile/Tools/Driver.h"

#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-translate/MlirTranslateMain.h"
#include "mlir/Tools/mlir-translate/Translation.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/CommandLine.h"

#include <vector>

static void registerTileTranslations() {
  static mlir::TranslateToMLIRRegistration importTile(
      "import-tile", "read a .tile source file into the tile dialect",
      [](llvm::SourceMgr &sourceMgr,
         mlir::MLIRContext *context) -> mlir::OwningOpRef<mlir::Operation *> {
        return mlir::tile::parseTileSource(sourceMgr, context);
      },
      [](mlir::DialectRegistry &registry) {
        // What imported modules are made of.
        registry.insert<mlir::tile::TileDialect, mlir::arith::ArithDialect,
                        mlir::math::MathDialect, mlir::scf::SCFDialect>();
      });
}

int main(int argc, char **argv) {
  registerTileTranslations();
  mlir::tile::registerCompileTranslations();
  // --help lists the translations, mlir-translate's options and the
  // compile options; LLVM's own stay usable and are listed by --help-hidden.
  static llvm::cl::OptionCategory category("tile-translate options");
  mlir::tile::registerCompileOptions(&category);
  mlir::tile::setUpToolCommandLine("tile-translate", {&category});
  // The imported IR keeps its .tile locations, so a pipe into tile-opt
  // reports errors at the .tile source, not at <stdin>; an explicit
  // --mlir-print-debuginfo=false still wins.
  std::vector<char *> args(argv, argv + argc);
  auto given = [&](llvm::StringRef flag) {
    return llvm::any_of(args, [&](llvm::StringRef arg) {
      return arg.ltrim('-').starts_with(flag);
    });
  };
  static char printLocations[] = "--mlir-print-debuginfo";
  if (given("import-tile") && !given("mlir-print-debuginfo"))
    args.push_back(printLocations);
  return mlir::failed(mlir::mlirTranslateMain(static_cast<int>(args.size()),
                                              args.data(),
                                              "tile translation driver\n"))
             ? 1
             : 0;
}
