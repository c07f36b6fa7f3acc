// RUN: tile-opt %s -split-input-file --pass-pipeline='builtin.module(tile.kernel(tile-plan-shared,tile-insert-barriers))' -verify-diagnostics

// A barrier every thread must reach, under control flow only some threads
// take, would hang the CTA: an error, whether planned or written.
tile.kernel @divergent(%X: !tile.tensor<[16, 48], f32>, %S: !tile.tensor<[16, 1], f32>) attributes {threads = 128 : i64} {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %tid = tile.thread_id
  %low = arith.cmpi ult, %tid, %c64 : index
  // expected-note @+1 {{this control flow}}
  scf.if %low {
    // expected-error @+1 {{this barrier waits for every thread of the CTA, but the control flow around it depends on ctx.thread, so not every thread of the CTA would reach it}}
    tile.barrier
  }
  tile.return
}
