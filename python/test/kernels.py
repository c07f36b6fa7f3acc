"""Kernels the tests share (a module, so the front end reads real source)."""

import tile
from conftest import example


# The seed's kernel is the example's.
squares = example("squares").squares


@tile.kernel(threads=256, registers=["acc"])
def rows32(X: tile.tensor(tile.f32, [32, 32]), S: tile.tensor(tile.f32, [32, 1])):
    # Rows of 32: the rowsum folds into warp shuffles.
    acc = tile.zeros((32, 32), tile.f32)
    acc += X[0:32, 0:32]
    S[0:32, 0:1] = tile.rowsum(acc)


@tile.kernel(threads=128, grid=lambda M: tile.cdiv(M, 16))
def rowscale(X: tile.tensor(tile.f32, ["M", 64]),
             Y: tile.tensor(tile.f32, ["M", 64])):
    r = tile.block_id(0) * 16
    x = X[r:r + 16, 0:64]
    Y[r:r + 16, 0:64] = x * (1.0 / tile.rowmax(tile.abs(x) + 1.0))


@tile.kernel(threads=128)
def rows256(X: tile.tensor(tile.f32, [4, 256]), S: tile.tensor(tile.f32, [4, 1])):
    # Rows of 256 span warps in every layout: the warps' partials meet in
    # shared memory, after a barrier.
    S[0:4, 0:1] = tile.rowsum(X[0:4, 0:256])
