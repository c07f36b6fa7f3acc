//===- EmulateBackend.cpp - tile-run's emulate backend --------------------===//

#include "RunBackends.h"

#include "tile/Conversion/Passes.h"
#include "tile/Emulator/Emulator.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::tile;
namespace rt = ::tile::runtime;

/// The per-thread code the GPU would run: tile-to-gpu, then the same
/// cleanups the PTX pipeline runs before leaving the gpu dialect.
static FailureOr<OwningOpRef<ModuleOp>> lowerForEmulation(ModuleOp placed,
                                                          StringRef chip) {
  OwningOpRef<ModuleOp> lowered = placed.clone();
  PassManager pm(placed.getContext());
  ConvertTileToGPUOptions toGPU;
  toGPU.chip = chip.str();
  pm.addPass(createConvertTileToGPU(toGPU));
  OpPassManager &gpu = pm.nest<gpu::GPUModuleOp>();
  gpu.addPass(createCanonicalizerPass());
  gpu.addPass(createCSEPass());
  if (failed(pm.run(*lowered)))
    return failure();
  return lowered;
}

int mlir::tile::runOnEmulator(const RunRequest &request,
                              std::vector<rt::HostTensor> &buffers,
                              std::vector<std::vector<bool>> &written) {
  FailureOr<OwningOpRef<ModuleOp>> lowered =
      lowerForEmulation(request.placed, request.manifest.chip);
  if (failed(lowered))
    return kBadInput;
  written.assign(buffers.size(), {});
  std::vector<emulator::EmulatedBuffer> emulated;
  for (auto [param, buffer, wrote] :
       llvm::zip(request.manifest.params, buffers, written))
    emulated.push_back({param.name, &buffer, &wrote});
  SmallVector<int64_t> symbols;
  for (const std::string &symbol : request.manifest.symbols)
    symbols.push_back(request.symbols.at(symbol));
  rt::Expected<std::array<int64_t, 3>> grid =
      rt::evaluateGrid(request.manifest, request.symbols);
  if (!grid) {
    request.placed.emitError(grid.getError().message());
    return kBadInput;
  }
  emulator::EmulatorOptions options;
  options.dynamicSharedBytes = request.manifest.sharedBytes;
  emulator::EmulatorReport report;
  if (failed(emulator::emulateKernel(**lowered, request.kernel, emulated,
                                     symbols, *grid, options, report)))
    return report.fault ? kKernelFault : kBadInput;
  llvm::outs() << llvm::formatv(
      "emulate: '{0}' on the CPU, {1} CTA(s) x {2} threads = {3} threads, "
      "{4} ops, in {5:F3} s\n",
      request.kernel, report.ctas, request.manifest.threads, report.threads,
      report.steps, report.seconds);
  return kMatch;
}
