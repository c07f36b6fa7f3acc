//===- RunBackends.cpp - where tile-run runs a kernel ---------------------===//

#include "RunBackends.h"

#include "tile/Reference/Interpreter.h"
#include "tile/Runtime/Cuda.h"
#include "tile/Runtime/Report.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/Regex.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>

using namespace mlir;
using namespace mlir::tile;
namespace rt = ::tile::runtime;

static std::vector<rt::HostTensor *>
pointersTo(std::vector<rt::HostTensor> &buffers) {
  std::vector<rt::HostTensor *> pointers;
  for (rt::HostTensor &buffer : buffers)
    pointers.push_back(&buffer);
  return pointers;
}

Backend mlir::tile::chooseBackend(Backend requested) {
  if (requested != Backend::Auto)
    return requested;
  return rt::probeCudaDevice() ? Backend::Cuda : Backend::Emulate;
}

static int runOnCuda(const RunRequest &request,
                     std::vector<rt::HostTensor> &buffers) {
  rt::LaunchOptions options;
  options.warmupRuns = request.warmupRuns;
  options.timedRuns = request.timedRuns;
  rt::Expected<rt::LaunchReport> launch =
      rt::launchKernel(request.manifest, request.ptx, pointersTo(buffers),
                       request.symbols, options);
  if (!launch) {
    llvm::errs() << "tile-run: error: " << launch.getError().message() << "\n";
    return launch.getError().getKind() == rt::ErrorKind::Input ? kBadInput
                                                               : kNoBackend;
  }
  rt::printLaunchReport(stdout, request.manifest, *launch, request.timedRuns);
  return kMatch;
}

static int runOnInterp(const RunRequest &request,
                       std::vector<rt::HostTensor> &buffers,
                       std::vector<std::vector<bool>> &written) {
  auto start = std::chrono::steady_clock::now();
  rt::SymbolBindings symbols = request.symbols;
  auto kernel = request.source.lookupSymbol<KernelOp>(request.kernel);
  reference::InterpReport report;
  if (failed(reference::interpretKernel(kernel, pointersTo(buffers), symbols,
                                        {}, &report)))
    return report.fault ? kKernelFault : kBadInput;
  for (const std::vector<rt::ElementMark> &marks : report.marks) {
    written.emplace_back(marks.size());
    for (auto [wrote, mark] : llvm::zip(written.back(), marks))
      wrote = mark.isWritten();
  }
  std::chrono::duration<double> seconds =
      std::chrono::steady_clock::now() - start;
  llvm::outs() << llvm::formatv("interp: '{0}' on the tile-level reference "
                                "interpreter in {1:F3} s\n",
                                request.kernel, seconds.count());
  return kMatch;
}

int mlir::tile::runOnBackend(Backend backend, const RunRequest &request,
                             std::vector<rt::HostTensor> &buffers,
                             std::vector<std::vector<bool>> &written) {
  llvm::outs().flush();
  written.clear();
  switch (backend) {
  case Backend::Cuda:
    return runOnCuda(request, buffers);
  case Backend::Emulate:
    return runOnEmulator(request, buffers, written);
  case Backend::Interp:
  case Backend::Auto:
    return runOnInterp(request, buffers, written);
  }
  llvm_unreachable("unknown backend");
}

