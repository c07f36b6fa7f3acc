//===- TileToGPU.cpp - tile kernels to gpu.func kernels -------------------===//

#include "tile/Conversion/TileToGPU/TileToGPU.h"
#include "KernelLowering.h"
#include "tile/Conversion/Passes.h"
#include "tile/Conversion/TileToGPU/Signature.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/DLTI/DLTI.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/BuiltinOps.h"

namespace mlir::tile {
#define GEN_PASS_DEF_CONVERTTILETOGPU
#include "tile/Conversion/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;
using namespace mlir::tile;

std::string mlir::tile::getPTXFeatures(int chip) {
  // The oldest PTX ISA that knows the chip (sm_90: PTX 7.8), raised to one
  // that every supported chip's ptxas and driver accept.
  return chip >= 100 ? "+ptx86" : "+ptx80";
}

int mlir::tile::getTargetChip(gpu::GPUModuleOp module) {
  if (ArrayAttr targets = module.getTargetsAttr())
    for (Attribute target : targets)
      if (auto nvvm = dyn_cast<NVVM::NVVMTargetAttr>(target))
        if (FailureOr<int> chip = parseChip(nvvm.getChip()); succeeded(chip))
          return *chip;
  return 0;
}

static gpu::GPUModuleOp getOrCreateGPUModule(ModuleOp module, StringRef chip,
                                             unsigned optLevel) {
  if (auto existing = module.lookupSymbol<gpu::GPUModuleOp>(kGPUModuleName))
    return existing;
  OpBuilder builder = OpBuilder::atBlockEnd(module.getBody());
  MLIRContext *context = module.getContext();
  auto target =
      NVVM::NVVMTargetAttr::get(context, optLevel, "nvptx64-nvidia-cuda", chip,
                                getPTXFeatures(*parseChip(chip)));
  module->setAttr(gpu::GPUDialect::getContainerModuleAttrName(),
                  UnitAttr::get(context));
  return gpu::GPUModuleOp::create(builder, module.getLoc(), kGPUModuleName,
                                  builder.getArrayAttr({target}));
}

/// Lets LLVM fuse the float multiplies, adds and subtracts of `func`
/// (fastmath `contract`): NVPTX then emits fma.rn for a multiply feeding an
/// add.
static void allowContraction(gpu::GPUFuncOp func) {
  func.walk([](arith::ArithFastMathInterface op) {
    if (!isa<arith::AddFOp, arith::SubFOp, arith::MulFOp>(op))
      return;
    arith::FastMathFlags flags = arith::FastMathFlags::contract;
    if (arith::FastMathFlagsAttr given = op.getFastMathFlagsAttr())
      flags = flags | given.getValue();
    op->setAttr(op.getFastMathAttrName(),
                arith::FastMathFlagsAttr::get(op->getContext(), flags));
  });
}

/// Marks every f32 division of `func` (scalar or vector) fastmath `afn`,
/// the approximation tile-fast-math lowers to div.full.f32.
static void allowApproximateDivision(gpu::GPUFuncOp func) {
  func.walk([](arith::DivFOp op) {
    if (!getElementTypeOrSelf(op.getType()).isF32())
      return;
    op.setFastmathAttr(arith::FastMathFlagsAttr::get(
        op.getContext(), op.getFastmath() | arith::FastMathFlags::afn));
  });
}

/// The bytes of kernel parameters the PTX of `gpuModule` may take: 4352
/// before PTX ISA 8.1, 32764 from it (its target's features, "+ptx80").
static int64_t getParamSpaceLimit(gpu::GPUModuleOp gpuModule) {
  int version = 0;
  if (ArrayAttr targets = gpuModule.getTargetsAttr())
    for (Attribute target : targets)
      if (auto nvvm = dyn_cast<NVVM::NVVMTargetAttr>(target))
        if (StringRef features = nvvm.getFeatures();
            features.consume_front("+ptx"))
          features.getAsInteger(10, version);
  return version >= 81 ? 32764 : 4352;
}

/// Fails unless the parameters `params` (laid out as PTX lays out .param
/// space: each aligned to its size) fit in the PTX's parameter space, which
/// ptxas would reject ("uses too much parameter space").
static LogicalResult checkParamSpace(KernelOp kernel, ArrayRef<Type> params,
                                     gpu::GPUModuleOp gpuModule) {
  int64_t bytes = 0;
  for (Type type : params) {
    int64_t size = isa<LLVM::LLVMPointerType>(type)
                       ? 8
                       : std::max<int64_t>(1, type.getIntOrFloatBitWidth() / 8);
    bytes = llvm::alignTo(bytes, size) + size;
  }
  int64_t limit = getParamSpaceLimit(gpuModule);
  if (bytes <= limit)
    return success();
  return kernel.emitError("kernel '")
         << kernel.getSymName() << "' takes " << params.size()
         << " parameters (its tensors, scalars and symbols), " << bytes
         << " bytes, over the " << limit
         << " bytes of parameters its PTX allows a kernel";
}

LogicalResult mlir::tile::lowerKernelToGPU(KernelOp kernel,
                                           gpu::GPUModuleOp gpuModule,
                                           bool fpContract,
                                           FloatDivision fpDiv) {
  // Barriers are tile.barrier ops, placed by tile-insert-barriers.
  if (!kernel->hasAttr(kSynchronizedAttr))
    return kernel.emitError("kernel '")
           << kernel.getSymName()
           << "' has no barrier plan: run tile-insert-barriers before "
              "tile-to-gpu";
  MLIRContext *context = kernel.getContext();
  OpBuilder builder = OpBuilder::atBlockEnd(gpuModule.getBody());
  // The ABI (docs/abi.md): per parameter a global pointer (a tensor) or
  // its value (a scalar; index as i64), then one i64 per symbol.
  SmallVector<Type> params;
  for (Type type : kernel.getArgumentTypes())
    params.push_back(isa<GlobalTensorType>(type)
                         ? Type(LLVM::LLVMPointerType::get(context, 1))
                     : type.isIndex() ? Type(builder.getI64Type())
                                      : type);
  params.append(kernel.getSymbols().size(), builder.getI64Type());
  if (failed(checkParamSpace(kernel, params, gpuModule)))
    return failure();
  // Up to 48 KiB of shared memory is a static array; above, the dynamic
  // shared memory the launch opts in to.
  SmallVector<Type> workgroup;
  auto sharedBytes = kernel->getAttrOfType<IntegerAttr>(kSharedBytesAttr);
  if (sharedBytes && sharedBytes.getInt() > 0 &&
      sharedBytes.getInt() <= kMaxStaticSharedBytes)
    workgroup.push_back(MemRefType::get(
        {sharedBytes.getInt()}, builder.getI8Type(),
        MemRefLayoutAttrInterface{},
        gpu::AddressSpaceAttr::get(context, gpu::AddressSpace::Workgroup)));
  auto func =
      gpu::GPUFuncOp::create(builder, kernel.getLoc(), kernel.getSymName(),
                             builder.getFunctionType(params, {}), workgroup);
  func->setAttr(gpu::GPUDialect::getKernelFuncAttrName(),
                builder.getUnitAttr());
  // wgmma's swizzled operands are laid out from 1024-byte boundaries
  // (tile.swizzle); the dynamic shared memory's, ExternDynamicShared.
  if (!workgroup.empty() && usesWgmma(kernel))
    func.setWorkgroupAttributionAttr(0, LLVM::LLVMDialect::getAlignAttrName(),
                                     builder.getI64IntegerAttr(1024));
  func.setKnownBlockSizeAttr(builder.getDenseI32ArrayAttr(
      {static_cast<int32_t>(kernel.getThreads()), 1, 1}));
  SmallVector<Attribute> signature;
  for (Type type : kernel.getArgumentTypes())
    signature.push_back(TypeAttr::get(type));
  func->setAttr(kSignatureAttrName, builder.getArrayAttr(signature));
  // gpu.func::create makes an entry block ending in no terminator.
  if (failed(KernelLowering(kernel, func).run())) {
    func.erase();
    return failure();
  }
  if (fpContract)
    allowContraction(func);
  if (fpDiv == FloatDivision::Full)
    allowApproximateDivision(func);
  return success();
}

/// Whether `kernel` needs 64-bit index arithmetic: it names a number that
/// 32 bits cannot hold, or it runs a dot on tensor cores, whose nvgpu ops
/// convert-nvgpu-to-nvvm lowers with a 64-bit index whatever the data
/// layout says.
static bool needsWideIndex(KernelOp kernel) {
  bool tensorCores = kernel
                         .walk([](DotOp dot) {
                           return getMmaLayout(dot) ? WalkResult::interrupt()
                                                    : WalkResult::advance();
                         })
                         .wasInterrupted();
  if (tensorCores)
    return true;
  for (Type type : kernel.getArgumentTypes()) {
    auto tensor = dyn_cast<GlobalTensorType>(type);
    if (!tensor)
      continue;
    // The static sizes alone (the launch checks the whole count).
    int64_t elements = 1;
    for (int64_t size : tensor.getShape())
      if (!ShapedType::isDynamic(size) &&
          (size > kMaxIndex32 || (elements *= size) > kMaxIndex32))
        return true;
  }
  return kernel
      .walk([](arith::ConstantOp constant) {
        auto value = dyn_cast<IntegerAttr>(constant.getValue());
        if (!value || !value.getType().isIndex())
          return WalkResult::advance();
        int64_t number = value.getInt();
        return number < -kMaxIndex32 - 1 || number > kMaxIndex32
                   ? WalkResult::interrupt()
                   : WalkResult::advance();
      })
      .wasInterrupted();
}

unsigned mlir::tile::chooseIndexBits(ModuleOp module, unsigned requested) {
  if (requested != 32)
    return 64;
  for (KernelOp kernel : module.getOps<KernelOp>())
    if (needsWideIndex(kernel))
      return 64;
  return 32;
}

namespace {
struct ConvertTileToGPU
    : mlir::tile::impl::ConvertTileToGPUBase<ConvertTileToGPU> {
  using ConvertTileToGPUBase::ConvertTileToGPUBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (failed(parseChip(chip))) {
      module.emitError("unsupported chip '")
          << chip << "': expected sm_" << kMinChip << " to sm_" << kMaxChip;
      return signalPassFailure();
    }
    SmallVector<KernelOp> kernels(module.getOps<KernelOp>());
    if (kernels.empty())
      return;
    if (indexBits != 32 && indexBits != 64) {
      module.emitError("index-bits must be 32 or 64, not ")
          << indexBits.getValue();
      return signalPassFailure();
    }
    std::optional<FloatDivision> division = parseFloatDivision(fpDiv);
    if (!division) {
      module.emitError("fp-div must be 'ieee' or 'full', not '")
          << fpDiv.getValue() << "'";
      return signalPassFailure();
    }
    unsigned bits = chooseIndexBits(module, indexBits);
    // wgmma is sm_90a's: a module that uses it targets that.
    bool wgmma = llvm::any_of(kernels, usesWgmma);
    gpu::GPUModuleOp gpuModule = getOrCreateGPUModule(
        module, wgmma ? std::string("sm_90a") : chip.getValue(), optLevel);
    if (bits == 32) {
      // convert-gpu-to-nvvm and the later conversions read index's width
      // from the data layout; so does the emulator.
      MLIRContext *context = module.getContext();
      gpuModule->setAttr(
          DLTIDialect::kDataLayoutAttrName,
          DataLayoutSpecAttr::get(
              context,
              {DataLayoutEntryAttr::get(
                  IndexType::get(context),
                  IntegerAttr::get(IntegerType::get(context, 64), bits))}));
    }
    for (KernelOp kernel : kernels) {
      if (failed(lowerKernelToGPU(kernel, gpuModule, fpContract, *division)))
        return signalPassFailure();
      kernel.erase();
    }
  }
};
} // namespace
