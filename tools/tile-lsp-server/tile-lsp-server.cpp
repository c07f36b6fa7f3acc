//===- tile-lsp-server.cpp - the .tile language server --------------------===//
//
// LSP 3.17 over stdio for .tile files (docs/editors.md): diagnostics as you
// type, hovers and inlay hints that say where each tile lives, definitions,
// references, document symbols and completion. It compiles through the
// placement passes only and never runs a kernel.
//
//===----------------------------------------------------------------------===//

#include "Server.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/LSP/Logging.h"
#include "llvm/Support/Program.h"

using namespace llvm;
using namespace mlir::tile::lsp;

int main(int argc, char **argv) {
  InitLLVM init(argc, argv);
  cl::opt<std::string> chip(
      "chip",
      cl::desc("target GPU, sm_70 to sm_100 (default sm_90; a "
               "tile.toml or the client's initializationOptions "
               "may say otherwise)"),
      cl::init("sm_90"));
  cl::opt<unsigned> timeLimit(
      "time-limit-ms",
      cl::desc("the placement passes of one analysis stop after this long "
               "(default 2000)"),
      cl::init(2000));
  cl::opt<unsigned> debounce(
      "debounce-ms",
      cl::desc("how long after an edit the analysis starts (default 50)"),
      cl::init(50));
  cl::opt<lsp::JSONStreamStyle> inputStyle(
      "input-style", cl::desc("input JSON stream encoding"),
      cl::values(clEnumValN(lsp::JSONStreamStyle::Standard, "standard",
                            "Content-Length headers (LSP)"),
                 clEnumValN(lsp::JSONStreamStyle::Delimited, "delimited",
                            "messages delimited by '// -----' lines")),
      cl::init(lsp::JSONStreamStyle::Standard));
  cl::opt<bool> prettyPrint("pretty", cl::desc("pretty-print JSON output"),
                            cl::init(false));
  cl::opt<lsp::Logger::Level> logLevel(
      "log", cl::desc("verbosity of the log on stderr"),
      cl::values(clEnumValN(lsp::Logger::Level::Error, "error", "errors only"),
                 clEnumValN(lsp::Logger::Level::Info, "info", "each message"),
                 clEnumValN(lsp::Logger::Level::Debug, "verbose",
                            "each message's contents")),
      cl::init(lsp::Logger::Level::Error));
  cl::ParseCommandLineOptions(argc, argv,
                              "tile language server (LSP over "
                              "stdio)\n");
  lsp::Logger::setLogLevel(logLevel);

  ServerOptions options;
  options.analysis.chip = chip;
  options.analysis.timeLimit = std::chrono::milliseconds(timeLimit);
  options.debounce = std::chrono::milliseconds(debounce);
  sys::ChangeStdinToBinary();
  lsp::JSONTransport transport(stdin, outs(), inputStyle, prettyPrint);
  return runTileLSPServer(transport, options) ? 0 : 1;
}
