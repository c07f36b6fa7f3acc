//===- TileTypes.td - tile dialect types -------------------*- tablegen -*-===//

#ifndef TILE_DIALECT_TILE_IR_TILETYPES_TD
#define TILE_DIALECT_TILE_IR_TILETYPES_TD

include "tile/Dialect/Tile/IR/TileDialect.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/BuiltinTypeInterfaces.td"

class Tile_Type<string name, string typeMnemonic, list<Trait> traits = []>
    : TypeDef<Tile_Dialect, name, traits> {
  let mnemonic = typeMnemonic;
}

def Tile_GlobalTensorType : Tile_Type<"GlobalTensor", "tensor"> {
  let summary = "a global tensor parameter with static or symbolic dims";
  let description = [{
    A tensor in global memory, passed to a kernel. Each dimension is a static
    size or a named symbol; `symbols` holds one name per dynamic dimension,
    in order. Slices of it are read with `tile.load` and written with
    `tile.store`.

    ```mlir
    !tile.tensor<[16, K], f32>     // 16 rows, K columns of f32
    !tile.tensor<[M, N], bf16>
    ```
  }];
  let parameters = (ins ArrayRefParameter<"int64_t">:$shape,
                        ArrayRefParameter<"::mlir::StringAttr">:$symbols,
                        "::mlir::Type":$elementType);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    unsigned getRank() const { return getShape().size(); }
    bool isDynamicDim(unsigned dim) const {
      return ::mlir::ShapedType::isDynamic(getShape()[dim]);
    }
    /// The symbol naming dynamic dimension `dim`, or null for a static one.
    ::mlir::StringAttr getSymbolOfDim(unsigned dim) const;
  }];
}

def Tile_VarType : Tile_Type<"Var", "var"> {
  let summary = "a named, mutable tile (or scalar) of a kernel";
  let description = [{
    The storage of a `tile.var`: a tile of static shape, or a scalar when
    the shape is empty. `tile.read` yields its value (a builtin
    `tensor<...>` for a tile, the element itself for a scalar).

    ```mlir
    !tile.var<16x64xf32>
    !tile.var<i32>
    ```
  }];
  let parameters = (ins ArrayRefParameter<"int64_t">:$shape,
                        "::mlir::Type":$elementType);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    bool isScalar() const { return getShape().empty(); }
    /// The type of the value read from or written to the var.
    ::mlir::Type getValueType() const;
  }];
}

#endif // TILE_DIALECT_TILE_IR_TILETYPES_TD
