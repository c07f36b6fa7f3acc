// RUN: tile-opt %s -split-input-file --pass-pipeline='builtin.module(tile.kernel(tile-plan-shared,tile-insert-barriers),tile-to-gpu,canonicalize,cse)' | FileCheck %s

// Rows of 32 f32 elements are runs of 32 lanes: a butterfly of five
// shuffles leaves each row's sum in every lane of the row, and a broadcast
// back over the row is free (no shared memory at all).
// CHECK-LABEL: gpu.func @rowsum_32_f32(
// CHECK-NOT: workgroup
// CHECK-DAG: %[[W:.*]] = arith.constant 32 : i32
// CHECK-DAG: %[[C16:.*]] = arith.constant 16 : i32
// CHECK-DAG: %[[C8:.*]] = arith.constant 8 : i32
// CHECK-DAG: %[[C4:.*]] = arith.constant 4 : i32
// CHECK-DAG: %[[C2:.*]] = arith.constant 2 : i32
// CHECK-DAG: %[[C1:.*]] = arith.constant 1 : i32
// CHECK: %[[S16:.*]], %{{.*}} = gpu.shuffle  xor %[[V:.*]], %[[C16]], %[[W]] : f32
// CHECK: %[[A16:.*]] = arith.addf %[[V]], %[[S16]] fastmath<contract> : f32
// CHECK: gpu.shuffle  xor %[[A16]], %[[C8]], %[[W]] : f32
// CHECK: gpu.shuffle  xor %{{.*}}, %[[C4]], %[[W]] : f32
// CHECK: gpu.shuffle  xor %{{.*}}, %[[C2]], %[[W]] : f32
// CHECK: gpu.shuffle  xor %{{.*}}, %[[C1]], %[[W]] : f32
// CHECK-NOT: memref.load
// CHECK-NOT: gpu.barrier
// CHECK: gpu.return
tile.kernel @rowsum_32_f32(%A: !tile.tensor<[8, 32], f32>, %B: !tile.tensor<[8, 32], f32>) attributes {threads = 256 : i64} {
  %c0 = arith.constant 0 : index
  %a = tile.load %A[%c0, %c0] : !tile.tensor<[8, 32], f32> -> tensor<8x32xf32>
  %s = tile.rowsum %a : tensor<8x32xf32> -> tensor<8x1xf32>
  %b = tile.broadcast %s : tensor<8x1xf32> -> tensor<8x32xf32>
  %d = arith.divf %a, %b : tensor<8x32xf32>
  tile.store %d, %B[%c0, %c0] : tensor<8x32xf32> -> !tile.tensor<[8, 32], f32>
  tile.return
}

// -----

// rowmax of i32 rows of 8: a butterfly of three shuffles within runs of 8
// lanes, combined with maxsi. The first lane of each row stores the row's
// result to the tensor itself: no shared memory, no barrier.
// CHECK-LABEL: gpu.func @rowmax_8_i32(
// CHECK-NOT: workgroup
// CHECK-COUNT-3: gpu.shuffle  xor %{{.*}} : i32
// CHECK: arith.maxsi
// CHECK: %[[FIRST:.*]] = arith.cmpi eq, %{{.*}}, %c0 : index
// CHECK: scf.if %[[FIRST]] {
// CHECK: llvm.store %{{.*}} : i32, !llvm.ptr<1>
// CHECK-NOT: gpu.barrier
// CHECK: gpu.return
tile.kernel @rowmax_8_i32(%A: !tile.tensor<[16, 8], i32>, %M: !tile.tensor<[16, 1], i32>) attributes {threads = 128 : i64} {
  %c0 = arith.constant 0 : index
  %a = tile.load %A[%c0, %c0] : !tile.tensor<[16, 8], i32> -> tensor<16x8xi32>
  %m = tile.rowmax %a : tensor<16x8xi32> -> tensor<16x1xi32>
  tile.store %m, %M[%c0, %c0] : tensor<16x1xi32> -> !tile.tensor<[16, 1], i32>
  tile.return
}

