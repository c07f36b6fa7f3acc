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

/// The most shared memory one CTA of a chip may use, in bytes: the opt-in
/// maximum of dynamic shared memory per block
/// (cudaFuncAttributeMaxDynamicSharedMemorySize; above 48 KiB a launch opts
/// in, as tile's runtime does). From the CUDA C++ Programming Guide,
/// "Technical Specifications per Compute Capability" ("Maximum amount of
/// shared memory per thread block") and its per-architecture "Shared
/// Memory" sections (KB there is 1024 bytes). The 1 KB of an SM's shared
/// memory the driver keeps for itself is not counted: it is not the CTA's.
struct ChipSharedLimit {
  int chip;          // the NN of sm_NN
  int64_t kibibytes; // per CTA
};
inline constexpr ChipSharedLimit kChipSharedLimits[] = {
    {70, 96},  // Volta (V100)
    {72, 96},  // Xavier
    {75, 64},  // Turing
    {80, 163}, // A100
    {86, 99},  // GA10x
    {87, 163}, // Orin
    {89, 99},  // Ada
    {90, 227}, // Hopper
    {100, 227} // Blackwell (B200)
};

/// The shared memory a CTA of sm_`chip` may use, in bytes: the table's
/// entry for the chip, or for a number the table does not list (parseChip
/// accepts every number from sm_70 to sm_100) the nearest listed chip below
/// it.
constexpr int64_t getMaxSharedBytes(int chip) {
  int64_t kibibytes = kChipSharedLimits[0].kibibytes;
  for (const ChipSharedLimit &limit : kChipSharedLimits)
    if (limit.chip <= chip)
      kibibytes = limit.kibibytes;
  return kibibytes * 1024;
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

} // namespace mlir::tile

#endif // TILE_DIALECT_TILE_IR_CHIPLIMITS_H
