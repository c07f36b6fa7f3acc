// RUN: tile-opt %s -split-input-file --pass-pipeline='builtin.module(tile.kernel(tile-promote-registers,tile-plan-shared,tile-insert-barriers),tile-to-gpu,canonicalize,cse)' | FileCheck %s

// A register var carried through a loop is a vector iter_arg: the loop
// touches no memory but the global load.
// CHECK-LABEL: gpu.func @carried(
// CHECK: %[[LOOP:.*]] = scf.for %{{.*}} = %c0 to %{{.*}} step %c64 iter_args(%[[ACC:.*]] = %{{.*}}) -> (vector<4xf32>)
// CHECK-NOT: memref.
// CHECK: %[[SQ:.*]] = arith.mulf
// CHECK: %[[NEXT:.*]] = arith.addf %[[ACC]], %[[SQ]] fastmath<contract> : vector<4xf32>
// CHECK: scf.yield %[[NEXT]] : vector<4xf32>
// CHECK: vector.extract %[[LOOP]][0]
tile.kernel @carried(%X: !tile.tensor<[16, K], f32>, %O: !tile.tensor<[16, 64], f32>) attributes {threads = 256 : i64, registers = ["acc"]} {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %K = tile.dim %X[1] : !tile.tensor<[16, K], f32>
  %zero = arith.constant dense<0.0> : tensor<16x64xf32>
  %acc = tile.var "acc" = %zero : !tile.var<16x64xf32>
  scf.for %kt = %c0 to %K step %c64 {
    %x = tile.load %X[%c0, %kt] : !tile.tensor<[16, K], f32> -> tensor<16x64xf32>
    %sq = arith.mulf %x, %x : tensor<16x64xf32>
    %a = tile.read %acc : !tile.var<16x64xf32>
    %n = arith.addf %a, %sq : tensor<16x64xf32>
    tile.write %n, %acc : !tile.var<16x64xf32>
  }
  %final = tile.read %acc : !tile.var<16x64xf32>
  tile.store %final, %O[%c0, %c0] : tensor<16x64xf32> -> !tile.tensor<[16, 64], f32>
  tile.return
}

// -----

// if and while on scalars become scf.if and scf.while over the thread's
// scalars; scalar vars are per-thread allocas.
// CHECK-LABEL: gpu.func @branches(
// CHECK: %[[N:.*]] = memref.alloca() : memref<i32>
// CHECK: scf.while : () -> () {
// CHECK: %[[V:.*]] = memref.load %[[N]][]
// CHECK: %[[C:.*]] = arith.cmpi slt, %[[V]], %{{.*}} : i32
// CHECK: scf.condition(%[[C]])
// CHECK: } do {
// CHECK: memref.store %{{.*}}, %[[N]][]
// CHECK: scf.yield
// CHECK: scf.if %{{.*}} {
// CHECK: llvm.store
// CHECK: } else {
// CHECK: llvm.store
tile.kernel @branches(%O: !tile.tensor<[128], i32>) attributes {threads = 128 : i64} {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0 : i32
  %one = arith.constant 1 : i32
  %ten = arith.constant 10 : i32
  %n = tile.var "n" = %zero : !tile.var<i32>
  scf.while : () -> () {
    %v = tile.read %n : !tile.var<i32>
    %c = arith.cmpi slt, %v, %ten : i32
    scf.condition(%c)
  } do {
    %v = tile.read %n : !tile.var<i32>
    %w = arith.addi %v, %one : i32
    tile.write %w, %n : !tile.var<i32>
    scf.yield
  }
  %v = tile.read %n : !tile.var<i32>
  %done = arith.cmpi eq, %v, %ten : i32
  scf.if %done {
    %t = tile.splat %v : tensor<128xi32>
    tile.store %t, %O[%c0] : tensor<128xi32> -> !tile.tensor<[128], i32>
  } else {
    %t = tile.splat %zero : tensor<128xi32>
    tile.store %t, %O[%c0] : tensor<128xi32> -> !tile.tensor<[128], i32>
  }
  tile.return
}
