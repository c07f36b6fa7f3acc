//===- Report.h - the run report of seed 002 --------------------*- C++ -*-===//
//
// What tile-launch and tile-run print: the resource table read from the
// driver, and the comparison of an output with its reference.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_RUNTIME_REPORT_H
#define TILE_RUNTIME_REPORT_H

#include "tile/Runtime/Check.h"
#include "tile/Runtime/Cuda.h"

#include <cstdio>

namespace tile::runtime {

/// The device line and the table: kernel, regs, local B, shared B, maxTPB,
/// blk/SM, occ %, ms (`-` when `timedRuns` is 0).
void printLaunchReport(std::FILE *out, const KernelManifest &manifest,
                       const LaunchReport &launch, int timedRuns);

/// Checks an output against its reference (Check.h); prints "NAME matches
/// REFERENCE (N elements)" to stdout, or each problem to stderr as the
/// seed's check does ("NAME wrong at INDEX [i, j]: got X, want Y", "...: not
/// written by BACKEND", "NAME: the kernel never writes ..."). Returns whether
/// it matched.
Expected<bool> checkOutput(const std::string &name,
                           const OutputComparison &comparison,
                           const std::string &backend,
                           const std::string &reference);

} // namespace tile::runtime

#endif // TILE_RUNTIME_REPORT_H
