// RUN: tile-opt %s -split-input-file -verify-diagnostics
// One case per verifier rule of the tile dialect.

// expected-error @+1 {{launch threads must be a positive multiple of 32 and at most 1024, got 100}}
tile.kernel @not_a_warp_multiple() attributes {threads = 100 : i64} {
  tile.return
}

// -----

// expected-error @+1 {{launch threads must be a positive multiple of 32 and at most 1024, got 2048}}
tile.kernel @too_many_threads() attributes {threads = 2048 : i64} {
  tile.return
}

// -----

// expected-error @+1 {{launch threads must be a positive multiple of 32 and at most 1024, got 0}}
tile.kernel @no_threads() attributes {threads = 0 : i64} {
  tile.return
}

// -----

// expected-error @+1 {{requires attribute 'threads'}}
tile.kernel @no_launch() {
  tile.return
}

// -----

// expected-error @+1 {{parameter #0 must be a global tensor (!tile.tensor) or a scalar (f32, f16, bf16, i32, index), got 'i64'}}
tile.kernel @scalar_param(%x: i64) attributes {threads = 32 : i64} {
  tile.return
}

// -----

// expected-error @+1 {{a kernel returns nothing}}
tile.kernel @returns() -> f32 attributes {threads = 32 : i64} {
  tile.return
}

// -----

// expected-error @+1 {{'registers' failed to satisfy constraint: string array attribute}}
tile.kernel @register_names_not_strings() attributes {threads = 32 : i64, registers = [1]} {
  tile.return
}

// -----

// expected-error @+1 {{registers names 'acc' twice}}
tile.kernel @register_name_twice() attributes {threads = 32 : i64, registers = ["acc", "acc"]} {
  tile.return
}

// -----

// expected-error @+1 {{grid must be a map ()[s0, ...] over the kernel's 1 symbol(s)}}
tile.kernel @grid_wrong_symbols(%X: !tile.tensor<[N], f32>)
    attributes {threads = 32 : i64, grid = affine_map<()[s0, s1] -> (s0)>} {
  tile.return
}

// -----

// expected-error @+1 {{grid has 1 to 3 dimensions, got 4}}
tile.kernel @grid_four_dims() attributes {threads = 32 : i64, grid = affine_map<() -> (1, 1, 1, 1)>} {
  tile.return
}

// -----

// expected-error @+1 {{tensor dimensions must be positive, got 0}}
tile.kernel @bad_tensor_type(%X: !tile.tensor<[0, K], f32>) attributes {threads = 32 : i64} {
  tile.return
}

// -----

// expected-error @+1 {{element type must be f16, bf16, f32, i1 or i32, got 'f64'}}
tile.kernel @f64_tensor(%X: !tile.tensor<[16], f64>) attributes {threads = 32 : i64} {
  tile.return
}

// -----

// expected-error @+1 {{tile dimensions must be positive, got 0}}
func.func private @zero_var() -> !tile.var<0x4xf32>

// -----

tile.kernel @load_offsets(%X: !tile.tensor<[16, 64], f32>) attributes {threads = 32 : i64} {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{expected 2 offsets for a rank-2 tensor, got 1}}
  %x = tile.load %X[%c0] : !tile.tensor<[16, 64], f32> -> tensor<16x64xf32>
  tile.return
}

// -----

