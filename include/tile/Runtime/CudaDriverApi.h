//===- CudaDriverApi.h - the CUDA driver API the runtime uses ---*- C++ -*-===//
//
// The runtime resolves the CUDA driver with dlsym and builds without the
// CUDA toolkit, so it declares the few types, enumerators and entry points
// it uses itself (values from cuda.h of CUDA 13.0; they are ABI and never
// change). The handle types are cuda.h's (pointers to its opaque structs,
// unsigned long long for device pointers), so that a driver defined with
// them, the tests' stand-in, has exactly the type the runtime calls it
// through: UBSan's -fsanitize=function checks that at every call.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_RUNTIME_CUDADRIVERAPI_H
#define TILE_RUNTIME_CUDADRIVERAPI_H

#include <cstddef>

// cuda.h's opaque handle structs, at global scope as there.
struct CUctx_st;
struct CUmod_st;
struct CUfunc_st;
struct CUstream_st;
struct CUevent_st;

namespace tile::runtime::cuda {
using CUresult = int;
using CUdevice = int;
using CUdeviceptr = unsigned long long;
using CUcontext = CUctx_st *;
using CUmodule = CUmod_st *;
using CUfunction = CUfunc_st *;
using CUstream = CUstream_st *;
using CUevent = CUevent_st *;

enum : int {
  CUDA_SUCCESS = 0,
  CUDA_ERROR_NO_DEVICE = 100,
  CUDA_ERROR_INSUFFICIENT_DRIVER = 35,
  CU_JIT_INFO_LOG_BUFFER = 3,
  CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES = 4,
  CU_JIT_ERROR_LOG_BUFFER = 5,
  CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES = 6,
  CU_JIT_LOG_VERBOSE = 12,
  CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK = 0,
  CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES = 1,
  CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES = 3,
  CU_FUNC_ATTRIBUTE_NUM_REGS = 4,
  CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES = 8,
  CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT = 16,
  CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR = 39,
  CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75,
  CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76,
};

// X(member, symbol, fallback symbol, parameter types)
#define TILE_CUDA_DRIVER_FUNCTIONS(X)                                          \
  X(cuGetErrorName, "cuGetErrorName", "", (CUresult, const char **))           \
  X(cuGetErrorString, "cuGetErrorString", "", (CUresult, const char **))       \
  X(cuInit, "cuInit", "", (unsigned))                                          \
  X(cuDriverGetVersion, "cuDriverGetVersion", "", (int *))                     \
  X(cuDeviceGetCount, "cuDeviceGetCount", "", (int *))                         \
  X(cuDeviceGet, "cuDeviceGet", "", (CUdevice *, int))                         \
  X(cuDeviceGetName, "cuDeviceGetName", "", (char *, int, CUdevice))           \
  X(cuDeviceGetAttribute, "cuDeviceGetAttribute", "", (int *, int, CUdevice))  \
  X(cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain", "",                  \
    (CUcontext *, CUdevice))                                                   \
  X(cuDevicePrimaryCtxRelease, "cuDevicePrimaryCtxRelease_v2",                 \
    "cuDevicePrimaryCtxRelease", (CUdevice))                                   \
  X(cuCtxSetCurrent, "cuCtxSetCurrent", "", (CUcontext))                       \
  X(cuCtxSynchronize, "cuCtxSynchronize", "", ())                              \
  X(cuModuleLoadDataEx, "cuModuleLoadDataEx", "",                              \
    (CUmodule *, const void *, unsigned, int *, void **))                      \
  X(cuModuleUnload, "cuModuleUnload", "", (CUmodule))                          \
  X(cuModuleGetFunction, "cuModuleGetFunction", "",                            \
    (CUfunction *, CUmodule, const char *))                                    \
  X(cuFuncGetAttribute, "cuFuncGetAttribute", "", (int *, int, CUfunction))    \
  X(cuFuncSetAttribute, "cuFuncSetAttribute", "", (CUfunction, int, int))      \
  X(cuOccupancyMaxActiveBlocksPerMultiprocessor,                               \
    "cuOccupancyMaxActiveBlocksPerMultiprocessor", "",                         \
    (int *, CUfunction, int, size_t))                                          \
  X(cuMemAlloc, "cuMemAlloc_v2", "", (CUdeviceptr *, size_t))                  \
  X(cuMemFree, "cuMemFree_v2", "", (CUdeviceptr))                              \
  X(cuMemcpyHtoD, "cuMemcpyHtoD_v2", "", (CUdeviceptr, const void *, size_t))  \
  X(cuMemcpyDtoH, "cuMemcpyDtoH_v2", "", (void *, CUdeviceptr, size_t))        \
  X(cuLaunchKernel, "cuLaunchKernel", "",                                      \
    (CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,   \
     unsigned, CUstream, void **, void **))                                    \
  X(cuEventCreate, "cuEventCreate", "", (CUevent *, unsigned))                 \
  X(cuEventRecord, "cuEventRecord", "", (CUevent, CUstream))                   \
  X(cuEventSynchronize, "cuEventSynchronize", "", (CUevent))                   \
  X(cuEventElapsedTime, "cuEventElapsedTime_v2", "cuEventElapsedTime",         \
    (float *, CUevent, CUevent))                                               \
  X(cuEventDestroy, "cuEventDestroy_v2", "cuEventDestroy", (CUevent))

} // namespace tile::runtime::cuda

#endif // TILE_RUNTIME_CUDADRIVERAPI_H
