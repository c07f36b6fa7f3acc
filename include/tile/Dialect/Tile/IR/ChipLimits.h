//===- ChipLimits.h - what each chip tile targets allows -------*- C++ -*-===//
//
// The one table of per-chip limits every driver reads (tile-pipeline-loads,
// tile-plan-shared, and through them tile-translate, tile-run, the
// tile-to-ptx pipeline and the Python package).
//
//===----------------------------------------------------------------------===//

#ifndef TILE_DIALECT_TILE_IR_CHIPLIMITS_H
#define TILE_DIALECT_TILE_IR_CHIPLIMITS_H

#include <cstdint>

namespace mlir::tile {

/// What an SM of each chip holds, from the CUDA C++ Programming Guide's
/// "Technical Specifications per Compute Capability" table and the rules of
/// the CUDA occupancy calculator (cuda_occupancy.h, CUDA 13.0): one row per
/// chip, the nearest listed chip below standing for an unlisted one.
///
/// `sharedKiBPerCTA` is the opt-in maximum of dynamic shared memory per
/// block (cudaFuncAttributeMaxDynamicSharedMemorySize; above 48 KiB a
/// launch opts in, as tile's runtime does) from "Maximum amount of shared
/// memory per thread block" and the per-architecture "Shared Memory"
/// sections (KB there is 1024 bytes); the 1 KB of an SM's shared memory the
/// driver keeps for each CTA from sm_80 on is not counted: it is not the
/// CTA's. `sharedKiBPerSM` is "Maximum amount of shared memory per SM".
struct ChipLimits {
  int chip;                // the NN of sm_NN
  int64_t sharedKiBPerCTA; // opt-in maximum, per CTA
  int64_t sharedKiBPerSM;  // per SM, all CTAs together
  int64_t maxWarpsPerSM;   // "Maximum number of resident warps per SM"
  int64_t maxBlocksPerSM;  // "Maximum number of resident blocks per SM"
};
inline constexpr ChipLimits kChipLimits[] = {
    {70, 96, 96, 64, 32},    // Volta (V100)
    {72, 96, 96, 64, 32},    // Xavier
    {75, 64, 64, 32, 16},    // Turing
    {80, 163, 164, 64, 32},  // A100
    {86, 99, 100, 48, 16},   // GA10x
    {87, 163, 164, 48, 16},  // Orin
    {89, 99, 100, 48, 24},   // Ada
    {90, 227, 228, 64, 32},  // Hopper
    {100, 227, 228, 64, 32}, // Blackwell (B200)
};

/// The row of sm_`chip`: its own, or for a number the table does not list
/// (parseChip accepts every number from sm_70 to sm_100) the nearest listed
/// chip below it.
constexpr const ChipLimits &getChipLimits(int chip) {
  const ChipLimits *found = &kChipLimits[0];
  for (const ChipLimits &limits : kChipLimits)
    if (limits.chip <= chip)
      found = &limits;
  return *found;
}

/// The shared memory a CTA of sm_`chip` may use, in bytes.
constexpr int64_t getMaxSharedBytes(int chip) {
  return getChipLimits(chip).sharedKiBPerCTA * 1024;
}

static_assert(getMaxSharedBytes(90) == 232448, "sm_90: 227 KiB");
static_assert(getMaxSharedBytes(75) == 65536, "sm_75: 64 KiB");

/// Registers: 64K 32-bit registers an SM on every chip tile targets, at
/// most 255 a thread.
inline constexpr int64_t kRegistersPerSM = 65536;
inline constexpr int64_t kMostRegistersPerThread = 255;
/// The most threads a CTA may have for which the register limit .maxntid
/// sets is no less than the 255 a thread may use; larger CTAs keep
/// .maxntid (tile-ptx-thread-limit).
inline constexpr int64_t kMostThreadsWithEveryRegister = 256;

/// The registers a thread of a CTA of `threads` has when `ctas` such CTAs
/// share an SM, as ptxas allocates them under `.maxntid threads`: the CTA
/// counted in units of 4 warps, a thread's registers in units of 8
/// (measured with ptxas 13.0 on sm_90: at .maxntid 288 to 384 a kernel
/// that needs 253 is held to 168, at 416 to 512 to 128, docs/performance.md).
constexpr int64_t getRegistersPerThread(int64_t threads, int64_t ctas) {
  int64_t counted = (threads + 127) / 128 * 128;
  int64_t registers = kRegistersPerSM / (ctas * counted) / 8 * 8;
  return registers < kMostRegistersPerThread ? registers
                                             : kMostRegistersPerThread;
}

static_assert(getRegistersPerThread(288, 1) == 168, "ptxas at .maxntid 288");
static_assert(getRegistersPerThread(512, 1) == 128, "ptxas at .maxntid 512");
static_assert(getRegistersPerThread(512, 2) == 64, "two CTAs of 512");
static_assert(getRegistersPerThread(1024, 2) == 32, "two CTAs of 1024");

/// The occupancy calculator's other rules, the same on every chip tile
/// targets (cuda_occupancy.h): registers are given to warps in units of
/// 256, in each of an SM's 4 sub-partitions; 64K registers a CTA at most;
/// shared memory in units of 128 bytes from sm_80 on (256 before), each CTA
/// with 1 KiB more that the driver keeps for it from sm_80 on.
inline constexpr int64_t kWarpSize = 32;
inline constexpr int64_t kMostThreadsPerCTA = 1024;
inline constexpr int64_t kRegisterAllocationUnit = 256; // per warp
inline constexpr int64_t kSubPartitionsPerSM = 4;
inline constexpr int64_t kRegistersPerCTA = 65536;
constexpr int64_t getSharedAllocationUnit(int chip) {
  return chip >= 80 ? 128 : 256;
}
constexpr int64_t getReservedSharedBytesPerCTA(int chip) {
  return chip >= 80 ? 1024 : 0;
}

/// What the driver would say of a kernel from ptxas's figures, as
/// cuOccupancyMaxActiveBlocksPerMultiprocessor and
/// CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK compute it (the default
/// shared-memory carveout: all of the SM's).
struct Occupancy {
  /// The largest CTA the kernel launches with (registers, .maxntid).
  int64_t maxThreadsPerCTA = 0;
  /// Resident CTAs of `threads` threads per SM, and what limits them.
  int64_t blocksPerSM = 0;
  enum class Limit { Warps, Blocks, Registers, SharedMemory };
  Limit limit = Limit::Warps;
  /// Resident warps as a share of the SM's maximum, in percent.
  double percent = 0;
};

constexpr int64_t roundUpTo(int64_t value, int64_t unit) {
  return (value + unit - 1) / unit * unit;
}

/// The occupancy of CTAs of `threads` threads, each thread with `registers`
/// registers, each CTA with `sharedBytes` of shared memory (static and
/// dynamic), on sm_`chip`. `maxThreads` is the kernel's .maxntid (0: none).
constexpr Occupancy computeOccupancy(int chip, int64_t threads,
                                     int64_t registers, int64_t sharedBytes,
                                     int64_t maxThreads = 0) {
  const ChipLimits &limits = getChipLimits(chip);
  Occupancy result{};
  int64_t registersPerWarp =
      roundUpTo(registers * kWarpSize, kRegisterAllocationUnit);
  // The launch fails above the CTA's register file, counted in whole sets
  // of the 4 sub-partitions' warps.
  int64_t warpsByRegisters = registersPerWarp
                                 ? kRegistersPerCTA / registersPerWarp
                                 : kMostThreadsPerCTA / kWarpSize;
  warpsByRegisters =
      warpsByRegisters / kSubPartitionsPerSM * kSubPartitionsPerSM;
  result.maxThreadsPerCTA = warpsByRegisters * kWarpSize;
  if (result.maxThreadsPerCTA > kMostThreadsPerCTA)
    result.maxThreadsPerCTA = kMostThreadsPerCTA;
  if (maxThreads > 0 && maxThreads < result.maxThreadsPerCTA)
    result.maxThreadsPerCTA = maxThreads;

  int64_t warps = (threads + kWarpSize - 1) / kWarpSize;
  if (warps == 0 || threads > result.maxThreadsPerCTA ||
      registers > kMostRegistersPerThread)
    return result;
  result.blocksPerSM = limits.maxWarpsPerSM / warps;
  result.limit = Occupancy::Limit::Warps;
  auto limitBy = [&](int64_t blocks, Occupancy::Limit why) {
    if (blocks < result.blocksPerSM) {
      result.blocksPerSM = blocks;
      result.limit = why;
    }
  };
  limitBy(limits.maxBlocksPerSM, Occupancy::Limit::Blocks);
  if (registersPerWarp > 0) {
    int64_t warpsPerSubPartition =
        kRegistersPerSM / kSubPartitionsPerSM / registersPerWarp;
    limitBy(warpsPerSubPartition * kSubPartitionsPerSM / warps,
            Occupancy::Limit::Registers);
  }
  int64_t shared = roundUpTo(sharedBytes + getReservedSharedBytesPerCTA(chip),
                             getSharedAllocationUnit(chip));
  if (sharedBytes > limits.sharedKiBPerCTA * 1024)
    limitBy(0, Occupancy::Limit::SharedMemory);
  else if (shared > 0)
    limitBy(limits.sharedKiBPerSM * 1024 / shared,
            Occupancy::Limit::SharedMemory);
  result.percent = 100.0 * result.blocksPerSM * warps / limits.maxWarpsPerSM;
  return result;
}

static_assert(computeOccupancy(90, 256, 32, 0).blocksPerSM == 8,
              "the occupancy calculator: sm_90, 256 threads, 32 registers");
static_assert(computeOccupancy(90, 256, 128, 0).blocksPerSM == 2,
              "the occupancy calculator: sm_90, 256 threads, 128 registers");

} // namespace mlir::tile

#endif // TILE_DIALECT_TILE_IR_CHIPLIMITS_H
