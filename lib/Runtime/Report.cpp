//===- Report.cpp - the run report of seed 002 ----------------------------===//

#include "tile/Runtime/Report.h"

using namespace tile::runtime;

void tile::runtime::printLaunchReport(std::FILE *out,
                                      const KernelManifest &manifest,
                                      const LaunchReport &launch,
                                      int timedRuns) {
  const DeviceInfo &device = launch.device;
  std::fprintf(out,
               "GPU: %s (compute capability %d.%d), %d SMs, %d resident "
               "threads per SM\n",
               device.name.c_str(), device.computeMajor, device.computeMinor,
               device.multiprocessors, device.maxThreadsPerMultiprocessor);
  std::fprintf(out,
               "grid %lld x %lld x %lld, %lld threads per CTA, %lld B "
               "%s shared memory\n\n",
               static_cast<long long>(launch.grid[0]),
               static_cast<long long>(launch.grid[1]),
               static_cast<long long>(launch.grid[2]),
               static_cast<long long>(manifest.threads),
               static_cast<long long>(manifest.sharedBytes),
               manifest.dynamicShared ? "dynamic" : "static");
  std::fprintf(out, "%-17s %5s %9s %9s %8s %7s %8s %9s\n", "kernel", "regs",
               "local B", "shared B", "maxTPB", "blk/SM", "occ %", "ms");
  std::fprintf(out, "%-17s %5s %9s %9s %8s %7s %8s %9s\n", "-----------------",
               "-----", "---------", "---------", "--------", "-------",
               "--------", "---------");
  const KernelResources &r = launch.resources;
  char ms[32] = "-";
  if (timedRuns > 0)
    std::snprintf(ms, sizeof(ms), "%9.3f", launch.medianMs);
  std::fprintf(out, "%-17s %5d %9d %9d %8d %7d %8.1f %9s\n",
               manifest.kernel.c_str(), r.registers, r.localBytes,
               r.staticSharedBytes, r.maxThreadsPerBlock,
               r.blocksPerMultiprocessor, r.occupancyPercent, ms);
}

Expected<bool> tile::runtime::checkOutput(const std::string &name,
                                          const OutputComparison &comparison,
                                          const std::string &backend,
                                          const std::string &reference) {
  Expected<std::vector<Mismatch>> mismatches = findMismatches(comparison);
  if (!mismatches)
    return mismatches.takeError();
  const HostTensor &got = *comparison.got;
  size_t size = got.numElements();
  if (mismatches->empty()) {
    std::printf("%s matches %s (%zu elements)\n", name.c_str(),
                reference.c_str(), size);
    return true;
  }
  std::fflush(stdout); // keep the report before the error in a shared pipe
  for (const Mismatch &bad : *mismatches) {
    std::string at =
        std::to_string(bad.index) + " " + formatIndex(got.shape, bad.index);
    switch (bad.kind) {
    case MismatchKind::NeverWritten:
      std::fprintf(stderr,
                   "%s: the kernel never writes element %s (%zu of %zu "
                   "elements): an output element it does not write has no "
                   "value\n",
                   name.c_str(), at.c_str(), bad.count, size);
      break;
    case MismatchKind::Value:
      std::fprintf(stderr,
                   "%s wrong at %s: got %.9g, want %.9g (%zu of %zu elements "
                   "differ)\n",
                   name.c_str(), at.c_str(), bad.got, bad.want, bad.count,
                   size);
      break;
    case MismatchKind::NotWritten:
      std::fprintf(stderr,
                   "%s wrong at %s: not written by %s, want %.9g (%zu of %zu "
                   "elements)\n",
                   name.c_str(), at.c_str(), backend.c_str(), bad.want,
                   bad.count, size);
      break;
    case MismatchKind::WrittenOutside:
      std::fprintf(stderr,
                   "%s wrong at %s: %s wrote %.9g where %s writes nothing "
                   "(%zu of %zu elements)\n",
                   name.c_str(), at.c_str(), backend.c_str(), bad.got,
                   reference.c_str(), bad.count, size);
      break;
    }
    if (bad.thresholded)
      std::fprintf(stderr,
                   "note: element %zu depends on a comparison of an inexact "
                   "value, or on its conversion to an integer: a correct "
                   "kernel may land on the other side of the threshold, "
                   "which other inputs avoid\n",
                   bad.index);
  }
  return false;
}
