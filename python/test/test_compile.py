"""kernel.compile(): PTX, manifest, the IR after each pass, save(), the cache."""

import json
import os
import subprocess

import numpy as np
import pytest

import tile
from kernels import squares


def test_compile_is_cached_per_signature():
    first = squares.compile()
    assert squares.compile() is first
    assert squares.compile(chip="sm_80") is not first
    assert squares.compile(chip="sm_80") is squares.compile(chip="sm_80")


def test_call_does_not_recompile(rng):
    X = rng.uniform(-1, 1, (16, 128)).astype(np.float32)
    O, S = np.zeros((16, 64), np.float32), np.zeros((16, 1), np.float32)
    squares(X, O, S, backend="interp")
    cached = dict(squares._cache)
    squares(X, O, S, backend="interp")
    squares(np.ones((16, 256), np.float32), O, S, backend="interp")  # new K
    assert squares._cache == cached


def test_ptx_and_manifest():
    compiled = squares.compile()
    assert ".visible .entry squares" in compiled.ptx
    manifest = compiled.manifest
    assert manifest["kernel"] == "squares" and manifest["threads"] == 256
    assert manifest["symbols"] == ["K"]
    assert [p["name"] for p in manifest["params"]] == ["X", "O", "S"]
    assert manifest["params"][0]["shape"] == [16, "K"]
    assert manifest["params"][0]["access"] == "read"
    assert manifest["registers"][0]["name"] == "acc"
    sm80 = squares.compile(chip="sm_80")
    assert sm80.manifest["chip"] == "sm_80"
    assert ".target sm_80" in sm80.ptx


def test_mlir_stages():
    compiled = squares.compile()
    source = compiled.mlir()
    assert 'tile.var "acc"' in source and "tile.rowsum" in source
    assert compiled.mlir("source") == source
    stages = compiled.stages
    assert stages[0] == "source"
    for stage in ("tile-promote-registers", "tile-plan-shared", "tile-to-gpu",
                  "convert-gpu-to-nvvm"):
        assert stage in stages
    promoted = compiled.mlir("tile-promote-registers")
    assert "tile.promoted" in promoted
    assert "gpu.func" in compiled.mlir("tile-to-gpu")
    assert "llvm." in compiled.mlir("convert-gpu-to-nvvm")
    with pytest.raises(tile.Error, match="no stage 'nonsense'; the stages "
                                         "are source, "):
        compiled.mlir("nonsense")


def test_save_for_tile_launch(tmp_path, rng):
    compiled = squares.compile()
    X = rng.uniform(-1, 1, (16, 256)).astype(np.float32)
    paths = compiled.save(tmp_path, inputs=(X, None, None))
    assert sorted(os.path.basename(p) for p in paths) == [
        "X.bin", "dims.txt", "squares.json", "squares.ptx"]
    manifest = json.loads((tmp_path / "squares.json").read_text())
    assert manifest["kernel"] == "squares"
    assert (tmp_path / "dims.txt").read_text() == "K=256\n"
    assert np.array_equal(np.fromfile(tmp_path / "X.bin", np.float32),
                          X.ravel())
    # tile-launch reads what save() wrote; without a GPU it stops at the
    # driver, after checking the manifest, the files and the symbols.
    launch = os.path.join(os.path.dirname(tile._tile.__file__), "..", "..",
                          "bin", "tile-launch")
    if not os.path.exists(launch):
        pytest.skip("tile-launch is not built next to the package")
    ran = subprocess.run([launch, str(tmp_path / "squares.ptx"),
                          str(tmp_path / "squares.json"), "--inputs",
                          str(tmp_path)], capture_output=True, text=True)
    from conftest import HAS_CUDA
    if HAS_CUDA:
        assert ran.returncode == 0, ran.stderr
    else:
        assert ran.returncode == 3, ran.stderr
        assert "no CUDA driver" in ran.stderr


def test_remarks_at_python_lines():
    compiled = squares.compile(remarks=True)
    remarks = "\n".join(compiled.remarks)
    assert "squares.py:" in remarks
    assert "'acc': 4 elements per thread (1024 elements, 256 threads), " \
           "kept in registers" in remarks
    assert "spilled to shared tile 'acc'" in remarks
