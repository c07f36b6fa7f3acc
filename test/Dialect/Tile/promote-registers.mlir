// Every row of "What stays in registers" (docs/spec.md, "## @registers").
// RUN: tile-opt --tile-promote-registers --split-input-file %s | FileCheck %s
// A second run finds no request left and changes nothing.
// RUN: tile-opt --tile-promote-registers --split-input-file %s \
// RUN:   | tile-opt --tile-promote-registers --split-input-file | FileCheck %s

// `acc += dot(a, b)` is elementwise in `acc`; 16x64 over 128 threads is 8
// elements a thread.
// CHECK-LABEL: tile.kernel @dot_accumulates
// CHECK-SAME:    tile.promoted = [#tile.promoted_var<name = "acc", type = tensor<16x64xf32>, threads = 128, slots = 8, shuffles = 0, spills = 1>]
// CHECK:         %[[R:.*]] = scf.for {{.*}} iter_args(%[[ACC:.*]] = %{{.*}}) -> (tensor<16x64xf32>) {
// CHECK:           %[[D:.*]] = tile.dot
// CHECK-NEXT:      %[[S:.*]] = arith.addf %[[ACC]], %[[D]] : tensor<16x64xf32>
// CHECK-NEXT:      scf.yield %[[S]] : tensor<16x64xf32>
// CHECK:         tile.var "acc" = %[[R]] {tile.spill_of = "acc"}
tile.kernel @dot_accumulates(%A: !tile.tensor<[16, K], f16>, %B: !tile.tensor<[K, 64], f16>,
                             %O: !tile.tensor<[16, 64], f32>)
    attributes {threads = 128 : i64, registers = ["acc"]} {
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  %zero = arith.constant dense<0.0> : tensor<16x64xf32>
  %acc = tile.var "acc" = %zero : !tile.var<16x64xf32>
  %K = tile.dim %A[1] : !tile.tensor<[16, K], f16>
  scf.for %k = %c0 to %K step %c32 {
    %a = tile.load %A[%c0, %k] : !tile.tensor<[16, K], f16> -> tensor<16x32xf16>
    %b = tile.load %B[%k, %c0] : !tile.tensor<[K, 64], f16> -> tensor<32x64xf16>
    %d = tile.dot %a, %b : tensor<16x32xf16>, tensor<32x64xf16> -> tensor<16x64xf32>
    %v = tile.read %acc : !tile.var<16x64xf32>
    %s = arith.addf %v, %d : tensor<16x64xf32>
    tile.write %s, %acc : !tile.var<16x64xf32>
  }
  %r = tile.read %acc : !tile.var<16x64xf32>
  tile.store %r, %O[%c0, %c0] : tensor<16x64xf32> -> !tile.tensor<[16, 64], f32>
  tile.return
}

// -----

// `acc = acc * 0.5 + x` and `acc = x` stay in registers; 256 threads: 4 a
// thread. The update that does not read `acc` just replaces the value.
// CHECK-LABEL: tile.kernel @scale_and_assign
// CHECK-SAME:    threads = 256, slots = 4, shuffles = 0, spills = 1>
// CHECK:         scf.for {{.*}} iter_args(%[[ACC:.*]] = %{{.*}}) -> (tensor<16x64xf32>) {
// CHECK:           %[[X:.*]] = tile.load
// CHECK-NEXT:      tile.splat
// CHECK-NEXT:      %[[M:.*]] = arith.mulf %[[ACC]], %{{.*}} : tensor<16x64xf32>
// CHECK-NEXT:      %[[A:.*]] = arith.addf %[[M]], %[[X]] : tensor<16x64xf32>
// CHECK-NEXT:      scf.yield %[[A]] : tensor<16x64xf32>
// CHECK:         %[[Y:.*]] = tile.load
// CHECK-NEXT:    %[[SPILL:.*]] = tile.var "acc" = %[[Y]] {tile.spill_of = "acc"}
tile.kernel @scale_and_assign(%X: !tile.tensor<[16, K], f32>, %O: !tile.tensor<[16, 64], f32>)
    attributes {threads = 256 : i64, registers = ["acc"]} {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %half = arith.constant 0.5 : f32
  %zero = arith.constant dense<0.0> : tensor<16x64xf32>
  %acc = tile.var "acc" = %zero : !tile.var<16x64xf32>
  %K = tile.dim %X[1] : !tile.tensor<[16, K], f32>
  scf.for %k = %c0 to %K step %c64 {
    %x = tile.load %X[%c0, %k] : !tile.tensor<[16, K], f32> -> tensor<16x64xf32>
    %h = tile.splat %half : tensor<16x64xf32>
    %v = tile.read %acc : !tile.var<16x64xf32>
    %m = arith.mulf %v, %h : tensor<16x64xf32>
    %a = arith.addf %m, %x : tensor<16x64xf32>
    tile.write %a, %acc : !tile.var<16x64xf32>
  }
  %y = tile.load %X[%c0, %c0] : !tile.tensor<[16, K], f32> -> tensor<16x64xf32>
  tile.write %y, %acc : !tile.var<16x64xf32>
  %r = tile.read %acc : !tile.var<16x64xf32>
  tile.store %r, %O[%c0, %c0] : tensor<16x64xf32> -> !tile.tensor<[16, 64], f32>
  tile.return
}

