//===- Half.h - f16 and bf16 conversions ------------------------*- C++ -*-===//
//
// Conversions between double and the bits of IEEE binary16 (f16) and
// bfloat16, rounding to nearest, ties to even. They take a double, not a
// float: double -> float -> f16 would round twice and can be off by one ulp
// at a tie; every float widens to double exactly, so float callers lose
// nothing. Header-only: the runtime and the interpreter share it.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_RUNTIME_HALF_H
#define TILE_RUNTIME_HALF_H

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>

namespace tile::runtime {
namespace detail {
/// Rounds a finite, non-negative `magnitude` to the nearest number with
/// `precision` significand bits whose exponent is at least `minExponent`
/// (below it the spacing stays that of the smallest normal: subnormals).
/// Every step is exact in double except nearbyint, which rounds to nearest
/// even in the default rounding mode.
inline double roundToFormat(double magnitude, int precision, int minExponent) {
  if (magnitude == 0)
    return 0;
  int exponent;
  std::frexp(magnitude, &exponent); // magnitude in [2^(exponent-1), 2^exponent)
  int ulpExponent = std::max(exponent - 1, minExponent) - (precision - 1);
  return std::ldexp(std::nearbyint(std::ldexp(magnitude, -ulpExponent)),
                    ulpExponent);
}
} // namespace detail

inline uint16_t toHalfBits(double value) {
  uint16_t sign = std::signbit(value) ? 0x8000 : 0;
  if (std::isnan(value))
    return sign | 0x7e00;
  double rounded = std::isinf(value)
                       ? value
                       : detail::roundToFormat(std::fabs(value), 11, -14);
  if (std::fabs(rounded) > 65504.0)
    return sign | 0x7c00;
  if (rounded < std::ldexp(1.0, -14)) // subnormal: a count of 2^-24
    return sign | static_cast<uint16_t>(std::ldexp(rounded, 24));
  int exponent;
  double fraction = std::frexp(rounded, &exponent); // in [0.5, 1)
  auto significand = static_cast<uint16_t>(std::ldexp(fraction, 11));
  return sign | static_cast<uint16_t>((exponent - 1 + 15) << 10) |
         static_cast<uint16_t>(significand - 0x400);
}

inline double fromHalfBits(uint16_t bits) {
  double sign = (bits & 0x8000) ? -1.0 : 1.0;
  int exponent = (bits >> 10) & 0x1f;
  int mantissa = bits & 0x3ff;
  if (exponent == 0x1f)
    return mantissa ? std::nan("") : sign * INFINITY;
  if (exponent == 0)
    return sign * std::ldexp(mantissa, -24);
  return sign * std::ldexp(mantissa + 0x400, exponent - 15 - 10);
}

inline uint16_t toBFloat16Bits(double value) {
  uint16_t sign = std::signbit(value) ? 0x8000 : 0;
  if (std::isnan(value))
    return sign | 0x7fc0;
  // The rounded value fits a float exactly (or overflows it to infinity),
  // and bfloat16 is the top half of that float.
  double rounded = std::isinf(value)
                       ? value
                       : detail::roundToFormat(std::fabs(value), 8, -126);
  float asFloat = std::fabs(rounded) > 3.3895313892515355e38
                      ? INFINITY
                      : static_cast<float>(std::fabs(rounded));
  uint32_t floatBits;
  std::memcpy(&floatBits, &asFloat, sizeof(floatBits));
  return sign | static_cast<uint16_t>(floatBits >> 16);
}

inline double fromBFloat16Bits(uint16_t bits) {
  uint32_t floatBits = static_cast<uint32_t>(bits) << 16;
  float value;
  std::memcpy(&value, &floatBits, sizeof(value));
  return value;
}

} // namespace tile::runtime

#endif // TILE_RUNTIME_HALF_H
