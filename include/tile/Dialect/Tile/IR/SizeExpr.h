//===- SizeExpr.h - dimensions of global tensors as expressions -*- C++ -*-===//
//
// A dynamic dimension of a `!tile.tensor` is a *size*: a symbol (`K`) or an
// affine expression of symbols and integers with `+`, `-`, `*` and
// parentheses (`2 * H`, `H + 1`), spelled as the manifest spells shapes and
// grids (docs/abi.md), so that the text passes to every runtime unchanged.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_DIALECT_TILE_IR_SIZEEXPR_H
#define TILE_DIALECT_TILE_IR_SIZEEXPR_H

#include "mlir/IR/AffineExpr.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/ADT/SmallVector.h"

#include <string>

namespace mlir::tile {

class GlobalTensorType;
class KernelOp;

/// `text` as an affine expression whose symbol `i` is `symbols[i]`; names
/// not yet in `symbols` are appended. On a syntax error, a division, a
/// product of two symbolic factors or a size with no symbol, fails with
/// `error` set. `canonical`, if given, receives the text spaced as the
/// type prints it ("2 * H" for "2*H"), so that one size is one type.
FailureOr<AffineExpr> parseSizeExpr(StringRef text,
                                    SmallVectorImpl<StringAttr> &symbols,
                                    MLIRContext *context, std::string &error,
                                    std::string *canonical = nullptr);

/// Whether `text` is a single symbol rather than an expression.
bool isSymbolSize(StringRef text);

/// The symbols `tensor`'s sizes name, in order of first appearance.
SmallVector<StringAttr> getSizeSymbols(GlobalTensorType tensor);

/// Dimension `dim` of `tensor` as an affine expression whose symbol `i` is
/// `symbols[i]` (names not there are appended); a constant if static.
AffineExpr getSizeExpr(GlobalTensorType tensor, unsigned dim,
                       SmallVectorImpl<StringAttr> &symbols);

/// The integer scalar parameters (i32, index) of `kernel`, in parameter
/// order: after the symbols, the names a grid may use.
SmallVector<StringAttr> getIntegerScalarNames(KernelOp kernel);

/// The names of the grid map's symbols: the kernel's symbols, then, when
/// the map has more, its integer scalar parameters.
SmallVector<StringAttr> getGridSymbols(KernelOp kernel);

/// `size` (constants, symbols, + and *) as `index` arith ops at the
/// builder, symbol `i` being `symbolValue(i)`.
Value buildSizeValue(OpBuilder &builder, Location loc, AffineExpr size,
                     function_ref<Value(unsigned)> symbolValue);

} // namespace mlir::tile

#endif // TILE_DIALECT_TILE_IR_SIZEEXPR_H
