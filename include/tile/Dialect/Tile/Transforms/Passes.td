//===- Passes.td - tile dialect passes ---------------------*- tablegen -*-===//

#ifndef TILE_DIALECT_TILE_TRANSFORMS_PASSES_TD
#define TILE_DIALECT_TILE_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def TilePromoteRegisters
    : Pass<"tile-promote-registers", "::mlir::tile::KernelOp"> {
  let summary = "keep the vars of `@registers` in per-thread registers";
  let description = [{
    Carries out the kernel's `registers` request (and every tile var marked
    `storage = registers`), as RegisterPromotionAnalysis decides:

    * the var becomes SSA values, which the lowering spreads over threads
      (element `e`, row-major, in thread `e % threads` at slot
      `e / threads`); an `scf.for` that updates it carries it as an
      iter_arg, never through memory;
    * `rowsum`/`rowmax` of an f32 or i32 tile with rows of a power of two
      of at most 32 elements read the registers and are marked
      `tile.fold = "shuffle"`;
    * every other use reads a shared tile, `tile.var "t" = %value
      {tile.spill_of = "t"}`, stored just before the first use that needs
      it; later uses of the same value where that spill dominates share
      it, so a use inside a loop spills inside the loop only when the
      value changes there.

    The kernel records the decision in `tile.promoted`, an array with one
    dictionary per var (`name`, `type`, `threads`, `slots`, `spills`,
    `shuffles`), and the promoted names leave `registers`, so a second run
    changes nothing.

    A var that cannot live in registers is an error at its location naming
    the reason (the five rejections of `@registers`), and the pass changes
    nothing. With `remarks=true` (or MLIR's `--remarks-filter`), it says
    for each var how many elements a thread holds, and for each use
    whether it stays in registers, is folded with shuffles or is spilled,
    and why, and where each spill was placed.
  }];
  let dependentDialects = ["::mlir::scf::SCFDialect"];
  let options = [
    Option<"remarks", "remarks", "bool", /*default=*/"false",
           "report every promoted var, use and spill as a remark">,
  ];
}

def TilePlacementDump : Pass<"tile-placement-dump", "::mlir::ModuleOp"> {
  let summary = "print where each tile of each kernel lives, as JSON";
  let description = [{
    Prints to standard output, for each kernel, its threads, its loops
    (source line and nesting depth) and each tile:
    its name, shape, element type and storage (`shared`, `registers` for
    the vars `tile-promote-registers` promoted, with their slots per
    thread), the var it is a spill of, and the reads and writes of each
    shared tile with their loop depth and source line, and for a read the
    ops that use it and whether they need other threads' elements. `utils/placement-figure.py` draws it.
    The IR is unchanged.
  }];
}

def TileReuseReads : Pass<"tile-reuse-reads", "::mlir::tile::KernelOp"> {
  let summary = "one read for repeated reads of a var or a slice";
  let description = [{
    Replaces a `tile.read` or `tile.load` by an identical one earlier in its
    block when no op between them may write memory, in one pass over each
    block. Upstream `cse` does the same for ops that only read, but checks
    for writes by scanning from the first read again for every repeat:
    100,000 reads of one var took minutes there. After this pass `cse` only
    meets repeats with a write between, where its scan stops at the write.
  }];
}

def TileHoistInvariants
    : Pass<"tile-hoist-invariants", "::mlir::tile::KernelOp"> {
  let summary = "move reads and tile computations that do not change out of loops";
  let description = [{
    Moves out of an `scf.for` (innermost first) every op of its body that
    computes the same value on every iteration: a pure op whose operands
    are defined outside the loop, a `tile.read` of a var the loop never
    writes, and a `tile.var` initialised from outside the loop that the
    loop never writes (so the spill of a register tile used in a loop that
    does not change it is stored once, before the loop). A broadcast of a column that does not change, such as a row
    scale, is then made once before the loop instead of on every iteration,
    and so is its read of shared memory. Reads and pure ops have no effect
    to repeat or lose, so a loop that runs no iteration is still correct.
  }];
}

