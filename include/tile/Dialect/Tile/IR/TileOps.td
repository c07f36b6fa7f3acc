//===- TileOps.td - tile dialect operations ----------------*- tablegen -*-===//

#ifndef TILE_DIALECT_TILE_IR_TILEOPS_TD
#define TILE_DIALECT_TILE_IR_TILEOPS_TD

include "tile/Dialect/Tile/IR/TileDialect.td"
include "tile/Dialect/Tile/IR/TileAttrs.td"
include "tile/Dialect/Tile/IR/TileInterfaces.td"
include "tile/Dialect/Tile/IR/TileTypes.td"
include "mlir/IR/BuiltinAttributes.td"
include "mlir/IR/OpAsmInterface.td"
include "mlir/IR/SymbolInterfaces.td"
include "mlir/Interfaces/ControlFlowInterfaces.td"
include "mlir/Interfaces/FunctionInterfaces.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

//===----------------------------------------------------------------------===//
// Type constraints
//===----------------------------------------------------------------------===//

def Tile_ElementType : AnyTypeOf<[F16, BF16, F32, I1, I32],
                                 "f16, bf16, f32, i1 or i32">;
def Tile_TileValue
    : Type<StaticShapeTensorOf<[F16, BF16, F32, I1, I32]>.predicate,
           "tile (statically shaped tensor of f16, bf16, f32, i1 or i32)",
           "::mlir::RankedTensorType">;
def Tile_Matrix
    : Type<And<[StaticShapeTensorOf<[F16, BF16, F32, I32]>.predicate,
                HasAnyRankOfPred<[2]>]>,
           "rank-2 tile of f16, bf16, f32 or i32", "::mlir::RankedTensorType">;
def Tile_MaskTile
    : Type<StaticShapeTensorOf<[I1]>.predicate, "tile of i1",
           "::mlir::RankedTensorType">;
def Tile_IndexTile
    : Type<StaticShapeTensorOf<[I32]>.predicate, "tile of i32",
           "::mlir::RankedTensorType">;
/// The types of a scalar kernel parameter.
def Tile_ScalarParamType : AnyTypeOf<[F16, BF16, F32, I32, Index],
                                     "f16, bf16, f32, i32 or index">;

//===----------------------------------------------------------------------===//
// Kernel
//===----------------------------------------------------------------------===//

def Tile_KernelOp : Op<Tile_Dialect, "kernel", [
    AutomaticAllocationScope, FunctionOpInterface, IsolatedFromAbove,
    HasParent<"::mlir::ModuleOp">]> {
  let summary = "a GPU kernel over tiles";
  let description = [{
    A kernel launched with `threads` threads per CTA over a grid of CTAs.
    Every argument is a global tensor (`!tile.tensor`) or a scalar (`f32`,
    `f16`, `bf16`, `i32`, `index`), which every thread reads; a kernel
    returns nothing. The symbolic dimensions of the tensor arguments, in
    order of first appearance, are the kernel's *symbols*: the ABI passes
    one 64-bit integer for each after the parameters (docs/abi.md).

    * `threads`: threads per CTA (`@launch(N)`), a multiple of 32 in
      [32, 1024]. It is `ctx.threads`.
    * `grid`: an affine map with no dimensions whose symbols are the
      kernel's symbols, in order, and whose 1 to 3 results are the grid size
      (`@launch(N, grid = [...])`). Absent: a single CTA.
    * `registers`: names of the vars to keep in per-thread registers
      (`@registers(...)`), resolved by `tile-promote-registers`.
    * `pipeline`: the arguments of `@pipeline(...)`, carried for the
      pipelining pass.

    ```mlir
    tile.kernel @squares(%X: !tile.tensor<[16, K], f32>,
                         %O: !tile.tensor<[16, 64], f32>)
        attributes {threads = 256 : i64, registers = ["acc"]} {
      ...
      tile.return
    }
    tile.kernel @axpy(%alpha: f32, %X: !tile.tensor<[N], f32>,
                      %Y: !tile.tensor<[N], f32>)
        attributes {threads = 128 : i64} { ... }
    ```
  }];
  let arguments = (ins SymbolNameAttr:$sym_name,
                       TypeAttrOf<FunctionType>:$function_type,
                       OptionalAttr<DictArrayAttr>:$arg_attrs,
                       OptionalAttr<DictArrayAttr>:$res_attrs,
                       I64Attr:$threads,
                       OptionalAttr<AffineMapAttr>:$grid,
                       OptionalAttr<StrArrayAttr>:$registers,
                       OptionalAttr<DictionaryAttr>:$pipeline);
  let regions = (region SizedRegion<1>:$body);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
  let hasRegionVerifier = 1;
  let skipDefaultBuilders = 1;
  let builders = [OpBuilder<(ins "::llvm::StringRef":$name,
                                 "::mlir::FunctionType":$type,
                                 "int64_t":$threads)>];
  let extraClassDeclaration = [{
    ::llvm::ArrayRef<::mlir::Type> getArgumentTypes() {
      return getFunctionType().getInputs();
    }
    ::llvm::ArrayRef<::mlir::Type> getResultTypes() {
      return getFunctionType().getResults();
    }
    ::mlir::Region *getCallableRegion() { return &getBody(); }
    ::mlir::Block &getBodyBlock() { return getBody().front(); }

    /// The symbolic dimensions of the parameters, in order of first
    /// appearance: the ABI order of the trailing 64-bit arguments.
    ::llvm::SmallVector<::mlir::StringAttr> getSymbols();

    /// The names in `registers`, or none.
    ::llvm::SmallVector<::llvm::StringRef> getRegisterNames();

    /// The source name of parameter `index`: its `tile.name` argument
    /// attribute (the front end sets it), else its NameLoc, else
    /// "arg<index>". Manifests and reports name parameters by it.
    std::string getParamName(unsigned index);
  }];
}

def Tile_ReturnOp : Tile_Op<"return", [Pure, HasParent<"KernelOp">,
                                       Terminator, ReturnLike]> {
  let summary = "end of a kernel";
  let assemblyFormat = "attr-dict";
}

