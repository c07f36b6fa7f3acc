"""Seed 003's register tensor, completed into a kernel: a batch of small
matrix products, one per thread, each accumulated in an 8 x 8 register
tensor with fma, indexed with compile-time constants.

The batch is the last dimension of each tensor (a structure of arrays:
A[i, k, b] is element (i, k) of matrix b), so consecutive threads read
consecutive elements, and each access A[i, k, b0 + thread_id()] is a
slice of one element per thread.

    build/venv/bin/python examples/python/seed_registers.py [N]
"""

import sys

import numpy as np

import tile

K = 16        # the inner dimension
THREADS = 128


class Matrix:
    """This thread's matrix of a batch: matrix[i, j] is tensor[i, j, b]."""

    def __init__(self, tensor, b):
        self.tensor, self.b = tensor, b

    def __getitem__(self, ij):
        return self.tensor[ij[0], ij[1], self.b]

    def __setitem__(self, ij, value):
        self.tensor[ij[0], ij[1], self.b] = value


@tile.kernel(threads=THREADS, grid=lambda N: tile.cdiv(N, THREADS))
def batched_matmul(A: tile.tensor(tile.f32, [8, K, "N"]),
                   B: tile.tensor(tile.f32, [K, 8, "N"]),
                   C: tile.tensor(tile.f32, [8, 8, "N"])):
    b = tile.block_id(0) * THREADS + tile.thread_id()
    a_tile, b_tile, c_tile = Matrix(A, b), Matrix(B, b), Matrix(C, b)
    # Seed 003's snippet, as written there:
    acc = tile.register_tensor((8, 8), dtype="float", fill=0.0)
    with tile.for_range(0, K) as k:
        for i in tile.range_constexpr(8):
            for j in tile.range_constexpr(8):
                acc[i, j] = tile.fma(a_tile[i, k], b_tile[k, j], acc[i, j])
    for i in tile.range_constexpr(8):
        for j in tile.range_constexpr(8):
            c_tile[i, j] = acc[i, j]


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


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 300)
