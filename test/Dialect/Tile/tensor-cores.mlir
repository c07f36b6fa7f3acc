// RUN: tile-opt %s -split-input-file -verify-diagnostics --pass-pipeline='builtin.module(tile.kernel(tile-tensor-cores{remarks=true}))' | FileCheck %s
// On sm_75 every dot stays SIMT, and the add stays.
// RUN: tile-opt %s -split-input-file --pass-pipeline='builtin.module(tile.kernel(tile-tensor-cores{remarks=true chip=sm_75}))' 2>&1 >/dev/null | FileCheck %s --check-prefix=SM75-REMARK
// RUN: tile-opt %s -split-input-file --pass-pipeline='builtin.module(tile.kernel(tile-tensor-cores{chip=sm_75}))' | FileCheck %s --check-prefix=SM75

// `acc += dot(a, b)` with acc carried by the loop (tile-promote-registers'
// form of `@registers(acc)`): the dot runs on tensor cores, the add folds
// into its accumulator, and the loop's tiles, the init and the final
// store's value take the mma layout. 32x64 over 8 warps: a 2 x 4 grid of
// [16, 16] blocks (2 ldmatrix a warp per 16 of K; 4 x 2 would take 3).
// CHECK-LABEL: tile.kernel @accumulate
// CHECK:         %[[ZERO:.*]] = arith.constant dense<0.000000e+00> : tensor<32x64xf32, #tile.mma<warps = [2, 4]>>
// CHECK:         %[[R:.*]] = scf.for {{.*}} iter_args(%[[ACC:.*]] = %[[ZERO]])
// CHECK:           %[[D:.*]] = tile.dot %{{.*}}, %{{.*}} acc %[[ACC]] {{.*}}, #tile.mma<warps = [2, 4]>>
// CHECK-NEXT:      scf.yield %[[D]]
// CHECK:         tile.var "acc" = %[[R]] {tile.spill_of = "acc"}
// CHECK:         tile.read %{{.*}} {{.*}}, #tile.mma<warps = [2, 4]>>
// SM75-REMARK: remark: dot stays SIMT: sm_75 has no mma.sync.m16n8k16 (sm_80 and newer)
// SM75-LABEL: tile.kernel @accumulate
// SM75-NOT: #tile.mma
// SM75: arith.addf
tile.kernel @accumulate(%A: !tile.tensor<[32, K], f16>, %B: !tile.tensor<[K, 64], f16>,
                        %C: !tile.tensor<[32, 64], f32>) attributes {threads = 256 : i64} {
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  %K = tile.dim %A[1] : !tile.tensor<[32, K], f16>
  %zero = arith.constant dense<0.0> : tensor<32x64xf32>
  %r = scf.for %k = %c0 to %K step %c32 iter_args(%acc = %zero) -> (tensor<32x64xf32>) {
    %a = tile.load %A[%c0, %k] : !tile.tensor<[32, K], f16> -> tensor<32x32xf16>
    %b = tile.load %B[%k, %c0] : !tile.tensor<[K, 64], f16> -> tensor<32x64xf16>
    // expected-remark @below {{dot on tensor cores: mma.sync.m16n8k16 of f16, 2 x 4 warps each computing a [16, 16] block: 4 mma.sync and 4 ldmatrix a warp; accumulating in place in the mma accumulator layout #tile.mma<warps = [2, 4]>}}
    %d = tile.dot %a, %b : tensor<32x32xf16>, tensor<32x64xf16> -> tensor<32x64xf32>
    %s = arith.addf %acc, %d : tensor<32x64xf32>
    scf.yield %s : tensor<32x64xf32>
  }
  %spill = tile.var "acc" = %r {tile.spill_of = "acc"} : !tile.var<32x64xf32>
  %v = tile.read %spill : !tile.var<32x64xf32>
  tile.store %v, %C[%c0, %c0] : tensor<32x64xf32> -> !tile.tensor<[32, 64], f32>
  tile.return
}

// -----

