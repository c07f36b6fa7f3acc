// RUN: tile-opt %s -split-input-file --pass-pipeline='builtin.module(tile.kernel(tile-plan-shared))' | FileCheck %s
// RUN: tile-opt %s -split-input-file --pass-pipeline='builtin.module(tile.kernel(tile-plan-shared{report=true}))' \
// RUN:   --mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | FileCheck %s --check-prefix=REPORT

// A var read only by the owner of each element stays in registers; one
// read by a reduction across threads (rows of 48: neither within a warp
// nor whole warps) lives in shared memory.
// CHECK-LABEL: tile.kernel @squares
// CHECK-SAME: tile.shared_bytes = 3072
// CHECK: tile.var "acc" = %{{.*}} {tile.live = "{{.*}}plan-shared.mlir:{{[0-9]+}}-{{[0-9]+}}", tile.offset = 0 : i64}
// CHECK: tile.var "x" = %{{.*}} {tile.local}
// CHECK: tile.rowsum
// CHECK: tile.var "s" = %{{.*}} {tile.local}
// REPORT: remark: 'x' kept in registers (3 per thread): every element is read only by the thread that owns it
// REPORT: remark: 's' kept in registers (1 per thread)
// REPORT: remark: shared-memory plan of 'squares': 3072 bytes, 1 buffer(s)
// REPORT-NEXT: 'acc'               3072 B at offset      0, live lines 23-35
tile.kernel @squares(%X: !tile.tensor<[16, K], f32>, %O: !tile.tensor<[16, 48], f32>, %S: !tile.tensor<[16, 1], f32>) attributes {threads = 256 : i64} {
  %c0 = arith.constant 0 : index
  %c48 = arith.constant 48 : index
  %K = tile.dim %X[1] : !tile.tensor<[16, K], f32>
  %zero = arith.constant dense<0.0> : tensor<16x48xf32>
  %acc = tile.var "acc" = %zero : !tile.var<16x48xf32>
  scf.for %kt = %c0 to %K step %c48 {
    %x0 = tile.load %X[%c0, %kt] : !tile.tensor<[16, K], f32> -> tensor<16x48xf32>
    %xv = tile.var "x" = %x0 : !tile.var<16x48xf32>
    %x = tile.read %xv : !tile.var<16x48xf32>
    %sq = arith.mulf %x, %x : tensor<16x48xf32>
    %a = tile.read %acc : !tile.var<16x48xf32>
    %n = arith.addf %a, %sq : tensor<16x48xf32>
    tile.write %n, %acc : !tile.var<16x48xf32>
  }
  %final = tile.read %acc : !tile.var<16x48xf32>
  tile.store %final, %O[%c0, %c0] : tensor<16x48xf32> -> !tile.tensor<[16, 48], f32>
  %s = tile.rowsum %final : tensor<16x48xf32> -> tensor<16x1xf32>
  %sv = tile.var "s" = %s : !tile.var<16x1xf32>
  %s2 = tile.read %sv : !tile.var<16x1xf32>
  tile.store %s2, %S[%c0, %c0] : tensor<16x1xf32> -> !tile.tensor<[16, 1], f32>
  tile.return
}

// -----

// A value that is not the unchanged content of a shared var is stored into
// a shared temporary right before the op that reads it across threads.
// CHECK-LABEL: tile.kernel @temporaries
// CHECK: %[[P:.*]] = arith.mulf
// CHECK: %[[T:.*]] = tile.var "dot.lhs" = %[[P]] {tile.live = {{.*}}, tile.offset = 0 : i64, tile.temp}
// CHECK: %[[TR:.*]] = tile.read %[[T]]
// CHECK: %[[U:.*]] = tile.var "dot.rhs" = %{{.*}} {tile.live = {{.*}}, tile.offset = 1024 : i64, tile.temp}
// CHECK: %[[UR:.*]] = tile.read %[[U]]
// CHECK: tile.dot %[[TR]], %[[UR]]
tile.kernel @temporaries(%A: !tile.tensor<[16, 16], f32>, %C: !tile.tensor<[16, 16], f32>) attributes {threads = 128 : i64} {
  %c0 = arith.constant 0 : index
  %a = tile.load %A[%c0, %c0] : !tile.tensor<[16, 16], f32> -> tensor<16x16xf32>
  %p = arith.mulf %a, %a : tensor<16x16xf32>
  %d = tile.dot %p, %a : tensor<16x16xf32>, tensor<16x16xf32> -> tensor<16x16xf32>
  tile.store %d, %C[%c0, %c0] : tensor<16x16xf32> -> !tile.tensor<[16, 16], f32>
  tile.return
}

