"""y = alpha * x + y (examples/axpy.tile) in Python, with the scalar alpha
a kernel argument: a Python number at the call. Each CTA takes 1024
elements.

    build/venv/bin/python examples/python/axpy.py [N]
"""

import sys

import numpy as np

import tile

BLOCK = 1024


@tile.kernel(threads=256, grid=lambda N: tile.cdiv(N, BLOCK))
def axpy(alpha: tile.f32, X: tile.tensor(tile.f32, ["N"]),
         Y: tile.tensor(tile.f32, ["N"])):
    i = tile.ctx.block.x * BLOCK
    Y[i:i + BLOCK] = alpha * X[i:i + BLOCK] + Y[i:i + BLOCK]


def main(N=5000):
    rng = np.random.default_rng(9)
    X = rng.uniform(-1, 1, N).astype(np.float32)
    Y = rng.uniform(-1, 1, N).astype(np.float32)
    want = 2.5 * X.astype(np.float64) + Y
    print(axpy(2.5, X, Y))
    np.testing.assert_allclose(Y, want, rtol=1e-5, atol=1e-6)
    print("Y matches numpy")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 5000)