// bf16 too, with a dot whose result is scaled (elementwise: the same
// layout) and stored.
// CHECK-LABEL: tile.kernel @bf16_scaled
// CHECK: tile.dot {{.*}} : tensor<64x16xbf16>, tensor<16x8xbf16> -> tensor<64x8xf32, #tile.mma<warps = [4, 1]>>
// CHECK: arith.mulf {{.*}} {{.*}}, #tile.mma<warps = [4, 1]>>
tile.kernel @bf16_scaled(%A: !tile.tensor<[64, 16], bf16>, %B: !tile.tensor<[16, 8], bf16>,
                         %C: !tile.tensor<[64, 8], f32>) attributes {threads = 128 : i64} {
  %c0 = arith.constant 0 : index
  %a = tile.load %A[%c0, %c0] : !tile.tensor<[64, 16], bf16> -> tensor<64x16xbf16>
  %b = tile.load %B[%c0, %c0] : !tile.tensor<[16, 8], bf16> -> tensor<16x8xbf16>
  // expected-remark @below {{dot on tensor cores: mma.sync.m16n8k16 of bf16, 4 x 1 warps each computing a [16, 8] block: 1 mma.sync and 2 ldmatrix a warp; its result in the mma accumulator layout #tile.mma<warps = [4, 1]>}}
  %d = tile.dot %a, %b : tensor<64x16xbf16>, tensor<16x8xbf16> -> tensor<64x8xf32>
  %two = arith.constant dense<2.0> : tensor<64x8xf32>
  %s = arith.mulf %d, %two : tensor<64x8xf32>
  tile.store %s, %C[%c0, %c0] : tensor<64x8xf32> -> !tile.tensor<[64, 8], f32>
  tile.return
}

// -----

// A reshape knows only seed 000's distribution: the dot still runs on
// tensor cores, its result stays in the mma layout, and the reshape reads
// it converted, through a shared var written right before.
// CHECK-LABEL: tile.kernel @reshaped
// CHECK: %[[D:.*]] = tile.dot {{.*}} {{.*}}, #tile.mma<warps = [1, 4]>>
// CHECK-NEXT: %[[V:.*]] = tile.var "mma.convert" = %[[D]] {storage = #tile.storage<shared>}
// CHECK-NEXT: %[[R:.*]] = tile.read %[[V]] :
// CHECK-NEXT: tile.reshape %[[R]]
tile.kernel @reshaped(%A: !tile.tensor<[16, 16], f16>, %B: !tile.tensor<[16, 32], f16>,
                      %S: !tile.tensor<[512], f32>) attributes {threads = 128 : i64} {
  %c0 = arith.constant 0 : index
  %a = tile.load %A[%c0, %c0] : !tile.tensor<[16, 16], f16> -> tensor<16x16xf16>
  %b = tile.load %B[%c0, %c0] : !tile.tensor<[16, 32], f16> -> tensor<16x32xf16>
  // expected-remark @below {{dot on tensor cores: mma.sync.m16n8k16 of f16, 1 x 4 warps each computing a [16, 8] block: 1 mma.sync and 2 ldmatrix a warp; its result in the mma accumulator layout #tile.mma<warps = [1, 4]>}}
  %d = tile.dot %a, %b : tensor<16x16xf16>, tensor<16x32xf16> -> tensor<16x32xf32>
  // expected-remark @below {{'tile.reshape' needs its operand in seed 000's distribution: it converts from the mma accumulator layout here, through shared var 'mma.convert'}}
  %s = tile.reshape %d : tensor<16x32xf32> -> tensor<512xf32>
  tile.store %s, %S[%c0] : tensor<512xf32> -> !tile.tensor<[512], f32>
  tile.return
}

// -----

// A row reduction of the dot's result runs where the rows live: nothing
// converts, and the [16, 1] result is in #tile.rows of the mma layout
// (derived from its input: the reduction carries no layout of its own).
// CHECK-LABEL: tile.kernel @reduced
// CHECK: %[[D:.*]] = tile.dot {{.*}} {{.*}}, #tile.mma<warps = [1, 4]>>
// CHECK-NEXT: tile.rowsum %[[D]] :
tile.kernel @reduced(%A: !tile.tensor<[16, 16], f16>, %B: !tile.tensor<[16, 32], f16>,
                     %S: !tile.tensor<[16, 1], f32>) attributes {threads = 128 : i64} {
  %c0 = arith.constant 0 : index
  %a = tile.load %A[%c0, %c0] : !tile.tensor<[16, 16], f16> -> tensor<16x16xf16>
  %b = tile.load %B[%c0, %c0] : !tile.tensor<[16, 32], f16> -> tensor<16x32xf16>
  // expected-remark @below {{its result in the mma accumulator layout #tile.mma<warps = [1, 4]>}}
  %d = tile.dot %a, %b : tensor<16x16xf16>, tensor<16x32xf16> -> tensor<16x32xf32>
  // expected-remark @below {{row statistics stay in registers in #tile.rows<columns = 32, parent = #tile.mma<warps = [1, 4]>>, a slice of the mma accumulator layout}}
  %s = tile.rowsum %d : tensor<16x32xf32> -> tensor<16x1xf32>
  tile.store %s, %S[%c0, %c0] : tensor<16x1xf32> -> !tile.tensor<[16, 1], f32>
  tile.return
}

