//===- Run.cpp - compile, run and report a tile kernel --------------------===//

#include "tile/Tools/Run.h"

#include "tile/Conversion/Passes.h"
#include "tile/Dialect/Tile/IR/ChipLimits.h"
#include "tile/Dialect/Tile/IR/TileDialect.h"
#include "tile/Reference/Interpreter.h"
#include "tile/Runtime/Report.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/Regex.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>

using namespace mlir;
using namespace mlir::tile;
namespace rt = ::tile::runtime;

StringRef mlir::tile::getBackendName(Backend backend) {
  switch (backend) {
  case Backend::Auto:
    return "auto";
  case Backend::Cuda:
    return "cuda";
  case Backend::Emulate:
    return "emulate";
  case Backend::Interp:
    return "interp";
  }
  llvm_unreachable("unknown backend");
}

std::optional<Backend> mlir::tile::parseBackend(StringRef name) {
  return llvm::StringSwitch<std::optional<Backend>>(name)
      .Case("auto", Backend::Auto)
      .Case("cuda", Backend::Cuda)
      .Case("emulate", Backend::Emulate)
      .Case("interp", Backend::Interp)
      .Default(std::nullopt);
}

Backend mlir::tile::chooseBackend(Backend requested) {
  if (requested != Backend::Auto)
    return requested;
  return rt::probeCudaDevice() ? Backend::Cuda : Backend::Emulate;
}

FailureOr<PlacedKernel>
mlir::tile::placeKernel(ModuleOp module, StringRef name,
                        const TileToPTXOptions &options) {
  OwningOpRef<ModuleOp> placed = module.clone();
  PassManager pm(module.getContext());
  buildTilePlacementPipeline(pm, options);
  if (failed(pm.run(*placed)))
    return failure();
  for (llvm::json::Value &manifest : buildManifests(*placed, options)) {
    if (manifest.getAsObject()->getString("kernel") != name)
      continue;
    std::string json = llvm::formatv("{0:2}", manifest).str();
    rt::Expected<rt::KernelManifest> parsed = rt::parseManifest(json);
    if (!parsed)
      return module.emitError("internal error: the compiler's manifest does "
                              "not parse: ")
             << parsed.getError().message();
    return PlacedKernel{std::move(placed), std::move(json), std::move(*parsed)};
  }
  return module.emitError("internal error: no manifest for '") << name << "'";
}

//===----------------------------------------------------------------------===//
// The compile-side report
//===----------------------------------------------------------------------===//

PtxasFigures mlir::tile::runPtxas(const std::string &ptx, StringRef chip,
                                  StringRef entry) {
  PtxasFigures figures;
  llvm::ErrorOr<std::string> ptxas =
      llvm::sys::findProgramByName("ptxas", {"/usr/local/cuda/bin"});
  if (!ptxas)
    ptxas = llvm::sys::findProgramByName("ptxas");
  if (!ptxas)
    return figures;
  figures.status = PtxasFigures::Status::Rejected;
  SmallString<128> input, log;
  if (llvm::sys::fs::createTemporaryFile("tile-run", "ptx", input) ||
      llvm::sys::fs::createTemporaryFile("tile-run", "log", log))
    return figures;
  {
    std::error_code error;
    llvm::raw_fd_ostream out(input, error);
    out << ptx;
  }
  // A kernel on wgmma targets the chip's architecture-specific variant
  // (`.target sm_90a`), which ptxas must be asked for.
  std::string arch = ("-arch=" + chip).str();
  if (size_t target = ptx.find(".target " + chip.str() + "a");
      target != std::string::npos)
    arch += "a";
  StringRef args[] = {*ptxas, "-v", arch, input, "-o", "/dev/null"};
  std::optional<StringRef> redirects[] = {std::nullopt, StringRef(log),
                                          StringRef(log)};
  int status = llvm::sys::ExecuteAndWait(*ptxas, args, std::nullopt, redirects);
  auto text = llvm::MemoryBuffer::getFile(log);
  llvm::sys::fs::remove(input);
  llvm::sys::fs::remove(log);
  if (status != 0 || !text)
    return figures;
  // The entry's .maxntid, between its name and its body.
  StringRef code = ptx;
  size_t at = code.find((".entry " + entry + "(").str());
  if (at != StringRef::npos) {
    StringRef directives = code.drop_front(at);
    directives = directives.take_front(directives.find('{'));
    SmallVector<StringRef> match;
    if (llvm::Regex("\\.maxntid[ \t]+([0-9]+)").match(directives, &match))
      match[1].getAsInteger(10, figures.maxThreads);
  }
  // ptxas reports each entry of the module in turn: `entry`'s section,
  // from its "Compiling entry function" line to the next.
  StringRef report = (*text)->getBuffer();
  constexpr StringLiteral kEntryLine = "Compiling entry function '";
  size_t start = report.find((kEntryLine + entry + "'").str());
  if (start != StringRef::npos) {
    report = report.drop_front(start + kEntryLine.size());
    report = report.take_front(report.find(kEntryLine));
  }
  auto find = [&](StringRef pattern) {
    SmallVector<StringRef> match;
    int value = 0;
    if (llvm::Regex(pattern).match(report, &match))
      match[1].getAsInteger(10, value);
    return value;
  };
  figures.status = PtxasFigures::Status::Ok;
  figures.registers = find("Used ([0-9]+) registers");
  figures.spillStoreBytes = find("([0-9]+) bytes spill stores");
  figures.spillLoadBytes = find("([0-9]+) bytes spill loads");
  figures.stackBytes = find("([0-9]+) bytes stack frame");
  figures.sharedBytes = find("([0-9]+) bytes smem");
  return figures;
}

