"""Python twins of the language's own test kernels (test/Frontend/*.tile):
elements and sub-tiles of tiles, gathers, scatters and atomics written in
Python build the IR the .tile front end builds (test_twins.py)."""

import tile
from tile import f32 as F32, i32 as I32, tensor

# test/Frontend/indexing.tile


@tile.kernel(threads=128)
def subtiles(X: tensor(F32, [16, 64]), Z: tensor(F32, [16, 64])):
    t = X[0:16, 0:64]
    t[0:8, 0:64] = 1.0
    t[15, 63] += 2.0
    if t[15, 63] > 1.0:
        t[8:16, 0:32] = tile.rowsum(t)[0:8, 0:1]
    t[8:16, 32:64] = t[0:8, 0:32] * 3.0
    Z[0:16, 0:64] = t


@tile.kernel(threads=128)
def lookup(E: tensor(F32, ["V", 64]), Ids: tensor(I32, [16, 1]),
           Y: tensor(F32, [16, 64]), L: tensor(F32, [16, "V"]),
           P: tensor(F32, [16, 1])):
    ids = Ids[0:16, 0:1]
    Y[0:16, 0:64] = E[ids, 0:64]
    P[0:16, 0:1] = tile.load(L[0:16, ids], other=-1.0)


@tile.kernel(threads=128)
def permute(X: tensor(F32, ["M", 32]), Y: tensor(F32, ["M", 32]),
            T: tensor(F32, [16, 32])):
    rows = (tile.iota((16, 1), 0) * 5) % 16 + 3
    x = X[0:16, 0:32]
    Y[0:16, 0:32] += x
    tile.store(Y[rows, 0:32], x * 2.0, mask=x > 0.0)
    r = tile.iota((16, 32), 1) % 16
    c = tile.iota((16, 32), 0) + tile.iota((16, 32), 1) % 2
    T[0:16, 0:32] = X[r, c]


@tile.kernel(threads=128, registers=["acc"])
def halves(X: tensor(F32, [16, "K"]), Y: tensor(F32, [16, 64])):
    acc: tile.tile_type(F32, [16, 64]) = 0.0
    for k in tile.range(0, X.shape[1], 64):
        x = X[0:16, k:k + 64]
        acc[8:16, 0:64] += x[0:8, 0:64]
        acc[0:8, 0:64] += x[8:16, 0:64] * 2.0
    Y[0:16, 0:64] = acc


# test/Frontend/atomics.tile


@tile.kernel(threads=128,
             grid=lambda M, N: (tile.cdiv(N, 64), tile.cdiv(M, 16)))
def split_sums(X: tensor(F32, ["M", "N"]), C: tensor(F32, ["M", 64]),
               Best: tensor(F32, ["M", 1]), Low: tensor(I32, [8]),
               B: tensor(I32, [16, 64])):
    row = tile.ctx.block.y * 16
    x = X[row:row + 16, tile.ctx.block.x * 64:tile.ctx.block.x * 64 + 64]
    tile.atomic_add(C[row:row + 16, 0:64], x)
    tile.atomic_max(Best[row:row + 16, 0:1], tile.rowmax(x),
                    mask=tile.iota((16, 1), 0) % 2 == 0)
    bins = (B[0:16, 0:64] + 8) % 8
    tile.atomic_min(Low[tile.reshape(bins, (1024,))],
                    tile.reshape(B[0:16, 0:64], (1024,)))


# test/Frontend/copy.tile: copies of slices, 2-D shared buffers, a 2-D ring


@tile.kernel(threads=128)
def staged(X: tensor(F32, [16, "N"]), Y: tensor(F32, [16, 64])):
    t = tile.threadgroup_alloc(F32, (16, 64))
    tile.copy(X[0:16, 64:128], t, coalesced_width=4)
    tile.barrier()
    Y[0:16, 0:64] = t * 2.0


@tile.kernel(threads=64, grid=lambda N: tile.cdiv(N, 256))
def flat(A: tensor(F32, ["N"]), B: tensor(F32, ["N"])):
    buf = tile.threadgroup_alloc(F32, 256)
    buf[:] = -1.0
    start = tile.ctx.block.x * 256
    tile.copy(A, buf, count=256, src_offset=start,
              mask=tile.iota((256,), 0) % 3 != 0)
    pair = tile.threadgroup_alloc(F32, (2, 128))
    swapped = tile.threadgroup_alloc(F32, (2, 128))
    pair[...] = tile.reshape(buf, (2, 128))
    tile.copy(pair[0, 0:128], swapped[1, 0:128], coalesced_width=2)
    tile.copy(pair[1, 0:128], swapped[0, 0:128], coalesced_width=2)
    buf[:] = tile.reshape(swapped, (256,))
    tile.copy(buf, B, count=256, dst_offset=start, coalesced_width=4)


@tile.kernel(threads=128)
def ring(A: tensor(F32, [16, "K"]), S: tensor(F32, [16, 64])):
    p = tile.pipeline(F32, (16, 64), stages=3)
    tile.copy(A[0:16, 0:64], p.stage(0), coalesced_width=4, async_=True)
    tile.commit_group()
    tile.copy(A[0:16, 64:128], p.stage(1), coalesced_width=4, async_=True)
    tile.commit_group()
    acc: tile.tile_type(F32, [16, 64]) = 0.0
    for k in tile.range(0, A.shape[1], 64):
        tile.wait_group(1)
        tile.barrier()
        acc += p.front()
        tile.copy(A[0:16, k + 128:k + 192], p.back(), coalesced_width=4,
                  async_=True)
        tile.commit_group()
        p.advance()
    tile.wait_group(0)
    S[0:16, 0:64] = acc


TWINS = {"indexing": [subtiles, lookup, permute, halves],
         "atomics": [split_sums], "copy": [staged, flat, ring]}
