// RUN: tile-opt %s --pass-pipeline='builtin.module(gpu.module(tile-bf16-mma-to-nvvm))' | FileCheck %s
// The rest of tile-to-ptx after it: both mma.sync and the ldmatrix reach
// the PTX (ptxas takes the examples' in test/Target/PTX).
// RUN: tile-opt %s --pass-pipeline='builtin.module(gpu.module(tile-bf16-mma-to-nvvm,convert-nvgpu-to-nvvm,convert-gpu-to-nvvm{index-bitwidth=64}),convert-vector-to-llvm,finalize-memref-to-llvm,reconcile-unrealized-casts,gpu-module-to-binary{format=isa})' | FileCheck %s --check-prefix=PTX

// An nvgpu.mma.sync of bf16, which convert-nvgpu-to-nvvm does not lower,
// becomes nvvm.mma.sync of bf16 registers (A's four and B's two 32-bit
// registers as i32, C's four f32); f16 is left to the upstream pass.
// CHECK-LABEL: gpu.func @products(
// CHECK-COUNT-4: vector.bitcast %{{.*}} : vector<2xbf16> to vector<1xi32>
// CHECK-COUNT-2: vector.bitcast %{{.*}} : vector<2xbf16> to vector<1xi32>
// CHECK: %[[D:.*]] = nvvm.mma.sync A[{{.*}}] B[{{.*}}] C[{{.*}}] {layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>, multiplicandAPtxType = #nvvm.mma_type<bf16>, multiplicandBPtxType = #nvvm.mma_type<bf16>, shape = #nvvm.shape<m = 16, n = 8, k = 16>} : (i32, i32, f32) -> !llvm.struct<(f32, f32, f32, f32)>
// CHECK-COUNT-4: llvm.extractvalue %[[D]]
// CHECK: vector.from_elements {{.*}} : vector<2x2xf32>
// CHECK: nvgpu.mma.sync({{.*}}) {mmaShape = [16, 8, 16]} : (vector<4x2xf16>, vector<2x2xf16>, vector<2x2xf32>) -> vector<2x2xf32>
// CHECK-NOT: nvgpu.mma.sync
// PTX-DAG: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
// PTX-DAG: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
// PTX-DAG: ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16
gpu.module @tile_kernels [#nvvm.target<chip = "sm_90", features = "+ptx80">] {
  gpu.func @products(%out: !llvm.ptr<1>) workgroup(%shared : memref<512xi8, #gpu.address_space<workgroup>>) kernel attributes {known_block_size = array<i32: 32, 1, 1>} {
    %c0 = arith.constant 0 : index
    %tid = gpu.thread_id x
    %c8 = arith.constant 8 : index
    %row = arith.muli %tid, %c8 : index
    %bf = memref.view %shared[%c0][] : memref<512xi8, #gpu.address_space<workgroup>> to memref<256xbf16, #gpu.address_space<workgroup>>
    %f = memref.view %shared[%c0][] : memref<512xi8, #gpu.address_space<workgroup>> to memref<256xf16, #gpu.address_space<workgroup>>
    %ab = nvgpu.ldmatrix %bf[%row] {numTiles = 4 : i32, transpose = false} : memref<256xbf16, #gpu.address_space<workgroup>> -> vector<4x2xbf16>
    %bb = nvgpu.ldmatrix %bf[%row] {numTiles = 2 : i32, transpose = true} : memref<256xbf16, #gpu.address_space<workgroup>> -> vector<2x2xbf16>
    %af = nvgpu.ldmatrix %f[%row] {numTiles = 4 : i32, transpose = true} : memref<256xf16, #gpu.address_space<workgroup>> -> vector<4x2xf16>
    %bff = nvgpu.ldmatrix %f[%row] {numTiles = 2 : i32, transpose = true} : memref<256xf16, #gpu.address_space<workgroup>> -> vector<2x2xf16>
    %zero = arith.constant dense<0.0> : vector<2x2xf32>
    %d = nvgpu.mma.sync(%ab, %bb, %zero) {mmaShape = [16, 8, 16]} : (vector<4x2xbf16>, vector<2x2xbf16>, vector<2x2xf32>) -> vector<2x2xf32>
    %e = nvgpu.mma.sync(%af, %bff, %d) {mmaShape = [16, 8, 16]} : (vector<4x2xf16>, vector<2x2xf16>, vector<2x2xf32>) -> vector<2x2xf32>
    %x = vector.extract %e[0, 0] : f32 from vector<2x2xf32>
    %t = arith.index_cast %tid : index to i64
    %p = llvm.getelementptr %out[%t] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
    llvm.store %x, %p : f32, !llvm.ptr<1>
    gpu.return
  }
}
