//===- Report.h - the run report --------------------------------*- C++ -*-===//
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
#include <string>

namespace tile::runtime {

/// The device line and the table: kernel, regs, local B, shared B, maxTPB,
/// blk/SM, occ %, ms (`-` when `timedRuns` is 0).
std::string formatLaunchReport(const KernelManifest &manifest,
                               const LaunchReport &launch, int timedRuns);
/// The table alone: its header and the row of `kernel` (`ms` as printed,
/// "-" when nothing was timed), for the driver's figures and for those
/// computed without a GPU.
std::string formatResourceTable(const std::string &kernel,
                                const KernelResources &resources,
                                const std::string &ms);
void printLaunchReport(std::FILE *out, const KernelManifest &manifest,
                       const LaunchReport &launch, int timedRuns);

/// Checks an output against its reference (Check.h); prints "NAME matches
/// REFERENCE (N elements)" to stdout, or each problem to stderr as the
/// seed's check does ("NAME wrong at INDEX [i, j]: got X, want Y", "...: not
/// written by BACKEND", "NAME: the kernel never writes ..."). Returns whether
/// it matched.
/// One problem of an output as checkOutput prints it ("NAME wrong at INDEX
/// [i, j]: got X, want Y (N of M elements differ)", ...), with its note.
std::string formatMismatch(const std::string &name, const HostTensor &got,
                           const Mismatch &bad, const std::string &backend,
                           const std::string &reference);

Expected<bool> checkOutput(const std::string &name,
                           const OutputComparison &comparison,
                           const std::string &backend,
                           const std::string &reference);

} // namespace tile::runtime

#endif // TILE_RUNTIME_REPORT_H