// -----

// 1024 threads: one element a thread.
// CHECK-LABEL: tile.kernel @one_per_thread
// CHECK-SAME:    threads = 1024, slots = 1, shuffles = 0, spills = 0>
// CHECK-NOT:     tile.var
tile.kernel @one_per_thread(%O: !tile.tensor<[16, 64], f32>)
    attributes {threads = 1024 : i64, registers = ["acc"]} {
  %zero = arith.constant dense<0.0> : tensor<16x64xf32>
  %acc = tile.var "acc" = %zero : !tile.var<16x64xf32>
  %v = tile.read %acc : !tile.var<16x64xf32>
  %w = arith.addf %v, %v : tensor<16x64xf32>
  tile.write %w, %acc : !tile.var<16x64xf32>
  tile.return
}

// -----

// The cap holds: 64 elements a thread is allowed.
// CHECK-LABEL: tile.kernel @at_the_cap
// CHECK-SAME:    type = tensor<64x256xf32>, threads = 256, slots = 64, shuffles = 0, spills = 0>
tile.kernel @at_the_cap(%O: !tile.tensor<[64, 256], f32>)
    attributes {threads = 256 : i64, registers = ["acc"]} {
  %zero = arith.constant dense<0.0> : tensor<64x256xf32>
  %acc = tile.var "acc" = %zero : !tile.var<64x256xf32>
  tile.return
}

// -----

// A loop nest: both loops carry `acc`.
// CHECK-LABEL: tile.kernel @loop_nest
// CHECK-NOT:     tile.var "acc"
// CHECK:         %[[OUTER:.*]] = scf.for {{.*}} iter_args(%[[A0:.*]] = %{{.*}}) -> (tensor<16x64xf32>) {
// CHECK-NEXT:      %[[INNER:.*]] = scf.for {{.*}} iter_args(%[[A1:.*]] = %[[A0]]) -> (tensor<16x64xf32>) {
// CHECK:             %[[S:.*]] = arith.addf %[[A1]], %{{.*}}
// CHECK-NEXT:        scf.yield %[[S]]
// CHECK-NEXT:      }
// CHECK-NEXT:      scf.yield %[[INNER]]
// CHECK-NEXT:    }
// CHECK-NEXT:    tile.var "acc" = %[[OUTER]] {tile.spill_of = "acc"}
tile.kernel @loop_nest(%X: !tile.tensor<[M, K], f32>, %O: !tile.tensor<[16, 64], f32>)
    attributes {threads = 256 : i64, registers = ["acc"]} {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant dense<0.0> : tensor<16x64xf32>
  %acc = tile.var "acc" = %zero : !tile.var<16x64xf32>
  %M = tile.dim %X[0] : !tile.tensor<[M, K], f32>
  %K = tile.dim %X[1] : !tile.tensor<[M, K], f32>
  scf.for %i = %c0 to %M step %c16 {
    scf.for %k = %c0 to %K step %c64 {
      %x = tile.load %X[%i, %k] : !tile.tensor<[M, K], f32> -> tensor<16x64xf32>
      %v = tile.read %acc : !tile.var<16x64xf32>
      %s = arith.addf %v, %x : tensor<16x64xf32>
      tile.write %s, %acc : !tile.var<16x64xf32>
    }
  }
  %r = tile.read %acc : !tile.var<16x64xf32>
  tile.store %r, %O[%c0, %c0] : tensor<16x64xf32> -> !tile.tensor<[16, 64], f32>
  tile.return
}

