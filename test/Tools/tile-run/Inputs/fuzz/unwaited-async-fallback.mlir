// A three-stage ring whose back stage is its front (%turn + 63): each
// iteration's async copy fills the stage it then reads, with no
// tile.wait_group between (utils/fuzz.py seed 104, iteration 22039). With
// K = 130 the copy is not aligned to its chunks of 8 f16, so it is lowered
// element by element to plain stores.
tile.kernel @unwaited(%A: !tile.tensor<[16, K], f16>, %S: !tile.tensor<[16, 1], f32>) attributes {threads = 128 : i64} {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %K = tile.dim %A[1] : !tile.tensor<[16, K], f16>
  %p = tile.var "p" {stages = 3 : i64} : !tile.var<16x64xf16>
  %zero = arith.constant dense<0.0> : tensor<16x64xf32>
  %acc = tile.var "acc" = %zero : !tile.var<16x64xf32>
  scf.for %k = %c0 to %K step %c64 {
    %turn = arith.divui %k, %c64 : index
    %ahead = arith.addi %k, %c128 : index
    %back = tile.stage %p[%turn + 63] : !tile.var<16x64xf16>
    tile.copy %A[%c0, %ahead] to %back[%c0, %c0] [16, 64] {async, width = 8 : i64} : !tile.tensor<[16, K], f16> to !tile.var<16x64xf16>
    %front = tile.stage %p[%turn + 0] : !tile.var<16x64xf16>
    %x = tile.read %front : !tile.var<16x64xf16>
    %f = arith.extf %x : tensor<16x64xf16> to tensor<16x64xf32>
    %a = tile.read %acc : !tile.var<16x64xf32>
    %n = arith.addf %a, %f : tensor<16x64xf32>
    tile.write %n, %acc : !tile.var<16x64xf32>
  }
  %total = tile.read %acc : !tile.var<16x64xf32>
  %rows = tile.rowsum %total : tensor<16x64xf32> -> tensor<16x1xf32>
  tile.store %rows, %S[%c0, %c0] : tensor<16x1xf32> -> !tile.tensor<[16, 1], f32>
  tile.return
}

// The same ring driven right: two stages in flight, a wait for all but the
// newest group and a barrier before each read.
tile.kernel @waited(%A: !tile.tensor<[16, K], f16>, %S: !tile.tensor<[16, 1], f32>) attributes {threads = 128 : i64} {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %K = tile.dim %A[1] : !tile.tensor<[16, K], f16>
  %p = tile.var "p" {stages = 3 : i64} : !tile.var<16x64xf16>
  %s0 = tile.stage %p[%c0 + 0] : !tile.var<16x64xf16>
  tile.copy %A[%c0, %c0] to %s0[%c0, %c0] [16, 64] {async, width = 8 : i64} : !tile.tensor<[16, K], f16> to !tile.var<16x64xf16>
  tile.commit_group
  %s1 = tile.stage %p[%c0 + 1] : !tile.var<16x64xf16>
  tile.copy %A[%c0, %c64] to %s1[%c0, %c0] [16, 64] {async, width = 8 : i64} : !tile.tensor<[16, K], f16> to !tile.var<16x64xf16>
  tile.commit_group
  %zero = arith.constant dense<0.0> : tensor<16x64xf32>
  %acc = tile.var "acc" = %zero : !tile.var<16x64xf32>
  scf.for %k = %c0 to %K step %c64 {
    %turn = arith.divui %k, %c64 : index
    tile.wait_group 1
    tile.barrier
    %ahead = arith.addi %k, %c128 : index
    %back = tile.stage %p[%turn + 2] : !tile.var<16x64xf16>
    tile.copy %A[%c0, %ahead] to %back[%c0, %c0] [16, 64] {async, width = 8 : i64} : !tile.tensor<[16, K], f16> to !tile.var<16x64xf16>
    tile.commit_group
    %front = tile.stage %p[%turn + 0] : !tile.var<16x64xf16>
    %x = tile.read %front : !tile.var<16x64xf16>
    %f = arith.extf %x : tensor<16x64xf16> to tensor<16x64xf32>
    %a = tile.read %acc : !tile.var<16x64xf32>
    %n = arith.addf %a, %f : tensor<16x64xf32>
    tile.write %n, %acc : !tile.var<16x64xf32>
  }
  tile.wait_group 0
  %total = tile.read %acc : !tile.var<16x64xf32>
  %rows = tile.rowsum %total : tensor<16x64xf32> -> tensor<16x1xf32>
  tile.store %rows, %S[%c0, %c0] : tensor<16x1xf32> -> !tile.tensor<[16, 1], f32>
  tile.return
}
