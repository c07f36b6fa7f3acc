//===- Features.h - LSP answers from an analysed .tile text -----*- C++ -*-===//
//
// Diagnostics, hovers, inlay hints, definitions, references, document
// symbols and completions, each a function of one analysed text: the server
// answers a request with the analysis of the version the request is about.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_LIB_LSP_FEATURES_H
#define TILE_LIB_LSP_FEATURES_H

#include "Analysis.h"

#include "llvm/Support/LSP/Protocol.h"

namespace mlir::tile::lsp {

/// Byte offsets and LSP positions (lines and UTF-16 code units) of a text.
class TextLines {
public:
  explicit TextLines(llvm::StringRef text);
  llvm::lsp::Position toPosition(size_t offset) const;
  llvm::lsp::Position toPosition(SourcePos pos) const;
  /// The byte offset of `pos`, clamped into the text.
  size_t toOffset(llvm::lsp::Position pos) const;
  size_t toOffset(SourcePos pos) const;
  /// The end of line `line` (0-based)'s code: before a `//` comment and
  /// trailing blanks.
  size_t codeEnd(unsigned line) const;
  unsigned lineOf(size_t offset) const;

private:
  llvm::StringRef text;
  std::vector<size_t> starts;
};

/// One version of a document with its analysis.
struct AnalyzedText {
  AnalyzedText(int64_t version, std::string text, Analysis analysis)
      : version(version), text(std::move(text)), lines(this->text),
        analysis(std::move(analysis)) {}
  AnalyzedText(const AnalyzedText &) = delete;
  AnalyzedText &operator=(const AnalyzedText &) = delete;
  int64_t version;
  std::string text;
  TextLines lines;
  Analysis analysis;
};

/// Errors and warnings as such, notes as related information, and (when
/// `remarkHints`) the remarks that flag a cost (a spill, a dot off tensor
/// cores, a load left unpipelined) as hints.
std::vector<llvm::lsp::Diagnostic>
buildDiagnostics(const AnalyzedText &doc, const llvm::lsp::URIForFile &uri,
                 bool remarkHints);
std::optional<llvm::lsp::Hover> buildHover(const AnalyzedText &doc,
                                           llvm::lsp::Position pos);
std::vector<llvm::lsp::InlayHint> buildInlayHints(const AnalyzedText &doc,
                                                  llvm::lsp::Range range);
std::vector<llvm::lsp::Location>
findDefinition(const AnalyzedText &doc, const llvm::lsp::URIForFile &uri,
               llvm::lsp::Position pos);
std::vector<llvm::lsp::Location>
findReferences(const AnalyzedText &doc, const llvm::lsp::URIForFile &uri,
               llvm::lsp::Position pos, bool includeDeclaration);
std::vector<llvm::lsp::DocumentSymbol>
buildDocumentSymbols(const AnalyzedText &doc);
/// Completions at `pos` of `text` (the document now): `ctx.` fields after
/// `ctx.`, attributes after `@`, else builtins, casts and the names the
/// analysis knows of.
llvm::lsp::CompletionList buildCompletions(const AnalyzedText *doc,
                                           llvm::StringRef text,
                                           llvm::lsp::Position pos);

/// `4096` as `4 KiB`, `96` as `96 B`.
std::string formatBytes(int64_t bytes);

} // namespace mlir::tile::lsp

#endif // TILE_LIB_LSP_FEATURES_H
