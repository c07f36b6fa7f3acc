//===- Compilation.cpp - one kernel of the Python package -----------------===//

#include "Compilation.h"

#include "tile/InitAllTile.h"
#include "tile/Reference/Interpreter.h"
#include "tile/Runtime/Check.h"
#include "tile/Runtime/Report.h"
#include "tile/Target/PTX/TileToPTX.h"
#include "tile/Tools/Driver.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace mlir::tile;
using namespace ::tile::python;
namespace rt = ::tile::runtime;

//===----------------------------------------------------------------------===//
// Diagnostics
//===----------------------------------------------------------------------===//

DiagnosticCapture::DiagnosticCapture(llvm::SourceMgr &sourceMgr,
                                     MLIRContext *context)
    : errorStream(errors), remarkStream(remarkText),
      errorHandler(sourceMgr, context, errorStream),
      remarkHandler(sourceMgr, context, remarkStream), context(context) {
  // Registered last, so it sees every diagnostic first.
  id = context->getDiagEngine().registerHandler([this](Diagnostic &diag) {
    switch (diag.getSeverity()) {
    case DiagnosticSeverity::Remark:
    case DiagnosticSeverity::Warning: {
      remarkHandler.emitDiagnostic(diag);
      std::string text = std::move(remarkText);
      remarkText.clear();
      while (!text.empty() && text.back() == '\n')
        text.pop_back();
      (diag.getSeverity() == DiagnosticSeverity::Remark ? remarks : warnings)
          .push_back(std::move(text));
      break;
    }
    default:
      errorHandler.emitDiagnostic(diag);
    }
    return success();
  });
}

DiagnosticCapture::~DiagnosticCapture() {
  context->getDiagEngine().eraseHandler(id);
}

std::string DiagnosticCapture::takeErrors() {
  std::string text = std::move(errors);
  errors.clear();
  while (!text.empty() && text.back() == '\n')
    text.pop_back();
  return text;
}

//===----------------------------------------------------------------------===//
// Building and compiling
//===----------------------------------------------------------------------===//

static std::unique_ptr<MLIRContext> makeContext() {
  DialectRegistry registry;
  registerAllTileDialects(registry);
  // One small kernel at a time: no thread pool, and the IR printed after
  // each pass can be the whole module.
  auto context =
      std::make_unique<MLIRContext>(registry, MLIRContext::Threading::DISABLED);
  context->loadAllAvailableDialects();
  context->printOpOnDiagnostic(false);
  return context;
}

Compilation::Compilation(const std::string &filename, const std::string &source)
    : context(makeContext()) {
  unsigned buffer = sourceMgr.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBufferCopy(source, filename), llvm::SMLoc());
  diagnostics = std::make_unique<DiagnosticCapture>(sourceMgr, context.get());
  builder = std::make_unique<KernelBuilder>(context.get(), sourceMgr, buffer);
}

Compilation::~Compilation() {
  // The IR before the context, the handlers before the source manager.
  stages.clear();
  lowered = nullptr;
  placed.reset();
  module = nullptr;
  builder.reset();
  diagnostics.reset();
}

Failure Compilation::compileFailure() {
  std::string text = diagnostics->takeErrors();
  if (text.empty())
    text = "error: the kernel did not compile";
  return Failure{Failure::Kind::Compile, text};
}

std::optional<Failure> Compilation::setOptions(const std::string &name,
                                               bool remarks,
                                               const std::string &chip,
                                               const std::string &fpDiv) {
  kernelName = name;
  options.chip = chip;
  options.remarks = remarks;
  std::optional<FloatDivision> division = parseFloatDivision(fpDiv);
  if (!division)
    return Failure{Failure::Kind::Input,
                   "fp_div '" + fpDiv + "': expected 'ieee' or 'full'"};
  options.floatOptions.division = *division;
  return std::nullopt;
}

