//===- OutputFile.cpp - the tools' output files ---------------------------===//

#include "tile/Tools/OutputFile.h"
#include "tile/Runtime/OutputFile.h"

#include "llvm/Support/raw_ostream.h"

#include <cstdio>

using namespace mlir;
using namespace mlir::tile;
namespace rt = ::tile::runtime;

static OutputStatus cannotWrite(StringRef tool, const std::string &message) {
  llvm::outs().flush();
  llvm::errs() << tool << ": error: " << message << "\n";
  return OutputStatus::CannotWrite;
}

OutputStatus
mlir::tile::writeOutputFile(StringRef tool, StringRef path,
                            function_ref<LogicalResult(raw_ostream &)> write) {
  if (path == "-") {
    if (failed(write(llvm::outs())))
      return OutputStatus::Failed;
    return reportStandardOutputError(tool) ? OutputStatus::CannotWrite
                                           : OutputStatus::Written;
  }
  rt::Expected<rt::AtomicOutput> output = rt::AtomicOutput::create(path.str());
  if (!output)
    return cannotWrite(tool, output.getError().message());
  std::error_code error;
  llvm::raw_fd_ostream os(output->temporaryPath(), error);
  if (error)
    return cannotWrite(tool,
                       "cannot write " + path.str() + ": " + error.message());
  LogicalResult wrote = write(os);
  os.close();
  std::string reason = os.has_error() ? os.error().message() : "";
  os.clear_error(); // reported here, not by raw_fd_ostream's abort
  if (failed(wrote))
    return OutputStatus::Failed;
  if (!reason.empty())
    return cannotWrite(tool, "cannot write " + path.str() + ": " + reason);
  if (rt::Error committed = output->commit())
    return cannotWrite(tool, committed.message());
  return OutputStatus::Written;
}

bool mlir::tile::reportStandardOutputError(StringRef tool) {
  llvm::outs().flush();
  std::fflush(stdout);
  if (!llvm::outs().has_error() && !std::ferror(stdout))
    return false;
  llvm::errs() << tool << ": error: cannot write the standard output: "
               << (llvm::outs().has_error() ? llvm::outs().error().message()
                                            : std::string("write error"))
               << "\n";
  llvm::outs().clear_error();
  return true;
}
