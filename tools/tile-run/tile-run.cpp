//===- tile-run.cpp - compile, run and check a tile kernel ----------------===//
//
// tile-run FILE.(tile|mlir) [--backend=cuda|emulate|interp] [--dim K=4096]
//          [--input X=x.npy] [--output-dir DIR]
//
// Compiles the kernel, makes seeded inputs (or reads a user's .npy files),
// runs it on the GPU (cuda), on the CPU as the GPU would (emulate: the lowered
// per-thread code), or on the tile-level reference interpreter (interp), checks
// every output element against interp, and prints the report of seed 002: what
// the compiled kernel uses, how long it took, and what the compiler decided.
//
// Exit codes: 0 the outputs match, 1 a mismatch, 2 a compile error, bad
// input or a bad command line, 3 the requested backend is unavailable (or
// the driver failed), 4 the kernel faulted (a race, an out-of-bounds access,
// a barrier only part of the CTA reaches, undefined arithmetic, a loop that
// does not end).
//
//===----------------------------------------------------------------------===//

#include "tile/Frontend/DidYouMean.h"
#include "tile/InitAllTile.h"
#include "tile/Reference/Interpreter.h"
#include "tile/Runtime/Npy.h"
#include "tile/Runtime/Report.h"
#include "tile/Target/PTX/TileToPTX.h"
#include "tile/Tools/BoundedOption.h"
#include "tile/Tools/Driver.h"
#include "tile/Tools/OutputFile.h"
#include "tile/Tools/Run.h"
#ifdef TILE_TEST_PASSES
#include "TestPasses.h"
#endif

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
/// tile-run's own options: --help shows these; --help-hidden LLVM's too.
llvm::cl::OptionCategory tileRunCategory("tile-run options");
/// tile-run's exit codes (docs/spec.md).
enum ExitCode {
  kMatch = 0,
  kMismatch = 1,
  /// A compile error, bad input or a bad command line.
  kBadInput = 2,
  kNoBackend = 3,
  /// The kernel faulted: the emulator's or the reference's checks found
  /// undefined behaviour (a race, an out-of-bounds access, a barrier only
  /// part of the CTA reaches, a division by zero, a loop that does not end).
  kKernelFault = 4,
};

enum class Emit { None, MLIR, PTX, Manifest };

llvm::cl::opt<std::string> inputFile(llvm::cl::Positional,
                                     llvm::cl::desc("<kernel.tile|.mlir>"),
                                     llvm::cl::Required,
                                     llvm::cl::cat(tileRunCategory));
llvm::cl::opt<std::string>
    kernelName("kernel",
               llvm::cl::desc("the kernel to run (default: the only one)"),
               llvm::cl::cat(tileRunCategory));
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
    llvm::cl::init(Backend::Auto), llvm::cl::cat(tileRunCategory));
llvm::cl::list<std::string>
    dims("dim",
         llvm::cl::desc("the value of a symbolic dimension, K=4096 (default: "
                        "1024 for each symbol not given; the report's dims "
                        "line says which)"),
         llvm::cl::value_desc("NAME=VALUE"), llvm::cl::cat(tileRunCategory));
llvm::cl::list<std::string>
    scalarArgs("arg",
               llvm::cl::desc("the value of a scalar parameter, alpha=0.5 "
                              "(default: seeded like the tensors' elements)"),
               llvm::cl::value_desc("NAME=VALUE"),
               llvm::cl::cat(tileRunCategory));
llvm::cl::list<std::string> inputFiles(
    "input",
    llvm::cl::desc("a tensor parameter's values from a numpy .npy file, "
                   "X=x.npy (its dtype and shape checked against the "
                   "parameter; its sizes bind the symbols); the others are "
                   "seeded"),
    llvm::cl::value_desc("NAME=FILE.npy"), llvm::cl::cat(tileRunCategory));
llvm::cl::opt<std::string> outputDir(
    "output-dir",
    llvm::cl::desc("write every parameter the kernel writes, as the backend "
                   "left it, to DIR/NAME.npy"),
    llvm::cl::value_desc("DIR"), llvm::cl::cat(tileRunCategory));
