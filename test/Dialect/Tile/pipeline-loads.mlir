// RUN: tile-opt %s -split-input-file --pass-pipeline='builtin.module(tile.kernel(tile-pipeline-loads))' | FileCheck %s
// RUN: tile-opt %s -split-input-file --pass-pipeline='builtin.module(tile.kernel(tile-pipeline-loads{remarks=true}))' \
// RUN:   --mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK

// stages = 3: the slices of the first two iterations are loaded before the
// loop; each iteration first loads the slice two iterations later (its
// offset recomputed from kt + 2 * 64) and uses the one loaded two
// iterations before, carried with the other in flight.
// CHECK-LABEL: tile.kernel @sum_columns
// CHECK-SAME: tile.pipelined = [#tile.pipelined_loop<loop = "kt", loc = {{.*}}, loads = 1, stages = 3, stagesChosen = "given", ahead = 2, sharedLoads = 0, sharedBytes = 0, elementsPerThread = 8,
// CHECK-SAME: staged = [#tile.staged_load<name = "load", loc = {{.*}}, in = "registers", bytes = 8192, chunkBytes = 0, why = "only the threads that own its elements read it">]>]
// CHECK: %[[FIRST:.*]] = tile.load %arg0[%c0, %c0]
// CHECK: %[[NEXT:.*]] = arith.addi %c0, %{{.*}} : index
// CHECK: %[[SECOND:.*]] = tile.load %arg0[%c0, %[[NEXT]]]
// CHECK: scf.for %[[KT:.*]] = %c0 to %{{.*}} step %c64 iter_args(%[[ACC:.*]] = %{{.*}}, %[[NOW:.*]] = %[[FIRST]], %[[SOON:.*]] = %[[SECOND]])
// CHECK: %[[TWO:.*]] = arith.muli %c64, %c2
// CHECK: %[[AHEAD:.*]] = arith.addi %[[KT]], %[[TWO]]
// CHECK: %[[LATER:.*]] = tile.load %arg0[%c0, %[[AHEAD]]]
// CHECK-NOT: tile.load
// CHECK: %[[SUM:.*]] = arith.addf %[[ACC]], %[[NOW]]
// CHECK: scf.yield %[[SUM]], %[[SOON]], %[[LATER]]
// CHECK: } {tile.index = "kt"}
// REMARK: pipeline-loads.mlir:[[@LINE+7]]:10: remark: loaded 2 iteration(s) ahead (@pipeline) in registers: 2 more tile(s) of 4 element(s) per thread in flight; only the threads that own its elements read it
tile.kernel @sum_columns(%X: !tile.tensor<[16, K], f32>, %O: !tile.tensor<[16, 64], f32>) attributes {threads = 256 : i64, pipeline = {names = ["kt"], stages = 3 : i64}} {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %K = tile.dim %X[1] : !tile.tensor<[16, K], f32>
  %zero = arith.constant dense<0.0> : tensor<16x64xf32>
  %sum = scf.for %kt = %c0 to %K step %c64 iter_args(%acc = %zero) -> (tensor<16x64xf32>) {
    %x = tile.load %X[%c0, %kt] : !tile.tensor<[16, K], f32> -> tensor<16x64xf32>
    %n = arith.addf %acc, %x : tensor<16x64xf32>
    scf.yield %n : tensor<16x64xf32>
  } {tile.index = "kt"}
  tile.store %sum, %O[%c0, %c0] : tensor<16x64xf32> -> !tile.tensor<[16, 64], f32>
  tile.return
}

// -----

// Named by the var it sets: the load into `b`, one iteration ahead, with
// the offset computation (k * 2) recomputed for the next iteration; the
// load into `a`, not named, stays where it is.
// CHECK-LABEL: tile.kernel @by_var
// CHECK: %[[PRE:.*]] = arith.muli %c0, %c2
// CHECK: %[[B0:.*]] = tile.load %arg1[%[[PRE]], %c0]
// CHECK: scf.for %[[K:.*]] = {{.*}} iter_args(%[[B:.*]] = %[[B0]])
// CHECK: %[[NEXT:.*]] = arith.addi %[[K]], %{{.*}}
// CHECK: %[[ROW:.*]] = arith.muli %[[NEXT]], %c2
// CHECK: %[[BN:.*]] = tile.load %arg1[%[[ROW]], %c0]
// CHECK: tile.load %arg0
// CHECK: tile.var "b" = %[[B]]
// CHECK: scf.yield %[[BN]]
// REMARK: pipeline-loads.mlir:[[@LINE+9]]:11: remark: loaded 1 iteration(s) ahead (@pipeline) in registers: 1 more tile(s) of 1 element(s) per thread in flight; only the threads that own its elements read it
tile.kernel @by_var(%A: !tile.tensor<[16, K], f32>, %B: !tile.tensor<[K, 16], f32>, %O: !tile.tensor<[16, 16], f32>) attributes {threads = 256 : i64, pipeline = {names = ["b"], stages = 2 : i64}} {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c8 = arith.constant 8 : index
  %K = tile.dim %A[1] : !tile.tensor<[16, K], f32>
  scf.for %k = %c0 to %K step %c8 {
    %a = tile.load %A[%c0, %k] : !tile.tensor<[16, K], f32> -> tensor<16x16xf32>
    %row = arith.muli %k, %c2 : index
    %b0 = tile.load %B[%row, %c0] : !tile.tensor<[K, 16], f32> -> tensor<16x16xf32>
    %b = tile.var "b" = %b0 : !tile.var<16x16xf32>
    %br = tile.read %b : !tile.var<16x16xf32>
    %s = arith.addf %a, %br : tensor<16x16xf32>
    tile.store %s, %O[%c0, %c0] : tensor<16x16xf32> -> !tile.tensor<[16, 16], f32>
  }
  tile.return
}

