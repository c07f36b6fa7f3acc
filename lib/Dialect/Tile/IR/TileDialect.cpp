//===- TileDialect.cpp - the tile dialect ---------------------------------===//

#include "tile/Dialect/Tile/IR/TileDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::tile;

#include "tile/Dialect/Tile/IR/TileDialect.cpp.inc"
#include "tile/Dialect/Tile/IR/TileEnums.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "tile/Dialect/Tile/IR/TileAttrs.cpp.inc"

void TileDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "tile/Dialect/Tile/IR/TileOps.cpp.inc"
      >();
  registerTypes();
  addAttributes<
#define GET_ATTRDEF_LIST
#include "tile/Dialect/Tile/IR/TileAttrs.cpp.inc"
      >();
}

Operation *TileDialect::materializeConstant(OpBuilder &builder, Attribute value,
                                            Type type, Location loc) {
  if (auto typed = dyn_cast<TypedAttr>(value))
    if (arith::ConstantOp::isBuildableWith(typed, type))
      return arith::ConstantOp::create(builder, loc, type, typed);
  return nullptr;
}
