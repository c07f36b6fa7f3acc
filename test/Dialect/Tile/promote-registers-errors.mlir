// Every row of "When it is rejected" (docs/spec.md, "## @registers"): an
// error naming the var and the reason, and nothing promoted.
// RUN: tile-opt --tile-promote-registers --split-input-file --verify-diagnostics \
// RUN:   --allow-unregistered-dialect %s

// The seed's program: a [3, 5] tile has 15 elements, which 256 threads
// cannot share evenly.
tile.kernel @k(%O: !tile.tensor<[3, 5], f32>)
    attributes {threads = 256 : i64, registers = ["acc"]} {
  %c0 = arith.constant 0 : index
  %zero = arith.constant dense<0.0> : tensor<3x5xf32>
  // expected-error @below {{'acc': [3, 5] has 15 elements, which 256 threads cannot share evenly: every thread must hold the same number of elements}}
  %acc = tile.var "acc" = %zero : !tile.var<3x5xf32>
  %v = tile.read %acc : !tile.var<3x5xf32>
  tile.store %v, %O[%c0, %c0] : tensor<3x5xf32> -> !tile.tensor<[3, 5], f32>
  tile.return
}

// -----

// expected-error @below {{'acc' in @registers of kernel 'missing' is not a 'var acc: tile<..>[..]' of the kernel: the name refers to nothing}}
tile.kernel @missing(%O: !tile.tensor<[16, 64], f32>)
    attributes {threads = 256 : i64, registers = ["acc"]} {
  %zero = arith.constant dense<0.0> : tensor<16x64xf32>
  %other = tile.var "accumulator" = %zero : !tile.var<16x64xf32>
  tile.return
}

// -----

// A scalar var is not a tile.
// expected-error @below {{'n' in @registers of kernel 'scalar' is not a 'var n: tile<..>[..]' of the kernel: the name refers to nothing}}
tile.kernel @scalar(%O: !tile.tensor<[16, 64], f32>)
    attributes {threads = 256 : i64, registers = ["n"]} {
  %zero = arith.constant 0 : i32
  // expected-note @below {{'n' is a scalar var}}
  %n = tile.var "n" = %zero : !tile.var<i32>
  tile.return
}

// -----

// 64x512 over 256 threads would be 128 elements a thread.
tile.kernel @cap(%O: !tile.tensor<[64, 512], f32>)
    attributes {threads = 256 : i64, registers = ["acc"]} {
  %zero = arith.constant dense<0.0> : tensor<64x512xf32>
  // expected-error @below {{'acc': [64, 512] has 32768 elements, 128 per thread with 256 threads, over the cap for one register tile (64 per thread)}}
  // expected-note @below {{use more threads (@launch(512) holds it, 64 per thread) or a smaller tile}}
  %acc = tile.var "acc" = %zero : !tile.var<64x512xf32>
  tile.return
}

// -----

tile.kernel @no_init(%O: !tile.tensor<[16, 64], f32>)
    attributes {threads = 256 : i64, registers = ["acc"]} {
  // expected-error @below {{'acc' is declared without an initial value: a register tile needs one}}
  %acc = tile.var "acc" : !tile.var<16x64xf32>
  tile.return
}

// -----

tile.kernel @update_in_if(%O: !tile.tensor<[16, N], f32>)
    attributes {threads = 256 : i64, registers = ["acc"]} {
  %c64 = arith.constant 64 : index
  %zero = arith.constant dense<0.0> : tensor<16x64xf32>
  // expected-note @below {{'acc' is declared here}}
  %acc = tile.var "acc" = %zero : !tile.var<16x64xf32>
  %n = tile.dim %O[1] : !tile.tensor<[16, N], f32>
  %wide = arith.cmpi sge, %n, %c64 : index
  scf.if %wide {
    %v = tile.read %acc : !tile.var<16x64xf32>
    %s = arith.addf %v, %v : tensor<16x64xf32>
    // expected-error @below {{'acc' is updated inside an if: an update of a register tile inside an if or a while is not supported}}
    // expected-note @below {{update it after the if instead, choosing element by element: 'acc = where(cond, new value, acc)'}}
    tile.write %s, %acc : !tile.var<16x64xf32>
  }
  tile.return
}

// -----

tile.kernel @update_in_while(%O: !tile.tensor<[16, 64], f32>)
    attributes {threads = 256 : i64, registers = ["acc"]} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %zero = arith.constant dense<0.0> : tensor<16x64xf32>
  // expected-note @below {{'acc' is declared here}}
  %acc = tile.var "acc" = %zero : !tile.var<16x64xf32>
  %r = scf.while (%i = %c0) : (index) -> index {
    %more = arith.cmpi slt, %i, %c4 : index
    scf.condition(%more) %i : index
  } do {
  ^bb0(%i: index):
    %v = tile.read %acc : !tile.var<16x64xf32>
    %s = arith.addf %v, %v : tensor<16x64xf32>
    // expected-error @below {{'acc' is updated inside a while: an update of a register tile inside an if or a while is not supported}}
    // expected-note @below {{a for loop carries a register tile through its iterations; a while does not}}
    tile.write %s, %acc : !tile.var<16x64xf32>
    %next = arith.addi %i, %c1 : index
    scf.yield %next : index
  }
  tile.return
}

// -----

// At any depth: a for inside an if is still inside the if.
tile.kernel @update_in_for_in_if(%O: !tile.tensor<[16, N], f32>)
    attributes {threads = 256 : i64, registers = ["acc"]} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant dense<0.0> : tensor<16x64xf32>
  // expected-note @below {{'acc' is declared here}}
  %acc = tile.var "acc" = %zero : !tile.var<16x64xf32>
  %n = tile.dim %O[1] : !tile.tensor<[16, N], f32>
  %wide = arith.cmpi sge, %n, %c64 : index
  scf.if %wide {
    scf.for %i = %c0 to %c64 step %c1 {
      %v = tile.read %acc : !tile.var<16x64xf32>
      // expected-error @below {{'acc' is updated inside an if: an update of a register tile inside an if or a while is not supported}}
      // expected-note @below {{update it after the if instead, choosing element by element: 'acc = where(cond, new value, acc)'}}
      tile.write %v, %acc : !tile.var<16x64xf32>
    }
  }
  tile.return
}

// -----

// Every reason is reported, for every var, at once.
// expected-error @below {{'c' in @registers of kernel 'several' is not a 'var c: tile<..>[..]' of the kernel: the name refers to nothing}}
tile.kernel @several(%O: !tile.tensor<[16, 64], f32>)
    attributes {threads = 256 : i64, registers = ["a", "b", "c"]} {
  // expected-error @below {{'a' is declared without an initial value: a register tile needs one}}
  // expected-error @below {{'a': [3, 5] has 15 elements, which 256 threads cannot share evenly: every thread must hold the same number of elements}}
  %a = tile.var "a" : !tile.var<3x5xf32>
  %zero = arith.constant dense<0.0> : tensor<16x64xf32>
  %b = tile.var "b" = %zero : !tile.var<16x64xf32>
  tile.return
}

// -----

// Only reads and writes can reach a register tile.
tile.kernel @escapes(%O: !tile.tensor<[16, 64], f32>)
    attributes {threads = 256 : i64, registers = ["acc"]} {
  %zero = arith.constant dense<0.0> : tensor<16x64xf32>
  %acc = tile.var "acc" = %zero : !tile.var<16x64xf32>
  // expected-error @below {{'acc' is used by 'test.use', which needs it in memory: a register tile can only be read and written}}
  "test.use"(%acc) : (!tile.var<16x64xf32>) -> ()
  tile.return
}
