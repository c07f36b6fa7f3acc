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


@tile.kernel(threads=256, registers=["acc"])
def matmul_tf32(A: tile.tensor(tile.f32, [32, "K"]),
                B: tile.tensor(tile.f32, ["K", 64]),
                C: tile.tensor(tile.f32, [32, 64])):
    acc = tile.zeros((32, 64), tile.f32)
    for k in tile.range(0, A.shape[1], 32):
        acc += tile.dot(A[0:32, k:k + 32], B[k:k + 32, 0:64],
                        precision="tf32")
    C[0:32, 0:64] = acc


def to_tf32(x):
    """f32 rounded to tf32 as cvt.rna.tf32.f32 does (ties away from 0)."""
    bits = x.astype(np.float32).view(np.uint32).astype(np.uint64)
    bits = ((bits + 0x1000) & 0xffffe000).astype(np.uint32)
    return bits.view(np.float32)


def test_tf32_dot_is_mma_sync_m16n8k8():
    compiled = matmul_tf32.compile(chip="sm_90", remarks=True)
    # [32, 64] over 2 x 4 warps: 1 x 2 mma tiles a warp, 4 steps of 8 of K;
    # in the kernel and in its div16 variant.
    assert compiled.ptx.count(
        "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32") == 2 * 8
    assert "ldmatrix" not in compiled.ptx
    assert any("mma.sync.m16n8k8 of tf32" in str(remark)
               for remark in compiled.remarks)


def test_tf32_matmul_against_numpy(rng):
    A = rng.uniform(-1, 1, (32, 80)).astype(np.float32)
    B = rng.uniform(-1, 1, (80, 64)).astype(np.float32)
    C = np.zeros((32, 64), np.float32)
    result = matmul_tf32(A, B, C, backend="emulate")
    assert result.matched is True
    want = to_tf32(A).astype(np.float64) @ to_tf32(B).astype(np.float64)
    np.testing.assert_allclose(C, want, rtol=1e-5, atol=1e-5)
    # Rounded, not exact: the exact product is further away than that.
    exact = A.astype(np.float64) @ B.astype(np.float64)
    assert np.abs(C - exact).max() > 1e-4


def test_tf32_planted_wrong_fragment_is_caught(rng):
    A = rng.uniform(-1, 1, (32, 64)).astype(np.float32)
    B = rng.uniform(-1, 1, (64, 64)).astype(np.float32)
    C = np.zeros((32, 64), np.float32)
    with pytest.raises(tile.MismatchError) as raised:
        matmul_tf32.compile().run(A, B, C, backend="emulate",
                                  _planted_bugs="tile-test-swap-mma-halves")
    assert raised.value.name == "C"


def test_precision_errors():
    with pytest.raises(tile.CompileError, match="unknown precision for 'dot'"):
        @tile.kernel(threads=32)
        def bad(A: tile.tensor(tile.f32, [16, 16]),
                C: tile.tensor(tile.f32, [16, 16])):
            C[0:16, 0:16] = tile.dot(A[0:16, 0:16], A[0:16, 0:16],
                                     precision="fp8")
        bad.compile()
    with pytest.raises(tile.CompileError,
                       match="'precision = tf32' rounds f32 operands"):
        @tile.kernel(threads=32)
        def half(A: tile.tensor(tile.f16, [16, 16]),
                 C: tile.tensor(tile.f32, [16, 16])):
            C[0:16, 0:16] = tile.dot(A[0:16, 0:16], A[0:16, 0:16],
                                     precision="tf32")
        half.compile()