// -----

// Flash attention's loop body: the causal mask (iotas), the row maximum and
// sum, the running statistics m and l (register vars) and their broadcasts
// back over the scores and the accumulator all stay in the mma layout or
// its #tile.rows slice: no 'dot.result', no 'mma.convert'.
// CHECK-LABEL: tile.kernel @online_softmax
// CHECK-DAG: tile.var "m" = %{{.*}} {layout = #tile.rows<columns = 32, parent = #tile.mma<warps = [1, 4]>>}
// CHECK-DAG: tile.var "l" = %{{.*}} {layout = #tile.rows<columns = 32, parent = #tile.mma<warps = [1, 4]>>}
// CHECK-DAG: arith.constant dense<0xFF800000> : tensor<16x1xf32, #tile.rows<columns = 32, parent = #tile.mma<warps = [1, 4]>>>
// CHECK-DAG: tile.iota 1 {{.*}}, #tile.mma<warps = [1, 4]>>
// CHECK-DAG: tile.iota 0 {{.*}}, #tile.mma<warps = [1, 4]>>
// CHECK: scf.for
// CHECK: %[[S:.*]] = tile.dot {{.*}} {{.*}}, #tile.mma<warps = [1, 4]>>
// CHECK: arith.select {{.*}} {{.*}}, #tile.mma<warps = [1, 4]>>
// CHECK: tile.rowmax
// CHECK: arith.maximumf {{.*}} {{.*}}, #tile.rows<columns = 32, parent = #tile.mma<warps = [1, 4]>>>
// CHECK: tile.broadcast {{.*}} {{.*}}, #tile.mma<warps = [1, 4]>>
// CHECK: tile.rowsum
// CHECK: tile.dot {{.*}} acc
// CHECK-NOT: "dot.result"
// CHECK-NOT: "mma.convert"
// CHECK: tile.return
tile.kernel @online_softmax(%Q: !tile.tensor<[16, 32], f16>, %K: !tile.tensor<[N, 32], f16>,
                            %V: !tile.tensor<[N, 32], f16>, %O: !tile.tensor<[16, 32], f32>) attributes {threads = 128 : i64} {
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  %N = tile.dim %K[0] : !tile.tensor<[N, 32], f16>
  %q = tile.load %Q[%c0, %c0] : !tile.tensor<[16, 32], f16> -> tensor<16x32xf16>
  %ninf = arith.constant dense<0xFF800000> : tensor<16x1xf32>
  %zero = arith.constant dense<0.0> : tensor<16x1xf32>
  %zeros = arith.constant dense<0.0> : tensor<16x32xf32>
  %m = tile.var "m" = %ninf : !tile.var<16x1xf32>
  %l = tile.var "l" = %zero : !tile.var<16x1xf32>
  %acc = tile.var "acc" = %zeros : !tile.var<16x32xf32>
  // expected-remark @below {{iota built in the mma accumulator layout #tile.mma<warps = [1, 4]>, where the tiles it is combined with live: no conversion of the dot's result}}
  %rows = tile.iota 0 : tensor<16x32xi32>
  // expected-remark @below {{iota built in the mma accumulator layout #tile.mma<warps = [1, 4]>}}
  %cols = tile.iota 1 : tensor<16x32xi32>
  scf.for %c = %c0 to %N step %c32 {
    %ci = arith.index_cast %c : index to i32
    %cs = tile.splat %ci : tensor<16x32xi32>
    %keys = arith.addi %cols, %cs : tensor<16x32xi32>
    %k = tile.load %K[%c, %c0] : !tile.tensor<[N, 32], f16> -> tensor<32x32xf16>
    // expected-remark @below {{its result in the mma accumulator layout #tile.mma<warps = [1, 4]>}}
    %s0 = tile.dot %q, %k rhs_transposed : tensor<16x32xf16>, tensor<32x32xf16> -> tensor<16x32xf32>
    %causal = arith.cmpi sle, %keys, %rows : tensor<16x32xi32>
    %ninfs = arith.constant dense<0xFF800000> : tensor<16x32xf32>
    %s = arith.select %causal, %s0, %ninfs : tensor<16x32xi1>, tensor<16x32xf32>
    %mo = tile.read %m : !tile.var<16x1xf32>
    // expected-remark @below {{row statistics stay in registers in #tile.rows<columns = 32, parent = #tile.mma<warps = [1, 4]>>}}
    %smax = tile.rowmax %s : tensor<16x32xf32> -> tensor<16x1xf32>
    %grown = arith.maximumf %mo, %smax : tensor<16x1xf32>
    %gb = tile.broadcast %grown : tensor<16x1xf32> -> tensor<16x32xf32>
    %d = arith.subf %s, %gb : tensor<16x32xf32>
    %p = math.exp %d : tensor<16x32xf32>
    %md = arith.subf %mo, %grown : tensor<16x1xf32>
    %rescale = math.exp %md : tensor<16x1xf32>
    %lo = tile.read %l : !tile.var<16x1xf32>
    %ls = arith.mulf %lo, %rescale : tensor<16x1xf32>
    %psum = tile.rowsum %p : tensor<16x32xf32> -> tensor<16x1xf32>
    %ln = arith.addf %ls, %psum : tensor<16x1xf32>
    tile.write %ln, %l : !tile.var<16x1xf32>
    %ao = tile.read %acc : !tile.var<16x32xf32>
    %rb = tile.broadcast %rescale : tensor<16x1xf32> -> tensor<16x32xf32>
    %as = arith.mulf %ao, %rb : tensor<16x32xf32>
    %ph = arith.truncf %p : tensor<16x32xf32> to tensor<16x32xf16>
    %v = tile.load %V[%c, %c0] : !tile.tensor<[N, 32], f16> -> tensor<32x32xf16>
    // expected-remark @below {{accumulating in place in the mma accumulator layout #tile.mma<warps = [1, 4]>}}
    %pv = tile.dot %ph, %v : tensor<16x32xf16>, tensor<32x32xf16> -> tensor<16x32xf32>
    %an = arith.addf %as, %pv : tensor<16x32xf32>
    tile.write %an, %acc : !tile.var<16x32xf32>
    tile.write %grown, %m : !tile.var<16x1xf32>
  }
  %af = tile.read %acc : !tile.var<16x32xf32>
  %lf = tile.read %l : !tile.var<16x1xf32>
  %lb = tile.broadcast %lf : tensor<16x1xf32> -> tensor<16x32xf32>
  %o = arith.divf %af, %lb : tensor<16x32xf32>
  tile.store %o, %O[%c0, %c0] : tensor<16x32xf32> -> !tile.tensor<[16, 32], f32>
  tile.return
}