std::string mlir::tile::getVariantEntry(const rt::KernelManifest &manifest,
                                        const rt::SymbolBindings &symbols) {
  rt::Expected<const rt::Variant *> variant =
      rt::chooseVariant(manifest, symbols);
  return variant ? (*variant)->entry : manifest.entry;
}

std::optional<ComputedResources>
mlir::tile::computeResources(const rt::KernelManifest &manifest,
                             const PtxasFigures &ptxas, StringRef chip) {
  FailureOr<int> chipNumber = parseChip(chip);
  if (ptxas.status != PtxasFigures::Status::Ok || failed(chipNumber))
    return std::nullopt;
  // What the launch asks for: ptxas's static shared memory, or the plan's
  // dynamic bytes.
  int64_t shared =
      manifest.dynamicShared ? manifest.sharedBytes : ptxas.sharedBytes;
  Occupancy occupancy = computeOccupancy(
      *chipNumber, manifest.threads, ptxas.registers, shared, ptxas.maxThreads);
  ComputedResources computed;
  rt::KernelResources &resources = computed.resources;
  resources.registers = ptxas.registers;
  resources.localBytes = ptxas.stackBytes;
  resources.staticSharedBytes = ptxas.sharedBytes;
  resources.maxThreadsPerBlock = occupancy.maxThreadsPerCTA;
  resources.blocksPerMultiprocessor = occupancy.blocksPerSM;
  resources.occupancyPercent = occupancy.percent;
  switch (occupancy.limit) {
  case Occupancy::Limit::Warps:
    computed.limitedBy = "warps per SM";
    break;
  case Occupancy::Limit::Blocks:
    computed.limitedBy = "CTAs per SM";
    break;
  case Occupancy::Limit::Registers:
    computed.limitedBy = "registers";
    break;
  case Occupancy::Limit::SharedMemory:
    computed.limitedBy = "shared memory";
    break;
  }
  return computed;
}

std::string mlir::tile::formatComputedTable(const rt::KernelManifest &manifest,
                                            StringRef entry,
                                            const PtxasFigures &ptxas,
                                            StringRef chip) {
  std::optional<ComputedResources> computed =
      computeResources(manifest, ptxas, chip);
  if (!computed)
    return "";
  return "\n" + rt::formatResourceTable(entry.str(), computed->resources, "-") +
         llvm::formatv("(computed, no GPU: regs and local B from ptxas; "
                       "maxTPB, blk/SM and occ % by the CUDA occupancy "
                       "calculator's rules for {0} at {1} threads a CTA, "
                       "limited by {2}; no time)\n",
                       chip, manifest.threads, computed->limitedBy)
             .str();
}

std::string mlir::tile::formatDims(const rt::SymbolBindings &symbols,
                                   ArrayRef<std::string> defaulted) {
  if (symbols.empty())
    return "";
  std::string text = "dims:";
  for (const auto &[symbol, value] : symbols)
    text += (text.size() > 5 ? ", " : " ") + symbol + "=" +
            std::to_string(value) +
            (llvm::is_contained(defaulted, symbol) ? " (default)" : "");
  return text + "\n";
}

