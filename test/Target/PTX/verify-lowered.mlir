// gpu-dialect input that the verifiers accept but the lowering to PTX
// cannot take is a located error before anything is lowered
// (tile-verify-lowered), not a crash of the translation, LLVM's abort, or
// minutes and gigabytes of unrolling.
// RUN: tile-opt %s --tile-to-ptx -split-input-file -verify-diagnostics
// RUN: tile-opt %s --tile-verify-lowered -split-input-file -verify-diagnostics
// RUN: %expect_exit 2 tile-emulate %s --kernel huge 2>&1 | FileCheck %s --check-prefix=EMULATE
// A vector type so large that MLIR's own verifiers abort on it (utils/fuzz.py
// seed 5, iteration 27: vector.from_elements of vector<65536x65536xf16>) is
// refused before MLIR parses it.
// RUN: echo 'func.func @f(%a: f16) { %v = vector.from_elements %a, %a : vector<65536x65536xf16> return }' > %t.huge.mlir
// RUN: %expect_exit 1 tile-opt %t.huge.mlir --tile-to-ptx 2>&1 | FileCheck %s --check-prefix=HUGE
// HUGE: huge.mlir:1:60: error: a vector of more than 1048576 elements is not supported (the lowering takes 1024)
// EMULATE: verify-lowered.mlir:{{[0-9]+}}:{{[0-9]+}}: error: 'llvm.getelementptr' op has the type 'index' as its 'elem_type'

// The translation to LLVM IR crashed on a GEP over `index` (utils/fuzz.py
// on the IR tile-opt prints).
module attributes {gpu.container_module} {
  gpu.module @m [#nvvm.target<O = 3, chip = "sm_90", features = "+ptx80">] {
    gpu.func @huge(%p: !llvm.ptr<1>) kernel {
      %c = llvm.mlir.constant(1 : i64) : i64
      // expected-error @+1 {{'llvm.getelementptr' op has the type 'index' as its 'elem_type', which LLVM does not have}}
      %q = llvm.getelementptr %p[%c] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, index
      gpu.return
    }
  }
}

// -----

// vector<40000xf32> aborted in LLVM ("SmallVector unable to grow"),
// vector<16777216xf32> ran for minutes through gigabytes.
module attributes {gpu.container_module} {
  gpu.module @m [#nvvm.target<O = 3, chip = "sm_90", features = "+ptx80">] {
    gpu.func @huge(%p: memref<40000xf32, 1>) kernel {
      %c0 = arith.constant 0 : index
      %f = arith.constant 1.0 : f32
      // expected-error @+1 {{'vector.broadcast' op uses 'vector<40000xf32>', a vector of more than 1024 elements, which the lowering to PTX does not take}}
      %v = vector.broadcast %f : f32 to vector<40000xf32>
      vector.store %v, %p[%c0] : memref<40000xf32, 1>, vector<40000xf32>
      gpu.return
    }
  }
}

// -----

// At the limit: accepted.
module attributes {gpu.container_module} {
  gpu.module @m [#nvvm.target<O = 3, chip = "sm_90", features = "+ptx80">] {
    gpu.func @wide(%p: memref<1024xf32, 1>) kernel {
      %c0 = arith.constant 0 : index
      %f = arith.constant 1.0 : f32
      %v = vector.broadcast %f : f32 to vector<1024xf32>
      vector.store %v, %p[%c0] : memref<1024xf32, 1>, vector<1024xf32>
      gpu.return
    }
  }
}
