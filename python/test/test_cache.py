"""The compile cache across processes (TILE_CACHE_DIR): a second process
compiles nothing, a corrupt or foreign entry is rebuilt, a changed name the
kernel uses is a miss."""

import json
import os
import subprocess
import sys

import pytest

PROGRAM = '''
import json, sys, time
import numpy as np
import tile

SCALE = float(sys.argv[1])


@tile.kernel(threads=128, grid=lambda M: tile.cdiv(M, 16))
def scaled(X: tile.tensor(tile.f32, ["M", 64]),
           Y: tile.tensor(tile.f32, ["M", 64])):
    r = tile.block_id(0) * 16
    Y[r:r + 16, 0:64] = X[r:r + 16, 0:64] * SCALE


start = time.perf_counter()
compiled = scaled.compile()
ptx = compiled.ptx
seconds = time.perf_counter() - start
X = np.ones((32, 64), np.float32)
Y = np.zeros_like(X)
scaled(X, Y, backend="emulate")
info = tile.cache_info()
print(json.dumps({"hits": info.hits, "misses": info.misses,
                  "cached": compiled.cached, "ptx": ptx, "y": float(Y[0, 0]),
                  "directory": info.directory, "key": compiled.cache_key,
                  "seconds": seconds}))
'''


@pytest.fixture
def program(tmp_path):
    path = tmp_path / "kernel_program.py"
    path.write_text(PROGRAM)
    cache = tmp_path / "cache"

    def run(scale=2.0, **env):
        done = subprocess.run(
            [sys.executable, str(path), str(scale)], capture_output=True,
            text=True, env={**os.environ, "TILE_CACHE_DIR": str(cache), **env})
        assert done.returncode == 0, done.stderr
        return json.loads(done.stdout.splitlines()[-1])
    run.cache = cache
    return run


def entry_dir(cache, key):
    return cache / "kernels" / key[:2] / key


def test_second_process_hits(program):
    first = program()
    assert (first["hits"], first["misses"], first["cached"]) == (0, 1, False)
    assert first["directory"] == str(program.cache)
    second = program()
    assert (second["hits"], second["misses"], second["cached"]) == (1, 0, True)
    assert second["ptx"] == first["ptx"]
    assert second["y"] == first["y"] == 2.0
    files = sorted(os.listdir(entry_dir(program.cache, first["key"])))
    assert files == ["entry.json", "scaled.json", "scaled.ptx",
                     "warnings.json"]


def test_corrupt_and_foreign_entries_are_rebuilt(program):
    first = program()
    entry = entry_dir(program.cache, first["key"])
    ptx = entry / "scaled.ptx"
    ptx.write_text(ptx.read_text().replace(".entry", ".entry_corrupt", 1))
    again = program()
    assert (again["hits"], again["misses"]) == (0, 1)
    assert again["ptx"] == first["ptx"]
    assert ".entry_corrupt" not in ptx.read_text()  # rebuilt
    assert program()["hits"] == 1
    # An entry that says it is another key's: ignored.
    meta = json.loads((entry / "entry.json").read_text())
    meta["key"] = "0" * 64
    (entry / "entry.json").write_text(json.dumps(meta))
    assert program()["misses"] == 1
    (entry / "entry.json").write_text("{not json")
    assert program()["misses"] == 1
    assert program()["hits"] == 1


def test_a_changed_global_is_a_miss(program):
    assert program(2.0)["misses"] == 1
    changed = program(3.0)
    assert (changed["hits"], changed["misses"], changed["y"]) == (0, 1, 3.0)
    assert program(3.0)["hits"] == 1


def test_cache_info_and_directory(monkeypatch, tmp_path):
    import tile
    monkeypatch.setenv("TILE_CACHE_DIR", str(tmp_path / "here"))
    assert tile.cache_info().directory == str(tmp_path / "here")
    monkeypatch.delenv("TILE_CACHE_DIR")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert tile.cache_info().directory == str(tmp_path / "xdg" / "tile")
    info = tile.cache_info()
    assert info.hits >= 0 and info.misses >= 0


def test_store_json_writes_whole_or_leaves_nothing(tmp_path):
    from tile import cache
    path = tmp_path / "autotune" / "k.json"
    cache.store_json(str(path), {"b": 2, "a": 1})
    assert json.loads(path.read_text()) == {"a": 1, "b": 2}
    # A rename, not a rewrite: a second link keeps the old bytes.
    os.link(path, tmp_path / "earlier.json")
    cache.store_json(str(path), {"a": 3})
    assert json.loads(path.read_text()) == {"a": 3}
    assert json.loads((tmp_path / "earlier.json").read_text()) == {"a": 1,
                                                                    "b": 2}
    # A write that cannot be done (the name is a directory) leaves no
    # temporary file behind (the staging file was left beside it).
    (tmp_path / "autotune" / "dir.json").mkdir()
    cache.store_json(str(tmp_path / "autotune" / "dir.json"), {"a": 1})
    assert sorted(os.listdir(tmp_path / "autotune")) == ["dir.json", "k.json"]
