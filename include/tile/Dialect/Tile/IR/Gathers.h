//===- Gathers.h - which gathers may be laid out in runs --------*- C++ -*-===//
//
// Shared by tile.gather's verifier (TileMemoryOps.cpp) and
// tile-assign-layouts, which must agree on it.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_DIALECT_TILE_IR_GATHERS_H
#define TILE_DIALECT_TILE_IR_GATHERS_H

#include "tile/Dialect/Tile/IR/TileDialect.h"

namespace mlir::tile {

/// Whether `gather` reads whole rows: no index addresses its last
/// dimension, so a run of a row's elements is consecutive in memory (one
/// vector load where aligned), and every index tile has another shape than
/// the result, so it is read by coordinates (broadcast from shared
/// memory), not from slots in the gather's layout. Only such a gather may
/// be laid out in runs.
bool gathersWholeRows(GatherOp gather);

} // namespace mlir::tile

#endif // TILE_DIALECT_TILE_IR_GATHERS_H
