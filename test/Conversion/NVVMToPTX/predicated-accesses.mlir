// RUN: tile-opt %s -split-input-file --allow-unregistered-dialect --pass-pipeline='builtin.module(gpu.module(tile-predicated-accesses))' | FileCheck %s

// A guarded 16-byte load of global memory: the address arithmetic leaves
// the branch, the registers take the else-branch's value, and one
// predicated ld.global.v4.b32 overwrites them where the guard holds.
// CHECK-LABEL: gpu.func @run(
// CHECK-SAME: %[[P:[^:]*]]: !llvm.ptr<1>, %[[I:[^:]*]]: i64, %[[C:[^:]*]]: i1
// CHECK-NOT: scf.if
// CHECK: %[[A:.*]] = llvm.getelementptr %[[P]][%[[I]]]
// CHECK: %[[W:.*]] = vector.bitcast %{{.*}} : vector<4xf32> to vector<4xi32>
// CHECK-COUNT-4: vector.extract %[[W]][{{[0-3]}}] : i32 from vector<4xi32>
// CHECK: %[[L:.*]] = llvm.inline_asm has_side_effects "mov.b32 $0, $6;\0A\09mov.b32 $1, $7;\0A\09mov.b32 $2, $8;\0A\09mov.b32 $3, $9;\0A\09@$5 ld.global.v4.b32 {$0, $1, $2, $3}, [$4];", "=r,=r,=r,=r,l,b,r,r,r,r" %[[A]], %[[C]], {{.*}} : (!llvm.ptr<1>, i1, i32, i32, i32, i32) -> !llvm.struct<(i32, i32, i32, i32)>
// CHECK-COUNT-4: llvm.extractvalue %[[L]][{{[0-3]}}]
// CHECK: %[[V:.*]] = vector.bitcast %{{.*}} : vector<4xi32> to vector<4xf32>
// CHECK: arith.mulf %[[V]], %[[V]]
// CHECK-NOT: scf.if
gpu.module @tile_kernels [#nvvm.target<chip = "sm_90">] {
  gpu.func @run(%p: !llvm.ptr<1>, %i: i64, %c: i1, %acc: vector<4xf32>) kernel {
    %zero = arith.constant dense<0.000000e+00> : vector<4xf32>
    %0 = scf.if %c -> (vector<4xf32>) {
      %a = llvm.getelementptr %p[%i] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
      %v = llvm.load %a {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xf32>
      scf.yield %v : vector<4xf32>
    } else {
      scf.yield %zero : vector<4xf32>
    }
    %1 = arith.mulf %0, %0 fastmath<contract> : vector<4xf32>
    %2 = arith.addf %acc, %1 fastmath<contract> : vector<4xf32>
    gpu.return
  }
}

// -----

// A word (f32) and two halves of f16 in one word, an 8-byte pair of f16
// pairs: ld.global.b32 and ld.global.v2.b32, with `other` in the
// registers first.
// CHECK-LABEL: gpu.func @widths(
// CHECK: vector.bitcast %{{.*}} : vector<1xf32> to vector<1xi32>
// CHECK: llvm.inline_asm has_side_effects "mov.b32 $0, $3;\0A\09@$2 ld.global.b32 $0, [$1];", "=r,l,b,r" {{.*}} -> i32
// CHECK: vector.bitcast %{{.*}} : vector<1xi32> to vector<1xf32>
// CHECK: llvm.inline_asm has_side_effects "mov.b32 $0, $3;\0A\09@$2 ld.global.b32 $0, [$1];", "=r,l,b,r" {{.*}} -> i32
// CHECK: vector.bitcast %{{.*}} : vector<1xi32> to vector<2xf16>
// CHECK: llvm.inline_asm has_side_effects "mov.b32 $0, $4;\0A\09mov.b32 $1, $5;\0A\09@$3 ld.global.v2.b32 {$0, $1}, [$2];", "=r,=r,l,b,r,r"
// CHECK: vector.bitcast %{{.*}} : vector<2xi32> to vector<4xf16>
gpu.module @tile_kernels [#nvvm.target<chip = "sm_90">] {
  gpu.func @widths(%p: !llvm.ptr<1>, %q: !llvm.ptr<1>, %c: i1, %other: f32) kernel {
    %zero = arith.constant dense<0.000000e+00> : vector<2xf16>
    %zero4 = arith.constant dense<0.000000e+00> : vector<4xf16>
    %0 = scf.if %c -> (f32) {
      %v = llvm.load %p : !llvm.ptr<1> -> f32
      scf.yield %v : f32
    } else {
      scf.yield %other : f32
    }
    %1 = scf.if %c -> (vector<2xf16>) {
      %v = llvm.load %q {alignment = 4 : i64} : !llvm.ptr<1> -> vector<2xf16>
      scf.yield %v : vector<2xf16>
    } else {
      scf.yield %zero : vector<2xf16>
    }
    %2 = scf.if %c -> (vector<4xf16>) {
      %v = llvm.load %q {alignment = 8 : i64} : !llvm.ptr<1> -> vector<4xf16>
      scf.yield %v : vector<4xf16>
    } else {
      scf.yield %zero4 : vector<4xf16>
    }
    "test.use"(%0, %1, %2) : (f32, vector<2xf16>, vector<4xf16>) -> ()
    gpu.return
  }
}

// -----

// Left as they are: a load of shared memory, a load of 2 bytes, a vector
// load below its natural alignment, a branch that does more than address
// arithmetic (a store), and a division that may trap if hoisted.
// CHECK-LABEL: gpu.func @kept(
// CHECK-NOT: llvm.inline_asm
// CHECK-COUNT-5: scf.if
// CHECK-NOT: llvm.inline_asm
gpu.module @tile_kernels [#nvvm.target<chip = "sm_90">] {
  gpu.func @kept(%p: !llvm.ptr<1>, %s: !llvm.ptr<3>, %c: i1, %n: i64) kernel {
    %f = arith.constant 0.000000e+00 : f32
    %h = arith.constant 0.000000e+00 : f16
    %z = arith.constant dense<0.000000e+00> : vector<4xf32>
    %0 = scf.if %c -> (f32) {
      %v = llvm.load %s : !llvm.ptr<3> -> f32
      scf.yield %v : f32
    } else {
      scf.yield %f : f32
    }
    %1 = scf.if %c -> (f16) {
      %v = llvm.load %p : !llvm.ptr<1> -> f16
      scf.yield %v : f16
    } else {
      scf.yield %h : f16
    }
    %2 = scf.if %c -> (vector<4xf32>) {
      %v = llvm.load %p {alignment = 4 : i64} : !llvm.ptr<1> -> vector<4xf32>
      scf.yield %v : vector<4xf32>
    } else {
      scf.yield %z : vector<4xf32>
    }
    %3 = scf.if %c -> (f32) {
      llvm.store %f, %p : f32, !llvm.ptr<1>
      %v = llvm.load %p : !llvm.ptr<1> -> f32
      scf.yield %v : f32
    } else {
      scf.yield %f : f32
    }
    %4 = scf.if %c -> (f32) {
      %d = arith.divui %n, %n : i64
      %a = llvm.getelementptr %p[%d] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
      %v = llvm.load %a : !llvm.ptr<1> -> f32
      scf.yield %v : f32
    } else {
      scf.yield %f : f32
    }
    "test.use"(%0, %1, %2, %3, %4) : (f32, f16, vector<4xf32>, f32, f32) -> ()
    gpu.return
  }
}

// -----

// A guarded 16-byte store to global memory in a loop: the address
// arithmetic leaves the branch and one predicated st.global.v4.b32 stores
// the words of the value where the guard holds. Outside a loop, and to
// shared memory, a guarded store keeps its branch.
// CHECK-LABEL: gpu.func @stores(
// CHECK: scf.for
// CHECK-NOT: scf.if
// CHECK: %[[A:.*]] = llvm.getelementptr
// CHECK: %[[W:.*]] = vector.bitcast %{{.*}} : vector<4xf32> to vector<4xi32>
// CHECK: llvm.inline_asm has_side_effects "@$0 st.global.v4.b32 [$1], {$2, $3, $4, $5};", "b,l,r,r,r,r" %{{.*}}, %[[A]], {{.*}} : (i1, !llvm.ptr<1>, i32, i32, i32, i32) -> ()
// CHECK: scf.if
// CHECK: llvm.store %{{.*}}, %{{.*}} {alignment = 16 : i64} : vector<4xf32>, !llvm.ptr<1>
// CHECK: scf.if
// CHECK: llvm.store %{{.*}}, %{{.*}} : f32, !llvm.ptr<3>
// CHECK-NOT: llvm.inline_asm
gpu.module @tile_kernels [#nvvm.target<chip = "sm_90">] {
  gpu.func @stores(%p: !llvm.ptr<1>, %s: !llvm.ptr<3>, %c: i1, %v: vector<4xf32>, %n: index) kernel {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %f = arith.constant 1.000000e+00 : f32
    scf.for %i = %c0 to %n step %c1 {
      scf.if %c {
        %j = arith.index_cast %i : index to i64
        %a = llvm.getelementptr %p[%j] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
        llvm.store %v, %a {alignment = 16 : i64} : vector<4xf32>, !llvm.ptr<1>
      }
    }
    scf.if %c {
      llvm.store %v, %p {alignment = 16 : i64} : vector<4xf32>, !llvm.ptr<1>
    }
    scf.for %i = %c0 to %n step %c1 {
      scf.if %c {
        llvm.store %f, %s : f32, !llvm.ptr<3>
      }
    }
    gpu.return
  }
}
