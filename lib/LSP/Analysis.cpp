//===- Analysis.cpp - what the compiler says about one .tile text ---------===//
//
// The front end (tile::parseTileSource) and the placement pipeline
// (buildTilePlacementPipeline, with remarks) on a fresh MLIRContext per
// analysis, so that nothing one edit interns outlives it. Every pass runs
// under an action handler that skips the rest once a newer edit arrived or
// the time limit passed: MLIR cannot stop a pass halfway, so a single slow
// pass still runs to its end, but no later one starts.
//
//===----------------------------------------------------------------------===//

#include "Analysis.h"
#include "tile/Dialect/Tile/IR/Layouts.h"
#include "tile/Dialect/Tile/IR/TileDialect.h"
#include "tile/Frontend/Parser.h"
#include "tile/Target/PTX/TileToPTX.h"

#include "mlir/IR/Action.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/SourceMgr.h"

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tile::lsp;
using Clock = std::chrono::steady_clock;

std::string mlir::tile::lsp::spellType(Type type) {
  std::string text;
  llvm::raw_string_ostream os(text);
  auto dims = [&](ArrayRef<int64_t> shape) {
    os << "[";
    llvm::interleaveComma(shape, os);
    os << "]";
  };
  if (auto var = dyn_cast<VarType>(type))
    return spellType(var.getValueType());
  if (auto tile = dyn_cast<RankedTensorType>(type)) {
    os << "tile<" << tile.getElementType() << ">";
    dims(tile.getShape());
  } else if (auto tensor = dyn_cast<GlobalTensorType>(type)) {
    os << "tensor<" << tensor.getElementType() << ">[";
    for (unsigned dim = 0; dim < tensor.getRank(); ++dim) {
      if (dim)
        os << ", ";
      if (tensor.isDynamicDim(dim))
        os << tensor.getSymbolOfDim(dim).getValue();
      else
        os << tensor.getShape()[dim];
    }
    os << "]";
  } else {
    os << type;
  }
  return text;
}

/// Where `loc` is in the file `path`, if it is there.
static std::optional<SourcePos> findPos(Location loc, StringRef path) {
  std::optional<SourcePos> found;
  loc->walk([&](Location inner) {
    auto file = dyn_cast<FileLineColLoc>(inner);
    if (!file || file.getFilename() != path)
      return WalkResult::advance();
    found = SourcePos{file.getLine(), file.getColumn()};
    return WalkResult::interrupt();
  });
  return found;
}

static Finding toFinding(Diagnostic &diag, StringRef path) {
  Finding finding;
  switch (diag.getSeverity()) {
  case DiagnosticSeverity::Error:
    finding.severity = Finding::Severity::Error;
    break;
  case DiagnosticSeverity::Warning:
    finding.severity = Finding::Severity::Warning;
    break;
  case DiagnosticSeverity::Remark:
    finding.severity = Finding::Severity::Remark;
    break;
  case DiagnosticSeverity::Note:
    finding.severity = Finding::Severity::Note;
    break;
  }
  finding.pos = findPos(diag.getLocation(), path).value_or(SourcePos{});
  finding.message = diag.str();
  for (Diagnostic &note : diag.getNotes())
    finding.notes.push_back(toFinding(note, path));
  return finding;
}

/// A layout in words, for hovers.
static std::string describeLayout(Attribute layout) {
  if (auto blocked = dyn_cast<BlockedLayoutAttr>(layout)) {
    if (blocked.getVector() == 1)
      return "element e in thread e % threads (the cyclic distribution)";
    return llvm::formatv("runs of {0} consecutive elements of a row a "
                         "thread, consecutive threads on consecutive runs",
                         blocked.getVector());
  }
  if (auto mma = dyn_cast<MmaLayoutAttr>(layout))
    return llvm::formatv("mma.sync accumulator fragments, warps in a {0}x{1} "
                         "grid over the tile",
                         mma.getWarpsM(), mma.getWarpsN());
  if (isa<RowsLayoutAttr>(layout))
    return "each row's result in every lane that holds the row";
  std::string text;
  llvm::raw_string_ostream(text) << layout;
  return text;
}

