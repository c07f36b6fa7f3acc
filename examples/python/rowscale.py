"""Row scaling over a grid (examples/rowscale.tile) in Python:
Y[i, :] = X[i, :] * S[i]. Each CTA takes 16 rows (its block index) and
walks across the columns 128 at a time; the grid has one CTA per 16 rows,
and slices past the tensor's end read zeros and drop their stores.

    build/venv/bin/python examples/python/rowscale.py [M N]
"""

import sys

import numpy as np

import tile


@tile.kernel(threads=128, grid=lambda M: tile.cdiv(M, 16))
def rowscale(X: tile.tensor(tile.f32, ["M", "N"]),
             S: tile.tensor(tile.f32, ["M", 1]),
             Y: tile.tensor(tile.f32, ["M", "N"])):
    row = tile.ctx.block.x * 16
    scale = S[row:row + 16, 0:1]
    for col in tile.range(0, N, 128):  # noqa: F821 (the symbol N)
        x = X[row:row + 16, col:col + 128]
        Y[row:row + 16, col:col + 128] = x * scale


def main(M=100, N=300):
    rng = np.random.default_rng(4)
    X = rng.uniform(-1, 1, (M, N)).astype(np.float32)
    S = rng.uniform(-1, 1, (M, 1)).astype(np.float32)
    Y = np.zeros_like(X)
    print(rowscale(X, S, Y))
    np.testing.assert_allclose(Y, X * S, rtol=1e-6)
    print("Y matches numpy")


if __name__ == "__main__":
    main(*map(int, sys.argv[1:3]))
