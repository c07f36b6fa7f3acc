//===- ChipLimitsTest.cpp - the per-chip shared-memory table --------------===//

#include "tile/Dialect/Tile/IR/ChipLimits.h"

#include "gtest/gtest.h"

using namespace mlir::tile;

namespace {

// The CUDA C++ Programming Guide's opt-in maximum of shared memory per
// thread block, in bytes (KB = 1024).
TEST(ChipLimitsTest, SharedMemoryPerCTA) {
  EXPECT_EQ(getMaxSharedBytes(70), 96 * 1024);
  EXPECT_EQ(getMaxSharedBytes(72), 96 * 1024);
  EXPECT_EQ(getMaxSharedBytes(75), 64 * 1024);
  EXPECT_EQ(getMaxSharedBytes(80), 163 * 1024);
  EXPECT_EQ(getMaxSharedBytes(86), 99 * 1024);
  EXPECT_EQ(getMaxSharedBytes(87), 163 * 1024);
  EXPECT_EQ(getMaxSharedBytes(89), 99 * 1024);
  EXPECT_EQ(getMaxSharedBytes(90), 227 * 1024);
  EXPECT_EQ(getMaxSharedBytes(100), 227 * 1024);
}

// A number the table does not list takes the nearest listed chip below.
TEST(ChipLimitsTest, UnlistedChipTakesTheOneBelow) {
  EXPECT_EQ(getMaxSharedBytes(71), getMaxSharedBytes(70));
  EXPECT_EQ(getMaxSharedBytes(82), getMaxSharedBytes(80));
  EXPECT_EQ(getMaxSharedBytes(95), getMaxSharedBytes(90));
}

// Ascending, so the lookup's "nearest below" is well defined.
TEST(ChipLimitsTest, TableIsSorted) {
  for (size_t i = 1; i < std::size(kChipSharedLimits); ++i)
    EXPECT_LT(kChipSharedLimits[i - 1].chip, kChipSharedLimits[i].chip);
}

} // namespace