// -----

// A row statistic stored masked needs seed 000's distribution: the row
// statistics keep it (converted at their uses, by tile-plan-shared), and
// the dot's result still stays in the mma layout.
// CHECK-LABEL: tile.kernel @statistic_pinned
// CHECK: tile.dot {{.*}} {{.*}}, #tile.mma<warps = [1, 4]>>
// CHECK-NOT: "dot.result"
// CHECK: arith.addf {{.*}} : tensor<16x1xf32>
// CHECK-NOT: #tile.rows
// CHECK: tile.return
tile.kernel @statistic_pinned(%A: !tile.tensor<[16, 16], f16>, %B: !tile.tensor<[16, 32], f16>,
                              %S: !tile.tensor<[16, 1], f32>) attributes {threads = 128 : i64} {
  %c0 = arith.constant 0 : index
  %a = tile.load %A[%c0, %c0] : !tile.tensor<[16, 16], f16> -> tensor<16x16xf16>
  %b = tile.load %B[%c0, %c0] : !tile.tensor<[16, 32], f16> -> tensor<16x32xf16>
  // expected-remark @below {{its result in the mma accumulator layout #tile.mma<warps = [1, 4]>}}
  %d = tile.dot %a, %b : tensor<16x16xf16>, tensor<16x32xf16> -> tensor<16x32xf32>
  // expected-remark @below {{row statistics of the mma accumulator layout convert to seed 000's distribution: '}}
  %s = tile.rowsum %d : tensor<16x32xf32> -> tensor<16x1xf32>
  %one = arith.constant dense<1.0> : tensor<16x1xf32>
  %t = arith.addf %s, %one : tensor<16x1xf32>
  %i = tile.iota 0 : tensor<16x1xi32>
  %eight = arith.constant dense<8> : tensor<16x1xi32>
  %mask = arith.cmpi slt, %i, %eight : tensor<16x1xi32>
  tile.store %t, %S[%c0, %c0] mask %mask : tensor<16x1xf32> -> !tile.tensor<[16, 1], f32>
  tile.return
}

