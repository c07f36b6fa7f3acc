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

Expected<bool> tile::runtime::compareOutput(const std::string &name,
                                            const HostTensor &got,
                                            const HostTensor &want,
                                            Tolerance tolerance,
                                            const std::string &reference) {
  Expected<std::optional<Mismatch>> mismatch =
      firstMismatch(got, want, tolerance);
  if (!mismatch)
    return mismatch.takeError();
  if (!*mismatch) {
    std::printf("%s matches %s (%zu elements)\n", name.c_str(),
                reference.c_str(), got.numElements());
    return true;
  }
  const Mismatch &bad = **mismatch;
  std::fflush(stdout); // keep the report before the error in a shared pipe
  std::fprintf(stderr,
               "%s wrong at %zu %s: got %.9g, want %.9g (%zu of %zu elements "
               "differ)\n",
               name.c_str(), bad.index,
               formatIndex(got.shape, bad.index).c_str(), bad.got, bad.want,
               bad.count, got.numElements());
  return false;
}
