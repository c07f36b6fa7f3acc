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
#include <optional>
#include <string>

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

/// The bytes of the span whose 16-byte chunks `swizzle` permutes (0 for
/// none): 32, 64 or 128.
unsigned swizzleSpanBytes(TensorMapSwizzle swizzle);

/// The elements a box of `map` holds along dimension `dim`: boxDim[dim]
/// traversed at elementStrides[dim], ceil(boxDim / elementStride) of them
/// (dimension 0 takes no stride: the driver ignores elementStrides[0]).
uint64_t boxElements(const TensorMapDesc &map, unsigned dim);
/// The bytes one copy of a box writes to shared memory (and completes on
/// its mbarrier): every element of the box, those outside the tensor
/// zero-filled included.
uint64_t boxBytes(const TensorMapDesc &map);

/// Why cuTensorMapEncodeTiled would refuse `map` (CUDA_ERROR_INVALID_VALUE),
/// as a sentence naming the field; none when the driver takes it. The
/// driver's documented requirements (CUDA Driver API,
/// cuTensorMapEncodeTiled, interleave none): rank 1 to 5; each globalDim
/// in [1, 2^32]; each globalStride a multiple of 16 below 2^40 and covering
/// the dimension below it; each boxDim in [1, 256], the box's inner
/// dimension a multiple of 16 bytes and, when swizzled, at most the
/// swizzle span; each elementStride in [1, 8]. The global address's
/// 16-byte alignment is the launch's to check (the map holds no address).
/// Shared by the runtime, the fake driver and the emulator.
std::optional<std::string> checkTensorMap(const TensorMapDesc &map);

} // namespace tile::runtime

#endif // TILE_RUNTIME_TENSORMAP_H
