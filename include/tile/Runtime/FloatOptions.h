//===- FloatOptions.h - the floating-point options of a kernel --*- C++ -*-===//
//
// How a kernel's float arithmetic is compiled (docs/spec.md, "Floating
// point"): whether multiplies and adds fuse, how an f32 `/` divides. The
// compiler takes them (--fp-contract, --fp-div), the manifest records them
// (docs/abi.md), and they decide which results the check holds exact, so
// every comparison with the reference reads them from one place. Plain
// C++: the runtime and tile-launch link no LLVM.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_RUNTIME_FLOATOPTIONS_H
#define TILE_RUNTIME_FLOATOPTIONS_H

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace tile::runtime {

/// How an f32 `/` is compiled (`--fp-div`).
enum class FloatDivision : uint8_t {
  /// `div.rn.f32`: correctly rounded, as the reference computes it (nvcc's
  /// default, -prec-div=true). The default.
  IEEE,
  /// `div.full.f32`: the PTX ISA's full-range approximation, at most 2 ulp
  /// off (Triton's `/`, nvcc's -prec-div=false).
  Full,
};

/// The spelling of `division` in options and manifests: "ieee" or "full".
inline const char *floatDivisionName(FloatDivision division) {
  return division == FloatDivision::Full ? "full" : "ieee";
}

/// The FloatDivision spelled `name`, if any.
inline std::optional<FloatDivision> parseFloatDivision(std::string_view name) {
  if (name == "ieee")
    return FloatDivision::IEEE;
  if (name == "full")
    return FloatDivision::Full;
  return std::nullopt;
}

/// The floating-point options of a compiled kernel; the defaults are those
/// of a manifest or expectation that does not record them.
struct FloatOptions {
  /// Float multiplies and adds may fuse into FMAs (`--fp-contract`): an add
  /// or subtract of a product is then rounded once, so not exact.
  bool contract = true;
  /// An f32 quotient is exact (IEEE) or up to 2 ulp off (Full).
  FloatDivision division = FloatDivision::IEEE;

  bool operator==(const FloatOptions &other) const {
    return contract == other.contract && division == other.division;
  }
  bool operator!=(const FloatOptions &other) const { return !(*this == other); }
};

/// "fp_contract=true, fp_div=ieee": the manifest's fields, for messages.
inline std::string describeFloatOptions(const FloatOptions &options) {
  return std::string("fp_contract=") + (options.contract ? "true" : "false") +
         ", fp_div=" + floatDivisionName(options.division);
}

} // namespace tile::runtime

#endif // TILE_RUNTIME_FLOATOPTIONS_H
