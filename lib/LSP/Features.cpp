//===- Features.cpp - LSP answers from an analysed .tile text -------------===//

#include "Features.h"
#include "tile/Frontend/Language.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tile::lsp;
namespace proto = llvm::lsp;
using Kind = SourceSymbol::Kind;

//===----------------------------------------------------------------------===//
// Positions
//===----------------------------------------------------------------------===//

TextLines::TextLines(llvm::StringRef text) : text(text) {
  starts.push_back(0);
  for (size_t i = 0, e = text.size(); i < e; ++i)
    if (text[i] == '\n')
      starts.push_back(i + 1);
}

unsigned TextLines::lineOf(size_t offset) const {
  return llvm::upper_bound(starts, offset) - starts.begin() - 1;
}

/// UTF-16 code units of the UTF-8 bytes `bytes`: one per lead byte, two
/// for a four-byte sequence.
static int utf16Length(llvm::StringRef bytes) {
  int units = 0;
  for (unsigned char c : bytes)
    units += (c & 0xC0) != 0x80 ? (c >= 0xF0 ? 2 : 1) : 0;
  return units;
}

proto::Position TextLines::toPosition(size_t offset) const {
  offset = std::min(offset, text.size());
  unsigned line = lineOf(offset);
  return proto::Position(line, utf16Length(text.slice(starts[line], offset)));
}

size_t TextLines::toOffset(SourcePos pos) const {
  if (pos.line == 0 || pos.line > starts.size())
    return text.size();
  return std::min(starts[pos.line - 1] + pos.column - 1, text.size());
}

proto::Position TextLines::toPosition(SourcePos pos) const {
  return toPosition(toOffset(pos));
}

size_t TextLines::toOffset(proto::Position pos) const {
  if (pos.line < 0)
    return 0;
  if (static_cast<size_t>(pos.line) >= starts.size())
    return text.size();
  size_t offset = starts[pos.line];
  int units = 0;
  while (offset < text.size() && text[offset] != '\n' &&
         units < pos.character) {
    unsigned char c = text[offset++];
    units += c >= 0xF0 ? 2 : 1;
    while (offset < text.size() && (text[offset] & 0xC0) == 0x80)
      ++offset;
  }
  return offset;
}

size_t TextLines::codeEnd(unsigned line) const {
  size_t start = starts[line];
  llvm::StringRef code = text.slice(
      start, line + 1 < starts.size() ? starts[line + 1] : text.size());
  code = code.take_front(code.find("//")).rtrim();
  return start + code.size();
}

static bool isIdentifierChar(char c) { return llvm::isAlnum(c) || c == '_'; }

/// The range of the token at `offset`: a name or number, else one character.
static proto::Range tokenRange(const AnalyzedText &doc, size_t offset) {
  llvm::StringRef text = doc.text;
  offset = std::min(offset, text.size());
  size_t end = offset;
  while (end < text.size() && isIdentifierChar(text[end]))
    ++end;
  if (end == offset && end < text.size() && text[end] != '\n')
    ++end;
  return {doc.lines.toPosition(offset), doc.lines.toPosition(end)};
}

static proto::Range nameRange(const AnalyzedText &doc, size_t offset,
                              llvm::StringRef name) {
  return {doc.lines.toPosition(offset),
          doc.lines.toPosition(offset + name.size())};
}

std::string mlir::tile::lsp::formatBytes(int64_t bytes) {
  if (bytes < 1024)
    return llvm::formatv("{0} B", bytes);
  if (bytes % 1024 == 0)
    return llvm::formatv("{0} KiB", bytes / 1024);
  return llvm::formatv("{0:f1} KiB", bytes / 1024.0);
}

//===----------------------------------------------------------------------===//
// Diagnostics
//===----------------------------------------------------------------------===//

/// Whether a remark flags a cost worth a hint in the editor.
static bool isCostRemark(llvm::StringRef message) {
  return message.contains("spilled to shared") ||
         message.contains("stays SIMT") || message.contains("stays where") ||
         message.contains("not pipelined") || message.contains("redundant");
}