// -----

// Rows of 48 are neither within a warp nor whole warps: the tile goes to
// shared memory and, after a barrier, the warp of each row result's owner
// reduces the row, its lanes reading every 32nd element from their own,
// then a butterfly over the warp; the owner (lane j for the warp's j-th
// row) keeps the result.
// CHECK-LABEL: gpu.func @rowsum_48_f32(
// CHECK-SAME: workgroup(%{{.*}} : memref<3072xi8, #gpu.address_space<workgroup>>)
// CHECK: gpu.barrier
// CHECK: %[[LANE:.*]] = arith.remui %[[TID:.*]], %c32 : index
// CHECK: %[[FIRST:.*]] = arith.subi %[[TID]], %[[LANE]] : index
// CHECK: scf.for %[[J:.*]] = %c0 to %c32 step %c1 iter_args(%[[MINE:.*]] = %{{.*}}) -> (f32)
// CHECK: %[[ROW:.*]] = arith.addi %[[FIRST]], %[[J]] : index
// CHECK: %[[IS_ROW:.*]] = arith.cmpi ult, %[[ROW]], %c16 : index
// CHECK: scf.if %[[IS_ROW]] -> (f32)
// CHECK: scf.for %{{.*}} = %[[LANE]] to %c48 step %c32 iter_args(%[[ACC:.*]] = %{{.*}}) -> (f32)
// CHECK: memref.load
// CHECK: arith.addf %[[ACC]]
// CHECK-COUNT-5: gpu.shuffle  xor
// CHECK: %[[IS_MINE:.*]] = arith.cmpi eq, %[[LANE]], %[[J]] : index
// CHECK: arith.select %[[IS_MINE]], %{{.*}}, %[[MINE]] : f32
tile.kernel @rowsum_48_f32(%A: !tile.tensor<[16, 48], f32>, %M: !tile.tensor<[16, 1], f32>) attributes {threads = 128 : i64} {
  %c0 = arith.constant 0 : index
  %a = tile.load %A[%c0, %c0] : !tile.tensor<[16, 48], f32> -> tensor<16x48xf32>
  %m = tile.rowsum %a : tensor<16x48xf32> -> tensor<16x1xf32>
  tile.store %m, %M[%c0, %c0] : tensor<16x1xf32> -> !tile.tensor<[16, 1], f32>
  tile.return
}

// -----

// Rows of 64 are two warps: the tile stays in registers. In each of a
// thread's 8 slots a butterfly over the warp gives the warp's half of a
// row, lane 0 of each warp writes it to the row's entry of the [16, 2] scratch var (128
// bytes), and after one barrier every thread combines its rows' two
// halves. The result is in every lane of the row: the first lane stores it.
// CHECK-LABEL: gpu.func @rowmax_64_f32(
// CHECK-SAME: workgroup(%{{.*}} : memref<128xi8, #gpu.address_space<workgroup>>)
// CHECK: %[[PARTIALS:.*]] = memref.view %{{.*}} to memref<32xf32, #gpu.address_space<workgroup>>
// CHECK-NOT: gpu.barrier
// CHECK-COUNT-40: gpu.shuffle  xor %{{.*}}, %c32_i32 : f32
// CHECK: %[[LANE:.*]] = arith.andi %{{.*}}, %c31 : index
// CHECK: %[[LANE0:.*]] = arith.cmpi eq, %[[LANE]], %c0 : index
// CHECK: scf.if %[[LANE0]] {
// CHECK-NEXT: memref.store %{{.*}}, %[[PARTIALS]][%{{.*}}]
// CHECK-COUNT-7: memref.store %{{.*}}, %[[PARTIALS]]
// CHECK: gpu.barrier
// CHECK-NOT: gpu.barrier
// CHECK: %[[A:.*]] = memref.load %[[PARTIALS]]
// CHECK: %[[B:.*]] = memref.load %[[PARTIALS]]
// CHECK: arith.maximumf %[[A]], %[[B]] : f32
// CHECK-COUNT-7: arith.maximumf %{{.*}}, %{{.*}} : f32
// CHECK: llvm.store
// CHECK-NOT: gpu.barrier
// CHECK: gpu.return
tile.kernel @rowmax_64_f32(%A: !tile.tensor<[16, 64], f32>, %M: !tile.tensor<[16, 1], f32>) attributes {threads = 128 : i64} {
  %c0 = arith.constant 0 : index
  %a = tile.load %A[%c0, %c0] : !tile.tensor<[16, 64], f32> -> tensor<16x64xf32>
  %m = tile.rowmax %a : tensor<16x64xf32> -> tensor<16x1xf32>
  tile.store %m, %M[%c0, %c0] : tensor<16x1xf32> -> !tile.tensor<[16, 1], f32>
  tile.return
}