// -----

// Two register vars in one kernel: one loop carries both; rowsum of a
// 32-wide f32 tile and rowmax of a 32-wide i32 tile are folded with shuffles.
// CHECK-LABEL: tile.kernel @two_vars
// CHECK-SAME:    tile.promoted = [#tile.promoted_var<name = "acc", type = tensor<16x32xf32>, threads = 128, slots = 4, shuffles = 1, spills = 0>, #tile.promoted_var<name = "top", type = tensor<16x32xi32>, threads = 128, slots = 4, shuffles = 1, spills = 0>]
// CHECK-NOT:     tile.var
// CHECK:         %[[R:.*]]:2 = scf.for {{.*}} iter_args(%[[ACC:.*]] = %{{.*}}, %[[TOP:.*]] = %{{.*}}) -> (tensor<16x32xf32>, tensor<16x32xi32>) {
// CHECK:           %[[S:.*]] = arith.addf %[[ACC]]
// CHECK:           %[[M:.*]] = arith.maxsi %[[TOP]]
// CHECK:           scf.yield %[[S]], %[[M]]
// CHECK:         tile.rowsum %[[R]]#0 {tile.fold = "shuffle"} : tensor<16x32xf32> -> tensor<16x1xf32>
// CHECK:         tile.rowmax %[[R]]#1 {tile.fold = "shuffle"} : tensor<16x32xi32> -> tensor<16x1xi32>
// CHECK-NOT:     tile.var
tile.kernel @two_vars(%X: !tile.tensor<[16, K], f32>, %Y: !tile.tensor<[16, K], i32>,
                      %S: !tile.tensor<[16, 1], f32>, %T: !tile.tensor<[16, 1], i32>)
    attributes {threads = 128 : i64, registers = ["acc", "top"]} {
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  %zero = arith.constant dense<0.0> : tensor<16x32xf32>
  %low = arith.constant dense<0> : tensor<16x32xi32>
  %acc = tile.var "acc" = %zero : !tile.var<16x32xf32>
  %top = tile.var "top" = %low : !tile.var<16x32xi32>
  %K = tile.dim %X[1] : !tile.tensor<[16, K], f32>
  scf.for %k = %c0 to %K step %c32 {
    %x = tile.load %X[%c0, %k] : !tile.tensor<[16, K], f32> -> tensor<16x32xf32>
    %a = tile.read %acc : !tile.var<16x32xf32>
    %s = arith.addf %a, %x : tensor<16x32xf32>
    tile.write %s, %acc : !tile.var<16x32xf32>
    %y = tile.load %Y[%c0, %k] : !tile.tensor<[16, K], i32> -> tensor<16x32xi32>
    %t = tile.read %top : !tile.var<16x32xi32>
    %m = arith.maxsi %t, %y : tensor<16x32xi32>
    tile.write %m, %top : !tile.var<16x32xi32>
  }
  %a = tile.read %acc : !tile.var<16x32xf32>
  %rs = tile.rowsum %a : tensor<16x32xf32> -> tensor<16x1xf32>
  tile.store %rs, %S[%c0, %c0] : tensor<16x1xf32> -> !tile.tensor<[16, 1], f32>
  %t = tile.read %top : !tile.var<16x32xi32>
  %rm = tile.rowmax %t : tensor<16x32xi32> -> tensor<16x1xi32>
  tile.store %rm, %T[%c0, %c0] : tensor<16x1xi32> -> !tile.tensor<[16, 1], i32>
  tile.return
}

// -----

