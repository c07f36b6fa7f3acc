//===- SourceIndex.h - the names of a .tile source and their uses -*- C++
//-*-===//
//
// What an editor asks of a .tile file without compiling it: where each
// kernel, parameter, symbolic dimension, var, const and loop index is
// declared and where each is used, resolved by the language's scope rules
// (docs/spec.md, "Names and scopes"), from the front end's own syntax tree.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_FRONTEND_SOURCEINDEX_H
#define TILE_FRONTEND_SOURCEINDEX_H

#include "mlir/Support/LLVM.h"
#include "llvm/ADT/StringRef.h"

#include <optional>
#include <string>
#include <vector>

namespace llvm {
class SourceMgr;
} // namespace llvm

namespace mlir {
class MLIRContext;
} // namespace mlir

namespace mlir::tile {

struct SourceSymbol {
  enum class Kind { Kernel, Parameter, Dimension, Var, Const, LoopIndex };
  Kind kind;
  std::string name;
  /// Byte offset of the name where it is declared.
  size_t offset;
  /// The kernel it belongs to (an index into SourceIndex::kernels), or -1
  /// for a file-level const.
  int kernel;
  /// The declared type as written (`tile<f32>[16, 64]`), else empty.
  std::string type;
  /// Byte offset of the declaring statement (`var`, `const`, `for`, the
  /// kernel's first attribute).
  size_t statement;
};

/// One use of a symbol's name (its declaration is not one).
struct SourceReference {
  size_t offset;
  unsigned symbol;
};

/// A call of a builtin, where its name is.
struct SourceCall {
  size_t offset;
  std::string callee;
  int kernel;
};

struct SourceIndex {
  std::vector<SourceSymbol> symbols;
  std::vector<SourceReference> references;
  std::vector<SourceCall> calls;
  /// The symbols of kind Kernel, in source order (SourceSymbol::kernel
  /// indexes this).
  std::vector<unsigned> kernels;

  /// The symbol whose declaration or use covers byte `offset`, if any.
  std::optional<unsigned> symbolAt(size_t offset) const;
};

/// Indexes the main buffer of `sourceMgr` with the front end's parser.
/// On a syntax error, reports it through `context`'s diagnostic handler
/// and returns nothing.
std::optional<SourceIndex> indexTileSource(llvm::SourceMgr &sourceMgr,
                                           MLIRContext *context);

} // namespace mlir::tile

#endif // TILE_FRONTEND_SOURCEINDEX_H