// -----

// Without @pipeline nothing changes.
// CHECK-LABEL: tile.kernel @no_pipeline
// CHECK: scf.for
// CHECK-NEXT: tile.load
tile.kernel @no_pipeline(%X: !tile.tensor<[16, K], f32>, %O: !tile.tensor<[16, 64], f32>) attributes {threads = 256 : i64} {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %K = tile.dim %X[1] : !tile.tensor<[16, K], f32>
  scf.for %kt = %c0 to %K step %c64 {
    %x = tile.load %X[%c0, %kt] : !tile.tensor<[16, K], f32> -> tensor<16x64xf32>
    tile.store %x, %O[%c0, %c0] : tensor<16x64xf32> -> !tile.tensor<[16, 64], f32>
  } {tile.index = "kt"}
  tile.return
}

// -----

// The operands of a dot are read across threads: each goes to a ring of
// 3 shared stages by async copies of 16 bytes (8 f16) a thread, one group
// an iteration. Before the loop, the stages of the first two iterations;
// in it, wait for all but the newest group, copy the slice two iterations
// ahead into stage (i + 2) mod 3, and read stage i mod 3, i the
// iteration's number; after it, wait for all.
// CHECK-LABEL: tile.kernel @dot_operands
// The record says, per load, where it is staged, the bytes, the bytes a
// thread copies at a time, and why.
// CHECK-SAME: tile.pipelined = [#tile.pipelined_loop<loop = "k", loc = {{.*}}, loads = 2, stages = 3, stagesChosen = "given", ahead = 2, sharedLoads = 2, sharedBytes = 18432, elementsPerThread = 0,
// CHECK-SAME: staged = [#tile.staged_load<name = "a", loc = {{.*}}, in = "shared", bytes = 6144, chunkBytes = 16, why = "'tile.dot' reads it across threads, so it goes to shared memory anyway, and no register holds it in flight">,
// CHECK-SAME: #tile.staged_load<name = "load", loc = {{.*}}, in = "shared", bytes = 12288, chunkBytes = 16, why = "'tile.dot'
// CHECK-SAME: ]>]
// CHECK: %[[A:.*]] = tile.var "a.stages" {stages = 3 : i64} : !tile.var<32x32xf16>
// CHECK: %[[B:.*]] = tile.var "load.stages" {stages = 3 : i64} : !tile.var<32x64xf16>
// CHECK: %[[A0:.*]] = tile.stage %[[A]][%[[ZERO:.*]] + 0]
// CHECK: tile.copy %arg0[%{{.*}}, %c0{{.*}}] to %[[A0]][%[[ZERO]], %[[ZERO]]] [32, 32] {async, width = 8 : i64}
// CHECK: %[[B0:.*]] = tile.stage %[[B]][%[[ZERO]] + 0]
// CHECK: tile.copy %arg1[%c0{{.*}}, %{{.*}}] to %[[B0]]
// CHECK-NEXT: tile.commit_group
// CHECK: tile.stage %[[A]][%[[ZERO]] + 1]
// CHECK: tile.commit_group
// CHECK: scf.for %[[K:.*]] = %[[LB:.*]] to %{{.*}} step %[[STEP:[^ ]*]] iter_args
// CHECK-NEXT: %[[DIFF:.*]] = arith.subi %[[K]], %[[LB]]
// CHECK-NEXT: %[[I:.*]] = arith.divui %[[DIFF]], %[[STEP]]
// CHECK-NEXT: tile.wait_group 1
// CHECK: %[[BACK:.*]] = tile.stage %[[A]][%[[I]] + 2]
// CHECK-NEXT: tile.copy %arg0[%{{.*}}, %{{.*}}] to %[[BACK]]
// CHECK: tile.stage %[[B]][%[[I]] + 2]
// CHECK: tile.commit_group
// CHECK-NOT: tile.load
// CHECK: %[[FRONT:.*]] = tile.stage %[[A]][%[[I]] + 0]
// CHECK-NEXT: %[[AV:.*]] = tile.read %[[FRONT]]
// CHECK-NEXT: %[[BF:.*]] = tile.stage %[[B]][%[[I]] + 0]
// CHECK-NEXT: %[[BV:.*]] = tile.read %[[BF]]
// CHECK-NEXT: tile.dot %[[AV]], %[[BV]]
// CHECK: } {tile.index = "k"}
// CHECK-NEXT: tile.wait_group 0
// REMARK: pipeline-loads.mlir:[[@LINE+8]]:11: remark: loaded 2 iteration(s) ahead (@pipeline) into 3 shared stages of 2048 B ('a.stages') by cp.async, 16 B a thread at a time: 'tile.dot' reads it across threads, so it goes to shared memory anyway, and no register holds it in flight
// REMARK: pipeline-loads.mlir:[[@LINE+10]]:10: remark: loaded 2 iteration(s) ahead (@pipeline) into 3 shared stages of 4096 B ('load.stages') by cp.async
tile.kernel @dot_operands(%A: !tile.tensor<[32, K], f16>, %B: !tile.tensor<[K, 64], f16>, %C: !tile.tensor<[32, 64], f32>) attributes {threads = 256 : i64, pipeline = {names = ["k"], stages = 3 : i64}} {
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  %K = tile.dim %A[1] : !tile.tensor<[32, K], f16>
  %zero = arith.constant dense<0.0> : tensor<32x64xf32>
  %sum = scf.for %k = %c0 to %K step %c32 iter_args(%acc = %zero) -> (tensor<32x64xf32>) {
    %a0 = tile.load %A[%c0, %k] : !tile.tensor<[32, K], f16> -> tensor<32x32xf16>
    %a = tile.var "a" = %a0 : !tile.var<32x32xf16>
    %av = tile.read %a : !tile.var<32x32xf16>
    %b = tile.load %B[%k, %c0] : !tile.tensor<[K, 64], f16> -> tensor<32x64xf16>
    %d = tile.dot %av, %b : tensor<32x32xf16>, tensor<32x64xf16> -> tensor<32x64xf32>
    %n = arith.addf %acc, %d : tensor<32x64xf32>
    scf.yield %n : tensor<32x64xf32>
  } {tile.index = "k"}
  tile.store %sum, %C[%c0, %c0] : tensor<32x64xf32> -> !tile.tensor<[32, 64], f32>
  tile.return
}