// -----

// A var written between the read and the op reading across threads is
// copied at the op, so the op sees the value that was read.
// CHECK-LABEL: tile.kernel @changed_between
// CHECK: tile.var "t" = %{{.*}} {tile.local}
// CHECK: %[[R:.*]] = tile.read
// CHECK: tile.write
// CHECK: %[[COPY:.*]] = tile.var "t.rowmax" = %[[R]] {{.*}}tile.temp
// CHECK: %[[CR:.*]] = tile.read %[[COPY]]
// CHECK: tile.rowmax %[[CR]]
tile.kernel @changed_between(%A: !tile.tensor<[16, 48], f32>, %M: !tile.tensor<[16, 1], f32>) attributes {threads = 128 : i64} {
  %c0 = arith.constant 0 : index
  %a = tile.load %A[%c0, %c0] : !tile.tensor<[16, 48], f32> -> tensor<16x48xf32>
  %t = tile.var "t" = %a : !tile.var<16x48xf32>
  %r = tile.read %t : !tile.var<16x48xf32>
  %twice = arith.addf %r, %r : tensor<16x48xf32>
  tile.write %twice, %t : !tile.var<16x48xf32>
  %m = tile.rowmax %r : tensor<16x48xf32> -> tensor<16x1xf32>
  tile.store %m, %M[%c0, %c0] : tensor<16x1xf32> -> !tile.tensor<[16, 1], f32>
  tile.return
}

// -----

// Vars never live at once share bytes; vars live at once do not.
// CHECK-LABEL: tile.kernel @reuse
// CHECK-SAME: tile.shared_bytes = 6144
// CHECK: tile.var "a" = {{.*}}tile.offset = 0 : i64
// CHECK: tile.var "b" = {{.*}}tile.offset = 3072 : i64
// CHECK: tile.var "c" = {{.*}}tile.offset = 0 : i64
tile.kernel @reuse(%A: !tile.tensor<[16, 48], f32>, %M: !tile.tensor<[16, 1], f32>) attributes {threads = 128 : i64} {
  %c0 = arith.constant 0 : index
  %x = tile.load %A[%c0, %c0] : !tile.tensor<[16, 48], f32> -> tensor<16x48xf32>
  %a = tile.var "a" = %x : !tile.var<16x48xf32>
  %b = tile.var "b" = %x : !tile.var<16x48xf32>
  %ra = tile.read %a : !tile.var<16x48xf32>
  %rb = tile.read %b : !tile.var<16x48xf32>
  %sa = tile.rowsum %ra : tensor<16x48xf32> -> tensor<16x1xf32>
  %sb = tile.rowsum %rb : tensor<16x48xf32> -> tensor<16x1xf32>
  %c = tile.var "c" = %x : !tile.var<16x48xf32>
  %rc = tile.read %c : !tile.var<16x48xf32>
  %sc = tile.rowmax %rc : tensor<16x48xf32> -> tensor<16x1xf32>
  %s1 = arith.addf %sa, %sb : tensor<16x1xf32>
  %s2 = arith.addf %s1, %sc : tensor<16x1xf32>
  tile.store %s2, %M[%c0, %c0] : tensor<16x1xf32> -> !tile.tensor<[16, 1], f32>
  tile.return
}

// -----

