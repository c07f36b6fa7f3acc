//===- Manifest.cpp - the JSON manifest of a compiled kernel --------------===//
//
// What a runtime needs to launch a kernel and check its arguments, and what
// the compiler decided about placement (docs/abi.md).
//
//===----------------------------------------------------------------------===//

#include "tile/Runtime/Manifest.h"
#include "tile/Conversion/TileToGPU/TileToGPU.h"
#include "tile/Dialect/Tile/IR/Layouts.h"
#include "tile/Dialect/Tile/IR/SizeExpr.h"
#include "tile/Dialect/Tile/IR/TileDialect.h"
#include "tile/Target/PTX/TileToPTX.h"

#include "mlir/IR/AffineExpr.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::tile;

/// An affine expression over the kernel's symbols in the manifest grammar.
static std::string printGridExpr(AffineExpr expr,
                                 ArrayRef<StringAttr> symbols) {
  if (auto constant = dyn_cast<AffineConstantExpr>(expr))
    return std::to_string(constant.getValue());
  if (auto symbol = dyn_cast<AffineSymbolExpr>(expr))
    return symbols[symbol.getPosition()].str();
  auto binary = cast<AffineBinaryOpExpr>(expr);
  StringRef op;
  switch (expr.getKind()) {
  case AffineExprKind::Add:
    op = "+";
    break;
  case AffineExprKind::Mul:
    op = "*";
    break;
  case AffineExprKind::FloorDiv:
    op = "floordiv";
    break;
  case AffineExprKind::CeilDiv:
    op = "ceildiv";
    break;
  case AffineExprKind::Mod:
    op = "mod";
    break;
  default:
    llvm_unreachable("not a binary affine expression");
  }
  return "(" + printGridExpr(binary.getLHS(), symbols) + " " + op.str() + " " +
         printGridExpr(binary.getRHS(), symbols) + ")";
}

/// Whether `op` writes its tensor under a mask: the elements the mask leaves
/// keep their value, so the tensor's contents before the launch are part of
/// its result, and the parameter is read as well as written.
static bool keepsMaskedElements(Operation *op) {
  return llvm::TypeSwitch<Operation *, bool>(op)
      .Case<StoreOp, ScatterOp, CopyOp>(
          [](auto write) { return static_cast<bool>(write.getMask()); })
      .Default([](Operation *) { return false; });
}

static StringRef getDtype(Type type) {
  if (type.isF32())
    return "f32";
  if (type.isF16())
    return "f16";
  if (type.isBF16())
    return "bf16";
  if (type.isInteger(32))
    return "i32";
  if (type.isIndex())
    return "index";
  return "i1";
}

/// Attributes the passes record decisions in, as JSON.
static llvm::json::Value toJSON(Attribute attr) {
  if (auto dict = dyn_cast<DictionaryAttr>(attr)) {
    llvm::json::Object object;
    for (NamedAttribute entry : dict)
      object[entry.getName().str()] = toJSON(entry.getValue());
    return object;
  }
  if (auto array = dyn_cast<ArrayAttr>(attr)) {
    llvm::json::Array values;
    for (Attribute element : array)
      values.push_back(toJSON(element));
    return values;
  }
  if (auto integer = dyn_cast<IntegerAttr>(attr))
    return integer.getInt();
  // The passes' records, under the keys docs/abi.md names.
  if (auto var = dyn_cast<PromotedVarAttr>(attr))
    return llvm::json::Object{{"name", var.getName().str()},
                              {"type", toJSON(TypeAttr::get(var.getType()))},
                              {"threads", var.getThreads()},
                              {"slots", var.getSlots()},
                              {"shuffles", var.getShuffles()},
                              {"spills", var.getSpills()}};
  if (auto load = dyn_cast<StagedLoadAttr>(attr))
    return llvm::json::Object{{"name", load.getName().str()},
                              {"loc", toJSON(load.getLoc())},
                              {"in", load.getIn().str()},
                              {"bytes", load.getBytes()},
                              {"chunk_bytes", load.getChunkBytes()},
                              {"why", load.getWhy().str()}};
  if (auto loop = dyn_cast<PipelinedLoopAttr>(attr))
    return llvm::json::Object{
        {"loop", loop.getLoop().str()},
        {"loc", toJSON(loop.getLoc())},
        {"loads", loop.getLoads()},
        {"stages", loop.getStages()},
        {"stages_chosen", loop.getStagesChosen().str()},
        {"ahead", loop.getAhead()},
        {"shared_loads", loop.getSharedLoads()},
        {"shared_bytes", loop.getSharedBytes()},
        {"elements_per_thread", loop.getElementsPerThread()},
        {"staged", toJSON(loop.getStaged())}};
  if (auto string = dyn_cast<StringAttr>(attr))
    return string.str();
  if (auto boolean = dyn_cast<BoolAttr>(attr))
    return boolean.getValue();
  if (auto loc = dyn_cast<LocationAttr>(attr)) {
    if (auto file = dyn_cast<FileLineColLoc>(loc))
      return llvm::formatv("{0}:{1}:{2}", file.getFilename(), file.getLine(),
                           file.getColumn())
          .str();
  }
  std::string text;
  llvm::raw_string_ostream os(text);
  attr.print(os);
  return text;
}

