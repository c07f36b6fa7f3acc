//===- FloatDivision.h - how the GPU code divides floats --------*- C++ -*-===//
//
// The runtime's FloatDivision (tile/Runtime/FloatOptions.h, where the
// manifest reads it) under the names the compiler's options use.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_CONVERSION_TILETOGPU_FLOATDIVISION_H
#define TILE_CONVERSION_TILETOGPU_FLOATDIVISION_H

#include "tile/Runtime/FloatOptions.h"

#include "llvm/ADT/StringRef.h"

namespace mlir::tile {

using ::tile::runtime::FloatDivision;
using ::tile::runtime::FloatOptions;

/// The spelling of `division` in options: "ieee" or "full".
inline llvm::StringRef stringifyFloatDivision(FloatDivision division) {
  return ::tile::runtime::floatDivisionName(division);
}

/// The FloatDivision spelled `name`, if any.
inline std::optional<FloatDivision> parseFloatDivision(llvm::StringRef name) {
  return ::tile::runtime::parseFloatDivision(std::string_view(name));
}

} // namespace mlir::tile

#endif // TILE_CONVERSION_TILETOGPU_FLOATDIVISION_H
