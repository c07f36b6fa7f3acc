"""A GEMM (examples/matmul.tile) in Python: C = A @ B for one [32, 64]
tile of C, f16 operands accumulated in f32 registers over K in steps of 32.

    build/venv/bin/python examples/python/matmul.py [K]
"""

import sys

import numpy as np

import tile


@tile.kernel(threads=256, registers=["acc"])
def matmul(A: tile.tensor(tile.f16, [32, "K"]),
           B: tile.tensor(tile.f16, ["K", 64]),
           C: tile.tensor(tile.f32, [32, 64])):
    acc = tile.zeros((32, 64), tile.f32)
    for k in tile.range(0, A.shape[1], 32):
        a = A[0:32, k:k + 32]
        b = B[k:k + 32, 0:64]
        acc += tile.dot(a, b)  # or a @ b
    C[0:32, 0:64] = acc


def main(K=256):
    rng = np.random.default_rng(3)
    A = rng.uniform(-1, 1, (32, K)).astype(np.float16)
    B = rng.uniform(-1, 1, (K, 64)).astype(np.float16)
    C = np.zeros((32, 64), np.float32)
    print(matmul(A, B, C))
    want = A.astype(np.float64) @ B.astype(np.float64)
    np.testing.assert_allclose(C, want, rtol=1e-3, atol=1e-3)
    print("C matches numpy")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 256)
