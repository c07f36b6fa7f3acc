"""@tile.autotune over tile.constexpr kernels: tuned once per key, the
choice kept in the cache directory for the next process."""

import json
import os
import subprocess
import sys

import numpy as np
import pytest

import tile
from tile import tuning

PROGRAM = '''
import json, sys, warnings
import numpy as np
import tile


@tile.autotune(configs=[tile.Config(threads=128, consts={"BM": 16}),
                        tile.Config(threads=256, consts={"BM": 32}),
                        tile.Config(threads=128, consts={"BM": 64})],
               key=["M"])
@tile.kernel(threads=128, grid=lambda M: tile.cdiv(M, BM))
def tuned(X: tile.tensor(tile.f32, ["M", 64]),
          Y: tile.tensor(tile.f32, ["M", 64]), BM: tile.constexpr):
    r = tile.block_id(0) * BM
    Y[r:r + BM, 0:64] = X[r:r + BM, 0:64] + 1.0


X = np.arange(128 * 64, dtype=np.float32).reshape(128, 64)
Y = np.zeros_like(X)
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    tuned(X, Y, backend="emulate")
assert (Y == X + 1).all()
print(json.dumps({"tuned_now": tuned.tuned_now,
                  "best": repr(tuned.best_config),
                  "method": tuned.tune_method, "scores": tuned.scores,
                  "warnings": [str(w.message) for w in caught]}))
'''


def test_tuned_in_the_first_process_only(tmp_path):
    path = tmp_path / "tuned_program.py"
    path.write_text(PROGRAM)
    env = {**os.environ, "TILE_CACHE_DIR": str(tmp_path / "cache")}

    def run():
        done = subprocess.run([sys.executable, str(path)], env=env,
                              capture_output=True, text=True)
        assert done.returncode == 0, done.stderr
        return json.loads(done.stdout.splitlines()[-1])
    first = run()
    assert first["tuned_now"] is True
    assert first["method"] == ("timed" if tile.cuda_device() else
                               "static estimate")
    assert len(first["scores"]) == 3 and all(first["scores"])
    if first["method"] == "static estimate":
        assert any("static estimate" in w for w in first["warnings"])
    second = run()
    assert second["tuned_now"] is False
    assert second["best"] == first["best"]
    assert second["scores"] == first["scores"]
    assert not any("static estimate" in w for w in second["warnings"])
    stored = os.listdir(tmp_path / "cache" / "autotune")
    assert len(stored) == 1 and stored[0].startswith("tuned-")


@tile.kernel(threads=128, grid=lambda M: tile.cdiv(M, BM))
def blocked(X: tile.tensor(tile.f32, ["M", "BN"]),
            Y: tile.tensor(tile.f32, ["M", "BN"]), BM: tile.constexpr,
            BN: tile.constexpr):
    r = tile.block_id(0) * BM
    Y[r:r + BM, 0:BN] = X[r:r + BM, 0:BN] * 3.0


def test_constexpr_in_shapes_grids_and_calls():
    X = np.ones((64, 32), np.float32)
    Y = np.zeros_like(X)
    result = blocked(X, Y, BM=16, BN=32, backend="emulate")
    assert (Y == 3).all() and result.ctas == 4
    Y[:] = 0
    result = blocked(X, Y, 32, 32, backend="emulate")  # by position
    assert (Y == 3).all() and result.ctas == 2
    assert blocked.compile(BM=16, BN=32) is blocked.compile(BM=16, BN=32)
    assert blocked.compile(BM=16, BN=32) is not blocked.compile(BM=32, BN=32)
    # BN is a constant of the shape: another width is a shape error.
    with pytest.raises(tile.Error, match=r"parameter 'X': dimension 1 is 32, "
                                         r"expected 16"):
        blocked(X, Y, BM=16, BN=16, backend="interp")
    with pytest.raises(tile.Error, match=r"the tile.constexpr parameter 'BN' "
                                         r"needs a value"):
        blocked(X, Y, BM=16, backend="interp")
    with pytest.raises(tile.Error, match=r"has no parameter or keyword 'BK'"):
        blocked(X, Y, BM=16, BN=32, BK=4, backend="interp")
    with pytest.raises(tile.Error, match=r"tile.constexpr 'BM': 'x' is not"):
        blocked.compile(BM="x", BN=32)


def test_choice_per_key_in_one_process(tmp_path, monkeypatch):
    monkeypatch.setenv("TILE_CACHE_DIR", str(tmp_path))
    tuned = tile.autotune(configs=[tile.Config(consts={"BM": 16, "BN": 32}),
                                   tile.Config(consts={"BM": 32, "BN": 32})],
                          key=["M"])(blocked)
    X = np.ones((64, 32), np.float32)
    Y = np.zeros_like(X)
    with pytest.warns(UserWarning, match="static estimate"):
        tuned(X, Y, backend="emulate")
    assert tuned.tuned_now is True and (Y == 3).all()
    tuned(X, Y, backend="emulate")
    assert tuned.tuned_now is False
    with pytest.warns(UserWarning, match="static estimate"):
        tuned(np.ones((128, 32), np.float32), np.zeros((128, 32), np.float32),
              backend="emulate")
    assert tuned.tuned_now is True
    assert tuned.best_config in tuned.configs


def test_autotune_errors():
    with pytest.raises(tile.Error, match="key 'Q' is neither a parameter"):
        tile.autotune(configs=[tile.Config()], key=["Q"])(blocked)
    with pytest.raises(tile.Error, match="configs= is a non-empty list"):
        tile.autotune(configs=[], key=["M"])(blocked)
    with pytest.raises(tile.Error, match="decorates a @tile.kernel"):
        tile.autotune(configs=[tile.Config()])(lambda: 0)


def test_static_estimate_ranks_by_waves_and_occupancy():
    light = {"registers": 32, "spill_bytes": 0, "shared_bytes": 0,
             "instructions": 100}
    heavy = dict(light, registers=255)
    spilled = dict(light, spill_bytes=64)
    # Within one wave, the instruction count decides; registers that cut
    # the resident CTAs add waves once there are many CTAs.
    assert tuning.estimate(light, 128, 132) == tuning.estimate(heavy, 128, 132)
    assert tuning.estimate(light, 128, 132 * 64) < tuning.estimate(
        heavy, 128, 132 * 64)
    assert tuning.estimate(light, 128, 132) < tuning.estimate(spilled, 128, 132)
    assert tuning._evaluate("M ceildiv 16", {"M": 33}) == 3
    assert tuning._evaluate("(M floordiv 16) * 2 + N mod 3", {"M": 33, "N": 7}) == 5


@pytest.mark.skipif(tile.cache.find_ptxas() is None, reason="needs ptxas")
def test_static_figures_from_ptxas_and_the_cubin():
    compiled = blocked.compile(BM=16, BN=32)
    figures = tuning.static_figures(compiled)
    assert figures["ptxas"] is True and figures["registers"] > 0
    assert figures["instructions"] > 0
    assert compiled.cubin is not None and compiled.cubin[:4] == b"\x7fELF"
    assert figures["sass"] == (tuning.find_nvdisasm() is not None)
