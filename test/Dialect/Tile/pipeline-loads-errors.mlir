// RUN: tile-opt %s -split-input-file --pass-pipeline='builtin.module(tile.kernel(tile-pipeline-loads))' -verify-diagnostics

// What @pipeline cannot do is a warning naming the reason; bad options are
// errors of the kernel's verifier (errors.mlir).

// expected-warning @+1 {{@pipeline(kt): no loop over 'kt' and no var 'kt' set by a load in a loop: nothing to pipeline}}
tile.kernel @no_such_loop(%X: !tile.tensor<[16, 64], f32>) attributes {threads = 256 : i64, pipeline = {names = ["kt"]}} {
  tile.return
}

// -----

// Loading X ahead would read it before this loop's earlier iterations
// stored to it.
tile.kernel @stores_to_loaded_tensor(%X: !tile.tensor<[16, K], f32>) attributes {threads = 256 : i64, pipeline = {names = ["kt"]}} {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %K = tile.dim %X[1] : !tile.tensor<[16, K], f32>
  scf.for %kt = %c0 to %K step %c64 {
    // expected-warning @+1 {{@pipeline(kt): this load is not issued early: the loop also stores to that tensor}}
    %x = tile.load %X[%c0, %kt] : !tile.tensor<[16, K], f32> -> tensor<16x64xf32>
    %d = arith.addf %x, %x : tensor<16x64xf32>
    tile.store %d, %X[%c0, %kt] : tensor<16x64xf32> -> !tile.tensor<[16, K], f32>
  } {tile.index = "kt"}
  tile.return
}

// -----

// The offset comes from a var the loop writes: it cannot be known for a
// later iteration.
tile.kernel @offset_from_memory(%X: !tile.tensor<[16, K], f32>, %O: !tile.tensor<[16, 64], f32>) attributes {threads = 256 : i64, pipeline = {names = ["kt"]}} {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %K = tile.dim %X[1] : !tile.tensor<[16, K], f32>
  %col = tile.var "col" = %c0 : !tile.var<index>
  scf.for %kt = %c0 to %K step %c64 {
    %c = tile.read %col : !tile.var<index>
    // expected-warning @+1 {{@pipeline(kt): this load is not issued early: its offsets depend on memory the loop reads or on values it carries from one iteration to the next}}
    %x = tile.load %X[%c0, %c] : !tile.tensor<[16, K], f32> -> tensor<16x64xf32>
    tile.store %x, %O[%c0, %c0] : tensor<16x64xf32> -> !tile.tensor<[16, 64], f32>
    %next = arith.addi %c, %c64 : index
    tile.write %next, %col : !tile.var<index>
  } {tile.index = "kt"}
  tile.return
}

// -----

tile.kernel @loop_without_load(%O: !tile.tensor<[16, 64], f32>) attributes {threads = 256 : i64, pipeline = {names = ["kt"]}} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  // expected-warning @+1 {{@pipeline(kt): the loop loads no slice: nothing to pipeline}}
  scf.for %kt = %c0 to %c4 step %c1 {
    %one = arith.constant dense<1.0> : tensor<16x64xf32>
    tile.store %one, %O[%c0, %c0] : tensor<16x64xf32> -> !tile.tensor<[16, 64], f32>
  } {tile.index = "kt"}
  tile.return
}

// -----

// The offset is carried from one iteration to the next.
tile.kernel @offset_carried(%X: !tile.tensor<[16, K], f32>, %O: !tile.tensor<[16, 64], f32>) attributes {threads = 256 : i64, pipeline = {names = ["kt"]}} {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %K = tile.dim %X[1] : !tile.tensor<[16, K], f32>
  %r = scf.for %kt = %c0 to %K step %c64 iter_args(%col = %c0) -> (index) {
    // expected-warning @+1 {{@pipeline(kt): this load is not issued early: its offsets depend on memory the loop reads or on values it carries from one iteration to the next}}
    %x = tile.load %X[%c0, %col] : !tile.tensor<[16, K], f32> -> tensor<16x64xf32>
    tile.store %x, %O[%c0, %c0] : tensor<16x64xf32> -> !tile.tensor<[16, 64], f32>
    %next = arith.addi %col, %c64 : index
    scf.yield %next : index
  } {tile.index = "kt"}
  tile.return
}
