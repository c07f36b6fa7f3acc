//===- tile-opt.cpp - the tile optimizer driver ---------------------------===//
//
// mlir-opt with the tile dialect, its passes and the upstream dialects and
// passes a tile pipeline uses. A .tile file is read by the front end first,
// so passes report errors at the .tile source.
//
//===----------------------------------------------------------------------===//

#include "tile/Frontend/Parser.h"
#include "tile/InitAllTile.h"
#include "tile/Target/PTX/TileToPTX.h"
#include "tile/Tools/Driver.h"
#include "tile/Tools/OutputFile.h"
#ifdef TILE_TEST_PASSES
#include "TestPasses.h"
#endif

#include "mlir/Debug/Counter.h"
#include "mlir/IR/AsmState.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Support/Timing.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/SourceMgr.h"

using namespace mlir;

/// The .tile file `file` as tile IR text whose ops carry their .tile
/// locations, or null after the front end's errors.
static std::unique_ptr<llvm::MemoryBuffer>
importTile(std::unique_ptr<llvm::MemoryBuffer> file,
           DialectRegistry &registry) {
  MLIRContext context(registry);
  llvm::SourceMgr sourceMgr;
  std::string name = file->getBufferIdentifier().str();
  sourceMgr.AddNewSourceBuffer(std::move(file), llvm::SMLoc());
  SourceMgrDiagnosticHandler diagnostics(sourceMgr, &context);
  OwningOpRef<ModuleOp> module =
      mlir::tile::parseTileSource(sourceMgr, &context);
  if (!module)
    return nullptr;
  std::string text;
  llvm::raw_string_ostream os(text);
  module->print(os, OpPrintingFlags().enableDebugInfo());
  // Named apart from the .tile file, so that diagnostics at .tile
  // locations show the .tile source, which the handler reads from disk.
  return llvm::MemoryBuffer::getMemBufferCopy(text, name + " (imported)");
}

/// Whether MLIR's parser may read `input` (tile::rejectParserCrashes has
/// said why not otherwise).
static bool acceptedByParser(const llvm::MemoryBuffer &input) {
  MLIRContext context;
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBuffer(input.getMemBufferRef()), llvm::SMLoc());
  SourceMgrDiagnosticHandler diagnostics(sourceMgr, &context);
  return succeeded(mlir::tile::rejectParserCrashes(sourceMgr, &context));
}

int main(int argc, char **argv) {
  DialectRegistry registry;
  mlir::tile::registerAllTileDialects(registry);
  mlir::tile::registerAllTilePasses();
#ifdef TILE_TEST_PASSES
  // -tile-test-drop-barriers and the other bug planters (test/lib).
  mlir::tile::registerEmulatorTestPasses();
  // -tile-test-print-layouts and the other analysis printers (test/lib).
  mlir::tile::registerAnalysisTestPasses();
#endif
  // For --tile-to-ptx; a -vectorize-slp on the command line still wins.
  mlir::tile::ScopedSLPVectorizerOff slpOff;
  llvm::InitLLVM init(argc, argv);
  // LLVM's and MLIR's options (hundreds) stay usable and are listed by
  // --help-hidden; --help lists the passes, --pass-pipeline and -o. MLIR's
  // are registered here first (registerAndParseCLIOptions registers them
  // once), to be hidden too.
  MlirOptMainConfig::registerCLOptions(registry);
  registerAsmPrinterCLOptions();
  registerMLIRContextCLOptions();
  registerPassManagerCLOptions();
  registerDefaultTimingManagerCLOptions();
  tracing::DebugCounter::registerCLOptions();
  mlir::tile::setUpToolCommandLine(
      "tile-opt", {}, [](const llvm::cl::Option &option) {
        return option.ArgStr == "pass-pipeline" ||
               option.HelpStr == "Compiler passes to run";
      });
  auto [inputFilename, outputFilename] = registerAndParseCLIOptions(
      argc, argv, "tile optimizer driver\n", registry);
  MlirOptMainConfig config = MlirOptMainConfig::createFromCLOptions();
  // What reads no input (--show-dialects, --list-passes).
  if (config.shouldShowDialects() || config.shouldListPasses())
    return asMainReturnCode(
        MlirOptMain(argc, argv, inputFilename, outputFilename, registry));
  std::string error;
  std::unique_ptr<llvm::MemoryBuffer> input =
      openInputFile(inputFilename, &error);
  if (!input) {
    llvm::errs() << error << "\n";
    return 1;
  }
  if (mlir::tile::isTileSource(*input)) {
    input = importTile(std::move(input), registry);
    if (!input)
      return 1;
  } else if (!acceptedByParser(*input)) {
    return 1;
  }
  // Written whole or not at all: a failed pass leaves `-o`'s file (the
  // input itself, even) as it was; a write error exits 2, as tile-run's.
  switch (mlir::tile::writeOutputFile(
      "tile-opt", outputFilename, [&](llvm::raw_ostream &os) {
        return MlirOptMain(os, std::move(input), registry, config);
      })) {
  case mlir::tile::OutputStatus::Written:
    return 0;
  case mlir::tile::OutputStatus::Failed:
    return 1;
  case mlir::tile::OutputStatus::CannotWrite:
    return 2;
  }
  return 1;
}