// -----

// i32 rows of 96 are three warps, and with 64 threads a row's warps are
// spread over a thread's slots: each row still has one partial a warp, in
// a [4, 3] scratch var, combined with addi.
// CHECK-LABEL: gpu.func @rowsum_96_i32(
// CHECK-SAME: workgroup(%{{.*}} : memref<48xi8, #gpu.address_space<workgroup>>)
// CHECK-COUNT-30: gpu.shuffle  xor %{{.*}} : i32
// CHECK: gpu.barrier
// CHECK-COUNT-2: arith.addi %{{.*}}, %{{.*}} : i32
tile.kernel @rowsum_96_i32(%A: !tile.tensor<[4, 96], i32>, %M: !tile.tensor<[4, 1], i32>) attributes {threads = 64 : i64} {
  %c0 = arith.constant 0 : index
  %a = tile.load %A[%c0, %c0] : !tile.tensor<[4, 96], i32> -> tensor<4x96xi32>
  %m = tile.rowsum %a : tensor<4x96xi32> -> tensor<4x1xi32>
  tile.store %m, %M[%c0, %c0] : tensor<4x1xi32> -> !tile.tensor<[4, 1], i32>
  tile.return
}

// -----

// f16 rows are not folded where they live; their sum accumulates in f32,
// through shared memory, and the butterfly exchanges f32.
// CHECK-LABEL: gpu.func @rowsum_f16(
// CHECK: scf.for {{.*}} -> (f32)
// CHECK: arith.extf %{{.*}} : f16 to f32
// CHECK: gpu.shuffle  xor %{{.*}} : f32
// CHECK: arith.truncf %{{.*}} : f32 to f16
tile.kernel @rowsum_f16(%A: !tile.tensor<[16, 32], f16>, %M: !tile.tensor<[16, 1], f16>) attributes {threads = 128 : i64} {
  %c0 = arith.constant 0 : index
  %a = tile.load %A[%c0, %c0] : !tile.tensor<[16, 32], f16> -> tensor<16x32xf16>
  %m = tile.rowsum %a : tensor<16x32xf16> -> tensor<16x1xf16>
  tile.store %m, %M[%c0, %c0] : tensor<16x1xf16> -> !tile.tensor<[16, 1], f16>
  tile.return
}

// -----

// rowmax starts from -inf.
// CHECK-LABEL: gpu.func @rowmax_24_f32(
// CHECK: arith.constant 0xFF800000 : f32
// CHECK: scf.for
// CHECK: arith.maximumf
tile.kernel @rowmax_24_f32(%A: !tile.tensor<[16, 24], f32>, %M: !tile.tensor<[16, 1], f32>) attributes {threads = 128 : i64} {
  %c0 = arith.constant 0 : index
  %a = tile.load %A[%c0, %c0] : !tile.tensor<[16, 24], f32> -> tensor<16x24xf32>
  %m = tile.rowmax %a : tensor<16x24xf32> -> tensor<16x1xf32>
  tile.store %m, %M[%c0, %c0] : tensor<16x1xf32> -> !tile.tensor<[16, 1], f32>
  tile.return
}