static std::string describeDot(DotOp dot) {
  MmaLayoutAttr mma = getMmaLayout(dot);
  if (!mma)
    return "SIMT (no tensor cores)";
  return llvm::formatv("mma.sync m16n8k{0}, warps {1}x{2}", getMmaK(dot),
                       mma.getWarpsM(), mma.getWarpsN());
}

namespace {
/// Collects what the passes decided, by source position.
struct Collector {
  Analysis &result;
  StringRef path;

  SourcePos posOf(Operation *op) const {
    return findPos(op->getLoc(), path).value_or(SourcePos{});
  }

  void collectKernel(KernelOp kernel) {
    int64_t threads = kernel.getThreads();
    auto shared = kernel->getAttrOfType<IntegerAttr>(kSharedBytesAttr);
    result.kernels.push_back({kernel.getSymName().str(), posOf(kernel), threads,
                              shared ? shared.getInt() : 0});
    if (auto promoted = kernel->getAttrOfType<ArrayAttr>(kPromotedAttr))
      for (auto record : promoted.getAsRange<PromotedVarAttr>()) {
        Placement placement;
        placement.kernel = kernel.getSymName().str();
        placement.var = record.getName().str();
        placement.type = spellType(record.getType());
        placement.inRegisters = true;
        placement.perThread = record.getSlots();
        placement.shuffles = record.getShuffles();
        placement.spills = record.getSpills();
        result.placements.push_back(std::move(placement));
      }
    if (auto pipelined = kernel->getAttrOfType<ArrayAttr>(kPipelinedAttr))
      for (auto record : pipelined.getAsRange<PipelinedLoopAttr>()) {
        std::string text = llvm::formatv(
            "@pipeline: {0} stages, {1} load(s) {2} "
            "iteration(s) ahead",
            record.getStages(), record.getLoads(), record.getAhead());
        if (int64_t bytes = record.getSharedBytes())
          text += llvm::formatv(", {0} B of shared rings", bytes);
        if (std::optional<SourcePos> pos = findPos(record.getLoc(), path))
          result.loops.push_back({*pos, std::move(text)});
      }
    kernel.walk([&](Operation *op) {
      if (op->getNumResults() == 1 && hasChosenLayout(op->getResult(0)))
        result.layouts.push_back(
            {posOf(op), describeLayout(getLayout(op->getResult(0)))});
      if (auto var = dyn_cast<VarOp>(op))
        return collectVar(kernel, var);
      if (auto dot = dyn_cast<DotOp>(op))
        result.dots.push_back({posOf(dot), describeDot(dot)});
    });
  }

  void collectVar(KernelOp kernel, VarOp var) {
    if (var.getVarType().isScalar())
      return;
    Placement placement;
    placement.kernel = kernel.getSymName().str();
    placement.var = var.getName().str();
    placement.pos = posOf(var);
    placement.type = spellType(var.getVarType());
    placement.inRegisters = isInRegisters(var);
    if (auto of = var->getAttrOfType<StringAttr>(kSpillOfAttr))
      placement.spillOf = of.str();
    if (LayoutAttrInterface layout = getVarLayout(var); !isCyclicLayout(layout))
      placement.layout = describeLayout(layout);
    if (placement.inRegisters) {
      int64_t threads = std::max<int64_t>(kernel.getThreads(), 1);
      placement.perThread =
          (getNumElements(var.getVarType().getValueType()) + threads - 1) /
          threads;
    } else {
      placement.bytes = getStorageBytes(var);
      if (auto offset = var->getAttrOfType<IntegerAttr>(kOffsetAttr))
        placement.offset = offset.getInt();
      placement.stages = var.getStages().value_or(0);
    }
    result.placements.push_back(std::move(placement));
  }
};
} // namespace

