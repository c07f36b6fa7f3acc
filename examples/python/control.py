"""Row means with a while loop and if/else (examples/control.tile) in
Python: a kernel while on a value, a var declared by its type, an if on
the symbol N, and CTA 0 reporting how many column chunks each CTA summed.

    build/venv/bin/python examples/python/control.py [M N]
"""

import sys

import numpy as np

import tile


@tile.kernel(threads=128, grid=lambda M: tile.cdiv(M, 16))
def rowmean(X: tile.tensor(tile.f32, ["M", "N"]),
            Mean: tile.tensor(tile.f32, ["M", 1]),
            Chunks: tile.tensor(tile.i32, [1, 1])):
    row = tile.ctx.block.x * 16
    acc = tile.zeros((16, 64), tile.f32)
    col: tile.index = 0
    chunks: tile.i32 = 0
    while col < N:  # noqa: F821 (the symbol N)
        acc += X[row:row + 16, col:col + 64]
        col += 64
        chunks += 1
    mean: tile.tile_type(tile.f32, [16, 1])
    if N == 0:  # noqa: F821
        mean = 0.0
    else:
        mean = tile.rowsum(acc) / tile.f32(N)  # noqa: F821
    Mean[row:row + 16, 0:1] = mean
    if tile.ctx.block.x == 0:
        Chunks[0:1, 0:1] = chunks


def main(M=40, N=200):
    rng = np.random.default_rng(5)
    X = rng.uniform(-1, 1, (M, N)).astype(np.float32)
    Mean = np.zeros((M, 1), np.float32)
    Chunks = np.zeros((1, 1), np.int32)
    print(rowmean(X, Mean, Chunks))
    np.testing.assert_allclose(Mean[:, 0], X.astype(np.float64).mean(1),
                               rtol=1e-5, atol=1e-6)
    assert Chunks[0, 0] == -(-N // 64)
    print("Mean and Chunks: each matches numpy")


if __name__ == "__main__":
    main(*map(int, sys.argv[1:3]))