//===----------------------------------------------------------------------===//
// Launch context
//===----------------------------------------------------------------------===//

class Tile_ContextOp<string mnemonic, list<Trait> traits = []>
    : Tile_Op<mnemonic, !listconcat(traits, [Pure])> {
  let results = (outs Index:$result);
}

def Tile_ThreadIdOp : Tile_ContextOp<"thread_id"> {
  let summary = "`ctx.thread`: this thread's index in its CTA";
  let description = [{
    ```mlir
    %t = tile.thread_id
    ```
  }];
  let assemblyFormat = "attr-dict";
}

def Tile_NumThreadsOp : Tile_ContextOp<"num_threads"> {
  let summary = "`ctx.threads`: threads per CTA";
  let description = [{
    The kernel's `threads`; folds to that constant.

    ```mlir
    %n = tile.num_threads
    ```
  }];
  let assemblyFormat = "attr-dict";
  let hasFolder = 1;
}

def Tile_LanesOp : Tile_ContextOp<"lanes"> {
  let summary = "`ctx.lanes`: threads per warp (32)";
  let description = [{
    ```mlir
    %l = tile.lanes
    ```
  }];
  let assemblyFormat = "attr-dict";
  let hasFolder = 1;
}

def Tile_BlockIdOp : Tile_ContextOp<"block_id"> {
  let summary = "`ctx.block.x|y|z`: this CTA's index in the grid";
  let description = [{
    ```mlir
    %bx = tile.block_id x
    ```
  }];
  let arguments = (ins Tile_GridDimAttr:$dim);
  let assemblyFormat = "$dim attr-dict";
}

def Tile_NumBlocksOp : Tile_ContextOp<"num_blocks"> {
  let summary = "`ctx.blocks.x|y|z`: the grid size in one dimension";
  let description = [{
    ```mlir
    %gx = tile.num_blocks x
    ```
  }];
  let arguments = (ins Tile_GridDimAttr:$dim);
  let assemblyFormat = "$dim attr-dict";
}

def Tile_DimOp : Tile_Op<"dim", [Pure]> {
  let summary = "a dimension of a global tensor, as an index";
  let description = [{
    Folds to a constant for a static dimension; for a symbolic one it is the
    value of the symbol (`K`).

    ```mlir
    %K = tile.dim %X[1] : !tile.tensor<[16, K], f32>
    ```
  }];
  let arguments = (ins Tile_GlobalTensorType:$source, I64Attr:$index);
  let results = (outs Index:$result);
  let assemblyFormat = "$source `[` $index `]` attr-dict `:` qualified(type($source))";
  let hasVerifier = 1;
  let hasFolder = 1;
}

//===----------------------------------------------------------------------===//
// Vars
//===----------------------------------------------------------------------===//

def Tile_VarOp : Tile_Op<"var", [MemoryEffects<[MemAlloc, MemWrite]>]> {
  let summary = "a named, mutable tile or scalar, or a ring of tiles";
  let description = [{
    `var name: tile<T>[dims] = e` of the language. `init`, when present, is
    the initial value. `storage` says where the tile lives: `any` (the
    default) lets `tile-plan-shared` decide; `shared` (`var t: shared
    tile<T>[dims]`) and `registers` (`@registers`, checked and carried out
    by `tile-promote-registers`) are requests, honoured or rejected with the
    reason.

    With `stages = S` the var is a *ring*: `S` shared tiles of its type,
    one after another (`var p: pipeline<T>[dims](stages = S)`; seed 003's
    `pipeline`). A ring has no initial value and is only accessed through
    its stages (`tile.stage`).

    `layout`, on a var the plan keeps in registers, is the layout its
    values share (its initial value, what it is written and what it
    reads), which `tile-assign-layouts` records; its slots hold the tile as
    that layout says. A var in shared memory has none: its reads and
    writes address each element by its coordinates, in any layout. The
    initial value's type is written after the var's when it carries a
    layout.

    ```mlir
    %c = arith.constant dense<0.0> : tensor<16x64xf32>
    %acc = tile.var "acc" = %c : !tile.var<16x64xf32>
    %r = tile.var "r" = %d {layout = #tile.blocked<vector = 4>}
        : !tile.var<16x64xf32>, tensor<16x64xf32, #tile.blocked<vector = 4>>
    %n = tile.var "n" : !tile.var<i32>
    %t = tile.var "t" {storage = #tile.storage<shared>} : !tile.var<256xf32>
    %p = tile.var "p" {stages = 3 : i64} : !tile.var<16x64xf16>
    ```
  }];
  let arguments = (ins StrAttr:$name, Optional<AnyType>:$init,
                       DefaultValuedAttr<Tile_StorageAttr,
                                         "::mlir::tile::Storage::any">:$storage,
                       OptionalAttr<I64Attr>:$stages,
                       OptionalAttr<Tile_LayoutAttrInterface>:$layout);
  let results = (outs Tile_VarType:$result);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
  let builders = [OpBuilder<(ins "::llvm::StringRef":$name,
                                 "::mlir::tile::VarType":$type,
                                 "::mlir::Value":$init)>];
  let extraClassDeclaration = [{
    ::mlir::tile::VarType getVarType() {
      return ::llvm::cast<::mlir::tile::VarType>(getResult().getType());
    }
    /// Whether this var is a ring of `stages` tiles.
    bool isRing() { return getStages().has_value(); }
  }];
}

