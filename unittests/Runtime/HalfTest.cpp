//===- HalfTest.cpp - f16 and bf16 conversions ----------------------------===//

#include "tile/Runtime/Half.h"

#include "gtest/gtest.h"

using namespace tile::runtime;

namespace {

TEST(HalfTest, ExactValues) {
  EXPECT_EQ(toHalfBits(1.0), 0x3c00);
  EXPECT_EQ(toHalfBits(-2.0), 0xc000);
  EXPECT_EQ(toHalfBits(0.0), 0x0000);
  EXPECT_EQ(toHalfBits(-0.0), 0x8000);
  EXPECT_EQ(toHalfBits(65504.0), 0x7bff);
  EXPECT_EQ(toHalfBits(std::ldexp(1.0, -14)), 0x0400); // smallest normal
  EXPECT_EQ(toHalfBits(std::ldexp(1.0, -24)), 0x0001); // smallest subnormal
  EXPECT_EQ(fromHalfBits(0x3c00), 1.0);
  EXPECT_EQ(fromHalfBits(0x0001), std::ldexp(1.0, -24));
  EXPECT_EQ(fromHalfBits(0x7bff), 65504.0);
}

TEST(HalfTest, RoundsToNearestEven) {
  // 1 + 2^-11 is halfway between 1 and 1 + 2^-10: ties go to even (1).
  EXPECT_EQ(toHalfBits(1.0 + std::ldexp(1.0, -11)), 0x3c00);
  // 1 + 3 * 2^-11 is halfway between odd 0x3c01 and even 0x3c02.
  EXPECT_EQ(toHalfBits(1.0 + 3 * std::ldexp(1.0, -11)), 0x3c02);
  // Just above the tie rounds up.
  EXPECT_EQ(toHalfBits(1.0 + std::ldexp(1.0, -11) + std::ldexp(1.0, -30)),
            0x3c01);
  // Subnormals: 2^-25 is halfway between 0 and 2^-24 and goes to 0;
  // 3 * 2^-26 is nearer 2^-24.
  EXPECT_EQ(toHalfBits(std::ldexp(1.0, -25)), 0x0000);
  EXPECT_EQ(toHalfBits(3 * std::ldexp(1.0, -26)), 0x0001);
  // A subnormal that rounds up into the smallest normal.
  EXPECT_EQ(toHalfBits(std::ldexp(1.0, -14) - std::ldexp(1.0, -26)), 0x0400);
}

TEST(HalfTest, OverflowInfinityAndNaN) {
  EXPECT_EQ(toHalfBits(65519.0), 0x7bff); // below the tie at 65520
  EXPECT_EQ(toHalfBits(65520.0), 0x7c00); // the tie goes to even: infinity
  EXPECT_EQ(toHalfBits(1e10), 0x7c00);
  EXPECT_EQ(toHalfBits(-INFINITY), 0xfc00);
  EXPECT_EQ(toHalfBits(NAN) & 0x7fff, 0x7e00);
  EXPECT_TRUE(std::isnan(fromHalfBits(0x7e00)));
  EXPECT_EQ(fromHalfBits(0xfc00), -INFINITY);
}

TEST(HalfTest, EveryHalfRoundTrips) {
  for (uint32_t bits = 0; bits <= 0xffff; ++bits) {
    double value = fromHalfBits(static_cast<uint16_t>(bits));
    if (std::isnan(value))
      continue;
    ASSERT_EQ(toHalfBits(value), bits) << "bits 0x" << std::hex << bits;
  }
}

TEST(BFloat16Test, RoundsToNearestEven) {
  EXPECT_EQ(toBFloat16Bits(1.0), 0x3f80);
  EXPECT_EQ(toBFloat16Bits(-2.0), 0xc000);
  // 1 + 2^-8 is halfway between 1 and 1 + 2^-7: to even (1).
  EXPECT_EQ(toBFloat16Bits(1.0 + std::ldexp(1.0, -8)), 0x3f80);
  EXPECT_EQ(toBFloat16Bits(1.0 + 3 * std::ldexp(1.0, -8)), 0x3f82);
  EXPECT_EQ(toBFloat16Bits(3.4e38), 0x7f80); // past the largest: infinity
  EXPECT_EQ(toBFloat16Bits(NAN) & 0x7fff, 0x7fc0);
  EXPECT_EQ(fromBFloat16Bits(0x3f80), 1.0);
  EXPECT_EQ(fromBFloat16Bits(0x4049), 3.140625);
}

TEST(BFloat16Test, EveryBFloat16RoundTrips) {
  for (uint32_t bits = 0; bits <= 0xffff; ++bits) {
    double value = fromBFloat16Bits(static_cast<uint16_t>(bits));
    if (std::isnan(value))
      continue;
    ASSERT_EQ(toBFloat16Bits(value), bits) << "bits 0x" << std::hex << bits;
  }
}

} // namespace
