"""The examples as Triton users write them (the tutorials' style: a 2-D
accumulator in the loop, reduced once after it; masked tl.load/tl.store;
tl.sum, tl.max, tl.dot), compiled for a GPU that need not be there:
`triton.compile(ASTSource(...), target=GPUTarget("cuda", 90, 32))`.

Each example is compiled like for like with tile's (CONFIGS):

* `same`:  the work of one tile CTA (the example's tile shapes, its thread
           count as num_warps), told what tile knows: the static sizes as
           constexprs, every pointer 16-byte aligned (tile's ABI), the
           run-time sizes i32 (what Triton's launcher passes for an int
           below 2^31) and nothing known of them;
* `div16`: the same kernel as the launcher specializes it when every
           integer argument is divisible by 16 (the `+16` row), against
           tile's div16 variant;
* `same-rn`, `div16-rn` (the examples that divide): the quotients
           `tl.div_rn` (div.rn.f32, correctly rounded, as tile's default
           `/`); Triton's `/` is div.full.f32, as tile's `--fp-div=full`.

The gemm has three more: `same-mma` and `div16-mma`, `same` and `div16`
with Triton's wgmma off (DISABLE_MMA_V3=1 for the compile), so that its
`tl.dot` is on mma.sync as tile's is; and `pref`, Triton's tutorial
kernel in its Hopper configuration.

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
                   BLOCK_N: tl.constexpr, DIV_RN: tl.constexpr):
    rows = tl.program_id(0) * ROWS + tl.arange(0, ROWS)[:, None]
    acc = tl.zeros([ROWS, BLOCK_N], dtype=tl.float32)
    for start in range(0, N, BLOCK_N):
        cols = start + tl.arange(0, BLOCK_N)[None, :]
        acc += tl.load(X + rows * N + cols, mask=(rows < M) & (cols < N),
                       other=0.0)
    total = tl.sum(acc, axis=1)
    mean = tl.div_rn(total, N.to(tl.float32)) if DIV_RN else total / N
    r = tl.program_id(0) * ROWS + tl.arange(0, ROWS)
    tl.store(Mean + r, mean, mask=r < M)
    if tl.program_id(0) == 0:
        tl.store(Chunks, tl.cdiv(N, 64).to(tl.int32))


@triton.jit
def embedding_kernel(Ids, E, Y, M, V, D, ROWS: tl.constexpr,
                     COLS: tl.constexpr):
    # examples/embedding.tile: 16 ids a program, 64 columns a step; an id
    # outside the table reads zeros.
    r = tl.program_id(0) * ROWS + tl.arange(0, ROWS)
    ids = tl.load(Ids + r, mask=r < M, other=0)
    valid = ((ids >= 0) & (ids < V))[:, None]
    for c in range(0, D, COLS):
        cols = c + tl.arange(0, COLS)[None, :]
        x = tl.load(E + ids[:, None] * D + cols, mask=valid & (cols < D),
                    other=0.0)
        tl.store(Y + r[:, None] * D + cols, x,
                 mask=(r[:, None] < M) & (cols < D))


@triton.jit
def layernorm_kernel(eps, X, W, B, Y, M, N, ROWS: tl.constexpr,
                     COLS: tl.constexpr, DIV_RN: tl.constexpr):
    # Triton's layer-norm tutorial (05-layer-norm) with its 1-D accumulators
    # made 2-D, ROWS rows a program as examples/layernorm.tile's CTA: the
    # sums accumulate elementwise in the loops and reduce once after each.
    rows = tl.program_id(0) * ROWS + tl.arange(0, ROWS)[:, None]
    inside_rows = rows < M
    acc = tl.zeros([ROWS, COLS], dtype=tl.float32)
    for c in range(0, N, COLS):
        cols = c + tl.arange(0, COLS)[None, :]
        acc += tl.load(X + rows * N + cols, mask=inside_rows & (cols < N),
                       other=0.0)
    total = tl.sum(acc, axis=1)[:, None]
    mean = tl.div_rn(total, N.to(tl.float32)) if DIV_RN else total / N
    acc = tl.zeros([ROWS, COLS], dtype=tl.float32)
    for c in range(0, N, COLS):
        cols = c + tl.arange(0, COLS)[None, :]
        x = tl.load(X + rows * N + cols, mask=inside_rows & (cols < N),
                    other=0.0)
        d = tl.where(cols < N, x - mean, 0.0)
        acc += d * d
    squares = tl.sum(acc, axis=1)[:, None]
    var = tl.div_rn(squares, N.to(tl.float32)) if DIV_RN else squares / N
    rstd = tl.rsqrt(var + eps)
    for c in range(0, N, COLS):
        cols = c + tl.arange(0, COLS)[None, :]
        mask = inside_rows & (cols < N)
        w = tl.load(W + cols, mask=cols < N)
        b = tl.load(B + cols, mask=cols < N)
        x = tl.load(X + rows * N + cols, mask=mask, other=0.0)
        tl.store(Y + rows * N + cols, (x - mean) * rstd * w + b, mask=mask)


@triton.jit
def transpose_kernel(X, Y, M, N, T: tl.constexpr):
    r = tl.program_id(1) * T + tl.arange(0, T)
    c = tl.program_id(0) * T + tl.arange(0, T)
    x = tl.load(X + r[:, None] * N + c[None, :],
                mask=(r[:, None] < M) & (c[None, :] < N))
    tl.store(Y + c[:, None] * M + r[None, :], tl.trans(x),
             mask=(c[:, None] < N) & (r[None, :] < M))


@triton.jit
def cross_entropy_kernel(Logits, Labels, Loss, M, V, ROWS: tl.constexpr,
                         COLS: tl.constexpr):
    # The online logsumexp over 2-D blocks, as examples/cross_entropy.tile.
    r = tl.program_id(0) * ROWS + tl.arange(0, ROWS)
    rows = r[:, None]
    m = tl.full([ROWS], float("-inf"), tl.float32)
    s = tl.zeros([ROWS], dtype=tl.float32)
    for c in range(0, V, COLS):
        cols = c + tl.arange(0, COLS)[None, :]
        x = tl.load(Logits + rows * V + cols, mask=(rows < M) & (cols < V),
                    other=float("-inf"))
        grown = tl.maximum(m, tl.max(x, axis=1))
        s = s * tl.exp(m - grown) + tl.sum(tl.exp(x - grown[:, None]), axis=1)
        m = grown
    labels = tl.load(Labels + r, mask=r < M, other=-1)
    valid = (labels >= 0) & (labels < V)
    picked = tl.load(Logits + r * V + labels, mask=valid & (r < M),
                     other=0.0)
    tl.store(Loss + r, tl.where(valid, m + tl.log(s) - picked, 0.0),
             mask=r < M)


@triton.jit
def softmax_masked_kernel(X, Y, M, N, ROWS: tl.constexpr, COLS: tl.constexpr,
                          DIV_RN: tl.constexpr):
    rows = tl.program_id(0) * ROWS + tl.arange(0, ROWS)[:, None]
    m = tl.full([ROWS], float("-inf"), tl.float32)
    s = tl.zeros([ROWS], dtype=tl.float32)
    for c in range(0, N, COLS):
        cols = c + tl.arange(0, COLS)[None, :]
        x = tl.load(X + rows * N + cols, mask=(rows < M) & (cols < N),
                    other=float("-inf"))
        grown = tl.maximum(m, tl.max(x, axis=1))
        s = s * tl.exp(m - grown) + tl.sum(tl.exp(x - grown[:, None]), axis=1)
        m = grown
    for c in range(0, N, COLS):
        cols = c + tl.arange(0, COLS)[None, :]
        mask = (rows < M) & (cols < N)
        x = tl.load(X + rows * N + cols, mask=mask, other=float("-inf"))
        e = tl.exp(x - m[:, None])
        y = tl.div_rn(e, s[:, None]) if DIV_RN else e / s[:, None]
        tl.store(Y + rows * N + cols, y, mask=mask)


@triton.jit
def colsum_kernel(X, S, M, N, ROWS: tl.constexpr, COLS: tl.constexpr):
    cols = tl.program_id(0) * COLS + tl.arange(0, COLS)[None, :]
    acc = tl.zeros([ROWS, COLS], dtype=tl.float32)
    for r in range(0, M, ROWS):
        rows = r + tl.arange(0, ROWS)[:, None]
        acc += tl.load(X + rows * N + cols, mask=(rows < M) & (cols < N),
                       other=0.0)
    c = tl.program_id(0) * COLS + tl.arange(0, COLS)
    tl.store(S + c, tl.sum(acc, axis=0), mask=c < N)


@triton.jit
def flash_attention_kernel(scale, Q, K, V, O, N, BM: tl.constexpr,
                           BN: tl.constexpr, D: tl.constexpr,
                           DIV_RN: tl.constexpr):
    # Triton's fused-attention tutorial (06) reduced to
    # examples/flash_attention.tile: one head, causal, f16 in, f32 out,
    # the keys walked up to the program's last query.
    start = tl.program_id(0) * BM
    queries = start + tl.arange(0, BM)
    d = tl.arange(0, D)
    q = tl.load(Q + queries[:, None] * D + d[None, :],
                mask=queries[:, None] < N, other=0.0)
    m = tl.full([BM], float("-inf"), tl.float32)
    l = tl.zeros([BM], dtype=tl.float32)
    acc = tl.zeros([BM, D], dtype=tl.float32)
    for c in range(0, start + BM, BN):
        keys = c + tl.arange(0, BN)
        k = tl.load(K + keys[None, :] * D + d[:, None],
                    mask=keys[None, :] < N, other=0.0)
        s = tl.dot(q, k) * scale
        s = tl.where((keys[None, :] <= queries[:, None]) &
                     (keys[None, :] < N), s, float("-inf"))
        grown = tl.maximum(m, tl.max(s, axis=1))
        p = tl.exp(s - grown[:, None])
        rescale = tl.exp(m - grown)
        l = l * rescale + tl.sum(p, axis=1)
        v = tl.load(V + keys[:, None] * D + d[None, :],
                    mask=keys[:, None] < N, other=0.0)
        acc = acc * rescale[:, None] + tl.dot(p.to(tl.float16), v)
        m = grown
    out = tl.div_rn(acc, l[:, None]) if DIV_RN else acc / l[:, None]
    tl.store(O + queries[:, None] * D + d[None, :], out,
             mask=queries[:, None] < N)


def like_for_like(kernel, signature, constexprs, warps, **more):
    """The configurations of one example's kernel: `same` and `div16`
    (and `same-rn`, `div16-rn` where it divides: DIV_RN), tile's shapes
    and warps; `more` adds named ones, (constexprs, warps, options)."""
    configs = {"same": (constexprs, warps), "div16": (constexprs, warps)}
    if "DIV_RN" in constexprs:
        rn = dict(constexprs, DIV_RN=True)
        configs.update({"same-rn": (rn, warps), "div16-rn": (rn, warps)})
    configs.update(more)
    return kernel, signature, configs


# name -> (kernel, signature, {config: (constexprs, num_warps[, options])}):
# the integer arguments i32, as Triton's launcher types an int below 2^31;
# the shapes and warps those of the tile example's CTA, so that a program
# does the work of one tile CTA.
CONFIGS = {
    "squares": like_for_like(
        squares_kernel, {"X": "*fp32", "O": "*fp32", "S": "*fp32", "K": "i32"},
        {"ROWS": 16, "BLOCK_K": 64}, 8),
    "softmax": like_for_like(
        softmax_kernel, {"X": "*fp32", "Y": "*fp32"},
        {"ROWS": 16, "COLS": 64, "DIV_RN": False}, 4),
    "matmul": like_for_like(
        matmul_kernel, {"A": "*fp16", "B": "*fp16", "C": "*fp32", "K": "i32"},
        {"M": 32, "N": 64, "BLOCK_M": 32, "BLOCK_N": 64, "BLOCK_K": 32}, 8),
    "rowscale": like_for_like(
        rowscale_kernel, {"X": "*fp32", "S": "*fp32", "Y": "*fp32",
                          "M": "i32", "N": "i32"},
        {"ROWS": 16, "BLOCK_N": 128}, 4),
    "rowmean": like_for_like(
        rowmean_kernel, {"X": "*fp32", "Mean": "*fp32", "Chunks": "*i32",
                         "M": "i32", "N": "i32"},
        {"ROWS": 16, "BLOCK_N": 64, "DIV_RN": False}, 4),
    # examples/gemm.tile: [128, 128] of C, K step 32, 8 warps; `pref` is
    # Triton's tutorial kernel in its first (Hopper) autotune config,
    # [128, 256] x 64, 8 warps, 3 stages, as a launch on 4096^3 f16
    # specializes it: the unit strides constexpr 1; same-mma and
    # div16-mma: same and div16 with Triton's wgmma (MMAv3) off, on
    # mma.sync (MMAv2) as tile is.
    "gemm": like_for_like(
        masked_matmul_kernel, {"A": "*fp16", "B": "*fp16", "C": "*fp16",
                               "M": "i32", "N": "i32", "K": "i32"},
        {"BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 32}, 8,
        pref=({"stride_ak": 1, "stride_bn": 1, "stride_cn": 1,
               "BLOCK_SIZE_M": 128, "BLOCK_SIZE_N": 256, "BLOCK_SIZE_K": 64,
               "GROUP_SIZE_M": 8}, 8,
              {"kernel": gemm_tutorial_kernel, "num_stages": 3,
               "signature": {"a_ptr": "*fp16", "b_ptr": "*fp16",
                             "c_ptr": "*fp16", "M": "i32", "N": "i32",
                             "K": "i32", "stride_am": "i32",
                             "stride_bk": "i32", "stride_cm": "i32"}}),
        **{"same-mma": ({"BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 32}, 8,
                        {"env": {"DISABLE_MMA_V3": "1"}}),
           "div16-mma": ({"BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 32}, 8,
                         {"env": {"DISABLE_MMA_V3": "1"}})}),
    "flash_attention": like_for_like(
        flash_attention_kernel, {"scale": "fp32", "Q": "*fp16", "K": "*fp16",
                                 "V": "*fp16", "O": "*fp32", "N": "i32"},
        {"BM": 16, "BN": 32, "D": 32, "DIV_RN": False}, 4),
    "layernorm": like_for_like(
        layernorm_kernel, {"eps": "fp32", "X": "*fp32", "W": "*fp32",
                           "B": "*fp32", "Y": "*fp32", "M": "i32", "N": "i32"},
        {"ROWS": 16, "COLS": 128, "DIV_RN": False}, 8),
    "embedding": like_for_like(
        embedding_kernel, {"Ids": "*i32", "E": "*fp32", "Y": "*fp32",
                           "M": "i32", "V": "i32", "D": "i32"},
        {"ROWS": 16, "COLS": 64}, 4),
    "transpose": like_for_like(
        transpose_kernel, {"X": "*fp32", "Y": "*fp32", "M": "i32", "N": "i32"},
        {"T": 32}, 8),
    "cross_entropy": like_for_like(
        cross_entropy_kernel, {"Logits": "*fp32", "Labels": "*i32",
                               "Loss": "*fp32", "M": "i32", "V": "i32"},
        {"ROWS": 16, "COLS": 128}, 4),
    "softmax_masked": like_for_like(
        softmax_masked_kernel, {"X": "*fp32", "Y": "*fp32", "M": "i32",
                                "N": "i32"},
        {"ROWS": 16, "COLS": 128, "DIV_RN": False}, 4),
    "colsum": like_for_like(
        colsum_kernel, {"X": "*fp32", "S": "*fp32", "M": "i32", "N": "i32"},
        {"ROWS": 32, "COLS": 128}, 4),
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
    # `same`: what tile knows, every pointer 16-byte aligned (tile's ABI,
    # docs/abi.md); otherwise also every integer divisible by 16, as the
    # launcher specializes a launch whose sizes all are (float scalars
    # never are).
    attrs = {(names.index(key),): [["tt.divisibility", 16]]
             for key, kind in signature.items()
             if kind.startswith("*") or
             (kind.startswith("i") and not config.startswith("same"))}
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