std::optional<Failure> Compilation::finish(const std::string &name,
                                           bool remarks,
                                           const std::string &chip,
                                           const std::string &fpDiv) {
  if (std::optional<Failure> failure = setOptions(name, remarks, chip, fpDiv))
    return failure;
  module = builder->takeModule();
  if (!module)
    return compileFailure();
  return std::nullopt;
}

std::variant<std::string, Failure> Compilation::load(const std::string &name,
                                                     bool remarks,
                                                     const std::string &chip,
                                                     const std::string &fpDiv) {
  std::lock_guard<std::recursive_mutex> lock(mutex);
  module = parseKernelSource(sourceMgr, context.get());
  if (!module)
    return compileFailure();
  StringRef file = sourceMgr.getMemoryBuffer(sourceMgr.getMainFileID())
                       ->getBufferIdentifier();
  FailureOr<Operation *> chosen =
      selectKernel(*module, name, file, "load_kernel(..., kernel=NAME)");
  if (failed(chosen)) {
    module = nullptr;
    return compileFailure();
  }
  std::string chosenName = cast<KernelOp>(*chosen).getSymName().str();
  if (std::optional<Failure> failure =
          setOptions(chosenName, remarks, chip, fpDiv))
    return *failure;
  return chosenName;
}

std::optional<Failure> Compilation::place() {
  if (placed)
    return std::nullopt;
  FailureOr<PlacedKernel> result = placeKernel(*module, kernelName, options);
  if (failed(result))
    return compileFailure();
  placed = std::move(*result);
  return std::nullopt;
}

std::variant<std::string, Failure> Compilation::getPTX() {
  std::lock_guard<std::recursive_mutex> lock(mutex);
  if (ptx)
    return *ptx;
  if (std::optional<Failure> failure = place())
    return *failure;
  OwningOpRef<ModuleOp> copy = module->clone();
  TileToPTXOptions compile = options;
  compile.remarks = false; // reported once, by the placement
  FailureOr<std::string> text = compileToPTX(*copy, compile);
  if (failed(text))
    return compileFailure();
  ptx = std::move(*text);
  return *ptx;
}

std::variant<std::string, Failure> Compilation::getManifest() {
  std::lock_guard<std::recursive_mutex> lock(mutex);
  if (std::optional<Failure> failure = place())
    return *failure;
  return placed->manifestJSON;
}

namespace {
/// Keeps the whole module after every pass of the pipeline.
class StageCapture : public PassManager::IRPrinterConfig {
public:
  StageCapture(std::vector<std::pair<std::string, std::string>> &out,
               OpPrintingFlags flags)
      : IRPrinterConfig(/*printModuleScope=*/true,
                        /*printAfterOnlyOnChange=*/false,
                        /*printAfterOnlyOnFailure=*/false, flags),
        out(out) {}

  void printAfterIfEnabled(Pass *pass, Operation *op,
                           PrintCallbackFn printCallback) override {
    std::string name = pass->getArgument().str();
    if (name.empty())
      name = pass->getName().str();
    unsigned seen = 0;
    for (const auto &[stage, ir] : out)
      seen += stage == name || StringRef(stage).starts_with(name + "#");
    if (seen)
      name += "#" + std::to_string(seen + 1);
    std::string text;
    llvm::raw_string_ostream os(text);
    printCallback(os);
    out.emplace_back(std::move(name), std::move(text));
  }
  void printBeforeIfEnabled(Pass *, Operation *, PrintCallbackFn) override {}

private:
  std::vector<std::pair<std::string, std::string>> &out;
};

OpPrintingFlags printingFlags(bool locations) {
  OpPrintingFlags flags;
  if (locations)
    flags.enableDebugInfo();
  return flags;
}
} // namespace

