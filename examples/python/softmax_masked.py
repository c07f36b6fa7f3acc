"""Row-wise softmax of a matrix of any shape (examples/softmax_masked.tile)
in Python, with no validity tensor: the columns past N load -inf, which
adds nothing to a row's maximum, and exp(-inf) = 0 nothing to its sum. A
first pass keeps each row's running maximum and the sum of exp(x - max),
rescaled whenever the maximum grows (the online softmax); a second pass
writes exp(x - max) / sum.

    build/venv/bin/python examples/python/softmax_masked.py [M N]
"""

import sys

import numpy as np

import tile

ROWS = 16
COLS = 128


@tile.kernel(threads=128, grid=lambda M: tile.cdiv(M, ROWS))
def softmax_masked(X: tile.tensor(tile.f32, ["M", "N"]),
                   Y: tile.tensor(tile.f32, ["M", "N"])):
    row = tile.ctx.block.x * ROWS
    m = tile.full((ROWS, 1), -tile.inf)
    s = tile.zeros((ROWS, 1))
    for c in tile.range(0, N, COLS):  # noqa: F821 (the symbol N)
        x = tile.load(X[row:row + ROWS, c:c + COLS], other=-tile.inf)
        grown = tile.maximum(m, tile.rowmax(x))
        s = s * tile.exp(m - grown) + tile.rowsum(tile.exp(x - grown))
        m = grown
    for c in tile.range(0, N, COLS):  # noqa: F821
        x = tile.load(X[row:row + ROWS, c:c + COLS], other=-tile.inf)
        Y[row:row + ROWS, c:c + COLS] = tile.exp(x - m) / s


def main(M=40, N=300):
    rng = np.random.default_rng(10)
    X = rng.uniform(-4, 4, (M, N)).astype(np.float32)
    Y = np.zeros_like(X)
    print(softmax_masked(X, Y))
    e = np.exp(X - X.max(axis=1, keepdims=True))
    np.testing.assert_allclose(Y, e / e.sum(axis=1, keepdims=True),
                               rtol=1e-4, atol=1e-7)
    print("Y matches numpy")


if __name__ == "__main__":
    main(*map(int, sys.argv[1:3]))
