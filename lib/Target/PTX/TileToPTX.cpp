//===- TileToPTX.cpp - the tile-to-ptx pipeline ---------------------------===//

#include "tile/Target/PTX/TileToPTX.h"
#include "tile/Conversion/Passes.h"
#include "tile/Dialect/Tile/IR/TileDialect.h"
#include "tile/Dialect/Tile/Transforms/Passes.h"
#include "tile/Runtime/Manifest.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Pass/PassInstrumentation.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Target/LLVM/NVVM/Utils.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <map>

using namespace mlir;
using namespace mlir::tile;

void mlir::tile::buildTilePlacementPipeline(OpPassManager &pm,
                                            const TileToPTXOptions &options) {
  OpPassManager &kernels = pm.nest<KernelOp>();
  TilePromoteRegistersOptions promote;
  promote.remarks = options.remarks;
  kernels.addPass(createTilePromoteRegisters(promote));
  kernels.addPass(createCanonicalizerPass());
  // Merges repeated loads of one slice and reads of one var (linear, where
  // cse alone is quadratic in the repeats), then the pure ops they feed.
  kernels.addPass(createTileReuseReads());
  kernels.addPass(createCSEPass());
  kernels.addPass(createTileHoistInvariants());
  TilePipelineLoadsOptions pipeline;
  pipeline.remarks = options.remarks;
  pipeline.chip = options.chip;
  kernels.addPass(createTilePipelineLoads(pipeline));
  TileTensorCoresOptions tensorCores;
  tensorCores.chip = options.chip;
  tensorCores.remarks = options.remarks;
  kernels.addPass(createTileTensorCores(tensorCores));
  TilePlanSharedOptions plan;
  plan.report = options.remarks;
  plan.chip = options.chip;
  kernels.addPass(createTilePlanShared(plan));
  TileAssignLayoutsOptions layouts;
  layouts.remarks = options.remarks;
  kernels.addPass(createTileAssignLayouts(layouts));
  TileInsertBarriersOptions barriers;
  barriers.remarks = options.remarks;
  kernels.addPass(createTileInsertBarriers(barriers));
  // After the whole plan, so a variant shares it and differs in its
  // lowering only.
  if (options.variants)
    pm.addPass(createTileSpecializeDivisibility());
}

std::string mlir::tile::findCUDAToolkit(const TileToPTXOptions &options) {
  SmallVector<std::string> candidates;
  if (!options.cudaPath.empty())
    return options.cudaPath;
  candidates.push_back(NVVM::getCUDAToolkitPath().str());
  candidates.push_back("/usr/local/cuda");
  candidates.push_back("/usr/lib/nvidia-cuda-toolkit"); // Debian's package
  for (const std::string &path : candidates) {
    SmallString<128> libdevice(path);
    llvm::sys::path::append(libdevice, "nvvm", "libdevice");
    if (!path.empty() && llvm::sys::fs::is_directory(libdevice))
      return path;
  }
  return {};
}

