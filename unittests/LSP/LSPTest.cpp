//===- LSPTest.cpp - the language server's positions and options ----------===//

#include "Features.h"
#include "Server.h"

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