tile.kernel @load_rank(%X: !tile.tensor<[16, 64], f32>) attributes {threads = 32 : i64} {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{tile rank 1 differs from the tensor's rank 2}}
  %x = tile.load %X[%c0, %c0] : !tile.tensor<[16, 64], f32> -> tensor<64xf32>
  tile.return
}

// -----

tile.kernel @load_element_type(%X: !tile.tensor<[16, 64], f32>) attributes {threads = 32 : i64} {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{tile element type 'f16' differs from the tensor's 'f32'}}
  %x = tile.load %X[%c0, %c0] : !tile.tensor<[16, 64], f32> -> tensor<16x64xf16>
  tile.return
}

// -----

tile.kernel @load_extent(%X: !tile.tensor<[16, K], f32>) attributes {threads = 32 : i64} {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{slice extent 32 of dimension 0 exceeds the tensor's size 16}}
  %x = tile.load %X[%c0, %c0] : !tile.tensor<[16, K], f32> -> tensor<32x64xf32>
  tile.return
}

// -----

tile.kernel @store_extent(%O: !tile.tensor<[16, 8], f32>) attributes {threads = 32 : i64} {
  %c0 = arith.constant 0 : index
  %v = arith.constant dense<1.0> : tensor<16x64xf32>
  // expected-error @+1 {{slice extent 64 of dimension 1 exceeds the tensor's size 8}}
  tile.store %v, %O[%c0, %c0] : tensor<16x64xf32> -> !tile.tensor<[16, 8], f32>
  tile.return
}

// -----

tile.kernel @dynamic_tile(%X: !tile.tensor<[16, K], f32>) attributes {threads = 32 : i64} {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{must be tile (statically shaped tensor of f16, bf16, f32, i1 or i32)}}
  %x = tile.load %X[%c0, %c0] : !tile.tensor<[16, K], f32> -> tensor<16x?xf32>
  tile.return
}

// -----

tile.kernel @rowsum_shape(%X: !tile.tensor<[16, 64], f32>) attributes {threads = 32 : i64} {
  %c0 = arith.constant 0 : index
  %x = tile.load %X[%c0, %c0] : !tile.tensor<[16, 64], f32> -> tensor<16x64xf32>
  // expected-error @+1 {{reduces [16, 64] to [16, 1], not [1, 64]}}
  %s = tile.rowsum %x : tensor<16x64xf32> -> tensor<1x64xf32>
  tile.return
}

// -----

tile.kernel @colsum_shape(%X: !tile.tensor<[16, 64], f32>) attributes {threads = 32 : i64} {
  %c0 = arith.constant 0 : index
  %x = tile.load %X[%c0, %c0] : !tile.tensor<[16, 64], f32> -> tensor<16x64xf32>
  // expected-error @+1 {{reduces [16, 64] to [1, 64], not [16, 1]}}
  %s = tile.colsum %x : tensor<16x64xf32> -> tensor<16x1xf32>
  tile.return
}

// -----

tile.kernel @colmin_type(%X: !tile.tensor<[16, 64], i32>) attributes {threads = 32 : i64} {
  %c0 = arith.constant 0 : index
  %x = tile.load %X[%c0, %c0] : !tile.tensor<[16, 64], i32> -> tensor<16x64xi32>
  // expected-error @+1 {{result element type 'f32' differs from the input's 'i32'}}
  %s = tile.colmin %x : tensor<16x64xi32> -> tensor<1x64xf32>
  tile.return
}

// -----

tile.kernel @rowargmax_type(%X: !tile.tensor<[16, 64], f32>) attributes {threads = 32 : i64} {
  %c0 = arith.constant 0 : index
  %x = tile.load %X[%c0, %c0] : !tile.tensor<[16, 64], f32> -> tensor<16x64xf32>
  // expected-error @+1 {{result element type must be i32 (an index), got 'f32'}}
  %s = tile.rowargmax %x : tensor<16x64xf32> -> tensor<16x1xf32>
  tile.return
}

// -----

tile.kernel @rowmax_type(%X: !tile.tensor<[16, 64], f32>) attributes {threads = 32 : i64} {
  %c0 = arith.constant 0 : index
  %x = tile.load %X[%c0, %c0] : !tile.tensor<[16, 64], f32> -> tensor<16x64xf32>
  // expected-error @+1 {{result element type 'f16' differs from the input's 'f32'}}
  %s = tile.rowmax %x : tensor<16x64xf32> -> tensor<16x1xf16>
  tile.return
}

// -----

tile.kernel @rowsum_rank(%X: !tile.tensor<[64], f32>) attributes {threads = 32 : i64} {
  %c0 = arith.constant 0 : index
  %x = tile.load %X[%c0] : !tile.tensor<[64], f32> -> tensor<64xf32>
  // expected-error @+1 {{must be rank-2 tile of f16, bf16, f32 or i32}}
  %s = tile.rowsum %x : tensor<64xf32> -> tensor<1xf32>
  tile.return
}

// -----

tile.kernel @dot_inner(%A: !tile.tensor<[16, 32], f32>) attributes {threads = 32 : i64} {
  %c0 = arith.constant 0 : index
  %a = tile.load %A[%c0, %c0] : !tile.tensor<[16, 32], f32> -> tensor<16x32xf32>
  // expected-error @+1 {{contracts [16, 32] with [16, 32]: inner dimensions differ}}
  %d = tile.dot %a, %a : tensor<16x32xf32>, tensor<16x32xf32> -> tensor<16x32xf32>
  tile.return
}

// -----

tile.kernel @dot_result(%A: !tile.tensor<[16, 16], f32>) attributes {threads = 32 : i64} {
  %c0 = arith.constant 0 : index
  %a = tile.load %A[%c0, %c0] : !tile.tensor<[16, 16], f32> -> tensor<16x16xf32>
  // expected-error @+1 {{result must be [16, 16], got [16, 32]}}
  %d = tile.dot %a, %a : tensor<16x16xf32>, tensor<16x16xf32> -> tensor<16x32xf32>
  tile.return
}

// -----

tile.kernel @dot_mixed(%A: !tile.tensor<[16, 16], f32>, %B: !tile.tensor<[16, 16], f16>) attributes {threads = 32 : i64} {
  %c0 = arith.constant 0 : index
  %a = tile.load %A[%c0, %c0] : !tile.tensor<[16, 16], f32> -> tensor<16x16xf32>
  %b = tile.load %B[%c0, %c0] : !tile.tensor<[16, 16], f16> -> tensor<16x16xf16>
  // expected-error @+1 {{operand element types differ: 'f32' and 'f16'}}
  %d = tile.dot %a, %b : tensor<16x16xf32>, tensor<16x16xf16> -> tensor<16x16xf32>
  tile.return
}

// -----

tile.kernel @dot_narrowing(%A: !tile.tensor<[16, 16], f32>) attributes {threads = 32 : i64} {
  %c0 = arith.constant 0 : index
  %a = tile.load %A[%c0, %c0] : !tile.tensor<[16, 16], f32> -> tensor<16x16xf32>
  // expected-error @+1 {{result element type must be 'f32', got 'f16'}}
  %d = tile.dot %a, %a : tensor<16x16xf32>, tensor<16x16xf32> -> tensor<16x16xf16>
  tile.return
}

// -----

tile.kernel @dot_tf32_of_f16() attributes {threads = 32 : i64} {
  %a = arith.constant dense<1.0> : tensor<16x16xf16>
  // expected-error @+1 {{precision tf32 rounds f32 operands to tf32; the operands are 'f16'}}
  %d = tile.dot %a, %a precision = tf32 : tensor<16x16xf16>, tensor<16x16xf16> -> tensor<16x16xf32>
  tile.return
}

// -----

tile.kernel @dot_unknown_precision() attributes {threads = 32 : i64} {
  %a = arith.constant dense<1.0> : tensor<16x16xf32>
  // expected-error @+2 {{expected ::mlir::tile::DotPrecision to be one of: ieee, tf32}}
  // expected-error @+1 {{failed to parse Tile_DotPrecisionAttr parameter 'value'}}
  %d = tile.dot %a, %a precision = tf16 : tensor<16x16xf32>, tensor<16x16xf32> -> tensor<16x16xf32>
  tile.return
}

// -----

tile.kernel @broadcast_non_unit(%X: !tile.tensor<[16, 2], f32>) attributes {threads = 32 : i64} {
  %c0 = arith.constant 0 : index
  %x = tile.load %X[%c0, %c0] : !tile.tensor<[16, 2], f32> -> tensor<16x2xf32>
  // expected-error @+1 {{dimension 1 of size 2 can only broadcast to itself, not to 64}}
  %b = tile.broadcast %x : tensor<16x2xf32> -> tensor<16x64xf32>
  tile.return
}

// -----

tile.kernel @broadcast_rank(%X: !tile.tensor<[16, 1], f32>) attributes {threads = 32 : i64} {
  %c0 = arith.constant 0 : index
  %x = tile.load %X[%c0, %c0] : !tile.tensor<[16, 1], f32> -> tensor<16x1xf32>
  // expected-error @+1 {{rank changes from 2 to 3}}
  %b = tile.broadcast %x : tensor<16x1xf32> -> tensor<16x1x4xf32>
  tile.return
}

// -----

tile.kernel @reshape_count(%X: !tile.tensor<[16, 2], f32>) attributes {threads = 32 : i64} {
  %c0 = arith.constant 0 : index
  %x = tile.load %X[%c0, %c0] : !tile.tensor<[16, 2], f32> -> tensor<16x2xf32>
  // expected-error @+1 {{the number of elements changes from 32 to 16}}
  %r = tile.reshape %x : tensor<16x2xf32> -> tensor<16xf32>
  tile.return
}

// -----

tile.kernel @reshape_type(%X: !tile.tensor<[16, 2], f32>) attributes {threads = 32 : i64} {
  %c0 = arith.constant 0 : index
  %x = tile.load %X[%c0, %c0] : !tile.tensor<[16, 2], f32> -> tensor<16x2xf32>
  // expected-error @+1 {{element type changes from 'f32' to 'i32'}}
  %r = tile.reshape %x : tensor<16x2xf32> -> tensor<32xi32>
  tile.return
}

// -----

tile.kernel @broadcast_type(%X: !tile.tensor<[16, 1], f32>) attributes {threads = 32 : i64} {
  %c0 = arith.constant 0 : index
  %x = tile.load %X[%c0, %c0] : !tile.tensor<[16, 1], f32> -> tensor<16x1xf32>
  // expected-error @+1 {{element type changes from 'f32' to 'i32'}}
  %b = tile.broadcast %x : tensor<16x1xf32> -> tensor<16x4xi32>
  tile.return
}

// -----

tile.kernel @splat_type() attributes {threads = 32 : i64} {
  %one = arith.constant 1 : i32
  // expected-error @+1 {{scalar is the tile's element type}}
  %t = "tile.splat"(%one) : (i32) -> tensor<4x4xf32>
  tile.return
}

// -----

tile.kernel @var_init_type() attributes {threads = 32 : i64} {
  %v = arith.constant dense<1.0> : tensor<16x32xf32>
  // expected-error @+1 {{initial value of type 'tensor<16x32xf32>' does not match the var's 'tensor<16x64xf32>'}}
  %acc = "tile.var"(%v) {name = "acc"} : (tensor<16x32xf32>) -> !tile.var<16x64xf32>
  tile.return
}

// -----

tile.kernel @var_no_name() attributes {threads = 32 : i64} {
  // expected-error @+1 {{a var needs a name}}
  %acc = tile.var "" : !tile.var<16x64xf32>
  tile.return
}

// -----

tile.kernel @scalar_register_var() attributes {threads = 32 : i64} {
  // expected-error @+1 {{only a tile var can ask for registers storage}}
  %n = tile.var "n" {storage = #tile.storage<registers>} : !tile.var<i32>
  tile.return
}

// -----

tile.kernel @read_type() attributes {threads = 32 : i64} {
  %acc = tile.var "acc" : !tile.var<16x64xf32>
  // expected-error @+1 {{result type 'tensor<16x32xf32>' is not the var's value type 'tensor<16x64xf32>'}}
  %v = "tile.read"(%acc) : (!tile.var<16x64xf32>) -> tensor<16x32xf32>
  tile.return
}

// -----

tile.kernel @write_type() attributes {threads = 32 : i64} {
  %acc = tile.var "acc" : !tile.var<16x64xf32>
  %v = arith.constant dense<1.0> : tensor<16x32xf32>
  // expected-error @+1 {{value is the var's value type}}
  "tile.write"(%v, %acc) : (tensor<16x32xf32>, !tile.var<16x64xf32>) -> ()
  tile.return
}

// -----

tile.kernel @dim_range(%X: !tile.tensor<[16, K], f32>) attributes {threads = 32 : i64} {
  // expected-error @+1 {{dimension 2 is out of range for a rank-2 tensor}}
  %d = tile.dim %X[2] : !tile.tensor<[16, K], f32>
  tile.return
}

// -----

func.func @context_outside_kernel() -> index {
  // expected-error @+1 {{'tile.thread_id' op is only valid inside a tile.kernel}}
  %t = tile.thread_id
  return %t : index
}

// -----

func.func @return_outside_kernel() {
  // expected-error @+1 {{expects parent op 'tile.kernel'}}
  tile.return
}

// -----

tile.kernel @var_through_if(%c: !tile.tensor<[1], i32>) attributes {threads = 32 : i64} {
  %a = tile.var "a" : !tile.var<i32>
  %b = tile.var "b" : !tile.var<i32>
  %true = arith.constant true
  %v = scf.if %true -> (!tile.var<i32>) {
    scf.yield %a : !tile.var<i32>
  } else {
    scf.yield %b : !tile.var<i32>
  }
  // expected-error @+1 {{var operand must be the result of a tile.var}}
  %x = tile.read %v : !tile.var<i32>
  tile.return
}

// -----

tile.kernel @tensor_through_if(%A: !tile.tensor<[32], f32>, %B: !tile.tensor<[32], f32>) attributes {threads = 32 : i64} {
  %c0 = arith.constant 0 : index
  %true = arith.constant true
  %t = scf.if %true -> (!tile.tensor<[32], f32>) {
    scf.yield %A : !tile.tensor<[32], f32>
  } else {
    scf.yield %B : !tile.tensor<[32], f32>
  }
  // expected-error @+1 {{tensor operand must be a parameter of the enclosing tile.kernel}}
  %x = tile.load %t[%c0] : !tile.tensor<[32], f32> -> tensor<32xf32>
  tile.return
}

// -----

// Found by utils/fuzz.py: a var passed through an scf.if that nothing reads
// crashed tile-to-gpu, which has no storage for the scf.if's result.
tile.kernel @var_through_if_unread(%c: !tile.tensor<[1], i32>) attributes {threads = 32 : i64} {
  %a = tile.var "a" : !tile.var<i32>
  %true = arith.constant true
  // expected-error @+1 {{'scf.if' op passes '!tile.var<i32>' along: a var is only the result of its tile.var (or a tile.stage of a ring), used by tile.read, tile.write and tile.copy}}
  %v = scf.if %true -> (!tile.var<i32>) {
    scf.yield %a : !tile.var<i32>
  } else {
    scf.yield %a : !tile.var<i32>
  }
  tile.return
}

// -----

tile.kernel @tensor_through_loop(%A: !tile.tensor<[32], f32>) attributes {threads = 32 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // expected-error @+1 {{'scf.for' op passes '!tile.tensor<[32], f32>' along: a global tensor is only a parameter of the tile.kernel}}
  %t = scf.for %i = %c0 to %c1 step %c1 iter_args(%x = %A) -> (!tile.tensor<[32], f32>) {
    scf.yield %x : !tile.tensor<[32], f32>
  }
  tile.return
}

// -----

// Found by utils/fuzz.py: tiles of 2^30 elements, which the front end
// rejects, passed the verifier and made interp allocate gigabytes.
tile.kernel @huge_tile(%X: !tile.tensor<[16777216, 64], f32>) attributes {threads = 256 : i64} {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{'tile.load' op a tile holds at most 16777216 elements, not 'tensor<16777216x64xf32>'}}
  %x = tile.load %X[%c0, %c0] : !tile.tensor<[16777216, 64], f32> -> tensor<16777216x64xf32>
  tile.return
}

// -----

tile.kernel @huge_var(%X: !tile.tensor<[16, 16], f32>) attributes {threads = 256 : i64} {
  // expected-error @+1 {{'tile.var' op a tile holds at most 16777216 elements, not '!tile.var<4294967296x4294967296xf32>'}}
  %v = tile.var "v" : !tile.var<4294967296x4294967296xf32>
  tile.return
}

// -----

// Found probing by hand next to utils/fuzz.py: a tile with a zero dimension
// passed the verifier, and tile-to-gpu then said that tile-plan-shared had
// not run.
tile.kernel @zero_dimension(%A: !tile.tensor<[16, 16], f32>, %S: !tile.tensor<[16, 1], f32>) attributes {threads = 32 : i64} {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{'tile.load' op a tile has static, positive dimensions, not 'tensor<16x0xf32>'}}
  %x = tile.load %A[%c0, %c0] : !tile.tensor<[16, 16], f32> -> tensor<16x0xf32>
  %s = tile.rowsum %x : tensor<16x0xf32> -> tensor<16x1xf32>
  tile.store %s, %S[%c0, %c0] : tensor<16x1xf32> -> !tile.tensor<[16, 1], f32>
  tile.return
}

// -----

// Found probing by hand next to utils/fuzz.py: the parser folds this grid
// to s0 * -2^63, which the manifest printed and then could not read back
// ("internal error: the compiler's manifest does not parse").
// expected-error @+1 {{grid constant -9223372036854775808 is out of range: at most 2^31 - 1 in magnitude}}
tile.kernel @grid_constant(%O: !tile.tensor<[M, 16], f32>) attributes {threads = 32 : i64, grid = affine_map<()[s0] -> ((s0 * 2305843009213693952) * 4)>} {
  tile.return
}

// -----

// A divisor of zero passed the verifier and failed only at the launch.
// expected-error @+1 {{grid expression 's0 floordiv 0' divides by a value that is not a positive constant}}
tile.kernel @grid_divisor(%O: !tile.tensor<[M, 16], f32>) attributes {threads = 32 : i64, grid = affine_map<()[s0] -> (s0 floordiv 0)>} {
  tile.return
}

// -----

// Found probing by hand next to utils/fuzz.py: parameter names that the
// manifest cannot carry passed the verifier, and tile-run said "internal
// error: the compiler's manifest does not parse".
// expected-error @+1 {{parameters #0 and #1 are both named 'X'}}
tile.kernel @same_names(%A: !tile.tensor<[16], f32> {tile.name = "X"}, %B: !tile.tensor<[16], f32> {tile.name = "X"}) attributes {threads = 32 : i64} {
  tile.return
}

// -----

// expected-error @+1 {{tile.name of parameter #0 is 'a b', not an identifier ([A-Za-z_][A-Za-z0-9_]*)}}
tile.kernel @name_not_identifier(%A: !tile.tensor<[16], f32> {tile.name = "a b"}) attributes {threads = 32 : i64} {
  tile.return
}

// -----

// expected-error @+1 {{tile.name of parameter #0 must be a string, got 5 : i64}}
tile.kernel @name_not_string(%A: !tile.tensor<[16], f32> {tile.name = 5}) attributes {threads = 32 : i64} {
  tile.return
}

// -----

// expected-error @+1 {{a symbolic dimension is a symbol ([A-Za-z_][A-Za-z0-9_]*) or an affine expression of symbols and integers (+ - *), got 'K.x': unexpected '.'}}
tile.kernel @symbol_not_identifier(%A: !tile.tensor<[16, K.x], f32>) attributes {threads = 32 : i64} {
  tile.return
}

// -----

// A dimension that is an expression of symbols (docs/spec.md, "dimension
// expressions"): affine, one spelling, each symbol bound by a dimension of
// its own.
// expected-error @+1 {{got 'H / 2': a size is affine in its symbols: + - and * by an integer, not '/'}}
tile.kernel @size_division(%A: !tile.tensor<[H, "H / 2"], f32>) attributes {threads = 32 : i64} {
  tile.return
}

// -----

// expected-error @+1 {{got 'H * K': one factor of '*' must be an integer (a size is affine in its symbols)}}
tile.kernel @size_product_of_symbols(%A: !tile.tensor<[H, K, "H * K"], f32>) attributes {threads = 32 : i64} {
  tile.return
}

// -----

// expected-error @+1 {{got '2 * 3': a size without a symbol is an integer}}
tile.kernel @size_without_symbol(%A: !tile.tensor<["2 * 3"], f32>) attributes {threads = 32 : i64} {
  tile.return
}

// -----

// expected-error @+1 {{write the size '2*H' as '2 * H' (one space around each operator)}}
tile.kernel @size_spelling(%A: !tile.tensor<[H, "2*H"], f32>) attributes {threads = 32 : i64} {
  tile.return
}

// -----

// expected-error @+1 {{symbol 'H' is only in dimension expressions, which cannot bind it: it must also be a dimension of its own}}
tile.kernel @size_symbol_unbound(%A: !tile.tensor<[M, "2 * H"], f32>) attributes {threads = 32 : i64} {
  tile.return
}

// -----

// expected-error @+1 {{grid must be a map ()[s0, ...] over the kernel's 1 symbol(s), or those and its 1 integer scalar parameter(s)}}
tile.kernel @grid_scalars_wrong(%X: !tile.tensor<[N], f32>, %s: i32 {tile.name = "s"}, %a: f32 {tile.name = "a"})
    attributes {threads = 32 : i64, grid = affine_map<()[s0, s1, s2] -> (s0, s2)>} {
  tile.return
}

// -----

tile.kernel @scratch_type(%X: !tile.tensor<[16, 64], f32>) attributes {threads = 64 : i64} {
  %c0 = arith.constant 0 : index
  %x = tile.load %X[%c0, %c0] : !tile.tensor<[16, 64], f32> -> tensor<16x64xf32>
  %p = tile.var "p" : !tile.var<16x4xf32>
  // expected-error @+1 {{scratch var must be '!tile.var<16x2xf32>' (a partial per warp of each row), not '!tile.var<16x4xf32>'}}
  %s = tile.rowsum %x through %p : tensor<16x64xf32>, !tile.var<16x4xf32> -> tensor<16x1xf32>
  tile.return
}

// -----

tile.kernel @scratch_not_segmented(%X: !tile.tensor<[16, 48], f32>) attributes {threads = 32 : i64} {
  %c0 = arith.constant 0 : index
  %x = tile.load %X[%c0, %c0] : !tile.tensor<[16, 48], f32> -> tensor<16x48xf32>
  %p = tile.var "p" : !tile.var<16x1xf32>
  // expected-error @+1 {{has a scratch var, but rows of 48 'f32' elements do not reduce a warp at a time}}
  %s = tile.rowmax %x through %p : tensor<16x48xf32>, !tile.var<16x1xf32> -> tensor<16x1xf32>
  tile.return
}

// -----

// expected-error @+1 {{unknown @pipeline option 'depth' (the options are 'stages' and 'shared')}}
tile.kernel @unknown_option(%X: !tile.tensor<[16, 64], f32>) attributes {threads = 256 : i64, pipeline = {names = ["kt"], depth = 2 : i64}} {
  tile.return
}

// -----

// expected-error-re @+1 {{@pipeline stages must be an integer from 2 to 8, got 1{{$}}}}
tile.kernel @one_stage(%X: !tile.tensor<[16, 64], f32>) attributes {threads = 256 : i64, pipeline = {names = ["kt"], stages = 1 : i64}} {
  tile.return
}

// -----

// expected-error-re @+1 {{@pipeline stages must be an integer from 2 to 8, got 2.5{{$}}}}
tile.kernel @fractional_stages(%X: !tile.tensor<[16, 64], f32>) attributes {threads = 256 : i64, pipeline = {names = ["kt"], stages = 2.5}} {
  tile.return
}

// -----

tile.kernel @iota_axis() attributes {threads = 32 : i64} {
  // expected-error @+1 {{axis 2 is out of range for a rank-2 tile}}
  %i = tile.iota 2 : tensor<16x64xi32>
  tile.return
}

// -----

tile.kernel @iota_type() attributes {threads = 32 : i64} {
  // expected-error @+1 {{result #0 must be tile of i32}}
  %i = tile.iota 0 : tensor<16x64xf32>
  tile.return
}

// -----

tile.kernel @other_type(%X: !tile.tensor<[16, 64], f32>) attributes {threads = 32 : i64} {
  %c0 = arith.constant 0 : index
  %v = arith.constant 0.0 : f16
  // expected-error @+1 {{other is the tile's element type}}
  %x = "tile.load"(%X, %c0, %c0, %v) <{operandSegmentSizes = array<i32: 1, 2, 1>}> : (!tile.tensor<[16, 64], f32>, index, index, f16) -> tensor<16x64xf32>
  tile.return
}

// -----

tile.kernel @mask_shape(%X: !tile.tensor<[16, 64], f32>) attributes {threads = 32 : i64} {
  %c0 = arith.constant 0 : index
  %t = arith.constant dense<0.0> : tensor<16x64xf32>
  %m = arith.constant dense<true> : tensor<16x1xi1>
  // expected-error @+1 {{mask is an i1 tile of the value's shape}}
  "tile.store"(%t, %X, %c0, %c0, %m) <{operandSegmentSizes = array<i32: 1, 1, 2, 1>}> : (tensor<16x64xf32>, !tile.tensor<[16, 64], f32>, index, index, tensor<16x1xi1>) -> ()
  tile.return
}

// -----

// Found in issue 17: an attribute of the wrong kind was dropped without a
// word, or, for a var's storage, crashed the verifier. Each is an error.
// expected-error @+1 {{attribute 'registers' failed to satisfy constraint: string array attribute}}
tile.kernel @registers_string() attributes {threads = 32 : i64, registers = "acc"} {
  tile.return
}

// -----

// expected-error @+1 {{attribute 'grid' failed to satisfy constraint: AffineMap attribute}}
tile.kernel @grid_list() attributes {threads = 32 : i64, grid = [4, 2]} {
  tile.return
}

// -----

// expected-error @+1 {{attribute 'grid' failed to satisfy constraint: AffineMap attribute}}
tile.kernel @grid_string() attributes {threads = 32 : i64, grid = "cdiv(K, 64)"} {
  tile.return
}

// -----

// expected-error @+1 {{attribute 'pipeline' failed to satisfy constraint: dictionary of named attribute values}}
tile.kernel @pipeline_string() attributes {threads = 32 : i64, pipeline = "kt"} {
  tile.return
}

// -----

// expected-error @+1 {{attribute 'threads' failed to satisfy constraint: 64-bit signless integer attribute}}
tile.kernel @threads_string() attributes {threads = "256"} {
  tile.return
}

// -----

tile.kernel @storage_string() attributes {threads = 32 : i64} {
  // expected-error @+1 {{attribute 'storage' failed to satisfy constraint: where a tile var lives}}
  %v = tile.var "v" {storage = "registers"} : !tile.var<16xf32>
  tile.return
}

// -----

tile.kernel @storage_integer() attributes {threads = 32 : i64} {
  // expected-error @+1 {{attribute 'storage' failed to satisfy constraint: where a tile var lives}}
  %v = tile.var "v" {storage = 1} : !tile.var<16xf32>
  tile.return
}

// -----

// Found in issue 17: a kernel's name is its PTX entry's, which the NVPTX
// printer aborted on or ptxas rejected.
// expected-error @+1 {{kernel name 'my kernel' is not an identifier ([A-Za-z_][A-Za-z0-9_]*), which the PTX entry needs}}
tile.kernel @"my kernel"() attributes {threads = 32 : i64} {
  tile.return
}

// -----

// expected-error @+1 {{kernel name '9k' is not an identifier}}
tile.kernel @"9k"() attributes {threads = 32 : i64} {
  tile.return
}

// -----

// expected-error @+1 {{kernel name '' is not an identifier}}
tile.kernel @""() attributes {threads = 32 : i64} {
  tile.return
}

// -----

// expected-error @+1 {{kernel name '_' is reserved in PTX; choose another}}
tile.kernel @_() attributes {threads = 32 : i64} {
  tile.return
}

// -----

// expected-error @+1 {{kernel name 'WARP_SZ' is reserved in PTX; choose another}}
tile.kernel @WARP_SZ() attributes {threads = 32 : i64} {
  tile.return
}

// -----

// Found in issue 17: tile ops outside a kernel were accepted and left in
// the output of every pipeline.
func.func @outside(%a: tensor<4x8xf32>) -> tensor<4x1xf32> {
  // expected-error @+1 {{'tile.rowsum' op is only valid inside a tile.kernel}}
  %s = tile.rowsum %a : tensor<4x8xf32> -> tensor<4x1xf32>
  return %s : tensor<4x1xf32>
}

// -----

// A kernel lives in a builtin module (tile-to-gpu makes the gpu.module);
// in a gpu.module it got "the module has no target attributes".
module attributes {gpu.container_module} {
  gpu.module @device {
    // expected-error @+1 {{'tile.kernel' op expects parent op 'builtin.module'}}
    tile.kernel @k() attributes {threads = 32 : i64} {
      tile.return
    }
  }
}

// -----

tile.kernel @ring_read(%O: !tile.tensor<[16], f32>) attributes {threads = 32 : i64} {
  %p = tile.var "p" {stages = 2 : i64} : !tile.var<16xf32>
  // expected-error @+1 {{'p' is a ring of tiles: access one of its stages (tile.stage)}}
  %v = tile.read %p : !tile.var<16xf32>
  tile.return
}

// -----

tile.kernel @ring_init(%O: !tile.tensor<[16], f32>) attributes {threads = 32 : i64} {
  %z = arith.constant dense<0.0> : tensor<16xf32>
  // expected-error @+1 {{a ring has no initial value: fill its stages}}
  %p = tile.var "p" = %z {stages = 2 : i64} : !tile.var<16xf32>
  tile.return
}

// -----

tile.kernel @ring_one_stage(%O: !tile.tensor<[16], f32>) attributes {threads = 32 : i64} {
  // expected-error @+1 {{a ring has at least 2 stages, got 1}}
  %p = tile.var "p" {stages = 1 : i64} : !tile.var<16xf32>
  tile.return
}

// -----

tile.kernel @stage_of_var(%O: !tile.tensor<[16], f32>) attributes {threads = 32 : i64} {
  %c0 = arith.constant 0 : index
  %t = tile.var "t" : !tile.var<16xf32>
  // expected-error @+1 {{takes a ring: a tile.var with stages}}
  %s = tile.stage %t[%c0 + 0] : !tile.var<16xf32>
  tile.return
}

// -----

tile.kernel @copy_global_global(%X: !tile.tensor<[16], f32>, %Y: !tile.tensor<[16], f32>) attributes {threads = 32 : i64} {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{copies from a global tensor to a global tensor: load a tile and store it instead}}
  tile.copy %X[%c0] to %Y[%c0] [16] : !tile.tensor<[16], f32> to !tile.tensor<[16], f32>
  tile.return
}

