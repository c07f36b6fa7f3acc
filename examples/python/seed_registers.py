"""Seed 003's register tensor, completed into a kernel: a batch of small
matrix products, one per thread, each accumulated in an 8 x 8 register
tensor with fma, indexed with compile-time constants.

Matrix b of a batch is stored as a structure of arrays: its element (i, j)
is at (i * cols + j) * BATCH + b, so that consecutive threads (consecutive
b) read consecutive elements and every access of a thread is
base + thread_id(), a slice of one element per thread.

    build/venv/bin/python examples/python/seed_registers.py
"""

import numpy as np

import tile

K = 16       # the inner dimension
BATCH = 256  # matrices: two CTAs of 128 threads, one matrix each thread
THREADS = 128


class Stack:
    """Element [i, j] of this thread's matrix in a stack of `cols`-column
    matrices stored as a structure of arrays."""

    def __init__(self, tensor, cols, b):
        self.tensor, self.cols, self.b = tensor, cols, b

    def __getitem__(self, ij):
        i, j = ij
        return self.tensor[(i * self.cols + j) * BATCH + self.b]

    def __setitem__(self, ij, value):
        i, j = ij
        self.tensor[(i * self.cols + j) * BATCH + self.b] = value


@tile.kernel(threads=THREADS, grid=BATCH // THREADS)
def batched_matmul(A: tile.tensor(tile.f32, [8 * K * BATCH]),
                   B: tile.tensor(tile.f32, [K * 8 * BATCH]),
                   C: tile.tensor(tile.f32, [8 * 8 * BATCH])):
    b = tile.block_id(0) * THREADS + tile.thread_id()
    a_tile, b_tile, c_tile = Stack(A, K, b), Stack(B, 8, b), Stack(C, 8, b)
    # Seed 003's snippet, as written there:
    acc = tile.register_tensor((8, 8), dtype="float", fill=0.0)
    with tile.for_range(0, K) as k:
        for i in tile.range_constexpr(8):
            for j in tile.range_constexpr(8):
                acc[i, j] = tile.fma(a_tile[i, k], b_tile[k, j], acc[i, j])
    for i in tile.range_constexpr(8):
        for j in tile.range_constexpr(8):
            c_tile[i, j] = acc[i, j]


def stacked(matrices):
    """[BATCH, R, C] matrices as the kernel's structure of arrays."""
    return np.ascontiguousarray(np.moveaxis(matrices, 0, -1)).ravel()


def main():
    rng = np.random.default_rng(6)
    a = rng.uniform(-1, 1, (BATCH, 8, K)).astype(np.float32)
    b = rng.uniform(-1, 1, (BATCH, K, 8)).astype(np.float32)
    C = np.zeros(8 * 8 * BATCH, np.float32)
    print(batched_matmul(stacked(a), stacked(b), C))
    want = stacked(a.astype(np.float64) @ b.astype(np.float64))
    np.testing.assert_allclose(C, want, rtol=1e-5, atol=1e-5)
    print("C matches numpy")


if __name__ == "__main__":
    main()
