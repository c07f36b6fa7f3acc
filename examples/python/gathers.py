"""Gathers, scatters and atomics from Python: an embedding lookup (a
gather of rows), cross entropy with integer labels (a gather of one
column per row), and a histogram written per thread (an atomic scatter).
Each is the language's tile.gather, tile.scatter or tile.atomic, checked
against the reference interpreter and numpy.

    build/venv/bin/python examples/python/gathers.py [N V]
"""

import sys

import numpy as np

import tile

ROWS = 16
COLS = 64
THREADS = 128
BINS = 32


@tile.kernel(threads=THREADS, grid=lambda N: tile.cdiv(N, ROWS))
def embed(E: tile.tensor(tile.f32, ["V", COLS]),
          Ids: tile.tensor(tile.i32, ["N", 1]),
          Out: tile.tensor(tile.f32, ["N", COLS])):
    """Out[n] = E[Ids[n]], 16 tokens a CTA; an id outside the table reads
    zeros."""
    n = tile.block_id(0) * ROWS
    ids = Ids[n:n + ROWS, 0:1]                  # an i32 [16, 1] tile
    Out[n:n + ROWS, 0:COLS] = E[ids, 0:COLS]    # row ids[i] of E, each i


@tile.kernel(threads=THREADS, grid=lambda N: tile.cdiv(N, ROWS))
def cross_entropy(Logits: tile.tensor(tile.f32, ["N", "V"]),
                  Labels: tile.tensor(tile.i32, ["N", 1]),
                  Loss: tile.tensor(tile.f32, ["N", 1])):
    """Loss[n] = logsumexp(Logits[n]) - Logits[n, Labels[n]]: an online
    logsumexp over the columns (past V they load -inf), and the label's
    logit gathered, one column per row."""
    n = tile.block_id(0) * ROWS
    m = tile.full((ROWS, 1), -tile.inf)
    s = tile.zeros((ROWS, 1))
    for c in tile.range(0, Logits.shape[1], COLS):
        x = tile.load(Logits[n:n + ROWS, c:c + COLS], other=-tile.inf)
        grown = tile.maximum(m, tile.rowmax(x))
        s = s * tile.exp(m - grown) + tile.rowsum(tile.exp(x - grown))
        m = grown
    picked = Logits[n:n + ROWS, Labels[n:n + ROWS, 0:1]]
    Loss[n:n + ROWS, 0:1] = m + tile.log(s) - picked


@tile.kernel(threads=THREADS, grid=lambda N: tile.cdiv(N, THREADS))
def histogram(X: tile.tensor(tile.f32, ["N"]),
              H: tile.tensor(tile.i32, [BINS])):
    """Seed 003's per-thread style: thread t of CTA b counts X[b * 128 + t]
    into its bin with an atomic add (threads and CTAs that hit one bin
    never race). Values outside [0, 1) fall outside the bins, and elements
    past N read 0, so they are masked out."""
    i = tile.block_id(0) * THREADS + tile.thread_id()
    x = X[i]
    b = tile.i32(tile.floor(x * float(BINS)))
    tile.atomic_add(H[b], 1, mask=i < tile.i32(X.shape[0]))


def main(N=300, V=1000):
    rng = np.random.default_rng(12)
    E = rng.standard_normal((V, COLS)).astype(np.float32)
    ids = rng.integers(-2, V + 2, (N, 1)).astype(np.int32)
    Out = np.full((N, COLS), 7, np.float32)
    print(embed(E, ids, Out))
    inside = (ids[:, 0] >= 0) & (ids[:, 0] < V)
    want = np.where(inside[:, None], E[np.clip(ids[:, 0], 0, V - 1)], 0)
    np.testing.assert_array_equal(Out, want)
    print("Out matches numpy")

    logits = rng.uniform(-5, 5, (N, V)).astype(np.float32)
    labels = rng.integers(0, V, (N, 1)).astype(np.int32)
    loss = np.zeros((N, 1), np.float32)
    cross_entropy(logits, labels, loss)
    x = logits.astype(np.float64)
    top = x.max(1)
    want = top + np.log(np.exp(x - top[:, None]).sum(1)) - \
        x[np.arange(N), labels[:, 0]]
    np.testing.assert_allclose(loss[:, 0], want, rtol=1e-5, atol=1e-5)
    print("Loss matches numpy")

    X = rng.uniform(-0.1, 1.1, N).astype(np.float32)
    H = np.zeros(BINS, np.int32)
    histogram(X, H)
    bins = np.floor(X * BINS).astype(np.int64)
    np.testing.assert_array_equal(
        H, np.bincount(bins[(bins >= 0) & (bins < BINS)], minlength=BINS))
    print("H matches numpy")


if __name__ == "__main__":
    main(*map(int, sys.argv[1:3]))