// -----

tile.kernel @copy_width(%X: !tile.tensor<[16], f32>) attributes {threads = 32 : i64} {
  %c0 = arith.constant 0 : index
  %t = tile.var "t" : !tile.var<16xf32>
  // expected-error @+1 {{width 8 of 'f32' is 32 bytes: a vector access moves at most 16}}
  tile.copy %X[%c0] to %t[%c0] [16] {width = 8 : i64} : !tile.tensor<[16], f32> to !tile.var<16xf32>
  tile.return
}

// -----

tile.kernel @copy_width_3(%X: !tile.tensor<[16], f32>) attributes {threads = 32 : i64} {
  %c0 = arith.constant 0 : index
  %t = tile.var "t" : !tile.var<16xf32>
  // expected-error @+1 {{width is 1, 2, 4 or 8 elements a thread, got 3}}
  tile.copy %X[%c0] to %t[%c0] [16] {width = 3 : i64} : !tile.tensor<[16], f32> to !tile.var<16xf32>
  tile.return
}

// -----

tile.kernel @copy_width_i1(%X: !tile.tensor<[16], i1>) attributes {threads = 32 : i64} {
  %c0 = arith.constant 0 : index
  %t = tile.var "t" : !tile.var<16xi1>
  // expected-error @+1 {{i1 elements are copied one at a time (width 1)}}
  tile.copy %X[%c0] to %t[%c0] [16] {width = 2 : i64} : !tile.tensor<[16], i1> to !tile.var<16xi1>
  tile.return
}