llvm::cl::opt<unsigned> seed("seed",
                             llvm::cl::desc("seed of the inputs' random "
                                            "values (default 1)"),
                             llvm::cl::init(1), llvm::cl::cat(tileRunCategory));
llvm::cl::opt<Emit> emit(
    "emit", llvm::cl::desc("print an intermediate product and stop"),
    llvm::cl::values(clEnumValN(Emit::MLIR, "mlir",
                                "the tile IR the front end made, before any "
                                "pass"),
                     clEnumValN(Emit::PTX, "ptx", "the PTX"),
                     clEnumValN(Emit::Manifest, "manifest",
                                "the JSON manifest")),
    llvm::cl::init(Emit::None), llvm::cl::cat(tileRunCategory));
llvm::cl::opt<int, false, BoundedParser<int, 0, 1000000>>
    warmupRuns("warmup",
               llvm::cl::desc("cuda: untimed runs before the "
                              "timed ones (default 3)"),
               llvm::cl::init(3), llvm::cl::cat(tileRunCategory));
llvm::cl::opt<int, false, BoundedParser<int, 0, 1000000>>
    timedRuns("runs",
              llvm::cl::desc("cuda: timed runs, whose median "
                             "the report gives (default 10)"),
              llvm::cl::init(10), llvm::cl::cat(tileRunCategory));
llvm::cl::opt<std::string> writeIO(
    "write-io",
    llvm::cl::desc("also write the inputs (DIR/NAME.bin, DIR/dims.txt), "
                   "interp's outputs and their marks (DIR/expect/NAME.bin, "
                   "NAME.marks, fp-options.json), as tile-launch reads them"),
    llvm::cl::value_desc("DIR"), llvm::cl::cat(tileRunCategory));
llvm::cl::opt<bool> ptxFigures(
    "ptx-figures",
    llvm::cl::desc("compile to PTX and report ptxas's figures even when the "
                   "backend does not need the PTX (default on)"),
    llvm::cl::init(true), llvm::cl::cat(tileRunCategory));
llvm::cl::opt<bool> bankConflicts(
    "bank-conflicts",
    llvm::cl::desc("emulate: count the shared-memory wavefronts and bank "
                   "conflicts of every warp's accesses (ld/st.shared, "
                   "ldmatrix, cp.async) and report them, in all and per op"),
    llvm::cl::init(false), llvm::cl::cat(tileRunCategory));
llvm::cl::list<std::string> plantedBugs(
    "plant-bug",
    llvm::cl::desc("TEST ONLY: break the lowered code the emulator runs with "
                   "a bug planter (listed by --plant-bug=help), to see the "
                   "check catch it: the first wrong element, its index, "
                   "what it got and what the reference wants "
                   "(--backend=emulate)"),
    llvm::cl::value_desc("NAME"), llvm::cl::CommaSeparated,
    llvm::cl::cat(tileRunCategory));
llvm::cl::opt<uint64_t> referenceBudget(
    "reference-budget",
    llvm::cl::desc("tile elements the reference interpreter may compute per "
                   "CTA of the grid before it gives up (a loop that never "
                   "ends); exhausting it exits 3"),
    llvm::cl::init(reference::InterpOptions::kDefaultElementsPerCTA),
    llvm::cl::cat(tileRunCategory));
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

/// Writes DIR/NAME with `write`, whole or not at all; a file that cannot
/// be created or written (a full disk) is an error naming it, not
/// raw_fd_ostream's abort.
LogicalResult writeFile(StringRef dir, const Twine &name,
                        function_ref<void(llvm::raw_ostream &)> write) {
  SmallString<128> path(dir);
  llvm::sys::path::append(path, name);
  return success(writeOutputFile("tile-run", path, [&](llvm::raw_ostream &out) {
                   write(out);
                   return success();
                 }) == OutputStatus::Written);
}

/// Writes `tensor` as DIR/NAME.bin (docs/abi.md, "Files for tile-launch").
LogicalResult writeTensor(StringRef dir, StringRef name,
                          const rt::HostTensor &tensor) {
  return writeFile(dir, name + ".bin", [&](llvm::raw_ostream &out) {
    out.write(reinterpret_cast<const char *>(tensor.bytes.data()),
              tensor.bytes.size());
  });
}

