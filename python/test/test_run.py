"""Calling kernels on numpy arrays: backends, outputs, the report, the check."""

import os

import numpy as np
import pytest

import tile
from kernels import rows32, rows256, rowscale, squares


def squares_inputs(rng, K=4096):
    X = rng.uniform(-1, 1, (16, K)).astype(np.float32)
    return X, np.zeros((16, 64), np.float32), np.zeros((16, 1), np.float32)


def squares_want(X):
    O = np.zeros((16, 64))
    for kt in range(0, X.shape[1], 64):
        block = X[:, kt:kt + 64].astype(np.float64)
        O[:, :block.shape[1]] += block * block
    return O, O.sum(axis=1, keepdims=True)


@pytest.mark.parametrize("backend", ["emulate", "interp"])
def test_squares_against_numpy(rng, backend):
    X, O, S = squares_inputs(rng, K=1000)  # not a multiple of 64
    result = squares(X, O, S, backend=backend)
    want_o, want_s = squares_want(X)
    np.testing.assert_allclose(O, want_o, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(S, want_s, rtol=1e-5, atol=1e-4)
    assert result.backend == backend
    assert result.matched is True
    assert result.symbols == {"K": 1000}


def test_auto_is_emulate_without_a_gpu(rng):
    from conftest import HAS_CUDA
    result = squares(*squares_inputs(rng, K=128))
    assert result.backend == ("cuda" if HAS_CUDA else "emulate")


def test_report_prints_like_tile_run(rng):
    result = squares(*squares_inputs(rng, K=128), backend="emulate")
    text = str(result)
    assert text.startswith("emulate: 'squares' on the CPU, 1 CTA(s) x 256 "
                           "threads = 256 threads")
    # The register-promotion contract's counts, then what the code does: acc's spill is read by no
    # other thread, so its store is elided; its rows lie in one warp (runs
    # of 4), so the rowsum is shuffles and needs no shared memory.
    assert ("registers: 'acc' 4 elements per thread; the register-promotion "
            "contract: 1 spill(s), 0 reduction(s) it folds into shuffles; the "
            "spill's store "
            "is elided") in text
    assert "reduction: tile.rowsum at" in text
    assert "through shuffles" in text
    assert "shared: 0 B in 0 buffer(s)" in text
    assert "O matches interp (1024 elements)" in text
    assert "S matches interp (16 elements)" in text
    # The figures as attributes.
    assert result.ctas == 1 and result.threads == 256 and result.ops > 0
    assert result.seconds >= 0
    assert result.register_tiles[0]["name"] == "acc"
    assert result.register_tiles[0]["slots"] == 4
    assert result.shared_buffers == []
    assert result.shared_bytes_planned == 0
    assert [c["name"] for c in result.checks] == ["O", "S"]
    assert "MISMATCH" not in repr(result)


def test_shared_plan_lines_are_the_python_source(rng):
    X = rng.uniform(-1, 1, (4, 256)).astype(np.float32)
    result = rows256(X, np.zeros((4, 1), np.float32), backend="emulate")
    names = [b["name"] for b in result.shared_buffers]
    assert names == ["rowsum.partials"]
    assert result.shared_bytes_planned == 4 * 8 * 4
    assert "kernels.py:" in result.shared_buffers[0]["live"]


def test_ptxas_figures_when_a_toolkit_is_there(rng):
    result = squares(*squares_inputs(rng, K=128), backend="interp")
    if result.ptxas is None:
        pytest.skip("no CUDA toolkit (ptxas) here")
    assert result.registers == result.ptxas["registers"] > 0
    assert "compile: ptxas -arch=sm_90:" in str(result)


def test_check_false_runs_without_reference(rng):
    X, O, S = squares_inputs(rng, K=64)
    result = squares(X, O, S, backend="emulate", check=False)
    assert result.checks == [] and result.matched is None
    assert "matches" not in str(result)
    np.testing.assert_allclose(S[:, 0], (X.astype(np.float64) ** 2).sum(1),
                               rtol=1e-5)


def test_outputs_into_non_contiguous_arrays(rng):
    X = rng.uniform(-1, 1, (32, 32)).astype(np.float32)
    wide = np.zeros((32, 2), np.float32)
    S = wide[:, :1]  # a view, not contiguous
    rows32(X, S, backend="emulate")
    np.testing.assert_allclose(wide[:, 0], X.sum(1), rtol=1e-5, atol=1e-5)
    assert (wide[:, 1] == 0).all()


def test_grid_and_block_id(rng):
    M = 50  # four CTAs, the last one partly outside
    X = rng.uniform(-1, 1, (M, 64)).astype(np.float32)
    Y = np.zeros_like(X)
    result = rowscale(X, Y, backend="emulate")
    assert result.ctas == 4
    want = X / (np.abs(X) + 1.0).max(axis=1, keepdims=True)
    np.testing.assert_allclose(Y, want, rtol=1e-5)


def test_mismatch_error_names_first_index(rng):
    # A bug planted in the lowered code (each butterfly offset doubled):
    # the check must catch it and say where.
    X = rng.uniform(-1, 1, (32, 32)).astype(np.float32)
    S = np.zeros((32, 1), np.float32)
    compiled = rows32.compile()
    with pytest.raises(tile.MismatchError) as raised:
        compiled.run(X, S, backend="emulate",
                     _planted_bugs="tile-test-break-shuffle")
    error = raised.value
    assert error.name == "S"
    assert error.index == (0, 0) and error.flat_index == 0
    assert error.got == pytest.approx(S[0, 0])
    assert error.want == pytest.approx(X[0].astype(np.float64).sum(),
                                       rel=1e-5)
    assert error.count > 0
    assert str(error).startswith("S wrong at 0 [0, 0]: got ")
    assert error.result.matched is False
    # Without the check the same run passes silently: check=False means it.
    compiled.run(X, S, backend="emulate", check=False,
                 _planted_bugs="tile-test-break-shuffle")


@tile.kernel(threads=128)
def quotients(X: tile.tensor(tile.f32, [16, 64]),
              Y: tile.tensor(tile.f32, [16, 64]),
              Q: tile.tensor(tile.f32, [16, 64])):
    Q[0:16, 0:64] = X[0:16, 0:64] / Y[0:16, 0:64]


def test_division_is_exact_unless_fp_div_full(rng):
    # Every quotient one ulp off (planted in the lowered code): caught where
    # `/` is correctly rounded (the default), allowed with fp_div="full",
    # whose div.full.f32 may be 2 ulp off.
    X = rng.uniform(-1, 1, (16, 64)).astype(np.float32)
    Y = rng.uniform(0.5, 2, (16, 64)).astype(np.float32)
    Q = np.zeros_like(X)
    bug = "tile-test-nudge-quotients"
    quotients(X, Y, Q, backend="emulate")
    assert (Q == X / Y).all()
    with pytest.raises(tile.MismatchError) as raised:
        quotients.compile().run(X, Y, Q, backend="emulate", _planted_bugs=bug)
    assert raised.value.name == "Q" and raised.value.count == 16 * 64
    full = quotients.compile(fp_div="full")
    assert full.run(X, Y, Q, backend="emulate", _planted_bugs=bug).matched
    assert "div.full.f32" in full.ptx and "div.rn.f32" not in full.ptx
    assert "div.rn.f32" in quotients.compile().ptx
    # The manifest says how it was compiled, and the check follows it.
    assert (full.manifest["fp_div"], full.manifest["fp_contract"]) == \
        ("full", True)
    assert quotients.compile().manifest["fp_div"] == "ieee"
    with pytest.raises(tile.Error, match="fp_div 'fast': expected 'ieee' or "
                       "'full'"):
        quotients.compile(fp_div="fast")


@pytest.mark.cuda
def test_squares_on_the_gpu(rng):
    X, O, S = squares_inputs(rng)
    result = squares(X, O, S, backend="cuda")
    assert result.backend == "cuda"
    assert result.registers > 0 and result.ms > 0
    assert 0 < result.occupancy <= 100
    assert result.max_threads_per_block >= 256
    assert "GPU:" in str(result)
    _, want_s = squares_want(X)
    np.testing.assert_allclose(S, want_s, rtol=1e-4)


FAKE_DRIVER_RUN = '''
import numpy as np
import tile

@tile.kernel(threads=128, grid=lambda K: tile.cdiv(K, 32))
def copy(X: tile.tensor(tile.f32, [4, "K"]), O: tile.tensor(tile.f32, [4, "K"])):
    col = tile.ctx.block.x * 32
    O[0:4, col:col + 32] = X[0:4, col:col + 32]

X = np.arange(4000, dtype=np.float32).reshape(4, 1000)
O = np.zeros_like(X)
result = copy(X, O, backend="cuda", runs=2)
assert np.array_equal(O, X)
print(result)
print("device", result.device, "regs", result.registers, "tpb",
      result.max_threads_per_block, "occupancy", result.occupancy,
      "grid", result.grid, "ms", result.ms is not None)
'''


def test_cuda_backend_through_the_fake_driver(tmp_path):
    # The cuda path end to end without a GPU: real PTX, the driver calls,
    # seed 002's figures, against the CPU stand-in for libcuda.so.1 whose
    # `copy` kernel copies X to O (unittests/Runtime/FakeCudaDriver.cpp).
    import subprocess
    import sys
    from conftest import BUILD
    lib = os.path.join(BUILD, "lib", "libTileFakeCudaDriver.so")
    if not os.path.exists(lib):
        pytest.skip("the fake driver is built with the tests")
    script = tmp_path / "fake.py"
    script.write_text(FAKE_DRIVER_RUN)
    env = dict(os.environ, TILE_CUDA_DRIVER_LIBRARY=os.path.abspath(lib))
    ran = subprocess.run([sys.executable, str(script)], env=env,
                         capture_output=True, text=True)
    assert ran.returncode == 0, ran.stderr
    out = ran.stdout
    assert "GPU: tile fake CUDA device (compute capability 9.0)" in out
    assert "grid 32 x 1 x 1, 128 threads per CTA" in out
    assert "O matches interp (4000 elements)" in out
    assert "device tile fake CUDA device" in out
    assert "grid (32, 1, 1)" in out and "ms True" in out


def test_a_race_is_a_kernel_fault_at_the_python_line(rng):
    # Without its barriers (a bug planted in the lowered code) the rowsum's
    # threads read partials other warps still write: the emulator reports
    # the race, located in the kernel's Python source.
    X = rng.uniform(-1, 1, (4, 256)).astype(np.float32)
    with pytest.raises(tile.KernelFault) as raised:
        rows256.compile().run(X, np.zeros((4, 1), np.float32),
                              backend="emulate",
                              _planted_bugs="tile-test-drop-barriers")
    message = str(raised.value)
    assert "race" in message
    assert "kernels.py:" in message


def test_figures_are_the_variant_that_ran():
    """Without a GPU, the report's figures are ptxas's of the entry that
    ran (the div16 variant at K = 4096), and the rest of the run report's
    table is computed from them (issue 32)."""
    import shutil
    X = np.random.default_rng(0).uniform(-1, 1, (16, 4096)).astype(np.float32)
    result = squares(X, np.zeros((16, 64), np.float32),
                     np.zeros((16, 1), np.float32), backend="emulate")
    assert result.variant == "squares_div16"
    assert "dims: K=4096" in str(result)
    if shutil.which("ptxas") is None and not os.path.exists(
            "/usr/local/cuda/bin/ptxas"):
        pytest.skip("no ptxas")
    assert result.computed
    assert result.registers == result.ptxas["registers"]
    regs_per_warp = -(-result.registers * 32 // 256) * 256
    want = min(8, 16384 // regs_per_warp * 4 // 8)
    assert result.blocks_per_sm == want
    assert result.occupancy == pytest.approx(12.5 * want)
    assert result.max_threads_per_block >= 256
    assert result.limited_by in ("warps per SM", "registers")
    row = [line for line in str(result).splitlines()
           if line.startswith("squares_div16 ")]
    assert row and row[0].split()[1] == str(result.registers)
    assert "(computed, no GPU:" in str(result)