// -----

// A var's rows must be whole chunks too, or a chunk of a later row would
// start unaligned.
tile.kernel @copy_width_var_rows(%X: !tile.tensor<[16, 8], f32>) attributes {threads = 32 : i64} {
  %c0 = arith.constant 0 : index
  %t = tile.var "t" : !tile.var<16x6xf32>
  // expected-error @+1 {{width 4 needs rows of the destination var that are a multiple of it, not 6}}
  tile.copy %X[%c0, %c0] to %t[%c0, %c0] [16, 4] {width = 4 : i64} : !tile.tensor<[16, 8], f32> to !tile.var<16x6xf32>
  tile.return
}

// -----

tile.kernel @copy_width_extent(%X: !tile.tensor<[16, 6], f32>) attributes {threads = 32 : i64} {
  %c0 = arith.constant 0 : index
  %t = tile.var "t" : !tile.var<16x8xf32>
  // expected-error @+1 {{width 4 does not divide the box's innermost extent 6}}
  tile.copy %X[%c0, %c0] to %t[%c0, %c0] [16, 6] {width = 4 : i64} : !tile.tensor<[16, 6], f32> to !tile.var<16x8xf32>
  tile.return
}

// -----

tile.kernel @copy_var_offset(%X: !tile.tensor<[16, 8], f32>) attributes {threads = 32 : i64} {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %t = tile.var "t" : !tile.var<16x8xf32>
  // expected-error @+1 {{width 4 needs the destination var's innermost offset to be a constant multiple of it}}
  tile.copy %X[%c0, %c0] to %t[%c0, %c2] [16, 4] {width = 4 : i64} : !tile.tensor<[16, 8], f32> to !tile.var<16x8xf32>
  tile.return
}

