"""The examples as Triton users write them (the tutorials' style: a 2-D
accumulator in the loop, reduced once after it; masked tl.load/tl.store;
tl.sum, tl.max, tl.dot), compiled for a GPU that need not be there:
`triton.compile(ASTSource(...), target=GPUTarget("cuda", 90, 32))`.

Each example has three configurations (CONFIGS):

* `same`:  the work of one tile CTA (the example's tile shapes, its thread
           count as num_warps), told only what tile knows: the static sizes
           as constexprs, and nothing about the run-time ones (no
           divisibility, no pointer alignment);
* `div16`: the same kernel with what Triton's launcher tells it at every
           real launch: every pointer and integer argument divisible by 16;
* `pref`:  the configuration a Triton user would pick (the tutorials'
           block sizes and warps), with the launcher's divisibility; for
           the gemm, the tutorial's own kernel in its Hopper config.

The gemm has two more, `same-mma` and `div16-mma`: `same` and `div16` with
Triton's wgmma off (DISABLE_MMA_V3=1 for the compile), so that its `tl.dot`
is on mma.sync as tile's is. softmax has `div16-rn`: `div16` with its
quotients `tl.div_rn` (div.rn.f32, correctly rounded, as tile's default
`/`; Triton's `/` is div.full.f32).

  python triton_examples.py NAME CONFIG OUT.cubin [WARM]
      compiles one (no cache), writes its cubin, and prints a JSON object:
      the seconds of that compile, of WARM more in the same process, and
      the configuration's num_warps and rows a program (ROWS), its
      dynamic shared memory and the kernel's function name.
"""

import json
import os
import sys
import tempfile
import time

import triton
import triton.language as tl
from triton.backends.compiler import GPUTarget
from triton.compiler import ASTSource

# The GPU bundle's Triton kernels: its matmul of any size (every edge
# masked; storing to f16 C rounds), the gemm's same-shape kernel, and
# Triton's tutorial matmul, which the bundle times.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                os.pardir, "utils", "gpu-bundle"))
from triton_kernels import gemm_tutorial_kernel  # noqa: E402
from triton_kernels import matmul_kernel as masked_matmul_kernel  # noqa: E402


