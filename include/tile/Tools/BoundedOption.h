//===- BoundedOption.h - numeric options checked when parsed ---*- C++ -*-===//
//
// A numeric command-line option whose value is checked where the command
// line is parsed, so that an out-of-range value is an error of the command
// line ("for the --index-bits option: must be 32 or 64, not '48'"), never a
// value some later stage ignores or reads as another.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_TOOLS_BOUNDEDOPTION_H
#define TILE_TOOLS_BOUNDEDOPTION_H

#include "llvm/Support/CommandLine.h"

#include <string>

namespace mlir::tile {

/// Parses a T (an integer type whose LLVM parser is not final: unsigned,
/// int, long long) in [Min, Max]; with `Only`, Min or Max alone
/// (`--index-bits`: 32 or 64).
template <typename T, long long Min, long long Max, bool Only = false>
class BoundedParser : public llvm::cl::parser<T> {
public:
  using llvm::cl::parser<T>::parser;

  bool parse(llvm::cl::Option &option, llvm::StringRef name,
             llvm::StringRef arg, T &value) {
    if (llvm::cl::parser<T>::parse(option, name, arg, value))
      return true;
    auto wide = static_cast<long long>(value);
    bool fits =
        Only ? (wide == Min || wide == Max) : (wide >= Min && wide <= Max);
    if (fits)
      return false;
    return option.error(
        "must be " +
        (Only ? std::to_string(Min) + " or " + std::to_string(Max)
              : "from " + std::to_string(Min) + " to " + std::to_string(Max)) +
        ", not '" + arg + "'");
  }
};

} // namespace mlir::tile

#endif // TILE_TOOLS_BOUNDEDOPTION_H
