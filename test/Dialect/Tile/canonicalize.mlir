// RUN: tile-opt %s -split-input-file --canonicalize | FileCheck %s --implicit-check-not=tile.transpose

// The folders of tile.dot and tile.transpose: a dot of a transposed right
// operand reads the operand transposed (no transposed copy is left), and a
// transpose of a transpose is its input.

// CHECK-LABEL: tile.kernel @dot_of_transpose(
// CHECK: %[[K:.*]] = tile.load %arg1
// CHECK: tile.dot %{{.*}}, %[[K]] rhs_transposed : tensor<16x32xf16>, tensor<64x32xf16> -> tensor<16x64xf32>
tile.kernel @dot_of_transpose(%Q: !tile.tensor<[16, 32], f16>, %K: !tile.tensor<[64, 32], f16>, %S: !tile.tensor<[16, 64], f32>) attributes {threads = 128 : i64} {
  %c0 = arith.constant 0 : index
  %q = tile.load %Q[%c0, %c0] : !tile.tensor<[16, 32], f16> -> tensor<16x32xf16>
  %k = tile.load %K[%c0, %c0] : !tile.tensor<[64, 32], f16> -> tensor<64x32xf16>
  %kt = tile.transpose %k : tensor<64x32xf16> -> tensor<32x64xf16>
  %s = tile.dot %q, %kt : tensor<16x32xf16>, tensor<32x64xf16> -> tensor<16x64xf32>
  tile.store %s, %S[%c0, %c0] : tensor<16x64xf32> -> !tile.tensor<[16, 64], f32>
  tile.return
}

// -----

// dot(a, transpose(transpose(b))) is dot(a, b); a transposed operand of a
// dot already reading it transposed is read as it is.
// CHECK-LABEL: tile.kernel @double(
// CHECK: %[[B:.*]] = tile.load %arg1
// CHECK: tile.dot %{{.*}}, %[[B]] : tensor<16x32xf32>, tensor<32x64xf32> -> tensor<16x64xf32>
// CHECK: tile.dot %{{.*}}, %[[B]] : tensor<16x32xf32>, tensor<32x64xf32> -> tensor<16x64xf32>
tile.kernel @double(%A: !tile.tensor<[16, 32], f32>, %B: !tile.tensor<[32, 64], f32>, %C: !tile.tensor<[16, 64], f32>) attributes {threads = 128 : i64} {
  %c0 = arith.constant 0 : index
  %a = tile.load %A[%c0, %c0] : !tile.tensor<[16, 32], f32> -> tensor<16x32xf32>
  %b = tile.load %B[%c0, %c0] : !tile.tensor<[32, 64], f32> -> tensor<32x64xf32>
  %bt = tile.transpose %b : tensor<32x64xf32> -> tensor<64x32xf32>
  %btt = tile.transpose %bt : tensor<64x32xf32> -> tensor<32x64xf32>
  %c = tile.dot %a, %btt : tensor<16x32xf32>, tensor<32x64xf32> -> tensor<16x64xf32>
  %d = tile.dot %a, %bt rhs_transposed : tensor<16x32xf32>, tensor<64x32xf32> -> tensor<16x64xf32>
  %e = arith.addf %c, %d : tensor<16x64xf32>
  tile.store %e, %C[%c0, %c0] : tensor<16x64xf32> -> !tile.tensor<[16, 64], f32>
  tile.return
}