/// Moves `from`'s notes to `to`, their lines shifted by `shift`.
static void shiftInto(std::vector<PositionNote> &to,
                      const std::vector<PositionNote> &from, int shift) {
  for (PositionNote note : from) {
    note.pos.line += shift;
    to.push_back(std::move(note));
  }
}

static void shiftFinding(Finding &finding, int shift) {
  finding.pos.line += shift;
  for (Finding &note : finding.notes)
    shiftFinding(note, shift);
}

/// Adds a cached kernel's results to `result`, at `firstLine`.
static void reuse(const KernelResult &cached, unsigned firstLine,
                  Analysis &result) {
  int shift = static_cast<int>(firstLine) - static_cast<int>(cached.firstLine);
  for (Finding finding : cached.findings) {
    shiftFinding(finding, shift);
    result.findings.push_back(std::move(finding));
  }
  for (Placement placement : cached.placements) {
    if (placement.pos.line)
      placement.pos.line += shift;
    result.placements.push_back(std::move(placement));
  }
  shiftInto(result.loops, cached.loops, shift);
  shiftInto(result.dots, cached.dots, shift);
  shiftInto(result.layouts, cached.layouts, shift);
  for (KernelSummary summary : cached.summary) {
    summary.pos.line += shift;
    result.kernels.push_back(std::move(summary));
  }
}

namespace {
/// A kernel of the text that the passes are to analyse.
struct FreshKernel {
  std::string key;
  /// Its lines, [first, last).
  unsigned first, last;
  KernelOp op;
};
} // namespace

/// Splits the kernels of `module` into those `cache` holds (their results
/// go to `result`, their entries to `next`, the kernels leave the module)
/// and the fresh ones, returned.
static std::vector<FreshKernel>
reuseCachedKernels(StringRef text, ModuleOp module, const std::string &chip,
                   const KernelCache &cache, KernelCache &next,
                   Analysis &result) {
  const SourceIndex &index = *result.index;
  std::vector<size_t> lineStarts{0};
  for (size_t i = 0, e = text.size(); i < e; ++i)
    if (text[i] == '\n')
      lineStarts.push_back(i + 1);
  auto lineOf = [&](size_t offset) -> unsigned {
    return llvm::upper_bound(lineStarts, offset) - lineStarts.begin();
  };
  // What every kernel depends on besides its own text.
  std::string shared = chip + '\n';
  for (const SourceSymbol &symbol : index.symbols)
    if (symbol.kind == SourceSymbol::Kind::Const && symbol.kernel < 0)
      shared += text.substr(symbol.statement).split('\n').first.str() + '\n';
  llvm::StringMap<KernelOp> ops;
  for (KernelOp op : module.getOps<KernelOp>())
    ops[op.getSymName()] = op;
  std::vector<FreshKernel> fresh;
  for (auto [k, id] : llvm::enumerate(index.kernels)) {
    size_t begin = index.symbols[id].statement;
    size_t end = k + 1 < index.kernels.size()
                     ? index.symbols[index.kernels[k + 1]].statement
                     : text.size();
    std::string key = shared + '\0' + text.slice(begin, end).str();
    KernelOp op = ops.lookup(index.symbols[id].name);
    if (!op)
      continue;
    unsigned first = lineOf(begin);
    if (auto it = cache.find(key); it != cache.end()) {
      reuse(it->second, first, result);
      next.insert(*it);
      op.erase();
      ++result.reusedKernels;
      continue;
    }
    fresh.push_back({std::move(key), first, lineOf(end) + 1, op});
  }
  return fresh;
}