// rowsum of an i32 tile with 16-wide rows: folded.
// CHECK-LABEL: tile.kernel @fold_i32
// CHECK-SAME:    slots = 1, shuffles = 1, spills = 0>
// CHECK:         tile.rowsum %{{.*}} {tile.fold = "shuffle"} : tensor<8x16xi32> -> tensor<8x1xi32>
// CHECK-NOT:     tile.var
tile.kernel @fold_i32(%S: !tile.tensor<[8, 1], i32>)
    attributes {threads = 128 : i64, registers = ["n"]} {
  %c0 = arith.constant 0 : index
  %one = arith.constant dense<1> : tensor<8x16xi32>
  %n = tile.var "n" = %one : !tile.var<8x16xi32>
  %v = tile.read %n : !tile.var<8x16xi32>
  %rs = tile.rowsum %v : tensor<8x16xi32> -> tensor<8x1xi32>
  tile.store %rs, %S[%c0, %c0] : tensor<8x1xi32> -> !tile.tensor<[8, 1], i32>
  tile.return
}

// -----

// rowsum over 64-wide rows (more than the 32 lanes of a warp), of an f16
// tile, and over 24-wide rows (not a power of two): each spills, just
// before the rowsum.
// CHECK-LABEL: tile.kernel @spill_64_wide
// CHECK:         %[[SP:.*]] = tile.var "acc" = %{{.*}} {tile.spill_of = "acc"} : !tile.var<16x64xf32>
// CHECK-NEXT:    %[[V:.*]] = tile.read %[[SP]]
// CHECK-NEXT:    tile.rowsum %[[V]] : tensor<16x64xf32>
tile.kernel @spill_64_wide(%S: !tile.tensor<[16, 1], f32>)
    attributes {threads = 256 : i64, registers = ["acc"]} {
  %c0 = arith.constant 0 : index
  %zero = arith.constant dense<0.0> : tensor<16x64xf32>
  %acc = tile.var "acc" = %zero : !tile.var<16x64xf32>
  %v = tile.read %acc : !tile.var<16x64xf32>
  %rs = tile.rowsum %v : tensor<16x64xf32> -> tensor<16x1xf32>
  tile.store %rs, %S[%c0, %c0] : tensor<16x1xf32> -> !tile.tensor<[16, 1], f32>
  tile.return
}

// -----

// CHECK-LABEL: tile.kernel @spill_f16
// CHECK:         %[[SP:.*]] = tile.var "acc" = %{{.*}} {tile.spill_of = "acc"} : !tile.var<16x32xf16>
// CHECK-NEXT:    %[[V:.*]] = tile.read %[[SP]]
// CHECK-NEXT:    tile.rowsum %[[V]] : tensor<16x32xf16>
tile.kernel @spill_f16(%S: !tile.tensor<[16, 1], f16>)
    attributes {threads = 128 : i64, registers = ["acc"]} {
  %c0 = arith.constant 0 : index
  %zero = arith.constant dense<0.0> : tensor<16x32xf16>
  %acc = tile.var "acc" = %zero : !tile.var<16x32xf16>
  %v = tile.read %acc : !tile.var<16x32xf16>
  %rs = tile.rowsum %v : tensor<16x32xf16> -> tensor<16x1xf16>
  tile.store %rs, %S[%c0, %c0] : tensor<16x1xf16> -> !tile.tensor<[16, 1], f16>
  tile.return
}

// -----

// 16x24 over 128 threads is 3 elements a thread.
// CHECK-LABEL: tile.kernel @spill_24_wide
// CHECK-SAME:    slots = 3, shuffles = 0, spills = 1>
// CHECK:         %[[SP:.*]] = tile.var "acc" = %{{.*}} {tile.spill_of = "acc"} : !tile.var<16x24xf32>
// CHECK-NEXT:    %[[V:.*]] = tile.read %[[SP]]
// CHECK-NEXT:    tile.rowmax %[[V]] : tensor<16x24xf32>
tile.kernel @spill_24_wide(%S: !tile.tensor<[16, 1], f32>)
    attributes {threads = 128 : i64, registers = ["acc"]} {
  %c0 = arith.constant 0 : index
  %zero = arith.constant dense<0.0> : tensor<16x24xf32>
  %acc = tile.var "acc" = %zero : !tile.var<16x24xf32>
  %v = tile.read %acc : !tile.var<16x24xf32>
  %rs = tile.rowmax %v : tensor<16x24xf32> -> tensor<16x1xf32>
  tile.store %rs, %S[%c0, %c0] : tensor<16x1xf32> -> !tile.tensor<[16, 1], f32>
  tile.return
}

