//===- Language.h - the names the .tile language predefines -----*- C++ -*-===//
//
// The one list of the .tile language's builtin functions, statements, stage
// accessors, casts, kernel attributes and `ctx.` fields, with the signature
// and summary docs/spec.md gives each. The front end recognizes names by
// it (attributes, statements, stage accessors, reserved names) and the
// language server completes from it.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_FRONTEND_LANGUAGE_H
#define TILE_FRONTEND_LANGUAGE_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

namespace mlir::tile {

struct LanguageName {
  enum class Kind {
    /// A builtin function (`rowsum`, `dot`, `exp`, ...): a value.
    Function,
    /// A call that stands alone as a statement (`copy`, `barrier`, ...).
    Statement,
    /// A stage of a pipeline ring (`stage`, `front`, `back`).
    StageAccessor,
    /// A conversion named by its type (`f32(x)`).
    Cast,
    /// A kernel attribute (`@launch`); the name is without its `@`.
    Attribute,
    /// A field of `ctx` (`thread`, `block.x`); the name is without `ctx.`.
    ContextField,
  };
  Kind kind;
  llvm::StringLiteral name;
  /// How a call is written, e.g. `dot(a, b, precision = P)`.
  llvm::StringLiteral signature;
  /// One sentence from docs/spec.md.
  llvm::StringLiteral summary;
};

/// Every predefined name of the language, in docs/spec.md's order.
llvm::ArrayRef<LanguageName> getLanguageNames();
/// The entry for `name` of `kind`, or null.
const LanguageName *lookupLanguageName(LanguageName::Kind kind,
                                       llvm::StringRef name);
inline bool isLanguageName(LanguageName::Kind kind, llvm::StringRef name) {
  return lookupLanguageName(kind, name) != nullptr;
}

} // namespace mlir::tile

#endif // TILE_FRONTEND_LANGUAGE_H
