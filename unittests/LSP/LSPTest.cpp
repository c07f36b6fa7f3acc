//===- LSPTest.cpp - the language server's positions and options ----------===//

#include "Features.h"
#include "Server.h"
#include "tile/InitAllTile.h"

#include "mlir/IR/DialectRegistry.h"

#include "gtest/gtest.h"

using namespace mlir::tile::lsp;

// LSP columns count UTF-16 code units: 'é' is one (two bytes), '😀' two
// (four bytes).
TEST(TextLinesTest, Utf16Columns) {
  std::string text = "ab\n\xC3\xA9x\xF0\x9F\x98\x80y\n";
  TextLines lines(text);
  llvm::lsp::Position y = lines.toPosition(text.find('y'));
  EXPECT_EQ(y.line, 1);
  EXPECT_EQ(y.character, 4);
  EXPECT_EQ(lines.toOffset(y), text.find('y'));
  EXPECT_EQ(lines.toOffset(llvm::lsp::Position(1, 1)), text.find('x'));
  // Past the end of a line or of the text: clamped.
  EXPECT_EQ(lines.toOffset(llvm::lsp::Position(0, 99)), 2u);
  EXPECT_EQ(lines.toOffset(llvm::lsp::Position(99, 0)), text.size());
}

TEST(TextLinesTest, CodeEndSkipsComments) {
  std::string text = "var x = 1   // one\n";
  EXPECT_EQ(TextLines(text).codeEnd(0), 9u);
}

TEST(TileTomlTest, KnownKeysAndErrors) {
  ServerOptions options;
  std::vector<std::string> errors =
      applyTileToml("tile.toml",
                    "# the project's chip\n[lsp]\nchip = \"sm_80\"\n"
                    "time_limit_ms = 500 # ms\nremark_hints = false\n"
                    "debounce_ms = 10\nflavour = \"x\"\nchip = sm_75\n",
                    options);
  EXPECT_EQ(options.analysis.chip, "sm_80");
  EXPECT_EQ(options.analysis.timeLimit.count(), 500);
  EXPECT_FALSE(options.remarkHints);
  ASSERT_EQ(errors.size(), 3u);
  EXPECT_EQ(errors[0].rfind("tile.toml:6: debounce_ms", 0), 0u);
  EXPECT_EQ(errors[1].rfind("tile.toml:7: unknown option 'flavour'", 0), 0u);
  EXPECT_EQ(errors[2].rfind("tile.toml:8: expected key = ", 0), 0u);
}

TEST(FormatTest, Bytes) {
  EXPECT_EQ(formatBytes(96), "96 B");
  EXPECT_EQ(formatBytes(4096), "4 KiB");
  EXPECT_EQ(formatBytes(2560), "2.5 KiB");
}

// Kernels an edit leaves alone reuse their results, at their new lines: the
// analysis with the cache says what a fresh one says.
TEST(AnalysisTest, KernelCacheReusesUnchangedKernels) {
  mlir::DialectRegistry registry;
  mlir::tile::registerAllTileDialects(registry);
  std::string squares =
      "@launch(256)\n@registers(acc)\n"
      "kernel KNAME(X: tensor<f32>[16, 64], O: tensor<f32>[16, 64]) {\n"
      "  var acc: tile<f32>[16, 64] = 0.0\n"
      "  acc += X[0 :+ 16, 0 :+ 64]\n"
      "  O[0 :+ 16, 0 :+ 64] = acc\n}\n";
  auto kernel = [&](llvm::StringRef name) {
    std::string text = squares;
    text.replace(text.find("KNAME"), 5, name.str());
    return text;
  };
  auto summary = [](const Analysis &analysis) {
    std::vector<std::string> lines;
    for (const Finding &finding : analysis.findings)
      lines.push_back(std::to_string(finding.pos.line) + ":" +
                      std::to_string(finding.pos.column) + " " +
                      finding.message);
    for (const Placement &placement : analysis.placements)
      lines.push_back(placement.kernel + "." + placement.var + " " +
                      std::to_string(placement.pos.line) + " " +
                      std::to_string(placement.perThread));
    for (const PositionNote &layout : analysis.layouts)
      lines.push_back(std::to_string(layout.pos.line) + " " + layout.text);
    std::sort(lines.begin(), lines.end());
    return lines;
  };
  AnalysisOptions options;
  auto never = [] { return false; };
  KernelCache cache;
  std::string before = kernel("a") + kernel("b");
  Analysis first =
      analyzeTileSource("k.tile", before, options, registry, never, &cache);
  EXPECT_EQ(first.reusedKernels, 0u);
  EXPECT_EQ(cache.size(), 2u);
  // A line above both, and a change to b: a is reused, two lines down.
  std::string after = "// one\n// two\n" + kernel("a") + kernel("b");
  after.replace(after.rfind("0.0"), 3, "1.0");
  Analysis cached =
      analyzeTileSource("k.tile", after, options, registry, never, &cache);
  Analysis fresh = analyzeTileSource("k.tile", after, options, registry, never);
  EXPECT_EQ(cached.reusedKernels, 1u);
  EXPECT_FALSE(cached.findings.empty());
  EXPECT_EQ(summary(cached), summary(fresh));
  EXPECT_EQ(cache.size(), 2u);
}