// -----

// rowmin of f32 rows of 16: a butterfly of four shuffles over 16 lanes,
// combined with minimumf (a NaN wins), no shared memory.
// CHECK-LABEL: gpu.func @rowmin_16_f32(
// CHECK-NOT: workgroup
// CHECK-COUNT-4: arith.minimumf
// CHECK-NOT: gpu.barrier
// CHECK: llvm.store %{{.*}} : f32, !llvm.ptr<1>
// CHECK: gpu.return
tile.kernel @rowmin_16_f32(%A: !tile.tensor<[8, 16], f32>, %M: !tile.tensor<[8, 1], f32>) attributes {threads = 128 : i64} {
  %c0 = arith.constant 0 : index
  %a = tile.load %A[%c0, %c0] : !tile.tensor<[8, 16], f32> -> tensor<8x16xf32>
  %m = tile.rowmin %a : tensor<8x16xf32> -> tensor<8x1xf32>
  tile.store %m, %M[%c0, %c0] : tensor<8x1xf32> -> !tile.tensor<[8, 1], f32>
  tile.return
}

// -----

// rowargmax goes through shared memory whatever the row: after a barrier
// each row's warp reads its elements as (value, column) pairs, starting
// at no column (2^31 - 1), and a butterfly shuffles both halves of the
// pair: a NaN beats a number, a greater value beats a smaller, and equal
// values keep the smaller column.
// CHECK-LABEL: gpu.func @rowargmax_16_f32(
// CHECK-SAME: workgroup
// CHECK: memref.store
// CHECK: gpu.barrier
// CHECK: scf.for {{.*}} iter_args(%{{.*}} = %{{.*}}, %{{.*}} = %c2147483647_i32) -> (f32, i32)
// CHECK: memref.load
// CHECK: arith.cmpf uno
// CHECK: arith.cmpf ogt
// CHECK: arith.cmpf oeq
// CHECK: arith.cmpi slt
// CHECK: %[[V:.*]], %{{.*}} = gpu.shuffle  xor %{{.*}}, %c16_i32, %c32_i32 : f32
// CHECK-NEXT: %[[I:.*]], %{{.*}} = gpu.shuffle  xor %{{.*}}, %c16_i32, %c32_i32 : i32
// CHECK: arith.cmpi slt, %[[I]], %{{.*}} : i32
// CHECK: llvm.store %{{.*}} : i32, !llvm.ptr<1>
tile.kernel @rowargmax_16_f32(%A: !tile.tensor<[8, 16], f32>, %I: !tile.tensor<[8, 1], i32>) attributes {threads = 128 : i64} {
  %c0 = arith.constant 0 : index
  %a = tile.load %A[%c0, %c0] : !tile.tensor<[8, 16], f32> -> tensor<8x16xf32>
  %i = tile.rowargmax %a : tensor<8x16xf32> -> tensor<8x1xi32>
  tile.store %i, %I[%c0, %c0] : tensor<8x1xi32> -> !tile.tensor<[8, 1], i32>
  tile.return
}

// -----

// Column j of a [32, 128] tile over 128 threads is in thread j: colsum is
// 31 adds of each thread's own slots, no shared memory, no shuffle.
// CHECK-LABEL: gpu.func @colsum_in_thread(
// CHECK-NOT: workgroup
// CHECK-COUNT-31: arith.addf
// CHECK-NOT: gpu.shuffle
// CHECK-NOT: gpu.barrier
// CHECK: llvm.store %{{.*}} : f32, !llvm.ptr<1>
// CHECK: gpu.return
tile.kernel @colsum_in_thread(%A: !tile.tensor<[32, 128], f32>, %S: !tile.tensor<[1, 128], f32>) attributes {threads = 128 : i64} {
  %c0 = arith.constant 0 : index
  %a = tile.load %A[%c0, %c0] : !tile.tensor<[32, 128], f32> -> tensor<32x128xf32>
  %s = tile.colsum %a : tensor<32x128xf32> -> tensor<1x128xf32>
  tile.store %s, %S[%c0, %c0] : tensor<1x128xf32> -> !tile.tensor<[1, 128], f32>
  tile.return
}

