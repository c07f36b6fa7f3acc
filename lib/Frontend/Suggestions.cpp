//===- Suggestions.cpp - what an error suggests in its place --------------===//
//
// The did-you-mean and fix-it parts of the front end's errors, kept apart
// from the emitters so each error site adds one call: the names in scope, the
// builtins, the attributes, and the conversions the language wants spelled
// out.
//
//===----------------------------------------------------------------------===//

#include "Emitter.h"

#include "tile/Frontend/DidYouMean.h"
#include "tile/Frontend/Language.h"

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tile::frontend;

/// The language's predefined names of `kinds` (Language.h).
static SmallVector<StringRef> namesOf(ArrayRef<LanguageName::Kind> kinds) {
  SmallVector<StringRef> names;
  for (const LanguageName &entry : getLanguageNames())
    if (llvm::is_contained(kinds, entry.kind))
      names.push_back(entry.name);
  return names;
}

std::string Emitter::suggestVisibleName(StringRef name) const {
  SmallVector<StringRef> names;
  for (const llvm::StringMap<Symbol> &scope : scopes)
    for (const auto &entry : scope)
      names.push_back(entry.getKey());
  return formatDidYouMean(name, names);
}

std::string Emitter::suggestFunction(StringRef name, StringRef prefix) {
  // Functions of other libraries that the language spells another way.
  static constexpr std::pair<StringRef, StringRef> kSpelledOtherwise[] = {
      {"relu", "max(x, 0.0)"},
      {"sum", "rowsum(x)"},
      {"matmul", "dot(a, b)"},
      {"maximum", "max(a, b)"},
      {"minimum", "min(a, b)"},
      {"silu", "x * sigmoid(x)"},
      {"gelu", "0.5 * x * (1.0 + erf(x * 0.70710678))"},
  };
  for (auto [other, spelling] : kSpelledOtherwise)
    if (name == other)
      return ("; the language has no '" + Twine(name) + "': write " + prefix +
              spelling)
          .str();
  return formatDidYouMean(
      name, namesOf({LanguageName::Kind::Function, LanguageName::Kind::Cast}));
}

std::string Emitter::suggestAttribute(StringRef name) {
  return formatDidYouMean(name, namesOf({LanguageName::Kind::Attribute}));
}

std::string Emitter::suggestDeclared(StringRef name, bool loopIndices) const {
  SmallVector<StringRef> names;
  for (const auto &entry : declaredVars)
    names.push_back(entry.getKey());
  if (loopIndices)
    for (const auto &entry : declaredLoopIndices)
      names.push_back(entry.getKey());
  return formatDidYouMean(name, names);
}

std::string Emitter::suggestConversion(Type from, Type to) const {
  Type element = getElementTypeOrSelf(to);
  if (getElementTypeOrSelf(from) == element)
    return "";
  if (!isa<FloatType>(element) && !element.isInteger(32) && !element.isIndex())
    return "";
  return "; values are never converted implicitly: write " +
         builtinPrefix.str() + describe(element) + "(...)";
}
