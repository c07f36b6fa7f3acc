//===- DidYouMean.h - suggestions for misspelled names ----------*- C++ -*-===//
//
// The one "did you mean" of tile: both front ends (.tile and Python, through
// the extension) and the tools suggest with it, so a name that is close to
// a known one gets the same suggestion everywhere.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_FRONTEND_DIDYOUMEAN_H
#define TILE_FRONTEND_DIDYOUMEAN_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <optional>
#include <string>

namespace mlir::tile {

/// The candidate closest to `name` by edit distance, when it is close
/// enough to be a misspelling of it (at most a third of the longer name's
/// letters differ, or one is the other shortened, and at least one letter
/// agrees); ties go to the first.
std::optional<llvm::StringRef>
suggestName(llvm::StringRef name, llvm::ArrayRef<llvm::StringRef> candidates);

/// "; did you mean 'NAME'?" for suggestName's answer, else "".
std::string formatDidYouMean(llvm::StringRef name,
                             llvm::ArrayRef<llvm::StringRef> candidates);

} // namespace mlir::tile

#endif // TILE_FRONTEND_DIDYOUMEAN_H