std::string mlir::tile::formatCompileReport(const std::string &ptx,
                                            const PtxasFigures &ptxas,
                                            const PlacedKernel &kernel,
                                            StringRef chip) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << "\ncompile: ";
  if (ptx.empty())
    os << "no PTX figures (--ptx-figures=false, or no CUDA toolkit found: "
          "set CUDA_HOME)";
  else if (ptxas.status == PtxasFigures::Status::NoPtxas)
    os << "ptxas not found";
  else if (ptxas.status == PtxasFigures::Status::Rejected)
    os << "ptxas rejected the PTX";
  else
    os << llvm::formatv("ptxas -arch={0}: {1} registers, {2} B spill stores, "
                        "{3} B spill loads, {4} B stack, {5} B shared",
                        chip, ptxas.registers, ptxas.spillStoreBytes,
                        ptxas.spillLoadBytes, ptxas.stackBytes,
                        ptxas.sharedBytes);
  // ptxas counts static shared memory; the launch adds the dynamic.
  if (!ptx.empty() && ptxas.status == PtxasFigures::Status::Ok &&
      kernel.manifest.dynamicShared)
    os << " (+ " << kernel.manifest.sharedBytes << " B dynamic)";
  os << "\n";
  llvm::Expected<llvm::json::Value> json =
      llvm::json::parse(kernel.manifestJSON);
  if (!json) {
    llvm::consumeError(json.takeError());
    return text;
  }
  const llvm::json::Object *object = json->getAsObject();
  // The register-promotion contract's counts come first, then what the
  // code does where a later decision changed it: a spill store elided, a
  // reduction done where the tile lives (after promotion: a reduction
  // promotion spilled may still run through shuffles).
  const llvm::json::Array *elided = object->getArray("elided_spills");
  if (const llvm::json::Array *registers = object->getArray("registers")) {
    for (const llvm::json::Value &var : *registers) {
      const llvm::json::Object *entry = var.getAsObject();
      StringRef name = entry->getString("name").value_or("?");
      int64_t spills = entry->getInteger("spills").value_or(0);
      os << llvm::formatv("registers: '{0}' {1} elements per thread; the "
                          "register-promotion contract: {2} spill(s), {3} "
                          "reduction(s) it folds into shuffles",
                          name, entry->getInteger("slots").value_or(0), spills,
                          entry->getInteger("shuffles").value_or(0));
      auto named = [&](const llvm::json::Array *list, auto nameOf) {
        return list && llvm::any_of(*list, [&](const llvm::json::Value &item) {
                 return nameOf(item) == name;
               });
      };
      bool elidedStore = named(elided, [](const llvm::json::Value &spill) {
        return spill.getAsString();
      });
      bool sharedTile =
          named(object->getArray("shared_buffers"),
                [](const llvm::json::Value &buffer) {
                  return buffer.getAsObject()->getString("spill_of");
                });
      if (spills > 0 && sharedTile)
        os << "; spilled to shared tile '" << name << "'"
           << (elidedStore ? " (another of its spill stores is elided)" : "");
      else if (spills > 0 && elidedStore)
        os << "; the spill's store is elided (no use reads another thread's "
              "elements: no shared tile, no stores)";
      else if (spills > 0)
        os << "; the spill takes no shared memory";
      os << "\n";
    }
  }
  if (const llvm::json::Array *layouts = object->getArray("layouts")) {
    for (const llvm::json::Value &layout : *layouts) {
      const llvm::json::Object *entry = layout.getAsObject();
      std::optional<StringRef> through = entry->getString("through");
      if (!through)
        continue; // not a reduction
      os << llvm::formatv("reduction: {0} at {1} through {2} (placed after "
                          "promotion, where the tile lives), result layout "
                          "{3}\n",
                          entry->getString("op").value_or("?"),
                          entry->getString("at").value_or("?"), *through,
                          entry->getString("layout").value_or("?"));
    }
  }
  if (const llvm::json::Array *loops = object->getArray("pipelined")) {
    for (const llvm::json::Value &loop : *loops) {
      const llvm::json::Object *entry = loop.getAsObject();
      os << llvm::formatv(
          "pipelined: loop '{0}' ({1}): {2} load(s) issued {3} iteration(s) "
          "ahead ({4} stages): {5} through shared stages ({6} B, cp.async), "
          "{7} more elements per thread in registers\n",
          entry->getString("loop").value_or("?"),
          entry->getString("loc").value_or("?"),
          entry->getInteger("loads").value_or(0),
          entry->getInteger("ahead").value_or(0),
          entry->getInteger("stages").value_or(0),
          entry->getInteger("shared_loads").value_or(0),
          entry->getInteger("shared_bytes").value_or(0),
          entry->getInteger("elements_per_thread").value_or(0));
      if (std::optional<StringRef> chosen = entry->getString("stages_chosen"))
        os << "  stages: " << *chosen << "\n";
      if (const llvm::json::Array *loads = entry->getArray("staged"))
        for (const llvm::json::Value &load : *loads) {
          const llvm::json::Object *staged = load.getAsObject();
          int64_t chunk = staged->getInteger("chunk_bytes").value_or(0);
          os << llvm::formatv(
              "  '{0}' ({1}): in {2}, {3} B{4}: {5}\n",
              staged->getString("name").value_or("?"),
              staged->getString("loc").value_or("?"),
              staged->getString("in").value_or("?"),
              staged->getInteger("bytes").value_or(0),
              chunk ? llvm::formatv(", cp.async of {0} B", chunk).str()
                    : std::string(),
              staged->getString("why").value_or("?"));
        }
    }
  }
  if (const llvm::json::Array *buffers = object->getArray("shared_buffers")) {
    os << "shared: " << kernel.manifest.sharedBytes << " B in "
       << buffers->size() << " buffer(s)\n";
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
  return text;
}

