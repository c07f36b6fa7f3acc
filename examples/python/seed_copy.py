"""Seed 003's explicit copy, completed into a kernel: each CTA copies its
256 elements of A into a buffer it shares (masked at the tensor's end),
and each thread then scales its element into B.

    build/venv/bin/python examples/python/seed_copy.py [N]
"""

import sys

import numpy as np

import tile


@tile.kernel(threads=256, grid=lambda N: tile.cdiv(N, 256))
def scale(A: tile.tensor(tile.f32, ["N"]), B: tile.tensor(tile.f32, ["N"])):
    block_start = tile.block_id(0) * 256
    # Seed 003's snippet, with a mask for the last, partial block:
    buffer = tile.threadgroup_alloc("float", 256)
    tile.copy(A, buffer, count=256, src_offset=block_start,
              mask_fn=lambda i: block_start + i < N)  # noqa: F821 (symbol N)
    tile.barrier()
    tid = tile.thread_id()
    B[block_start + tid] = buffer[tid] * 2.0


def main(N=1000):
    rng = np.random.default_rng(7)
    A = rng.uniform(-1, 1, N).astype(np.float32)
    B = np.zeros_like(A)
    print(scale(A, B))
    np.testing.assert_allclose(B, A * 2.0, rtol=1e-6)
    print("B matches numpy")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 1000)
