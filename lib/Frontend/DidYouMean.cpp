//===- DidYouMean.cpp - suggestions for misspelled names ------------------===//

#include "tile/Frontend/DidYouMean.h"

#include "llvm/ADT/Twine.h"

#include <algorithm>

using namespace mlir::tile;

std::optional<llvm::StringRef>
mlir::tile::suggestName(llvm::StringRef name,
                        llvm::ArrayRef<llvm::StringRef> candidates) {
  std::optional<llvm::StringRef> best;
  unsigned bestDistance = 0;
  for (llvm::StringRef candidate : candidates) {
    if (candidate == name || candidate.empty())
      continue;
    // A third of the longer name's letters (`rowsun` for `rowsum`, `totl`
    // for `total`; not `rowmax` for `softmax`, nor `x` for `y`), or the
    // one a shortening of the other (`acc` for `accum`).
    size_t longer = std::max(name.size(), candidate.size());
    unsigned allowed = std::max<size_t>(1, longer / 3);
    bool shortening =
        std::min(name.size(), candidate.size()) >= 3 &&
        (name.starts_with(candidate) || candidate.starts_with(name));
    unsigned distance = name.edit_distance(candidate, /*AllowReplacements=*/
                                           true, longer);
    if ((distance > allowed && !shortening) || distance >= longer)
      continue;
    if (!best || distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return best;
}

std::string
mlir::tile::formatDidYouMean(llvm::StringRef name,
                             llvm::ArrayRef<llvm::StringRef> candidates) {
  if (std::optional<llvm::StringRef> suggestion = suggestName(name, candidates))
    return ("; did you mean '" + llvm::Twine(*suggestion) + "'?").str();
  return "";
}
