//===- Driver.cpp - what the tile tools share -----------------------------===//

#include "tile/Tools/Driver.h"
#include "tile/Dialect/Tile/IR/TileDialect.h"
#include "tile/Frontend/DidYouMean.h"
#include "tile/Frontend/Parser.h"
#include "tile/InitAllTile.h"
#include "tile/Target/PTX/TileToPTX.h"
#include "tile/Version.h"
#include "tile/Tools/BoundedOption.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Tools/mlir-translate/Translation.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/SourceMgr.h"

using namespace mlir;
using namespace mlir::tile;

OwningOpRef<ModuleOp> mlir::tile::parseKernelSource(llvm::SourceMgr &sourceMgr,
                                                    MLIRContext *context) {
  const llvm::MemoryBuffer *buffer =
      sourceMgr.getMemoryBuffer(sourceMgr.getMainFileID());
  if (isTileSource(*buffer))
    return parseTileSource(sourceMgr, context);
  if (failed(rejectParserCrashes(sourceMgr, context)))
    return nullptr;
  return parseSourceFile<ModuleOp>(sourceMgr, context);
}

FailureOr<Operation *> mlir::tile::selectKernel(ModuleOp module, StringRef name,
                                                StringRef file,
                                                StringRef chooseWith) {
  SmallVector<KernelOp> kernels(module.getOps<KernelOp>());
  SmallVector<StringRef> names;
  for (KernelOp kernel : kernels) {
    if (kernel.getSymName() == name)
      return kernel.getOperation();
    names.push_back(kernel.getSymName());
  }
  if (name.empty() && kernels.size() == 1)
    return kernels.front().getOperation();
  // At the file, not at the module's own location (0:0 where it has none).
  InFlightDiagnostic diag =
      mlir::emitError(FileLineColLoc::get(module.getContext(), file, 1, 1));
  if (kernels.empty())
    diag << "the file has no tile.kernel to run";
  else if (name.empty())
    diag << "the file has " << kernels.size() << " kernels ("
         << llvm::join(names, ", ") << "); choose one with " << chooseWith;
  else
    diag << "the file has no kernel named '" << name << "'"
         << formatDidYouMean(name, names);
  return failure();
}

/// Vector types beyond this many elements are refused before MLIR parses
/// them (tile-verify-lowered refuses those beyond 1024 at the op).
constexpr uint64_t kMaxVectorElementsParsed = 1 << 20;

static bool isIdentifierChar(char c) {
  return llvm::isAlnum(c) || c == '_' || c == '$' || c == '.';
}

LogicalResult mlir::tile::rejectParserCrashes(llvm::SourceMgr &sourceMgr,
                                              MLIRContext *context) {
  const llvm::MemoryBuffer *buffer =
      sourceMgr.getMemoryBuffer(sourceMgr.getMainFileID());
  StringRef text = buffer->getBuffer();
  for (size_t i = 0, e = text.size(); i < e; ++i) {
    if (text[i] == '"') { // a string: to its closing quote
      for (++i; i < e && text[i] != '"' && text[i] != '\n'; ++i)
        if (text[i] == '\\')
          ++i;
      continue;
    }
    if (text.substr(i).starts_with("//")) {
      i = std::min(text.find('\n', i), e);
      continue;
    }
    // vector<65536x65536xf16>: MLIR's own verifiers grow a SmallVector
    // past its limit and abort before tile-verify-lowered runs.
    if (text.substr(i).starts_with("vector<") &&
        (i == 0 || !isIdentifierChar(text[i - 1]))) {
      StringRef dims = text.substr(i + 7);
      uint64_t elements = 1;
      bool huge = false;
      while (!dims.empty() && llvm::isDigit(dims.front())) {
        uint64_t size = 0;
        if (dims.consumeInteger(10, size) || !dims.consume_front("x"))
          break;
        huge |= size > kMaxVectorElementsParsed ||
                (elements *= size) > kMaxVectorElementsParsed;
      }
      if (huge) {
        auto [line, column] = sourceMgr.getLineAndColumn(
            llvm::SMLoc::getFromPointer(text.data() + i));
        emitError(FileLineColLoc::get(context, buffer->getBufferIdentifier(),
                                      line, column))
            << "a vector of more than " << kMaxVectorElementsParsed
            << " elements is not supported (the lowering takes 1024)";
        return failure();
      }
    }
    if (!text.substr(i).starts_with("array") ||
        (i > 0 && isIdentifierChar(text[i - 1])))
      continue;
    StringRef rest = text.substr(i + 5).ltrim();
    if (!rest.consume_front("<"))
      continue;
    rest = rest.ltrim();
    if (!rest.consume_front("index") ||
        (!rest.empty() && isIdentifierChar(rest.front())))
      continue;
    auto [line, column] = sourceMgr.getLineAndColumn(
        llvm::SMLoc::getFromPointer(text.data() + i));
    emitError(FileLineColLoc::get(context, buffer->getBufferIdentifier(), line,
                                  column))
        << "a dense array of 'index' is not supported (MLIR's parser "
           "crashes on it): use array<i64: ...>";
    return failure();
  }
  return success();
}