def TilePipelineLoads
    : Pass<"tile-pipeline-loads", "::mlir::tile::KernelOp"> {
  let summary = "issue the loads of `@pipeline` loops iterations ahead";
  let description = [{
    Acts on the kernel's `pipeline` dictionary (`@pipeline(kt, stages =
    3)`): the loads directly in the body of every `scf.for` whose
    `tile.index` is a named loop index, and the loads that set a named var
    in a loop, are issued `stages - 1` iterations ahead. Slices past a
    tensor's end read zeros without touching memory, so prefetching
    iterations that never run is safe. A load is left alone, with a
    warning, when the loop also stores to its tensor or its offsets cannot
    be recomputed for a later iteration.

    A load whose tile is read across threads (a `dot` operand, a tile a
    reduction reads from shared memory), directly or through a var of the
    loop's body, goes to a ring of `stages` shared tiles (`tile.var
    "a.stages" {stages = S}`) by async copies (`tile.copy {async}`): the
    first `stages - 1` iterations' slices before the loop, a group each;
    each iteration waits for its own (`tile.wait_group stages - 2`), copies
    the slice `stages - 1` iterations later into the stage the previous
    iteration read, commits it, and reads stage `i mod stages`; a
    `tile.wait_group 0` after the loop. No register holds a tile in flight,
    and tile-insert-barriers puts the one barrier an iteration needs after
    the wait. Other loads are staged in registers: the slices of the first
    `stages - 1` iterations are loaded before the loop, each iteration
    loads the slice `stages - 1` iterations later first thing, and the
    tiles in flight are iteration arguments.

    `stages` is 2 to 8. Without it, the pass takes the most stages, up to
    4, with which the kernel's shared memory fits `max-shared-bytes` (by
    default what a CTA of `chip` may use, as tile-plan-shared's limit; the
    pass pipelines a copy of the kernel, decides its tensor-core dots for
    `chip` as tile-tensor-cores does, and plans its shared memory: the
    bytes counted are the plan's, the padding of tensor-core operands
    included) and its tiles (register tiles, tiles staged in registers) the registers a
    thread has; else 2. A pipeline whose tiles would not fit the registers
    is a warning. The kernel records each pipelined loop in
    `tile.pipelined` (stages, loads, the loads in shared memory and their
    bytes, the elements per thread in registers) and loses its `pipeline`
    request, so a second run changes nothing.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
  let options = [
    Option<"remarks", "remarks", "bool", /*default=*/"false",
           "remark on every load issued ahead, and on the stages chosen">,
    Option<"maxSharedBytes", "max-shared-bytes", "int64_t",
           /*default=*/"0",
           "shared memory a CTA may use, for choosing the stages; 0: the "
           "chip's (as tile-plan-shared's max-bytes: 227 KiB on sm_90, 64 "
           "KiB on sm_75)">,
    Option<"chip", "chip", "std::string", /*default=*/"\"sm_90\"",
           "the target, as tile-tensor-cores's chip: which dots run on "
           "tensor cores, whose shared operands the plan pads">,
  ];
}

def TilePlanShared : Pass<"tile-plan-shared", "::mlir::tile::KernelOp"> {
  let summary = "decide where every tile var lives and lay out shared memory";
  let description = [{
    Runs after `tile-promote-registers`. Decides the storage of every tile
    var and gives each shared one a byte offset:

    * an op that reads a tile under another thread mapping than the
      element owner's (`rowsum`/`rowmax` that cannot fold into shuffles,
      `dot`, a `broadcast` that is not free) reads it from a shared var; a
      value that is not already the unchanged content of one is first
      stored into a new shared temporary (`tile.temp`) right before the op;
    * the result of a shuffle-folded reduction, which lives in every lane
      of its row, is stored into a shared temporary before any use other
      than a free broadcast, a store to a tensor (the first lane of each
      row stores it) or a var write;
    * a var that is only ever read by the thread that owns the element is
      kept in registers (`tile.local`), with a remark: keeping it there is
      unobservable; spills of `@registers` vars stay shared. The decision
      is made from the IR alone, so planning a planned kernel again gives
      the same plan; a `storage = registers` request that
      `tile-promote-registers` has not carried out is an error;
    * shared vars get byte offsets (`tile.offset`) from their live ranges,
      so that vars that are never live at once share bytes; the kernel
      gets `tile.shared_bytes`.

    A kernel that needs more than `max-bytes` (by default the shared
    memory a CTA of `chip` may use, `getMaxSharedBytes`) is an error naming
    its buffers. `report=true` prints the plan as a remark: one line a buffer
    with its name, bytes, offset and live range.
  }];
  let options = [
    Option<"report", "report", "bool", /*default=*/"false",
           "print the shared-memory plan of every kernel as a remark">,
    Option<"maxBytes", "max-bytes", "int64_t", /*default=*/"0",
           "shared memory a CTA may use; 0: the chip's (227 KiB on sm_90, "
           "64 KiB on sm_75: include/tile/Dialect/Tile/IR/ChipLimits.h)">,
    Option<"chip", "chip", "std::string", /*default=*/"\"sm_90\"",
           "the target, whose shared memory a CTA may use (as "
           "tile-pipeline-loads's chip)">,
  ];
}

def TileTensorCores : Pass<"tile-tensor-cores", "::mlir::tile::KernelOp"> {
  let summary = "run dots on mma.sync, their accumulators in its fragments";
  let description = [{
    Runs before `tile-plan-shared`. A `tile.dot` of f16 or bf16 tiles
    accumulating in f32 runs on tensor cores (`mma.sync.m16n8k16`, sm_80
    and newer) when the kernel's warps tile its `[M, N]` result in blocks
    of whole `[16, 8]` mma tiles and K is a multiple of 16: the pass types
    its result `tensor<..., #tile.mma<warps = [wm, wn]>>`, the warp grid being
    the one whose warps load the fewest ldmatrix per 16 of K (then the one
    with more warps along M). Every other dot runs SIMT (with
    `remarks=true`, a remark says why; f32 dots stay exact).

    The dot's result is in the accumulator's fragment layout, and so is
    every tile joined to it by same-shape elementwise ops, loop-carried
    values (`scf.for` inits, iter_args, yields, results), `scf.if`
    results and the values of a var the plan may keep in registers: the
    accumulator of `acc += dot(a, b)`, whether `@registers` or not. Such a
    group takes `#tile.mma` (on the ops defining its tiles) when every
    member is made and used only by ops that address elements by their
    coordinates (elementwise ops, splats, constants, slices, var reads and
    writes, stores, reads across threads from shared memory); then the
    `arith.addf` of `acc` and the dot folds into the dot's accumulator
    (`tile.dot %a, %b acc %acc`), so mma.sync accumulates in place. The
    reads of a spill (or any var that is shared whatever the plan) form a
    group of their own, which takes the layout of the var's writes when
    nothing in it needs another: the plan can then elide a spill that only
    a store reads. A group with a member that needs seed 000's
    distribution (an in-place reduction, a free broadcast, a reshape, ...)
    keeps it, and its tensor-core dots convert their results through a
    shared var (`dot.result`) where they are made; the remark says which
    op needs it.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
  let options = [
    Option<"chip", "chip", "std::string", /*default=*/"\"sm_90\"",
           "the target GPU, sm_70 to sm_100: tensor cores from sm_80">,
    Option<"remarks", "remarks", "bool", /*default=*/"false",
           "remark on every dot: on tensor cores, how, or why not">,
  ];
}

def TileAssignLayouts
    : Pass<"tile-assign-layouts", "::mlir::tile::KernelOp"> {
  let summary = "give tiles that only move through global memory wide runs";
  let description = [{
    Runs after `tile-plan-shared`. Every tile has seed 000's distribution
    (`#tile.blocked<vector = 1>`, element `e` in thread `e % threads`)
    unless this pass gives it another, recorded as the encoding of its
    tensor type. It does so for the tiles whose layout no one can
    observe: a set of tiles joined by same-shape elementwise ops, made by
    slices (`tile.load`), splats, constants and broadcasts read from shared
    memory, and used only by those ops, by stores to tensors and by writes
    of shared tile vars, which address elements by coordinates (no
    reduction, `dot`, register var other than a `tile.local` one, spill,
    loop-carried value or `ctx.thread`-dependent
    value: those keep the seed's distribution, which is the contract of
    register tiles). Such a set gets runs of `vector` consecutive elements
    a thread, the most that make one access of at most 16 bytes, divide
    the rows and, times the threads, the elements: its slices are then
    read and written with vector accesses wherever the slice is inside the
    tensor and its rows start 16-byte aligned (checked at run time, with
    the per-element path otherwise). With `remarks=true`, each such tile's
    layout is a remark.
  }];
  let options = [
    Option<"remarks", "remarks", "bool", /*default=*/"false",
           "remark on every tile given a layout">,
  ];
}

def TileInsertBarriers
    : Pass<"tile-insert-barriers", "::mlir::tile::KernelOp"> {
  let summary = "put a tile.barrier wherever threads of a CTA share memory";
  let description = [{
    Runs after `tile-plan-shared`, on the accesses of every op to shared
    vars (by byte range, since planned vars share bytes) and to global
    tensors, each with its thread mapping: the owners of each element, or
    any thread. A `tile.barrier` goes before an access that conflicts with
    one since the last barrier: memory in common, one of them a write, and
    not both by the owners of the same elements (a thread rereading what it
    wrote needs none). Loops are walked twice, so an access also meets the
    previous iteration's; an `if` joins its branches; barriers already in
    the kernel count, so a second run adds none. A barrier, or a reduction's
    warp shuffles, under control flow that depends on `ctx.thread` is an
    error at the op. The kernel is marked `tile.synchronized`, which
    `tile-to-gpu` requires.

    With `remarks=true`, each barrier placed is a remark naming the access
    it orders.
  }];
  let options = [
    Option<"remarks", "remarks", "bool", /*default=*/"false",
           "remark on every barrier placed">,
  ];
}

def TileSpecializeDivisibility
    : Pass<"tile-specialize-divisibility", "::mlir::ModuleOp"> {
  let summary = "add a variant of each kernel for sizes divisible by 16";
  let description = [{
    Runs last in the placement pipeline, on placed and synchronized
    kernels. For each kernel (not itself a variant) it asks whether knowing
    every symbolic dimension to be a multiple of 16 would change how the
    kernel is lowered (`divisibilityChangesLowering`: a vector access whose
    runs' alignment would be known at compile time instead of tested at run
    time, a copy's chunk test, or a slice's bounds tested once for the
    slice instead of element by element): if so, it adds a copy of the kernel,
    `NAME_div16` (a number appended if that name is taken), right after it,
    with `tile.divisibility = {K = 16, ...}` (every symbol; a divisor the
    kernel already declares and which is larger is kept) and
    `tile.variant_of = @NAME`. The copy has the same placement (shared
    plan, layouts, barriers), so it differs only in its lowering: aligned
    runs without the per-element path. Both are compiled into the PTX; the
    manifest lists the variant, with its conditions, under the general
    kernel (`variants`), and each runtime launches the most specialized
    variant whose conditions the launch's sizes meet. A second run adds
    nothing (a kernel that has a variant, or is one, is skipped).
  }];
}

#endif // TILE_DIALECT_TILE_TRANSFORMS_PASSES_TD