// -----

// A tile made in seed 000's distribution (a free broadcast of a row result,
// which every lane of the row holds) added to the dot's result: the group
// keeps seed 000's distribution and the dot converts its result where it is
// made, through a shared var.
// CHECK-LABEL: tile.kernel @broadcast_added
// CHECK: %[[D:.*]] = tile.dot {{.*}} {{.*}}, #tile.mma<warps = [1, 4]>>
// CHECK-NEXT: %[[V:.*]] = tile.var "dot.result" = %[[D]] {storage = #tile.storage<shared>}
// CHECK-NEXT: %[[R:.*]] = tile.read %[[V]] :
// CHECK-NEXT: arith.addf %[[R]], %{{.*}} : tensor<16x32xf32>
tile.kernel @broadcast_added(%A: !tile.tensor<[16, 16], f16>, %B: !tile.tensor<[16, 32], f16>,
                             %X: !tile.tensor<[16, 32], f32>, %O: !tile.tensor<[16, 32], f32>) attributes {threads = 128 : i64} {
  %c0 = arith.constant 0 : index
  %x = tile.load %X[%c0, %c0] : !tile.tensor<[16, 32], f32> -> tensor<16x32xf32>
  %s = tile.rowsum %x : tensor<16x32xf32> -> tensor<16x1xf32>
  %m = tile.broadcast %s : tensor<16x1xf32> -> tensor<16x32xf32>
  %a = tile.load %A[%c0, %c0] : !tile.tensor<[16, 16], f16> -> tensor<16x16xf16>
  %b = tile.load %B[%c0, %c0] : !tile.tensor<[16, 32], f16> -> tensor<16x32xf16>
  // expected-remark @below {{dot on tensor cores: mma.sync.m16n8k16 of f16, 1 x 4 warps each computing a [16, 8] block: 1 mma.sync and 2 ldmatrix a warp; its result converts from the mma accumulator layout through shared var 'dot.result', since 'tile.broadcast' at line}}
  %d = tile.dot %a, %b : tensor<16x16xf16>, tensor<16x32xf16> -> tensor<16x32xf32>
  %e = arith.addf %d, %m : tensor<16x32xf32>
  tile.store %e, %O[%c0, %c0] : tensor<16x32xf32> -> !tile.tensor<[16, 32], f32>
  tile.return
}

// -----

