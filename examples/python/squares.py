"""The seed's `squares` (examples/squares.tile) in Python: the sum of
squares of each row of X, accumulated in registers over K.

    build/venv/bin/python examples/python/squares.py [K]
"""

import sys

import numpy as np

import tile


@tile.kernel(threads=256, registers=["acc"])
def squares(X: tile.tensor(tile.f32, [16, "K"]),
            O: tile.tensor(tile.f32, [16, 64]),
            S: tile.tensor(tile.f32, [16, 1])):
    acc = tile.zeros((16, 64), tile.f32)
    for kt in tile.range(0, X.shape[1], 64):
        x = X[0:16, kt:kt + 64]
        acc += x * x
    O[0:16, 0:64] = acc
    s = tile.rowsum(acc)
    S[0:16, 0:1] = s


def main(K=4096):
    rng = np.random.default_rng(1)
    X = rng.uniform(-1, 1, (16, K)).astype(np.float32)
    O = np.zeros((16, 64), np.float32)
    S = np.zeros((16, 1), np.float32)
    result = squares(X, O, S)  # cuda when a GPU answers, else emulate; checked
    print(result)
    np.testing.assert_allclose(S[:, 0], (X.astype(np.float64) ** 2).sum(1),
                               rtol=1e-4)
    print("S matches numpy")
    return result


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 4096)
