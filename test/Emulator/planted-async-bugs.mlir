// A GEMM whose dot operands @pipeline stages in shared memory by cp.async
// (3 stages: a wait for all but the newest group, then the barrier, each
// iteration) runs clean; each bug a test pass plants in its lowered code
// is caught, at the .tile-level op it comes from.
//
// RUN: tile-opt %s --mlir-print-debuginfo --pass-pipeline='builtin.module(tile.kernel(tile-pipeline-loads,tile-plan-shared,tile-insert-barriers),tile-to-gpu,gpu.module(canonicalize,cse))' -o %t.mlir
// RUN: tile-emulate %t.mlir --arg 'A=f16[16,K]' --arg 'B=f16[K,32]' --arg 'C=f32[16,32]' --dim K=72 --output C --fill ones | FileCheck %s --check-prefix=CLEAN
// CLEAN: C f32[16, 32]: sum 36864, first 72 72 72
//
// No wait: iteration 0 reads its stage while the copies are in flight.
// RUN: tile-opt %t.mlir --mlir-print-debuginfo --tile-test-drop-async-waits | not tile-emulate --arg 'A=f16[16,K]' --arg 'B=f16[K,32]' --arg 'C=f32[16,32]' --dim K=72 2>&1 | FileCheck %s --check-prefix=NO-WAIT
// NO-WAIT: error: emulate: read of byte {{[0-9]+}} of shared memory, the destination of a cp.async of thread ({{[0-9]+}}, 0, 0) that is still in flight: no cp.async.wait_group of that thread covers it yet
// NO-WAIT: note: the cp.async
//
// A wait of the wrong depth (2 pending, not 1): the stage of the
// iteration has not landed.
// RUN: tile-opt %t.mlir --mlir-print-debuginfo --tile-test-shallow-async-waits | not tile-emulate --arg 'A=f16[16,K]' --arg 'B=f16[K,32]' --arg 'C=f32[16,32]' --dim K=72 2>&1 | FileCheck %s --check-prefix=SHALLOW
// SHALLOW: error: emulate: read of byte {{[0-9]+}} of shared memory, the destination of a cp.async of thread ({{[0-9]+}}, 0, 0) that is still in flight
//
// No barrier after the wait: a thread reads what another's copy wrote
// with no barrier between (or before it landed).
// RUN: tile-opt %t.mlir --mlir-print-debuginfo --tile-test-drop-barriers-after-waits | not tile-emulate --arg 'A=f16[16,K]' --arg 'B=f16[K,32]' --arg 'C=f32[16,32]' --dim K=72 2>&1 | FileCheck %s --check-prefix=NO-BARRIER
// NO-BARRIER: error: emulate: {{shared-memory race|read of byte}}
tile.kernel @gemm(%A: !tile.tensor<[16, K], f16>, %B: !tile.tensor<[K, 32], f16>, %C: !tile.tensor<[16, 32], f32>) attributes {threads = 64 : i64, pipeline = {names = ["k"], stages = 3 : i64}} {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %K = tile.dim %A[1] : !tile.tensor<[16, K], f16>
  %zero = arith.constant dense<0.0> : tensor<16x32xf32>
  %sum = scf.for %k = %c0 to %K step %c16 iter_args(%acc = %zero) -> (tensor<16x32xf32>) {
    %a = tile.load %A[%c0, %k] : !tile.tensor<[16, K], f16> -> tensor<16x16xf16>
    %b = tile.load %B[%k, %c0] : !tile.tensor<[K, 32], f16> -> tensor<16x32xf16>
    %d = tile.dot %a, %b : tensor<16x16xf16>, tensor<16x32xf16> -> tensor<16x32xf32>
    %n = arith.addf %acc, %d : tensor<16x32xf32>
    scf.yield %n : tensor<16x32xf32>
  } {tile.index = "k"}
  tile.store %sum, %C[%c0, %c0] : tensor<16x32xf32> -> !tile.tensor<[16, 32], f32>
  tile.return
}
