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
#include "tile/Runtime/OutputFile.h"
#include "tile/Tools/Driver.h"

#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-translate/MlirTranslateMain.h"
#include "mlir/Tools/mlir-translate/Translation.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/CommandLine.h"

#include <optional>
#include <string>
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

/// The index in `args` of `-o` (`-o FILE`, `-o=FILE`, `--o ...`) and, in
/// `path`, the file it names; none without one, for `-o -` (the standard
/// output) and where it is given more than once (the parser says so).
static std::optional<size_t> findOutputArgument(llvm::ArrayRef<char *> args,
                                                std::string &path) {
  std::optional<size_t> found;
  for (size_t i = 1; i < args.size(); ++i) {
    llvm::StringRef arg(args[i]);
    if (arg == "--")
      break;
    if (!arg.consume_front("-"))
      continue;
    arg.consume_front("-");
    auto [name, value] = arg.split('=');
    if (name != "o")
      continue;
    if (found)
      return std::nullopt;
    bool separate = !arg.contains('=');
    if (separate && i + 1 == args.size())
      return std::nullopt; // the parser reports the missing value
    path = separate ? args[i + 1] : value.str();
    found = i;
    if (separate)
      ++i;
  }
  if (path == "-")
    return std::nullopt;
  return found;
}

static int cannotWrite(const tile::runtime::Error &error) {
  llvm::errs() << "tile-translate: error: " << error.message() << "\n";
  return 2;
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
  // `-o FILE` is written whole or not at all: the translation writes a
  // temporary file beside FILE, renamed over it once it succeeded, so a
  // failed compile leaves FILE (the input itself, even) as it was.
  std::optional<tile::runtime::AtomicOutput> output;
  std::string outputPath, temporaryArg;
  if (std::optional<size_t> at = findOutputArgument(args, outputPath)) {
    tile::runtime::Expected<tile::runtime::AtomicOutput> created =
        tile::runtime::AtomicOutput::create(outputPath);
    if (!created)
      return cannotWrite(created.getError());
    output.emplace(std::move(*created));
    temporaryArg = "-o=" + output->temporaryPath();
    args[*at] = temporaryArg.data();
    if (!llvm::StringRef(argv[*at]).contains('='))
      args.erase(args.begin() + *at + 1);
  }
  if (mlir::failed(mlir::mlirTranslateMain(static_cast<int>(args.size()),
                                           args.data(),
                                           "tile translation driver\n")))
    return 1;
  if (output)
    if (tile::runtime::Error error = output->commit())
      return cannotWrite(error);
  return 0;
}
