// RUN: tile-opt %s -split-input-file -verify-diagnostics

// The decisions passes hand to each other are declared attributes of the
// dialect (TileDialect.td, discardableAttrs), each checked where it sits.

tile.kernel @offset_not_on_var(%O: !tile.tensor<[16], f32>) attributes {threads = 32 : i64} {
  // expected-error @+1 {{'arith.constant' op attribute 'tile.offset' belongs on a tile.var}}
  %c0 = arith.constant {tile.offset = 0 : i64} 0 : index
  tile.return
}

// -----

tile.kernel @negative_offset(%O: !tile.tensor<[16], f32>) attributes {threads = 32 : i64} {
  // expected-error @+1 {{attribute 'tile.offset' must be a byte offset (a non-negative i64)}}
  %v = tile.var "v" {tile.offset = -16 : i64} : !tile.var<16xf32>
  tile.return
}

// -----

tile.kernel @offset_of_registers(%O: !tile.tensor<[16], f32>) attributes {threads = 32 : i64} {
  // expected-error @+1 {{attribute 'tile.offset' places a var in shared memory, but the var is in registers}}
  %v = tile.var "v" {storage = #tile.storage<registers>, tile.offset = 0 : i64} : !tile.var<16xf32>
  tile.return
}

// -----

tile.kernel @local_and_offset(%O: !tile.tensor<[16], f32>) attributes {threads = 32 : i64} {
  // expected-error @+1 {{attribute 'tile.local' and 'tile.offset' both: a var is in registers or in shared memory}}
  %v = tile.var "v" {tile.local, tile.offset = 0 : i64} : !tile.var<16xf32>
  tile.return
}

// -----

tile.kernel @local_scalar(%O: !tile.tensor<[16], f32>) attributes {threads = 32 : i64} {
  // expected-error @+1 {{attribute 'tile.local' keeps a tile in registers, not a scalar}}
  %v = tile.var "n" {tile.local} : !tile.var<i32>
  tile.return
}

// -----

tile.kernel @spill_of_empty(%O: !tile.tensor<[16], f32>) attributes {threads = 32 : i64} {
  // expected-error @+1 {{attribute 'tile.spill_of' must be a non-empty string}}
  %v = tile.var "v" {tile.spill_of = 3 : i64} : !tile.var<16xf32>
  tile.return
}

// -----

tile.kernel @fold_value(%X: !tile.tensor<[16, 16], f32>) attributes {threads = 32 : i64} {
  %c0 = arith.constant 0 : index
  %x = tile.load %X[%c0, %c0] : !tile.tensor<[16, 16], f32> -> tensor<16x16xf32>
  // expected-error @+1 {{attribute 'tile.fold' must be "shuffle"}}
  %s = tile.rowsum %x {tile.fold = "smem"} : tensor<16x16xf32> -> tensor<16x1xf32>
  tile.return
}

// -----

tile.kernel @fold_not_reduction(%X: !tile.tensor<[16, 16], f32>) attributes {threads = 32 : i64} {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{attribute 'tile.fold' belongs on a reduction}}
  %x = tile.load %X[%c0, %c0] {tile.fold = "shuffle"} : !tile.tensor<[16, 16], f32> -> tensor<16x16xf32>
  tile.return
}

// -----

// The records of tile.promoted and tile.pipelined are attributes of their
// own (TileAttrs.td), not dictionaries, each verified field by field.
// expected-error @+1 {{attribute 'tile.promoted' must be an array of #tile.promoted_var records}}
tile.kernel @promoted_dictionary(%O: !tile.tensor<[16], f32>) attributes {threads = 32 : i64, tile.promoted = [{name = "acc", type = tensor<16xf32>, threads = 32 : i64, slots = 1 : i64, shuffles = 0 : i64, spills = 0 : i64}]} {
  tile.return
}

// -----