@triton.jit
def squares_kernel(X, O, S, K, ROWS: tl.constexpr, BLOCK_K: tl.constexpr):
    # One program for all 16 rows, as tile's one CTA.
    rows = tl.arange(0, ROWS)[:, None]
    cols = tl.arange(0, BLOCK_K)[None, :]
    acc = tl.zeros([ROWS, BLOCK_K], dtype=tl.float32)
    for k in range(0, K, BLOCK_K):
        x = tl.load(X + rows * K + k + cols, mask=k + cols < K, other=0.0)
        acc += x * x
    # O holds the 64 columns: fold wider blocks onto them.
    folded = tl.sum(tl.reshape(acc, [ROWS, BLOCK_K // 64, 64]), axis=1)
    tl.store(O + rows * 64 + tl.arange(0, 64)[None, :], folded)
    tl.store(S + tl.arange(0, ROWS), tl.sum(folded, axis=1))


@triton.jit
def softmax_kernel(X, Y, ROWS: tl.constexpr, COLS: tl.constexpr,
                   DIV_RN: tl.constexpr):
    # ROWS rows a program: 16 (tile's CTA), or one (the tutorial's). DIV_RN:
    # the quotients correctly rounded (tl.div_rn, div.rn.f32), as tile's
    # default `/` is; Triton's `/` is div.full.f32.
    rows = tl.program_id(0) * ROWS + tl.arange(0, ROWS)[:, None]
    cols = tl.arange(0, COLS)[None, :]
    x = tl.load(X + rows * COLS + cols)
    e = tl.exp(x - tl.max(x, axis=1)[:, None])
    total = tl.sum(e, axis=1)[:, None]
    y = tl.div_rn(e, total) if DIV_RN else e / total
    tl.store(Y + rows * COLS + cols, y)


@triton.jit
def matmul_kernel(A, B, C, K, M: tl.constexpr, N: tl.constexpr,
                  BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                  BLOCK_K: tl.constexpr):
    rm = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    a_ptrs = A + rm[:, None] * K + rk[None, :]
    b_ptrs = B + rk[:, None] * N + rn[None, :]
    acc = tl.zeros([BLOCK_M, BLOCK_N], dtype=tl.float32)
    for k in range(0, K, BLOCK_K):
        a = tl.load(a_ptrs, mask=k + rk[None, :] < K, other=0.0)
        b = tl.load(b_ptrs, mask=k + rk[:, None] < K, other=0.0)
        acc += tl.dot(a, b)
        a_ptrs += BLOCK_K
        b_ptrs += BLOCK_K * N
    tl.store(C + rm[:, None] * N + rn[None, :], acc,
             mask=(rm[:, None] < M) & (rn[None, :] < N))


@triton.jit
def rowscale_kernel(X, S, Y, M, N, ROWS: tl.constexpr, BLOCK_N: tl.constexpr):
    rows = tl.program_id(0) * ROWS + tl.arange(0, ROWS)[:, None]
    scale = tl.load(S + rows, mask=rows < M, other=0.0)
    for start in range(0, N, BLOCK_N):
        cols = start + tl.arange(0, BLOCK_N)[None, :]
        mask = (rows < M) & (cols < N)
        x = tl.load(X + rows * N + cols, mask=mask)
        tl.store(Y + rows * N + cols, x * scale, mask=mask)


@triton.jit
def rowmean_kernel(X, Mean, Chunks, M, N, ROWS: tl.constexpr,
                   BLOCK_N: tl.constexpr):
    rows = tl.program_id(0) * ROWS + tl.arange(0, ROWS)[:, None]
    acc = tl.zeros([ROWS, BLOCK_N], dtype=tl.float32)
    for start in range(0, N, BLOCK_N):
        cols = start + tl.arange(0, BLOCK_N)[None, :]
        acc += tl.load(X + rows * N + cols, mask=(rows < M) & (cols < N),
                       other=0.0)
    mean = tl.sum(acc, axis=1) / N
    r = tl.program_id(0) * ROWS + tl.arange(0, ROWS)
    tl.store(Mean + r, mean, mask=r < M)
    if tl.program_id(0) == 0:
        tl.store(Chunks, tl.cdiv(N, 64).to(tl.int32))


# name -> (kernel, signature, {config: (constexprs, num_warps)}); the
# integer arguments are i64, as tile's sizes are.
CONFIGS = {
    "squares": (squares_kernel,
                {"X": "*fp32", "O": "*fp32", "S": "*fp32", "K": "i64"},
                {"same": ({"ROWS": 16, "BLOCK_K": 64}, 8),
                 "div16": ({"ROWS": 16, "BLOCK_K": 64}, 8),
                 "pref": ({"ROWS": 16, "BLOCK_K": 256}, 4)}),
    "softmax": (softmax_kernel, {"X": "*fp32", "Y": "*fp32"},
                {"same": ({"ROWS": 16, "COLS": 64, "DIV_RN": False}, 4),
                 "div16": ({"ROWS": 16, "COLS": 64, "DIV_RN": False}, 4),
                 "pref": ({"ROWS": 1, "COLS": 64, "DIV_RN": False}, 1),
                 "div16-rn": ({"ROWS": 16, "COLS": 64, "DIV_RN": True}, 4)}),
    "matmul": (matmul_kernel,
               {"A": "*fp16", "B": "*fp16", "C": "*fp32", "K": "i64"},
               {"same": ({"M": 32, "N": 64, "BLOCK_M": 32, "BLOCK_N": 64,
                          "BLOCK_K": 32}, 8),
                "div16": ({"M": 32, "N": 64, "BLOCK_M": 32, "BLOCK_N": 64,
                           "BLOCK_K": 32}, 8),
                "pref": ({"M": 32, "N": 64, "BLOCK_M": 32, "BLOCK_N": 64,
                          "BLOCK_K": 64}, 4)}),
    "rowscale": (rowscale_kernel,
                 {"X": "*fp32", "S": "*fp32", "Y": "*fp32", "M": "i64",
                  "N": "i64"},
                 {"same": ({"ROWS": 16, "BLOCK_N": 128}, 4),
                  "div16": ({"ROWS": 16, "BLOCK_N": 128}, 4),
                  "pref": ({"ROWS": 4, "BLOCK_N": 512}, 4)}),
    "rowmean": (rowmean_kernel,
                {"X": "*fp32", "Mean": "*fp32", "Chunks": "*i32", "M": "i64",
                 "N": "i64"},
                {"same": ({"ROWS": 16, "BLOCK_N": 64}, 4),
                 "div16": ({"ROWS": 16, "BLOCK_N": 64}, 4),
                 "pref": ({"ROWS": 1, "BLOCK_N": 1024}, 4)}),
    # examples/gemm.tile: [128, 128] of C, K step 32, 8 warps; `pref` is
    # Triton's tutorial kernel in its first (Hopper) autotune config,
    # [128, 256] x 64, 8 warps, 3 stages, as a launch on 4096^3 f16
    # specializes it: i32 sizes and strides, the unit strides constexpr 1;
    # same-mma and div16-mma: same and div16 with Triton's wgmma (MMAv3)
    # off, on mma.sync (MMAv2) as tile is.
    "gemm": (masked_matmul_kernel,
             {"A": "*fp16", "B": "*fp16", "C": "*fp16", "M": "i64",
              "N": "i64", "K": "i64"},
             {"same": ({"BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 32}, 8),
              "div16": ({"BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 32}, 8),
              "pref": ({"stride_ak": 1, "stride_bn": 1, "stride_cn": 1,
                        "BLOCK_SIZE_M": 128, "BLOCK_SIZE_N": 256,
                        "BLOCK_SIZE_K": 64, "GROUP_SIZE_M": 8}, 8,
                       {"kernel": gemm_tutorial_kernel, "num_stages": 3,
                        "signature": {"a_ptr": "*fp16", "b_ptr": "*fp16",
                                      "c_ptr": "*fp16", "M": "i32",
                                      "N": "i32", "K": "i32",
                                      "stride_am": "i32", "stride_bk": "i32",
                                      "stride_cm": "i32"}}),
              "same-mma": ({"BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 32}, 8,
                           {"env": {"DISABLE_MMA_V3": "1"}}),
              "div16-mma": ({"BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 32},
                            8, {"env": {"DISABLE_MMA_V3": "1"}})}),
}


def configuration(name, config):
    """(kernel, signature, constexprs, num_warps, options, environment) of
    `name` in `config`: a config may name its own kernel, signature,
    num_stages and environment of the compile."""
    kernel, signature, configs = CONFIGS[name]
    constexprs, warps, *rest = configs[config]
    own = rest[0] if rest else {}
    options = {"num_warps": warps}
    if "num_stages" in own:
        options["num_stages"] = own["num_stages"]
    return (own.get("kernel", kernel), own.get("signature", signature),
            constexprs, warps, options, own.get("env", {}))


def compile_kernel(name, config):
    """The CompiledKernel of `name` in `config`, compiled anew (no cache)."""
    kernel, signature, constexprs, _, options, environment = \
        configuration(name, config)
    os.environ.update(environment)
    # The parameters in the kernel's order, the constexprs among them.
    names = kernel.arg_names
    attrs = {}
    if not config.startswith("same"):
        attrs = {(names.index(key),): [["tt.divisibility", 16]]
                 for key in signature}
    full = {key: "constexpr" if key in constexprs else signature[key]
            for key in names}
    source = ASTSource(fn=kernel, signature=full,
                       constexprs={(names.index(k),): v
                                   for k, v in constexprs.items()},
                       attrs=attrs)
    with tempfile.TemporaryDirectory() as cache:
        os.environ["TRITON_CACHE_DIR"] = cache
        return triton.compile(source, target=GPUTarget("cuda", 90, 32),
                              options=options)


def main():
    name, config, out = sys.argv[1:4]
    start = time.perf_counter()
    compiled = compile_kernel(name, config)
    seconds = time.perf_counter() - start
    with open(out, "wb") as file:
        file.write(compiled.asm["cubin"])
    warm = []
    for _ in range(int(sys.argv[4]) if len(sys.argv) > 4 else 0):
        start = time.perf_counter()
        compile_kernel(name, config)
        warm.append(time.perf_counter() - start)
    _, _, constexprs, warps, _, _ = configuration(name, config)
    print(json.dumps({"compile": seconds, "warm": warm, "warps": warps,
                      "rows": constexprs.get("ROWS"),
                      "shared": compiled.metadata.shared,
                      "function": compiled.metadata.name}))


if __name__ == "__main__":
    os.environ.setdefault("TRITON_DEFAULT_FP_FUSION", "1")
    main()
