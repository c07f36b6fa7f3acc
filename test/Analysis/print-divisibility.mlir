// RUN: tile-opt %s -split-input-file --pass-pipeline='builtin.module(tile-test-print-divisibility)' -o /dev/null 2>&1 | FileCheck %s --implicit-check-not=error

// The power of two known to divide every index and integer value
// (DivisibilityInfo), after the kernel's size symbols'.

// Constants, a size the launch guarantees divisible by 16 (and one it
// does not), products, sums and a shift, and a loop's index (its lower
// bound's and step's).
// CHECK-LABEL: divisibility of @arith (32 threads)
// CHECK-NEXT:  symbol M: 1
// CHECK-NEXT:  symbol K: 16
// CHECK-NEXT:  24:9 arith.constant: 1073741824
// CHECK-NEXT:  25:10 arith.constant: 8
// CHECK-NEXT:  26:9 arith.constant: 2
// CHECK-NEXT:  27:8 tile.dim: 16
// CHECK-NEXT:  28:8 tile.dim: 1
// CHECK-NEXT:  29:8 arith.muli: 128
// CHECK-NEXT:  30:8 arith.addi: 2
// CHECK-NEXT:  31:8 arith.shli: 33554432
// CHECK-NEXT:  32:8 arith.subi: 1
// CHECK-NEXT:  33:3 scf.for induction variable: 2
// CHECK-NEXT:  34:10 arith.addi: 2
tile.kernel @arith(%X: !tile.tensor<[M, K], f32>) attributes {threads = 32 : i64, tile.divisibility = {K = 16 : i64}} {
  %c0 = arith.constant 0 : index
  %c24 = arith.constant 24 : index
  %c2 = arith.constant 2 : index
  %K = tile.dim %X[1] : !tile.tensor<[M, K], f32>
  %M = tile.dim %X[0] : !tile.tensor<[M, K], f32>
  %a = arith.muli %K, %c24 : index
  %b = arith.addi %a, %c2 : index
  %s = arith.shli %c2, %c24 {} : index
  %d = arith.subi %b, %M : index
  scf.for %i = %c0 to %K step %c2 {
    %j = arith.addi %i, %a : index
  }
  tile.return
}

// -----

// A loop-carried value is a fixpoint over its sources: `col = 0; col +=
// 64` is a multiple of 64, `row = 1; row += 64` of nothing; nested loops
// start where their outer loop's values say. The loop's results are not
// followed through the loop (1), only its iteration arguments.
// CHECK-LABEL: divisibility of @carried (32 threads)
// CHECK-NEXT:  symbol N: 1
// CHECK:       60:10 scf.for result 0: 1
// CHECK-NEXT:  60:10 scf.for result 1: 1
// CHECK-NEXT:  60:10 scf.for induction variable: 1
// CHECK-NEXT:  60:10 scf.for iter_arg 0: 64
// CHECK-NEXT:  60:10 scf.for iter_arg 1: 1
// CHECK-NEXT:  61:13 arith.addi: 64
// CHECK-NEXT:  62:13 arith.addi: 1
// CHECK-NEXT:  63:5 scf.for induction variable: 64
tile.kernel @carried(%X: !tile.tensor<[16, N], f32>) attributes {threads = 32 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %N = tile.dim %X[1] : !tile.tensor<[16, N], f32>
  %r:2 = scf.for %i = %c0 to %N step %c1 iter_args(%col = %c0, %row = %c1) -> (index, index) {
    %ncol = arith.addi %col, %c64 : index
    %nrow = arith.addi %row, %c64 : index
    scf.for %j = %ncol to %N step %c64 {
    }
    scf.yield %ncol, %nrow : index, index
  }
  tile.return
}

// -----

// Scalars in branches: an scf.if's result is no better known than 1 (no
// rule for it), and the select of two multiples of 8 is a multiple of 8.
// Several kernels in one module each get their heading.
// CHECK-LABEL: divisibility of @branches (64 threads)
// CHECK:       85:8 arith.select: 8
// CHECK-NEXT:  86:8 scf.if: 1
// CHECK-LABEL: divisibility of @static (32 threads)
// CHECK-NOT:   symbol
// CHECK-NEXT:  94:9 arith.constant: 1
tile.kernel @branches(%X: !tile.tensor<[16, 64], f32>, %n: i32) attributes {threads = 64 : i64} {
  %c8 = arith.constant 8 : i32
  %c16 = arith.constant 16 : i32
  %p = arith.cmpi sgt, %n, %c8 : i32
  %s = arith.select %p, %c8, %c16 : i32
  %t = scf.if %p -> (i32) {
    scf.yield %c8 : i32
  } else {
    scf.yield %c16 : i32
  }
  tile.return
}
tile.kernel @static(%X: !tile.tensor<[16, 64], f32>) attributes {threads = 32 : i64} {
  %c3 = arith.constant 3 : index
  tile.return
}
