// The emulator computes what the compiled kernel computes where that is not
// the IEEE op the lowered code names (lib/Emulator/FloatModel.cpp): an add
// or subtract of a product both marked `contract` (--fp-contract) is one
// fma, as the NVPTX back end emits it; an f32 division marked `afn`
// (--fp-div=full) is div.full.f32, the dividend times the reciprocal; an
// `exp` marked `afn` is __nv_fast_expf.

// a = 1 + 2^-23, c = 1 + 2^-22: a * a - c is 2^-46 rounded once (fma) and
// 0 rounded twice. Out[0]: fused; Out[1]: the subtract not marked; Out[2]:
// the multiply not marked; Out[3]: c - a * a, the product on the right,
// fused; Out[4]: the product in the then-block of an scf.if under the
// multiply's block, which LLVM sinks into it, fused; Out[5]: the add in a
// loop, not fused.
// RUN: tile-emulate %s --kernel contract --arg 'Out=f32[6]' --output Out --print 6 | FileCheck %s --check-prefix=CONTRACT
// CONTRACT: Out f32[6]: sum 1.42109e-14, first 1.42109e-14 0 0 -1.42109e-14 1.42109e-14 0{{$}}

// f16: a = 1 + 2^-10, c = 1 + 2^-9: a * a - c is 2^-20 (an f16 subnormal)
// rounded once (fma.rn.f16), 0 rounded twice (Out[1], not marked).
// RUN: tile-emulate %s --kernel contract_f16 --arg 'Out=f16[2]' --output Out --print 2 | FileCheck %s --check-prefix=F16
// F16: Out f16[2]: sum 9.53674e-07, first 9.53674e-07 0{{$}}

// 3 / 7: correctly rounded 0.428571433; div.full.f32's 3 * (1 / 7) is
// 0.428571463, one ulp (2^-25) above. Out[0]: div.full - IEEE; Out[1]: a
// division without afn, IEEE; Out[2]: x / x - 1 for x = 3 * 2^126, a
// divisor beyond 2^126, which is scaled by 1/4 with the dividend: 0 (its
// reciprocal would otherwise be subnormal, short of bits: 2^-23).
// RUN: tile-emulate %s --kernel divide --arg 'Out=f32[3]' --output Out --print 3 | FileCheck %s --check-prefix=DIVIDE
// DIVIDE: Out f32[3]: sum 2.98023e-08, first 2.98023e-08 0 0{{$}}

// exp(20) afn is 2^t for t = 20 * log2(e) rounded to f32: 485165216, one
// ulp (32) above expf's 485165184.
// RUN: tile-emulate %s --kernel fast_exp --arg 'Out=f32[1]' --output Out --print 1 | FileCheck %s --check-prefix=EXP
// EXP: Out f32[1]: sum 32, first 32{{$}}

