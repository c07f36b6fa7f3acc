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
  for (size_t i = 1; i < std::size(kChipLimits); ++i)
    EXPECT_LT(kChipLimits[i - 1].chip, kChipLimits[i].chip);
}

// The CUDA occupancy calculator's answers (cuda_occupancy.h,
// cudaOccMaxActiveBlocksPerMultiprocessor, default carveout) for CTAs of
// `threads` threads using `registers` registers a thread.
TEST(ChipLimitsTest, OccupancyByRegisters) {
  Occupancy full = computeOccupancy(90, 256, 32, 0);
  EXPECT_EQ(full.blocksPerSM, 8);
  EXPECT_DOUBLE_EQ(full.percent, 100.0);
  EXPECT_EQ(full.maxThreadsPerCTA, 1024);

  Occupancy quarter = computeOccupancy(90, 256, 128, 0);
  EXPECT_EQ(quarter.blocksPerSM, 2);
  EXPECT_DOUBLE_EQ(quarter.percent, 25.0);
  EXPECT_EQ(quarter.limit, Occupancy::Limit::Registers);
  EXPECT_EQ(quarter.maxThreadsPerCTA, 512);

  // 40 registers: 1280 a warp, 12 warps in each sub-partition's 16K (not
  // 51 warps of the SM's 64K): 16 CTAs of 3 warps, 75 %.
  Occupancy split = computeOccupancy(90, 96, 40, 0);
  EXPECT_EQ(split.blocksPerSM, 16);
  EXPECT_DOUBLE_EQ(split.percent, 75.0);

  EXPECT_EQ(computeOccupancy(80, 128, 64, 0).blocksPerSM, 8);
  EXPECT_DOUBLE_EQ(computeOccupancy(80, 128, 64, 0).percent, 50.0);
  // 255 registers: a CTA of 256 threads at most (kMostThreadsWithEvery-
  // Register), one per SM.
  EXPECT_EQ(computeOccupancy(90, 256, 255, 0).maxThreadsPerCTA,
            kMostThreadsWithEveryRegister);
  EXPECT_EQ(computeOccupancy(90, 256, 255, 0).blocksPerSM, 1);
  EXPECT_EQ(computeOccupancy(90, 512, 255, 0).blocksPerSM, 0);
}

TEST(ChipLimitsTest, OccupancyByWarpsAndBlocks) {
  // GA10x: 48 warps an SM.
  Occupancy ga10x = computeOccupancy(86, 256, 32, 0);
  EXPECT_EQ(ga10x.blocksPerSM, 6);
  EXPECT_DOUBLE_EQ(ga10x.percent, 100.0);
  EXPECT_EQ(ga10x.limit, Occupancy::Limit::Warps);
  // Turing: 32 warps, one CTA of 1024.
  EXPECT_EQ(computeOccupancy(75, 1024, 32, 0).blocksPerSM, 1);
  // Small CTAs meet the CTA limit: 32 on sm_90, 16 on sm_75.
  Occupancy small = computeOccupancy(90, 32, 16, 0);
  EXPECT_EQ(small.blocksPerSM, 32);
  EXPECT_EQ(small.limit, Occupancy::Limit::Blocks);
  EXPECT_DOUBLE_EQ(small.percent, 50.0);
  EXPECT_EQ(computeOccupancy(75, 32, 16, 0).blocksPerSM, 16);
  // .maxntid caps the CTA.
  EXPECT_EQ(computeOccupancy(90, 256, 32, 0, 256).maxThreadsPerCTA, 256);
}

TEST(ChipLimitsTest, OccupancyBySharedMemory) {
  // 48 KiB + the driver's 1 KiB a CTA of sm_90's 228 KiB: 4 CTAs.
  Occupancy shared = computeOccupancy(90, 128, 16, 48 * 1024);
  EXPECT_EQ(shared.blocksPerSM, 4);
  EXPECT_EQ(shared.limit, Occupancy::Limit::SharedMemory);
  EXPECT_DOUBLE_EQ(shared.percent, 25.0);
  // sm_75: no reserved KiB, 256-byte units: 64 KiB / 16 KiB.
  EXPECT_EQ(computeOccupancy(75, 128, 16, 16 * 1024).blocksPerSM, 4);
  // More than a CTA may have: it does not launch.
  EXPECT_EQ(computeOccupancy(90, 128, 16, 228 * 1024).blocksPerSM, 0);
}

} // namespace
