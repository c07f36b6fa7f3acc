// RUN: tile-opt %s -split-input-file --pass-pipeline='builtin.module(tile.kernel(tile-plan-shared{report=true},tile-insert-barriers),tile-to-gpu,canonicalize,cse)' 2>%t.remarks | FileCheck %s
// RUN: FileCheck %s --check-prefix=REMARK < %t.remarks

// Runs of 4 f32 to the cyclic distribution: element 32 is in thread 8 in
// one and thread 32 in the other, another warp, so the elements move
// through a shared scratch var of the tile's shape (tile-plan-shared adds
// it): each holder writes its elements, a barrier, each thread reads its
// own.
// REMARK: remark: layout conversion from #tile.blocked<vector = 4> to #tile.blocked<vector = 1>: shared memory
// CHECK-LABEL: gpu.func @runs_to_seed(
// CHECK-SAME: workgroup(%{{.*}} : memref<8192xi8, #gpu.address_space<workgroup>>)
// CHECK-COUNT-16: memref.store %{{.*}}, %{{.*}}[%{{.*}}] : memref<2048xf32, #gpu.address_space<workgroup>>
// CHECK: gpu.barrier
// CHECK-COUNT-16: memref.load %{{.*}}[%{{.*}}] : memref<2048xf32, #gpu.address_space<workgroup>>
// CHECK-NOT: gpu.barrier
// CHECK: gpu.return
tile.kernel @runs_to_seed(%X: !tile.tensor<[16, 128], f32>, %Y: !tile.tensor<[16, 128], f32>) attributes {threads = 128 : i64} {
  %c0 = arith.constant 0 : index
  %x = tile.load %X[%c0, %c0] : !tile.tensor<[16, 128], f32> -> tensor<16x128xf32, #tile.blocked<vector = 4>>
  %y = tile.convert_layout %x : tensor<16x128xf32, #tile.blocked<vector = 4>> -> tensor<16x128xf32, #tile.blocked<vector = 1>>
  tile.store %y, %Y[%c0, %c0] : tensor<16x128xf32, #tile.blocked<vector = 1>> -> !tile.tensor<[16, 128], f32>
  tile.return
}

// -----

// The same in a loop: the next iteration's writes wait for this one's reads
// (tile-insert-barriers), besides the conversion's own barrier.
// REMARK: remark: layout conversion from #tile.blocked<vector = 4> to #tile.blocked<vector = 1>: shared memory
// CHECK-LABEL: gpu.func @runs_to_seed_in_loop(
// CHECK: scf.for
// CHECK: gpu.barrier
// CHECK: memref.store %{{.*}} : memref<2048xf32, #gpu.address_space<workgroup>>
// CHECK: gpu.barrier
// CHECK: memref.load %{{.*}} : memref<2048xf32, #gpu.address_space<workgroup>>
// CHECK-NOT: gpu.barrier
// CHECK: gpu.return
tile.kernel @runs_to_seed_in_loop(%X: !tile.tensor<[16, N], f32>, %Y: !tile.tensor<[16, N], f32>) attributes {threads = 128 : i64} {
  %c0 = arith.constant 0 : index
  %c128 = arith.constant 128 : index
  %n = tile.dim %X[1] : !tile.tensor<[16, N], f32>
  scf.for %col = %c0 to %n step %c128 {
    %x = tile.load %X[%c0, %col] : !tile.tensor<[16, N], f32> -> tensor<16x128xf32, #tile.blocked<vector = 4>>
    %y = tile.convert_layout %x : tensor<16x128xf32, #tile.blocked<vector = 4>> -> tensor<16x128xf32, #tile.blocked<vector = 1>>
    tile.store %y, %Y[%c0, %col] : tensor<16x128xf32, #tile.blocked<vector = 1>> -> !tile.tensor<[16, N], f32>
  }
  tile.return
}

// -----