std::optional<Failure> Compilation::computeStages(bool locations) {
  Stages &out = locations ? stagesWithLocations : stages;
  if (!out.empty())
    return std::nullopt;
  std::string source;
  llvm::raw_string_ostream os(source);
  module->print(os, printingFlags(locations));
  out.emplace_back("source", std::move(source));
  OwningOpRef<ModuleOp> copy = module->clone();
  TileToPTXOptions compile = options;
  compile.remarks = false;
  FailureOr<std::string> text =
      compileToPTX(*copy, compile, [&](PassManager &pm) {
        pm.enableIRPrinting(
            std::make_unique<StageCapture>(out, printingFlags(locations)));
      });
  if (failed(text)) {
    out.clear();
    return compileFailure();
  }
  return std::nullopt;
}

std::vector<std::string> Compilation::getStages() {
  std::lock_guard<std::recursive_mutex> lock(mutex);
  std::vector<std::string> names;
  if (computeStages(/*locations=*/false))
    return names;
  for (const auto &[stage, ir] : stages)
    names.push_back(stage);
  return names;
}

std::variant<std::string, Failure> Compilation::getIR(const std::string &stage,
                                                      bool locations) {
  std::lock_guard<std::recursive_mutex> lock(mutex);
  if (stage == "source") {
    std::string text;
    llvm::raw_string_ostream os(text);
    module->print(os, printingFlags(locations));
    return text;
  }
  if (std::optional<Failure> failure = computeStages(locations))
    return *failure;
  std::string known;
  for (const auto &[name, ir] : locations ? stagesWithLocations : stages) {
    if (name == stage)
      return ir;
    known += (known.empty() ? "" : ", ") + name;
  }
  return Failure{Failure::Kind::Input,
                 "no stage '" + stage + "'; the stages are " + known};
}

//===----------------------------------------------------------------------===//
// Running
//===----------------------------------------------------------------------===//

static Failure runtimeFailure(const rt::Error &error) {
  switch (error.getKind()) {
  case rt::ErrorKind::NoDevice:
    return Failure{Failure::Kind::NoDevice, error.message()};
  case rt::ErrorKind::Driver:
    return Failure{Failure::Kind::Driver, error.message()};
  default:
    return Failure{Failure::Kind::Input, error.message()};
  }
}

