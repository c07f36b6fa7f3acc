//===- LanguageTest.cpp - the one list of the language's names -----------===//

#include "tile/Frontend/Language.h"
#include "tile/Frontend/KernelBuilder.h"
#include "tile/Frontend/SourceIndex.h"

#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/SourceMgr.h"

#include "gtest/gtest.h"

#include <set>

using namespace mlir;
using namespace mlir::tile;

// The functions of the list are the builtins the emitter implements, no
// more and no fewer: a builtin added to the front end needs its signature
// here (for completion), and the list names nothing the front end lacks.
TEST(LanguageTest, FunctionsAreTheEmittersBuiltins) {
  std::set<std::string> listed, emitted;
  for (const LanguageName &entry : getLanguageNames())
    if (entry.kind == LanguageName::Kind::Function)
      listed.insert(entry.name.str());
  for (const std::string &name : KernelBuilder::getBuiltinNames())
    emitted.insert(name);
  EXPECT_EQ(listed, emitted);
}

TEST(LanguageTest, Lookup) {
  const LanguageName *dot =
      lookupLanguageName(LanguageName::Kind::Function, "dot");
  ASSERT_NE(dot, nullptr);
  EXPECT_EQ(dot->signature, "dot(a, b, precision = P)");
  EXPECT_TRUE(isLanguageName(LanguageName::Kind::Attribute, "registers"));
  EXPECT_FALSE(isLanguageName(LanguageName::Kind::Attribute, "dot"));
  EXPECT_TRUE(isLanguageName(LanguageName::Kind::ContextField, "block.x"));
  EXPECT_TRUE(isLanguageName(LanguageName::Kind::Statement, "barrier"));
  EXPECT_TRUE(isLanguageName(LanguageName::Kind::StageAccessor, "front"));
}

static std::optional<SourceIndex>
index(MLIRContext &context, llvm::SourceMgr &sourceMgr, llvm::StringRef text) {
  sourceMgr.AddNewSourceBuffer(llvm::MemoryBuffer::getMemBufferCopy(text, "t"),
                               llvm::SMLoc());
  return indexTileSource(sourceMgr, &context);
}

// Scopes: sibling blocks reuse a name; attributes see the whole kernel;
// a var's initial value is read before the var exists.
TEST(SourceIndexTest, ResolvesByScope) {
  MLIRContext context;
  llvm::SourceMgr sourceMgr;
  llvm::StringRef text = "const C = 4\n"
                         "@launch(32)\n"
                         "@registers(t)\n"
                         "kernel k(X: tensor<f32>[N]) {\n"
                         "  var t: tile<f32>[32] = 0.0\n"
                         "  for i in range(0, N, 32) {\n"
                         "    var y = X[i :+ 32]\n"
                         "    t += y * C\n"
                         "  }\n"
                         "  for i in range(0, 32, 32) {\n"
                         "    var y = t\n"
                         "  }\n"
                         "}\n";
  std::optional<SourceIndex> result = index(context, sourceMgr, text);
  ASSERT_TRUE(result);
  auto symbolAt = [&](llvm::StringRef needle, size_t occurrence) {
    size_t at = 0;
    for (size_t i = 0; i <= occurrence; ++i)
      at = text.find(needle, i ? at + 1 : 0);
    std::optional<unsigned> id = result->symbolAt(at);
    return id ? result->symbols[*id].offset : ~size_t(0);
  };
  // `t` in @registers and in `t += ...` are the var of line 5.
  size_t t = text.find("t: tile");
  EXPECT_EQ(symbolAt("t)", 0), t);
  EXPECT_EQ(symbolAt("t +=", 0), t);
  // The two `y`s are distinct; `C` is the file's const; N the dimension.
  EXPECT_NE(symbolAt("y", 0), symbolAt("y", 2));
  EXPECT_EQ(symbolAt("C\n", 0), text.find("C ="));
  EXPECT_EQ(symbolAt("N, 32", 0), text.find("N]"));
  EXPECT_EQ(result->kernels.size(), 1u);
}

TEST(SourceIndexTest, SyntaxErrorGivesNothing) {
  MLIRContext context;
  context.getDiagEngine().registerHandler(
      [](Diagnostic &) { return success(); });
  llvm::SourceMgr sourceMgr;
  EXPECT_FALSE(index(context, sourceMgr, "kernel k( {"));
}
