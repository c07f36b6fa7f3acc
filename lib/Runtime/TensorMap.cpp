//===- TensorMap.cpp - what the driver accepts as a tiled tensor map ------===//

#include "tile/Runtime/TensorMap.h"

using namespace tile::runtime;

unsigned tile::runtime::swizzleSpanBytes(TensorMapSwizzle swizzle) {
  switch (swizzle) {
  case TensorMapSwizzle::None:
    return 0;
  case TensorMapSwizzle::Bytes32:
    return 32;
  case TensorMapSwizzle::Bytes64:
    return 64;
  case TensorMapSwizzle::Bytes128:
    return 128;
  }
  return 0;
}

uint64_t tile::runtime::boxElements(const TensorMapDesc &map, unsigned dim) {
  uint64_t stride = dim == 0 ? 1 : map.elementStrides[dim];
  return stride == 0 ? 0 : (map.boxDim[dim] + stride - 1) / stride;
}

uint64_t tile::runtime::boxBytes(const TensorMapDesc &map) {
  uint64_t bytes = dtypeSize(map.dtype);
  for (unsigned dim = 0; dim < map.rank && dim < kTensorMapMaxRank; ++dim)
    bytes *= boxElements(map, dim);
  return bytes;
}

std::optional<std::string>
tile::runtime::checkTensorMap(const TensorMapDesc &map) {
  auto at = [](const char *field, unsigned dim) {
    return std::string(field) + "[" + std::to_string(dim) + "]";
  };
  if (map.rank < 1 || map.rank > kTensorMapMaxRank)
    return "the rank " + std::to_string(map.rank) + " is outside 1 to " +
           std::to_string(kTensorMapMaxRank);
  if (map.dtype == DType::I1)
    return std::string("the element type i1 has no tensor-map data type");
  uint64_t elementBytes = dtypeSize(map.dtype);
  for (unsigned dim = 0; dim < map.rank; ++dim)
    if (map.globalDim[dim] < 1 || map.globalDim[dim] > (uint64_t(1) << 32))
      return at("globalDim", dim) + " = " + std::to_string(map.globalDim[dim]) +
             " is outside 1 to 2^32";
  // Each stride covers the dimension below it: strides[0] at least a row
  // of dimension 0, strides[i] at least globalDim[i] of strides[i - 1].
  uint64_t covered = map.globalDim[0] * elementBytes;
  for (unsigned dim = 1; dim < map.rank; ++dim) {
    uint64_t stride = map.globalStrides[dim - 1];
    std::string name = at("globalStrides", dim - 1);
    if (stride % 16 != 0)
      return name + " = " + std::to_string(stride) +
             " bytes is not a multiple of 16";
    if (stride >= (uint64_t(1) << 40))
      return name + " = " + std::to_string(stride) + " bytes is not below 2^40";
    if (stride < covered)
      return name + " = " + std::to_string(stride) +
             " bytes is less than the " + std::to_string(covered) +
             " bytes of the dimension below it";
    // Saturated: a product past 2^40 fails the next stride anyway.
    if (__builtin_mul_overflow(stride, map.globalDim[dim], &covered))
      covered = uint64_t(1) << 40;
  }
  for (unsigned dim = 0; dim < map.rank; ++dim) {
    if (map.boxDim[dim] < 1 || map.boxDim[dim] > 256)
      return at("boxDim", dim) + " = " + std::to_string(map.boxDim[dim]) +
             " is outside 1 to 256";
    if (map.elementStrides[dim] < 1 || map.elementStrides[dim] > 8)
      return at("elementStrides", dim) + " = " +
             std::to_string(map.elementStrides[dim]) + " is outside 1 to 8";
  }
  uint64_t innerBytes = map.boxDim[0] * elementBytes;
  if (innerBytes % 16 != 0)
    return "the box's inner dimension (boxDim[0] = " +
           std::to_string(map.boxDim[0]) + " elements, " +
           std::to_string(innerBytes) + " bytes) is not a multiple of 16 bytes";
  if (static_cast<unsigned>(map.swizzle) > 3)
    return "the swizzle mode " +
           std::to_string(static_cast<unsigned>(map.swizzle)) +
           " is not one of none, 32B, 64B, 128B";
  unsigned span = swizzleSpanBytes(map.swizzle);
  if (span != 0 && innerBytes > span)
    return "the box's inner dimension of " + std::to_string(innerBytes) +
           " bytes is wider than its " + std::to_string(span) +
           "-byte swizzle span";
  return std::nullopt;
}
