//===- Signature.h - a lowered kernel's tile parameter types ----*- C++ -*-===//
//
// tile-to-gpu records on each gpu.func it makes the tile.kernel's parameter
// types, which its `!llvm.ptr<1>` parameters no longer say, so that
// tile-emulate can check the --arg descriptions it is given against them.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_CONVERSION_TILETOGPU_SIGNATURE_H
#define TILE_CONVERSION_TILETOGPU_SIGNATURE_H

#include "llvm/ADT/StringRef.h"

namespace mlir::tile {

/// The gpu.func attribute (kept on the llvm.func it becomes, which the
/// translation to LLVM IR ignores): an array of the kernel's parameter
/// types in order, a !tile.tensor or a scalar type each. Not in the tile
/// dialect's namespace, whose verifier knows only its own attributes, and
/// not one a pass reads: a record for tools.
inline constexpr llvm::StringLiteral kSignatureAttrName = "tile_signature";

} // namespace mlir::tile

#endif // TILE_CONVERSION_TILETOGPU_SIGNATURE_H
