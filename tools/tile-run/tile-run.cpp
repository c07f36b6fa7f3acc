//===- tile-run.cpp - compile, run and check a tile kernel ----------------===//
//
// tile-run FILE.(tile|mlir) [--backend=cuda|emulate|interp] [--dim K=4096]
//
// Compiles the kernel, makes seeded inputs, runs it on the GPU (cuda), on
// the CPU as the GPU would (emulate: the lowered per-thread code), or on the
// tile-level reference interpreter (interp), checks every output element
// against interp, and prints the report of seed 002: what the compiled
// kernel uses, how long it took, and what the compiler decided.
//
// Exit codes: 0 the outputs match, 1 a mismatch, 2 a compile error (or bad
// input), 3 the requested backend is unavailable.
//
//===----------------------------------------------------------------------===//

#include "RunBackends.h"

#include "tile/InitAllTile.h"
#include "tile/Reference/Interpreter.h"
#include "tile/Runtime/Report.h"
#include "tile/Target/PTX/TileToPTX.h"
#include "tile/Tools/Driver.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::tile;
namespace rt = ::tile::runtime;

namespace {
enum ExitCode { kMatch = 0, kMismatch = 1, kCompileError = 2, kNoBackend = 3 };
enum class Emit { None, MLIR, PTX, Manifest };

llvm::cl::opt<std::string> inputFile(llvm::cl::Positional,
                                     llvm::cl::desc("<kernel.tile|.mlir>"),
                                     llvm::cl::Required);
llvm::cl::opt<std::string>
    kernelName("kernel",
               llvm::cl::desc("the kernel to run (default: the only one)"));
llvm::cl::opt<Backend> backendOption(
    "backend", llvm::cl::desc("where to run the kernel"),
    llvm::cl::values(
        clEnumValN(Backend::Auto, "auto",
                   "cuda when a device answers, else emulate (default)"),
        clEnumValN(Backend::Cuda, "cuda", "the GPU, through the CUDA driver"),
        clEnumValN(Backend::Emulate, "emulate",
                   "the lowered per-thread code, every thread, on the CPU"),
        clEnumValN(Backend::Interp, "interp",
                   "the tile-level reference interpreter")),
    llvm::cl::init(Backend::Auto));
llvm::cl::list<std::string>
    dims("dim", llvm::cl::desc("the value of a symbolic dimension, K=4096"));
llvm::cl::opt<unsigned> seed("seed", llvm::cl::desc("seed of the inputs"),
                             llvm::cl::init(1));
llvm::cl::opt<std::string> chip("chip", llvm::cl::desc("target GPU"),
                                llvm::cl::init("sm_90"));
llvm::cl::opt<Emit> emit(
    "emit", llvm::cl::desc("print an intermediate product and stop"),
    llvm::cl::values(clEnumValN(Emit::MLIR, "mlir", "the imported tile IR"),
                     clEnumValN(Emit::PTX, "ptx", "the PTX"),
                     clEnumValN(Emit::Manifest, "manifest",
                                "the JSON manifest")),
    llvm::cl::init(Emit::None));
llvm::cl::opt<int> warmupRuns("warmup", llvm::cl::desc("cuda warm-up runs"),
                              llvm::cl::init(3));
llvm::cl::opt<int> timedRuns("runs", llvm::cl::desc("cuda timed runs"),
                             llvm::cl::init(10));
llvm::cl::opt<std::string> writeIO(
    "write-io",
    llvm::cl::desc("also write the inputs (DIR/NAME.bin, DIR/dims.txt) and "
                   "interp's outputs (DIR/expect/NAME.bin), as tile-launch "
                   "reads them"),
    llvm::cl::value_desc("DIR"));
llvm::cl::opt<bool> ptxFigures(
    "ptx-figures",
    llvm::cl::desc("compile to PTX and report ptxas's figures even when the "
                   "backend does not need the PTX (default on)"),
    llvm::cl::init(true));
llvm::cl::opt<bool> remarks(
    "tile-remarks",
    llvm::cl::desc("report register promotion and the shared-memory plan"),
    llvm::cl::init(false));

/// Symbols nobody gave a value get this one.
constexpr int64_t kDefaultSymbolValue = 1024;
/// The bytes of all of a kernel's tensors at most: tile-run holds each
/// tensor several times (inputs, the reference's outputs, the backend's)
/// and interp visits every element, so more is a mistake in `--dim`.
constexpr int64_t kMaxTensorBytes = int64_t(1) << 28;

/// Deterministic inputs: floats uniform in [-1, 1), integers in [-8, 8].
class InputGenerator {
public:
  explicit InputGenerator(uint64_t seed) : state(seed * 2654435761u + 1) {}