std::vector<proto::Diagnostic> mlir::tile::lsp::buildDiagnostics(
    const AnalyzedText &doc, const proto::URIForFile &uri, bool remarkHints) {
  std::vector<proto::Diagnostic> diagnostics;
  for (const Finding &finding : doc.analysis.findings) {
    proto::Diagnostic diag;
    switch (finding.severity) {
    case Finding::Severity::Error:
      diag.severity = proto::DiagnosticSeverity::Error;
      break;
    case Finding::Severity::Warning:
      diag.severity = proto::DiagnosticSeverity::Warning;
      break;
    case Finding::Severity::Remark:
      if (!remarkHints || !isCostRemark(finding.message))
        continue;
      diag.severity = proto::DiagnosticSeverity::Hint;
      break;
    case Finding::Severity::Note:
      diag.severity = proto::DiagnosticSeverity::Information;
      break;
    }
    diag.range = tokenRange(doc, doc.lines.toOffset(finding.pos));
    diag.source = "tile";
    diag.message = finding.message;
    if (!finding.notes.empty()) {
      diag.relatedInformation.emplace();
      for (const Finding &note : finding.notes)
        diag.relatedInformation->push_back(proto::DiagnosticRelatedInformation(
            proto::Location(uri, tokenRange(doc, doc.lines.toOffset(note.pos))),
            note.message));
    }
    diagnostics.push_back(std::move(diag));
  }
  if (!doc.analysis.stopped.empty() && !doc.analysis.cancelled) {
    proto::Diagnostic diag;
    diag.severity = proto::DiagnosticSeverity::Information;
    diag.range = tokenRange(doc, 0);
    diag.source = "tile";
    diag.message = "the placement passes stopped at " + doc.analysis.stopped +
                   ": hovers and hints show the front end's view only";
    diagnostics.push_back(std::move(diag));
  }
  return diagnostics;
}

//===----------------------------------------------------------------------===//
// Placement of symbols
//===----------------------------------------------------------------------===//

/// The kernel of the index's kernel `index`'s name, or "".
static llvm::StringRef kernelName(const AnalyzedText &doc, int kernel) {
  const std::optional<SourceIndex> &index = doc.analysis.index;
  if (kernel < 0 || static_cast<size_t>(kernel) >= index->kernels.size())
    return "";
  return index->symbols[index->kernels[kernel]].name;
}

/// The placement of a tile var symbol: a shared var by its position, a
/// promoted one (gone from the IR) by its kernel and name.
static const Placement *findPlacement(const AnalyzedText &doc,
                                      const SourceSymbol &symbol) {
  if (symbol.kind != Kind::Var)
    return nullptr;
  proto::Position at = doc.lines.toPosition(symbol.statement);
  llvm::StringRef kernel = kernelName(doc, symbol.kernel);
  const Placement *byName = nullptr;
  for (const Placement &placement : doc.analysis.placements) {
    if (placement.kernel != kernel || placement.var != symbol.name ||
        !placement.spillOf.empty())
      continue;
    if (placement.pos.line && doc.lines.toPosition(placement.pos) == at)
      return &placement;
    if (!placement.pos.line && !byName)
      byName = &placement;
  }
  return byName;
}

static std::string describePlacement(const Placement &placement) {
  if (placement.inRegisters)
    return llvm::formatv("registers: {0}/thread", placement.perThread);
  std::string text = "shared: " + formatBytes(placement.bytes);
  if (placement.stages)
    text += llvm::formatv(" ({0} stages)", placement.stages);
  return text;
}

/// The lines [first, last) of the kernel `kernel` of the index.
static std::pair<unsigned, unsigned> kernelLines(const AnalyzedText &doc,
                                                 int kernel) {
  const SourceIndex &index = *doc.analysis.index;
  const SourceSymbol &symbol = index.symbols[index.kernels[kernel]];
  unsigned first = doc.lines.lineOf(symbol.statement);
  unsigned last =
      static_cast<size_t>(kernel) + 1 < index.kernels.size()
          ? doc.lines.lineOf(index.symbols[index.kernels[kernel + 1]].statement)
          : ~0u;
  return {first, last};
}

//===----------------------------------------------------------------------===//
// Hover
//===----------------------------------------------------------------------===//

