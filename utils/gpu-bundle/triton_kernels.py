"""The examples written in Triton the way its users write them (the
tutorials' patterns: one program per row or per output block, masked
tl.load/tl.store, tl.sum/tl.max, tl.dot), for compare.py. Each function
takes the inputs and sizes by name and returns the outputs by name.

Outputs are made on the inputs' device: the GPU normally, the CPU when
compare.py --interpret-check runs these kernels under Triton's interpreter
(TRITON_INTERPRET=1, set before this module is imported).

Kept in its own module so that compare.py runs, without Triton, when this
import fails; @triton.jit needs module-level source and globals.
bench/triton_examples.py compiles gemm_tutorial_kernel from here for sm_90
with no GPU and no torch: the launch functions need torch, the kernels
only Triton."""

import triton
import triton.language as tl

try:
    import torch
except ImportError:  # bench/triton_examples.py: kernels only
    torch = None


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


@triton.jit
def gemm_tutorial_kernel(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak,
                         stride_bk, stride_bn, stride_cm, stride_cn,
                         BLOCK_SIZE_M: tl.constexpr,
                         BLOCK_SIZE_N: tl.constexpr,
                         BLOCK_SIZE_K: tl.constexpr,
                         GROUP_SIZE_M: tl.constexpr):
    # Triton's tutorial matmul (03-matrix-multiplication) without its
    # activation: programs grouped GROUP_SIZE_M rows of blocks at a time for
    # L2 reuse, rows and columns wrapped (% M, % N) for the loads, K masked.
    pid = tl.program_id(axis=0)
    num_pid_m = tl.cdiv(M, BLOCK_SIZE_M)
    num_pid_n = tl.cdiv(N, BLOCK_SIZE_N)
    num_pid_in_group = GROUP_SIZE_M * num_pid_n
    group_id = pid // num_pid_in_group
    first_pid_m = group_id * GROUP_SIZE_M
    group_size_m = min(num_pid_m - first_pid_m, GROUP_SIZE_M)
    pid_m = first_pid_m + ((pid % num_pid_in_group) % group_size_m)
    pid_n = (pid % num_pid_in_group) // group_size_m
    offs_am = (pid_m * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M)) % M
    offs_bn = (pid_n * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)) % N
    offs_k = tl.arange(0, BLOCK_SIZE_K)
    a_ptrs = a_ptr + (offs_am[:, None] * stride_am + offs_k[None, :] * stride_ak)
    b_ptrs = b_ptr + (offs_k[:, None] * stride_bk + offs_bn[None, :] * stride_bn)
    accumulator = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_SIZE_K)):
        a = tl.load(a_ptrs, mask=offs_k[None, :] < K - k * BLOCK_SIZE_K,
                    other=0.0)
        b = tl.load(b_ptrs, mask=offs_k[:, None] < K - k * BLOCK_SIZE_K,
                    other=0.0)
        accumulator = tl.dot(a, b, accumulator)
        a_ptrs += BLOCK_SIZE_K * stride_ak
        b_ptrs += BLOCK_SIZE_K * stride_bk
    c = accumulator.to(tl.float16)
    offs_cm = pid_m * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M)
    offs_cn = pid_n * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)
    c_ptrs = c_ptr + stride_cm * offs_cm[:, None] + stride_cn * offs_cn[None, :]
    c_mask = (offs_cm[:, None] < M) & (offs_cn[None, :] < N)
    tl.store(c_ptrs, c, mask=c_mask)


def gemm(t, d):
    # The tutorial's first autotune config (its pick for large f16 GEMMs
    # on Hopper), fixed: no autotuning in the timed launches.
    a, b = t["A"], t["B"]
    (m, k), n = a.shape, b.shape[1]
    c = torch.empty((m, n), dtype=torch.float16, device=a.device)
    grid = (triton.cdiv(m, 128) * triton.cdiv(n, 256),)
    gemm_tutorial_kernel[grid](
        a, b, c, m, n, k, a.stride(0), a.stride(1), b.stride(0), b.stride(1),
        c.stride(0), c.stride(1), BLOCK_SIZE_M=128, BLOCK_SIZE_N=256,
        BLOCK_SIZE_K=64, GROUP_SIZE_M=8, num_warps=8, num_stages=3)
    return {"C": c}