// A shuffle-folded row result read by anything but a free broadcast, a
// store or a var write is converted to the cyclic distribution (the row
// results of 4 warps' rows to the first 16 threads: through shared memory,
// a scratch var the plan adds); a free broadcast and a store read it where
// it is. Before tile-assign-layouts writes the layouts into the types, the
// conversion's result type has none: the cyclic distribution.
// CHECK-LABEL: tile.kernel @row_results
// CHECK: %[[MAX:.*]] = tile.rowmax
// CHECK: %[[T:.*]] = tile.var "rowmax.result" {{.*}}tile.temp
// CHECK: %[[TR:.*]] = tile.convert_layout %[[MAX]] through %[[T]] : tensor<16x1xf32>, !tile.var<16x1xf32> -> tensor<16x1xf32>{{$}}
// CHECK: tile.broadcast %[[MAX]]
// CHECK: tile.store %[[MAX]]
// CHECK: arith.addf %[[TR]], %[[TR]]
tile.kernel @row_results(%A: !tile.tensor<[16, 32], f32>, %B: !tile.tensor<[16, 32], f32>, %M: !tile.tensor<[16, 1], f32>, %N: !tile.tensor<[16, 1], f32>) attributes {threads = 128 : i64} {
  %c0 = arith.constant 0 : index
  %a = tile.load %A[%c0, %c0] : !tile.tensor<[16, 32], f32> -> tensor<16x32xf32>
  %m = tile.rowmax %a : tensor<16x32xf32> -> tensor<16x1xf32>
  %mb = tile.broadcast %m : tensor<16x1xf32> -> tensor<16x32xf32>
  %d = arith.subf %a, %mb : tensor<16x32xf32>
  tile.store %d, %B[%c0, %c0] : tensor<16x32xf32> -> !tile.tensor<[16, 32], f32>
  tile.store %m, %M[%c0, %c0] : tensor<16x1xf32> -> !tile.tensor<[16, 1], f32>
  %twice = arith.addf %m, %m : tensor<16x1xf32>
  tile.store %twice, %N[%c0, %c0] : tensor<16x1xf32> -> !tile.tensor<[16, 1], f32>
  tile.return
}

// -----

// A read before a loop that never writes the var: the op inside the loop
// reads the shared var itself; no copy is made on every iteration.
// CHECK-LABEL: tile.kernel @read_before_loop
// CHECK: %[[W:.*]] = tile.var "w" = %{{.*}} {tile.live = {{.*}}, tile.offset = 0 : i64}
// CHECK: %[[WR:.*]] = tile.read %[[W]]
// CHECK: scf.for
// CHECK-NOT: tile.temp
// CHECK: tile.dot %[[WR]], %{{.*}}
tile.kernel @read_before_loop(%W: !tile.tensor<[32, 32], f32>, %X: !tile.tensor<[32, K], f32>, %O: !tile.tensor<[32, 32], f32>) attributes {threads = 128 : i64} {
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  %K = tile.dim %X[1] : !tile.tensor<[32, K], f32>
  %w0 = tile.load %W[%c0, %c0] : !tile.tensor<[32, 32], f32> -> tensor<32x32xf32>
  %w = tile.var "w" = %w0 : !tile.var<32x32xf32>
  %wr = tile.read %w : !tile.var<32x32xf32>
  scf.for %k = %c0 to %K step %c32 {
    %x0 = tile.load %X[%c0, %k] : !tile.tensor<[32, K], f32> -> tensor<32x32xf32>
    %xv = tile.var "xv" = %x0 : !tile.var<32x32xf32>
    %xr = tile.read %xv : !tile.var<32x32xf32>
    %d = tile.dot %wr, %xr : tensor<32x32xf32>, tensor<32x32xf32> -> tensor<32x32xf32>
    tile.store %d, %O[%c0, %c0] : tensor<32x32xf32> -> !tile.tensor<[32, 32], f32>
  }
  tile.return
}

// -----

