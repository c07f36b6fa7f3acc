//===- FakeCudaDriver.cpp - a CPU stand-in for libcuda.so.1 in tests ------===//
//
// Lets the tests run the runtime's whole driver path (loading, marshalling,
// copies, timing, error reports) on machines without a GPU. It implements
// the entry points the runtime resolves, with host memory as device memory,
// and "runs" two kernels by name:
//   copy(X, O, K)      O[i] = X[i] for i < min(4 K, threads launched)
//   copy_half(X, O, K) the same for the first half only
//   scale(alpha, X, O, K) O[i] = alpha * X[i], alpha an f32 passed by value
// Any other entry in the PTX loads but does nothing when launched.
//
//===----------------------------------------------------------------------===//

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>

namespace {
using CUresult = int;
enum : int {
  kSuccess = 0,
  kInvalidValue = 1,
  kInvalidImage = 200,
  kInvalidPtx = 218,
  kNotFound = 500,
};

struct Module {
  std::string image;
};
struct Function {
  std::string name;
};
std::string imageLog = "fake JIT: the image has no .entry\n";
} // namespace

#define FAKE_API extern "C" __attribute__((visibility("default"))) CUresult

FAKE_API cuGetErrorName(CUresult error, const char **name) {
  switch (error) {
  case kInvalidPtx:
    *name = "CUDA_ERROR_INVALID_PTX";
    return kSuccess;
  case kNotFound:
    *name = "CUDA_ERROR_NOT_FOUND";
    return kSuccess;
  default:
    *name = "CUDA_ERROR_INVALID_VALUE";
    return kSuccess;
  }
}
FAKE_API cuGetErrorString(CUresult error, const char **text) {
  *text = error == kNotFound ? "named symbol not found" : "fake driver error";
  return kSuccess;
}
FAKE_API cuInit(unsigned) { return kSuccess; }
FAKE_API cuDriverGetVersion(int *version) {
  *version = 13000;
  return kSuccess;
}
FAKE_API cuDeviceGetCount(int *count) {
  *count = 1;
  return kSuccess;
}
FAKE_API cuDeviceGet(int *device, int ordinal) {
  *device = ordinal;
  return ordinal == 0 ? kSuccess : kInvalidValue;
}
FAKE_API cuDeviceGetName(char *name, int length, int) {
  std::strncpy(name, "tile fake CUDA device", length);
  return kSuccess;
}
FAKE_API cuDeviceGetAttribute(int *value, int attribute, int) {
  switch (attribute) {
  case 75: // compute capability major
    *value = 9;
    break;
  case 76: // minor
    *value = 0;
    break;
  case 16: // SMs
    *value = 4;
    break;
  case 39: // resident threads per SM
    *value = 2048;
    break;
  default:
    *value = 0;
  }
  return kSuccess;
}
FAKE_API cuDevicePrimaryCtxRetain(void **context, int) {
  static int theContext;
  *context = &theContext;
  return kSuccess;
}
FAKE_API cuDevicePrimaryCtxRelease_v2(int) { return kSuccess; }
FAKE_API cuCtxSetCurrent(void *) { return kSuccess; }
FAKE_API cuCtxSynchronize() { return kSuccess; }

FAKE_API cuModuleLoadDataEx(void **module, const void *image, unsigned count,
                            int *options, void **values) {
  std::string text = static_cast<const char *>(image);
  if (text.find(".entry") != std::string::npos) {
    *module = new Module{text};
    return kSuccess;
  }
  for (unsigned i = 0; i + 1 < count; ++i)
    if (options[i] == 5 && options[i + 1] == 6) // error log, its size
      std::strncpy(static_cast<char *>(values[i]), imageLog.c_str(),
                   reinterpret_cast<uintptr_t>(values[i + 1]));
  return kInvalidPtx;
}
FAKE_API cuModuleUnload(void *module) {
  delete static_cast<Module *>(module);
  return kSuccess;
}
FAKE_API cuModuleGetFunction(void **function, void *module, const char *name) {
  const std::string &image = static_cast<Module *>(module)->image;
  if (image.find(".entry " + std::string(name) + "(") == std::string::npos)
    return kNotFound;
  static Function functions[8];
  static int next = 0;
  functions[next % 8].name = name;
  *function = &functions[next++ % 8];
  return kSuccess;
}
FAKE_API cuFuncGetAttribute(int *value, int attribute, void *) {
  *value = attribute == 0 ? 1024 : attribute == 4 ? 8 : 0;
  return kSuccess;
}
FAKE_API cuFuncSetAttribute(void *, int, int) { return kSuccess; }
FAKE_API cuOccupancyMaxActiveBlocksPerMultiprocessor(int *blocks, void *,
                                                     int blockSize, size_t) {
  *blocks = 2048 / blockSize;
  return kSuccess;
}
FAKE_API cuMemAlloc_v2(uint64_t *pointer, size_t bytes) {
  *pointer = reinterpret_cast<uintptr_t>(std::malloc(bytes ? bytes : 1));
  return kSuccess;
}
FAKE_API cuMemFree_v2(uint64_t pointer) {
  std::free(reinterpret_cast<void *>(pointer));
  return kSuccess;
}
FAKE_API cuMemcpyHtoD_v2(uint64_t to, const void *from, size_t bytes) {
  std::memcpy(reinterpret_cast<void *>(to), from, bytes);
  return kSuccess;
}
FAKE_API cuMemcpyDtoH_v2(void *to, uint64_t from, size_t bytes) {
  std::memcpy(to, reinterpret_cast<const void *>(from), bytes);
  return kSuccess;
}
FAKE_API cuLaunchKernel(void *function, unsigned gridX, unsigned, unsigned,
                        unsigned blockX, unsigned, unsigned, unsigned, void *,
                        void **params, void **) {
  const std::string &name = static_cast<Function *>(function)->name;
  if (name == "scale") {
    float alpha = *static_cast<float *>(params[0]);
    auto *x = *static_cast<float **>(params[1]);
    auto *o = *static_cast<float **>(params[2]);
    int64_t k = *static_cast<int64_t *>(params[3]);
    for (int64_t i = 0; i < 4 * k; ++i)
      o[i] = alpha * x[i];
    return kSuccess;
  }
  if (name != "copy" && name != "copy_half")
    return kSuccess;
  auto *x = *static_cast<float **>(params[0]);
  auto *o = *static_cast<float **>(params[1]);
  int64_t k = *static_cast<int64_t *>(params[2]);
  uint64_t count = std::min<uint64_t>(4 * k, uint64_t(gridX) * blockX);
  if (name == "copy_half")
    count /= 2;
  std::memcpy(o, x, count * sizeof(float));
  return kSuccess;
}
FAKE_API cuEventCreate(void **event, unsigned) {
  *event = new int(0);
  return kSuccess;
}
FAKE_API cuEventRecord(void *, void *) { return kSuccess; }
FAKE_API cuEventSynchronize(void *) { return kSuccess; }
FAKE_API cuEventElapsedTime_v2(float *ms, void *, void *) {
  *ms = 0.125f;
  return kSuccess;
}
FAKE_API cuEventDestroy_v2(void *event) {
  delete static_cast<int *>(event);
  return kSuccess;
}