Analysis mlir::tile::lsp::analyzeTileSource(StringRef path, StringRef text,
                                            const AnalysisOptions &options,
                                            const DialectRegistry &registry,
                                            llvm::function_ref<bool()> isStale,
                                            KernelCache *cache) {
  Clock::time_point start = Clock::now();
  Analysis result;
  auto finish = [&]() -> Analysis {
    result.milliseconds =
        std::chrono::duration<double, std::milli>(Clock::now() - start).count();
    return std::move(result);
  };
  MLIRContext context(registry, MLIRContext::Threading::DISABLED);
  context.printOpOnDiagnostic(false);
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(llvm::MemoryBuffer::getMemBufferCopy(text, path),
                               llvm::SMLoc());
  ScopedDiagnosticHandler collect(&context, [&](Diagnostic &diag) {
    result.findings.push_back(toFinding(diag, path));
    return success();
  });

  if (failed(parseChip(options.chip))) {
    result.findings.push_back(
        {Finding::Severity::Error,
         SourcePos{},
         llvm::formatv("unknown chip '{0}' in the server's options (tile.toml "
                       "or initializationOptions): sm_{1} to sm_{2}",
                       options.chip, kMinChip, kMaxChip),
         {}});
    return finish();
  }
  OwningOpRef<ModuleOp> module = parseTileSource(sourceMgr, &context);
  {
    // The front end has reported the syntax errors already.
    ScopedDiagnosticHandler quiet(&context,
                                  [](Diagnostic &) { return success(); });
    result.index = indexTileSource(sourceMgr, &context);
  }
  if (!module)
    return finish();
  module->walk([&](Operation *op) {
    if (op->getNumResults() != 1 || isa<VarOp>(op))
      return;
    if (std::optional<SourcePos> pos = findPos(op->getLoc(), path))
      result.values.push_back({*pos, spellType(op->getResult(0).getType())});
  });

  KernelCache next;
  std::vector<FreshKernel> fresh;
  if (cache && result.index)
    fresh =
        reuseCachedKernels(text, *module, options.chip, *cache, next, result);
  size_t findingsBefore = result.findings.size();

  TileToPTXOptions compile;
  compile.chip = options.chip;
  compile.remarks = true;
  compile.variants = false;
  PassManager pm(&context);
  buildTilePlacementPipeline(pm, compile);
  Clock::time_point deadline = start + options.timeLimit;
  context.registerActionHandler([&](llvm::function_ref<void()> transform,
                                    const tracing::Action &action) {
    if (action.getTag() == PassExecutionAction::tag && !result.stopped.empty())
      return;
    if (action.getTag() == PassExecutionAction::tag) {
      if (isStale()) {
        result.cancelled = true;
        result.stopped = "a newer edit";
        return;
      }
      if (Clock::now() > deadline) {
        result.stopped = llvm::formatv("the time limit of {0} ms",
                                       options.timeLimit.count());
        return;
      }
    }
    transform();
  });
  LogicalResult placed = pm.run(*module);
  context.registerActionHandler(nullptr);
  if (result.cancelled)
    return finish();
  if (succeeded(placed) && result.stopped.empty()) {
    Collector collector{result, path};
    for (KernelOp kernel : module->getOps<KernelOp>())
      collector.collectKernel(kernel);
  }
  if (cache && result.index && succeeded(placed) && result.stopped.empty()) {
    // Each fresh kernel's entry: what the passes said within its lines.
    for (FreshKernel &kernel : fresh) {
      Analysis part;
      Collector{part, path}.collectKernel(kernel.op);
      for (size_t i = findingsBefore; i < result.findings.size(); ++i)
        if (result.findings[i].pos.line >= kernel.first &&
            result.findings[i].pos.line < kernel.last)
          part.findings.push_back(result.findings[i]);
      next[kernel.key] = {kernel.first,
                          std::move(part.findings),
                          std::move(part.placements),
                          std::move(part.loops),
                          std::move(part.dots),
                          std::move(part.layouts),
                          std::move(part.kernels)};
    }
    *cache = std::move(next);
  }
  llvm::stable_sort(result.findings, [](const Finding &a, const Finding &b) {
    return std::make_pair(a.pos.line, a.pos.column) <
           std::make_pair(b.pos.line, b.pos.column);
  });
  return finish();
}
