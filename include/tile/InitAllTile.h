//===- InitAllTile.h - register the tile dialects and passes ----*- C++ -*-===//
//
// For tools and embedders: everything a tile pipeline needs in one registry.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_INITALLTILE_H
#define TILE_INITALLTILE_H

namespace mlir {
class DialectRegistry;
} // namespace mlir

namespace mlir::tile {
/// The tile dialect and the upstream dialects tile IR is made of (arith,
/// math, scf, func) or lowers to (gpu, nvvm, llvm, memref, vector).
void registerAllTileDialects(DialectRegistry &registry);
/// Every tile pass and pipeline, for command-line tools.
void registerAllTilePasses();
} // namespace mlir::tile

#endif // TILE_INITALLTILE_H