/// Writes the reference's marks of an output as DIR/NAME.marks, a byte per
/// element (docs/abi.md).
LogicalResult writeMarks(StringRef dir, StringRef name,
                         ArrayRef<rt::ElementMark> marks) {
  return writeFile(dir, name + ".marks", [&](llvm::raw_ostream &out) {
    for (rt::ElementMark mark : marks)
      out << static_cast<char>(mark.toByte());
  });
}

/// The files a runtime-only tile-launch needs to run and check the kernel.
LogicalResult writeRunFiles(StringRef dir, const rt::KernelManifest &manifest,
                            const rt::SymbolBindings &symbols,
                            ArrayRef<rt::HostTensor> inputs,
                            ArrayRef<rt::HostTensor> expected,
                            const reference::InterpReport &reference) {
  SmallString<128> expectDir(dir);
  llvm::sys::path::append(expectDir, "expect");
  if (std::error_code error = llvm::sys::fs::create_directories(expectDir)) {
    llvm::errs() << "tile-run: error: cannot create " << expectDir << ": "
                 << error.message() << "\n";
    return failure();
  }
  for (auto [param, input, want, marks] :
       llvm::zip(manifest.params, inputs, expected, reference.marks)) {
    if (param.isScalar())
      continue; // in dims.txt
    if (param.isRead() && failed(writeTensor(dir, param.name, input)))
      return failure();
    if (param.isWritten() &&
        (failed(writeTensor(expectDir, param.name, want)) ||
         failed(writeMarks(expectDir, param.name, marks))))
      return failure();
  }
  // The marks hold for a kernel compiled as this one (tile-launch checks).
  if (failed(
          writeFile(expectDir, "fp-options.json", [&](llvm::raw_ostream &out) {
            out << rt::formatFloatOptions(manifest.floatOptions,
                                          rt::kMarksVersion)
                << "\n";
          })))
    return failure();
  return writeFile(dir, "dims.txt", [&](llvm::raw_ostream &out) {
    for (const auto &[symbol, value] : symbols)
      out << symbol << "=" << value << "\n";
    for (auto [param, input] : llvm::zip(manifest.params, inputs))
      if (param.isScalar())
        out << param.name << "=" << rt::formatScalarValue(input) << "\n";
  });
}

/// Whether a size of the manifest's grid names `name`, a scalar parameter.
bool gridNames(const rt::KernelManifest &manifest, StringRef name) {
  auto isNameChar = [](char c) { return llvm::isAlnum(c) || c == '_'; };
  for (StringRef size : manifest.grid)
    for (size_t at = size.find(name); at != StringRef::npos;
         at = size.find(name, at + 1))
      if ((at == 0 || !isNameChar(size[at - 1])) &&
          (at + name.size() == size.size() ||
           !isNameChar(size[at + name.size()])))
        return true;
  return false;
}

/// A tensor of --input: the option as given, and the file's tensor.
struct InputFile {
  std::string option;
  rt::HostTensor tensor;
};