// -----

tile.kernel @copy_outside_var(%X: !tile.tensor<[16, 8], f32>) attributes {threads = 32 : i64} {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %t = tile.var "t" : !tile.var<16x8xf32>
  // expected-error @+1 {{the box [4 :+ 8] in dimension 1 is outside the destination var of size 8}}
  tile.copy %X[%c0, %c0] to %t[%c0, %c4] [16, 8] : !tile.tensor<[16, 8], f32> to !tile.var<16x8xf32>
  tile.return
}

// -----

tile.kernel @copy_types(%X: !tile.tensor<[16], f16>) attributes {threads = 32 : i64} {
  %c0 = arith.constant 0 : index
  %t = tile.var "t" : !tile.var<16xf32>
  // expected-error @+1 {{element types differ: 'f16' and 'f32'}}
  tile.copy %X[%c0] to %t[%c0] [16] : !tile.tensor<[16], f16> to !tile.var<16xf32>
  tile.return
}

// -----

tile.kernel @copy_mask(%X: !tile.tensor<[16], f32>) attributes {threads = 32 : i64} {
  %c0 = arith.constant 0 : index
  %t = tile.var "t" : !tile.var<16xf32>
  %m = arith.constant dense<true> : tensor<8xi1>
  // expected-error @+1 {{the mask must be an i1 tile of the box's shape, got 'tensor<8xi1>'}}
  tile.copy %X[%c0] to %t[%c0] [16] mask %m : !tile.tensor<[16], f32> to !tile.var<16xf32>, tensor<8xi1>
  tile.return
}