//===----------------------------------------------------------------------===//
// Backends
//===----------------------------------------------------------------------===//

static std::vector<rt::HostTensor *>
pointersTo(std::vector<rt::HostTensor> &buffers) {
  std::vector<rt::HostTensor *> pointers;
  for (rt::HostTensor &buffer : buffers)
    pointers.push_back(&buffer);
  return pointers;
}

FailureOr<OwningOpRef<ModuleOp>> mlir::tile::lowerForEmulation(
    ModuleOp placed, StringRef chip, unsigned indexBits,
    const rt::FloatOptions &floatOptions, StringRef plantedBugs) {
  OwningOpRef<ModuleOp> lowered = placed.clone();
  PassManager pm(placed.getContext());
  ConvertTileToGPUOptions toGPU;
  toGPU.chip = chip.str();
  toGPU.indexBits = indexBits;
  toGPU.fpContract = floatOptions.contract;
  toGPU.fpDiv = rt::floatDivisionName(floatOptions.division);
  pm.addPass(createConvertTileToGPU(toGPU));
  OpPassManager &gpu = pm.nest<gpu::GPUModuleOp>();
  gpu.addPass(createCanonicalizerPass());
  gpu.addPass(createCSEPass());
  if (failed(pm.run(*lowered)))
    return failure();
  if (!plantedBugs.empty()) {
    PassManager bugs(placed.getContext());
    if (failed(parsePassPipeline(plantedBugs, bugs)) ||
        failed(bugs.run(*lowered)))
      return placed.emitError("cannot plant bugs with '") << plantedBugs << "'";
  }
  return lowered;
}

static RunStatus runOnCuda(const RunRequest &request,
                           std::vector<rt::HostTensor> &buffers,
                           RunFigures &figures, std::string &error) {
  rt::LaunchOptions options;
  options.warmupRuns = request.warmupRuns;
  options.timedRuns = request.timedRuns;
  rt::Expected<rt::LaunchReport> launch =
      rt::launchKernel(request.manifest, request.ptx, pointersTo(buffers),
                       request.symbols, options);
  if (!launch) {
    error = launch.getError().message();
    return launch.getError().getKind() == rt::ErrorKind::Input
               ? RunStatus::BadInput
               : RunStatus::NoBackend;
  }
  figures.report =
      rt::formatLaunchReport(request.manifest, *launch, request.timedRuns);
  figures.entry = launch->variant.entry;
  figures.seconds = launch->medianMs / 1000;
  figures.launch = std::move(*launch);
  return RunStatus::Ran;
}

