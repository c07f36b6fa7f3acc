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

// expected-error @+1 {{attribute 'tile.promoted' entry 'slots' is missing or of the wrong kind}}
tile.kernel @promoted_record(%O: !tile.tensor<[16], f32>) attributes {threads = 32 : i64, tile.promoted = [{name = "acc", type = tensor<16xf32>, threads = 32 : i64, slots = "four", shuffles = 0 : i64, spills = 0 : i64}]} {
  tile.return
}

// -----

// A pipelined loop's record holds one record a load, checked as well.
// expected-error @+1 {{attribute 'tile.pipelined' entry 'chunk_bytes' is missing or of the wrong kind in {bytes = 64 : i64, chunk_bytes = "16", in = "shared", loc = loc(unknown), name = "a", why = "a dot reads it"}}}
tile.kernel @pipelined_record(%O: !tile.tensor<[16], f32>) attributes {threads = 32 : i64, tile.pipelined = [{loop = "k", loc = loc(unknown), loads = 1 : i64, stages = 2 : i64, stages_chosen = "given", ahead = 1 : i64, shared_loads = 1 : i64, shared_bytes = 64 : i64, elements_per_thread = 0 : i64, staged = [{name = "a", loc = loc(unknown), in = "shared", bytes = 64 : i64, chunk_bytes = "16", why = "a dot reads it"}]}]} {
  tile.return
}

// -----

// expected-error @+1 {{attribute 'tile.pipelined' must hold dictionaries of 6 entries, got {name = "a"}}}
tile.kernel @pipelined_staged_short(%O: !tile.tensor<[16], f32>) attributes {threads = 32 : i64, tile.pipelined = [{loop = "k", loc = loc(unknown), loads = 1 : i64, stages = 2 : i64, stages_chosen = "given", ahead = 1 : i64, shared_loads = 1 : i64, shared_bytes = 64 : i64, elements_per_thread = 0 : i64, staged = [{name = "a"}]}]} {
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

