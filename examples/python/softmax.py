"""Row-wise softmax (examples/softmax.tile) in Python: each row of Y sums
to 1. rowmax and rowsum reduce each row to a [16, 1] column, which
broadcasts back over the row.

    build/venv/bin/python examples/python/softmax.py
"""

import numpy as np

import tile


@tile.kernel(threads=128)
def softmax(X: tile.tensor(tile.f32, [16, 64]),
            Y: tile.tensor(tile.f32, [16, 64])):
    x = X[0:16, 0:64]
    # Subtracting the row maximum keeps exp() from overflowing.
    m = tile.rowmax(x)
    e = tile.exp(x - m)
    total = tile.rowsum(e)
    Y[0:16, 0:64] = e / total


def main():
    rng = np.random.default_rng(2)
    X = rng.uniform(-4, 4, (16, 64)).astype(np.float32)
    Y = np.zeros_like(X)
    print(softmax(X, Y))
    e = np.exp(X - X.max(axis=1, keepdims=True))
    np.testing.assert_allclose(Y, e / e.sum(axis=1, keepdims=True),
                               rtol=1e-4)
    print("Y matches numpy")


if __name__ == "__main__":
    main()