  void fill(rt::HostTensor &tensor) {
    for (size_t i = 0, e = tensor.numElements(); i < e; ++i) {
      double unit = (next() >> 11) * (1.0 / 9007199254740992.0);
      tensor.set(i, rt::isFloat(tensor.dtype) ? 2 * unit - 1
                                              : std::floor(unit * 17) - 8);
    }
  }

private:
  uint64_t next() { // xorshift64*
    state ^= state >> 12;
    state ^= state << 25;
    state ^= state >> 27;
    return state * 2685821657736338717ull;
  }
  uint64_t state;
};

int fail(const rt::Error &error, int code) {
  llvm::outs().flush();
  llvm::errs() << "tile-run: error: " << error.message() << "\n";
  return code;
}

FailureOr<KernelOp> selectKernel(ModuleOp module) {
  SmallVector<KernelOp> kernels(module.getOps<KernelOp>());
  for (KernelOp kernel : kernels)
    if (kernel.getSymName() == kernelName)
      return kernel;
  if (kernelName.empty() && kernels.size() == 1)
    return kernels.front();
  InFlightDiagnostic diag = module.emitError();
  if (kernelName.empty())
    diag << "the file has " << kernels.size()
         << " kernels; choose one with --kernel";
  else
    diag << "no kernel named '" << kernelName << "'";
  return failure();
}

/// Writes `tensor` as DIR/NAME.bin (docs/abi.md, "Files for tile-launch").
LogicalResult writeTensor(StringRef dir, StringRef name,
                          const rt::HostTensor &tensor) {
  SmallString<128> path(dir);
  llvm::sys::path::append(path, name + ".bin");
  std::error_code error;
  llvm::raw_fd_ostream out(path, error);
  if (error) {
    llvm::errs() << "tile-run: error: cannot write " << path << ": "
                 << error.message() << "\n";
    return failure();
  }
  out.write(reinterpret_cast<const char *>(tensor.bytes.data()),
            tensor.bytes.size());
  return success();
}

/// The files a runtime-only tile-launch needs to run and check the kernel.
LogicalResult writeRunFiles(StringRef dir, const rt::KernelManifest &manifest,
                            const rt::SymbolBindings &symbols,
                            ArrayRef<rt::HostTensor> inputs,
                            ArrayRef<rt::HostTensor> expected) {
  SmallString<128> expectDir(dir);
  llvm::sys::path::append(expectDir, "expect");
  if (std::error_code error = llvm::sys::fs::create_directories(expectDir)) {
    llvm::errs() << "tile-run: error: cannot create " << expectDir << ": "
                 << error.message() << "\n";
    return failure();
  }
  for (auto [param, input, want] :
       llvm::zip(manifest.params, inputs, expected)) {
    if (param.isRead() && failed(writeTensor(dir, param.name, input)))
      return failure();
    if (param.isWritten() && failed(writeTensor(expectDir, param.name, want)))
      return failure();
  }
  SmallString<128> dimsPath(dir);
  llvm::sys::path::append(dimsPath, "dims.txt");
  std::error_code error;
  llvm::raw_fd_ostream dimsFile(dimsPath, error);
  if (error)
    return failure();
  for (const auto &[symbol, value] : symbols)
    dimsFile << symbol << "=" << value << "\n";
  return success();
}

/// The placed copy of `module` (register promotion and the shared plan)
/// and the runtime's manifest of `kernel`, parsed from the compiler's JSON
/// so that the runtime reads exactly what a deployed kernel ships with.
FailureOr<std::pair<OwningOpRef<ModuleOp>, rt::KernelManifest>>
placeKernel(ModuleOp module, StringRef name, const TileToPTXOptions &options,
            std::string &manifestJSON) {
  OwningOpRef<ModuleOp> placed = module.clone();
  PassManager pm(module.getContext());
  buildTilePlacementPipeline(pm, options);
  if (failed(pm.run(*placed)))
    return failure();
  for (llvm::json::Value &manifest : buildManifests(*placed, options.chip)) {
    if (manifest.getAsObject()->getString("kernel") != name)
      continue;
    manifestJSON = llvm::formatv("{0:2}", manifest).str();
    rt::Expected<rt::KernelManifest> parsed = rt::parseManifest(manifestJSON);
    if (!parsed)
      return module.emitError("internal error: the compiler's manifest does "
                              "not parse: ")
             << parsed.getError().message();
    return std::make_pair(std::move(placed), std::move(*parsed));
  }
  return module.emitError("internal error: no manifest for '") << name << "'";
}

} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  llvm::cl::ParseCommandLineOptions(
      argc, argv,
      "tile-run: compile a tile kernel, run it and check it against the "
      "reference interpreter\n");

  DialectRegistry registry;
  registerAllTileDialects(registry);
  MLIRContext context(registry);
  context.loadAllAvailableDialects();
  context.printOpOnDiagnostic(false); // remarks point into the source
  std::string errorMessage;
  std::unique_ptr<llvm::MemoryBuffer> file =
      openInputFile(inputFile, &errorMessage);
  if (!file) {
    llvm::errs() << "tile-run: error: " << errorMessage << "\n";
    return kCompileError;
  }
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(std::move(file), llvm::SMLoc());
  SourceMgrDiagnosticHandler diagnostics(sourceMgr, &context);

  OwningOpRef<ModuleOp> module = parseKernelSource(sourceMgr, &context);
  if (!module)
    return kCompileError;
  FailureOr<KernelOp> kernel = selectKernel(*module);
  if (failed(kernel))
    return kCompileError;
  std::string name = kernel->getSymName().str();

  TileToPTXOptions options;
  options.chip = chip;
  options.remarks = remarks;
  if (emit == Emit::MLIR) {
    module->print(llvm::outs());
    llvm::outs() << "\n";
    return kMatch;
  }
  std::string manifestJSON;
  auto placed = placeKernel(*module, name, options, manifestJSON);
  if (failed(placed))
    return kCompileError;
  rt::KernelManifest &manifest = placed->second;
  if (emit == Emit::Manifest) {
    llvm::outs() << manifestJSON << "\n";
    return kMatch;
  }
  // PTX for the GPU, for --emit=ptx, and for ptxas's figures where a CUDA
  // toolkit (libdevice) is at hand; the CPU backends do not need it.
  Backend backend = chooseBackend(backendOption);
  std::string ptx;
  if (emit == Emit::PTX || backend == Backend::Cuda ||
      (ptxFigures && !findCUDAToolkit(options).empty())) {
    OwningOpRef<ModuleOp> forPTX = module->clone();
    options.remarks = false; // reported once, by the placement above
    FailureOr<std::string> compiled = compileToPTX(*forPTX, options);
    if (failed(compiled))
      return kCompileError;
    ptx = std::move(*compiled);
  }
  if (emit == Emit::PTX) {
    llvm::outs() << ptx;
    return kMatch;
  }

  // Symbols, then seeded inputs; outputs start poisoned.
  rt::SymbolBindings symbols;
  for (const std::string &dim : dims)
    if (rt::Error error = rt::parseSymbolAssignment(dim, symbols))
      return fail(error.prefix("--dim: "), kCompileError);
  for (const std::string &symbol : manifest.symbols)
    symbols.emplace(symbol, kDefaultSymbolValue);
  for (const auto &[symbol, value] : symbols)
    if (!llvm::is_contained(manifest.symbols, symbol))
      return fail(rt::Error::input("kernel '%s' has no symbol '%s'",
                                   name.c_str(), symbol.c_str()),
                  kCompileError);
  InputGenerator generator(seed);
  std::vector<rt::HostTensor> inputs;
  int64_t totalBytes = 0;
  for (const rt::ParamSpec &param : manifest.params) {
    rt::Expected<std::vector<int64_t>> shape = rt::resolveShape(param, symbols);
    if (!shape)
      return fail(shape.getError(), kCompileError);
    int64_t bytes = *rt::countElements(*shape) * rt::dtypeSize(param.dtype);
    if (bytes > kMaxTensorBytes - totalBytes)
      return fail(rt::Error::input(
                      "parameter '%s': %s of %s takes the kernel's tensors "
                      "over tile-run's limit of %lld bytes; choose smaller "
                      "--dim values",
                      param.name.c_str(), rt::formatShape(*shape).c_str(),
                      rt::dtypeName(param.dtype),
                      static_cast<long long>(kMaxTensorBytes)),
                  kCompileError);
    totalBytes += bytes;
    inputs.push_back(param.isRead()
                         ? rt::HostTensor::zeros(param.dtype, *shape)
                         : rt::HostTensor::poisoned(param.dtype, *shape));
    if (param.isRead())
      generator.fill(inputs.back());
  }

  // The reference: the tile-level interpreter on the kernel as written.
  std::vector<rt::HostTensor> expected = inputs;
  {
    std::vector<rt::HostTensor *> args;
    for (rt::HostTensor &tensor : expected)
      args.push_back(&tensor);
    rt::SymbolBindings bound = symbols;
    if (failed(reference::interpretKernel(*kernel, args, bound)))
      return kCompileError;
  }

  if (!writeIO.empty() &&
      failed(writeRunFiles(writeIO, manifest, symbols, inputs, expected)))
    return kCompileError;

  RunRequest request{*module, *placed->first, name, manifest, ptx, symbols};
  request.warmupRuns = warmupRuns;
  request.timedRuns = timedRuns;
  std::vector<rt::HostTensor> outputs = inputs;
  FailureOr<int> ran = runOnBackend(backend, request, outputs);
  if (failed(ran))
    return kCompileError;
  if (*ran != kMatch)
    return *ran;

  printCompileReport(ptx, manifest, manifestJSON, chip);
  bool allMatch = true;
  for (auto [param, got, want] :
       llvm::zip(manifest.params, outputs, expected)) {
    if (!param.isWritten())
      continue;
    rt::Expected<bool> matched = rt::compareOutput(
        param.name, got, want, rt::toleranceFor(want), "interp");
    if (!matched)
      return fail(matched.getError(), kCompileError);
    allMatch &= *matched;
  }
  return allMatch ? kMatch : kMismatch;
}
