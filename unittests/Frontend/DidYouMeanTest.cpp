//===- DidYouMeanTest.cpp - suggestions for misspelled names --------------===//

#include "tile/Frontend/DidYouMean.h"

#include "gtest/gtest.h"

using namespace mlir::tile;

namespace {

TEST(DidYouMeanTest, SuggestsTheClosestName) {
  EXPECT_EQ(formatDidYouMean("accum", {"acc", "x", "kt"}),
            "; did you mean 'acc'?");
  EXPECT_EQ(formatDidYouMean("rowsun", {"rowmax", "rowsum"}),
            "; did you mean 'rowsum'?");
  // The nearest wins over the first.
  EXPECT_EQ(formatDidYouMean("totl", {"xtotal", "total"}),
            "; did you mean 'total'?");
  // Ties go to the first.
  EXPECT_EQ(suggestName("ab", {"ac", "ad"}), llvm::StringRef("ac"));
}

TEST(DidYouMeanTest, NothingFarOrTrivial) {
  // No letter in common, or more than a third of the letters wrong.
  EXPECT_EQ(formatDidYouMean("y", {"x", "O"}), "");
  EXPECT_EQ(formatDidYouMean("softmax", {"exp", "max", "rowmax"}), "");
  // A shortening needs three letters: `k` is no `kt`'s shortening, but one
  // letter off a two-letter name is.
  EXPECT_EQ(formatDidYouMean("k", {"kt"}), "; did you mean 'kt'?");
  EXPECT_EQ(formatDidYouMean("ac", {"accum"}), "");
  // The name itself, and empty candidates, are no suggestion.
  EXPECT_EQ(formatDidYouMean("acc", {"acc", ""}), "");
  EXPECT_EQ(formatDidYouMean("acc", {}), "");
}

} // namespace
