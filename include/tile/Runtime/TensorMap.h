//===- TensorMap.h - a TMA tensor map, as the driver is asked -*- C++ -*-===//
//
// A tensor map describes a global tensor and the box that one
// `cp.async.bulk.tensor` moves. The driver's cuTensorMapEncodeTiled packs
// it into an opaque, undocumented 128-byte CUtensorMap, which neither the
// emulator nor the fake driver can read back; so every consumer shares this
// description of what was asked for: the runtime builds it from the
// manifest's `tensor_maps` and a launch's shapes, the CUDA backend passes
// it to the driver, the fake driver checks it, and the emulator runs
// `cp.async.bulk.tensor` against it. Field meanings and orders are the
// driver's (CUDA Driver API, "Tensor Map Object Management"): dimension 0
// is the innermost (contiguous) one.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_RUNTIME_TENSORMAP_H
#define TILE_RUNTIME_TENSORMAP_H

#include "tile/Runtime/Tensor.h"

#include <array>
#include <cstdint>

namespace tile::runtime {

/// The most dimensions a tiled tensor map has.
constexpr unsigned kTensorMapMaxRank = 5;
/// The bytes of an encoded CUtensorMap, and the alignment a kernel
/// parameter holding one must have.
constexpr unsigned kTensorMapBytes = 128;
constexpr unsigned kTensorMapAlignment = 64;

/// CUtensorMapSwizzle's values: how the box's rows are laid out in shared
/// memory (16-byte chunks XORed within a 32, 64 or 128-byte span).
enum class TensorMapSwizzle : uint8_t {
  None = 0,
  Bytes32 = 1,
  Bytes64 = 2,
  Bytes128 = 3
};

/// What cuTensorMapEncodeTiled is given for one map, with interleave
/// none, no L2 promotion requirement and out-of-bounds elements filled with
/// zeros (CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE), which is all tile asks for.
struct TensorMapDesc {
  DType dtype = DType::F16;
  unsigned rank = 0;
  /// The index, among the kernel's parameters, of the tensor whose buffer
  /// the map describes (the driver's globalAddress is that buffer's).
  unsigned param = 0;
  /// Elements per dimension, innermost first.
  std::array<uint64_t, kTensorMapMaxRank> globalDim{};
  /// Bytes between consecutive elements of dimensions 1 .. rank-1 (the
  /// driver takes rank-1 strides; dimension 0 is contiguous).
  std::array<uint64_t, kTensorMapMaxRank - 1> globalStrides{};
  /// Elements of the box per dimension, innermost first.
  std::array<uint32_t, kTensorMapMaxRank> boxDim{};
  /// The stride, in elements, at which the box samples each dimension.
  std::array<uint32_t, kTensorMapMaxRank> elementStrides{1, 1, 1, 1, 1};
  TensorMapSwizzle swizzle = TensorMapSwizzle::None;
};

} // namespace tile::runtime

#endif // TILE_RUNTIME_TENSORMAP_H