// A row result of rows of 8 in one warp (#tile.rows: lanes 8r to 8r + 7
// hold row r) to the cyclic distribution (row r in lane r): the holder of
// row r is lane 8r of the same warp, in the same slot, so one indexed
// shuffle moves it; no shared memory.
// REMARK: remark: layout conversion from #tile.rows<columns = 8, parent = #tile.blocked<vector = 1>> to #tile.blocked<vector = 1>: shuffles
// CHECK-LABEL: gpu.func @row_result_by_shuffle(
// CHECK-NOT: workgroup
// CHECK-COUNT-3: gpu.shuffle  xor
// CHECK: %[[LANE:.*]] = arith.index_cast %{{.*}} : index to i32
// CHECK: gpu.shuffle  idx %{{.*}}, %[[LANE]], %{{.*}} : f32
// CHECK-NOT: gpu.shuffle
// CHECK-NOT: gpu.barrier
// CHECK: gpu.return
tile.kernel @row_result_by_shuffle(%X: !tile.tensor<[4, 8], f32>, %S: !tile.tensor<[4, 1], f32>) attributes {threads = 32 : i64} {
  %c0 = arith.constant 0 : index
  %x = tile.load %X[%c0, %c0] : !tile.tensor<[4, 8], f32> -> tensor<4x8xf32>
  %s = tile.rowsum %x : tensor<4x8xf32> -> tensor<4x1xf32>
  %t = tile.convert_layout %s : tensor<4x1xf32> -> tensor<4x1xf32, #tile.blocked<vector = 1>>
  %u = arith.mulf %t, %t : tensor<4x1xf32, #tile.blocked<vector = 1>>
  tile.store %u, %S[%c0, %c0] : tensor<4x1xf32, #tile.blocked<vector = 1>> -> !tile.tensor<[4, 1], f32>
  tile.return
}

// -----

// Rows of one column: every thread already holds its row's result where
// the cyclic distribution puts it, so the conversion stays in the thread
// (a permutation of its own slots, here the identity).
// REMARK: remark: layout conversion from #tile.rows<columns = 1, parent = #tile.blocked<vector = 1>> to #tile.blocked<vector = 1>: registers
// CHECK-LABEL: gpu.func @in_thread(
// CHECK-NOT: workgroup
// CHECK-NOT: gpu.shuffle
// CHECK-NOT: gpu.barrier
// CHECK: gpu.return
tile.kernel @in_thread(%X: !tile.tensor<[64, 1], f32>, %S: !tile.tensor<[64, 1], f32>) attributes {threads = 32 : i64} {
  %c0 = arith.constant 0 : index
  %x = tile.load %X[%c0, %c0] : !tile.tensor<[64, 1], f32> -> tensor<64x1xf32, #tile.blocked<vector = 1>>
  %s = tile.rowmax %x : tensor<64x1xf32, #tile.blocked<vector = 1>> -> tensor<64x1xf32>
  %t = tile.convert_layout %s : tensor<64x1xf32> -> tensor<64x1xf32, #tile.blocked<vector = 1>>
  %u = arith.addf %t, %x : tensor<64x1xf32, #tile.blocked<vector = 1>>
  tile.store %u, %S[%c0, %c0] : tensor<64x1xf32, #tile.blocked<vector = 1>> -> !tile.tensor<[64, 1], f32>
  tile.return
}

// -----

// A row result of rows that span four warps to the cyclic distribution:
// the reduction's partials meet in its scratch var, and the conversion
// moves the results between warps through its own.
// REMARK: remark: layout conversion from #tile.rows<columns = 128, parent = #tile.blocked<vector = 1>> to #tile.blocked<vector = 1>: shared memory
// Both vars start at byte 0 (their live ranges do not meet), so a barrier
// orders the partials' last reads before the conversion's writes.
// CHECK-LABEL: gpu.func @row_result_through_shared(
// CHECK-COUNT-20: gpu.shuffle  xor
// CHECK: memref.store %{{.*}} : memref<16xf32, #gpu.address_space<workgroup>>
// CHECK: gpu.barrier
// CHECK: memref.load %{{.*}} : memref<16xf32, #gpu.address_space<workgroup>>
// CHECK: gpu.barrier
// CHECK: memref.store %{{.*}} : memref<4xf32, #gpu.address_space<workgroup>>
// CHECK: gpu.barrier
// CHECK: memref.load %{{.*}} : memref<4xf32, #gpu.address_space<workgroup>>
// CHECK-NOT: gpu.barrier
// CHECK: arith.subf
// CHECK: gpu.return
tile.kernel @row_result_through_shared(%X: !tile.tensor<[4, 128], f32>, %S: !tile.tensor<[4, 1], f32>) attributes {threads = 128 : i64} {
  %c0 = arith.constant 0 : index
  %x = tile.load %X[%c0, %c0] : !tile.tensor<[4, 128], f32> -> tensor<4x128xf32>
  %s = tile.rowmax %x : tensor<4x128xf32> -> tensor<4x1xf32>
  %t = tile.convert_layout %s : tensor<4x1xf32> -> tensor<4x1xf32, #tile.blocked<vector = 1>>
  %u = arith.subf %t, %t : tensor<4x1xf32, #tile.blocked<vector = 1>>
  tile.store %u, %S[%c0, %c0] : tensor<4x1xf32, #tile.blocked<vector = 1>> -> !tile.tensor<[4, 1], f32>
  tile.return
}