// Dots that stay SIMT, each with its reason.
// CHECK-LABEL: tile.kernel @simt
// CHECK-NOT: #tile.mma
// CHECK: tile.return
tile.kernel @simt(%A: !tile.tensor<[16, 16], f32>, %H: !tile.tensor<[16, 16], f16>,
                  %G: !tile.tensor<[16, 24], f16>, %E: !tile.tensor<[8, 16], f16>,
                  %O: !tile.tensor<[16, 16], f32>, %P: !tile.tensor<[16, 16], f16>,
                  %Q: !tile.tensor<[16, 24], f32>, %R: !tile.tensor<[8, 16], f32>,
                  %I: !tile.tensor<[32, 32], i32>, %S: !tile.tensor<[32, 32], i32>) attributes {threads = 256 : i64} {
  %c0 = arith.constant 0 : index
  %a = tile.load %A[%c0, %c0] : !tile.tensor<[16, 16], f32> -> tensor<16x16xf32>
  // expected-remark @below {{dot stays SIMT: f32 operands: exact SIMT products (tensor cores would round them to tf32; `precision = tf32` asks for that)}}
  %d = tile.dot %a, %a : tensor<16x16xf32>, tensor<16x16xf32> -> tensor<16x16xf32>
  tile.store %d, %O[%c0, %c0] : tensor<16x16xf32> -> !tile.tensor<[16, 16], f32>
  %h = tile.load %H[%c0, %c0] : !tile.tensor<[16, 16], f16> -> tensor<16x16xf16>
  // expected-remark @below {{dot stays SIMT: it accumulates in f16; mma.sync accumulates f16 in f32}}
  %e = tile.dot %h, %h : tensor<16x16xf16>, tensor<16x16xf16> -> tensor<16x16xf16>
  tile.store %e, %P[%c0, %c0] : tensor<16x16xf16> -> !tile.tensor<[16, 16], f16>
  %g = tile.load %G[%c0, %c0] : !tile.tensor<[16, 24], f16> -> tensor<16x24xf16>
  // expected-remark @below {{dot stays SIMT: the 8 warps of the CTA cannot tile its [16, 24] result in blocks of whole [16, 8] mma tiles}}
  %f = tile.dot %h, %g : tensor<16x16xf16>, tensor<16x24xf16> -> tensor<16x24xf32>
  tile.store %f, %Q[%c0, %c0] : tensor<16x24xf32> -> !tile.tensor<[16, 24], f32>
  %x = tile.load %E[%c0, %c0] : !tile.tensor<[8, 16], f16> -> tensor<8x16xf16>
  // expected-remark @below {{dot stays SIMT: its shape [8, 16] x [16, 16] is not made of whole mma tiles (M a multiple of 16, N of 8, K of 16)}}
  %y = tile.dot %x, %h : tensor<8x16xf16>, tensor<16x16xf16> -> tensor<8x16xf32>
  tile.store %y, %R[%c0, %c0] : tensor<8x16xf32> -> !tile.tensor<[8, 16], f32>
  // An i32 dot of a shape and warps mma would take: SIMT, exact in i32.
  %i = tile.load %I[%c0, %c0] : !tile.tensor<[32, 32], i32> -> tensor<32x32xi32>
  // expected-remark @below {{dot stays SIMT: i32 operands: tensor cores have no i32 products; SIMT products and sums, exact in i32 (wrapping as integer arithmetic does)}}
  %j = tile.dot %i, %i : tensor<32x32xi32>, tensor<32x32xi32> -> tensor<32x32xi32>
  tile.store %j, %S[%c0, %c0] : tensor<32x32xi32> -> !tile.tensor<[32, 32], i32>
  tile.return
}

// -----

// In a kernel that reads ctx.thread, which thread holds which element is
// observable (here a per-thread value splat over a tile and added): the dot
// still runs on tensor cores, and its result converts where it is made.
// CHECK-LABEL: tile.kernel @reads_thread
// CHECK: %[[D:.*]] = tile.dot {{.*}} {{.*}}, #tile.mma<warps = [1, 4]>>
// CHECK-NEXT: tile.var "dot.result" = %[[D]] {storage = #tile.storage<shared>} : {{.*}}
// CHECK-NOT: #tile.mma
// CHECK: tile.return
tile.kernel @reads_thread(%A: !tile.tensor<[16, 16], f16>, %B: !tile.tensor<[16, 32], f16>,
                          %O: !tile.tensor<[16, 32], f32>) attributes {threads = 128 : i64} {
  %c0 = arith.constant 0 : index
  %t = tile.thread_id
  %i = arith.index_cast %t : index to i32
  %f = arith.sitofp %i : i32 to f32
  %ft = tile.splat %f : tensor<16x32xf32>
  %a = tile.load %A[%c0, %c0] : !tile.tensor<[16, 16], f16> -> tensor<16x16xf16>
  %b = tile.load %B[%c0, %c0] : !tile.tensor<[16, 32], f16> -> tensor<16x32xf16>
  // expected-remark @below {{its result converts from the mma accumulator layout through shared var 'dot.result', since the kernel reads ctx.thread at line}}
  %d = tile.dot %a, %b : tensor<16x16xf16>, tensor<16x32xf16> -> tensor<16x32xf32>
  %e = arith.addf %d, %ft : tensor<16x32xf32>
  tile.store %e, %O[%c0, %c0] : tensor<16x32xf32> -> !tile.tensor<[16, 32], f32>
  tile.return
}

// -----

