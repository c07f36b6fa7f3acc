"""Seed 003's pipeline, completed into a kernel: a three-stage ring of
256-element buffers; two tiles of A are loaded ahead while the front one
is added into a running sum, Out[e] = sum over t of A[t * 256 + e].

    build/venv/bin/python examples/python/seed_pipeline.py [N]
"""

import sys

import numpy as np

import tile


@tile.kernel(threads=256)
def tile_sums(A: tile.tensor(tile.f32, ["N"]),
              Out: tile.tensor(tile.f32, [256])):
    total = tile.zeros((256,), tile.f32)
    # Seed 003's snippet, as written there:
    pipe = tile.pipeline("float", 256, stages=3)

    # Prefill first two stages
    for s in range(2):
        tile.copy(A, pipe.stage(s), count=256, src_offset=s * 256)
    tile.barrier()

    with tile.for_range(0, tile.cdiv(N, 256)) as t:  # noqa: F821 (symbol N)
        total += pipe.front()[:]  # compute(pipe.front())
        tile.copy(A, pipe.back(), count=256, src_offset=(t + 2) * 256)
        tile.barrier()
        pipe.advance()
    Out[0:256] = total


def main(N=256 * 5 + 100):
    rng = np.random.default_rng(8)
    A = rng.uniform(-1, 1, N).astype(np.float32)
    Out = np.zeros(256, np.float32)
    print(tile_sums(A, Out))
    padded = np.zeros(-(-N // 256) * 256)
    padded[:N] = A
    np.testing.assert_allclose(Out, padded.reshape(-1, 256).sum(0),
                               rtol=1e-5, atol=1e-5)
    print("Out matches numpy")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 256 * 5 + 100)
