//===- TileToPTX.h - the tile-to-ptx pipeline and kernel manifests -*- C++ -*-//

#ifndef TILE_TARGET_PTX_TILETOPTX_H
#define TILE_TARGET_PTX_TILETOPTX_H

#include "tile/Conversion/TileToGPU/FloatDivision.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/JSON.h"

#include <string>

namespace mlir::tile {

struct TileToPTXOptions {
  std::string chip = "sm_90";
  unsigned optLevel = 3;
  /// Report register promotion and the shared-memory plan as remarks.
  bool remarks = false;
  /// tile-to-gpu's fp-contract (fuse float multiplies and adds into FMAs;
  /// false keeps every op's own IEEE rounding, bit for bit) and fp-div (f32
  /// divisions as div.rn.f32, correctly rounded, or div.full.f32). The
  /// manifest records them: they decide which results the check holds
  /// exact.
  FloatOptions floatOptions;
  /// Compile the div16 variant of each kernel that has one
  /// (tile-specialize-divisibility); false compiles the general kernels
  /// only.
  bool variants = true;
  /// The width of index arithmetic in the GPU code: 32 (tile-to-gpu's
  /// chooseIndexBits may still keep 64; the manifest says which, and the
  /// launch checks the sizes against it) or 64.
  unsigned indexBits = 32;
  /// The CUDA toolkit whose libdevice provides math functions (exp, log,
  /// ...); empty: CUDA_ROOT, CUDA_HOME, CUDA_PATH, then /usr/local/cuda.
  std::string cudaPath;
};

/// The CUDA toolkit `options` name or the environment and the usual places
/// hold (one with nvvm/libdevice), or empty.
std::string findCUDAToolkit(const TileToPTXOptions &options);

/// tile-promote-registers, tile-plan-shared and tile-insert-barriers (with
/// the cleanups between) on every kernel: the tile IR with every placement
/// and barrier decided, which a manifest describes.
void buildTilePlacementPipeline(OpPassManager &pm,
                                const TileToPTXOptions &options);
/// The whole pipeline, placement through tile-to-gpu, the upstream gpu ->
/// nvvm -> llvm conversions and gpu-module-to-binary{format=isa}: leaves a
/// gpu.binary holding the PTX.
void buildTileToPTXPipeline(OpPassManager &pm, const TileToPTXOptions &options);

/// Registers the `tile-to-ptx` pipeline for tile-opt.
void registerTileToPTXPipeline();
/// Registers the `tile-placement` pipeline (buildTilePlacementPipeline) for
/// tile-opt: the IR with every decision made, which `tile-to-gpu` lowers.
void registerTilePlacementPipeline();

/// Turns LLVM's SLP vectorizer off while it lives, unless -vectorize-slp
/// was given. In tile's per-thread code it finds nothing to vectorize (a
/// thread's accesses are strided, and the loads the hardware can merge are
/// merged later by the load/store vectorizer) yet takes time that grows
/// with the cube of a tile's slots, walking the insertelement chains of
/// each vector<K x T>: 124 s for a tile of 256 slots a thread, against
/// 3.7 s without it, for the same PTX. LLVM's options are process-wide, so
/// the previous value comes back when it ends.
class ScopedSLPVectorizerOff {
public:
  ScopedSLPVectorizerOff();
  ~ScopedSLPVectorizerOff();
  ScopedSLPVectorizerOff(const ScopedSLPVectorizerOff &) = delete;
  ScopedSLPVectorizerOff &operator=(const ScopedSLPVectorizerOff &) = delete;

private:
  void *option = nullptr; // the llvm::cl::opt<bool>, when changed
  bool previous = false;
};

/// Compiles every kernel of `module` (tile IR) to one PTX module, with the
/// SLP vectorizer off (ScopedSLPVectorizerOff). Errors go to the context's
/// diagnostic handler. `instrument` may add instrumentation to the pass
/// manager first (the IR after each pass, for the Python package).
FailureOr<std::string>
compileToPTX(ModuleOp module, const TileToPTXOptions &options,
             llvm::function_ref<void(PassManager &)> instrument = {});

/// The manifests (docs/abi.md) of the kernels of `module` after
/// buildTilePlacementPipeline with `options`, one object per kernel.
llvm::json::Array buildManifests(ModuleOp module,
                                 const TileToPTXOptions &options);

/// Registers the tile-translate translations --tile-to-ptx and
/// --tile-to-manifest.
void registerTileTranslations();

} // namespace mlir::tile

#endif // TILE_TARGET_PTX_TILETOPTX_H