void mlir::tile::buildTileToPTXPipeline(OpPassManager &pm,
                                        const TileToPTXOptions &options) {
  pm.addPass(createTileVerifyLowered());
  buildTilePlacementPipeline(pm, options);
  ConvertTileToGPUOptions toGPU;
  toGPU.chip = options.chip;
  toGPU.optLevel = options.optLevel;
  toGPU.fpContract = options.floatOptions.contract;
  toGPU.fpDiv = stringifyFloatDivision(options.floatOptions.division).str();
  toGPU.indexBits = options.indexBits;
  pm.addPass(createConvertTileToGPU(toGPU));

  OpPassManager &gpu = pm.nest<gpu::GPUModuleOp>();
  gpu.addPass(createCanonicalizerPass());
  gpu.addPass(createCSEPass());
  // Guarded global loads as branch-free predicated loads (the emulator runs
  // the scf.if form, before this).
  gpu.addPass(createTilePredicatedAccesses());
  gpu.addPass(createSCFToControlFlowPass());
  gpu.addPass(createTileFastMath());
  // Tensor cores: nvgpu.ldmatrix and nvgpu.mma.sync to nvvm (bf16 mma.sync,
  // which the upstream pass does not lower, first).
  gpu.addPass(createTileBF16MmaToNVVM());
  gpu.addPass(createConvertNVGPUToNVVMPass());
  // Index is as wide as the gpu.module's data layout says (tile-to-gpu's
  // index-bits: 32, or 64 by default).
  ConvertGpuOpsToNVVMOpsOptions toNVVM;
  toNVVM.indexBitwidth = 0;
  gpu.addPass(createConvertGpuOpsToNVVMOps(toNVVM));
  // wgmma.mma_async (and the other nvvm ops without an LLVM intrinsic) as
  // the inline PTX they are.
  gpu.addPass(createConvertNVVMToLLVMPass());
  gpu.addPass(createTileExternDynamicShared());
  gpu.addPass(createTilePTXThreadLimit());
  gpu.addPass(createCanonicalizerPass());
  pm.addPass(createConvertVectorToLLVMPass());
  // Vector unrolling of the mma fragments leaves ub.poison behind.
  pm.addPass(createUBToLLVMConversionPass());
  pm.addPass(createFinalizeMemRefToLLVMConversionPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
  pm.addPass(createTileVerifyLowered());
  GpuModuleToBinaryPassOptions toBinary;
  toBinary.compilationTarget = "isa";
  toBinary.toolkitPath = findCUDAToolkit(options);
  pm.addPass(createGpuModuleToBinaryPass(toBinary));
}

namespace {
/// The options of tile-placement: what the placement decisions depend on.
struct PlacementPipelineOptions
    : public PassPipelineOptions<PlacementPipelineOptions> {
  Option<std::string> chip{*this, "chip",
                           llvm::cl::desc("target GPU, sm_70 to sm_100"),
                           llvm::cl::init("sm_90")};
  Option<bool> remarks{*this, "remarks",
                       llvm::cl::desc("report placement decisions"),
                       llvm::cl::init(false)};
  Option<bool> variants{*this, "variants",
                        llvm::cl::desc("also make each kernel's div16 variant"),
                        llvm::cl::init(true)};
};

struct PipelineOptions : public PassPipelineOptions<PipelineOptions> {
  Option<std::string> chip{*this, "chip",
                           llvm::cl::desc("target GPU, sm_70 to sm_100"),
                           llvm::cl::init("sm_90")};
  Option<unsigned> optLevel{*this, "O",
                            llvm::cl::desc("NVPTX optimization level"),
                            llvm::cl::init(3)};
  Option<bool> remarks{*this, "remarks",
                       llvm::cl::desc("report placement decisions"),
                       llvm::cl::init(false)};
  Option<bool> fpContract{
      *this, "fp-contract",
      llvm::cl::desc("fuse float multiplies and adds into FMAs"),
      llvm::cl::init(true)};
  Option<FloatDivision> fpDiv{
      *this, "fp-div",
      llvm::cl::desc("how f32 divisions are compiled: ieee (div.rn.f32, "
                     "correctly rounded) or full (div.full.f32, 2 ulp)"),
      llvm::cl::init(FloatDivision::IEEE),
      llvm::cl::values(
          clEnumValN(FloatDivision::IEEE, "ieee", "div.rn.f32"),
          clEnumValN(FloatDivision::Full, "full", "div.full.f32"))};
  Option<bool> variants{
      *this, "variants",
      llvm::cl::desc("also compile each kernel's div16 variant"),
      llvm::cl::init(true)};
  Option<unsigned> indexBits{
      *this, "index-bits",
      llvm::cl::desc("width of index arithmetic in the GPU code, 32 or 64"),
      llvm::cl::init(32)};
};
} // namespace

void mlir::tile::registerTileToPTXPipeline() {
  PassPipelineRegistration<PipelineOptions>(
      "tile-to-ptx",
      "compile tile kernels to PTX: register promotion, shared-memory "
      "planning, tile-to-gpu, gpu -> nvvm -> llvm, gpu-module-to-binary",
      [](OpPassManager &pm, const PipelineOptions &cli) {
        TileToPTXOptions options;
        options.chip = cli.chip;
        options.optLevel = cli.optLevel;
        options.remarks = cli.remarks;
        options.floatOptions.contract = cli.fpContract;
        options.floatOptions.division = cli.fpDiv;
        options.variants = cli.variants;
        options.indexBits = cli.indexBits;
        buildTileToPTXPipeline(pm, options);
      });
}

void mlir::tile::registerTilePlacementPipeline() {
  PassPipelineRegistration<PlacementPipelineOptions>(
      "tile-placement",
      "decide where every tile lives: register promotion, pipelining, tensor "
      "cores, the shared-memory plan, layouts (in the tile types) and "
      "barriers; prints the IR tile-to-gpu lowers",
      [](OpPassManager &pm, const PlacementPipelineOptions &cli) {
        TileToPTXOptions options;
        options.chip = cli.chip;
        options.remarks = cli.remarks;
        options.variants = cli.variants;
        buildTilePlacementPipeline(pm, options);
      });
}

mlir::tile::ScopedSLPVectorizerOff::ScopedSLPVectorizerOff() {
  auto options = llvm::cl::getRegisteredOptions();
  auto it = options.find("vectorize-slp");
  if (it == options.end() || it->second->getNumOccurrences() != 0)
    return;
  auto *slp = static_cast<llvm::cl::opt<bool> *>(it->second);
  previous = slp->getValue();
  slp->setValue(false);
  option = slp;
}

mlir::tile::ScopedSLPVectorizerOff::~ScopedSLPVectorizerOff() {
  if (option)
    static_cast<llvm::cl::opt<bool> *>(option)->setValue(previous);
}

/// Fails at `module` when the command line gave one of NVPTX's own options
/// that change how float arithmetic rounds: the PTX would then round other
/// than the manifest's fp_contract and fp_div say, and the check, which
/// follows those, would fail a correct kernel (div.approx.f32 held exact)
/// or hold fused adds exact. Each has a tile option that the manifest
/// records.
static LogicalResult rejectUnrecordedFloatOptions(ModuleOp module) {
  static const std::pair<StringRef, StringRef> kOptions[] = {
      {"nvptx-prec-divf32", "--fp-div (ieee or full)"},
      {"nvptx-fma-level", "--fp-contract"}};
  auto registered = llvm::cl::getRegisteredOptions();
  for (auto [name, instead] : kOptions) {
    auto option = registered.find(name);
    if (option != registered.end() && option->second->getNumOccurrences())
      return module.emitError("-")
             << name
             << " changes how the PTX rounds float arithmetic, which the "
                "manifest would not record and the check would not know: use "
             << instead;
  }
  return success();
}

namespace {
/// Records each kernel's CTA size (every gpu.func's known_block_size, the
/// variants' too) once tile-to-gpu has made them: the PTX states it only
/// above 256 threads (tile-ptx-thread-limit), so compileToPTX writes it as
/// `// tile.threads ENTRY N` for launchers to check a manifest against
/// (docs/abi.md).
struct RecordThreads : public PassInstrumentation {
  explicit RecordThreads(std::map<std::string, int64_t> &threads)
      : threads(threads) {}
  void runAfterPass(Pass *pass, Operation *op) override {
    if (pass->getArgument() != "tile-to-gpu")
      return;
    op->walk([&](gpu::GPUFuncOp func) {
      if (std::optional<ArrayRef<int32_t>> block = func.getKnownBlockSize())
        threads[func.getName().str()] =
            int64_t((*block)[0]) * (*block)[1] * (*block)[2];
    });
  }
  std::map<std::string, int64_t> &threads;
};
} // namespace

FailureOr<std::string>
mlir::tile::compileToPTX(ModuleOp module, const TileToPTXOptions &options,
                         llvm::function_ref<void(PassManager &)> instrument) {
  if (failed(rejectUnrecordedFloatOptions(module)))
    return failure();
  ScopedSLPVectorizerOff slpOff;
  PassManager pm(module.getContext());
  buildTileToPTXPipeline(pm, options);
  if (instrument)
    instrument(pm);
  std::map<std::string, int64_t> threads;
  pm.addInstrumentation(std::make_unique<RecordThreads>(threads));
  if (failed(pm.run(module)))
    return failure();
  std::string ptx;
  module.walk([&](gpu::BinaryOp binary) {
    for (Attribute object : binary.getObjects())
      ptx += cast<gpu::ObjectAttr>(object).getObject().getValue().str();
  });
  if (ptx.empty())
    return module.emitError("the module holds no tile kernel to compile");
  // A math function libdevice should have provided is still external.
  size_t external = ptx.find(".extern .func");
  if (external != std::string::npos) {
    size_t name = ptx.find("__nv_", external);
    return module.emitError("the kernel calls ")
           << StringRef(ptx).substr(name).take_until(
                  [](char c) { return c == '(' || c == ' '; })
           << " from CUDA's libdevice, but no CUDA toolkit was found: set "
              "CUDA_HOME to one (it needs nvvm/libdevice)";
  }
  if (ptx.back() != '\n')
    ptx += '\n';
  for (const auto &[entry, count] : threads)
    if (ptx.find(".entry " + entry + "(") != std::string::npos)
      ptx += (Twine(::tile::runtime::kThreadsComment) + " " + entry + " " +
              Twine(count) + "\n")
                 .str();
  return ptx;
}