def Tile_StageOp : Tile_Op<"stage", [Pure,
    TypesMatchWith<"a stage has the ring's type", "ring", "result", "$_self">]> {
  let summary = "one stage of a ring of shared tiles";
  let description = [{
    The stage `(rotation + offset) mod S` of a ring of `S` tiles (a
    `tile.var` with `stages = S`), as a var that `tile.read`, `tile.write`
    and `tile.copy` take. `rotation` is a uniform index that counts how far
    the ring has turned: seed 003's `advance()` renames the stages at
    compile time, so `pipe.stage(k)` after `n` advances is
    `tile.stage %pipe[%n + k]`, `front()` is `stage(0)` and `back()`
    `stage(S - 1)`. Two stages of one rotation are distinct memory unless
    their offsets agree modulo `S`, which the barrier analysis uses.

    ```mlir
    %front = tile.stage %p[%i + 0] : !tile.var<16x64xf16>
    %back = tile.stage %p[%i + 2] : !tile.var<16x64xf16>
    ```
  }];
  let arguments = (ins Tile_VarType:$ring, Index:$rotation, I64Attr:$offset);
  let results = (outs Tile_VarType:$result);
  let assemblyFormat = [{
    $ring `[` $rotation `+` $offset `]` attr-dict `:` qualified(type($ring))
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    ::mlir::tile::VarOp getRingOp();
  }];
}

// The result type is checked by the verifier, not inferred: a tile read
// carries a layout its var type does not.
def Tile_ReadOp : Tile_Op<"read", [MemoryEffects<[MemRead]>]> {
  let summary = "the current value of a var";
  let description = [{
    The result type is the var's value type; a tile's carries its layout
    (written after `->`), which for a var in registers is the var's
    `layout`.

    ```mlir
    %v = tile.read %acc : !tile.var<16x64xf32>
    %w = tile.read %acc : !tile.var<16x64xf32> -> tensor<16x64xf32, #tile.blocked<vector = 4>>
    ```
  }];
  let arguments = (ins Tile_VarType:$var);
  let results = (outs AnyType:$result);
  let assemblyFormat = [{
    $var attr-dict `:` qualified(type($var))
    `` custom<ReadType>(ref(type($var)), type($result))
  }];
  let builders = [OpBuilder<(ins "::mlir::Value":$var), [{
    build($_builder, $_state,
          ::llvm::cast<::mlir::tile::VarType>(var.getType()).getValueType(),
          var);
  }]>];
  let hasVerifier = 1;
}

