//===- TileAttrs.td - tile dialect attributes --------------*- tablegen -*-===//

#ifndef TILE_DIALECT_TILE_IR_TILEATTRS_TD
#define TILE_DIALECT_TILE_IR_TILEATTRS_TD

include "tile/Dialect/Tile/IR/TileDialect.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"
include "tile/Dialect/Tile/IR/TileInterfaces.td"

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
// The first index of the maximum (an i32 result).
def Tile_ReduceArgMax : I32EnumAttrCase<"argmax", 3>;
def Tile_ReductionKind
    : I32EnumAttr<"ReductionKind", "how a reduction combines elements",
                  [Tile_ReduceSum, Tile_ReduceMax, Tile_ReduceMin,
                   Tile_ReduceArgMax]> {
  let cppNamespace = "::mlir::tile";
  let genSpecializedAttr = 0;
}

// A tile layout, the encoding of a tile's tensor type, says where each
// element of a tile lives: which thread holds it, in which of that
// thread's slots: each implements
// LayoutAttrInterface (TileInterfaces.td), which is all that the
// layout-generic code (Layouts.h) asks of it.
class Tile_LayoutAttr<string name, string attrMnemonic>
    : AttrDef<Tile_Dialect, name, [
        DeclareAttrInterfaceMethods<Tile_LayoutAttrInterface, [
          "emitSlotLinearIndex", "isReplicated", "isPrimaryHolder",
          "emitPrimaryHolder", "getRunLength"]>]> {
  let mnemonic = attrMnemonic;
}

def Tile_BlockedLayoutAttr : Tile_LayoutAttr<"BlockedLayout", "blocked"> {
  let summary = "where each element of a tile lives: runs of elements a thread";
  let description = [{
    Element `e` (row-major) of a tile is held by thread
    `(e / vector) % threads`, at slot
    `(e / (vector * threads)) * vector + e % vector`: each thread holds runs
    of `vector` consecutive elements of a row, and consecutive threads hold
    consecutive runs. `vector = 1` is the cyclic distribution (element `e`
    in thread `e % threads`), which a tile has unless something decides
    otherwise (`tile-assign-layouts`, a type written by hand:
    `tensor<16x64xf32, #tile.blocked<vector = 4>>`); a run of 4 f32 is one
    16-byte access, and a row of 64 f32 in runs of 4 lies in 16 lanes of
    one warp. With `vector > 1` the row length is a multiple of `vector`
    and the elements of `vector * threads`; with 1, a tile whose elements
    do not divide among the threads leaves the last slots of some threads
    empty.

    ```mlir
    #tile.blocked<vector = 4>
    ```
  }];
  let parameters = (ins "int64_t":$vector);
  let assemblyFormat = "`<` `vector` `=` $vector `>`";
}

// How a dot of f32 tiles multiplies: `ieee` (the default) exactly, each
// product rounded to f32 as IEEE says; `tf32` on tensor cores, each operand
// first rounded to tf32 (10 bits of mantissa, to nearest, ties away from
// zero: cvt.rna.tf32.f32), its products exact, summed in f32.
def Tile_PrecisionIEEE : I32EnumAttrCase<"ieee", 0>;
def Tile_PrecisionTF32 : I32EnumAttrCase<"tf32", 1>;
def Tile_DotPrecision
    : I32EnumAttr<"DotPrecision", "how a dot of f32 tiles multiplies",
                  [Tile_PrecisionIEEE, Tile_PrecisionTF32]> {
  let cppNamespace = "::mlir::tile";
  let genSpecializedAttr = 0;
}
def Tile_DotPrecisionAttr
    : EnumAttr<Tile_Dialect, Tile_DotPrecision, "precision">;

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

