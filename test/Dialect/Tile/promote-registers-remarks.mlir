// With `remarks=true`, tile-promote-registers says, for every promoted var,
// how many elements a thread holds, and for every use whether it stays in
// registers, is folded with shuffles or is spilled, why, and where each
// spill was placed.
// RUN: tile-opt --tile-promote-registers=remarks=true --split-input-file \
// RUN:   --verify-diagnostics %s -o /dev/null
// The same through MLIR's remark options, for tools that collect remarks:
// RUN: tile-opt --tile-promote-registers --split-input-file \
// RUN:   --remarks-filter=tile-promote-registers --remark-format=emitRemark \
// RUN:   %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=ENGINE
// Without either, the pass is silent:
// RUN: sed -e '/expected-/d' %s | tile-opt --tile-promote-registers -o /dev/null 2>&1 \
// RUN:   | count 0

// ENGINE: remark: [Passed] RegisterPromotion | Category:tile-promote-registers | Function=squares | Remark="'acc': 4 elements per thread (1024 elements, 256 threads), kept in registers"
// ENGINE: remark: [Missed] RegisterPromotion | Category:tile-promote-registers | Function=squares | Remark="'acc' spilled to shared tile 'acc' for this use: a store to a tensor"

// The seed's squares.
tile.kernel @squares(%X: !tile.tensor<[16, K], f32>, %O: !tile.tensor<[16, 64], f32>,
                     %S: !tile.tensor<[16, 1], f32>)
    attributes {threads = 256 : i64, registers = ["acc"]} {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant dense<0.0> : tensor<16x64xf32>
  // expected-remark @below {{'acc': 4 elements per thread (1024 elements, 256 threads), kept in registers}}
  %acc = tile.var "acc" = %zero : !tile.var<16x64xf32>
  %K = tile.dim %X[1] : !tile.tensor<[16, K], f32>
  scf.for %kt = %c0 to %K step %c64 {
    %x0 = tile.load %X[%c0, %kt] : !tile.tensor<[16, K], f32> -> tensor<16x64xf32>
    %x = tile.var "x" = %x0 : !tile.var<16x64xf32>
    %a = tile.read %acc : !tile.var<16x64xf32>
    %xa = tile.read %x : !tile.var<16x64xf32>
    %xb = tile.read %x : !tile.var<16x64xf32>
    %sq = arith.mulf %xa, %xb : tensor<16x64xf32>
    // expected-remark @below {{'acc' stays in registers: read element by element}}
    %sum = arith.addf %a, %sq : tensor<16x64xf32>
    // expected-remark @below {{'acc' stays in registers: updated element by element}}
    tile.write %sum, %acc : !tile.var<16x64xf32>
  }
  %a1 = tile.read %acc : !tile.var<16x64xf32>
  // expected-remark @below {{'acc' spilled to shared tile 'acc' for this use: a store to a tensor}}
  // expected-remark @below {{'acc' stored to shared tile 'acc' here, once, for 2 use(s)}}
  tile.store %a1, %O[%c0, %c0] : tensor<16x64xf32> -> !tile.tensor<[16, 64], f32>
  %a2 = tile.read %acc : !tile.var<16x64xf32>
  // expected-remark @below {{'acc' spilled to shared tile 'acc' for this use: rowsum over rows of 64 elements, more than the 32 lanes of a warp}}
  %rs = tile.rowsum %a2 : tensor<16x64xf32> -> tensor<16x1xf32>
  %s = tile.var "s" = %rs : !tile.var<16x1xf32>
  %sv = tile.read %s : !tile.var<16x1xf32>
  tile.store %sv, %S[%c0, %c0] : tensor<16x1xf32> -> !tile.tensor<[16, 1], f32>
  tile.return
}

// -----

// Elements per thread: 16x64 is 8 a thread with 128 threads, 1 with 1024.
tile.kernel @threads128(%O: !tile.tensor<[16, 64], f32>)
    attributes {threads = 128 : i64, registers = ["acc"]} {
  %zero = arith.constant dense<0.0> : tensor<16x64xf32>
  // expected-remark @below {{'acc': 8 elements per thread (1024 elements, 128 threads), kept in registers}}
  %acc = tile.var "acc" = %zero : !tile.var<16x64xf32>
  tile.return
}

// -----

tile.kernel @threads1024(%O: !tile.tensor<[16, 64], f32>)
    attributes {threads = 1024 : i64, registers = ["acc"]} {
  %zero = arith.constant dense<0.0> : tensor<16x64xf32>
  // expected-remark @below {{'acc': 1 elements per thread (1024 elements, 1024 threads), kept in registers}}
  %acc = tile.var "acc" = %zero : !tile.var<16x64xf32>
  tile.return
}