def Tile_WriteOp : Tile_Op<"write", [
    MemoryEffects<[MemWrite]>,
    TypesMatchWith<"value is the var's value type (in any layout)", "var",
                   "value",
                   "::llvm::cast<::mlir::tile::VarType>($_self).getValueType()",
                   "::mlir::tile::isSameIgnoringLayout">]> {
  let summary = "set the value of a var";
  let description = [{
    `t = e`; `t += e` is a read, an add and a write.

    The value's type, when it carries a layout, is written after the var's.

    ```mlir
    tile.write %v, %acc : !tile.var<16x64xf32>
    tile.write %w, %acc : !tile.var<16x64xf32>, tensor<16x64xf32, #tile.blocked<vector = 4>>
    ```
  }];
  let arguments = (ins AnyType:$value, Tile_VarType:$var);
  let assemblyFormat = [{
    $value `,` $var attr-dict `:` qualified(type($var))
    `` custom<WrittenType>(ref(type($var)), type($value))
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Global tensor slices
//===----------------------------------------------------------------------===//

def Tile_LoadOp : Tile_Op<"load", [
    MemoryEffects<[MemRead]>, AttrSizedOperandSegments,
    OptionalTypesMatchWith<"other is the tile's element type", "result", "other",
                           "::llvm::cast<::mlir::RankedTensorType>($_self).getElementType()">]> {
  let summary = "read a slice of a global tensor into a tile";
  let description = [{
    `X[i :+ R, j :+ C]`: the tile of the result's shape whose element
    `(a, b)` is `X[i + a, j + b]`. Elements outside the tensor read as
    `other`, a scalar of the element type (`load(X[...], other = v)`), or 0
    without it. The extents are the result's static shape; an extent
    larger than a static dimension of the tensor is an error.

    ```mlir
    %x = tile.load %X[%c0, %kt] : !tile.tensor<[16, K], f32> -> tensor<16x64xf32>
    %y = tile.load %X[%c0, %kt] other %ninf : !tile.tensor<[16, K], f32> -> tensor<16x64xf32>
    ```
  }];
  let arguments = (ins Tile_GlobalTensorType:$source, Variadic<Index>:$offsets,
                       Optional<Tile_ElementType>:$other);
  let results = (outs Tile_TileValue:$result);
  let assemblyFormat = [{
    $source `[` $offsets `]` (`other` $other^)? attr-dict `:` qualified(type($source))
    `->` type($result)
  }];
  let hasVerifier = 1;
  let builders = [OpBuilder<(ins "::mlir::Type":$result, "::mlir::Value":$source,
                                 "::mlir::ValueRange":$offsets), [{
    build($_builder, $_state, result, source, offsets, /*other=*/::mlir::Value());
  }]>];
}

def Tile_StoreOp : Tile_Op<"store", [
    MemoryEffects<[MemWrite]>, AttrSizedOperandSegments,
    OptionalTypesMatchWith<"mask is an i1 tile of the value's shape", "value", "mask",
                           "::llvm::cast<::mlir::RankedTensorType>($_self).clone("
                           "::mlir::IntegerType::get($_self.getContext(), 1))">]> {
  let summary = "write a tile into a slice of a global tensor";
  let description = [{
    `X[i :+ R, j :+ C] = t`. Elements that fall outside the tensor are
    dropped, and so are those where `mask`, an i1 tile of the value's
    shape, is false (`store(X[...], t, mask = m)`).

    ```mlir
    tile.store %t, %O[%c0, %c0] : tensor<16x64xf32> -> !tile.tensor<[16, 64], f32>
    tile.store %t, %O[%c0, %c0] mask %m : tensor<16x64xf32> -> !tile.tensor<[16, 64], f32>
    ```
  }];
  let arguments = (ins Tile_TileValue:$value, Tile_GlobalTensorType:$dest,
                       Variadic<Index>:$offsets, Optional<Tile_MaskTile>:$mask);
  let assemblyFormat = [{
    $value `,` $dest `[` $offsets `]` (`mask` $mask^)? attr-dict `:` type($value) `->`
    qualified(type($dest))
  }];
  let hasVerifier = 1;
  let builders = [OpBuilder<(ins "::mlir::Value":$value, "::mlir::Value":$dest,
                                 "::mlir::ValueRange":$offsets), [{
    build($_builder, $_state, value, dest, offsets, /*mask=*/::mlir::Value());
  }]>];
}

def Tile_BarrierOp : Tile_Op<"barrier", [
    MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "wait until every thread of the CTA is here";
  let description = [{
    Every thread of the CTA waits here until all have arrived; the shared
    and global memory accesses of the CTA before it are then visible to
    every thread after it (`__syncthreads()`). `tile-insert-barriers` puts
    one where a thread's access may conflict with another thread's since the
    last barrier; every thread must reach it, so it may not sit under
    control flow that depends on `ctx.thread`. `requested` marks a barrier
    the author wrote (`barrier()`): it stays, and counts like any other,
    and `tile-insert-barriers{remarks=true}` says when it orders nothing
    that needs ordering.

    ```mlir
    tile.barrier
    tile.barrier {requested}
    ```
  }];
  let arguments = (ins UnitAttr:$requested);
  let assemblyFormat = "attr-dict";
  let hasVerifier = 1;
  let extraClassDefinition = [{
    ::llvm::LogicalResult $cppClass::verify() {
      return verifyInsideKernel(getOperation());
    }
  }];
}

//===----------------------------------------------------------------------===//
// Explicit copies
//===----------------------------------------------------------------------===//

def Tile_CopyOp : Tile_Op<"copy", [AttrSizedOperandSegments,
    DeclareOpInterfaceMethods<MemoryEffectsOpInterface>]> {
  let summary = "copy a box of elements between global tensors and shared tiles";
  let description = [{
    Copies the box of the given `shape` at `source_offsets` of `source` to
    `dest_offsets` of `dest`: element `i` of the box (a multi-index) goes
    from `source[source_offsets + i]` to `dest[dest_offsets + i]` (seed
    003's `copy`; a 1-D box of `count` elements is its flat form). Each side
    is a global tensor parameter or a tile var (a `tile.var` or a
    `tile.stage`); global to global is a load and a store instead. Elements
    of a global source outside the tensor read as 0; those of a global
    destination outside it are dropped; a box must lie inside a var.

    A var side of a copy lives in shared memory. The threads of the CTA
    share the work, each moving `width` (1, 2, 4 or 8, at most 16 bytes)
    consecutive elements of a row of the box at a time as one vector
    access: chunk `c` of the box (row-major, `width` elements each) is
    moved by thread `c % threads`. So the innermost extent of the box, and
    of each var side, is a multiple of `width`, and a var side's innermost
    offset a constant multiple of it; a global side whose address is not
    aligned at run time is copied an element at a time.

    `mask`, an `i1` tile of the box's shape, copies only the elements where
    it is true; the others keep their value. With a mask, elements are
    moved one at a time.

    `async` (global to shared only, no mask, `width` elements of 4, 8 or 16
    bytes) issues the copy without waiting for it: it may land at any time
    until a `tile.wait_group` covers the group (`tile.commit_group`) it
    belongs to, and nothing may read its destination, or write its source
    or destination, until then. On the GPU it is `cp.async` (16 bytes:
    `cp.async.cg`), and elements outside the tensor are zero-filled by the
    copy's source size, with no branch. The reference interpreter copies at
    once.

    ```mlir
    tile.copy %X[%r, %c] to %t[%c0, %c0] [16, 64] {width = 4 : i64}
        : !tile.tensor<[M, N], f32> to !tile.var<16x64xf32>
    tile.copy %t[%c0] to %Y[%i] [256] mask %m
        : !tile.var<256xf32> to !tile.tensor<[N], f32>, tensor<256xi1>
    tile.copy %A[%c0, %k] to %back[%c0, %c0] [32, 32] {async, width = 8 : i64}
        : !tile.tensor<[32, K], f16> to !tile.var<32x32xf16>
    ```
  }];
  let arguments = (ins AnyType:$source, Variadic<Index>:$source_offsets,
                       AnyType:$dest, Variadic<Index>:$dest_offsets,
                       Optional<Tile_TileValue>:$mask,
                       DenseI64ArrayAttr:$shape,
                       DefaultValuedAttr<I64Attr, "1">:$width,
                       UnitAttr:$async);
  let assemblyFormat = [{
    $source `[` $source_offsets `]` `to` $dest `[` $dest_offsets `]` $shape
    (`mask` $mask^)? attr-dict `:` qualified(type($source)) `to`
    qualified(type($dest)) (`,` type($mask)^)?
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The element type of both sides.
    ::mlir::Type getElementType();
    /// The tile type of the box: its shape and element type.
    ::mlir::RankedTensorType getBoxType();
  }];
}

def Tile_CommitGroupOp : Tile_Op<"commit_group", [
    MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "close the group of async copies this thread issued";
  let description = [{
    The `async` `tile.copy` ops each thread issued since its last
    `tile.commit_group` form one group (`cp.async.commit_group`), which a
    `tile.wait_group` waits for.

    ```mlir
    tile.commit_group
    ```
  }];
  let assemblyFormat = "attr-dict";
}

def Tile_WaitGroupOp : Tile_Op<"wait_group", [
    MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "wait until at most `pending` groups of async copies are in flight";
  let description = [{
    Waits until every group of async copies this thread committed has
    landed but the `pending` most recent ones (`cp.async.wait_group`).
    Copies it waited for are visible to the thread that issued them; other
    threads see them after a `tile.barrier` that follows this wait.

    ```mlir
    tile.wait_group 1
    ```
  }];
  let arguments = (ins ConfinedAttr<I64Attr, [IntMinValue<0>, IntMaxValue<7>]>:$pending);
  let assemblyFormat = "$pending attr-dict";
  let hasVerifier = 1;
  let extraClassDefinition = [{
    ::llvm::LogicalResult $cppClass::verify() {
      return verifyInsideKernel(getOperation());
    }
  }];
}

//===----------------------------------------------------------------------===//
// Non-elementwise tile ops
//===----------------------------------------------------------------------===//

// A reduction of kind `kind` (a ReductionKind case) along `axis` (1: rows,
// [R, C] -> [R, 1]; 0: columns, [R, C] -> [1, C]) with results of
// `resultElement` (the input's by default): one line a new reduction.
class Tile_ReductionOp<string mnemonic, string kind, int axis, string what,
                       string placement, string example,
                       string resultElement = "type.getElementType()">
    : Tile_Op<mnemonic, [
        AlwaysSpeculatable,
        DeclareOpInterfaceMethods<MemoryEffectsOpInterface>,
        DeclareOpInterfaceMethods<Tile_ReductionOpInterface,
                                  ["getKind", "getAxis"]>]> {
  let summary = "the " # what # !if(!eq(axis, 1), " of each row: [R, C] -> [R, 1]",
                                    " of each column: [R, C] -> [1, C]");
  let description = placement # example;
  let arguments = (ins Tile_Matrix:$input, Optional<Tile_VarType>:$scratch);
  let results = (outs Tile_Matrix:$result);
  let assemblyFormat = [{
    $input (`through` $scratch^)? attr-dict `:` type($input)
    (`,` qualified(type($scratch))^)? `->` type($result)
  }];
  let builders = [OpBuilder<(ins "::mlir::Value":$input), [{
    auto type = ::llvm::cast<::mlir::RankedTensorType>(input.getType());
    ::llvm::SmallVector<int64_t> shape(type.getShape());
    shape[}] # axis # [{] = 1;
    build($_builder, $_state,
          ::mlir::RankedTensorType::get(shape, }] # resultElement # [{),
          input, /*scratch=*/::mlir::Value());
  }]>];
  let extraClassDefinition = [{
    ::mlir::tile::ReductionKind $cppClass::getKind() {
      return ::mlir::tile::ReductionKind::}] # kind # [{;
    }
    int64_t $cppClass::getAxis() { return }] # axis # [{; }
    void $cppClass::getEffects(
        ::llvm::SmallVectorImpl<::mlir::SideEffects::EffectInstance<
            ::mlir::MemoryEffects::Effect>> &effects) {
      getScratchEffects(getScratchMutable(), effects);
    }
  }];
}

