// The seed's `squares`, as the .tile front end writes it: `acc` stays in
// registers through the loop and is stored to a shared tile once, after it,
// for both the store to O and the rowsum over 64-wide rows.
// RUN: tile-opt --tile-promote-registers %s | FileCheck %s
// Nothing of `acc` is left in memory but that one spill and its one read:
// RUN: tile-opt --tile-promote-registers %s | FileCheck %s --check-prefix=ONCE \
// RUN:   --implicit-check-not='tile.var "acc"' --implicit-check-not='tile.write' \
// RUN:   --implicit-check-not='tile.read %{{.*}} : !tile.var<16x64xf32>'
// Running the pass again changes nothing:
// RUN: tile-opt --tile-promote-registers %s | tile-opt --tile-promote-registers | FileCheck %s

tile.kernel @squares(%X: !tile.tensor<[16, K], f32>, %O: !tile.tensor<[16, 64], f32>,
                     %S: !tile.tensor<[16, 1], f32>)
    attributes {threads = 256 : i64, registers = ["acc"]} {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant dense<0.0> : tensor<16x64xf32>
  %acc = tile.var "acc" = %zero : !tile.var<16x64xf32>
  %K = tile.dim %X[1] : !tile.tensor<[16, K], f32>
  scf.for %kt = %c0 to %K step %c64 {
    %x0 = tile.load %X[%c0, %kt] : !tile.tensor<[16, K], f32> -> tensor<16x64xf32>
    %x = tile.var "x" = %x0 : !tile.var<16x64xf32>
    %a = tile.read %acc : !tile.var<16x64xf32>
    %xa = tile.read %x : !tile.var<16x64xf32>
    %xb = tile.read %x : !tile.var<16x64xf32>
    %sq = arith.mulf %xa, %xb : tensor<16x64xf32>
    %sum = arith.addf %a, %sq : tensor<16x64xf32>
    tile.write %sum, %acc : !tile.var<16x64xf32>
  }
  %a1 = tile.read %acc : !tile.var<16x64xf32>
  tile.store %a1, %O[%c0, %c0] : tensor<16x64xf32> -> !tile.tensor<[16, 64], f32>
  %a2 = tile.read %acc : !tile.var<16x64xf32>
  %rs = tile.rowsum %a2 : tensor<16x64xf32> -> tensor<16x1xf32>
  %s = tile.var "s" = %rs : !tile.var<16x1xf32>
  %sv = tile.read %s : !tile.var<16x1xf32>
  tile.store %sv, %S[%c0, %c0] : tensor<16x1xf32> -> !tile.tensor<[16, 1], f32>
  tile.return
}

// CHECK-LABEL: tile.kernel @squares
// CHECK-NOT:     registers =
// CHECK-SAME:    tile.promoted = [#tile.promoted_var<name = "acc", type = tensor<16x64xf32>, threads = 256, slots = 4, shuffles = 0, spills = 1>]
// CHECK:         %[[ZERO:.*]] = arith.constant dense<0.000000e+00> : tensor<16x64xf32>
// CHECK-NOT:     tile.var "acc"
// CHECK:         %[[LOOP:.*]] = scf.for {{.*}} iter_args(%[[ACC:.*]] = %[[ZERO]]) -> (tensor<16x64xf32>) {
// CHECK:           %[[SQ:.*]] = arith.mulf
// CHECK:           %[[SUM:.*]] = arith.addf %[[ACC]], %[[SQ]] : tensor<16x64xf32>
// CHECK:           scf.yield %[[SUM]] : tensor<16x64xf32>
// CHECK-NEXT:    }
// CHECK-NEXT:    %[[SPILL:.*]] = tile.var "acc" = %[[LOOP]] {tile.spill_of = "acc"} : !tile.var<16x64xf32>
// CHECK-NEXT:    %[[SHARED:.*]] = tile.read %[[SPILL]] : !tile.var<16x64xf32>
// CHECK-NEXT:    tile.store %[[SHARED]], %{{.*}}[%{{.*}}, %{{.*}}] : tensor<16x64xf32> -> !tile.tensor<[16, 64], f32>
// CHECK-NEXT:    %[[RS:.*]] = tile.rowsum %[[SHARED]] : tensor<16x64xf32> -> tensor<16x1xf32>
// CHECK-NOT:     tile.fold
// CHECK-NOT:     tile.var "acc"

// ONCE-LABEL: tile.kernel @squares
// ONCE:         scf.for
// ONCE:           tile.read %{{.*}} : !tile.var<16x64xf32>
// ONCE:           tile.read %{{.*}} : !tile.var<16x64xf32>
// ONCE:           scf.yield
// ONCE-NEXT:    }
// ONCE-NEXT:    tile.var "acc" = %{{.*}} {tile.spill_of = "acc"}
// ONCE-NEXT:    tile.read %{{.*}} : !tile.var<16x64xf32>
