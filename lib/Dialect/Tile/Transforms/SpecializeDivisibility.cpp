//===- SpecializeDivisibility.cpp - div16 variants of kernels -------------===//
//
// Triton's launcher specializes a kernel on the arguments that are
// multiples of 16 when it is first called; tile compiles ahead of time, so
// it compiles that variant beside the general kernel and lets the runtime
// choose at launch (docs/abi.md, `variants`).
//
//===----------------------------------------------------------------------===//

#include "tile/Analysis/Divisibility.h"
#include "tile/Dialect/Tile/IR/TileDialect.h"
#include "tile/Dialect/Tile/Transforms/Passes.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/Support/FormatVariadic.h"

namespace mlir::tile {
#define GEN_PASS_DEF_TILESPECIALIZEDIVISIBILITY
#include "tile/Dialect/Tile/Transforms/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;
using namespace mlir::tile;

namespace {

/// `kernel`'s own divisors, each symbol raised to at least kVariantDivisor.
DictionaryAttr variantDivisibility(KernelOp kernel) {
  Builder builder(kernel.getContext());
  DivisibilityInfo own(kernel);
  SmallVector<NamedAttribute> divisors;
  for (StringAttr symbol : kernel.getSymbols())
    divisors.push_back(builder.getNamedAttr(
        symbol, builder.getI64IntegerAttr(
                    std::max(kVariantDivisor, own.getSymbolDivisor(symbol)))));
  return builder.getDictionaryAttr(divisors);
}

struct TileSpecializeDivisibility
    : public tile::impl::TileSpecializeDivisibilityBase<
          TileSpecializeDivisibility> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SymbolTable symbols(module);
    SmallVector<KernelOp> kernels(module.getOps<KernelOp>());
    DenseSet<StringAttr> specialized;
    for (KernelOp kernel : kernels)
      if (auto general =
              kernel->getAttrOfType<FlatSymbolRefAttr>(kVariantOfAttr))
        specialized.insert(general.getAttr());
    for (KernelOp kernel : kernels) {
      if (kernel->hasAttr(kVariantOfAttr) ||
          specialized.contains(kernel.getSymNameAttr()))
        continue;
      DictionaryAttr divisibility = variantDivisibility(kernel);
      if (divisibility.empty() ||
          divisibility == kernel->getAttr(kDivisibilityAttr) ||
          !divisibilityChangesLowering(kernel, divisibility))
        continue;
      std::string name = (kernel.getSymName() + "_div16").str();
      for (int suffix = 1; symbols.lookup(name); ++suffix)
        name = llvm::formatv("{0}_div16_{1}", kernel.getSymName(), suffix);
      OpBuilder builder(kernel);
      builder.setInsertionPointAfter(kernel);
      auto variant = cast<KernelOp>(builder.clone(*kernel));
      variant.setSymName(name);
      variant->setAttr(kDivisibilityAttr, divisibility);
      variant->setAttr(kVariantOfAttr,
                       FlatSymbolRefAttr::get(kernel.getSymNameAttr()));
      symbols.insert(variant);
    }
  }
};

} // namespace
