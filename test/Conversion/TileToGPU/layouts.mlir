// RUN: tile-opt %s --pass-pipeline='builtin.module(tile.kernel(tile-plan-shared,tile-assign-layouts,tile-insert-barriers),tile-to-gpu,canonicalize,cse)' | FileCheck %s

// A tile laid out in runs of 4 f32 (#tile.blocked<vector = 4>) is read and
// written 16 bytes at a time where the slice is inside its tensor and its
// runs aligned (the column offset and the row pitch multiples of 4: the
// offset, a loop index stepping by 128 from 0, always is; the pitch is
// checked at run time), and element by element, checked, otherwise.
// CHECK-LABEL: gpu.func @scale
// CHECK: scf.for
// CHECK: arith.remsi %{{.*}}, %c4 : index
// CHECK-NOT: arith.remsi
// CHECK: scf.if %{{.*}} -> (vector<16xf32>)
// CHECK-COUNT-4: llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xf32>
// CHECK: } else {
// CHECK: llvm.load %{{.*}} : !llvm.ptr<1> -> f32
// CHECK: arith.mulf {{.*}} : vector<16xf32>
// CHECK: scf.if
// CHECK-COUNT-4: llvm.store %{{.*}} {alignment = 16 : i64} : vector<4xf32>, !llvm.ptr<1>
// CHECK: } else {
// CHECK: llvm.store %{{.*}} : f32, !llvm.ptr<1>
tile.kernel @scale(%X: !tile.tensor<[M, N], f32>, %S: !tile.tensor<[M, 1], f32>, %Y: !tile.tensor<[M, N], f32>) attributes {threads = 128 : i64} {
  %c0 = arith.constant 0 : index
  %c128 = arith.constant 128 : index
  %N = tile.dim %X[1] : !tile.tensor<[M, N], f32>
  %s = tile.load %S[%c0, %c0] : !tile.tensor<[M, 1], f32> -> tensor<16x1xf32>
  %sv = tile.var "scale" = %s : !tile.var<16x1xf32>
  %sr = tile.read %sv : !tile.var<16x1xf32>
  %b = tile.broadcast %sr : tensor<16x1xf32> -> tensor<16x128xf32>
  scf.for %col = %c0 to %N step %c128 {
    %x = tile.load %X[%c0, %col] : !tile.tensor<[M, N], f32> -> tensor<16x128xf32>
    %y = arith.mulf %x, %b : tensor<16x128xf32>
    tile.store %y, %Y[%c0, %col] : tensor<16x128xf32> -> !tile.tensor<[M, N], f32>
  }
  tile.return
}
