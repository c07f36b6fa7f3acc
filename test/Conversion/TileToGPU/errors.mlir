// RUN: tile-opt %s -split-input-file --pass-pipeline='builtin.module(tile.kernel(tile-plan-shared,tile-insert-barriers),tile-to-gpu)' -verify-diagnostics

// A barrier that only some threads would reach.
tile.kernel @barrier_under_thread_branch(%A: !tile.tensor<[16, 48], f32>, %M: !tile.tensor<[16, 1], f32>) attributes {threads = 128 : i64} {
  %c0 = arith.constant 0 : index
  %t = tile.thread_id
  %first = arith.cmpi eq, %t, %c0 : index
  // expected-note @+1 {{this control flow}}
  scf.if %first {
    %a = tile.load %A[%c0, %c0] : !tile.tensor<[16, 48], f32> -> tensor<16x48xf32>
    // expected-error @+1 {{a barrier is needed here (another thread's access to the same shared bytes), but the control flow around it depends on ctx.thread}}
    %m = tile.rowsum %a : tensor<16x48xf32> -> tensor<16x1xf32>
    tile.store %m, %M[%c0, %c0] : tensor<16x1xf32> -> !tile.tensor<[16, 1], f32>
  }
  tile.return
}

// -----

// A reduction over rows of whole warps has a barrier of its own.
tile.kernel @segmented_under_thread_branch(%A: !tile.tensor<[16, 64], f32>, %M: !tile.tensor<[16, 1], f32>) attributes {threads = 128 : i64} {
  %c0 = arith.constant 0 : index
  %t = tile.thread_id
  %first = arith.cmpi eq, %t, %c0 : index
  // expected-note @+1 {{this control flow}}
  scf.if %first {
    %a = tile.load %A[%c0, %c0] : !tile.tensor<[16, 64], f32> -> tensor<16x64xf32>
    // expected-error @+1 {{this reduction exchanges values among the lanes of a warp and, with a barrier, among warps, but the control flow around it depends on ctx.thread}}
    %m = tile.rowsum %a : tensor<16x64xf32> -> tensor<16x1xf32>
    tile.store %m, %M[%c0, %c0] : tensor<16x1xf32> -> !tile.tensor<[16, 1], f32>
  }
  tile.return
}

// -----

// A warp shuffle under a loop whose trip count differs between threads.
tile.kernel @shuffle_under_thread_loop(%A: !tile.tensor<[16, 32], f32>, %B: !tile.tensor<[16, 32], f32>) attributes {threads = 128 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = tile.var "n" : !tile.var<index>
  %t = tile.thread_id
  tile.write %t, %n : !tile.var<index>
  %bound = tile.read %n : !tile.var<index>
  // expected-note @+1 {{this control flow}}
  scf.for %i = %c0 to %bound step %c1 {
    %a = tile.load %A[%c0, %c0] : !tile.tensor<[16, 32], f32> -> tensor<16x32xf32>
    // expected-error @+1 {{this reduction exchanges values among the lanes of a warp, but the control flow around it depends on ctx.thread}}
    %m = tile.rowmax %a : tensor<16x32xf32> -> tensor<16x1xf32>
    %b = tile.broadcast %m : tensor<16x1xf32> -> tensor<16x32xf32>
    tile.store %b, %B[%c0, %c0] : tensor<16x32xf32> -> !tile.tensor<[16, 32], f32>
  }
  tile.return
}

// -----

tile.kernel @non_splat_constant(%O: !tile.tensor<[2], f32>) attributes {threads = 32 : i64} {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{only a tile constant with one value for every element can be lowered}}
  %v = arith.constant dense<[1.0, 2.0]> : tensor<2xf32>
  tile.store %v, %O[%c0] : tensor<2xf32> -> !tile.tensor<[2], f32>
  tile.return
}

// -----

tile.kernel @too_many_slots(%A: !tile.tensor<[128, 128], f32>) attributes {threads = 32 : i64} {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{a tile of 16384 elements is 512 per thread with 32 threads, more than the 256 one thread's code holds}}
  %a = tile.load %A[%c0, %c0] : !tile.tensor<[128, 128], f32> -> tensor<128x128xf32>
  %b = arith.addf %a, %a : tensor<128x128xf32>
  tile.store %b, %A[%c0, %c0] : tensor<128x128xf32> -> !tile.tensor<[128, 128], f32>
  tile.return
}

// -----

// Dependence on the thread flows through a while loop's arguments.
tile.kernel @shuffle_under_thread_while(%A: !tile.tensor<[16, 32], f32>, %B: !tile.tensor<[16, 32], f32>) attributes {threads = 128 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %t = tile.thread_id
  // expected-note @+1 {{this control flow}}
  %r = scf.while (%x = %t) : (index) -> index {
    %go = arith.cmpi ult, %x, %c4 : index
    scf.condition(%go) %x : index
  } do {
  ^bb0(%x: index):
    %a = tile.load %A[%c0, %c0] : !tile.tensor<[16, 32], f32> -> tensor<16x32xf32>
    // expected-error @+1 {{this reduction exchanges values among the lanes of a warp, but the control flow around it depends on ctx.thread}}
    %m = tile.rowmax %a : tensor<16x32xf32> -> tensor<16x1xf32>
    tile.store %m, %B[%c0, %c0] : tensor<16x1xf32> -> !tile.tensor<[16, 32], f32>
    %next = arith.addi %x, %c1 : index
    scf.yield %next : index
  }
  tile.return
}

// -----

// ... and through the values a loop carries.
tile.kernel @shuffle_under_carried_thread(%A: !tile.tensor<[16, 32], f32>, %B: !tile.tensor<[16, 32], f32>) attributes {threads = 128 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %t = tile.thread_id
  %r = scf.for %i = %c0 to %c4 step %c1 iter_args(%x = %c0) -> (index) {
    %small = arith.cmpi ult, %x, %c4 : index
    // expected-note @+1 {{this control flow}}
    scf.if %small {
      %a = tile.load %A[%c0, %c0] : !tile.tensor<[16, 32], f32> -> tensor<16x32xf32>
      // expected-error @+1 {{this reduction exchanges values among the lanes of a warp, but the control flow around it depends on ctx.thread}}
      %m = tile.rowmax %a : tensor<16x32xf32> -> tensor<16x1xf32>
      tile.store %m, %B[%c0, %c0] : tensor<16x1xf32> -> !tile.tensor<[16, 32], f32>
    }
    %next = arith.addi %x, %t : index
    scf.yield %next : index
  }
  tile.return
}
