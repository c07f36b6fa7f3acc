"""kernel.compile(): PTX, manifest, the IR after each pass, save(), the cache."""

import json
import os
import re
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
        "X.bin", "dims.txt", "squares.h", "squares.json", "squares.ptx"]
    manifest = json.loads((tmp_path / "squares.json").read_text())
    assert manifest["kernel"] == "squares"
    assert (tmp_path / "dims.txt").read_text() == "K=256\n"
    assert np.array_equal(np.fromfile(tmp_path / "X.bin", np.float32),
                          X.ravel())
    # tile-launch reads what save() wrote; without a GPU it stops at the
    # driver, after checking the manifest, the files and the symbols.
    from conftest import BUILD
    launch = os.path.join(BUILD, "bin", "tile-launch")
    if not os.path.exists(launch):
        pytest.skip(f"tile-launch is not built in {BUILD}")
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


def located_ops(ir):
    """(op name, file, line) of each op of a module printed with
    locations, the aliases (#loc3 = loc(...)) resolved; an op with regions
    (scf.for) has its location after its closing brace."""
    aliases = dict(re.findall(r'^(#loc\d*) = (loc\(.*\))$', ir, re.M))
    ops, open_ops = [], []
    for line in ir.splitlines():
        if line.startswith("#"):
            continue
        op = re.match(r'\s*(?:%[\w#:, %]+ = )?"?([a-z_]+\.[a-z_.]+)', line)
        stripped = line.strip()
        if op and stripped.endswith("{"):
            open_ops.append(op.group(1))  # its location follows its body
            continue
        if stripped.startswith("}") and not stripped.endswith("{"):
            name = open_ops.pop() if open_ops else None
        else:
            name = op.group(1) if op else None
        where = re.search(r'loc\((#loc\d*)\)\s*$|(loc\("[^)]*\))\s*$', line)
        if not name or not where:
            continue
        text = aliases.get(where.group(1)) if where.group(1) else \
            where.group(2)
        place = re.search(r'loc\("([^"]+)":(\d+):(\d+)\)', text or "")
        assert place, line
        ops.append((name, place.group(1), int(place.group(2))))
    return ops


def test_each_op_is_located_at_its_python_line():
    from conftest import ROOT
    compiled = squares.compile()
    assert "loc(" not in compiled.mlir()
    ops = located_ops(compiled.mlir(locations=True))
    path = os.path.join(ROOT, "examples", "python", "squares.py")
    with open(path) as f:
        source = dict(enumerate(f.read().splitlines(), 1))
    body = [n for n, text in source.items() if text.startswith("def squares")]
    assert len(ops) > 20
    for name, file, line in ops:
        assert file == path, (name, file)
        assert line >= body[0] - 1, (name, line)  # the decorator's, or after
    # Each op (its first of a kind) at the statement it computes.
    at = {}
    for name, _, line in ops:
        at.setdefault(name, source[line])
    assert "tile.rowsum(acc)" in at["tile.rowsum"]
    assert "x * x" in at["arith.mulf"]
    assert "tile.range" in at["scf.for"]
    assert "X[0:16, kt:kt + 64]" in at["tile.load"]
    assert "tile.zeros" in at["tile.var"]
    # Later passes keep the locations.
    later = located_ops(compiled.mlir("tile-promote-registers",
                                      locations=True))
    assert later and all(file == path for _, file, _ in later)
