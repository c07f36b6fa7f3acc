// RUN: tile-opt %s -split-input-file --pass-pipeline='builtin.module(tile.kernel(tile-hoist-invariants))' | FileCheck %s

// A read of a var the loop never writes, and the broadcast of it, move
// before the loop; what depends on the loop stays.
// CHECK-LABEL: tile.kernel @row_scale
// CHECK: %[[SCALE:.*]] = tile.var "scale"
// CHECK: %[[READ:.*]] = tile.read %[[SCALE]]
// CHECK: %[[WIDE:.*]] = tile.broadcast %[[READ]]
// CHECK: scf.for %[[COL:.*]] =
// CHECK-NEXT: tile.load %{{.*}}[%{{.*}}, %[[COL]]]
// CHECK-NEXT: arith.mulf %{{.*}}, %[[WIDE]]
// CHECK-NEXT: tile.store
tile.kernel @row_scale(%X: !tile.tensor<[16, N], f32>, %S: !tile.tensor<[16, 1], f32>, %Y: !tile.tensor<[16, N], f32>) attributes {threads = 128 : i64} {
  %c0 = arith.constant 0 : index
  %c128 = arith.constant 128 : index
  %N = tile.dim %X[1] : !tile.tensor<[16, N], f32>
  %s = tile.load %S[%c0, %c0] : !tile.tensor<[16, 1], f32> -> tensor<16x1xf32>
  %scale = tile.var "scale" = %s : !tile.var<16x1xf32>
  scf.for %col = %c0 to %N step %c128 {
    %x = tile.load %X[%c0, %col] : !tile.tensor<[16, N], f32> -> tensor<16x128xf32>
    %r = tile.read %scale : !tile.var<16x1xf32>
    %b = tile.broadcast %r : tensor<16x1xf32> -> tensor<16x128xf32>
    %y = arith.mulf %x, %b : tensor<16x128xf32>
    tile.store %y, %Y[%c0, %col] : tensor<16x128xf32> -> !tile.tensor<[16, N], f32>
  }
  tile.return
}

// -----

// A var written anywhere in the loop, even in a nested if, is read there.
// CHECK-LABEL: tile.kernel @written_in_loop
// CHECK: scf.for
// CHECK: tile.read
// CHECK: scf.if
// CHECK: tile.write
tile.kernel @written_in_loop(%O: !tile.tensor<[128], i32>) attributes {threads = 128 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %one = arith.constant 1 : i32
  %n = tile.var "n" = %one : !tile.var<i32>
  scf.for %i = %c0 to %c4 step %c1 {
    %v = tile.read %n : !tile.var<i32>
    %t = tile.splat %v : tensor<128xi32>
    tile.store %t, %O[%c0] : tensor<128xi32> -> !tile.tensor<[128], i32>
    %odd = arith.cmpi eq, %i, %c1 : index
    scf.if %odd {
      %w = arith.addi %v, %one : i32
      tile.write %w, %n : !tile.var<i32>
    }
  }
  tile.return
}

// -----

// Loads from global memory stay: the loop may store where they read.
// CHECK-LABEL: tile.kernel @loads_stay
// CHECK: scf.for
// CHECK-NEXT: tile.load
tile.kernel @loads_stay(%A: !tile.tensor<[128], f32>) attributes {threads = 128 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  scf.for %i = %c0 to %c4 step %c1 {
    %a = tile.load %A[%c0] : !tile.tensor<[128], f32> -> tensor<128xf32>
    %b = arith.addf %a, %a : tensor<128xf32>
    tile.store %b, %A[%c0] : tensor<128xf32> -> !tile.tensor<[128], f32>
  }
  tile.return
}

// -----

// The spill of a register tile that a loop uses but does not change is
// stored once, before the loop.
// CHECK-LABEL: tile.kernel @spill_once
// CHECK: %[[SPILL:.*]] = tile.var "acc" = %{{.*}} {tile.spill_of = "acc"}
// CHECK: %[[R:.*]] = tile.read %[[SPILL]]
// CHECK: scf.for
// CHECK-NEXT: tile.store %[[R]]
tile.kernel @spill_once(%O: !tile.tensor<[16, K], f32>) attributes {threads = 128 : i64} {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %K = tile.dim %O[1] : !tile.tensor<[16, K], f32>
  %acc = arith.constant dense<1.0> : tensor<16x64xf32>
  scf.for %k = %c0 to %K step %c64 {
    %spill = tile.var "acc" = %acc {tile.spill_of = "acc"} : !tile.var<16x64xf32>
    %r = tile.read %spill : !tile.var<16x64xf32>
    tile.store %r, %O[%c0, %k] : tensor<16x64xf32> -> !tile.tensor<[16, K], f32>
  }
  tile.return
}

// -----

// A var that a tile.copy fills in the loop is written there like one that
// tile.write sets: its read stays after the copy (utils/fuzz.py seed 5,
// iteration 99, found the read hoisted before the loop, reading the var
// before any copy had filled it).
// CHECK-LABEL: tile.kernel @copied_in_loop
// CHECK: scf.for
// CHECK: tile.copy
// CHECK-NEXT: tile.read
// CHECK-NEXT: tile.store
tile.kernel @copied_in_loop(%X: !tile.tensor<[K], f32>, %O: !tile.tensor<[K], f32>) attributes {threads = 64 : i64} {
  %c0 = arith.constant 0 : index
  %c128 = arith.constant 128 : index
  %K = tile.dim %X[0] : !tile.tensor<[K], f32>
  %t = tile.var "t" : !tile.var<128xf32>
  scf.for %k = %c0 to %K step %c128 {
    tile.copy %X[%k] to %t[%c0] [128] {width = 4 : i64} : !tile.tensor<[K], f32> to !tile.var<128xf32>
    %v = tile.read %t : !tile.var<128xf32>
    tile.store %v, %O[%k] : tensor<128xf32> -> !tile.tensor<[K], f32>
  }
  tile.return
}
