"""Seed 003's register tensor, completed into a kernel: a batch of small
matrix products, one per thread, each accumulated in an 8 x 8 register
tensor with fma, indexed with compile-time constants.

The batch is the last dimension of each tensor (a structure of arrays:
A[i, k, b] is element (i, k) of matrix b), so consecutive threads read
consecutive elements, and each access A[i, k, b0 + thread_id()] is a
slice of one element per thread. batched_matmul_aos is the same kernel
on numpy's layout (A[b, i, k]).

    build/venv/bin/python examples/python/seed_registers.py [N]
"""

import sys

import numpy as np

import tile

K = 16        # the inner dimension
THREADS = 128


class Matrix:
    """This thread's matrix of a batch: matrix[i, j] is tensor[i, j, b]
    (or tensor[b, i, j], batch_first)."""

    def __init__(self, tensor, b, batch_first=False):
        self.tensor, self.b, self.batch_first = tensor, b, batch_first

    def _key(self, ij):
        return (self.b, *ij) if self.batch_first else (*ij, self.b)

    def __getitem__(self, ij):
        return self.tensor[self._key(ij)]

    def __setitem__(self, ij, value):
        self.tensor[self._key(ij)] = value


def batched_matmul_kernel(batch_first):
    """The kernel for one layout: the batch last (A[i, k, b]) or first
    (A[b, i, k], numpy's own, so thread t's element (i, k) is a per-thread
    access 8 * K elements apart from thread to thread)."""
    def shape(*dims):
        return ["N", *dims] if batch_first else [*dims, "N"]

    @tile.kernel(threads=THREADS, grid=lambda N: tile.cdiv(N, THREADS))
    def batched_matmul(A: tile.tensor(tile.f32, shape(8, K)),
                       B: tile.tensor(tile.f32, shape(K, 8)),
                       C: tile.tensor(tile.f32, shape(8, 8))):
        b = tile.block_id(0) * THREADS + tile.thread_id()
        a_tile = Matrix(A, b, batch_first)
        b_tile = Matrix(B, b, batch_first)
        c_tile = Matrix(C, b, batch_first)
        # Seed 003's snippet, as written there:
        acc = tile.register_tensor((8, 8), dtype="float", fill=0.0)
        with tile.for_range(0, K) as k:
            for i in tile.range_constexpr(8):
                for j in tile.range_constexpr(8):
                    acc[i, j] = tile.fma(a_tile[i, k], b_tile[k, j],
                                         acc[i, j])
        for i in tile.range_constexpr(8):
            for j in tile.range_constexpr(8):
                c_tile[i, j] = acc[i, j]
    return batched_matmul


batched_matmul = batched_matmul_kernel(batch_first=False)
batched_matmul_aos = batched_matmul_kernel(batch_first=True)


def main(N=300):
    rng = np.random.default_rng(6)
    a = rng.uniform(-1, 1, (N, 8, K)).astype(np.float32)
    b = rng.uniform(-1, 1, (N, K, 8)).astype(np.float32)
    # The batch as the last dimension.
    A = np.ascontiguousarray(np.moveaxis(a, 0, -1))
    B = np.ascontiguousarray(np.moveaxis(b, 0, -1))
    C = np.zeros((8, 8, N), np.float32)
    print(batched_matmul(A, B, C))
    want = np.moveaxis(a.astype(np.float64) @ b.astype(np.float64), 0, -1)
    np.testing.assert_allclose(C, want, rtol=1e-5, atol=1e-5)
    print("C matches numpy")
    C = np.zeros((N, 8, 8), np.float32)
    batched_matmul_aos(a, b, C)
    np.testing.assert_allclose(C, np.moveaxis(want, -1, 0), rtol=1e-5,
                               atol=1e-5)
    print("C (numpy's layout) matches numpy")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 300)
