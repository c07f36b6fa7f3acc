//===- SLPVectorizerTest.cpp - the SLP vectorizer off while tile compiles -===//

#include "tile/Target/PTX/TileToPTX.h"

#include "llvm/Support/CommandLine.h"

#include <gtest/gtest.h>

namespace {

llvm::cl::opt<bool> *slpOption() {
  auto options = llvm::cl::getRegisteredOptions();
  auto it = options.find("vectorize-slp");
  return it == options.end() ? nullptr
                             : static_cast<llvm::cl::opt<bool> *>(it->second);
}

// LLVM's options are process-wide: a compiler that embeds tile gets its own
// setting back when tile's compile ends.
TEST(SLPVectorizer, OffWhileTileCompilesThenRestored) {
  llvm::cl::opt<bool> *slp = slpOption();
  ASSERT_NE(slp, nullptr) << "LLVM has no -vectorize-slp option";
  slp->setValue(true);
  {
    mlir::tile::ScopedSLPVectorizerOff off;
    EXPECT_FALSE(slp->getValue());
    {
      mlir::tile::ScopedSLPVectorizerOff nested;
      EXPECT_FALSE(slp->getValue());
    }
    EXPECT_FALSE(slp->getValue());
  }
  EXPECT_TRUE(slp->getValue());
}

// A -vectorize-slp on the command line is the user's choice and wins.
TEST(SLPVectorizer, CommandLineWins) {
  llvm::cl::opt<bool> *slp = slpOption();
  ASSERT_NE(slp, nullptr);
  const char *argv[] = {"test", "-vectorize-slp=true"};
  ASSERT_TRUE(llvm::cl::ParseCommandLineOptions(2, argv, "", &llvm::errs()));
  {
    mlir::tile::ScopedSLPVectorizerOff off;
    EXPECT_TRUE(slp->getValue());
  }
  EXPECT_TRUE(slp->getValue());
}

} // namespace