// -----

tile.kernel @copy_async_to_global(%X: !tile.tensor<[16], f32>) attributes {threads = 32 : i64} {
  %c0 = arith.constant 0 : index
  %t = tile.var "t" : !tile.var<16xf32>
  // expected-error @+1 {{an async copy goes from a global tensor to a shared tile}}
  tile.copy %t[%c0] to %X[%c0] [16] {async} : !tile.var<16xf32> to !tile.tensor<[16], f32>
  tile.return
}

// -----

tile.kernel @copy_async_small(%X: !tile.tensor<[16], f16>) attributes {threads = 32 : i64} {
  %c0 = arith.constant 0 : index
  %t = tile.var "t" : !tile.var<16xf16>
  // expected-error @+1 {{an async copy moves 4, 8 or 16 bytes a thread at a time; width 1 of 'f16' is 2}}
  tile.copy %X[%c0] to %t[%c0] [16] {async} : !tile.tensor<[16], f16> to !tile.var<16xf16>
  tile.return
}

// -----

tile.kernel @copy_scalar(%X: !tile.tensor<[16], f32>) attributes {threads = 32 : i64} {
  %c0 = arith.constant 0 : index
  %n = tile.var "n" : !tile.var<f32>
  // expected-error @+1 {{the destination is a scalar var, not a tile}}
  tile.copy %X[%c0] to %n[] [16] : !tile.tensor<[16], f32> to !tile.var<f32>
  tile.return
}

