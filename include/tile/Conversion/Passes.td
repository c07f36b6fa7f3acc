//===- Passes.td - tile conversion passes ------------------*- tablegen -*-===//

#ifndef TILE_CONVERSION_PASSES_TD
#define TILE_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def ConvertTileToGPU : Pass<"tile-to-gpu", "::mlir::ModuleOp"> {
  let summary = "distribute tile kernels over threads: tile -> gpu/scf/vector";
  let description = [{
    Turns every `tile.kernel` (after `tile-promote-registers` and
    `tile-plan-shared`) into a `gpu.func` kernel of the `gpu.module`
    `@tile_kernels`, which carries `#nvvm.target<chip = ...>`.

    Every tile value becomes, in each thread, a `vector<K x T>` of its
    elements `thread + k * threads` (row-major), so elementwise `arith` and
    `math` ops on tiles become the same ops on those vectors, fused per
    element with no temporary in memory. Global tensors are
    `!llvm.ptr<1>` parameters (one per tensor, then one i64 per symbolic
    dimension, as `docs/abi.md` specifies); slices are read and written by
    consecutive threads at consecutive addresses of a row, and masked at
    the tensor bounds unless the bounds are proven statically. Shared vars
    are views of one workgroup buffer at the offsets `tile-plan-shared`
    chose (dynamic shared memory above 48 KiB); vars kept in registers and
    scalar vars are per-thread allocas. Row reductions of tiles whose rows
    are runs of lanes become butterflies of `gpu.shuffle xor`; other
    reductions, `dot` and broadcasts read shared memory.

    Each `tile.barrier` (placed by `tile-insert-barriers`, which the kernel
    must have run: `tile.synchronized`) becomes a `gpu.barrier`.

    An async `tile.copy` becomes `cp.async` on sm_80 and newer. Below
    sm_80 (and for a `gpu.module` whose target names no chip), which has
    no `cp.async`, it is lowered as the synchronous copy, with the same
    zero-fill outside the tensor, and `tile.commit_group` and
    `tile.wait_group` become nothing, as CUTLASS's `cp_async` for SM < 80;
    the barriers stay.

    Float ops carry fastmath `contract` unless `fp-contract=false`, so a
    multiply feeding an add becomes one fused multiply-add (rounded once),
    as nvcc and Triton compile them by default.

    With `fp-div=full`, every f32 `arith.divf` gets fastmath `afn`, which
    `tile-fast-math` lowers to `div.full.f32` (at most 2 ulp, Triton's
    `/`); the default, `fp-div=ieee`, leaves them correctly rounded
    (`div.rn.f32`, nvcc's default).

    With `index-bits=32` the `gpu.module` gets the data layout
    `#dlti.dl_spec<index = 32 : i64>`, from which `convert-gpu-to-nvvm`
    lowers every index value to i32 (sizes and index scalars still arrive
    as i64 and are truncated; the launch checks they fit, docs/abi.md).
  }];
  let dependentDialects = [
    "::mlir::DLTIDialect", "::mlir::arith::ArithDialect", "::mlir::gpu::GPUDialect",
    "::mlir::LLVM::LLVMDialect", "::mlir::math::MathDialect",
    "::mlir::memref::MemRefDialect", "::mlir::NVVM::NVVMDialect",
    "::mlir::nvgpu::NVGPUDialect", "::mlir::scf::SCFDialect",
    "::mlir::vector::VectorDialect"
  ];
  let options = [
    Option<"chip", "chip", "std::string", /*default=*/"\"sm_90\"",
           "the target GPU, sm_70 to sm_100">,
    Option<"optLevel", "O", "unsigned", /*default=*/"3",
           "optimization level of the NVPTX back end">,
    Option<"fpContract", "fp-contract", "bool", /*default=*/"true",
           "let a float multiply and add fuse into one FMA (fastmath "
           "contract); false keeps each op's own IEEE rounding">,
    Option<"fpDiv", "fp-div", "std::string", /*default=*/"\"ieee\"",
           "how an f32 division is compiled: ieee (div.rn.f32, correctly "
           "rounded) or full (div.full.f32, at most 2 ulp; fastmath afn, "
           "for tile-fast-math)">,
    Option<"indexBits", "index-bits", "unsigned", /*default=*/"64",
           "the width of index arithmetic in the GPU code, 32 or 64: with "
           "32, the gpu.module's data layout makes index 32 bits wide "
           "unless a kernel names a number beyond 32 bits (chooseIndexBits), "
           "and the manifest asks the launcher to check the sizes">,
  ];
}