defvar kRowPlacement = [{
    Rows of f32 or i32 spanning whole warps (C a multiple of 32, above 32)
    reduce where the tile lives: a butterfly of shuffles gives each warp's
    partial, and each row's partials combine through `scratch`, an
    [R, C / 32] shared var that `tile-plan-shared` adds (the op then reads
    and writes it, and has no other effect). Rows of a power of two of at
    most 32 elements fold with shuffles alone; other rows are read from
    shared memory, a warp per row.
}];

defvar kColumnPlacement = [{
    Columns of f32 or i32 whose length C is a multiple of the CTA's threads
    lie each in one thread (element (i, j) is in thread j % threads) and
    fold in its registers; the result is in its owners. Other columns are
    read from shared memory, a thread per column (consecutive threads
    reading consecutive columns).
}];

def Tile_RowSumOp : Tile_ReductionOp<"rowsum", "sum", 1, "sum", kRowPlacement, [{

    ```mlir
    %s = tile.rowsum %t : tensor<16x64xf32> -> tensor<16x1xf32>
    %s = tile.rowsum %t through %p : tensor<16x64xf32>, !tile.var<16x2xf32> -> tensor<16x1xf32>
    ```
  }]>;

def Tile_RowMaxOp : Tile_ReductionOp<"rowmax", "max", 1, "maximum", kRowPlacement, [{

    ```mlir
    %m = tile.rowmax %t : tensor<16x64xf32> -> tensor<16x1xf32>
    ```
  }]>;

def Tile_RowMinOp : Tile_ReductionOp<"rowmin", "min", 1, "minimum", kRowPlacement, [{

    ```mlir
    %m = tile.rowmin %t : tensor<16x64xf32> -> tensor<16x1xf32>
    ```
  }]>;

def Tile_RowArgMaxOp : Tile_ReductionOp<"rowargmax", "argmax", 1,
    "first column of the maximum", [{
    The `i32` index of each row's maximum, the first where it repeats; a
    NaN is above every number (the first NaN wins), as in PyTorch. Rows of
    f32 or i32 of a power of two of at most 32 elements fold with shuffles
    of value and index pairs; other rows are read from shared memory, a
    warp per row.
}], [{

    ```mlir
    %i = tile.rowargmax %t : tensor<16x64xf32> -> tensor<16x1xi32>
    ```
  }], "$_builder.getI32Type()">;

def Tile_ColSumOp : Tile_ReductionOp<"colsum", "sum", 0, "sum", kColumnPlacement, [{

    ```mlir
    %s = tile.colsum %t : tensor<16x128xf32> -> tensor<1x128xf32>
    ```
  }]>;

def Tile_ColMaxOp : Tile_ReductionOp<"colmax", "max", 0, "maximum", kColumnPlacement, [{

    ```mlir
    %m = tile.colmax %t : tensor<16x128xf32> -> tensor<1x128xf32>
    ```
  }]>;

def Tile_ColMinOp : Tile_ReductionOp<"colmin", "min", 0, "minimum", kColumnPlacement, [{

    ```mlir
    %m = tile.colmin %t : tensor<16x128xf32> -> tensor<1x128xf32>
    ```
  }]>;