// dot(q, transpose(k)) reads k ([N, K]) transposed: on tensor cores too,
// its right operand loaded by ldmatrix without .trans.
// CHECK-LABEL: tile.kernel @rhs_transposed
// CHECK: tile.dot %{{.*}} rhs_transposed {{.*}}, #tile.mma<warps = [1, 4]>>
tile.kernel @rhs_transposed(%Q: !tile.tensor<[16, 32], f16>, %K: !tile.tensor<[64, 32], f16>,
                            %S: !tile.tensor<[16, 64], f32>) attributes {threads = 128 : i64} {
  %c0 = arith.constant 0 : index
  %q = tile.load %Q[%c0, %c0] : !tile.tensor<[16, 32], f16> -> tensor<16x32xf16>
  %k = tile.load %K[%c0, %c0] : !tile.tensor<[64, 32], f16> -> tensor<64x32xf16>
  // expected-remark @below {{dot on tensor cores: mma.sync.m16n8k16 of f16, 1 x 4 warps each computing a [16, 16] block: 4 mma.sync and 4 ldmatrix a warp; its result in the mma accumulator layout #tile.mma<warps = [1, 4]>}}
  %s = tile.dot %q, %k rhs_transposed : tensor<16x32xf16>, tensor<64x32xf16> -> tensor<16x64xf32>
  tile.store %s, %S[%c0, %c0] : tensor<16x64xf32> -> !tile.tensor<[16, 64], f32>
  tile.return
}

// -----

// precision = tf32: f32 operands on mma.sync.m16n8k8, the same warp grid
// and accumulator layout as f16's m16n8k16; K = 32 is 4 steps of 8. A tf32
// dot whose K is not a multiple of 8 stays SIMT (with the same rounding).
// CHECK-LABEL: tile.kernel @tf32
// CHECK:         tile.dot %{{.*}}, %{{.*}} acc %{{.*}} precision = tf32 {{.*}}, #tile.mma<warps = [2, 4]>>
// CHECK:         tile.dot %{{.*}}, %{{.*}} precision = tf32 :
// SM75-REMARK: remark: dot stays SIMT: sm_75 has no mma.sync.m16n8k8 of tf32 (sm_80 and newer); the products are exact f32 products of the operands rounded to tf32
tile.kernel @tf32(%A: !tile.tensor<[32, K], f32>, %B: !tile.tensor<[K, 64], f32>,
                  %E: !tile.tensor<[16, 12], f32>, %F: !tile.tensor<[12, 8], f32>,
                  %C: !tile.tensor<[32, 64], f32>, %G: !tile.tensor<[16, 8], f32>) attributes {threads = 256 : i64} {
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  %K = tile.dim %A[1] : !tile.tensor<[32, K], f32>
  %zero = arith.constant dense<0.0> : tensor<32x64xf32>
  %r = scf.for %k = %c0 to %K step %c32 iter_args(%acc = %zero) -> (tensor<32x64xf32>) {
    %a = tile.load %A[%c0, %k] : !tile.tensor<[32, K], f32> -> tensor<32x32xf32>
    %b = tile.load %B[%k, %c0] : !tile.tensor<[K, 64], f32> -> tensor<32x64xf32>
    // expected-remark @below {{dot on tensor cores: mma.sync.m16n8k8 of tf32, 2 x 4 warps each computing a [16, 16] block: 8 mma.sync a warp and 32 shared loads a thread; accumulating in place in the mma accumulator layout #tile.mma<warps = [2, 4]>}}
    %d = tile.dot %a, %b precision = tf32 : tensor<32x32xf32>, tensor<32x64xf32> -> tensor<32x64xf32>
    %s = arith.addf %acc, %d : tensor<32x64xf32>
    scf.yield %s : tensor<32x64xf32>
  }
  tile.store %r, %C[%c0, %c0] : tensor<32x64xf32> -> !tile.tensor<[32, 64], f32>
  %e = tile.load %E[%c0, %c0] : !tile.tensor<[16, 12], f32> -> tensor<16x12xf32>
  %f = tile.load %F[%c0, %c0] : !tile.tensor<[12, 8], f32> -> tensor<12x8xf32>
  // expected-remark @below {{dot stays SIMT: its shape [16, 12] x [12, 8] is not made of whole mma tiles (M a multiple of 16, N of 8, K of 8)}}
  %g = tile.dot %e, %f precision = tf32 : tensor<16x12xf32>, tensor<12x8xf32> -> tensor<16x8xf32>
  tile.store %g, %G[%c0, %c0] : tensor<16x8xf32> -> !tile.tensor<[16, 8], f32>
  tile.return
}
