"""dot of f16 on tensor cores (mma.sync) from Python: the PTX, the remarks,
the emulator against numpy, and wrong fragments planted in the lowered code
caught by the check."""

import numpy as np
import pytest

import tile
from conftest import example

matmul = example("matmul").matmul


def matmul_inputs(rng, K):
    A = rng.uniform(-1, 1, (32, K)).astype(np.float16)
    B = rng.uniform(-1, 1, (K, 64)).astype(np.float16)
    return A, B, np.zeros((32, 64), np.float32)


def test_dot_is_mma_sync():
    compiled = matmul.compile(chip="sm_90", remarks=True)
    # Two entries, the general kernel and its div16 variant: 4 mma.sync
    # each.
    entries = compiled.ptx.split(".visible .entry ")[1:]
    assert sorted(entry.split("(")[0] for entry in entries) == [
        "matmul", "matmul_div16"]
    for entry in entries:
        assert entry.count("mma.sync.aligned.m16n8k16.row.col.f32.f16") == 4
    assert "ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16" in compiled.ptx
    assert any("dot on tensor cores" in str(remark)
               for remark in compiled.remarks)
    # sm_75 has no m16n8k16: the same kernel is SIMT there.
    assert "mma.sync" not in matmul.compile(chip="sm_75").ptx


def test_matmul_on_tensor_cores_against_numpy(rng):
    A, B, C = matmul_inputs(rng, K=80)  # not a multiple of the step of 32
    result = matmul(A, B, C, backend="emulate")
    want = A.astype(np.float64) @ B.astype(np.float64)
    np.testing.assert_allclose(C, want, rtol=1e-3, atol=1e-3)
    assert result.matched is True


@pytest.mark.parametrize("bug", ["tile-test-swap-mma-halves",
                                 "tile-test-transpose-mma-b"])
def test_planted_wrong_fragment_is_caught(rng, bug):
    A, B, C = matmul_inputs(rng, K=64)
    with pytest.raises(tile.MismatchError) as raised:
        matmul.compile().run(A, B, C, backend="emulate", _planted_bugs=bug)
    assert raised.value.name == "C"
    assert raised.value.count > 0