/// What a reduction's lowering goes through: "shuffles" (butterflies
/// where the input lives), "shuffles and shared memory" (and its warps'
/// partials through a scratch var), "registers" (each column in one
/// thread), "shared memory" (its input read from a shared var).
static StringRef getReductionMedium(ReductionOpInterface reduction) {
  switch (getReductionStrategy(reduction)) {
  case ReductionStrategy::InWarp:
  case ReductionStrategy::WarpSegmented:
    return reduction.getScratch() ? "shuffles and shared memory" : "shuffles";
  case ReductionStrategy::InThread:
    return "registers";
  case ReductionStrategy::ThroughShared:
    return "shared memory";
  }
  llvm_unreachable("unknown reduction strategy");
}

static llvm::json::Object buildManifest(KernelOp kernel,
                                        const TileToPTXOptions &options,
                                        unsigned indexBits) {
  SmallVector<StringAttr> symbols = kernel.getSymbols();
  SmallVector<StringAttr> gridSymbols = getGridSymbols(kernel);
  llvm::json::Array grid;
  if (std::optional<AffineMap> map = kernel.getGrid())
    for (AffineExpr expr : map->getResults())
      grid.push_back(printGridExpr(expr, gridSymbols));
  while (grid.size() < 3)
    grid.push_back("1");

  llvm::json::Array params;
  for (auto [index, arg] :
       llvm::enumerate(kernel.getBodyBlock().getArguments())) {
    auto type = dyn_cast<GlobalTensorType>(arg.getType());
    if (!type) {
      // A scalar: shape [], passed by value.
      params.push_back(llvm::json::Object{{"name", kernel.getParamName(index)},
                                          {"dtype", getDtype(arg.getType())},
                                          {"shape", llvm::json::Array()},
                                          {"access", "read"}});
      continue;
    }
    llvm::json::Array shape;
    for (unsigned dim = 0; dim < type.getRank(); ++dim) {
      if (type.isDynamicDim(dim))
        shape.push_back(type.getSymbolOfDim(dim).str());
      else
        shape.push_back(type.getShape()[dim]);
    }
    bool reads = false, writes = false;
    for (Operation *user : arg.getUsers()) {
      auto copy = dyn_cast<CopyOp>(user);
      bool accesses = getAccessedTensor(user) == arg;
      bool written =
          (accesses && writesTensor(user)) || (copy && copy.getDest() == arg);
      reads |= (accesses && readsTensor(user)) ||
               (copy && copy.getSource() == arg) ||
               (written && keepsMaskedElements(user));
      writes |= written;
    }
    params.push_back(
        llvm::json::Object{{"name", kernel.getParamName(index)},
                           {"dtype", getDtype(type.getElementType())},
                           {"shape", std::move(shape)},
                           {"access", reads && writes ? "readwrite"
                                      : writes        ? "write"
                                                      : "read"}});
  }

  llvm::json::Array buffers;
  kernel.walk([&](VarOp var) {
    auto offset = var->getAttrOfType<IntegerAttr>(kOffsetAttr);
    if (!isSharedTile(var) || !offset)
      return;
    llvm::json::Object buffer{{"name", var.getName().str()},
                              {"bytes", getStorageBytes(var)},
                              {"offset", offset.getInt()}};
    if (auto live = var->getAttrOfType<StringAttr>(kLiveAttr))
      buffer["live"] = live.str();
    if (auto spill = var->getAttrOfType<StringAttr>(kSpillOfAttr))
      buffer["spill_of"] = spill.str();
    buffers.push_back(std::move(buffer));
  });
  // Every layout the compiler chose (hasChosenLayout), every row
  // reduction's result layout and every conversion, where they are.
  llvm::json::Array layouts, conversions;
  kernel.walk([&](Operation *op) {
    llvm::json::Value where = toJSON(op->getLoc());
    if (auto reduction = dyn_cast<ReductionOpInterface>(op))
      layouts.push_back(llvm::json::Object{
          {"op", op->getName().getStringRef()},
          {"at", std::move(where)},
          {"input", toJSON(getLayout(reduction.getInput()))},
          {"layout", toJSON(getLayout(reduction.getResult()))},
          {"through", getReductionMedium(reduction)}});
    else if (auto convert = dyn_cast<ConvertLayoutOp>(op))
      conversions.push_back(llvm::json::Object{
          {"at", std::move(where)},
          {"from", toJSON(getLayout(convert.getInput()))},
          {"to", toJSON(getLayout(convert.getResult()))},
          {"through",
           stringifyConversionKind(getConversionPlan(convert).kind)}});
    else if (op->getNumResults() == 1 && hasChosenLayout(op->getResult(0)))
      layouts.push_back(
          llvm::json::Object{{"op", op->getName().getStringRef()},
                             {"at", std::move(where)},
                             {"layout", toJSON(getLayout(op->getResult(0)))}});
    else if (auto var = dyn_cast<VarOp>(op);
             var && !isCyclicLayout(getVarLayout(var)))
      layouts.push_back(
          llvm::json::Object{{"op", op->getName().getStringRef()},
                             {"at", std::move(where)},
                             {"layout", toJSON(getVarLayout(var))}});
  });
  auto sharedAttr = kernel->getAttrOfType<IntegerAttr>(kSharedBytesAttr);
  int64_t shared = sharedAttr ? sharedAttr.getInt() : 0;

  llvm::json::Array symbolNames;
  for (StringAttr symbol : symbols)
    symbolNames.push_back(symbol.str());
  // The variants a runtime chooses from, most specialized first, the
  // general kernel last (always there): each with the conditions the
  // launch must meet, its symbols' divisors and its tensors' alignment
  // (the ABI's 16 bytes, which every runtime's allocations have).
  llvm::json::Array variants;
  auto variant = [&](KernelOp of) {
    llvm::json::Object divisors;
    if (auto divisibility =
            of->getAttrOfType<DictionaryAttr>(kDivisibilityAttr))
      for (NamedAttribute entry : divisibility)
        divisors[entry.getName().str()] = toJSON(entry.getValue());
    variants.push_back(
        llvm::json::Object{{"entry", of.getSymName().str()},
                           {"divisible", std::move(divisors)},
                           {"aligned", ::tile::runtime::kTensorAlignment}});
  };
  if (auto module = kernel->getParentOfType<ModuleOp>())
    for (KernelOp other : module.getOps<KernelOp>())
      if (auto general =
              other->getAttrOfType<FlatSymbolRefAttr>(kVariantOfAttr);
          general && general.getAttr() == kernel.getSymNameAttr())
        variant(other);
  variant(kernel);

  // A kernel with a dot on wgmma targets sm_90a (its PTX's .target).
  bool wgmma = usesWgmma(kernel);
  llvm::json::Object manifest{
      {"version", ::tile::runtime::kManifestVersion},
      {"kernel", kernel.getSymName().str()},
      {"entry", kernel.getSymName().str()},
      {"chip", wgmma ? std::string("sm_90a") : options.chip},
      {"threads", kernel.getThreads()},
      {"index_bits", indexBits},
      {"fp_contract", options.floatOptions.contract},
      {"fp_div", stringifyFloatDivision(options.floatOptions.division)},
      {"grid", std::move(grid)},
      {"symbols", std::move(symbolNames)},
      {"params", std::move(params)},
      {"variants", std::move(variants)},
      {"shared_bytes", shared},
      {"dynamic_shared", shared > kMaxStaticSharedBytes},
      {"shared_buffers", std::move(buffers)},
      {"layouts", std::move(layouts)},
      {"conversions", std::move(conversions)},
      {"elided_spills", kernel->hasAttr(kElidedSpillsAttr)
                            ? toJSON(kernel->getAttr(kElidedSpillsAttr))
                            : llvm::json::Array()},
      {"registers", kernel->hasAttr(kPromotedAttr)
                        ? toJSON(kernel->getAttr(kPromotedAttr))
                        : llvm::json::Array()},
      {"pipelined", kernel->hasAttr(kPipelinedAttr)
                        ? toJSON(kernel->getAttr(kPipelinedAttr))
                        : llvm::json::Array()}};
  return manifest;
}

llvm::json::Array mlir::tile::buildManifests(ModuleOp module,
                                             const TileToPTXOptions &options) {
  llvm::json::Array manifests;
  // A variant is in its general kernel's manifest, not one of its own.
  unsigned bits = chooseIndexBits(module, options.indexBits);
  for (KernelOp kernel : module.getOps<KernelOp>())
    if (!kernel->hasAttr(kVariantOfAttr))
      manifests.push_back(buildManifest(kernel, options, bits));
  return manifests;
}