// Its replication, primary holders and runs are the interface's defaults.
def Tile_MmaLayoutAttr : AttrDef<Tile_Dialect, "MmaLayout", [
    DeclareAttrInterfaceMethods<Tile_LayoutAttrInterface>]> {
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
    width. Every thread holds `M N / threads` elements, as in the cyclic
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

def Tile_RowsLayoutAttr : Tile_LayoutAttr<"RowsLayout", "rows"> {
  let summary = "a row result in every lane of its row";
  let description = [{
    The layout of the `[R, 1]` result of reducing the rows of an
    `[R, columns]` tile laid out by `parent` where it lives (a butterfly of
    shuffles, and for rows of several warps a scratch var): every thread
    that holds an element of row `r` in the parent holds the row's result.
    The slots of a thread are the parent's slots grouped by row (the slots
    that hold one row in every thread are one slot here), so a parent
    slot's row result is in its thread's registers: broadcasting the result
    back over `[R, columns]` in the parent's layout moves nothing, and
    elementwise ops between such results need no memory. The result is
    replicated: the thread that holds column 0 of the row in the parent is
    the one that stores it.

    ```mlir
    #tile.rows<columns = 64, parent = #tile.blocked<vector = 4>>
    ```
  }];
  let parameters = (ins "int64_t":$columns,
                        "::mlir::tile::LayoutAttrInterface":$parent);
  let assemblyFormat = "`<` `columns` `=` $columns `,` `parent` `=` $parent `>`";
  let extraClassDeclaration = [{
    /// The shape of the parent tile of an [R, 1] tile: [R, columns].
    ::llvm::SmallVector<int64_t> getParentShape(::llvm::ArrayRef<int64_t> shape) const {
      return {shape[0], getColumns()};
    }
  }];
}

//===----------------------------------------------------------------------===//
// The records passes leave on a kernel for the manifest and the reports
//===----------------------------------------------------------------------===//

def Tile_PromotedVarAttr : AttrDef<Tile_Dialect, "PromotedVar"> {
  let mnemonic = "promoted_var";
  let summary = "a var tile-promote-registers keeps in registers";
  let description = [{
    One entry of a kernel's `tile.promoted`: the var `name` of tile type
    `type`, spread over `threads` threads with `slots` elements each, with
    `shuffles` reductions folded into warp shuffles and `spills` stores to
    a shared tile for uses that read across threads.

    ```mlir
    #tile.promoted_var<name = "acc", type = tensor<16x64xf32>, threads = 256,
                       slots = 4, shuffles = 0, spills = 1>
    ```
  }];
  let parameters = (ins "::mlir::StringAttr":$name,
                        "::mlir::RankedTensorType":$type,
                        "int64_t":$threads, "int64_t":$slots,
                        "int64_t":$shuffles, "int64_t":$spills);
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
}

def Tile_StagedLoadAttr : AttrDef<Tile_Dialect, "StagedLoad"> {
  let mnemonic = "staged_load";
  let summary = "where tile-pipeline-loads stages one load, and why";
  let description = [{
    One load of a pipelined loop: the var it sets or `load` (`name`), its
    location, the medium its tiles in flight wait in (`in`: "shared", a
    ring filled by async copies, or "registers"), the `bytes` that holds,
    the bytes of one async copy (`chunk_bytes`, 0 in registers) and `why`.
  }];
  let parameters = (ins "::mlir::StringAttr":$name,
                        "::mlir::LocationAttr":$loc,
                        "::mlir::StringAttr":$in, "int64_t":$bytes,
                        "int64_t":$chunkBytes, "::mlir::StringAttr":$why);
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
}

def Tile_PipelinedLoopAttr : AttrDef<Tile_Dialect, "PipelinedLoop"> {
  let mnemonic = "pipelined_loop";
  let summary = "a loop tile-pipeline-loads pipelined";
  let description = [{
    One entry of a kernel's `tile.pipelined`: the loop over `loop` at
    `loc`, whose `loads` loads are issued `ahead` = `stages - 1`
    iterations early, with `stages` given by `@pipeline` or chosen by the
    pass (`stagesChosen`: "given" or "auto"); `sharedLoads` of them into
    rings of `sharedBytes` in all, `elementsPerThread` elements a thread
    in flight in registers, and each load's record (`staged`).
  }];
  let parameters = (ins "::mlir::StringAttr":$loop,
                        "::mlir::LocationAttr":$loc, "int64_t":$loads,
                        "int64_t":$stages, "::mlir::StringAttr":$stagesChosen,
                        "int64_t":$ahead, "int64_t":$sharedLoads,
                        "int64_t":$sharedBytes, "int64_t":$elementsPerThread,
                        "::mlir::ArrayAttr":$staged);
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
}

#endif // TILE_DIALECT_TILE_IR_TILEATTRS_TD
