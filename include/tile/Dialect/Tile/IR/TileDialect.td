//===- TileDialect.td - the tile dialect -------------------*- tablegen -*-===//
//
// The `tile` dialect: GPU kernels written over tiles.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_DIALECT_TILE_IR_TILEDIALECT_TD
#define TILE_DIALECT_TILE_IR_TILEDIALECT_TD

include "mlir/IR/OpBase.td"

def Tile_Dialect : Dialect {
  let name = "tile";
  let cppNamespace = "::mlir::tile";
  let summary = "GPU kernels written over tiles";
  let description = [{
    A `tile.kernel` is a GPU kernel whose values are whole tiles: builtin
    `tensor<RxCxT>` values with static shapes. Elementwise arithmetic on tiles
    is plain `arith`/`math` on those tensors; the ops of this dialect cover
    what is not elementwise (slices of global tensors, reductions, `dot`,
    broadcasts), the launch context (`ctx.thread`, block index) and tile
    *vars*: named, mutable tiles whose storage (shared memory by default,
    per-thread registers on request through `@registers`) the compiler
    decides and reports.

    Kernel parameters are global tensors of type `!tile.tensor`, whose
    dimensions are static integers or named symbols (`K`); a symbol that
    appears in several parameters denotes one value.
  }];
  let useDefaultTypePrinterParser = 1;
  let useDefaultAttributePrinterParser = 1;
  let hasConstantMaterializer = 1;
  let extraClassDeclaration = [{
    void registerTypes();
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
}

class Tile_Op<string mnemonic, list<Trait> traits = []>
    : Op<Tile_Dialect, mnemonic, traits>;

#endif // TILE_DIALECT_TILE_IR_TILEDIALECT_TD
