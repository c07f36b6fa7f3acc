//===- TileAttrs.td - tile dialect attributes --------------*- tablegen -*-===//

#ifndef TILE_DIALECT_TILE_IR_TILEATTRS_TD
#define TILE_DIALECT_TILE_IR_TILEATTRS_TD

include "tile/Dialect/Tile/IR/TileDialect.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"

// `any` (the default): tile-plan-shared decides; `shared` and `registers`
// are requests the compiler honours or rejects.
def Tile_StorageShared : I32EnumAttrCase<"shared", 0>;
def Tile_StorageRegisters : I32EnumAttrCase<"registers", 1>;
def Tile_StorageAny : I32EnumAttrCase<"any", 2>;
def Tile_Storage : I32EnumAttr<"Storage", "where a tile var lives",
                               [Tile_StorageShared, Tile_StorageRegisters,
                                Tile_StorageAny]> {
  let cppNamespace = "::mlir::tile";
  let genSpecializedAttr = 0;
}
def Tile_StorageAttr : EnumAttr<Tile_Dialect, Tile_Storage, "storage"> {
  let assemblyFormat = "`<` $value `>`";
}

def Tile_DimX : I32EnumAttrCase<"x", 0>;
def Tile_DimY : I32EnumAttrCase<"y", 1>;
def Tile_DimZ : I32EnumAttrCase<"z", 2>;
def Tile_GridDim : I32EnumAttr<"GridDim", "a dimension of the launch grid",
                               [Tile_DimX, Tile_DimY, Tile_DimZ]> {
  let cppNamespace = "::mlir::tile";
  let genSpecializedAttr = 0;
}
def Tile_GridDimAttr : EnumAttr<Tile_Dialect, Tile_GridDim, "dim">;

def Tile_ReduceSum : I32EnumAttrCase<"sum", 0>;
def Tile_ReduceMax : I32EnumAttrCase<"max", 1>;
def Tile_ReduceMin : I32EnumAttrCase<"min", 2>;
def Tile_ReductionKind
    : I32EnumAttr<"ReductionKind", "how a reduction combines elements",
                  [Tile_ReduceSum, Tile_ReduceMax, Tile_ReduceMin]> {
  let cppNamespace = "::mlir::tile";
  let genSpecializedAttr = 0;
}

// A tile layout (tile.layout) says where each element of a tile lives:
// which thread holds it, in which of that thread's slots. Every layout gives
// each thread the elements seed 000 counts (`elements / threads`).
// verifyTileLayout (TileDialect.h) checks one against a tile.
def Tile_BlockedLayoutAttr : AttrDef<Tile_Dialect, "BlockedLayout"> {
  let mnemonic = "blocked";
  let summary = "where each element of a tile lives: runs of elements a thread";
  let description = [{
    Element `e` (row-major) of a tile is held by thread
    `(e / vector) % threads`, at slot
    `(e / (vector * threads)) * vector + e % vector`: each thread holds runs
    of `vector` consecutive elements of a row, and consecutive threads hold
    consecutive runs. `vector = 1` is seed 000's distribution (element `e`
    in thread `e % threads`), which every tile has unless
    `tile-assign-layouts` gives it another (`tile.layout`); a run of 4 f32
    is one 16-byte access. (The tensor-core fragments of `dot` are
    `#tile.mma`.)

    ```mlir
    #tile.blocked<vector = 4>
    ```
  }];
  let parameters = (ins "int64_t":$vector);
  let assemblyFormat = "`<` `vector` `=` $vector `>`";
}

def Tile_AtomicAdd : I32EnumAttrCase<"add", 0>;
def Tile_AtomicMax : I32EnumAttrCase<"max", 1>;
def Tile_AtomicMin : I32EnumAttrCase<"min", 2>;
def Tile_AtomicKind
    : I32EnumAttr<"AtomicKind", "how an atomic update combines",
                  [Tile_AtomicAdd, Tile_AtomicMax, Tile_AtomicMin]> {
  let cppNamespace = "::mlir::tile";
  let genSpecializedAttr = 0;
}
def Tile_AtomicKindAttr : EnumAttr<Tile_Dialect, Tile_AtomicKind, "atomic">;

def Tile_MmaLayoutAttr : AttrDef<Tile_Dialect, "MmaLayout"> {
  let mnemonic = "mma";
  let summary = "the accumulator fragments of mma.sync.m16n8k16";
  let description = [{
    The layout of a `dot` on tensor cores (on the `tile.dot`: the dot runs
    on `mma.sync.m16n8k16` accumulating in f32) and of its `[M, N]` result:
    the CTA's warps tile the result in a `warpsM x warpsN` grid, warp `w`
    computing the `[M / warpsM, N / warpsN]` block at block row
    `w / warpsN`, block column `w % warpsN`, made of `[16, 8]` mma tiles.
    Each lane holds four elements of each, as the PTX ISA's fragment table
    for C and D of `mma.m16n8k16` says: lane `l`'s slot `4 t + c` is
    element `c` of the `t`-th mma tile of its warp's block (row-major over
    the tiles), at row `16 (t / (B / 8)) + l / 4 + 8 (c / 2)` and column
    `8 (t % (B / 8)) + 2 (l % 4) + c % 2` of the block, `B` the block's
    width. Every thread holds `M N / threads` elements, as in seed 000's
    distribution; `tile-tensor-cores` gives this layout to a tensor-core
    dot's result and to the tiles that share it (the accumulator of
    `acc += dot(a, b)`).

    ```mlir
    #tile.mma<warps = [4, 2]>
    ```
  }];
  let parameters = (ins "int64_t":$warpsM, "int64_t":$warpsN);
  let assemblyFormat = "`<` `warps` `=` `[` $warpsM `,` $warpsN `]` `>`";
}

#endif // TILE_DIALECT_TILE_IR_TILEATTRS_TD
