//===- Cuda.h - launching a kernel with the CUDA driver ------*- C++ -*-===//
//
// Loads libcuda.so.1 with dlopen when first needed, so a binary linked with
// this library starts on a machine without a GPU and says so clearly
// (ErrorKind::NoDevice) instead of failing in the loader. Every driver call
// is checked and reported by name with the driver's own error name and
// description (ErrorKind::Driver).
//
//===----------------------------------------------------------------------===//

#ifndef TILE_RUNTIME_CUDA_H
#define TILE_RUNTIME_CUDA_H

#include "tile/Runtime/Manifest.h"

namespace tile::runtime {

/// The driver library to load: `requested` when not empty, else the
/// environment's TILE_CUDA_DRIVER_LIBRARY, else "libcuda.so.1".
std::string driverLibraryName(const std::string &requested = "");

struct DeviceInfo {
  std::string name;
  int computeMajor = 0, computeMinor = 0;
  int multiprocessors = 0;
  int maxThreadsPerMultiprocessor = 0;
  int driverVersion = 0;
};

/// Loads the driver and asks device 0 who it is; a NoDevice error when
/// there is no driver or no device. What `tile-run` asks before it picks
/// the cuda backend.
Expected<DeviceInfo> probeCudaDevice(const std::string &driverLibrary = "");

/// The driver's view of a loaded kernel: the seed's table row.
struct KernelResources {
  int registers = 0;
  int localBytes = 0;
  int staticSharedBytes = 0;
  int maxThreadsPerBlock = 0;
  int blocksPerMultiprocessor = 0;
  /// Resident threads of this kernel as a share of the SM's maximum.
  double occupancyPercent = 0;
};

struct LaunchOptions {
  std::string driverLibrary; // see driverLibraryName
  int warmupRuns = 3;
  /// Timed runs after the warm-up; the report gives their median. 0 runs
  /// the kernel once, for its result only.
  int timedRuns = 10;
};

struct LaunchReport {
  DeviceInfo device;
  KernelResources resources;
  std::array<int64_t, 3> grid = {1, 1, 1};
  double medianMs = 0;
  /// The variant that ran (chooseVariant).
  Variant variant;
  /// The JIT compiler's info log (may be empty).
  std::string jitInfoLog;
};

/// Checks `buffers` (one per parameter, in manifest order) against the
/// manifest, binding the symbols (`symbols` may fix some beforehand),
/// loads `ptx`, launches the kernel once, and copies every parameter the
/// kernel writes back into its buffer; then times warm-up and timed runs.
/// Bad input is found before the driver is touched.
Expected<LaunchReport> launchKernel(const KernelManifest &manifest,
                                    std::string_view ptx,
                                    const std::vector<HostTensor *> &buffers,
                                    SymbolBindings symbols,
                                    const LaunchOptions &options = {});

} // namespace tile::runtime

#endif // TILE_RUNTIME_CUDA_H