// expected-error @+1 {{slots must be the elements per thread of 'tensor<64xf32>' over 32 threads (2), got 4}}
tile.kernel @promoted_slots(%O: !tile.tensor<[16], f32>) attributes {threads = 32 : i64, tile.promoted = [#tile.promoted_var<name = "acc", type = tensor<64xf32>, threads = 32, slots = 4, shuffles = 0, spills = 0>]} {
  tile.return
}

// -----

// expected-error @+1 {{spills must not be negative, got -1}}
tile.kernel @promoted_spills(%O: !tile.tensor<[16], f32>) attributes {threads = 32 : i64, tile.promoted = [#tile.promoted_var<name = "acc", type = tensor<64xf32>, threads = 32, slots = 2, shuffles = 0, spills = -1>]} {
  tile.return
}

// -----

// expected-error @+1 {{ahead must be stages - 1 (2), got 1}}
tile.kernel @pipelined_ahead(%O: !tile.tensor<[16], f32>) attributes {threads = 32 : i64, tile.pipelined = [#tile.pipelined_loop<loop = "k", loc = loc(unknown), loads = 1, stages = 3, stagesChosen = "given", ahead = 1, sharedLoads = 1, sharedBytes = 64, elementsPerThread = 0, staged = [#tile.staged_load<name = "a", loc = loc(unknown), in = "shared", bytes = 64, chunkBytes = 16, why = "a dot reads it">]>]} {
  tile.return
}

// -----

// A pipelined loop's record holds one #tile.staged_load a load, checked
// as well, and against the loop's counts.
// expected-error @+2 {{a load is staged in "shared" or "registers", got "global"}}
// expected-error @+1 {{failed to parse Tile_PipelinedLoopAttr parameter 'staged'}}
tile.kernel @pipelined_medium(%O: !tile.tensor<[16], f32>) attributes {threads = 32 : i64, tile.pipelined = [#tile.pipelined_loop<loop = "k", loc = loc(unknown), loads = 1, stages = 2, stagesChosen = "given", ahead = 1, sharedLoads = 1, sharedBytes = 64, elementsPerThread = 0, staged = [#tile.staged_load<name = "a", loc = loc(unknown), in = "global", bytes = 64, chunkBytes = 16, why = "a dot reads it">]>]} {
  tile.return
}

// -----

// expected-error @+1 {{sharedLoads must count the loads staged in shared memory (0), got 1}}
tile.kernel @pipelined_shared_loads(%O: !tile.tensor<[16], f32>) attributes {threads = 32 : i64, tile.pipelined = [#tile.pipelined_loop<loop = "k", loc = loc(unknown), loads = 1, stages = 2, stagesChosen = "auto", ahead = 1, sharedLoads = 1, sharedBytes = 0, elementsPerThread = 1, staged = [#tile.staged_load<name = "a", loc = loc(unknown), in = "registers", bytes = 64, chunkBytes = 0, why = "only its owners read it">]>]} {
  tile.return
}

// -----

// expected-error @+1 {{a pipelined loop has a record per load: loads is 2, staged has 1}}
tile.kernel @pipelined_staged_short(%O: !tile.tensor<[16], f32>) attributes {threads = 32 : i64, tile.pipelined = [#tile.pipelined_loop<loop = "k", loc = loc(unknown), loads = 2, stages = 2, stagesChosen = "given", ahead = 1, sharedLoads = 0, sharedBytes = 0, elementsPerThread = 1, staged = [#tile.staged_load<name = "a", loc = loc(unknown), in = "registers", bytes = 64, chunkBytes = 0, why = "only its owners read it">]>]} {
  tile.return
}

// -----

// expected-error @+1 {{attribute 'tile.shared_bytes' must be a byte count (a non-negative i64)}}
tile.kernel @shared_bytes(%O: !tile.tensor<[16], f32>) attributes {threads = 32 : i64, tile.shared_bytes = "4 KiB"} {
  tile.return
}

// -----

tile.kernel @index_not_on_for(%O: !tile.tensor<[16], f32>) attributes {threads = 32 : i64} {
  // expected-error @+1 {{attribute 'tile.index' belongs on an scf.for}}
  %v = tile.var "v" {tile.index = "kt"} : !tile.var<16xf32>
  tile.return
}

// -----

tile.kernel @unknown(%O: !tile.tensor<[16], f32>) attributes {threads = 32 : i64} {
  // expected-error @+1 {{'tile.var' op has unknown attribute 'tile.ofset' of the tile dialect}}
  %v = tile.var "v" {tile.ofset = 0 : i64} : !tile.var<16xf32>
  tile.return
}

// -----

// expected-error @+1 {{'tile.kernel' op has unknown argument attribute 'tile.nme' of the tile dialect}}
tile.kernel @unknown_arg(%O: !tile.tensor<[16], f32> {tile.nme = "O"}) attributes {threads = 32 : i64} {
  tile.return
}

// -----

// A divisibility the launch guarantees, for a symbol of the kernel.
tile.kernel @divisible(%X: !tile.tensor<[16, K], f32>) attributes {threads = 32 : i64, tile.divisibility = {K = 16 : i64}} {
  tile.return
}

// -----

// expected-error @+1 {{attribute 'tile.divisibility' must be a dictionary of symbol divisors, {K = 16}}}
tile.kernel @divisibility_not_a_dictionary(%X: !tile.tensor<[16, K], f32>) attributes {threads = 32 : i64, tile.divisibility = 16 : i64} {
  tile.return
}

// -----

// expected-error @+1 {{attribute 'tile.divisibility' names 'N', which is not a symbolic dimension of the kernel's parameters}}
tile.kernel @divisibility_unknown_symbol(%X: !tile.tensor<[16, K], f32>) attributes {threads = 32 : i64, tile.divisibility = {N = 16 : i64}} {
  tile.return
}

// -----

// expected-error @+1 {{attribute 'tile.divisibility' gives 'K' the divisor 12 : i64: a divisor is a power of two from 1 to 2^30 (an i64)}}
tile.kernel @divisibility_not_a_power_of_two(%X: !tile.tensor<[16, K], f32>) attributes {threads = 32 : i64, tile.divisibility = {K = 12 : i64}} {
  tile.return
}

// -----

// expected-error @+1 {{attribute 'tile.divisibility' gives 'K' the divisor 0 : i64: a divisor is a power of two from 1 to 2^30 (an i64)}}
tile.kernel @divisibility_zero(%X: !tile.tensor<[16, K], f32>) attributes {threads = 32 : i64, tile.divisibility = {K = 0 : i64}} {
  tile.return
}

// -----

tile.kernel @divisibility_on_a_var(%O: !tile.tensor<[16], f32>) attributes {threads = 32 : i64} {
  // expected-error @+1 {{attribute 'tile.divisibility' belongs on a tile.kernel}}
  %v = tile.var "v" {tile.divisibility = {}} : !tile.var<16xf32>
  tile.return
}

// -----

// A variant of another kernel of the module, with its parameters.
tile.kernel @general(%X: !tile.tensor<[16, K], f32>) attributes {threads = 32 : i64} {
  tile.return
}
tile.kernel @general_div16(%X: !tile.tensor<[16, K], f32>) attributes {threads = 32 : i64, tile.divisibility = {K = 16 : i64}, tile.variant_of = @general} {
  tile.return
}

// -----

// expected-error @+1 {{attribute 'tile.variant_of' names @missing, which is not another kernel of the module}}
tile.kernel @variant_of_nothing(%X: !tile.tensor<[16, K], f32>) attributes {threads = 32 : i64, tile.variant_of = @missing} {
  tile.return
}

// -----

// expected-error @+1 {{attribute 'tile.variant_of' names @itself, which is not another kernel of the module}}
tile.kernel @itself(%X: !tile.tensor<[16, K], f32>) attributes {threads = 32 : i64, tile.variant_of = @itself} {
  tile.return
}

// -----

// expected-error @+1 {{attribute 'tile.variant_of' must name a kernel (@name)}}
tile.kernel @variant_of_a_string(%X: !tile.tensor<[16, K], f32>) attributes {threads = 32 : i64, tile.variant_of = "general"} {
  tile.return
}

// -----

tile.kernel @base(%X: !tile.tensor<[16, K], f32>) attributes {threads = 32 : i64} {
  tile.return
}
// expected-error @+1 {{attribute 'tile.variant_of' names @base, whose parameters, threads or grid differ: a variant is launched in its place}}
tile.kernel @other_threads(%X: !tile.tensor<[16, K], f32>) attributes {threads = 64 : i64, tile.variant_of = @base} {
  tile.return
}

// -----

// A variant without `threads`: an error, not a crash (its attribute's
// verifier runs before the kernel's; utils/fuzz.py seed 104).
tile.kernel @base(%X: !tile.tensor<[16, K], f32>) attributes {threads = 32 : i64} {
  tile.return
}
// expected-error @+1 {{attribute 'tile.variant_of' names @base, whose parameters, threads or grid differ: a variant is launched in its place}}
tile.kernel @no_threads(%X: !tile.tensor<[16, K], f32>) attributes {thread = 32 : i64, tile.variant_of = @base} {
  tile.return
}

// -----

tile.kernel @first(%X: !tile.tensor<[16, K], f32>) attributes {threads = 32 : i64} {
  tile.return
}
tile.kernel @second(%X: !tile.tensor<[16, K], f32>) attributes {threads = 32 : i64, tile.variant_of = @first} {
  tile.return
}
// expected-error @+1 {{attribute 'tile.variant_of' names @second, which is a variant itself}}
tile.kernel @third(%X: !tile.tensor<[16, K], f32>) attributes {threads = 32 : i64, tile.variant_of = @second} {
  tile.return
}

// -----

// A kernel without its type: the kernel's verifier says so; the
// divisibility's does not crash reading its parameters.
// expected-error @+1 {{'tile.kernel' op requires attribute 'function_type'}}
"tile.kernel"() ({
}) {sym_name = "untyped", tile.divisibility = {K = 16 : i64}} : () -> ()

// -----

// expected-error @+1 {{attribute 'tile.variant_of' names @typed, whose parameters, threads or grid differ: a variant is launched in its place}}
"tile.kernel"() ({
}) {sym_name = "untyped_variant", tile.variant_of = @typed} : () -> ()
tile.kernel @typed(%X: !tile.tensor<[16, K], f32>) attributes {threads = 32 : i64} {
  tile.return
}

// -----

// The mark of an async copy's element-wise store is a unit attribute of a
// memref.store.
tile.kernel @async_copy_not_on_store(%O: !tile.tensor<[16], f32>) attributes {threads = 32 : i64} {
  // expected-error @+1 {{'arith.constant' op attribute 'tile.async_copy' belongs on a memref.store}}
  %c0 = arith.constant {tile.async_copy} 0 : index
  tile.return
}

// -----

func.func @async_copy_not_unit(%m: memref<4xf16, 3>, %v: f16, %i: index) {
  // expected-error @+1 {{attribute 'tile.async_copy' must be a unit attribute}}
  memref.store %v, %m[%i] {tile.async_copy = 1 : i64} : memref<4xf16, 3>
  return
}

