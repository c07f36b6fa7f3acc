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
  // The decisions passes hand to each other, and what the front end marks:
  // declared here, each with one meaning, and checked (which op carries it,
  // its kind and value) by verifyOperationAttribute, so a planned module is
  // valid IR.
  let discardableAttrs = (ins
    // tile.var, tile-plan-shared: the var lives in shared memory, at this
    // byte offset of the kernel's shared buffer.
    "::mlir::IntegerAttr":$offset,
    // tile.var, tile-plan-shared: `file:first-last`, the source lines the
    // shared var is live over (reports, the manifest).
    "::mlir::StringAttr":$live,
    // tile.var, tile-plan-shared: the planner keeps this var in the
    // registers of the threads that own its elements (no request: a
    // `@registers` request is `storage = registers`).
    "::mlir::UnitAttr":$local,
    // tile.var, tile-plan-shared: a shared temporary the planner made for
    // an op that reads its operand across threads.
    "::mlir::UnitAttr":$temp,
    // tile.var, tile-promote-registers: the shared tile a register tile of
    // this name is spilled to.
    "::mlir::StringAttr":$spill_of,
    // a reduction, tile-promote-registers: "shuffle", a register tile's
    // reduction folded into warp shuffles.
    "::mlir::StringAttr":$fold,
    // tile.kernel, tile-promote-registers: one #tile.promoted_var per
    // promoted var (TileAttrs.td).
    "::mlir::ArrayAttr":$promoted,
    // tile.kernel, tile-plan-shared: the names of the spills of @registers
    // vars whose store it elided (no use read another thread's elements).
    "::mlir::ArrayAttr":$elided_spills,
    // tile.kernel, tile-plan-shared: the bytes of shared memory it uses.
    "::mlir::IntegerAttr":$shared_bytes,
    // tile.kernel, tile-pipeline-loads: one #tile.pipelined_loop per
    // pipelined loop, with a #tile.staged_load per load (TileAttrs.td).
    "::mlir::ArrayAttr":$pipelined,
    // tile.kernel, tile-insert-barriers: its barriers are placed
    // (tile.barrier ops), which tile-to-gpu requires.
    "::mlir::UnitAttr":$synchronized,
    // tile.var, tile-plan-shared: unused elements after each row of the
    // var's tile in shared memory (rows start `columns + padding` elements
    // apart), so that the 16-byte rows ldmatrix reads for a tensor-core dot
    // fall in distinct banks.
    "::mlir::IntegerAttr":$padding,
    // tile.var, tile-tensor-cores: the var's [R, C] tile is an operand of
    // a dot on wgmma, in shared memory in wgmma's layout of this swizzle
    // (128, 64 or 32 bytes; getSwizzledIndex): columns in blocks of
    // `swizzle` bytes, each block R rows of `swizzle` bytes, the blocks one
    // after another, and in each 1024-byte-aligned group of eight rows the
    // 16-byte chunk c of row r at chunk c ^ (r % 8) (128B; ^ ((r / 2) % 4)
    // for 64B, ^ ((r / 4) % 2) for 32B: the address's bits 4 up XORed with
    // its bits 7 up). The var is 1024-byte aligned. A TMA box of
    // [R, swizzle / element bytes] with this swizzle writes one block.
    "::mlir::IntegerAttr":$swizzle,
    // scf.for, the front end: the name of the loop's index (`@pipeline`).
    "::mlir::StringAttr":$index,
    // tile.kernel, the author or tile-specialize-divisibility: {K = 16},
    // every launch's value of symbol K is a multiple of 16 (a positive
    // power of two), which the lowering may assume (wider vector accesses,
    // fewer checks) and every runtime checks before it launches the kernel
    // (the manifest's `variants`). Triton's `tt.divisibility`, for sizes.
    "::mlir::DictionaryAttr":$divisibility,
    // tile.kernel, tile-specialize-divisibility: the kernel is a variant
    // of the named kernel (its copy under more `tile.divisibility`), listed
    // in that kernel's manifest and chosen at launch, not a kernel of its
    // own.
    "::mlir::FlatSymbolRefAttr":$variant_of,
    // llvm.store, tile-to-gpu: [n, slot], a store of slot `slot` of the
    // n-th tile.scatter of the kernel, so that the emulator catches two
    // elements of one scatter in one thread reaching one tensor element.
    "::mlir::DenseI64ArrayAttr":$scatter,
    // memref.store to shared memory, tile-to-gpu: a store of an async
    // copy's element-wise part (elements narrower than cp.async's 4 bytes,
    // not aligned to a chunk), which the kernel may rely on only after the
    // wait that covers the copy's group: the emulator holds it in flight
    // until then, as it does the copy's cp.async.
    "::mlir::UnitAttr":$async_copy
  );

  let useDefaultTypePrinterParser = 1;
  let useDefaultAttributePrinterParser = 1;
  let hasConstantMaterializer = 1;
  let hasOperationAttrVerify = 1;
  let hasRegionArgAttrVerify = 1;
  let extraClassDeclaration = [{
    void registerTypes();
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
}

// Every tile op but tile.kernel is only meaningful in a kernel's body.
def Tile_InsideKernel : NativeOpTrait<"InsideKernel"> {
  let cppNamespace = "::mlir::tile";
}

class Tile_Op<string mnemonic, list<Trait> traits = []>
    : Op<Tile_Dialect, mnemonic, !listconcat(traits, [Tile_InsideKernel])>;

#endif // TILE_DIALECT_TILE_IR_TILEDIALECT_TD