// -----

// Folds, the reasons for the spills of f16 and 24-wide rows, and a spill
// placed inside a loop.
tile.kernel @reductions(%X: !tile.tensor<[16, K], f32>, %O: !tile.tensor<[16, K], f32>,
                        %S: !tile.tensor<[16, 1], f32>,
                        %H: !tile.tensor<[16, 1], f16>, %T: !tile.tensor<[16, 1], i32>)
    attributes {threads = 128 : i64, registers = ["acc", "h", "w", "n"]} {
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  %zero = arith.constant dense<0.0> : tensor<16x32xf32>
  // expected-remark @below {{'acc': 4 elements per thread (512 elements, 128 threads), kept in registers}}
  %acc = tile.var "acc" = %zero : !tile.var<16x32xf32>
  %K = tile.dim %X[1] : !tile.tensor<[16, K], f32>
  scf.for %k = %c0 to %K step %c32 {
    %x = tile.load %X[%c0, %k] : !tile.tensor<[16, K], f32> -> tensor<16x32xf32>
    %v = tile.read %acc : !tile.var<16x32xf32>
    // expected-remark @below {{'acc' stays in registers: read element by element}}
    %s = arith.addf %v, %x : tensor<16x32xf32>
    // expected-remark @below {{'acc' stays in registers: updated element by element}}
    tile.write %s, %acc : !tile.var<16x32xf32>
    %u = tile.read %acc : !tile.var<16x32xf32>
    // expected-remark @below {{'acc' folded with warp shuffles: rowmax over rows of 32 elements, each row in 32 lanes of one warp}}
    %m = tile.rowmax %u : tensor<16x32xf32> -> tensor<16x1xf32>
    %w = tile.read %acc : !tile.var<16x32xf32>
    // expected-remark @below {{'acc' spilled to shared tile 'acc' for this use: a store to a tensor}}
    // expected-remark @below {{'acc' stored to shared tile 'acc' here, once per loop iteration, for 1 use(s)}}
    tile.store %w, %O[%c0, %k] : tensor<16x32xf32> -> !tile.tensor<[16, K], f32>
    tile.store %m, %S[%c0, %c0] : tensor<16x1xf32> -> !tile.tensor<[16, 1], f32>
  }
  %hz = arith.constant dense<0.0> : tensor<16x32xf16>
  // expected-remark @below {{'h': 4 elements per thread (512 elements, 128 threads), kept in registers}}
  %h = tile.var "h" = %hz : !tile.var<16x32xf16>
  %hv = tile.read %h : !tile.var<16x32xf16>
  // expected-remark @below {{'h' spilled to shared tile 'h' for this use: rowsum of an f16 tile: warp shuffles fold f32 and i32 rows only}}
  // expected-remark @below {{'h' stored to shared tile 'h' here, once, for 1 use(s)}}
  %hs = tile.rowsum %hv : tensor<16x32xf16> -> tensor<16x1xf16>
  tile.store %hs, %H[%c0, %c0] : tensor<16x1xf16> -> !tile.tensor<[16, 1], f16>
  %wz = arith.constant dense<0.0> : tensor<16x24xf32>
  // expected-remark @below {{'w': 3 elements per thread (384 elements, 128 threads), kept in registers}}
  %wv = tile.var "w" = %wz : !tile.var<16x24xf32>
  %wr = tile.read %wv : !tile.var<16x24xf32>
  // expected-remark @below {{'w' spilled to shared tile 'w' for this use: rowsum over rows of 24 elements, which is not a power of two}}
  // expected-remark @below {{'w' stored to shared tile 'w' here, once, for 1 use(s)}}
  %ws = tile.rowsum %wr : tensor<16x24xf32> -> tensor<16x1xf32>
  tile.store %ws, %S[%c0, %c0] : tensor<16x1xf32> -> !tile.tensor<[16, 1], f32>
  %one = arith.constant dense<1> : tensor<16x8xi32>
  // expected-remark @below {{'n': 1 elements per thread (128 elements, 128 threads), kept in registers}}
  %n = tile.var "n" = %one : !tile.var<16x8xi32>
  %nv = tile.read %n : !tile.var<16x8xi32>
  // expected-remark @below {{'n' folded with warp shuffles: rowsum over rows of 8 elements, each row in 8 lanes of one warp}}
  %ns = tile.rowsum %nv : tensor<16x8xi32> -> tensor<16x1xi32>
  tile.store %ns, %T[%c0, %c0] : tensor<16x1xi32> -> !tile.tensor<[16, 1], i32>
  tile.return
}