// -----

// shared = false keeps the tiles in flight in registers, dot operands too.
// CHECK-LABEL: tile.kernel @in_registers
// CHECK-SAME: sharedLoads = 0
// CHECK-SAME: elementsPerThread = 12
// CHECK-SAME: staged = [#tile.staged_load<name = "load", loc = {{.*}}, in = "registers", bytes = 2048, chunkBytes = 0, why = "'tile.dot' reads it across threads, and @pipeline says shared = false">
// CHECK-NOT: tile.copy
// CHECK: scf.for {{.*}} iter_args
// REMARK: pipeline-loads.mlir:[[@LINE+7]]:10: remark: loaded 1 iteration(s) ahead (@pipeline) in registers: 1 more tile(s) of 4 element(s) per thread in flight; 'tile.dot' reads it across threads, and @pipeline says shared = false
tile.kernel @in_registers(%A: !tile.tensor<[32, K], f16>, %B: !tile.tensor<[K, 64], f16>, %C: !tile.tensor<[32, 64], f32>) attributes {threads = 256 : i64, pipeline = {names = ["k"], stages = 2 : i64, shared = false}} {
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  %K = tile.dim %A[1] : !tile.tensor<[32, K], f16>
  %zero = arith.constant dense<0.0> : tensor<32x64xf32>
  %sum = scf.for %k = %c0 to %K step %c32 iter_args(%acc = %zero) -> (tensor<32x64xf32>) {
    %a = tile.load %A[%c0, %k] : !tile.tensor<[32, K], f16> -> tensor<32x32xf16>
    %b = tile.load %B[%k, %c0] : !tile.tensor<[K, 64], f16> -> tensor<32x64xf16>
    %d = tile.dot %a, %b : tensor<32x32xf16>, tensor<32x64xf16> -> tensor<32x64xf32>
    %n = arith.addf %acc, %d : tensor<32x64xf32>
    scf.yield %n : tensor<32x64xf32>
  } {tile.index = "k"}
  tile.store %sum, %C[%c0, %c0] : tensor<32x64xf32> -> !tile.tensor<[32, 64], f32>
  tile.return
}
