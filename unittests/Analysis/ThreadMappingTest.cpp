//===- ThreadMappingTest.cpp - sub-tiles that keep their owners -----------===//

#include "tile/Analysis/ThreadMapping.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/MLIRContext.h"

#include "gtest/gtest.h"

using namespace mlir;
using namespace mlir::tile;

namespace {

class OwnerSlotMapTest : public ::testing::Test {
protected:
  RankedTensorType tile(ArrayRef<int64_t> shape) {
    return RankedTensorType::get(shape, Float32Type::get(&context));
  }
  MLIRContext context;
};

TEST_F(OwnerSlotMapTest, WholeRowsAtAMultipleOfTheThreadsKeepTheirOwners) {
  // [16, 64] over 256 threads: 4 rows a slot. Rows 8 to 15 are slots 2, 3.
  auto map = getOwnerSlotMap(tile({16, 64}), {8, 0}, {8, 64}, 256);
  ASSERT_TRUE(map);
  EXPECT_EQ(*map, (SmallVector<int64_t>{2, 3}));
  // Rows 4 to 11 start in slot 1: slots 1 and 2.
  map = getOwnerSlotMap(tile({16, 64}), {4, 0}, {8, 64}, 256);
  ASSERT_TRUE(map);
  EXPECT_EQ(*map, (SmallVector<int64_t>{1, 2}));
}

TEST_F(OwnerSlotMapTest, ColumnsThreadsDivideKeepTheirOwners) {
  // [4, 256] over 128 threads: a row is two slots; columns 128 to 255 of
  // every row are the odd slots.
  auto map = getOwnerSlotMap(tile({4, 256}), {0, 128}, {4, 128}, 128);
  ASSERT_TRUE(map);
  EXPECT_EQ(*map, (SmallVector<int64_t>{1, 3, 5, 7}));
}

TEST_F(OwnerSlotMapTest, OtherSubTilesMoveBetweenThreads) {
  // Half rows: element (0, 0) of the sub-tile is in thread 0, and so is
  // its element (1, 0) (thread 32), no longer.
  EXPECT_FALSE(getOwnerSlotMap(tile({16, 64}), {0, 0}, {8, 32}, 256));
  // A shift by a row that is not a multiple of the threads.
  EXPECT_FALSE(getOwnerSlotMap(tile({16, 64}), {1, 0}, {8, 64}, 256));
  // Owners kept, but rows 0 and 1 of the sub-tile ([4, 64] at [0, 0] of
  // [4, 192] over 128 threads) land in different slots per thread.
  EXPECT_FALSE(getOwnerSlotMap(tile({4, 192}), {0, 0}, {4, 64}, 128));
}

TEST_F(OwnerSlotMapTest, OneElementIsItsOwnersSlot) {
  auto map = getOwnerSlotMap(tile({16, 64}), {0, 0}, {1, 1}, 128);
  ASSERT_TRUE(map);
  EXPECT_EQ(*map, (SmallVector<int64_t>{0}));
  EXPECT_FALSE(getOwnerSlotMap(tile({16, 64}), {0, 1}, {1, 1}, 128));
}

} // namespace
