//===- FakeCudaDriver.cpp - a CPU stand-in for libcuda.so.1 in tests ------===//
//
// Lets the tests run the runtime's whole driver path (loading, marshalling,
// copies, timing, error reports) on machines without a GPU. It implements
// the entry points the runtime resolves, with host memory as device memory,
// and "runs" these kernels by name:
//   copy(X, O, K)      O[i] = X[i] for i < min(4 K, threads launched)
//   copy_half(X, O, K) the same for the first half only
//   scale(alpha, X, O, K) O[i] = alpha * X[i], alpha an f32 passed by value
//   divide(X, Y, O, K) O[i] = X[i] / Y[i] for i < 4 K, in f32 and then 2 ulp
//                      up: what div.full.f32 may return (--fp-div=full)
//   sum_exp(X, Y, S, E, K) over [4, K]: S = X * (the sum of Y * Y over the
//                      32 columns of X's block, summed from the last), E =
//                      exp(8 X), in f32
//                      (test/Runtime/Inputs/sum_exp.tile)
// Any other entry in the PTX loads but does nothing when launched.
//
//===----------------------------------------------------------------------===//

#include "tile/Runtime/CudaDriverApi.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>

using namespace tile::runtime::cuda;

// The handles are the runtime's (cuda.h's) types, so each entry point has
// the very type the runtime calls it through.
struct CUctx_st {};
struct CUmod_st {
  std::string image;
};
struct CUfunc_st {
  std::string name;
};
struct CUevent_st {};

namespace {
enum : int {
  kSuccess = 0,
  kInvalidValue = 1,
  kInvalidImage = 200,
  kInvalidPtx = 218,
  kNotFound = 500,
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
FAKE_API cuDeviceGet(CUdevice *device, int ordinal) {
  *device = ordinal;
  return ordinal == 0 ? kSuccess : kInvalidValue;
}
FAKE_API cuDeviceGetName(char *name, int length, CUdevice) {
  std::strncpy(name, "tile fake CUDA device", length);
  return kSuccess;
}
FAKE_API cuDeviceGetAttribute(int *value, int attribute, CUdevice) {
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
FAKE_API cuDevicePrimaryCtxRetain(CUcontext *context, CUdevice) {
  static CUctx_st theContext;
  *context = &theContext;
  return kSuccess;
}
FAKE_API cuDevicePrimaryCtxRelease_v2(CUdevice) { return kSuccess; }
FAKE_API cuCtxSetCurrent(CUcontext) { return kSuccess; }
FAKE_API cuCtxSynchronize() { return kSuccess; }

FAKE_API cuModuleLoadDataEx(CUmodule *module, const void *image, unsigned count,
                            int *options, void **values) {
  std::string text = static_cast<const char *>(image);
  if (text.find(".entry") != std::string::npos) {
    *module = new CUmod_st{text};
    return kSuccess;
  }
  for (unsigned i = 0; i + 1 < count; ++i)
    if (options[i] == 5 && options[i + 1] == 6) // error log, its size
      std::strncpy(static_cast<char *>(values[i]), imageLog.c_str(),
                   reinterpret_cast<uintptr_t>(values[i + 1]));
  return kInvalidPtx;
}
FAKE_API cuModuleUnload(CUmodule module) {
  delete module;
  return kSuccess;
}
FAKE_API cuModuleGetFunction(CUfunction *function, CUmodule module,
                             const char *name) {
  const std::string &image = module->image;
  if (image.find(".entry " + std::string(name) + "(") == std::string::npos)
    return kNotFound;
  static CUfunc_st functions[8];
  static int next = 0;
  functions[next % 8].name = name;
  *function = &functions[next++ % 8];
  return kSuccess;
}
FAKE_API cuFuncGetAttribute(int *value, int attribute, CUfunction) {
  *value = attribute == 0 ? 1024 : attribute == 4 ? 8 : 0;
  return kSuccess;
}
FAKE_API cuFuncSetAttribute(CUfunction, int, int) { return kSuccess; }
FAKE_API cuOccupancyMaxActiveBlocksPerMultiprocessor(int *blocks, CUfunction,
                                                     int blockSize, size_t) {
  *blocks = 2048 / blockSize;
  return kSuccess;
}
FAKE_API cuMemAlloc_v2(CUdeviceptr *pointer, size_t bytes) {
  *pointer = reinterpret_cast<uintptr_t>(std::malloc(bytes ? bytes : 1));
  return kSuccess;
}
FAKE_API cuMemFree_v2(CUdeviceptr pointer) {
  std::free(reinterpret_cast<void *>(pointer));
  return kSuccess;
}
FAKE_API cuMemcpyHtoD_v2(CUdeviceptr to, const void *from, size_t bytes) {
  std::memcpy(reinterpret_cast<void *>(to), from, bytes);
  return kSuccess;
}
FAKE_API cuMemcpyDtoH_v2(void *to, CUdeviceptr from, size_t bytes) {
  std::memcpy(to, reinterpret_cast<const void *>(from), bytes);
  return kSuccess;
}
FAKE_API cuLaunchKernel(CUfunction function, unsigned gridX, unsigned, unsigned,
                        unsigned blockX, unsigned, unsigned, unsigned, CUstream,
                        void **params, void **) {
  const std::string &name = function->name;
  if (name == "scale") {
    float alpha = *static_cast<float *>(params[0]);
    auto *x = *static_cast<float **>(params[1]);
    auto *o = *static_cast<float **>(params[2]);
    int64_t k = *static_cast<int64_t *>(params[3]);
    for (int64_t i = 0; i < 4 * k; ++i)
      o[i] = alpha * x[i];
    return kSuccess;
  }
  if (name == "divide") {
    auto *x = *static_cast<float **>(params[0]);
    auto *y = *static_cast<float **>(params[1]);
    auto *o = *static_cast<float **>(params[2]);
    int64_t k = *static_cast<int64_t *>(params[3]);
    for (int64_t i = 0; i < 4 * k; ++i)
      o[i] = std::nextafter(std::nextafter(x[i] / y[i], INFINITY), INFINITY);
    return kSuccess;
  }
  if (name == "sum_exp") {
    auto *x = *static_cast<float **>(params[0]);
    auto *y = *static_cast<float **>(params[1]);
    auto *sums = *static_cast<float **>(params[2]);
    auto *exps = *static_cast<float **>(params[3]);
    int64_t k = *static_cast<int64_t *>(params[4]);
    for (int64_t row = 0; row < 4; ++row) {
      for (int64_t block = 0; block < k; block += 32) {
        int64_t end = std::min(k, block + 32);
        float sum = 0;
        for (int64_t col = end - 1; col >= block; --col)
          sum += y[row * k + col] * y[row * k + col];
        for (int64_t col = block; col < end; ++col) {
          sums[row * k + col] = x[row * k + col] * sum;
          exps[row * k + col] = std::exp(x[row * k + col] * 8.0f);
        }
      }
    }
    return kSuccess;
  }
  if (name != "copy" && name != "copy_half" && name != "copy_div16")
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
FAKE_API cuEventCreate(CUevent *event, unsigned) {
  *event = new CUevent_st;
  return kSuccess;
}
FAKE_API cuEventRecord(CUevent, CUstream) { return kSuccess; }
FAKE_API cuEventSynchronize(CUevent) { return kSuccess; }
FAKE_API cuEventElapsedTime_v2(float *ms, CUevent, CUevent) {
  *ms = 0.125f;
  return kSuccess;
}
FAKE_API cuEventDestroy_v2(CUevent event) {
  delete event;
  return kSuccess;
}
