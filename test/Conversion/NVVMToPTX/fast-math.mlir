// RUN: tile-opt %s -split-input-file --pass-pipeline='builtin.module(gpu.module(tile-fast-math))' | FileCheck %s

// tanh of f16 and bf16 takes tanh.approx.f32 on sm_75 and newer, slot by
// slot through f32; f32 tanh keeps libdevice's accurate path.
// CHECK-LABEL: gpu.func @tanh(
// CHECK: %[[E0:.*]] = vector.extract %{{.*}}[0] : f16 from vector<2xf16>
// CHECK: %[[W0:.*]] = arith.extf %[[E0]] : f16 to f32
// CHECK: %[[T0:.*]] = llvm.inline_asm "tanh.approx.f32 $0, $1;", "=f,f" %[[W0]] : (f32) -> f32
// CHECK: arith.truncf %[[T0]] : f32 to f16
// CHECK: llvm.inline_asm "tanh.approx.f32 $0, $1;", "=f,f"
// CHECK: arith.extf %{{.*}} : bf16 to f32
// CHECK: llvm.inline_asm "tanh.approx.f32
// CHECK: arith.truncf %{{.*}} : f32 to bf16
// CHECK: math.tanh %{{.*}} : vector<2xf32>
// CHECK-NOT: math.tanh
gpu.module @tile_kernels [#nvvm.target<chip = "sm_90">] {
  gpu.func @tanh(%h: vector<2xf16>, %b: bf16, %f: vector<2xf32>) kernel {
    %0 = math.tanh %h : vector<2xf16>
    %1 = math.tanh %b : bf16
    %2 = math.tanh %f : vector<2xf32>
    gpu.return
  }
}

// -----

// sm_70 has no MUFU.TANH: libdevice's path stays.
// CHECK-LABEL: gpu.func @old(
// CHECK-NOT: llvm.inline_asm
// CHECK: math.tanh %{{.*}} : vector<2xf16>
gpu.module @tile_kernels [#nvvm.target<chip = "sm_70">] {
  gpu.func @old(%h: vector<2xf16>) kernel {
    %0 = math.tanh %h : vector<2xf16>
    gpu.return
  }
}

// -----

// An f32 division marked `afn` (tile-to-gpu's fp-div=full) becomes
// div.full.f32, slot by slot, on every chip; one without `afn`, or of f16,
// stays arith.divf (div.rn).
// CHECK-LABEL: gpu.func @quotients(
// CHECK: %[[X0:.*]] = vector.extract %[[X:.*]][0] : f32 from vector<2xf32>
// CHECK: %[[Y0:.*]] = vector.extract %[[Y:.*]][0] : f32 from vector<2xf32>
// CHECK: %[[Q0:.*]] = llvm.call_intrinsic "llvm.nvvm.div.full"(%[[X0]], %[[Y0]]) : (f32, f32) -> f32
// CHECK: %[[V0:.*]] = vector.insert %[[Q0]], %{{.*}} [0] : f32 into vector<2xf32>
// CHECK: vector.extract %[[X]][1]
// CHECK: vector.extract %[[Y]][1]
// CHECK: llvm.call_intrinsic "llvm.nvvm.div.full"
// CHECK: vector.insert %{{.*}}, %[[V0]] [1]
// CHECK: llvm.call_intrinsic "llvm.nvvm.div.full"(%{{.*}}, %{{.*}}) : (f32, f32) -> f32
// CHECK: arith.divf %{{.*}}, %{{.*}} : f32
// CHECK: arith.divf %{{.*}}, %{{.*}} fastmath<afn> : vector<2xf16>
// CHECK-NOT: llvm.call_intrinsic
gpu.module @tile_kernels [#nvvm.target<chip = "sm_70">] {
  gpu.func @quotients(%x: vector<2xf32>, %y: vector<2xf32>, %a: f32, %h: vector<2xf16>) kernel {
    %0 = arith.divf %x, %y fastmath<afn> : vector<2xf32>
    %1 = arith.divf %a, %a fastmath<afn> : f32
    %2 = arith.divf %a, %a : f32
    %3 = arith.divf %h, %h fastmath<afn> : vector<2xf16>
    gpu.return
  }
}
