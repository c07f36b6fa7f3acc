//===- SwizzleTest.cpp - wgmma's swizzled shared layout (tile.swizzle) ----===//

#include "tile/Dialect/Tile/IR/TileDialect.h"

#include "gtest/gtest.h"

#include <set>

using namespace mlir::tile;

namespace {

// Every element of an [R, C] tile has its own place inside the tile's
// R C elements, for each swizzle and element size.
TEST(SwizzleTest, IsAPermutation) {
  for (int64_t swizzle : {32, 64, 128})
    for (int64_t bytes : {1, 2, 4}) {
      int64_t rows = 24, columns = 2 * swizzle / bytes;
      std::set<int64_t> seen;
      for (int64_t r = 0; r < rows; ++r)
        for (int64_t c = 0; c < columns; ++c) {
          int64_t index = getSwizzledIndex(rows, swizzle, bytes, r, c);
          EXPECT_GE(index, 0);
          EXPECT_LT(index, rows * columns);
          seen.insert(index);
        }
      EXPECT_EQ(static_cast<int64_t>(seen.size()), rows * columns)
          << swizzle << "B swizzle, " << bytes << "-byte elements";
    }
}

// The 16-byte chunks stay whole (a cp.async or a vector access of 16
// aligned bytes stays contiguous), and the chunk moves as the PTX ISA's
// and CUDA's tensor-map swizzles move it: chunk j of row r of a 128B
// block at j ^ (r % 8), of a 64B block at j ^ ((r / 2) % 4), of a 32B
// block at j ^ ((r / 4) % 2).
TEST(SwizzleTest, MovesWholeChunks) {
  struct Case {
    int64_t swizzle, rowsPerPhase;
  };
  for (Case c : {Case{128, 1}, Case{64, 2}, Case{32, 4}}) {
    int64_t chunks = c.swizzle / 16, rows = 16;
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t j = 0; j < chunks; ++j)
        for (int64_t e = 0; e < 8; ++e) {
          int64_t moved = j ^ ((r / c.rowsPerPhase) % chunks);
          EXPECT_EQ(getSwizzledIndex(rows, c.swizzle, 2, r, 8 * j + e),
                    (r * c.swizzle + 16 * moved) / 2 + e)
              << c.swizzle << "B, row " << r << ", chunk " << j;
        }
  }
}

// Columns past the first block go to the next block of R rows (one TMA box
// of [R, swizzle / bytes] each).
TEST(SwizzleTest, ColumnBlocksFollowEachOther) {
  // [8, 128] f16 in 128B blocks: column 64 is block 1, byte 8 * 128.
  EXPECT_EQ(getSwizzledIndex(8, 128, 2, 0, 64), 8 * 128 / 2);
  // Row 3, column 72 of block 1: chunk 1 ^ 3 = 2 of row 3.
  EXPECT_EQ(getSwizzledIndex(8, 128, 2, 3, 72), (8 * 128 + 3 * 128 + 32) / 2);
  // [16, 64] bf16 in 64B blocks: column 40 is block 1 (32 columns a block).
  EXPECT_EQ(getSwizzledIndex(16, 64, 2, 0, 40), (16 * 64 + 16) / 2);
}

} // namespace
