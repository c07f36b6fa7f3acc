//===- CApi.cpp - C API of the tile runtime -------------------------------===//

#include "tile/Runtime/Cuda.h"
#include "tile/Runtime/tile_runtime.h"

#include <algorithm>
#include <cstring>

using namespace tile::runtime;

static thread_local std::string lastError;
/// The entry of the variant this thread's last successful launch ran.
static thread_local std::string lastEntry;

/// Records `error` for tile_last_error and maps it to a status.
static int fail(const Error &error) {
  lastError = error.message();
  return error.getKind() == ErrorKind::Input ? TILE_BAD_INPUT : TILE_NO_DEVICE;
}

extern "C" const char *tile_last_error(void) { return lastError.c_str(); }

extern "C" const char *tile_last_entry(void) { return lastEntry.c_str(); }

extern "C" int tile_cuda_probe(const char *driverLibrary) {
  Expected<DeviceInfo> device =
      probeCudaDevice(driverLibrary ? driverLibrary : "");
  return device ? TILE_OK : fail(device.getError());
}

extern "C" int
tile_launch(const char *ptx, size_t ptxBytes, const char *manifestJson,
            size_t manifestBytes, const tile_buffer *buffers, size_t numBuffers,
            const char *const *symbolNames, const int64_t *symbolValues,
            size_t numSymbols, int warmupRuns, int timedRuns,
            const char *driverLibrary, tile_launch_result *result) {
  lastEntry.clear();
  if (!ptx || !manifestJson || (numBuffers && !buffers) ||
      (numSymbols && (!symbolNames || !symbolValues)))
    return fail(Error::input("tile_launch: a required pointer is null"));
  Expected<KernelManifest> manifest =
      parseManifest(std::string_view(manifestJson, manifestBytes));
  if (!manifest)
    return fail(manifest.getError());

  SymbolBindings symbols;
  for (size_t i = 0; i < numSymbols; ++i) {
    if (!symbolNames[i])
      return fail(Error::input("tile_launch: symbol name %zu is null", i));
    symbols[symbolNames[i]] = symbolValues[i];
  }
  // Copies in the manifest's order and shapes; a name given twice or not
  // at all is an error.
  std::vector<HostTensor> tensors(manifest->params.size());
  std::vector<const tile_buffer *> sources(manifest->params.size());
  for (size_t i = 0; i < numBuffers; ++i) {
    const tile_buffer &buffer = buffers[i];
    const char *name = buffer.name ? buffer.name : "";
    auto param =
        std::find_if(manifest->params.begin(), manifest->params.end(),
                     [&](const ParamSpec &spec) { return spec.name == name; });
    if (param == manifest->params.end())
      return fail(Error::input("the kernel has no parameter '%s'", name));
    size_t index = param - manifest->params.begin();
    if (sources[index])
      return fail(Error::input("parameter '%s': two buffers given", name));
    if (buffer.bytes && !buffer.data)
      return fail(Error::input("parameter '%s': data is null", name));
    sources[index] = &buffer;
  }
  std::vector<HostTensor *> arguments(tensors.size(), nullptr);
  for (size_t i = 0; i < tensors.size(); ++i) {
    if (!sources[i])
      continue; // bindArguments names the missing buffer
    Expected<std::vector<int64_t>> shape =
        resolveShape(manifest->params[i], symbols);
    if (!shape)
      return fail(shape.getError());
    tensors[i].dtype = manifest->params[i].dtype;
    tensors[i].shape = *shape;
    auto *data = static_cast<const uint8_t *>(sources[i]->data);
    tensors[i].bytes.assign(data, data + sources[i]->bytes);
    arguments[i] = &tensors[i];
  }

  LaunchOptions options;
  options.driverLibrary = driverLibrary ? driverLibrary : "";
  options.warmupRuns = warmupRuns;
  options.timedRuns = timedRuns;
  Expected<LaunchReport> report = launchKernel(
      *manifest, std::string_view(ptx, ptxBytes), arguments, symbols, options);
  if (!report)
    return fail(report.getError());
  for (size_t i = 0; i < tensors.size(); ++i)
    if (manifest->params[i].isWritten())
      std::memcpy(sources[i]->data, tensors[i].bytes.data(),
                  tensors[i].bytes.size());
  if (result) {
    const KernelResources &resources = report->resources;
    *result = {report->medianMs,
               resources.registers,
               resources.localBytes,
               resources.staticSharedBytes,
               resources.maxThreadsPerBlock,
               resources.blocksPerMultiprocessor,
               resources.occupancyPercent};
  }
  lastError.clear();
  lastEntry = report->variant.entry;
  return TILE_OK;
}