std::variant<RunResult, Failure>
Compilation::run(std::vector<rt::HostTensor> &buffers,
                 const std::string &backendName, bool check, int warmupRuns,
                 int timedRuns, bool ptxFigures,
                 const std::string &plantedBugs) {
  std::lock_guard<std::recursive_mutex> lock(mutex);
  std::optional<Backend> requested = parseBackend(backendName);
  if (!requested)
    return Failure{Failure::Kind::Input,
                   "backend '" + backendName +
                       "': expected auto, cuda, emulate or interp"};
  if (std::optional<Failure> failure = place())
    return *failure;
  const rt::KernelManifest &manifest = placed->manifest;

  // The runtime's own checks of dtypes, shapes and symbols, before anything
  // runs, naming the parameter.
  rt::SymbolBindings symbols;
  std::vector<const rt::HostTensor *> bound;
  for (const rt::HostTensor &buffer : buffers)
    bound.push_back(&buffer);
  if (rt::Error error = rt::bindArguments(manifest.params, bound, symbols))
    return runtimeFailure(error);

  Backend backend = chooseBackend(*requested);
  RunResult result;
  result.backend = getBackendName(backend).str();
  result.symbols.insert(symbols.begin(), symbols.end());
  std::string code;
  if (backend == Backend::Cuda ||
      (ptxFigures && !findCUDAToolkit(options).empty())) {
    std::variant<std::string, Failure> compiled = getPTX();
    if (auto *failure = std::get_if<Failure>(&compiled))
      return *failure;
    code = std::get<std::string>(compiled);
  }

  // The reference: the tile-level interpreter on the kernel as written.
  std::vector<rt::HostTensor> expected;
  reference::InterpReport marks;
  if (check) {
    expected = buffers;
    std::vector<rt::HostTensor *> args;
    for (rt::HostTensor &tensor : expected)
      args.push_back(&tensor);
    rt::SymbolBindings bound = symbols;
    auto kernel = module->lookupSymbol<KernelOp>(kernelName);
    // Exact where the manifest's floating-point options leave it so.
    reference::InterpOptions interpOptions;
    interpOptions.compiled = manifest.floatOptions;
    interpOptions.elementsPerCTA =
        reference::InterpOptions::kDefaultElementsPerCTA;
    if (failed(reference::interpretKernel(kernel, args, bound, interpOptions,
                                          &marks)))
      return Failure{marks.fault ? Failure::Kind::Fault
                                 : Failure::Kind::Compile,
                     diagnostics->takeErrors()};
  }

  RunRequest request{*module, *placed->placed, kernelName, manifest,
                     code,    symbols};
  request.warmupRuns = warmupRuns;
  request.timedRuns = timedRuns;
  request.plantedBugs = plantedBugs;
  if (backend == Backend::Emulate && plantedBugs.empty()) {
    if (!lowered) {
      FailureOr<OwningOpRef<ModuleOp>> code = lowerForEmulation(
          *placed->placed, options.chip, placed->manifest.indexBits,
          placed->manifest.floatOptions);
      if (failed(code))
        return compileFailure();
      lowered = std::move(*code);
    }
    request.lowered = *lowered;
  }
  std::string runtimeError;
  switch (
      runOnBackend(backend, request, buffers, result.figures, runtimeError)) {
  case RunStatus::Ran:
    break;
  case RunStatus::BadInput:
    return runtimeError.empty() ? compileFailure()
                                : Failure{Failure::Kind::Input, runtimeError};
  case RunStatus::NoBackend:
    return Failure{Failure::Kind::NoDevice, runtimeError};
  case RunStatus::KernelFault:
    return Failure{Failure::Kind::Fault, diagnostics->takeErrors()};
  }
  // ptxas's figures of the variant that ran, from the PTX it ran (asked
  // once per entry).
  if (!code.empty()) {
    auto [cached, added] = ptxasFigures.try_emplace(result.figures.entry);
    if (added)
      cached->second = runPtxas(code, options.chip, result.figures.entry);
    result.ptxas = cached->second;
  }
  result.report = result.figures.report + formatDims(symbols);
  if (result.figures.backend != Backend::Cuda) {
    result.computed = computeResources(manifest, result.ptxas, options.chip);
    result.report += formatComputedTable(manifest, result.figures.entry,
                                         result.ptxas, options.chip);
  }
  result.report +=
      formatCompileReport(code, result.ptxas, *placed, options.chip);
  if (!check)
    return result;

  const std::vector<std::vector<bool>> &written = result.figures.written;
  for (auto [index, param] : llvm::enumerate(manifest.params)) {
    if (!param.isWritten())
      continue;
    RunResult::Check &entry = result.checks.emplace_back();
    const rt::HostTensor &got = buffers[index];
    entry.name = param.name;
    entry.elements = got.numElements();
    entry.shape = got.shape;
    // The arrays hold the caller's values, not poison: an element neither
    // side writes keeps its value on both.
    rt::OutputComparison comparison;
    comparison.got = &got;
    comparison.gotWritten = written.empty() ? nullptr : &written[index];
    comparison.want = &expected[index];
    comparison.wantMarks = &marks.marks[index];
    rt::Expected<std::vector<rt::Mismatch>> mismatches =
        rt::findMismatches(comparison);
    if (!mismatches)
      return runtimeFailure(mismatches.getError());
    if (mismatches->empty()) {
      entry.message = llvm::formatv("{0} matches interp ({1} elements)",
                                    param.name, got.numElements())
                          .str();
    } else {
      entry.mismatch = mismatches->front();
      for (const rt::Mismatch &bad : *mismatches)
        entry.message +=
            (entry.message.empty() ? "" : "\n") +
            rt::formatMismatch(param.name, got, bad, result.backend, "interp");
    }
    result.report += entry.message + "\n";
  }
  return result;
}