static RunStatus runOnEmulator(const RunRequest &request,
                               std::vector<rt::HostTensor> &buffers,
                               RunFigures &figures) {
  OwningOpRef<ModuleOp> ownLowered;
  ModuleOp lowered = request.lowered;
  if (!lowered) {
    FailureOr<OwningOpRef<ModuleOp>> result = lowerForEmulation(
        request.placed, request.manifest.chip, request.manifest.indexBits,
        request.manifest.floatOptions, request.plantedBugs);
    if (failed(result))
      return RunStatus::BadInput;
    ownLowered = std::move(*result);
    lowered = *ownLowered;
  }
  figures.written.assign(buffers.size(), {});
  std::vector<emulator::EmulatedBuffer> emulated;
  for (auto [param, buffer, wrote] :
       llvm::zip(request.manifest.params, buffers, figures.written))
    emulated.push_back({param.name, &buffer, &wrote});
  SmallVector<int64_t> symbols;
  for (const std::string &symbol : request.manifest.symbols)
    symbols.push_back(request.symbols.at(symbol));
  std::vector<const rt::HostTensor *> arguments(buffers.size());
  for (auto [argument, buffer] : llvm::zip(arguments, buffers))
    argument = &buffer;
  rt::Expected<std::array<int64_t, 3>> grid =
      rt::evaluateGrid(request.manifest, request.symbols, arguments);
  // A launch's errors point at the kernel, or at the parameter at fault.
  auto kernel = request.placed.lookupSymbol<KernelOp>(request.kernel);
  auto launchError = [&](const rt::Error &error,
                         size_t param = SIZE_MAX) -> RunStatus {
    Location loc = !kernel ? request.placed.getLoc()
                   : param < kernel.getNumArguments()
                       ? kernel.getArgument(param).getLoc()
                       : kernel.getLoc();
    emitError(loc, error.message());
    return RunStatus::BadInput;
  };
  if (!grid)
    return launchError(grid.getError());
  // The emulator runs the GPU's code, so it checks what the GPU's launch
  // does (launchKernel).
  size_t badParam = SIZE_MAX;
  if (rt::Error error = rt::checkIndexRange(request.manifest, request.symbols,
                                            arguments, &badParam))
    return launchError(error, badParam);
  // The variant a launch with these sizes would run, as on the GPU.
  rt::Expected<const rt::Variant *> variant =
      rt::chooseVariant(request.manifest, request.symbols);
  if (!variant)
    return launchError(variant.getError());
  emulator::EmulatorOptions options;
  options.dynamicSharedBytes = request.manifest.sharedBytes;
  options.countBankConflicts = request.countBankConflicts;
  emulator::EmulatorReport report;
  if (failed(emulator::emulateKernel(lowered, (*variant)->entry, emulated,
                                     symbols, *grid, options, report)))
    return report.fault ? RunStatus::KernelFault : RunStatus::BadInput;
  figures.report = llvm::formatv(
      "emulate: '{0}' on the CPU, {1} CTA(s) x {2} threads = {3} threads, "
      "{4} ops, in {5:F3} s\nvariant: {6}, of {7}\n",
      request.kernel, report.ctas, request.manifest.threads, report.threads,
      report.steps, report.seconds, rt::describeVariant(**variant),
      request.manifest.variants.size());
  if (request.countBankConflicts)
    figures.report += emulator::describeBankConflicts(report);
  figures.seconds = report.seconds;
  figures.emulation = report;
  figures.entry = (*variant)->entry;
  return RunStatus::Ran;
}

static RunStatus runOnInterp(const RunRequest &request,
                             std::vector<rt::HostTensor> &buffers,
                             RunFigures &figures) {
  auto start = std::chrono::steady_clock::now();
  rt::SymbolBindings symbols = request.symbols;
  auto kernel = request.source.lookupSymbol<KernelOp>(request.kernel);
  reference::InterpReport report;
  reference::InterpOptions options;
  options.elementsPerCTA = reference::InterpOptions::kDefaultElementsPerCTA;
  if (failed(reference::interpretKernel(kernel, pointersTo(buffers), symbols,
                                        options, &report)))
    return report.fault ? RunStatus::KernelFault : RunStatus::BadInput;
  for (const std::vector<rt::ElementMark> &marks : report.marks) {
    figures.written.emplace_back(marks.size());
    for (auto [wrote, mark] : llvm::zip(figures.written.back(), marks))
      wrote = mark.isWritten();
  }
  std::chrono::duration<double> seconds =
      std::chrono::steady_clock::now() - start;
  figures.seconds = seconds.count();
  figures.entry = getVariantEntry(request.manifest, request.symbols);
  figures.report = llvm::formatv("interp: '{0}' on the tile-level reference "
                                 "interpreter in {1:F3} s\n",
                                 request.kernel, seconds.count());
  return RunStatus::Ran;
}

RunStatus mlir::tile::runOnBackend(Backend backend, const RunRequest &request,
                                   std::vector<rt::HostTensor> &buffers,
                                   RunFigures &figures, std::string &error) {
  figures = RunFigures();
  figures.backend = chooseBackend(backend);
  switch (figures.backend) {
  case Backend::Cuda:
    return runOnCuda(request, buffers, figures, error);
  case Backend::Emulate:
    return runOnEmulator(request, buffers, figures);
  case Backend::Interp:
  case Backend::Auto:
    return runOnInterp(request, buffers, figures);
  }
  llvm_unreachable("unknown backend");
}
