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

} // namespace mlir::tile

#endif // TILE_DIALECT_TILE_IR_CHIPLIMITS_H