// -----

// In a CTA of one warp, column j of a [16, 8] tile is in lanes j, j + 8,
// j + 16, j + 24: each lane folds its 4 slots, then shuffles 16 and 8
// lanes apart fold the column.
// CHECK-LABEL: gpu.func @colmax_in_warp(
// CHECK-NOT: workgroup
// CHECK-COUNT-3: arith.maximumf
// CHECK: gpu.shuffle  xor %{{.*}}, %c16_i32, %c32_i32 : f32
// CHECK: arith.maximumf
// CHECK: gpu.shuffle  xor %{{.*}}, %c8_i32, %c32_i32 : f32
// CHECK: arith.maximumf
// CHECK-NOT: gpu.shuffle
// CHECK-NOT: gpu.barrier
// CHECK: llvm.store %{{.*}} : f32, !llvm.ptr<1>
tile.kernel @colmax_in_warp(%A: !tile.tensor<[16, 8], f32>, %S: !tile.tensor<[1, 8], f32>) attributes {threads = 32 : i64} {
  %c0 = arith.constant 0 : index
  %a = tile.load %A[%c0, %c0] : !tile.tensor<[16, 8], f32> -> tensor<16x8xf32>
  %s = tile.colmax %a : tensor<16x8xf32> -> tensor<1x8xf32>
  tile.store %s, %S[%c0, %c0] : tensor<1x8xf32> -> !tile.tensor<[1, 8], f32>
  tile.return
}

// -----

// Columns of 64 over 128 threads are spread over threads: the tile goes to
// shared memory and, after a barrier, a thread per column folds its 32
// elements, starting from the largest i32.
// CHECK-LABEL: gpu.func @colmin_shared(
// CHECK-SAME: workgroup
// CHECK: memref.store
// CHECK: gpu.barrier
// CHECK: scf.for {{.*}} = %c0 to %c32 step %c1 iter_args(%{{.*}} = %c2147483647_i32) -> (i32)
// CHECK: memref.load
// CHECK-NEXT: arith.minsi
// CHECK: llvm.store %{{.*}} : i32, !llvm.ptr<1>
tile.kernel @colmin_shared(%A: !tile.tensor<[32, 64], i32>, %S: !tile.tensor<[1, 64], i32>) attributes {threads = 128 : i64} {
  %c0 = arith.constant 0 : index
  %a = tile.load %A[%c0, %c0] : !tile.tensor<[32, 64], i32> -> tensor<32x64xi32>
  %s = tile.colmin %a : tensor<32x64xi32> -> tensor<1x64xi32>
  tile.store %s, %S[%c0, %c0] : tensor<1x64xi32> -> !tile.tensor<[1, 64], i32>
  tile.return
}

// -----

// A transpose is read across threads: each thread stores its elements of
// the input to shared memory and, after a barrier, reads those of the
// result (4 a thread each way).
// CHECK-LABEL: gpu.func @transpose_shared(
// CHECK-SAME: workgroup
// CHECK-COUNT-4: memref.store
// CHECK: gpu.barrier
// CHECK-COUNT-4: memref.load
// CHECK: gpu.return
tile.kernel @transpose_shared(%A: !tile.tensor<[16, 32], f32>, %B: !tile.tensor<[32, 16], f32>) attributes {threads = 128 : i64} {
  %c0 = arith.constant 0 : index
  %a = tile.load %A[%c0, %c0] : !tile.tensor<[16, 32], f32> -> tensor<16x32xf32>
  %t = tile.transpose %a : tensor<16x32xf32> -> tensor<32x16xf32>
  tile.store %t, %B[%c0, %c0] : tensor<32x16xf32> -> !tile.tensor<[32, 16], f32>
  tile.return
}
