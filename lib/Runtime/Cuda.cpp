//===- Cuda.cpp - launching a compiled kernel with the CUDA driver --------===//
//
// The driver API is resolved with dlsym (CudaDriverApi.h declares what it
// uses), so no CUDA toolkit is needed to build. The
// symbol names are those cuda.h maps the API to (cuMemAlloc ->
// cuMemAlloc_v2, ...); where a newer version exists, the older name is the
// fallback for older drivers.
//
//===----------------------------------------------------------------------===//

#include "tile/Runtime/Cuda.h"
#include "tile/Runtime/CudaDriverApi.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>

using namespace tile::runtime;

namespace {
using namespace tile::runtime::cuda;

/// The driver entry points, resolved from the library.
struct DriverApi {
#define TILE_DECLARE(member, symbol, fallback, params)                         \
  CUresult(*member) params = nullptr;
  TILE_CUDA_DRIVER_FUNCTIONS(TILE_DECLARE)
#undef TILE_DECLARE

  static Expected<DriverApi> load(const std::string &library) {
    void *handle = dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
      const char *reason = dlerror();
      return Error(ErrorKind::NoDevice,
                   "no CUDA driver: " + library + " could not be loaded (" +
                       (reason ? reason : "unknown reason") + ")");
    }
    DriverApi api;
    auto resolve = [&](const char *symbol, const char *fallback) {
      void *address = dlsym(handle, symbol);
      return address || !*fallback ? address : dlsym(handle, fallback);
    };
#define TILE_RESOLVE(member, symbol, fallback, params)                         \
  api.member =                                                                 \
      reinterpret_cast<decltype(api.member)>(resolve(symbol, fallback));       \
  if (!api.member)                                                             \
    return Error(ErrorKind::NoDevice, "the CUDA driver " + library +           \
                                          " has no " symbol                    \
                                          "; it is too old for tile");
    TILE_CUDA_DRIVER_FUNCTIONS(TILE_RESOLVE)
#undef TILE_RESOLVE
    return api;
  }

  /// Success, or an error naming the call and the driver's reason: the
  /// seed's CUDA_CHECK, returning instead of exiting.
  Error check(CUresult result, const char *call) const {
    if (result == CUDA_SUCCESS)
      return Error::success();
    const char *name = nullptr, *description = nullptr;
    cuGetErrorName(result, &name);
    cuGetErrorString(result, &description);
    ErrorKind kind = result == CUDA_ERROR_NO_DEVICE ||
                             result == CUDA_ERROR_INSUFFICIENT_DRIVER
                         ? ErrorKind::NoDevice
                         : ErrorKind::Driver;
    return Error(
        kind, std::string(call) +
                  " failed: " + (name ? name : std::to_string(result)) + " (" +
                  (description ? description : "no description") + ")");
  }
};

