//===- Wgmma.h - which tensor-core dots run on wgmma ------------*- C++ -*-===//
//
// tile-tensor-cores' choice of Hopper's warpgroup MMA (Wgmma.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef TILE_LIB_DIALECT_TILE_TRANSFORMS_WGMMA_H
#define TILE_LIB_DIALECT_TILE_TRANSFORMS_WGMMA_H

#include "tile/Dialect/Tile/IR/TileDialect.h"

#include <string>

namespace mlir::tile {
/// On sm_90, puts on wgmma (`tile.dot ... on wgmma`) each of `dots` (on
/// tensor cores) whose shape wgmma takes (64 rows a warpgroup, N a
/// multiple of 8 up to 256) and whose operands can be laid out in its
/// swizzle: its result in #tile.mma<warps = [W, 1]> (wgmma's accumulator
/// fragments), its operand vars swizzled (`tile.swizzle`; an operand that
/// is no var's read gets a shared var of its own). Records in `notWgmma`
/// why each other dot keeps mma.sync, on sm_90.
void chooseWgmma(KernelOp kernel, ArrayRef<DotOp> dots, int chip,
                 DenseMap<Operation *, std::string> &notWgmma);
/// What a dot on wgmma runs, for its remark.
std::string describeWgmma(DotOp dot);
} // namespace mlir::tile

#endif // TILE_LIB_DIALECT_TILE_TRANSFORMS_WGMMA_H