bool mlir::tile::isTileSource(const llvm::MemoryBuffer &buffer) {
  StringRef name = buffer.getBufferIdentifier();
  if (name.ends_with(".tile"))
    return true;
  if (name.ends_with(".mlir"))
    return false;
  // Another name, or stdin: the first token tells. A .tile file starts with
  // an attribute (`@launch`) or `kernel`, which no MLIR module does.
  StringRef text = buffer.getBuffer();
  text.consume_front("\xEF\xBB\xBF");
  while (true) {
    text = text.ltrim();
    if (!text.consume_front("//"))
      break;
    text = text.drop_until([](char c) { return c == '\n'; });
  }
  return text.starts_with("@") ||
         (text.consume_front("kernel") &&
          (text.empty() || !(llvm::isAlnum(text.front()) ||
                             text.front() == '_' || text.front() == '.')));
}

namespace {
/// The options of every tool that compiles kernels, declared once.
struct CompileOptions {
  llvm::cl::opt<std::string> chip{
      "chip", llvm::cl::desc("target GPU, sm_70 to sm_100 (default sm_90)"),
      llvm::cl::init("sm_90")};
  llvm::cl::opt<unsigned, false, BoundedParser<unsigned, 0, 3>> optLevel{
      "opt-level", llvm::cl::desc("NVPTX optimization level (0-3)"),
      llvm::cl::init(3)};
  llvm::cl::opt<std::string> cudaPath{
      "cuda-path",
      llvm::cl::desc("the CUDA toolkit whose libdevice provides math "
                     "functions (default: CUDA_HOME, then /usr/local/cuda)")};
  llvm::cl::opt<bool> remarks{
      "tile-remarks",
      llvm::cl::desc("report register promotion and the shared-memory plan"),
      llvm::cl::init(false)};
  llvm::cl::opt<bool> fpContract{
      "fp-contract",
      llvm::cl::desc("fuse float multiplies and adds into FMAs (default; "
                     "--fp-contract=false rounds every op on its own)"),
      llvm::cl::init(true)};
  llvm::cl::opt<FloatDivision> fpDiv{
      "fp-div",
      llvm::cl::desc("how f32 divisions are compiled (docs/spec.md, "
                     "\"Floating point\")"),
      llvm::cl::init(FloatDivision::IEEE),
      llvm::cl::values(clEnumValN(FloatDivision::IEEE, "ieee",
                                  "div.rn.f32, correctly rounded (default)"),
                       clEnumValN(FloatDivision::Full, "full",
                                  "div.full.f32, at most 2 ulp (Triton's /); "
                                  "the manifest says so and the check "
                                  "counts / as inexact"))};
  llvm::cl::opt<bool> variants{
      "variants",
      llvm::cl::desc("also compile the div16 variant of each kernel whose "
                     "code divisibility by 16 changes, which launches run "
                     "where the sizes allow (default; --variants=false: the "
                     "general kernels only)"),
      llvm::cl::init(true)};
  llvm::cl::opt<unsigned, false, BoundedParser<unsigned, 32, 64, true>>
      indexBits{
          "index-bits",
          llvm::cl::desc("width of index arithmetic in the GPU code: 32 "
                         "(default; launches check that sizes fit) or 64"),
          llvm::cl::init(32)};