static llvm::StringRef describeKind(Kind kind) {
  switch (kind) {
  case Kind::Kernel:
    return "kernel";
  case Kind::Parameter:
    return "parameter";
  case Kind::Dimension:
    return "symbolic dimension";
  case Kind::Var:
    return "var";
  case Kind::Const:
    return "const";
  case Kind::LoopIndex:
    return "loop index";
  }
  return "";
}

static void hoverSymbol(const AnalyzedText &doc, const SourceSymbol &symbol,
                        llvm::raw_ostream &os) {
  os << "**" << describeKind(symbol.kind) << " `" << symbol.name << "`**";
  if (!symbol.type.empty())
    os << ": `" << symbol.type << "`";
  llvm::StringRef kernel = kernelName(doc, symbol.kernel);
  if (symbol.kind == Kind::Kernel) {
    for (const KernelSummary &summary : doc.analysis.kernels)
      if (summary.name == symbol.name)
        os << "\n\n"
           << summary.threads << " threads, "
           << formatBytes(summary.sharedBytes) << " of shared memory";
    return;
  }
  if (!kernel.empty())
    os << " in kernel `" << kernel << "`";
  const Placement *placement = findPlacement(doc, symbol);
  if (placement) {
    if (placement->inRegisters) {
      os << "\n\nLives in **registers**: " << placement->perThread
         << " elements per thread";
      if (placement->shuffles)
        os << "; " << placement->shuffles << " use(s) folded with shuffles";
    } else {
      os << "\n\nLives in **shared memory**: " << formatBytes(placement->bytes);
      if (placement->offset >= 0)
        os << " at offset " << placement->offset;
      if (placement->stages)
        os << ", a ring of " << placement->stages << " stages";
    }
    std::string layout = placement->layout;
    // A promoted var's layout is its initial value's, on its line.
    unsigned line = doc.lines.lineOf(symbol.statement) + 1;
    for (const PositionNote &note : doc.analysis.layouts)
      if (layout.empty() && note.pos.line == line)
        layout = note.text;
    if (layout.empty() && placement->inRegisters)
      layout = "element e in thread e % threads (the cyclic distribution)";
    if (!layout.empty())
      os << "\n\nLayout: " << layout;
    for (const Placement &spill : doc.analysis.placements) {
      if (spill.kernel != kernel || spill.spillOf != symbol.name)
        continue;
      if (spill.inRegisters) {
        os << "\n\nSpill at line " << spill.pos.line
           << " elided: its uses read the registers";
        continue;
      }
      os << "\n\nSpilled at line " << spill.pos.line << " to a shared tile of "
         << formatBytes(spill.bytes);
      if (spill.offset >= 0)
        os << " at offset " << spill.offset;
    }
  }
  if (symbol.kind != Kind::Var || symbol.kernel < 0)
    return;
  // Why, as the remarks say: those that name it in its kernel.
  auto [first, last] = kernelLines(doc, symbol.kernel);
  std::string quoted = "'" + symbol.name + "'";
  bool any = false;
  for (const Finding &finding : doc.analysis.findings) {
    unsigned line = finding.pos.line - 1;
    if (finding.severity != Finding::Severity::Remark || line < first ||
        line >= last || !llvm::StringRef(finding.message).contains(quoted))
      continue;
    os << (any ? "\n" : "\n\nRemarks:\n") << "- line " << finding.pos.line
       << ": " << finding.message;
    any = true;
  }
}

std::optional<proto::Hover> mlir::tile::lsp::buildHover(const AnalyzedText &doc,
                                                        proto::Position pos) {
  size_t offset = doc.lines.toOffset(pos);
  std::string text;
  llvm::raw_string_ostream os(text);
  const std::optional<SourceIndex> &index = doc.analysis.index;
  std::optional<unsigned> symbol =
      index ? index->symbolAt(offset) : std::nullopt;
  size_t start = offset;
  if (symbol) {
    hoverSymbol(doc, index->symbols[*symbol], os);
    while (start > 0 && isIdentifierChar(doc.text[start - 1]))
      --start;
  } else {
    // A value: the op the front end made at the token under the cursor.
    while (start > 0 && isIdentifierChar(doc.text[start - 1]) &&
           isIdentifierChar(doc.text[offset]))
      --start;
    proto::Position at = doc.lines.toPosition(start);
    auto atToken = [&](const PositionNote &note) {
      return doc.lines.toPosition(note.pos) == at;
    };
    const PositionNote *value = nullptr;
    for (const PositionNote &note : doc.analysis.values)
      if (atToken(note))
        value = &note; // the last op at a place is the expression's own
    std::vector<std::string> parts;
    if (value)
      parts.push_back("value: `" + value->text + "`");
    for (const PositionNote &dot : doc.analysis.dots)
      if (atToken(dot))
        parts.push_back("`dot` on " + dot.text);
    for (const PositionNote &loop : doc.analysis.loops)
      if (atToken(loop))
        parts.push_back(loop.text);
    os << llvm::join(parts, "\n\n");
  }
  if (text.empty())
    return std::nullopt;
  proto::Hover hover(tokenRange(doc, start));
  hover.contents.value = std::move(text);
  return hover;
}

