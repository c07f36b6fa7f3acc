//===- Report.cpp - the run report ---------------------------------------===//

#include "tile/Runtime/Report.h"

using namespace tile::runtime;

/// Appends printf's `format` of `args` to `text`.
template <typename... Args>
static void appendf(std::string &text, const char *format, Args... args) {
  int size = std::snprintf(nullptr, 0, format, args...);
  size_t at = text.size();
  text.resize(at + size + 1);
  std::snprintf(&text[at], size + 1, format, args...);
  text.resize(at + size);
}

std::string tile::runtime::formatLaunchReport(const KernelManifest &manifest,
                                              const LaunchReport &launch,
                                              int timedRuns) {
  std::string text;
  auto append = [&](const char *format, auto... args) {
    appendf(text, format, args...);
  };
  const DeviceInfo &device = launch.device;
  append("GPU: %s (compute capability %d.%d), %d SMs, %d resident "
         "threads per SM\n",
         device.name.c_str(), device.computeMajor, device.computeMinor,
         device.multiprocessors, device.maxThreadsPerMultiprocessor);
  append("grid %lld x %lld x %lld, %lld threads per CTA, %lld B "
         "%s shared memory\n",
         static_cast<long long>(launch.grid[0]),
         static_cast<long long>(launch.grid[1]),
         static_cast<long long>(launch.grid[2]),
         static_cast<long long>(manifest.threads),
         static_cast<long long>(manifest.sharedBytes),
         manifest.dynamicShared ? "dynamic" : "static");
  append("variant: %s, of %zu\n\n", describeVariant(launch.variant).c_str(),
         manifest.variants.size());
  char ms[32] = "-";
  if (timedRuns > 0)
    std::snprintf(ms, sizeof(ms), "%.3f", launch.medianMs);
  text += formatResourceTable(manifest.kernel, launch.resources, ms);
  return text;
}

std::string tile::runtime::formatResourceTable(const std::string &kernel,
                                               const KernelResources &r,
                                               const std::string &ms) {
  std::string text;
  const char *format = "%-17s %5s %9s %9s %8s %7s %8s %9s\n";
  appendf(text, format, "kernel", "regs", "local B", "shared B", "maxTPB",
          "blk/SM", "occ %", "ms");
  appendf(text, format, "-----------------", "-----", "---------", "---------",
          "--------", "-------", "--------", "---------");
  appendf(text, "%-17s %5d %9d %9d %8d %7d %8.1f %9s\n", kernel.c_str(),
          r.registers, r.localBytes, r.staticSharedBytes, r.maxThreadsPerBlock,
          r.blocksPerMultiprocessor, r.occupancyPercent, ms.c_str());
  return text;
}

void tile::runtime::printLaunchReport(std::FILE *out,
                                      const KernelManifest &manifest,
                                      const LaunchReport &launch,
                                      int timedRuns) {
  std::fputs(formatLaunchReport(manifest, launch, timedRuns).c_str(), out);
}

std::string tile::runtime::formatMismatch(const std::string &name,
                                          const HostTensor &got,
                                          const Mismatch &bad,
                                          const std::string &backend,
                                          const std::string &reference) {
  size_t size = got.numElements();
  std::string at =
      std::to_string(bad.index) + " " + formatIndex(got.shape, bad.index);
  char text[1024];
  switch (bad.kind) {
  case MismatchKind::NeverWritten:
    std::snprintf(text, sizeof(text),
                  "%s: the kernel never writes element %s (%zu of %zu "
                  "elements): an output element it does not write has no "
                  "value",
                  name.c_str(), at.c_str(), bad.count, size);
    break;
  case MismatchKind::Value:
    std::snprintf(text, sizeof(text),
                  "%s wrong at %s: got %.9g, want %.9g (%zu of %zu elements "
                  "differ)",
                  name.c_str(), at.c_str(), bad.got, bad.want, bad.count, size);
    break;
  case MismatchKind::NotWritten:
    std::snprintf(text, sizeof(text),
                  "%s wrong at %s: not written by %s, want %.9g (%zu of %zu "
                  "elements)",
                  name.c_str(), at.c_str(), backend.c_str(), bad.want,
                  bad.count, size);
    break;
  case MismatchKind::WrittenOutside:
    std::snprintf(text, sizeof(text),
                  "%s wrong at %s: %s wrote %.9g where %s writes nothing "
                  "(%zu of %zu elements)",
                  name.c_str(), at.c_str(), backend.c_str(), bad.got,
                  reference.c_str(), bad.count, size);
    break;
  }
  std::string message = text;
  if (bad.thresholded) {
    std::snprintf(text, sizeof(text),
                  "\nnote: element %zu depends on a comparison of an inexact "
                  "value, or on its conversion to an integer: a correct "
                  "kernel may land on the other side of the threshold, "
                  "which other inputs avoid",
                  bad.index);
    message += text;
  }
  return message;
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
  // Elements whose f32 partial results may overflow (ElementMark::
  // unchecked): said, so that a match does not claim them.
  size_t unchecked = 0;
  if (comparison.wantMarks)
    for (ElementMark mark : *comparison.wantMarks)
      unchecked += mark.isUnchecked();
  if (unchecked)
    std::printf("%s: %zu of %zu elements unchecked: their partial sums or "
                "products can overflow in the kernel's float type, and "
                "whether they do depends on the order the GPU takes\n",
                name.c_str(), unchecked, size);
  if (mismatches->empty()) {
    std::printf("%s matches %s (%zu elements)\n", name.c_str(),
                reference.c_str(), size);
    return true;
  }
  std::fflush(stdout); // keep the report before the error in a shared pipe
  for (const Mismatch &bad : *mismatches)
    std::fprintf(stderr, "%s\n",
                 formatMismatch(name, got, bad, backend, reference).c_str());
  return false;
}