/// The tensors of --input, by parameter index, read and checked against
/// their parameters; their sizes bind symbols (after --dim's, whose values
/// they must agree with), each recorded in `origins`. Errors are located
/// at the parameter.
FailureOr<std::map<size_t, InputFile>>
readInputFiles(KernelOp kernel, const rt::KernelManifest &manifest,
               rt::SymbolBindings &symbols, rt::SymbolOrigins &origins) {
  for (const auto &[symbol, value] : symbols)
    origins[symbol] = "--dim " + symbol + "=" + std::to_string(value);
  std::map<size_t, InputFile> read;
  for (const std::string &input : inputFiles) {
    auto [name, path] = StringRef(input).split('=');
    auto param = llvm::find_if(manifest.params, [&](const rt::ParamSpec &p) {
      return p.name == name;
    });
    if (!StringRef(input).contains('=') || name.empty() || path.empty() ||
        param == manifest.params.end()) {
      SmallVector<StringRef> names;
      for (const rt::ParamSpec &p : manifest.params)
        names.push_back(p.name);
      emitError(kernel.getLoc())
          << "--input " << input << ": "
          << (StringRef(input).contains('=') && !name.empty() && !path.empty()
                  ? "kernel '" + kernel.getSymName() + "' has no parameter '" +
                        name + "'" + formatDidYouMean(name, names)
                  : Twine("write --input NAME=FILE.npy"));
      return failure();
    }
    size_t index = param - manifest.params.begin();
    InFlightDiagnostic diag = emitError(kernel.getArgument(index).getLoc());
    diag << "--input " << input << ": ";
    if (param->isScalar()) {
      diag << "'" << name << "' is a scalar parameter: give its value with "
           << "--arg " << name << "=VALUE";
      return failure();
    }
    if (read.count(index)) {
      diag << "parameter '" << name << "' is given twice";
      return failure();
    }
    rt::Expected<std::string> bytes = rt::readFile(path.str());
    if (!bytes) {
      diag << bytes.getError().message();
      return failure();
    }
    rt::Expected<rt::HostTensor> tensor =
        rt::readNpyTensor(*bytes, param->dtype);
    if (!tensor) {
      diag << tensor.getError().message();
      return failure();
    }
    if (rt::Error error = rt::bindArgument(*param, *tensor, symbols, origins)) {
      diag << error.message();
      return failure();
    }
    diag.abandon();
    // A symbol this file bound: say which --input it came from.
    for (const rt::Dim &dim : param->shape) {
      auto origin = origins.find(dim.symbol);
      if (origin != origins.end() &&
          StringRef(origin->second).starts_with("parameter"))
        origin->second = "--input " + input + ": " + origin->second;
    }
    read.emplace(index, InputFile{"--input " + input, std::move(*tensor)});
  }
  return read;
}

/// Writes every parameter the kernel writes as DIR/NAME.npy.
LogicalResult writeOutputs(StringRef dir, const rt::KernelManifest &manifest,
                           ArrayRef<rt::HostTensor> outputs) {
  if (std::error_code error = llvm::sys::fs::create_directories(dir)) {
    llvm::errs() << "tile-run: error: --output-dir: cannot create " << dir
                 << ": " << error.message() << "\n";
    return failure();
  }
  for (auto [param, output] : llvm::zip(manifest.params, outputs))
    if (param.isWritten() &&
        failed(writeFile(dir, param.name + ".npy", [&](llvm::raw_ostream &out) {
          out << rt::formatNpy(output);
        })))
      return failure();
  return success();
}

/// --plant-bug's names: bug planters this tile-run has, for the emulator.
/// An exit code when tile-run stops here (--plant-bug=help lists them).
std::optional<int> checkPlantedBugs() {
  if (plantedBugs.empty())
    return std::nullopt;
  std::vector<std::pair<std::string, std::string>> known;
#ifdef TILE_TEST_PASSES
  known = getPlantedBugs();
#endif
  if (known.empty()) {
    llvm::errs() << "tile-run: error: --plant-bug: this tile-run was built "
                    "without the test passes (TILE_BUILD_TESTS=OFF)\n";
    return kBadInput;
  }
  bool listed = llvm::is_contained(plantedBugs, "help");
  for (const std::string &name : plantedBugs) {
    if (listed ||
        llvm::any_of(known, [&](const auto &bug) { return bug.first == name; }))
      continue;
    SmallVector<StringRef> names;
    for (const auto &bug : known)
      names.push_back(bug.first);
    llvm::errs() << "tile-run: error: --plant-bug=" << name
                 << ": no such bug planter" << formatDidYouMean(name, names)
                 << " (--plant-bug=help "
                 << "lists them)\n";
    return kBadInput;
  }
  if (listed) {
    llvm::outs() << "test-only bug planters for --plant-bug (each breaks the "
                    "lowered code the emulator runs):\n";
    for (const auto &[name, description] : known)
      llvm::outs() << "  " << name << ": " << description << "\n";
    return kMatch;
  }
  if (backendOption != Backend::Emulate) {
    llvm::errs() << "tile-run: error: --plant-bug plants bugs in the code the "
                    "emulator runs: add --backend=emulate\n";
    return kBadInput;
  }
  return std::nullopt;
}