/// ptxas -v on the PTX, one line of its figures; empty without ptxas.
static std::string runPtxas(const std::string &ptx, StringRef chip) {
  llvm::ErrorOr<std::string> ptxas =
      llvm::sys::findProgramByName("ptxas", {"/usr/local/cuda/bin"});
  if (!ptxas)
    ptxas = llvm::sys::findProgramByName("ptxas");
  if (!ptxas)
    return {};
  SmallString<128> input, log;
  if (llvm::sys::fs::createTemporaryFile("tile-run", "ptx", input) ||
      llvm::sys::fs::createTemporaryFile("tile-run", "log", log))
    return {};
  {
    std::error_code error;
    llvm::raw_fd_ostream out(input, error);
    out << ptx;
  }
  std::string arch = ("-arch=" + chip).str();
  StringRef args[] = {*ptxas, "-v", arch, input, "-o", "/dev/null"};
  std::optional<StringRef> redirects[] = {std::nullopt, StringRef(log),
                                          StringRef(log)};
  int status = llvm::sys::ExecuteAndWait(*ptxas, args, std::nullopt, redirects);
  auto text = llvm::MemoryBuffer::getFile(log);
  llvm::sys::fs::remove(input);
  llvm::sys::fs::remove(log);
  if (status != 0 || !text)
    return "ptxas rejected the PTX";
  StringRef report = (*text)->getBuffer();
  auto find = [&](StringRef pattern) -> std::string {
    SmallVector<StringRef> match;
    if (llvm::Regex(pattern).match(report, &match))
      return match[1].str();
    return "0";
  };
  return llvm::formatv(
      "ptxas -arch={0}: {1} registers, {2} B spill stores, "
      "{3} B spill loads, {4} B stack, {5} B shared",
      chip, find("Used ([0-9]+) registers"),
      find("([0-9]+) bytes spill stores"), find("([0-9]+) bytes spill loads"),
      find("([0-9]+) bytes stack frame"), find("([0-9]+) bytes smem"));
}

void mlir::tile::printCompileReport(const std::string &ptx,
                                    const rt::KernelManifest &manifest,
                                    const std::string &manifestJSON,
                                    StringRef chip) {
  llvm::raw_ostream &os = llvm::outs();
  std::string ptxas = ptx.empty() ? "no PTX figures (--ptx-figures=false, "
                                    "or no CUDA toolkit found: set CUDA_HOME)"
                                  : runPtxas(ptx, chip);
  os << "\ncompile: " << (ptxas.empty() ? "ptxas not found" : ptxas) << "\n";
  llvm::Expected<llvm::json::Value> json = llvm::json::parse(manifestJSON);
  if (!json) {
    llvm::consumeError(json.takeError());
    return;
  }
  const llvm::json::Object *object = json->getAsObject();
  if (const llvm::json::Array *registers = object->getArray("registers")) {
    for (const llvm::json::Value &var : *registers) {
      const llvm::json::Object *entry = var.getAsObject();
      os << llvm::formatv(
          "registers: '{0}' {1} elements per thread, {2} spill(s), {3} "
          "reduction(s) folded with shuffles\n",
          entry->getString("name").value_or("?"),
          entry->getInteger("slots").value_or(0),
          entry->getInteger("spills").value_or(0),
          entry->getInteger("shuffles").value_or(0));
    }
  }
  if (const llvm::json::Array *loops = object->getArray("pipelined")) {
    for (const llvm::json::Value &loop : *loops) {
      const llvm::json::Object *entry = loop.getAsObject();
      os << llvm::formatv(
          "pipelined: loop '{0}' ({1}): {2} load(s) issued {3} iteration(s) "
          "ahead, {4} more elements per thread in registers\n",
          entry->getString("loop").value_or("?"),
          entry->getString("loc").value_or("?"),
          entry->getInteger("loads").value_or(0),
          entry->getInteger("ahead").value_or(0),
          entry->getInteger("elements_per_thread").value_or(0));
    }
  }
  if (const llvm::json::Array *buffers = object->getArray("shared_buffers")) {
    os << "shared: " << manifest.sharedBytes << " B in " << buffers->size()
       << " buffer(s)\n";
    for (const llvm::json::Value &buffer : *buffers) {
      const llvm::json::Object *entry = buffer.getAsObject();
      os << llvm::formatv(
          "  '{0}' {1} B at offset {2}, live {3}{4}\n",
          entry->getString("name").value_or("?"),
          entry->getInteger("bytes").value_or(0),
          entry->getInteger("offset").value_or(0),
          entry->getString("live").value_or("?"),
          entry->getString("spill_of") ? " (spill of a register tile)" : "");
    }
  }
  os.flush();
}