//===----------------------------------------------------------------------===//
// Inlay hints
//===----------------------------------------------------------------------===//

std::vector<proto::InlayHint>
mlir::tile::lsp::buildInlayHints(const AnalyzedText &doc, proto::Range range) {
  std::vector<proto::InlayHint> hints;
  auto add = [&](size_t offset, std::string label) {
    proto::Position pos =
        doc.lines.toPosition(doc.lines.codeEnd(doc.lines.lineOf(offset)));
    if (pos < range.start || range.end < pos)
      return;
    proto::InlayHint hint(proto::InlayHintKind::Type, pos);
    hint.label = std::move(label);
    hint.paddingLeft = true;
    hints.push_back(std::move(hint));
  };
  if (doc.analysis.index)
    for (const SourceSymbol &symbol : doc.analysis.index->symbols)
      if (const Placement *placement = findPlacement(doc, symbol))
        add(symbol.statement, describePlacement(*placement));
  for (const Placement &spill : doc.analysis.placements)
    if (!spill.spillOf.empty() && spill.pos.line && !spill.inRegisters)
      add(doc.lines.toOffset(spill.pos),
          llvm::formatv("spill of {0}: {1}", spill.spillOf,
                        formatBytes(spill.bytes)));
  // `@pipeline: 3 stages`; the hover on `for` says the rest.
  for (const PositionNote &loop : doc.analysis.loops)
    add(doc.lines.toOffset(loop.pos),
        llvm::StringRef(loop.text).split(',').first.str());
  for (const PositionNote &dot : doc.analysis.dots)
    add(doc.lines.toOffset(dot.pos), dot.text);
  llvm::stable_sort(hints,
                    [](const proto::InlayHint &a, const proto::InlayHint &b) {
                      return a.position < b.position;
                    });
  return hints;
}

//===----------------------------------------------------------------------===//
// Definitions, references, symbols
//===----------------------------------------------------------------------===//

/// The symbol declared or used at `pos`, if any.
static std::optional<unsigned> symbolUnder(const AnalyzedText &doc,
                                           proto::Position pos) {
  const std::optional<SourceIndex> &index = doc.analysis.index;
  return index ? index->symbolAt(doc.lines.toOffset(pos)) : std::nullopt;
}

std::vector<proto::Location>
mlir::tile::lsp::findDefinition(const AnalyzedText &doc,
                                const proto::URIForFile &uri,
                                proto::Position pos) {
  std::optional<unsigned> id = symbolUnder(doc, pos);
  if (!id)
    return {};
  const SourceSymbol &symbol = doc.analysis.index->symbols[*id];
  return {proto::Location(uri, nameRange(doc, symbol.offset, symbol.name))};
}

std::vector<proto::Location>
mlir::tile::lsp::findReferences(const AnalyzedText &doc,
                                const proto::URIForFile &uri,
                                proto::Position pos, bool includeDeclaration) {
  std::optional<unsigned> id = symbolUnder(doc, pos);
  if (!id)
    return {};
  const SourceIndex &index = *doc.analysis.index;
  const SourceSymbol &symbol = index.symbols[*id];
  std::vector<proto::Location> locations;
  if (includeDeclaration)
    locations.emplace_back(uri, nameRange(doc, symbol.offset, symbol.name));
  for (const SourceReference &ref : index.references)
    if (ref.symbol == *id)
      locations.emplace_back(uri, nameRange(doc, ref.offset, symbol.name));
  return locations;
}