// Rows of whole warps reduce where they live: the input stays in registers
// and the reduction gets a scratch var for its warps' partials, [16, 64 /
// 32] here. A var that only holds such a row result, never written, is the
// result itself: its reads are forwarded and it takes no shared memory.
// CHECK-LABEL: tile.kernel @segmented
// CHECK-SAME: tile.shared_bytes = 128
// CHECK: tile.var "x" = %{{.*}} {tile.local}
// CHECK: %[[P:.*]] = tile.var "rowmax.partials" {tile.live = {{.*}}, tile.offset = 0 : i64, tile.temp} : !tile.var<16x2xf32>
// CHECK: %[[M:.*]] = tile.rowmax %{{.*}} through %[[P]] : tensor<16x64xf32>, !tile.var<16x2xf32> -> tensor<16x1xf32>
// CHECK-NOT: tile.var "m"
// CHECK: tile.broadcast %[[M]]
// CHECK: tile.var "rowsum.partials" {tile.live = {{.*}}, tile.offset = 0 : i64, tile.temp} : !tile.var<16x2xf32>
// CHECK: tile.var "s" = %{{.*}} {tile.live
// REPORT: remark: 'm' takes no memory: it holds a row result, which every lane of its row has, and is never written
// REPORT: remark: shared-memory plan of 'segmented': 128 bytes, 3 buffer(s)
// REPORT-NEXT: 'rowmax.partials'     128 B at offset      0, live lines [[#L:]]-{{[0-9]+}}
// REPORT-NEXT: 'rowsum.partials'     128 B at offset      0, live lines [[#L+6]]-[[#L+6]]
// REPORT-NEXT: 's'                    64 B at offset      0, live lines [[#L+7]]-[[#L+9]]
tile.kernel @segmented(%X: !tile.tensor<[16, 64], f32>, %Y: !tile.tensor<[16, 64], f32>, %S: !tile.tensor<[16, 1], f32>) attributes {threads = 128 : i64} {
  %c0 = arith.constant 0 : index
  %x0 = tile.load %X[%c0, %c0] : !tile.tensor<[16, 64], f32> -> tensor<16x64xf32>
  %xv = tile.var "x" = %x0 : !tile.var<16x64xf32>
  %x = tile.read %xv : !tile.var<16x64xf32>
  %m = tile.rowmax %x : tensor<16x64xf32> -> tensor<16x1xf32>
  %mv = tile.var "m" = %m : !tile.var<16x1xf32>
  %mr = tile.read %mv : !tile.var<16x1xf32>
  %mb = tile.broadcast %mr : tensor<16x1xf32> -> tensor<16x64xf32>
  %d = arith.subf %x, %mb : tensor<16x64xf32>
  tile.store %d, %Y[%c0, %c0] : tensor<16x64xf32> -> !tile.tensor<[16, 64], f32>
  %s = tile.rowsum %d : tensor<16x64xf32> -> tensor<16x1xf32>
  %sv = tile.var "s" = %s : !tile.var<16x1xf32>
  %zero = arith.constant dense<0.0> : tensor<16x1xf32>
  tile.write %zero, %sv : !tile.var<16x1xf32>
  tile.store %s, %S[%c0, %c0] : tensor<16x1xf32> -> !tile.tensor<[16, 1], f32>
  tile.return
}

// -----

// The spill of a register tile stays where some use reads it across
// threads (a rowsum of rows of 48 goes through shared memory); where no use
// does, its store is elided and its reads take the registers.
// CHECK-LABEL: tile.kernel @spills
// CHECK-SAME: tile.elided_spills = ["b"]
// CHECK: %[[A:.*]] = tile.var "a" = %{{.*}} {tile.live = {{.*}}, tile.offset = 0 : i64, tile.spill_of = "a"}
// CHECK: %[[RA:.*]] = tile.read %[[A]]
// CHECK: tile.rowsum %[[RA]]
// CHECK-NOT: tile.var "b"
// CHECK: tile.store %[[B:.*]], %arg1
// CHECK: tile.return
tile.kernel @spills(%X: !tile.tensor<[16, 48], f32>, %O: !tile.tensor<[16, 48], f32>, %S: !tile.tensor<[16, 1], f32>) attributes {threads = 128 : i64} {
  %c0 = arith.constant 0 : index
  %x = tile.load %X[%c0, %c0] : !tile.tensor<[16, 48], f32> -> tensor<16x48xf32>
  %a = tile.var "a" = %x {tile.spill_of = "a"} : !tile.var<16x48xf32>
  %ra = tile.read %a : !tile.var<16x48xf32>
  %s = tile.rowsum %ra : tensor<16x48xf32> -> tensor<16x1xf32>
  tile.store %s, %S[%c0, %c0] : tensor<16x1xf32> -> !tile.tensor<[16, 1], f32>
  %b = tile.var "b" = %x {tile.spill_of = "b"} : !tile.var<16x48xf32>
  %rb = tile.read %b : !tile.var<16x48xf32>
  tile.store %rb, %O[%c0, %c0] : tensor<16x48xf32> -> !tile.tensor<[16, 48], f32>
  tile.return
}
