//===- PassRegistration.cpp - register every tile dialect and pass --------===//

#include "tile/Dialect/Tile/IR/TileDialect.h"
#include "tile/Dialect/Tile/Transforms/Passes.h"
#include "tile/InitAllTile.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Transforms/Passes.h"

void mlir::tile::registerAllTileDialects(DialectRegistry &registry) {
  registry.insert<TileDialect, arith::ArithDialect, math::MathDialect,
                  scf::SCFDialect, func::FuncDialect, gpu::GPUDialect,
                  NVVM::NVVMDialect, LLVM::LLVMDialect, memref::MemRefDialect,
                  vector::VectorDialect>();
}

void mlir::tile::registerAllTilePasses() {
  registerTilePasses();
  // The generic cleanups tile pipelines are checked with.
  mlir::registerCanonicalizerPass();
  mlir::registerCSEPass();
  mlir::registerSymbolDCEPass();
}
