"""The kernel examples/aot/launch.cpp launches: `copy` (O = X over [4, K]),
compiled and saved for a program without Python.

    build/venv/bin/python examples/aot/save_copy.py out   # out/copy.{ptx,json,h}
"""

import sys

import tile


@tile.kernel(threads=128, grid=lambda K: tile.cdiv(K, 32))
def copy(X: tile.tensor(tile.f32, [4, "K"]), O: tile.tensor(tile.f32, [4, "K"])):
    col = tile.block_id(0) * 32
    O[0:4, col:col + 32] = X[0:4, col:col + 32]


if __name__ == "__main__":
    for path in copy.compile().save(sys.argv[1] if len(sys.argv) > 1 else "out"):
        print(path)