// -----

// A use that needs a shared tile inside the loop spills inside the loop,
// once per iteration, after the update it must see, and only there.
// CHECK-LABEL: tile.kernel @spill_in_loop
// CHECK-SAME:    spills = 1
// CHECK-NOT:     tile.var "acc"
// CHECK:         scf.for {{.*}} iter_args(%[[ACC:.*]] = %{{.*}}) -> (tensor<16x64xf32>) {
// CHECK:           %[[S:.*]] = arith.addf %[[ACC]]
// CHECK-NEXT:      %[[SP:.*]] = tile.var "acc" = %[[S]] {tile.spill_of = "acc"}
// CHECK-NEXT:      %[[V:.*]] = tile.read %[[SP]]
// CHECK-NEXT:      tile.store %[[V]]
// CHECK-NEXT:      tile.rowsum %[[V]]
// CHECK-NOT:       tile.var "acc"
// CHECK:           scf.yield %[[S]]
// CHECK-NOT:     tile.var "acc"
// CHECK:         tile.return
tile.kernel @spill_in_loop(%X: !tile.tensor<[16, K], f32>, %O: !tile.tensor<[16, K], f32>,
                           %S: !tile.tensor<[16, 1], f32>)
    attributes {threads = 256 : i64, registers = ["acc"]} {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant dense<0.0> : tensor<16x64xf32>
  %acc = tile.var "acc" = %zero : !tile.var<16x64xf32>
  %K = tile.dim %X[1] : !tile.tensor<[16, K], f32>
  scf.for %k = %c0 to %K step %c64 {
    %x = tile.load %X[%c0, %k] : !tile.tensor<[16, K], f32> -> tensor<16x64xf32>
    %v = tile.read %acc : !tile.var<16x64xf32>
    %s = arith.addf %v, %x : tensor<16x64xf32>
    tile.write %s, %acc : !tile.var<16x64xf32>
    %w = tile.read %acc : !tile.var<16x64xf32>
    tile.store %w, %O[%c0, %k] : tensor<16x64xf32> -> !tile.tensor<[16, K], f32>
    %u = tile.read %acc : !tile.var<16x64xf32>
    %rs = tile.rowsum %u : tensor<16x64xf32> -> tensor<16x1xf32>
    tile.store %rs, %S[%c0, %c0] : tensor<16x1xf32> -> !tile.tensor<[16, 1], f32>
  }
  tile.return
}

// -----

// A value that does not change in the loop is spilled once, before the loop
// reads it; a loop that only reads `acc` carries nothing.
// CHECK-LABEL: tile.kernel @invariant_in_loop
// CHECK:         %[[SP:.*]] = tile.var "acc" = %{{.*}} {tile.spill_of = "acc"}
// CHECK-NEXT:    %[[V:.*]] = tile.read %[[SP]]
// CHECK-NEXT:    tile.store %[[V]]
// CHECK-NEXT:    scf.for %{{[^ ]*}} = %{{[^ ]*}} to %{{[^ ]*}} step %{{[^ ]*}} {
// CHECK-NEXT:      tile.store %[[V]]
// CHECK-NEXT:    }
tile.kernel @invariant_in_loop(%O: !tile.tensor<[16, K], f32>)
    attributes {threads = 256 : i64, registers = ["acc"]} {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant dense<0.0> : tensor<16x64xf32>
  %acc = tile.var "acc" = %zero : !tile.var<16x64xf32>
  %K = tile.dim %O[1] : !tile.tensor<[16, K], f32>
  %r = tile.read %acc : !tile.var<16x64xf32>
  tile.store %r, %O[%c0, %c0] : tensor<16x64xf32> -> !tile.tensor<[16, K], f32>
  scf.for %k = %c0 to %K step %c64 {
    %w = tile.read %acc : !tile.var<16x64xf32>
    tile.store %w, %O[%c0, %k] : tensor<16x64xf32> -> !tile.tensor<[16, K], f32>
  }
  tile.return
}

