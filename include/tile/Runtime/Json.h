//===- Json.h - a small JSON reader -----------------------------*- C++ -*-===//
//
// Enough JSON for the manifest, with no dependency: malformed text is an
// Input error with the byte offset, never a crash (nesting is bounded, so
// deep input cannot exhaust the stack).
//
//===----------------------------------------------------------------------===//

#ifndef TILE_RUNTIME_JSON_H
#define TILE_RUNTIME_JSON_H

#include "tile/Runtime/Error.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace tile::runtime {

struct JsonValue {
  enum class Kind { Null, Bool, Number, String, Array, Object };
  Kind kind = Kind::Null;
  bool boolean = false;
  double number = 0;
  /// Set for a number written without fraction or exponent that fits.
  bool isInteger = false;
  int64_t integer = 0;
  std::string string;
  std::vector<JsonValue> array;
  /// Keys in order of appearance; a key appears once.
  std::vector<std::pair<std::string, JsonValue>> object;

  /// The member `key` of an object, or null.
  const JsonValue *get(std::string_view key) const;
};

Expected<JsonValue> parseJson(std::string_view text);

} // namespace tile::runtime

#endif // TILE_RUNTIME_JSON_H