// -----

tile.kernel @wait_depth(%X: !tile.tensor<[16], f32>) attributes {threads = 32 : i64} {
  // expected-error @+1 {{attribute 'pending' failed to satisfy constraint}}
  tile.wait_group 9
  tile.return
}

// -----

tile.kernel @shared_scalar(%X: !tile.tensor<[16], f32>) attributes {threads = 32 : i64} {
  // expected-error @+1 {{only a tile var can ask for shared storage}}
  %n = tile.var "n" {storage = #tile.storage<shared>} : !tile.var<f32>
  tile.return
}

// -----

tile.kernel @extract_range() attributes {threads = 32 : i64} {
  %t = arith.constant dense<1.0> : tensor<16x64xf32>
  // expected-error @+1 {{index 64 is outside dimension 1 of 'tensor<16x64xf32>'}}
  %x = tile.extract %t[0, 64] : tensor<16x64xf32>
  tile.return
}

// -----

tile.kernel @extract_rank() attributes {threads = 32 : i64} {
  %t = arith.constant dense<1.0> : tensor<16x64xf32>
  // expected-error @+1 {{needs 2 indices for 'tensor<16x64xf32>', got 1}}
  %x = tile.extract %t[0] : tensor<16x64xf32>
  tile.return
}

// -----

tile.kernel @slice_outside() attributes {threads = 32 : i64} {
  %t = arith.constant dense<1.0> : tensor<16x64xf32>
  // expected-error @+1 {{sub-tile 'tensor<8x64xf32>' at offset 9 of dimension 0 is not inside 'tensor<16x64xf32>'}}
  %s = tile.extract_slice %t[9, 0] : tensor<16x64xf32> -> tensor<8x64xf32>
  tile.return
}

// -----

// An offset near 2^63 is not inside either (offset + size overflowed).
tile.kernel @slice_overflow() attributes {threads = 32 : i64} {
  %t = arith.constant dense<1.0> : tensor<16x64xf32>
  %u = arith.constant dense<2.0> : tensor<8x32xf32>
  // expected-error @+1 {{sub-tile 'tensor<8x32xf32>' at offset 9223372036854775807 of dimension 1 is not inside 'tensor<16x64xf32>'}}
  %s = tile.insert_slice %u into %t[8, 9223372036854775807] : tensor<8x32xf32> into tensor<16x64xf32>
  tile.return
}

// -----

tile.kernel @insert_types() attributes {threads = 32 : i64} {
  %t = arith.constant dense<1.0> : tensor<16x64xf32>
  %s = arith.constant dense<1> : tensor<8x64xi32>
  // expected-error @+1 {{element types differ: 'i32' and 'f32'}}
  %u = tile.insert_slice %s into %t[0, 0] : tensor<8x64xi32> into tensor<16x64xf32>
  tile.return
}

// -----

tile.kernel @gather_broadcast(%E: !tile.tensor<[V, 64], f32>) attributes {threads = 32 : i64} {
  %c0 = arith.constant 0 : index
  %ids = arith.constant dense<2> : tensor<8x1xi32>
  // expected-error @+1 {{index tile 'tensor<8x1xi32>' does not broadcast to 'tensor<16x64xf32>'}}
  %g = tile.gather %E[%c0, %c0] indices(%ids) dims [0] : !tile.tensor<[V, 64], f32>, tensor<8x1xi32> -> tensor<16x64xf32>
  tile.return
}

// -----

tile.kernel @gather_dims(%E: !tile.tensor<[V, 64], f32>) attributes {threads = 32 : i64} {
  %c0 = arith.constant 0 : index
  %ids = arith.constant dense<2> : tensor<16x1xi32>
  // expected-error @+1 {{dims must be increasing dimensions of the tensor, got 0}}
  %g = tile.gather %E[%c0, %c0] indices(%ids, %ids) dims [1, 0] : !tile.tensor<[V, 64], f32>, tensor<16x1xi32>, tensor<16x1xi32> -> tensor<16x64xf32>
  tile.return
}

// -----

tile.kernel @gather_range_extent(%E: !tile.tensor<[64, 8], f32>) attributes {threads = 32 : i64} {
  %c0 = arith.constant 0 : index
  %ids = arith.constant dense<2> : tensor<64x1xi32>
  // An index dimension's extent is unbounded; a range's is not.
  // expected-error @+1 {{slice extent 16 of dimension 1 exceeds the tensor's size 8}}
  %g = tile.gather %E[%c0, %c0] indices(%ids) dims [0] : !tile.tensor<[64, 8], f32>, tensor<64x1xi32> -> tensor<64x16xf32>
  tile.return
}

// -----

tile.kernel @scatter_count(%Y: !tile.tensor<[V, 64], f32>) attributes {threads = 32 : i64} {
  %c0 = arith.constant 0 : index
  %v = arith.constant dense<2.0> : tensor<16x64xf32>
  %ids = arith.constant dense<2> : tensor<16x1xi32>
  // expected-error @+1 {{needs one index tile per dimension of dims, and at least one; got 1 for 2}}
  tile.scatter %v, %Y[%c0, %c0] indices(%ids) dims [0, 1] : tensor<16x64xf32>, !tile.tensor<[V, 64], f32>, tensor<16x1xi32>
  tile.return
}

// -----

tile.kernel @scatter_marker() attributes {threads = 32 : i64} {
  // expected-error @+1 {{attribute 'tile.scatter' belongs on an llvm.store}}
  %c0 = arith.constant {tile.scatter = array<i64: 0, 1>} 0 : index
  tile.return
}

// -----

tile.kernel @atomic_type(%C: !tile.tensor<[16, 64], f16>) attributes {threads = 32 : i64} {
  %c0 = arith.constant 0 : index
  %v = arith.constant dense<1.0> : tensor<16x64xf16>
  // expected-error @+1 {{atomic max of 'f16' is not supported: atomics are add, max and min of f32 and i32, and add of f16}}
  tile.atomic max %v, %C[%c0, %c0] : tensor<16x64xf16>, !tile.tensor<[16, 64], f16>
  tile.return
}

// -----

tile.kernel @atomic_bf16(%C: !tile.tensor<[16, 64], bf16>) attributes {threads = 32 : i64} {
  %c0 = arith.constant 0 : index
  %v = arith.constant dense<1.0> : tensor<16x64xbf16>
  // expected-error @+1 {{atomic add of 'bf16' is not supported}}
  tile.atomic add %v, %C[%c0, %c0] : tensor<16x64xbf16>, !tile.tensor<[16, 64], bf16>
  tile.return
}

// -----

tile.kernel @convert_bad_vector(%X: !tile.tensor<[16, 128], f32>) attributes {threads = 128 : i64} {
  %c0 = arith.constant 0 : index
  %x = tile.load %X[%c0, %c0] : !tile.tensor<[16, 128], f32> -> tensor<16x128xf32>
  // expected-error @+1 {{'tile.convert_layout' op #tile.blocked vector 3 must be a power of two}}
  %y = tile.convert_layout %x : tensor<16x128xf32> -> tensor<16x128xf32, #tile.blocked<vector = 3>>
  tile.return
}

// -----

tile.kernel @convert_vector_too_wide(%X: !tile.tensor<[16, 6], f32>) attributes {threads = 32 : i64} {
  %c0 = arith.constant 0 : index
  %x = tile.load %X[%c0, %c0] : !tile.tensor<[16, 6], f32> -> tensor<16x6xf32>
  // expected-error @+1 {{'tile.convert_layout' op #tile.blocked vector 4 must divide the rows of 'tensor<16x6xf32>' and, times 32 threads, its elements}}
  %y = tile.convert_layout %x : tensor<16x6xf32> -> tensor<16x6xf32, #tile.blocked<vector = 4>>
  tile.return
}

// -----

tile.kernel @convert_rows_not_a_column(%X: !tile.tensor<[4, 8], f32>) attributes {threads = 32 : i64} {
  %c0 = arith.constant 0 : index
  %x = tile.load %X[%c0, %c0] : !tile.tensor<[4, 8], f32> -> tensor<4x8xf32>
  // expected-error @+1 {{'tile.convert_layout' op #tile.rows lays out [R, 1] row results, not 'tensor<4x8xf32>'}}
  %y = tile.convert_layout %x : tensor<4x8xf32> -> tensor<4x8xf32, #tile.rows<columns = 8, parent = #tile.blocked<vector = 1>>>
  tile.return
}

// -----

tile.kernel @convert_rows_replicated_parent(%X: !tile.tensor<[4, 1], f32>) attributes {threads = 32 : i64} {
  %c0 = arith.constant 0 : index
  %x = tile.load %X[%c0, %c0] : !tile.tensor<[4, 1], f32> -> tensor<4x1xf32>
  // expected-error @+1 {{'tile.convert_layout' op #tile.rows parent #tile.rows<columns = 8, parent = #tile.blocked<vector = 1>> must hold each element once}}
  %y = tile.convert_layout %x : tensor<4x1xf32> -> tensor<4x1xf32, #tile.rows<columns = 1, parent = #tile.rows<columns = 8, parent = #tile.blocked<vector = 1>>>>
  tile.return
}

// -----

tile.kernel @convert_rows_bad_parent(%X: !tile.tensor<[16, 1], f32>) attributes {threads = 32 : i64} {
  %c0 = arith.constant 0 : index
  %x = tile.load %X[%c0, %c0] : !tile.tensor<[16, 1], f32> -> tensor<16x1xf32>
  // expected-error @+1 {{'tile.convert_layout' op #tile.blocked vector 4 must divide the rows of 'tensor<16x6xf32>' and, times 32 threads, its elements}}
  %y = tile.convert_layout %x : tensor<16x1xf32> -> tensor<16x1xf32, #tile.rows<columns = 6, parent = #tile.blocked<vector = 4>>>
  tile.return
}

// -----

tile.kernel @convert_scratch_shape(%X: !tile.tensor<[16, 128], f32>) attributes {threads = 128 : i64} {
  %c0 = arith.constant 0 : index
  %x = tile.load %X[%c0, %c0] : !tile.tensor<[16, 128], f32> -> tensor<16x128xf32, #tile.blocked<vector = 4>>
  %s = tile.var "s" : !tile.var<16x64xf32>
  // expected-error @+1 {{'tile.convert_layout' op scratch var must be '!tile.var<16x128xf32>' (the tile's shape), not '!tile.var<16x64xf32>'}}
  %y = tile.convert_layout %x through %s : tensor<16x128xf32, #tile.blocked<vector = 4>>, !tile.var<16x64xf32> -> tensor<16x128xf32, #tile.blocked<vector = 1>>
  tile.return
}

// -----

tile.kernel @transpose_shape() attributes {threads = 32 : i64} {
  %v = arith.constant dense<1.0> : tensor<16x64xf32>
  // expected-error @+1 {{result must be 'tensor<64x16xf32>', the input's transpose, got 'tensor<16x64xf32>'}}
  %t = tile.transpose %v : tensor<16x64xf32> -> tensor<16x64xf32>
  tile.return
}

// -----

tile.kernel @dot_rhs_transposed_shape() attributes {threads = 32 : i64} {
  %a = arith.constant dense<1.0> : tensor<16x32xf32>
  %b = arith.constant dense<1.0> : tensor<32x64xf32>
  // expected-error @+1 {{contracts [16, 32] with [32, 64] transposed: inner dimensions differ}}
  %d = tile.dot %a, %b rhs_transposed : tensor<16x32xf32>, tensor<32x64xf32> -> tensor<16x64xf32>
  tile.return
}