// -----

// Each value needs its own spill: one before the update, one after.
// CHECK-LABEL: tile.kernel @two_values
// CHECK-SAME:    spills = 2
// CHECK:         %[[ZERO:.*]] = arith.constant dense
// CHECK:         tile.var "acc" = %[[ZERO]] {tile.spill_of = "acc"}
// CHECK:         %[[S:.*]] = arith.addf %[[ZERO]], %[[ZERO]]
// CHECK:         tile.var "acc" = %[[S]] {tile.spill_of = "acc"}
tile.kernel @two_values(%O: !tile.tensor<[16, 64], f32>)
    attributes {threads = 256 : i64, registers = ["acc"]} {
  %c0 = arith.constant 0 : index
  %zero = arith.constant dense<0.0> : tensor<16x64xf32>
  %acc = tile.var "acc" = %zero : !tile.var<16x64xf32>
  %r = tile.read %acc : !tile.var<16x64xf32>
  tile.store %r, %O[%c0, %c0] : tensor<16x64xf32> -> !tile.tensor<[16, 64], f32>
  %a = tile.read %acc : !tile.var<16x64xf32>
  %s = arith.addf %a, %a : tensor<16x64xf32>
  tile.write %s, %acc : !tile.var<16x64xf32>
  %w = tile.read %acc : !tile.var<16x64xf32>
  tile.store %w, %O[%c0, %c0] : tensor<16x64xf32> -> !tile.tensor<[16, 64], f32>
  tile.return
}

// -----

// `acc = dot(acc, b)`: a dot operand spills (in the loop, where the value
// changes); the update itself stays in registers.
// CHECK-LABEL: tile.kernel @dot_operand
// CHECK:         scf.for {{.*}} iter_args(%[[ACC:.*]] = %{{.*}}) -> (tensor<16x16xf32>) {
// CHECK:           %[[SP:.*]] = tile.var "acc" = %[[ACC]] {tile.spill_of = "acc"}
// CHECK-NEXT:      %[[V:.*]] = tile.read %[[SP]]
// CHECK-NEXT:      %[[D:.*]] = tile.dot %[[V]], %{{.*}}
// CHECK-NEXT:      scf.yield %[[D]]
tile.kernel @dot_operand(%B: !tile.tensor<[16, 16], f32>, %O: !tile.tensor<[16, 16], f32>)
    attributes {threads = 256 : i64, registers = ["acc"]} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %one = arith.constant dense<1.0> : tensor<16x16xf32>
  %acc = tile.var "acc" = %one : !tile.var<16x16xf32>
  %b = tile.load %B[%c0, %c0] : !tile.tensor<[16, 16], f32> -> tensor<16x16xf32>
  scf.for %i = %c0 to %c4 step %c1 {
    %v = tile.read %acc : !tile.var<16x16xf32>
    %d = tile.dot %v, %b : tensor<16x16xf32>, tensor<16x16xf32> -> tensor<16x16xf32>
    tile.write %d, %acc : !tile.var<16x16xf32>
  }
  tile.return
}

// -----

// A broadcast is not elementwise: it spills.
// CHECK-LABEL: tile.kernel @broadcast
// CHECK:         %[[SP:.*]] = tile.var "m" = %{{.*}} {tile.spill_of = "m"} : !tile.var<32x1xf32>
// CHECK-NEXT:    %[[V:.*]] = tile.read %[[SP]]
// CHECK-NEXT:    tile.broadcast %[[V]]
tile.kernel @broadcast(%O: !tile.tensor<[32, 64], f32>)
    attributes {threads = 32 : i64, registers = ["m"]} {
  %c0 = arith.constant 0 : index
  %zero = arith.constant dense<0.0> : tensor<32x1xf32>
  %m = tile.var "m" = %zero : !tile.var<32x1xf32>
  %v = tile.read %m : !tile.var<32x1xf32>
  %b = tile.broadcast %v : tensor<32x1xf32> -> tensor<32x64xf32>
  tile.store %b, %O[%c0, %c0] : tensor<32x64xf32> -> !tile.tensor<[32, 64], f32>
  tile.return
}

