// RUN: tile-opt %s --pass-pipeline='builtin.module(tile.kernel(tile-promote-registers,tile-plan-shared))' -o %t.once.mlir
// RUN: tile-opt %t.once.mlir --pass-pipeline='builtin.module(tile.kernel(tile-promote-registers,tile-plan-shared))' -o %t.twice.mlir
// RUN: FileCheck %s --input-file=%t.twice.mlir --implicit-check-not=storage
// RUN: tile-opt %t.once.mlir --mlir-print-op-generic | FileCheck %s --check-prefix=GENERIC
// RUN: tile-opt %s -split-input-file --pass-pipeline='builtin.module(tile.kernel(tile-plan-shared))' -verify-diagnostics -o /dev/null

// Planning twice gives the plan of planning once: the whole-warp rowsum
// keeps its one scratch var in shared memory (it went to registers), the
// owner-only var `x` stays the planner's register decision (tile.local, not
// a `storage = registers` request that promotion would act on), and the
// spill of the register tile, which no other thread reads, stays elided.
// CHECK-LABEL: tile.kernel @squares
// CHECK-SAME: tile.elided_spills = ["acc"]
// CHECK-SAME: tile.shared_bytes = 128
// CHECK: tile.var "x" = %{{.*}} {tile.local}
// CHECK-NOT: tile.var "acc"
// CHECK: %[[P:.*]] = tile.var "rowsum.partials" {tile.live = {{.*}}, tile.offset = 0 : i64, tile.temp}
// CHECK-NOT: tile.var "rowsum.partials"
// CHECK: tile.rowsum %{{.*}} through %[[P]]

// The planner's decisions are discardable attributes of the dialect, not
// the `storage` request.
// GENERIC: "tile.var"(%{{.*}}) <{name = "x"{{.*}}}> {tile.local}
tile.kernel @squares(%X: !tile.tensor<[16, K], f32>, %O: !tile.tensor<[16, 64], f32>, %S: !tile.tensor<[16, 1], f32>) attributes {registers = ["acc"], threads = 256 : i64} {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %K = tile.dim %X[1] : !tile.tensor<[16, K], f32>
  %zero = arith.constant dense<0.0> : tensor<16x64xf32>
  %acc = tile.var "acc" = %zero : !tile.var<16x64xf32>
  scf.for %kt = %c0 to %K step %c64 {
    %x = tile.load %X[%c0, %kt] : !tile.tensor<[16, K], f32> -> tensor<16x64xf32>
    %xv = tile.var "x" = %x : !tile.var<16x64xf32>
    %xr = tile.read %xv : !tile.var<16x64xf32>
    %a = tile.read %acc : !tile.var<16x64xf32>
    %sq = arith.mulf %xr, %xr : tensor<16x64xf32>
    %n = arith.addf %a, %sq : tensor<16x64xf32>
    tile.write %n, %acc : !tile.var<16x64xf32>
  }
  %final = tile.read %acc : !tile.var<16x64xf32>
  tile.store %final, %O[%c0, %c0] : tensor<16x64xf32> -> !tile.tensor<[16, 64], f32>
  %s = tile.rowsum %final : tensor<16x64xf32> -> tensor<16x1xf32>
  tile.store %s, %S[%c0, %c0] : tensor<16x1xf32> -> !tile.tensor<[16, 1], f32>
  tile.return
}

// -----

// A @registers request reaching the planner, which does not carry requests
// out, is an error.
tile.kernel @unpromoted(%O: !tile.tensor<[16, 64], f32>) attributes {threads = 256 : i64} {
  %c0 = arith.constant 0 : index
  %zero = arith.constant dense<0.0> : tensor<16x64xf32>
  // expected-error @+1 {{'acc' asks to live in registers (storage = registers), a request that tile-promote-registers carries out: run it before tile-plan-shared}}
  %acc = tile.var "acc" = %zero {storage = #tile.storage<registers>} : !tile.var<16x64xf32>
  %a = tile.read %acc : !tile.var<16x64xf32>
  tile.store %a, %O[%c0, %c0] : tensor<16x64xf32> -> !tile.tensor<[16, 64], f32>
  tile.return
}
