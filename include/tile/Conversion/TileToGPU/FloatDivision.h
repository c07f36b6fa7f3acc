//===- FloatDivision.h - how the GPU code divides floats --------*- C++ -*-===//

#ifndef TILE_CONVERSION_TILETOGPU_FLOATDIVISION_H
#define TILE_CONVERSION_TILETOGPU_FLOATDIVISION_H

#include "llvm/ADT/StringRef.h"

#include <optional>

namespace mlir::tile {

/// How an f32 `/` is compiled (`--fp-div`, docs/spec.md "Floating point").
enum class FloatDivision {
  /// `div.rn.f32`: correctly rounded, as the reference computes it (nvcc's
  /// default, -prec-div=true). The default.
  IEEE,
  /// `div.full.f32`: the PTX ISA's full-range approximation, at most 2 ulp
  /// off (Triton's `/`, nvcc's -prec-div=false).
  Full,
};

/// The spelling of `division` in options: "ieee" or "full".
inline llvm::StringRef stringifyFloatDivision(FloatDivision division) {
  return division == FloatDivision::Full ? "full" : "ieee";
}

/// The FloatDivision spelled `name`, if any.
inline std::optional<FloatDivision> parseFloatDivision(llvm::StringRef name) {
  if (name == "ieee")
    return FloatDivision::IEEE;
  if (name == "full")
    return FloatDivision::Full;
  return std::nullopt;
}

} // namespace mlir::tile

#endif // TILE_CONVERSION_TILETOGPU_FLOATDIVISION_H