def Tile_DotOp : Tile_Op<"dot", [Pure,
    OptionalTypesMatchWith<"the accumulator has the result's shape and "
                           "element type", "result", "acc", "$_self",
                           "::mlir::tile::isSameIgnoringLayout">]> {
  let summary = "matrix product: [M, K] x [K, N] (+ [M, N]) -> [M, N]";
  let description = [{
    The product of two tiles, plus `acc` when given. Both operands have one
    element type; the result (and `acc`) has it too, or `f32` for
    `f16`/`bf16` operands (accumulation in f32). `acc += dot(a, b)` is
    `arith.addf` of `acc` and this; `tile-tensor-cores` folds the add into
    the accumulator of a dot it runs on tensor cores, which then
    accumulates in place (mma.sync's C operand). A result type in
    `#tile.mma` says the dot runs on tensor cores, with its result in that
    layout (`acc` may be in another, which the dot converts).

    With `rhs_transposed` the right operand is given as `[N, K]` and read
    transposed: `dot(a, transpose(b))` folds to this, so no transposed
    copy of `b` is made (the lowering reads `b`'s staging copy by columns).

    `precision` says how a dot of f32 tiles multiplies: `ieee` (the
    default) is exact SIMT, each product and sum rounded to f32; `tf32`
    rounds each operand element to tf32 first (to nearest, ties away from
    zero, as `cvt.rna.tf32.f32`), so that tile-tensor-cores may run it on
    `mma.sync.m16n8k8.tf32`. Only f32 dots take `tf32`.

    `wgmma` (tile-tensor-cores, sm_90) says the tensor-core dot runs on
    Hopper's `wgmma.mma_async` instead of mma.sync: each warpgroup computes
    64 rows of the result (the `#tile.mma<warps = [W, 1]>` layout, whose
    warp `w` holds rows `16 w` to `16 w + 15` in m16n8 fragments, is
    wgmma's accumulator fragment) from operands in shared vars laid out in
    wgmma's swizzle (`tile.swizzle`).

    ```mlir
    %c = tile.dot %a, %b : tensor<16x32xf16>, tensor<32x64xf16> -> tensor<16x64xf32>
    %d = tile.dot %a, %b acc %c : tensor<16x32xf16>, tensor<32x64xf16> -> tensor<16x64xf32>
    %s = tile.dot %q, %k rhs_transposed : tensor<16x32xf16>, tensor<64x32xf16> -> tensor<16x64xf32>
    %t = tile.dot %x, %y precision = tf32 : tensor<16x32xf32>, tensor<32x64xf32> -> tensor<16x64xf32>
    ```
  }];
  let arguments = (ins Tile_Matrix:$lhs, Tile_Matrix:$rhs,
                       Optional<Tile_Matrix>:$acc, UnitAttr:$rhs_transposed,
                       DefaultValuedAttr<Tile_DotPrecisionAttr,
                                         "::mlir::tile::DotPrecision::ieee">:$precision,
                       UnitAttr:$wgmma);
  let results = (outs Tile_Matrix:$result);
  let assemblyFormat = [{
    $lhs `,` $rhs (`rhs_transposed` $rhs_transposed^)? (`acc` $acc^)?
    (`precision` `=` $precision^)? (`on` `wgmma` $wgmma^)? attr-dict
    `:` type($lhs) `,` type($rhs) `->` type($result)
    `` custom<AccType>(ref($acc), ref(type($result)), type($acc))
  }];
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Tile_ConvertLayoutOp : Tile_Op<"convert_layout", [
    AlwaysSpeculatable,
    DeclareOpInterfaceMethods<MemoryEffectsOpInterface>]> {
  let summary = "the same tile, its elements moved to another layout";
  let description = [{
    The tile `input`, with its elements held as its result type's layout
    says instead of as its operand's: the two types differ in their
    encoding alone, and nothing changes but which thread holds which
    element in which slot. It is the one op that changes a tile's layout.
    `tile-plan-shared` puts one where a row result (#tile.rows) is used
    where another layout is needed, and the compiler decides how the
    elements move (`getConversionPlan`, reported by `--tile-remarks` and in
    the manifest):

    * nothing, when the layouts are the same (the op folds away);
    * within each thread, when every thread already holds what it needs;
    * with one warp shuffle a slot, when every element a thread needs is in
      a lane of its own warp, in the same slot in every thread;
    * otherwise through `scratch`, a shared var of the tile's shape that
      `tile-plan-shared` adds (`through %s`): the primary holder of each
      element writes it, a barrier, and every thread reads its own. The op
      then reads and writes that var and has no other effect.

    Before `tile-assign-layouts` writes every layout into the types, a type
    without an encoding is in the layout the value is made in (Layouts.h,
    getLayout): the cyclic distribution for a conversion's result.

    The reference interpreter, which sees whole tiles, takes it as the
    identity.

    ```mlir
    %y = tile.convert_layout %x
        : tensor<16x1xf32, #tile.rows<columns = 64, parent = #tile.blocked<vector = 4>>>
        -> tensor<16x1xf32, #tile.blocked<vector = 1>>
    %z = tile.convert_layout %x through %s
        : tensor<16x1xf32, #tile.rows<columns = 256, parent = #tile.blocked<vector = 1>>>,
          !tile.var<16x1xf32> -> tensor<16x1xf32, #tile.blocked<vector = 1>>
    ```
  }];
  let arguments = (ins Tile_TileValue:$input, Optional<Tile_VarType>:$scratch);
  let results = (outs Tile_TileValue:$result);
  let assemblyFormat = [{
    $input (`through` $scratch^)? attr-dict `:` type($input)
    (`,` qualified(type($scratch))^)? `->` type($result)
  }];
  let builders = [OpBuilder<(ins "::mlir::Value":$input,
                                 "::mlir::Type":$resultType), [{
    build($_builder, $_state, resultType, input, /*scratch=*/::mlir::Value());
  }]>];
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Tile_BroadcastOp : Tile_Op<"broadcast", [Pure]> {
  let summary = "stretch the size-1 dimensions of a tile";
  let description = [{
    Each dimension of the input is the result's, or 1, which is repeated:
    `[R, 1] -> [R, C]` repeats each row's value across the row.

    ```mlir
    %b = tile.broadcast %m : tensor<16x1xf32> -> tensor<16x64xf32>
    ```
  }];
  let arguments = (ins Tile_TileValue:$input);
  let results = (outs Tile_TileValue:$result);
  let assemblyFormat = [{
    $input attr-dict `:` type($input) `->` type($result)
  }];
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Tile_ReshapeOp : Tile_Op<"reshape", [Pure]> {
  let summary = "the same elements in another shape";
  let description = [{
    The elements of the input in row-major order, in a tile of the result's
    shape (same element type, same number of elements): `[1, 64] -> [64]`,
    `[16, 64] -> [1024]`. Every tile is spread over its CTA by its
    row-major element index (element `e` in thread `e % threads`), which a
    reshape keeps, so each thread keeps the elements it holds: no data
    moves.

    ```mlir
    %row = tile.reshape %t : tensor<1x256xf32> -> tensor<256xf32>
    ```
  }];
  let arguments = (ins Tile_TileValue:$input);
  let results = (outs Tile_TileValue:$result);
  let assemblyFormat = [{
    $input attr-dict `:` type($input) `->` type($result)
  }];
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Tile_TransposeOp : Tile_Op<"transpose", [Pure]> {
  let summary = "the transpose of a rank-2 tile: [R, C] -> [C, R]";
  let description = [{
    Element `(i, j)` of the result is element `(j, i)` of the input. Each
    thread reads its result elements from the input's shared copy, so the
    input is spilled (it reads across threads); as the right operand of a
    `tile.dot` it folds into the dot (`rhs_transposed`) and costs nothing.

    ```mlir
    %t = tile.transpose %x : tensor<32x64xf32> -> tensor<64x32xf32>
    ```
  }];
  let arguments = (ins Tile_Matrix:$input);
  let results = (outs Tile_Matrix:$result);
  let assemblyFormat = [{
    $input attr-dict `:` type($input) `->` type($result)
  }];
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Tile_SplatOp : Tile_Op<"splat", [
    Pure,
    TypesMatchWith<"scalar is the tile's element type", "result", "input",
                   "::llvm::cast<::mlir::RankedTensorType>($_self).getElementType()">]> {
  let summary = "a tile whose elements all equal a scalar";
  let description = [{
    ```mlir
    %t = tile.splat %x : tensor<16x64xf32>
    ```
  }];
  let arguments = (ins Tile_ElementType:$input);
  let results = (outs Tile_TileValue:$result);
  let assemblyFormat = "$input attr-dict `:` type($result)";
  let hasFolder = 1;
}

def Tile_IotaOp : Tile_Op<"iota", [Pure]> {
  let summary = "a tile of element indices along one axis";
  let description = [{
    `iota([R, C], axis)`: the i32 tile whose element `(i, j)` is `i` for
    axis 0 and `j` for axis 1 (any rank: the element's index along
    `axis`). Each thread computes the indices of its own elements, so it
    needs no memory; causal and padding masks compare it with offsets.

    ```mlir
    %cols = tile.iota 1 : tensor<16x64xi32>
    ```
  }];
  let arguments = (ins ConfinedAttr<I64Attr, [IntNonNegative]>:$axis);
  let results = (outs Tile_IndexTile:$result);
  let assemblyFormat = "$axis attr-dict `:` type($result)";
  let hasVerifier = 1;
}


//===----------------------------------------------------------------------===//
// Indexing tiles
//===----------------------------------------------------------------------===//

def Tile_ExtractOp : Tile_Op<"extract", [
    Pure,
    TypesMatchWith<"result is the tile's element type", "input", "result",
                   "::llvm::cast<::mlir::RankedTensorType>($_self).getElementType()">]> {
  let summary = "one element of a tile, as a scalar every thread has";
  let description = [{
    `t[i, j]` with constant indices: the element every thread reads (from
    shared memory: one thread holds it), so the scalar is uniform and may
    decide an `if` or a `while`.

    ```mlir
    %x = tile.extract %t[3, 0] : tensor<16x64xf32>
    ```
  }];
  let arguments = (ins Tile_TileValue:$input, DenseI64ArrayAttr:$indices);
  let results = (outs Tile_ElementType:$result);
  let assemblyFormat = "$input `` $indices attr-dict `:` type($input)";
  let hasVerifier = 1;
}

def Tile_ExtractSliceOp : Tile_Op<"extract_slice", [Pure]> {
  let summary = "a sub-tile at constant offsets";
  let description = [{
    `t[a :+ R, b :+ C]` with constant starts: the tile of the result's
    shape whose element `(i, j)` is `t[a + i, b + j]`, wholly inside `t`.
    When every element keeps its owner thread and its slot maps to one slot
    of `t` in every thread (`getOwnerSlotMap`), each thread takes it from
    its own registers; otherwise `t` is read from shared memory.

    ```mlir
    %s = tile.extract_slice %t[8, 0] : tensor<16x64xf32> -> tensor<8x64xf32>
    ```
  }];
  let arguments = (ins Tile_TileValue:$input, DenseI64ArrayAttr:$offsets);
  let results = (outs Tile_TileValue:$result);
  let assemblyFormat = [{
    $input `` $offsets attr-dict `:` type($input) `->` type($result)
  }];
  let hasVerifier = 1;
}

def Tile_InsertSliceOp : Tile_Op<"insert_slice", [
    Pure, AllTypesMatch<["dest", "result"]>]> {
  let summary = "a tile with a sub-tile at constant offsets replaced";
  let description = [{
    `t[a :+ R, b :+ C] = s` on a var `t`: the tile `dest` whose elements
    `(a + i, b + j)` are `source[i, j]`, wholly inside `dest`. The other
    elements stay with their owners; `source` is taken from its owners'
    registers when the sub-tile keeps them (as for `tile.extract_slice`),
    else from shared memory.

    ```mlir
    %u = tile.insert_slice %s into %t[8, 0] : tensor<8x64xf32> into tensor<16x64xf32>
    ```
  }];
  let arguments = (ins Tile_TileValue:$source, Tile_TileValue:$dest,
                       DenseI64ArrayAttr:$offsets);
  let results = (outs Tile_TileValue:$result);
  let assemblyFormat = [{
    $source `into` $dest `` $offsets attr-dict `:` type($source) `into` type($dest)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Gathers and scatters
//===----------------------------------------------------------------------===//

def Tile_GatherOp : Tile_Op<"gather", [
    MemoryEffects<[MemRead]>, AttrSizedOperandSegments,
    OptionalTypesMatchWith<"other is the tile's element type", "result", "other",
                           "::llvm::cast<::mlir::RankedTensorType>($_self).getElementType()">]> {
  let summary = "read elements of a global tensor at indices a tile holds";
  let description = [{
    `X[rows, c :+ C]` with `rows` an i32 tile: element `p` of the result is
    the tensor's element at coordinates `offsets[d] + p[d]` in each
    dimension `d`, except in the dimensions `index_dims`, whose coordinate
    is `offsets[d] + indices[k][p]` (each index tile broadcast to the
    result's shape: a `[R, 1]` tile gives one index per row). Elements
    whose coordinates fall outside the tensor read `other` (0 without it).
    Which elements a thread reads depends on the data, so the op reads the
    whole tensor as far as barriers are concerned.

    ```mlir
    %e = tile.gather %E[%c0, %c0] indices(%ids) dims [0]
        : !tile.tensor<[V, 64], f32>, tensor<16x1xi32> -> tensor<16x64xf32>
    ```
  }];
  let arguments = (ins Tile_GlobalTensorType:$source, Variadic<Index>:$offsets,
                       Variadic<Tile_IndexTile>:$indices,
                       DenseI64ArrayAttr:$index_dims,
                       Optional<Tile_ElementType>:$other);
  let results = (outs Tile_TileValue:$result);
  let assemblyFormat = [{
    $source `[` $offsets `]` `indices` `(` $indices `)` `dims` $index_dims
    (`other` $other^)? attr-dict `:` qualified(type($source)) `,` type($indices)
    `->` type($result)
  }];
  let hasVerifier = 1;
}

def Tile_ScatterOp : Tile_Op<"scatter", [
    MemoryEffects<[MemWrite]>, AttrSizedOperandSegments,
    OptionalTypesMatchWith<"mask is an i1 tile of the value's shape", "value", "mask",
                           "::llvm::cast<::mlir::RankedTensorType>($_self).clone("
                           "::mlir::IntegerType::get($_self.getContext(), 1))">]> {
  let summary = "write a tile to elements of a global tensor at indices";
  let description = [{
    `X[rows, c :+ C] = v`: element `p` of `value` goes to the coordinates a
    `tile.gather` of the same operands reads (`index_dims` take the
    broadcast index tiles). Elements outside the tensor, and those where
    `mask` is false, are dropped. Two elements of one scatter that reach
    the same tensor element leave it undefined: the emulator reports that
    as a race, interp as an error.

    ```mlir
    tile.scatter %v, %Y[%c0, %c0] indices(%rows) dims [0]
        : tensor<16x64xf32>, !tile.tensor<[M, 64], f32>, tensor<16x1xi32>
    ```
  }];
  let arguments = (ins Tile_TileValue:$value, Tile_GlobalTensorType:$dest,
                       Variadic<Index>:$offsets,
                       Variadic<Tile_IndexTile>:$indices,
                       DenseI64ArrayAttr:$index_dims,
                       Optional<Tile_MaskTile>:$mask);
  let assemblyFormat = [{
    $value `,` $dest `[` $offsets `]` `indices` `(` $indices `)` `dims` $index_dims
    (`mask` $mask^)? attr-dict `:` type($value) `,` qualified(type($dest)) `,`
    type($indices)
  }];
  let hasVerifier = 1;
}


def Tile_AtomicOp : Tile_Op<"atomic", [
    MemoryEffects<[MemRead, MemWrite]>, AttrSizedOperandSegments,
    OptionalTypesMatchWith<"mask is an i1 tile of the value's shape", "value", "mask",
                           "::llvm::cast<::mlir::RankedTensorType>($_self).clone("
                           "::mlir::IntegerType::get($_self.getContext(), 1))">]> {
  let summary = "update elements of a global tensor atomically";
  let description = [{
    `atomic_add(Y[a :+ R, b :+ C], v)` (`atomic_max`, `atomic_min`): each
    element of `value` is combined, with one atomic read-modify-write, into
    the tensor element a `tile.store` (or, with index tiles, a
    `tile.scatter`) of the same operands would write; elements outside the
    tensor, or where `mask` is false, are dropped. The op has no result.
    Kinds and types: `add`, `max` and `min` of f32 and i32 (signed), and
    `add` of f16. A float `max`/`min` ignores a NaN operand, as `fmaxf`
    does. Atomic updates never race with each other, within a CTA or
    between CTAs, and race with plain accesses of the same elements; a
    float sum's order is the threads' and CTAs', so it rounds as they come.

    ```mlir
    tile.atomic add %c, %C[%m, %n] : tensor<32x64xf32>, !tile.tensor<[M, N], f32>
    tile.atomic add %ones, %H[%c0] indices(%bins) dims [0] : tensor<256xi32>, !tile.tensor<[B], i32>, tensor<256xi32>
    ```
  }];
  let arguments = (ins Tile_AtomicKindAttr:$kind, Tile_TileValue:$value,
                       Tile_GlobalTensorType:$dest, Variadic<Index>:$offsets,
                       Variadic<Tile_IndexTile>:$indices,
                       DefaultValuedAttr<DenseI64ArrayAttr, "{}">:$index_dims,
                       Optional<Tile_MaskTile>:$mask);
  let assemblyFormat = [{
    $kind $value `,` $dest `[` $offsets `]`
    (`indices` `(` $indices^ `)` `dims` $index_dims)? (`mask` $mask^)? attr-dict
    `:` type($value) `,` qualified(type($dest)) (`,` type($indices)^)?
  }];
  let hasVerifier = 1;
}

#endif // TILE_DIALECT_TILE_IR_TILEOPS_TD
