//===- TensorMapTest.cpp - the driver's rules for a tiled tensor map ------===//

#include "tile/Runtime/TensorMap.h"

#include "gtest/gtest.h"

using namespace tile::runtime;

namespace {

/// A [K = 200, 96] f16 tensor (row-major: 192 bytes a row) read in
/// [64, 64] boxes with the 128-byte swizzle: what a GEMM's A operand asks.
TensorMapDesc gemmOperand() {
  TensorMapDesc map;
  map.dtype = DType::F16;
  map.rank = 2;
  map.globalDim = {96, 200};
  map.globalStrides = {192};
  map.boxDim = {64, 64};
  map.swizzle = TensorMapSwizzle::Bytes128;
  return map;
}

std::string check(const TensorMapDesc &map) {
  return checkTensorMap(map).value_or("ok");
}

TEST(TensorMapTest, AcceptsWhatTheDriverTakes) {
  EXPECT_EQ(check(gemmOperand()), "ok");
  TensorMapDesc map = gemmOperand();
  map.swizzle = TensorMapSwizzle::None;
  map.boxDim = {256, 256};
  map.globalDim = {256, 1};
  map.globalStrides = {512};
  EXPECT_EQ(check(map), "ok");
  // Five dimensions, strides with padding, element strides up to 8.
  TensorMapDesc five;
  five.dtype = DType::F32;
  five.rank = 5;
  five.globalDim = {4, 3, 2, 2, 2};
  five.globalStrides = {32, 96, 192, 400};
  five.boxDim = {4, 3, 2, 2, 1};
  five.elementStrides = {1, 2, 8, 1, 1};
  EXPECT_EQ(check(five), "ok");
  TensorMapDesc one;
  one.dtype = DType::I32;
  one.rank = 1;
  one.globalDim = {uint64_t(1) << 32};
  one.boxDim = {4};
  EXPECT_EQ(check(one), "ok");
}

TEST(TensorMapTest, Rank) {
  TensorMapDesc map = gemmOperand();
  map.rank = 0;
  EXPECT_EQ(check(map), "the rank 0 is outside 1 to 5");
  map.rank = 6;
  EXPECT_EQ(check(map), "the rank 6 is outside 1 to 5");
}

TEST(TensorMapTest, GlobalDims) {
  TensorMapDesc map = gemmOperand();
  map.globalDim[1] = 0;
  EXPECT_EQ(check(map), "globalDim[1] = 0 is outside 1 to 2^32");
  map.globalDim[1] = (uint64_t(1) << 32) + 1;
  EXPECT_EQ(check(map), "globalDim[1] = 4294967297 is outside 1 to 2^32");
}

TEST(TensorMapTest, GlobalStrides) {
  TensorMapDesc map = gemmOperand();
  map.globalStrides[0] = 200;
  EXPECT_EQ(check(map), "globalStrides[0] = 200 bytes is not a multiple of 16");
  map.globalStrides[0] = 176; // 88 f16: less than a row of 96
  EXPECT_EQ(check(map), "globalStrides[0] = 176 bytes is less than the 192 "
                        "bytes of the dimension below it");
  map.globalStrides[0] = uint64_t(1) << 40;
  EXPECT_EQ(check(map),
            "globalStrides[0] = 1099511627776 bytes is not below 2^40");
  // A higher stride must cover the whole of the dimension below it.
  TensorMapDesc three = gemmOperand();
  three.rank = 3;
  three.globalDim = {96, 200, 4};
  three.globalStrides = {192, 192 * 199};
  three.boxDim = {64, 64, 1};
  EXPECT_EQ(check(three), "globalStrides[1] = 38208 bytes is less than the "
                          "38400 bytes of the dimension below it");
}

TEST(TensorMapTest, BoxAndElementStrides) {
  TensorMapDesc map = gemmOperand();
  map.boxDim[1] = 257;
  EXPECT_EQ(check(map), "boxDim[1] = 257 is outside 1 to 256");
  map.boxDim[1] = 0;
  EXPECT_EQ(check(map), "boxDim[1] = 0 is outside 1 to 256");
  map = gemmOperand();
  map.elementStrides[1] = 9;
  EXPECT_EQ(check(map), "elementStrides[1] = 9 is outside 1 to 8");
  map.elementStrides[1] = 0;
  EXPECT_EQ(check(map), "elementStrides[1] = 0 is outside 1 to 8");
  // The inner dimension in 16-byte units: 12 f16 are 24 bytes.
  map = gemmOperand();
  map.boxDim[0] = 12;
  EXPECT_EQ(check(map), "the box's inner dimension (boxDim[0] = 12 elements, "
                        "24 bytes) is not a multiple of 16 bytes");
}

TEST(TensorMapTest, SwizzleSpan) {
  // 64 f16 are 128 bytes: the 128-byte swizzle takes them, 64 and 32 not.
  TensorMapDesc map = gemmOperand();
  map.swizzle = TensorMapSwizzle::Bytes64;
  EXPECT_EQ(check(map), "the box's inner dimension of 128 bytes is wider than "
                        "its 64-byte swizzle span");
  map.swizzle = TensorMapSwizzle::Bytes32;
  map.boxDim[0] = 16;
  EXPECT_EQ(check(map), "ok");
  map.boxDim[0] = 32;
  EXPECT_EQ(check(map), "the box's inner dimension of 64 bytes is wider than "
                        "its 32-byte swizzle span");
  map.swizzle = static_cast<TensorMapSwizzle>(4);
  EXPECT_EQ(check(map),
            "the swizzle mode 4 is not one of none, 32B, 64B, 128B");
}

TEST(TensorMapTest, ElementTypes) {
  TensorMapDesc map = gemmOperand();
  map.dtype = DType::I1;
  EXPECT_EQ(check(map), "the element type i1 has no tensor-map data type");
}

TEST(TensorMapTest, BoxBytes) {
  TensorMapDesc map = gemmOperand();
  EXPECT_EQ(boxBytes(map), 64u * 64 * 2);
  // Element strides thin the box out (dimension 0's is ignored):
  // ceil(64 / 3) = 22 rows.
  map.elementStrides = {4, 3, 1, 1, 1};
  EXPECT_EQ(boxElements(map, 0), 64u);
  EXPECT_EQ(boxElements(map, 1), 22u);
  EXPECT_EQ(boxBytes(map), 64u * 22 * 2);
  EXPECT_EQ(swizzleSpanBytes(TensorMapSwizzle::None), 0u);
  EXPECT_EQ(swizzleSpanBytes(TensorMapSwizzle::Bytes128), 128u);
}

} // namespace
