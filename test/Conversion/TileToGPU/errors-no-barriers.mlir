// RUN: tile-opt %s --tile-to-gpu -verify-diagnostics

// tile-to-gpu emits the barriers tile-insert-barriers placed; a kernel it
// has not seen has no plan, which is an error rather than a kernel with
// none.
// expected-error @+1 {{kernel 'unsynchronized' has no barrier plan: run tile-insert-barriers before tile-to-gpu}}
tile.kernel @unsynchronized(%A: !tile.tensor<[16, 64], f32>) attributes {threads = 128 : i64} {
  tile.return
}