#define CU_CHECK(api, function, ...)                                           \
  if (Error error_ = (api).check((api).function(__VA_ARGS__), #function))      \
  return error_

/// The driver state of one launch; the destructor frees it on every path.
class Session {
public:
  explicit Session(const DriverApi &api) : api(api) {}
  Session(const Session &) = delete;
  Session &operator=(const Session &) = delete;
  ~Session() {
    for (CUevent event : events)
      api.cuEventDestroy(event);
    for (CUdeviceptr pointer : allocations)
      api.cuMemFree(pointer);
    if (module)
      api.cuModuleUnload(module);
    if (context)
      api.cuDevicePrimaryCtxRelease(device);
  }

  Error open(DeviceInfo &info) {
    CU_CHECK(api, cuInit, 0);
    int count = 0;
    CU_CHECK(api, cuDeviceGetCount, &count);
    if (count == 0)
      return Error(ErrorKind::NoDevice, "the CUDA driver reports no device");
    CU_CHECK(api, cuDeviceGet, &device, 0);
    CU_CHECK(api, cuDevicePrimaryCtxRetain, &context, device);
    CU_CHECK(api, cuCtxSetCurrent, context);
    char name[256] = {};
    CU_CHECK(api, cuDeviceGetName, name, sizeof(name) - 1, device);
    info.name = name;
    CU_CHECK(api, cuDriverGetVersion, &info.driverVersion);
    std::pair<int *, int> attributes[] = {
        {&info.computeMajor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR},
        {&info.computeMinor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR},
        {&info.multiprocessors, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT},
        {&info.maxThreadsPerMultiprocessor,
         CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR}};
    for (auto [value, attribute] : attributes)
      CU_CHECK(api, cuDeviceGetAttribute, value, attribute, device);
    return Error::success();
  }

  /// Loads the PTX; on failure the error carries the JIT's error log.
  Error loadModule(std::string_view ptx, std::string &infoLog) {
    // The driver wants a NUL-terminated image.
    std::string image(ptx);
    std::vector<char> info(16384, '\0'), errors(16384, '\0');
    int options[] = {CU_JIT_INFO_LOG_BUFFER, CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES,
                     CU_JIT_ERROR_LOG_BUFFER,
                     CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES, CU_JIT_LOG_VERBOSE};
    void *values[] = {info.data(), reinterpret_cast<void *>(info.size() - 1),
                      errors.data(),
                      reinterpret_cast<void *>(errors.size() - 1),
                      reinterpret_cast<void *>(1)};
    Error error = api.check(
        api.cuModuleLoadDataEx(&module, image.c_str(), 5, options, values),
        "cuModuleLoadDataEx");
    infoLog = info.data();
    if (error && errors[0])
      return Error(error.getKind(),
                   error.message() + "\nJIT error log:\n" + errors.data());
    return error;
  }

  Error getFunction(const std::string &entry, CUfunction &function) {
    if (Error error =
            api.check(api.cuModuleGetFunction(&function, module, entry.c_str()),
                      "cuModuleGetFunction"))
      return error.prefix("entry '" + entry + "': ");
    return Error::success();
  }

  Error allocate(size_t bytes, CUdeviceptr &pointer) {
    CU_CHECK(api, cuMemAlloc, &pointer, bytes);
    allocations.push_back(pointer);
    return Error::success();
  }

  Error createEvent(CUevent &event) {
    CU_CHECK(api, cuEventCreate, &event, 0);
    events.push_back(event);
    return Error::success();
  }

  const DriverApi &api;
  CUdevice device = 0;
  CUcontext context = nullptr;
  CUmodule module = nullptr;
  std::vector<CUdeviceptr> allocations;
  std::vector<CUevent> events;
};
} // namespace

std::string tile::runtime::driverLibraryName(const std::string &requested) {
  if (!requested.empty())
    return requested;
  if (const char *fromEnvironment = std::getenv("TILE_CUDA_DRIVER_LIBRARY"))
    if (*fromEnvironment)
      return fromEnvironment;
  return "libcuda.so.1";
}

Expected<DeviceInfo>
tile::runtime::probeCudaDevice(const std::string &driverLibrary) {
  Expected<DriverApi> api = DriverApi::load(driverLibraryName(driverLibrary));
  if (!api)
    return api.takeError();
  Session session(*api);
  DeviceInfo info;
  if (Error error = session.open(info))
    return error;
  return info;
}

static Error queryResources(const DriverApi &api, CUfunction function,
                            const KernelManifest &manifest,
                            const DeviceInfo &device,
                            KernelResources &resources) {
  std::pair<int *, int> attributes[] = {
      {&resources.registers, CU_FUNC_ATTRIBUTE_NUM_REGS},
      {&resources.localBytes, CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES},
      {&resources.staticSharedBytes, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES},
      {&resources.maxThreadsPerBlock, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK}};
  for (auto [value, attribute] : attributes)
    CU_CHECK(api, cuFuncGetAttribute, value, attribute, function);
  size_t dynamicShared = manifest.dynamicShared ? manifest.sharedBytes : 0;
  CU_CHECK(api, cuOccupancyMaxActiveBlocksPerMultiprocessor,
           &resources.blocksPerMultiprocessor, function,
           static_cast<int>(manifest.threads), dynamicShared);
  // A device that reports no resident-thread limit would make the division
  // meaningless, as the seed warns.
  if (device.maxThreadsPerMultiprocessor > 0)
    resources.occupancyPercent = 100.0 * resources.blocksPerMultiprocessor *
                                 manifest.threads /
                                 device.maxThreadsPerMultiprocessor;
  return Error::success();
}

Expected<LaunchReport> tile::runtime::launchKernel(
    const KernelManifest &manifest, std::string_view ptx,
    const std::vector<HostTensor *> &buffers, SymbolBindings symbols,
    const LaunchOptions &options) {
  // Everything the input can get wrong, before the driver is touched.
  std::vector<const HostTensor *> constBuffers(buffers.begin(), buffers.end());
  if (Error error = bindArguments(manifest.params, constBuffers, symbols))
    return error;
  if (Error error = checkIndexRange(manifest, symbols, constBuffers))
    return error;
  LaunchReport report;
  Expected<std::array<int64_t, 3>> grid =
      evaluateGrid(manifest, symbols, constBuffers);
  if (!grid)
    return grid.takeError();
  report.grid = *grid;
  Expected<const Variant *> variant = chooseVariant(manifest, symbols);
  if (!variant)
    return variant.takeError();
  report.variant = **variant;
  if (Error error = checkThreads(manifest, ptx, report.variant.entry))
    return error;
  if (options.warmupRuns < 0 || options.timedRuns < 0)
    return Error::input("warm-up and timed runs cannot be negative");

  Expected<DriverApi> loaded =
      DriverApi::load(driverLibraryName(options.driverLibrary));
  if (!loaded)
    return loaded.takeError();
  const DriverApi &api = *loaded;
  Session session(api);
  if (Error error = session.open(report.device))
    return error;
  if (Error error = session.loadModule(ptx, report.jitInfoLog))
    return error;
  CUfunction function = nullptr;
  if (Error error = session.getFunction(report.variant.entry, function))
    return error;
  unsigned dynamicShared =
      manifest.dynamicShared ? static_cast<unsigned>(manifest.sharedBytes) : 0;
  // Above 48 KiB a kernel must opt in to dynamic shared memory.
  if (dynamicShared > 48 * 1024)
    CU_CHECK(api, cuFuncSetAttribute, function,
             CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
             static_cast<int>(dynamicShared));
  if (Error error = queryResources(api, function, manifest, report.device,
                                   report.resources))
    return error;

  // The ABI: per parameter a device pointer (a tensor) or the value (a
  // scalar), then one int64 per symbol.
  std::vector<CUdeviceptr> pointers(buffers.size());
  std::vector<int64_t> symbolValues;
  for (const std::string &symbol : manifest.symbols) {
    auto value = symbols.find(symbol);
    if (value == symbols.end())
      return Error::input("symbol %s has no value", symbol.c_str());
    symbolValues.push_back(value->second);
  }
  std::vector<void *> arguments;
  for (size_t i = 0; i < buffers.size(); ++i) {
    std::vector<uint8_t> &bytes = buffers[i]->bytes;
    if (manifest.params[i].isScalar()) {
      arguments.push_back(bytes.data());
      continue;
    }
    if (Error error = session.allocate(bytes.size(), pointers[i]))
      return error;
    // The variant's condition on pointers, which cuMemAlloc's alignment
    // (256 bytes) always meets.
    if (pointers[i] % report.variant.aligned != 0)
      return Error(ErrorKind::Driver,
                   "cuMemAlloc gave parameter '" + manifest.params[i].name +
                       "' an address that is not " +
                       std::to_string(report.variant.aligned) +
                       "-byte aligned, which its kernel needs");
    // Outputs too: the caller's poison shows what the kernel never wrote.
    CU_CHECK(api, cuMemcpyHtoD, pointers[i], bytes.data(), bytes.size());
    arguments.push_back(&pointers[i]);
  }
  for (int64_t &value : symbolValues)
    arguments.push_back(&value);

  auto launch = [&]() -> Error {
    CU_CHECK(api, cuLaunchKernel, function,
             static_cast<unsigned>(report.grid[0]),
             static_cast<unsigned>(report.grid[1]),
             static_cast<unsigned>(report.grid[2]),
             static_cast<unsigned>(manifest.threads), 1, 1, dynamicShared,
             nullptr, arguments.data(), nullptr);
    return Error::success();
  };

  // The correctness run: a refused launch shows in cuLaunchKernel, what the
  // kernel did in the synchronisation after it.
  if (Error error = launch())
    return error;
  CU_CHECK(api, cuCtxSynchronize);
  for (size_t i = 0; i < buffers.size(); ++i)
    if (manifest.params[i].isWritten())
      CU_CHECK(api, cuMemcpyDtoH, buffers[i]->bytes.data(), pointers[i],
               buffers[i]->bytes.size());
  if (options.timedRuns == 0)
    return report;

  // Warm up this kernel: lazy loading makes the first launch pay its load.
  for (int run = 0; run < options.warmupRuns; ++run)
    if (Error error = launch())
      return error;
  CU_CHECK(api, cuCtxSynchronize);
  CUevent start = nullptr, stop = nullptr;
  if (Error error = session.createEvent(start))
    return error;
  if (Error error = session.createEvent(stop))
    return error;
  std::vector<float> times;
  for (int run = 0; run < options.timedRuns; ++run) {
    CU_CHECK(api, cuEventRecord, start, nullptr);
    if (Error error = launch())
      return error;
    CU_CHECK(api, cuEventRecord, stop, nullptr);
    CU_CHECK(api, cuEventSynchronize, stop);
    float ms = 0;
    CU_CHECK(api, cuEventElapsedTime, &ms, start, stop);
    times.push_back(ms);
  }
  std::sort(times.begin(), times.end());
  size_t middle = times.size() / 2;
  report.medianMs = times.size() % 2
                        ? times[middle]
                        : (times[middle - 1] + times[middle]) / 2.0;
  return report;
}