module attributes {gpu.container_module} {
gpu.module @tile_kernels {
  gpu.func @contract(%out: !llvm.ptr<1>) kernel attributes {known_block_size = array<i32: 1, 1, 1>} {
    %a = arith.constant 0x3F800001 : f32
    %c = arith.constant 0x3F800002 : f32
    %true = arith.constant true
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %p = arith.mulf %a, %a fastmath<contract> : f32
    %fused = arith.subf %p, %c fastmath<contract> : f32
    %plain = arith.subf %p, %c : f32
    %q = arith.mulf %a, %a : f32
    %unmarked = arith.subf %q, %c fastmath<contract> : f32
    %right = arith.subf %c, %p fastmath<contract> : f32
    %r = arith.mulf %a, %a fastmath<contract> : f32
    %sunk = scf.if %true -> f32 {
      %d = arith.subf %r, %c fastmath<contract> : f32
      scf.yield %d : f32
    } else {
      scf.yield %c : f32
    }
    %s = arith.mulf %a, %a fastmath<contract> : f32
    %zero = arith.constant 0.0 : f32
    %looped = scf.for %i = %c0 to %c1 step %c1 iter_args(%x = %zero) -> f32 {
      %d = arith.subf %s, %c fastmath<contract> : f32
      scf.yield %d : f32
    }
    %p0 = llvm.getelementptr %out[0] : (!llvm.ptr<1>) -> !llvm.ptr<1>, f32
    llvm.store %fused, %p0 : f32, !llvm.ptr<1>
    %p1 = llvm.getelementptr %out[1] : (!llvm.ptr<1>) -> !llvm.ptr<1>, f32
    llvm.store %plain, %p1 : f32, !llvm.ptr<1>
    %p2 = llvm.getelementptr %out[2] : (!llvm.ptr<1>) -> !llvm.ptr<1>, f32
    llvm.store %unmarked, %p2 : f32, !llvm.ptr<1>
    %p3 = llvm.getelementptr %out[3] : (!llvm.ptr<1>) -> !llvm.ptr<1>, f32
    llvm.store %right, %p3 : f32, !llvm.ptr<1>
    %p4 = llvm.getelementptr %out[4] : (!llvm.ptr<1>) -> !llvm.ptr<1>, f32
    llvm.store %sunk, %p4 : f32, !llvm.ptr<1>
    %p5 = llvm.getelementptr %out[5] : (!llvm.ptr<1>) -> !llvm.ptr<1>, f32
    llvm.store %looped, %p5 : f32, !llvm.ptr<1>
    gpu.return
  }

  gpu.func @contract_f16(%out: !llvm.ptr<1>) kernel attributes {known_block_size = array<i32: 1, 1, 1>} {
    %a = arith.constant 0x3C01 : f16
    %c = arith.constant 0x3C02 : f16
    %p = arith.mulf %a, %a fastmath<contract> : f16
    %fused = arith.subf %p, %c fastmath<contract> : f16
    %q = arith.mulf %a, %a : f16
    %err = arith.subf %q, %c : f16
    %p0 = llvm.getelementptr %out[0] : (!llvm.ptr<1>) -> !llvm.ptr<1>, f16
    llvm.store %fused, %p0 : f16, !llvm.ptr<1>
    %p1 = llvm.getelementptr %out[1] : (!llvm.ptr<1>) -> !llvm.ptr<1>, f16
    llvm.store %err, %p1 : f16, !llvm.ptr<1>
    gpu.return
  }

  gpu.func @divide(%out: !llvm.ptr<1>) kernel attributes {known_block_size = array<i32: 1, 1, 1>} {
    %three = arith.constant 3.0 : f32
    %seven = arith.constant 7.0 : f32
    %huge = arith.constant 0x7F400000 : f32
    %unit = arith.constant 1.0 : f32
    %full = arith.divf %three, %seven fastmath<afn> : f32
    %ieee = arith.divf %three, %seven : f32
    %diff = arith.subf %full, %ieee : f32
    %same = arith.subf %ieee, %ieee : f32
    %ratio = arith.divf %huge, %huge fastmath<afn> : f32
    %one = arith.subf %ratio, %unit : f32
    %p0 = llvm.getelementptr %out[0] : (!llvm.ptr<1>) -> !llvm.ptr<1>, f32
    llvm.store %diff, %p0 : f32, !llvm.ptr<1>
    %p1 = llvm.getelementptr %out[1] : (!llvm.ptr<1>) -> !llvm.ptr<1>, f32
    llvm.store %same, %p1 : f32, !llvm.ptr<1>
    %p2 = llvm.getelementptr %out[2] : (!llvm.ptr<1>) -> !llvm.ptr<1>, f32
    llvm.store %one, %p2 : f32, !llvm.ptr<1>
    gpu.return
  }

  gpu.func @fast_exp(%out: !llvm.ptr<1>) kernel attributes {known_block_size = array<i32: 1, 1, 1>} {
    %x = arith.constant 20.0 : f32
    %fast = math.exp %x fastmath<afn> : f32
    %exact = math.exp %x : f32
    %diff = arith.subf %fast, %exact : f32
    %p0 = llvm.getelementptr %out[0] : (!llvm.ptr<1>) -> !llvm.ptr<1>, f32
    llvm.store %diff, %p0 : f32, !llvm.ptr<1>
    gpu.return
  }
}
}
