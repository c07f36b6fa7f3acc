"""The examples written in Triton the way its users write them (the
tutorials' patterns: one program per row or per output block, masked
tl.load/tl.store, tl.sum/tl.max, tl.dot), for compare.py. Each function
takes the inputs and sizes by name and returns the outputs by name.

Outputs are made on the inputs' device: the GPU normally, the CPU when
compare.py --interpret-check runs these kernels under Triton's interpreter
(TRITON_INTERPRET=1, set before this module is imported).

Kept in its own module so that compare.py runs, without Triton, when this
import fails; @triton.jit needs module-level source and globals."""

import torch
import triton
import triton.language as tl


@triton.jit
def rowscale_kernel(X, S, Y, N, BLOCK_N: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    mask = cols < N
    scale = tl.load(S + row)
    x = tl.load(X + row * N + cols, mask=mask)
    tl.store(Y + row * N + cols, x * scale, mask=mask)


def rowscale(t, d):
    y = torch.empty_like(t["X"])
    block = 1024
    rowscale_kernel[(d["M"], triton.cdiv(d["N"], block))](
        t["X"], t["S"], y, d["N"], BLOCK_N=block)
    return {"Y": y}


@triton.jit
def rowmean_kernel(X, Mean, Chunks, N, BLOCK_N: tl.constexpr):
    row = tl.program_id(0)
    acc = tl.zeros([BLOCK_N], dtype=tl.float32)
    for start in range(0, N, BLOCK_N):
        cols = start + tl.arange(0, BLOCK_N)
        acc += tl.load(X + row * N + cols, mask=cols < N, other=0.0)
    tl.store(Mean + row, tl.sum(acc, axis=0) / N)
    if row == 0:
        tl.store(Chunks, tl.cdiv(N, 64))


def rowmean(t, d):
    x = t["X"]
    mean = torch.empty((d["M"], 1), dtype=torch.float32, device=x.device)
    chunks = torch.empty((1, 1), dtype=torch.int32, device=x.device)
    rowmean_kernel[(d["M"],)](x, mean, chunks, d["N"], BLOCK_N=1024)
    return {"Mean": mean, "Chunks": chunks}


@triton.jit
def squares_kernel(X, O, S, K, CHUNKS: tl.constexpr):
    # One program per row; each step squares CHUNKS column chunks of 64 and
    # folds them onto the 64 columns of O.
    row = tl.program_id(0)
    offsets = tl.arange(0, CHUNKS)[:, None] * 64 + tl.arange(0, 64)[None, :]
    acc = tl.zeros([64], dtype=tl.float32)
    for start in range(0, K, CHUNKS * 64):
        cols = start + offsets
        x = tl.load(X + row * K + cols, mask=cols < K, other=0.0)
        acc += tl.sum(x * x, axis=0)
    tl.store(O + row * 64 + tl.arange(0, 64), acc)
    tl.store(S + row, tl.sum(acc, axis=0))


def squares(t, d):
    x = t["X"]
    o = torch.empty((16, 64), dtype=torch.float32, device=x.device)
    s = torch.empty((16, 1), dtype=torch.float32, device=x.device)
    squares_kernel[(16,)](x, o, s, d["K"], CHUNKS=32)
    return {"O": o, "S": s}


@triton.jit
def softmax_kernel(X, Y, N, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < N
    x = tl.load(X + row * N + cols, mask=mask, other=-float("inf"))
    e = tl.exp(x - tl.max(x, axis=0))
    tl.store(Y + row * N + cols, e / tl.sum(e, axis=0), mask=mask)


def softmax(t, d):
    x = t["X"]
    y = torch.empty_like(x)
    softmax_kernel[(x.shape[0],)](x, y, x.shape[1],
                                  BLOCK=triton.next_power_of_2(x.shape[1]))
    return {"Y": y}


@triton.jit
def matmul_kernel(A, B, C, M, N, K, BLOCK_M: tl.constexpr,
                  BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    rm = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    acc = tl.zeros([BLOCK_M, BLOCK_N], dtype=tl.float32)
    for k in range(0, K, BLOCK_K):
        a = tl.load(A + rm[:, None] * K + (k + rk)[None, :],
                    mask=(rm[:, None] < M) & ((k + rk)[None, :] < K), other=0.0)
        b = tl.load(B + (k + rk)[:, None] * N + rn[None, :],
                    mask=((k + rk)[:, None] < K) & (rn[None, :] < N), other=0.0)
        acc += tl.dot(a, b)
    tl.store(C + rm[:, None] * N + rn[None, :], acc,
             mask=(rm[:, None] < M) & (rn[None, :] < N))


def matmul(t, d):
    a, b = t["A"], t["B"]
    (m, k), n = a.shape, b.shape[1]
    c = torch.empty((m, n), dtype=torch.float32, device=a.device)
    grid = (triton.cdiv(m, 32), triton.cdiv(n, 64))
    matmul_kernel[grid](a, b, c, m, n, k, BLOCK_M=32, BLOCK_N=64, BLOCK_K=64)
    return {"C": c}