def TileFastMath : Pass<"tile-fast-math", "::mlir::gpu::GPUModuleOp"> {
  let summary = "the hardware's fast paths for math whose results allow them";
  let description = [{
    Runs on the `gpu.module` before `convert-gpu-to-nvvm`, for the chip
    of its `#nvvm.target`. `math.tanh` of f16 and bf16 values (scalars
    or vectors) becomes, on sm_75 and newer, the MUFU instruction
    `tanh.approx.f32` on the value widened to f32, rounded back: its
    error (about 1.1e-5 relative, measured; the PTX ISA calls it an
    approximation) is far below half an ulp of f16 (2^-11) or bf16
    (2^-8). f32 `tanh` keeps libdevice's `__nv_tanhf` (2 ulp), whose
    result the f32 check can hold the kernel to. (`exp` takes its fast
    path from the front end: `math.exp` with `fastmath<afn>` lowers to
    `__nv_fast_expf`, `ex2.approx` of x * log2(e).)

    An f32 `arith.divf` with fastmath `afn` (tile-to-gpu's `fp-div=full`),
    scalar or vector, becomes `llvm.nvvm.div.full`, PTX's `div.full.f32`
    (at most 2 ulp on every chip, Triton's `/`), slot by slot; NVPTX
    alone would make `afn` `div.approx.f32`, which is wrong for divisors
    beyond 2^126. Divisions without `afn` stay `div.rn.f32`.
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect",
                           "::mlir::vector::VectorDialect"];
}

def TilePredicatedAccesses
    : Pass<"tile-predicated-accesses", "::mlir::gpu::GPUModuleOp"> {
  let summary = "guarded global loads, and stores in loops, as predicated "
                "PTX accesses";
  let description = [{
    Runs on the `gpu.module` of the PTX pipeline, after tile-to-gpu and
    before `convert-scf-to-cf`; the emulator runs tile-to-gpu's output,
    before it. Each `scf.if %inside -> (T) { ...; %v = llvm.load %p; yield
    %v } else { yield %other }` that tile-to-gpu makes of a guarded load
    of global memory (address space 1) of 4, 8 or 16 bytes becomes one
    predicated PTX load with no branch, Triton's form: the then-branch's
    address arithmetic is hoisted (only where every op of it is pure and
    speculatable), the result registers are set to `%other`, and
    `@p ld.global[.v2|.v4].b32` overwrites them where `%inside` holds.
    Why: LLVM folds an operation on the else-branch's constant into the
    branches (`x * x` of a zero is zero), which splits `acc + x * x`
    across blocks, and NVPTX fuses a multiply and an add only within one
    (squares' div16 loop had FMUL and FADD where it should have FFMA).
    The load is an `llvm.inline_asm` with side effects, so neither MLIR
    nor LLVM moves, merges or deletes it; ptxas schedules it as any load.
    A result-less `scf.if %inside { ...; llvm.store %v, %p }` of a store
    to global memory of 4, 8 or 16 bytes inside a loop becomes `@p
    st.global[.v2|.v4].b32` the same way. Why: a slice's checked stores
    and its unchecked ones are the same stores, and where every run of
    the slice has one guard LLVM sank both into one block under `whole ||
    inside`, so the iteration inside the tensor computed the checked
    path's guard too (rowscale's div16 loop, 59 SASS instructions a warp
    where 53 do); as asm they differ and stay apart. Outside loops, where
    an access runs once, stores keep their branch (which ptxas
    if-converts) and their fewer instructions. Other `scf.if`s, accesses
    of shared memory, and accesses of other widths are left as they are.
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect",
                           "::mlir::vector::VectorDialect"];
}

def TileBF16MmaToNVVM
    : Pass<"tile-bf16-mma-to-nvvm", "::mlir::gpu::GPUModuleOp"> {
  let summary = "nvgpu.mma.sync of bf16 to nvvm.mma.sync";
  let description = [{
    Runs on the `gpu.module` before `convert-nvgpu-to-nvvm`, which (in MLIR
    22) lowers `nvgpu.mma.sync` of f16, tf32, f64 and integers but not of
    bf16. Each `nvgpu.mma.sync` of bf16 operands (m16n8k16, accumulating in
    f32) becomes `nvvm.mma.sync` with bf16 multiplicands: the 32-bit
    registers of A and B (two bf16 of a fragment row each) as i32 operands,
    C's four f32 as scalars, and the result struct repacked as the op's
    `vector<2x2xf32>`. tile-to-gpu emits `nvgpu` for every element type, so
    the emulator (which runs before this pass) models one op.
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect",
                           "::mlir::NVVM::NVVMDialect",
                           "::mlir::vector::VectorDialect"];
}

def TileExternDynamicShared
    : Pass<"tile-extern-dynamic-shared", "::mlir::gpu::GPUModuleOp"> {
  let summary = "dynamic shared memory as PTX's extern array of no size";
  let description = [{
    Runs on the `gpu.module` after `convert-gpu-to-nvvm`, which (in MLIR
    22) gives `gpu.dynamic_shared_memory` an internal zero-sized
    `llvm.mlir.global` in address space 3. The NVPTX backend prints that
    as `.shared .align 16 .b8 NAME;`: one byte of static shared memory
    (ptxas -v: "1 bytes smem") that the kernel then addresses past its
    end into the dynamic window, so a CTA takes 1 byte, aligned, more
    than its plan, and a plan of exactly the chip's limit fails to launch.
    Each such global becomes external, which NVPTX prints as PTX's
    dynamic shared memory, `.extern .shared .align 16 .b8 NAME[];`.
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
}

def TileVerifyLowered : Pass<"tile-verify-lowered", "::mlir::ModuleOp"> {
  let summary = "reject IR that the lowering to PTX cannot take, located";
  let description = [{
    Runs first in `tile-to-ptx` and again before the translation to PTX,
    so that IR the verifiers accept but the lowering cannot take (gpu-
    dialect input, hand-written or generated) is an error at the op, not a
    crash, an abort or a compile that runs out of memory:

    * a vector type of more than 1024 elements (tile's own lowering makes
      vectors of at most 16 bytes; MLIR's vector lowering and NVPTX unroll
      a vector element by element: `vector<40000xf32>` aborts in LLVM,
      `vector<16777216xf32>` runs for minutes through gigabytes);
    * a type that LLVM does not have (`index`) in an attribute of an op of
      the `llvm` dialect, such as the element type of `llvm.getelementptr`
      (its verifier accepts it; the translation to LLVM IR crashes on it).
  }];
}

def TilePTXThreadLimit
    : Pass<"tile-ptx-thread-limit", "::mlir::gpu::GPUModuleOp"> {
  let summary = "PTX's .maxntid only where it limits a thread's registers";
  let description = [{
    Runs on the `gpu.module` after `convert-gpu-to-nvvm`, which turns each
    kernel's `known_block_size` into `nvvm.maxntid` (PTX's `.maxntid`).
    ptxas reads `.maxntid` as a limit (a thread may use 65536 / threads
    registers) and also as a target of CTAs an SM: at `.maxntid 256` it
    holds a thread to 128 registers, two CTAs an SM, where the code needs
    a few more, and spills to get there (an f32 SIMT GEMM of [64, 32] x
    [32, 64] slices: 128 registers and 20 B of spills with it, 146 and none
    without; docs/performance.md). tile's register estimate gives a thread
    the register file's share of one CTA. For a kernel of at most 256
    threads the limit says nothing (the 255 registers a thread may have fit
    256 threads), so the pass removes the directive; above 256 threads it
    stays, since there it is what keeps ptxas within the register file.
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
}

#endif // TILE_CONVERSION_PASSES_TD