// -----

// A read inside an if (no update there) spills inside the if, where it is
// needed; `storage = registers` on the var is a request too.
// CHECK-LABEL: tile.kernel @read_in_if
// CHECK-NOT:     storage
// CHECK:         scf.if
// CHECK-NEXT:      %[[SP:.*]] = tile.var "acc" = %{{.*}} {tile.spill_of = "acc"}
// CHECK-NEXT:      %[[V:.*]] = tile.read %[[SP]]
// CHECK-NEXT:      tile.store %[[V]]
tile.kernel @read_in_if(%O: !tile.tensor<[16, N], f32>)
    attributes {threads = 256 : i64} {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %n = tile.dim %O[1] : !tile.tensor<[16, N], f32>
  %first = arith.cmpi sge, %n, %c64 : index
  %zero = arith.constant dense<0.0> : tensor<16x64xf32>
  %acc = tile.var "acc" = %zero {storage = #tile.storage<registers>} : !tile.var<16x64xf32>
  scf.if %first {
    %v = tile.read %acc : !tile.var<16x64xf32>
    tile.store %v, %O[%c0, %c0] : tensor<16x64xf32> -> !tile.tensor<[16, N], f32>
  }
  tile.return
}

// -----

// Two register vars spilled inside one loop, which carries both: each spill
// follows its own var's update.
// CHECK-LABEL: tile.kernel @two_vars_spill_in_loop
// CHECK-SAME:    spills = 1
// CHECK-SAME:    spills = 1
// CHECK:         scf.for {{.*}} iter_args(%[[A:.*]] = %{{.*}}, %[[B:.*]] = %{{.*}}) -> (tensor<16x64xf32>, tensor<16x64xf32>) {
// CHECK:           %[[SA:.*]] = arith.addf %[[A]]
// CHECK-NEXT:      %[[PA:.*]] = tile.var "a" = %[[SA]] {tile.spill_of = "a"}
// CHECK-NEXT:      %[[RA:.*]] = tile.read %[[PA]]
// CHECK-NEXT:      tile.store %[[RA]]
// CHECK-NEXT:      %[[SB:.*]] = arith.mulf %[[B]]
// CHECK-NEXT:      %[[PB:.*]] = tile.var "b" = %[[SB]] {tile.spill_of = "b"}
// CHECK-NEXT:      %[[RB:.*]] = tile.read %[[PB]]
// CHECK-NEXT:      tile.store %[[RB]]
// CHECK-NEXT:      scf.yield %[[SA]], %[[SB]]
tile.kernel @two_vars_spill_in_loop(%X: !tile.tensor<[16, K], f32>, %O: !tile.tensor<[16, K], f32>)
    attributes {threads = 256 : i64, registers = ["a", "b"]} {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant dense<0.0> : tensor<16x64xf32>
  %one = arith.constant dense<1.0> : tensor<16x64xf32>
  %a = tile.var "a" = %zero : !tile.var<16x64xf32>
  %b = tile.var "b" = %one : !tile.var<16x64xf32>
  %K = tile.dim %X[1] : !tile.tensor<[16, K], f32>
  scf.for %k = %c0 to %K step %c64 {
    %x = tile.load %X[%c0, %k] : !tile.tensor<[16, K], f32> -> tensor<16x64xf32>
    %av = tile.read %a : !tile.var<16x64xf32>
    %as = arith.addf %av, %x : tensor<16x64xf32>
    tile.write %as, %a : !tile.var<16x64xf32>
    %ar = tile.read %a : !tile.var<16x64xf32>
    tile.store %ar, %O[%c0, %k] : tensor<16x64xf32> -> !tile.tensor<[16, K], f32>
    %bv = tile.read %b : !tile.var<16x64xf32>
    %bs = arith.mulf %bv, %x : tensor<16x64xf32>
    tile.write %bs, %b : !tile.var<16x64xf32>
    %br = tile.read %b : !tile.var<16x64xf32>
    tile.store %br, %O[%c0, %k] : tensor<16x64xf32> -> !tile.tensor<[16, K], f32>
  }
  tile.return
}