  void addCategory(llvm::cl::OptionCategory &category) {
    for (llvm::cl::Option *option : std::initializer_list<llvm::cl::Option *>{
             &chip, &optLevel, &cudaPath, &remarks, &fpContract, &fpDiv,
             &variants, &indexBits})
      option->addCategory(category);
  }

  TileToPTXOptions get() const {
    TileToPTXOptions options;
    options.chip = chip;
    options.optLevel = optLevel;
    options.remarks = remarks;
    options.cudaPath = cudaPath;
    options.floatOptions = {fpContract, fpDiv};
    options.variants = variants;
    options.indexBits = indexBits;
    return options;
  }
};
} // namespace

static CompileOptions &getCompileOptionFlags() {
  static CompileOptions options;
  return options;
}

void mlir::tile::registerCompileOptions(llvm::cl::OptionCategory *category) {
  CompileOptions &options = getCompileOptionFlags();
  if (category)
    options.addCategory(*category);
}

TileToPTXOptions mlir::tile::getCompileOptions() {
  return getCompileOptionFlags().get();
}

StringRef mlir::tile::getTileVersion() { return TILE_VERSION; }

void mlir::tile::setUpToolCommandLine(
    StringRef tool, ArrayRef<llvm::cl::OptionCategory *> categories,
    function_ref<bool(const llvm::cl::Option &)> alsoShown) {
  static std::string name;
  name = tool.str();
  llvm::cl::SetVersionPrinter([](llvm::raw_ostream &os) {
    os << name << " (tile " << getTileVersion() << ")\n";
    os << "  built with LLVM " << LLVM_VERSION_STRING << "\n";
  });
  for (auto &[optionName, option] : llvm::cl::getRegisteredOptions()) {
    bool shown = llvm::any_of(option->Categories, [&](auto *category) {
      return llvm::is_contained(categories, category) ||
             category->getName() == "Generic Options"; // --help, --version
    });
    shown |= alsoShown && alsoShown(*option);
    if (!shown && option->getOptionHiddenFlag() == llvm::cl::NotHidden)
      option->setHiddenFlag(llvm::cl::Hidden);
  }
}

/// A translation from a kernel source (.tile or .mlir): `translate` gets
/// the parsed module in a context that holds what compiling needs (raw
/// translations get a bare one).
static TranslateFunction fromKernelSource(
    std::function<LogicalResult(ModuleOp, llvm::raw_ostream &)> translate) {
  return [translate](const std::shared_ptr<llvm::SourceMgr> &sourceMgr,
                     llvm::raw_ostream &output,
                     MLIRContext *context) -> LogicalResult {
    DialectRegistry registry;
    registerAllTileDialects(registry);
    context->appendDialectRegistry(registry);
    context->loadAllAvailableDialects();
    OwningOpRef<ModuleOp> module = parseKernelSource(*sourceMgr, context);
    if (!module)
      return failure();
    // Diagnostics point into the source, as tile-run's do: a warning of the
    // pipeline is not followed by a dump of the generic op.
    context->printOpOnDiagnostic(false);
    return translate(*module, output);
  };
}

void mlir::tile::registerCompileTranslations() {
  registerCompileOptions();
  static TranslateRegistration toPTX(
      "tile-to-ptx", "compile tile kernels (.tile or .mlir) to PTX text",
      fromKernelSource([](ModuleOp module, llvm::raw_ostream &output) {
        FailureOr<std::string> ptx = compileToPTX(module, getCompileOptions());
        if (failed(ptx))
          return failure();
        output << *ptx;
        return success();
      }));
  static TranslateRegistration toManifest(
      "tile-to-manifest",
      "the JSON manifests (docs/abi.md) of tile kernels (.tile or .mlir)",
      fromKernelSource([](ModuleOp module, llvm::raw_ostream &output) {
        TileToPTXOptions options = getCompileOptions();
        PassManager pm(module.getContext());
        buildTilePlacementPipeline(pm, options);
        if (failed(pm.run(module)))
          return failure();
        output << llvm::formatv("{0:2}", llvm::json::Value(
                                             buildManifests(module, options)))
               << "\n";
        return success();
      }));
}