int run(int argc, char **argv) {
  registerCompileOptions(&tileRunCategory);
  // LLVM's and MLIR's hundreds of options stay usable and listed by
  // --help-hidden; --help shows tile-run's.
  setUpToolCommandLine("tile-run", {&tileRunCategory});
#ifdef TILE_TEST_PASSES
  registerEmulatorTestPasses();
#endif
  if (!llvm::cl::ParseCommandLineOptions(
          argc, argv,
          "tile-run: compile a tile kernel, run it and check it against the "
          "reference interpreter\n",
          &llvm::errs()))
    return kBadInput;
  if (std::optional<int> code = checkPlantedBugs())
    return *code;

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
    return kBadInput;
  }
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(std::move(file), llvm::SMLoc());
  SourceMgrDiagnosticHandler diagnostics(sourceMgr, &context);

  OwningOpRef<ModuleOp> module = parseKernelSource(sourceMgr, &context);
  if (!module)
    return kBadInput;
  FailureOr<Operation *> selected =
      selectKernel(*module, kernelName, inputFile, "--kernel");
  if (failed(selected))
    return kBadInput;
  auto kernel = cast<KernelOp>(*selected);
  std::string name = kernel.getSymName().str();

  TileToPTXOptions options = getCompileOptions();
  if (emit == Emit::MLIR) {
    module->print(llvm::outs());
    llvm::outs() << "\n";
    return kMatch;
  }
  FailureOr<PlacedKernel> placed = placeKernel(*module, name, options);
  if (failed(placed))
    return kBadInput;
  rt::KernelManifest &manifest = placed->manifest;
  if (emit == Emit::Manifest) {
    llvm::outs() << placed->manifestJSON << "\n";
    return kMatch;
  }
  // PTX for the GPU, for --emit=ptx, and for ptxas's figures where a CUDA
  // toolkit (libdevice) is at hand; the CPU backends do not need it.
  Backend backend = chooseBackend(backendOption);
  std::string ptx;
  if (emit == Emit::PTX || backend == Backend::Cuda ||
      (ptxFigures && !findCUDAToolkit(options).empty())) {
    OwningOpRef<ModuleOp> forPTX = module->clone();
    // Remarks and warnings were reported once, by the placement above;
    // errors still reach the source manager's handler.
    options.remarks = false;
    ScopedDiagnosticHandler reportedOnce(&context, [](Diagnostic &diag) {
      return success(diag.getSeverity() == DiagnosticSeverity::Warning ||
                     diag.getSeverity() == DiagnosticSeverity::Remark);
    });
    FailureOr<std::string> compiled = compileToPTX(*forPTX, options);
    if (failed(compiled))
      return kBadInput;
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
      return fail(error.prefix("--dim: "), kBadInput);
  // The user's tensors, whose sizes bind the symbols --dim left.
  rt::SymbolOrigins origins;
  FailureOr<std::map<size_t, InputFile>> fromFiles =
      readInputFiles(kernel, manifest, symbols, origins);
  if (failed(fromFiles))
    return kBadInput;
  std::vector<std::string> defaulted;
  for (const std::string &symbol : manifest.symbols)
    if (symbols.emplace(symbol, kDefaultSymbolValue).second) {
      defaulted.push_back(symbol);
      origins[symbol] = "the default";
    }
  for (const auto &[symbol, value] : symbols)
    if (!llvm::is_contained(manifest.symbols, symbol))
      return fail(rt::Error::input("kernel '%s' has no symbol '%s'",
                                   name.c_str(), symbol.c_str()),
                  kBadInput);
  // Sizes the compiled kernel's index arithmetic cannot reach, before any
  // buffer is allocated (interp, the reference, computes in 64 bits).
  if (backend != Backend::Interp)
    if (rt::Error error = rt::checkIndexRange(manifest, symbols))
      return fail(error, kBadInput);
  InputGenerator generator(seed);
  std::vector<rt::HostTensor> inputs;
  int64_t totalBytes = 0;
  for (const rt::ParamSpec &param : manifest.params) {
    rt::Expected<std::vector<int64_t>> shape = rt::resolveShape(param, symbols);
    if (!shape)
      return fail(shape.getError(), kBadInput);
    if (rt::Error error = rt::reserveTensorBytes(
            param, *shape, kMaxTensorBytes,
            "tile-run's limit of " + std::to_string(kMaxTensorBytes) +
                " bytes; choose smaller --dim values",
            totalBytes))
      return fail(error, kBadInput);
    inputs.push_back(param.isRead()
                         ? rt::HostTensor::zeros(param.dtype, *shape)
                         : rt::HostTensor::poisoned(param.dtype, *shape));
    // Seeded even when a file replaces it, so that the other parameters'
    // values are those of a run without --input.
    if (param.isRead())
      generator.fill(inputs.back());
    auto file = fromFiles->find(inputs.size() - 1);
    if (file == fromFiles->end())
      continue;
    // A dimension that is an expression of symbols, now that all are bound.
    if (rt::Error error = rt::checkExpressionDims(
            param, file->second.tensor.shape, symbols, origins)) {
      emitError(kernel.getArgument(inputs.size() - 1).getLoc())
          << file->second.option << ": " << error.message();
      return kBadInput;
    }
    inputs.back() = std::move(file->second.tensor);
  }
  // Scalar parameters: --arg, else the seeded value.
  std::vector<bool> given(manifest.params.size(), false);
  for (const std::string &arg : scalarArgs) {
    StringRef text(arg);
    auto [argName, value] = text.split('=');
    auto param = llvm::find_if(manifest.params, [&](const rt::ParamSpec &p) {
      return p.name == argName;
    });
    if (!text.contains('=') || param == manifest.params.end() ||
        !param->isScalar())
      return fail(rt::Error::input("--arg %s: kernel '%s' has no scalar "
                                   "parameter '%s' (write --arg NAME=VALUE)",
                                   arg.c_str(), name.c_str(),
                                   argName.str().c_str()),
                  kBadInput);
    rt::Expected<rt::HostTensor> parsed =
        rt::parseScalarValue(*param, value.str());
    if (!parsed)
      return fail(parsed.takeError().prefix("--arg: "), kBadInput);
    // As a repeated --dim: twice with two values is a mistake.
    rt::HostTensor &previous = inputs[param - manifest.params.begin()];
    if (given[param - manifest.params.begin()] &&
        previous.bytes != parsed->bytes)
      return fail(rt::Error::input("--arg: %s is given twice, as %s and %s",
                                   param->name.c_str(),
                                   rt::formatScalarValue(previous).c_str(),
                                   rt::formatScalarValue(*parsed).c_str()),
                  kBadInput);
    inputs[param - manifest.params.begin()] = std::move(*parsed);
    given[param - manifest.params.begin()] = true;
  }
  // A seeded integer scalar the grid names is a grid size: positive, 1 to
  // 9, as a seeded symbol is (a given one is checked at the launch).
  for (auto [index, param] : llvm::enumerate(manifest.params))
    if (param.isScalar() && !given[index] && gridNames(manifest, param.name)) {
      int64_t value = inputs[index].getInt(0);
      inputs[index].setInt(0, value < 1 ? 1 - value : value);
    }

  // The reference: the tile-level interpreter on the kernel as written,
  // knowing from the manifest how the compiled code rounds.
  std::vector<rt::HostTensor> expected = inputs;
  reference::InterpReport reference;
  reference::InterpOptions interpOptions;
  interpOptions.compiled = manifest.floatOptions;
  // The budget is --reference-budget per CTA, lower or higher than the
  // library's fixed default.
  interpOptions.maxElements = 0;
  interpOptions.elementsPerCTA = referenceBudget;
  {
    std::vector<rt::HostTensor *> args;
    for (rt::HostTensor &tensor : expected)
      args.push_back(&tensor);
    rt::SymbolBindings bound = symbols;
    if (failed(reference::interpretKernel(kernel, args, bound, interpOptions,
                                          &reference))) {
      if (reference.budgetExhausted) {
        llvm::errs() << "tile-run: error: reference budget exhausted ("
                     << referenceBudget
                     << " tile elements per CTA): the reference cannot check "
                        "this run; raise it with --reference-budget=N\n";
        return kNoBackend;
      }
      return reference.fault ? kKernelFault : kBadInput;
    }
  }

  if (!writeIO.empty() && failed(writeRunFiles(writeIO, manifest, symbols,
                                               inputs, expected, reference)))
    return kBadInput;

  RunRequest request{*module, *placed->placed, name, manifest, ptx, symbols};
  request.warmupRuns = warmupRuns;
  request.timedRuns = timedRuns;
  request.countBankConflicts = bankConflicts;
  request.plantedBugs = llvm::join(plantedBugs, ",");
  std::vector<rt::HostTensor> outputs = inputs;
  llvm::outs().flush();
  RunFigures figures;
  std::string runtimeError;
  RunStatus status =
      runOnBackend(backend, request, outputs, figures, runtimeError);
  if (!runtimeError.empty())
    llvm::errs() << "tile-run: error: " << runtimeError << "\n";
  switch (status) {
  case RunStatus::Ran:
    break;
  case RunStatus::BadInput:
    return kBadInput;
  case RunStatus::NoBackend:
    return kNoBackend;
  case RunStatus::KernelFault:
    return kKernelFault;
  }
  if (!outputDir.empty() && failed(writeOutputs(outputDir, manifest, outputs)))
    return kBadInput;
  const std::vector<std::vector<bool>> &written = figures.written;
  llvm::outs() << figures.report << formatDims(symbols, defaulted)
               << "inputs: ";
  for (const std::string &input : inputFiles)
    llvm::outs() << "--input " << input << ", ";
  llvm::outs() << (inputFiles.empty() ? "" : "the others ")
               << "seeded with --seed=" << seed
               << " (floats uniform in [-1, 1), integers in [-8, 8])\n";
  if (!outputDir.empty())
    llvm::outs() << "outputs: written to " << outputDir << "/NAME.npy\n";
  // The scalars' values, so that a seeded one can be given again.
  bool anyScalar = false;
  for (auto [index, param] : llvm::enumerate(manifest.params)) {
    if (!param.isScalar())
      continue;
    llvm::outs() << (anyScalar ? ", " : "scalars: ") << param.name << "="
                 << rt::formatScalarValue(inputs[index])
                 << (given[index] ? "" : " (seeded)");
    anyScalar = true;
  }
  if (anyScalar)
    llvm::outs() << "\n";
  // ptxas's figures of the variant that ran, from the PTX it ran.
  PtxasFigures ptxas;
  if (!ptx.empty())
    ptxas = runPtxas(ptx, manifest.chip, figures.entry);
  if (figures.backend != Backend::Cuda)
    llvm::outs() << formatComputedTable(manifest, figures.entry, ptxas,
                                        manifest.chip);
  llvm::outs() << formatCompileReport(ptx, ptxas, *placed, manifest.chip);
  llvm::outs().flush();
  std::string backendName = getBackendName(backend).str();
  bool allMatch = true;
  for (auto [index, param] : llvm::enumerate(manifest.params)) {
    if (!param.isWritten())
      continue;
    rt::OutputComparison comparison;
    comparison.got = &outputs[index];
    comparison.gotWritten = written.empty() ? nullptr : &written[index];
    comparison.want = &expected[index];
    comparison.wantMarks = &reference.marks[index];
    comparison.poisoned = !param.isRead() && !fromFiles->count(index);
    rt::Expected<bool> matched =
        rt::checkOutput(param.name, comparison, backendName, "interp");
    if (!matched)
      return fail(matched.getError(), kBadInput);
    allMatch &= *matched;
  }
  return allMatch ? kMatch : kMismatch;
}

} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  int code = run(argc, argv);
  // A failed write of what was printed (a full disk, a closed pipe) is an
  // error like any other, not raw_fd_ostream's abort at exit.
  return reportStandardOutputError("tile-run") ? kBadInput : code;
}