std::vector<proto::DocumentSymbol>
mlir::tile::lsp::buildDocumentSymbols(const AnalyzedText &doc) {
  std::vector<proto::DocumentSymbol> symbols;
  if (!doc.analysis.index)
    return symbols;
  const SourceIndex &index = *doc.analysis.index;
  std::vector<std::optional<proto::DocumentSymbol>> kernels(
      index.kernels.size());
  for (const SourceSymbol &symbol : index.symbols) {
    proto::Range name = nameRange(doc, symbol.offset, symbol.name);
    // A declaration's range: its statement to the end of its line.
    proto::Range whole(
        std::min(doc.lines.toPosition(symbol.statement), name.start),
        std::max(doc.lines.toPosition(
                     doc.lines.codeEnd(doc.lines.lineOf(symbol.statement))),
                 name.end));
    proto::SymbolKind kind = proto::SymbolKind::Variable;
    if (symbol.kind == Kind::Const)
      kind = proto::SymbolKind::Constant;
    else if (symbol.kind == Kind::Kernel)
      kind = proto::SymbolKind::Function;
    else if (symbol.kind == Kind::Dimension)
      kind = proto::SymbolKind::TypeParameter;
    proto::DocumentSymbol entry(symbol.name, kind, whole, name);
    entry.detail = symbol.type;
    if (const Placement *placement = findPlacement(doc, symbol))
      entry.detail +=
          (entry.detail.empty() ? "" : ", ") + describePlacement(*placement);
    if (symbol.kind == Kind::Kernel) {
      // To the end of the kernel: the last line before the next one.
      auto [first, last] = kernelLines(doc, symbol.kernel);
      size_t end = doc.text.size();
      if (last != ~0u)
        end = doc.lines.toOffset(proto::Position(last, 0));
      entry.range.end = doc.lines.toPosition(
          llvm::StringRef(doc.text).take_front(end).rtrim().size());
      kernels[symbol.kernel].emplace(std::move(entry));
    } else if (symbol.kernel < 0) {
      symbols.push_back(std::move(entry));
    } else {
      kernels[symbol.kernel]->children.push_back(std::move(entry));
    }
  }
  for (std::optional<proto::DocumentSymbol> &kernel : kernels)
    symbols.push_back(std::move(*kernel));
  return symbols;
}

//===----------------------------------------------------------------------===//
// Completion
//===----------------------------------------------------------------------===//

proto::CompletionList mlir::tile::lsp::buildCompletions(const AnalyzedText *doc,
                                                        llvm::StringRef text,
                                                        proto::Position pos) {
  TextLines lines(text);
  size_t offset = lines.toOffset(pos);
  size_t start = offset;
  while (start > 0 &&
         (isIdentifierChar(text[start - 1]) || text[start - 1] == '.'))
    --start;
  llvm::StringRef word = text.slice(start, offset);
  bool afterAt = start > 0 && text[start - 1] == '@';
  bool afterCtx = word.starts_with("ctx.");
  proto::CompletionList list;
  for (const LanguageName &entry : getLanguageNames()) {
    using LK = LanguageName::Kind;
    if ((entry.kind == LK::Attribute) != afterAt ||
        (entry.kind == LK::ContextField) != afterCtx)
      continue;
    proto::CompletionItem item(
        entry.name,
        entry.kind == LK::Attribute      ? proto::CompletionItemKind::Keyword
        : entry.kind == LK::ContextField ? proto::CompletionItemKind::Field
                                         : proto::CompletionItemKind::Function);
    item.detail = entry.signature.str();
    item.documentation =
        proto::MarkupContent{proto::MarkupKind::PlainText, entry.summary.str()};
    list.items.push_back(std::move(item));
  }
  if (afterAt || afterCtx || !doc || !doc->analysis.index)
    return list;
  for (const SourceSymbol &symbol : doc->analysis.index->symbols) {
    proto::CompletionItem item(symbol.name,
                               symbol.kind == Kind::Const
                                   ? proto::CompletionItemKind::Constant
                                   : proto::CompletionItemKind::Variable);
    item.detail = (describeKind(symbol.kind) + " " + symbol.type).str();
    list.items.push_back(std::move(item));
  }
  return list;
}
