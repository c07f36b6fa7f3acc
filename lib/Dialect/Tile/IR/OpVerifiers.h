//===- OpVerifiers.h - checks shared by the tile ops' files -----*- C++ -*-===//
//
// The checks more than one of TileOps.cpp, TileMemoryOps.cpp and
// TileComputeOps.cpp make (the ops are split by family across them).
//
//===----------------------------------------------------------------------===//

#ifndef TILE_DIALECT_TILE_IR_OPVERIFIERS_H
#define TILE_DIALECT_TILE_IR_OPVERIFIERS_H

#include "tile/Dialect/Tile/IR/TileDialect.h"

#include "mlir/IR/OpImplementation.h"

namespace mlir::tile {

/// Global tensors are the kernel's parameters, never values computed in
/// it: the lowering maps each to its pointer argument.
inline LogicalResult verifyKernelParameter(Operation *op, Value tensor) {
  auto arg = dyn_cast<BlockArgument>(tensor);
  if (!arg || !isa<KernelOp>(arg.getOwner()->getParentOp()))
    return op->emitOpError("tensor operand must be a parameter of the "
                           "enclosing tile.kernel");
  return success();
}

/// The op's inherent attributes as parsed, checked against their declared
/// kinds: an attribute of the wrong kind (`threads = "256"`, `storage = 1`)
/// is an error here, where a custom parser would otherwise hand it to the
/// properties, which drop it without a word.
template <typename OpT>
ParseResult verifyParsedAttrs(OpAsmParser &parser, SMLoc loc,
                              OperationState &result) {
  return OpT::verifyInherentAttrs(result.name, result.attributes,
                                  [&]() { return parser.emitError(loc); });
}

} // namespace mlir::tile

#endif // TILE_DIALECT_TILE_IR_OPVERIFIERS_H
