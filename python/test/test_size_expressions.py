"""Tensor dimensions that are expressions of symbols ("2 * H") and grids
over a scalar parameter, in Python (docs/python.md)."""

import numpy as np
import pytest

import tile

ROWS = 16
COLS = 64


@tile.kernel(threads=256,
             grid=lambda M, H, splits: (tile.cdiv(H, COLS), splits))
def swiglu(X: tile.tensor(tile.f16, ["M", "2 * H"]),
           Y: tile.tensor(tile.f16, ["M", "H"]), splits: tile.i32):
    c = tile.block_id(0) * COLS
    u = Y.shape[1] + c  # H + c: the up half's columns
    for r in tile.range(tile.block_id(1) * ROWS, X.shape[0],
                        tile.index(splits) * ROWS):
        gate = tile.f32(X[r:r + ROWS, c:c + COLS])
        up = tile.f32(X[r:r + ROWS, u:u + COLS])
        Y[r:r + ROWS, c:c + COLS] = tile.f16(gate * tile.sigmoid(gate) * up)


def silu_mul(X):
    h = X.shape[1] // 2
    gate, up = X[:, :h].astype(np.float32), X[:, h:].astype(np.float32)
    return (gate / (1 + np.exp(-gate)) * up).astype(np.float16)


@pytest.mark.parametrize("backend", ["emulate", "interp"])
@pytest.mark.parametrize("M,H,splits", [(37, 100, 3), (5, 1, 1)])
def test_swiglu_over_2h_columns(backend, M, H, splits):
    rng = np.random.default_rng(M + H)
    X = rng.uniform(-3, 3, (M, 2 * H)).astype(np.float16)
    Y = np.zeros((M, H), np.float16)
    result = swiglu(X, Y, np.int32(splits), backend=backend)
    assert result.matched
    np.testing.assert_allclose(Y.astype(np.float32),
                               silu_mul(X).astype(np.float32),
                               rtol=2e-3, atol=2e-3)


def test_width_not_the_expression_names_it():
    X = np.zeros((8, 30), np.float16)
    Y = np.zeros((8, 16), np.float16)
    with pytest.raises(tile.Error, match=r"parameter 'X': dimension 1 is 30, "
                                         r"but 2 \* H = 32 with H = 16"):
        swiglu(X, Y, np.int32(1), backend="interp")


def test_grid_size_from_a_scalar_must_be_positive():
    X = np.zeros((8, 32), np.float16)
    Y = np.zeros((8, 16), np.float16)
    with pytest.raises(tile.Error, match="grid"):
        swiglu(X, Y, np.int32(0), backend="interp")


def test_manifest_spells_the_expression():
    compiled = swiglu.compile(np.zeros((8, 32), np.float16),
                              np.zeros((8, 16), np.float16), np.int32(1))
    manifest = compiled.manifest
    assert manifest["params"][0]["shape"] == ["M", "2 * H"]
    assert manifest["symbols"] == ["M", "H"]
    assert manifest["grid"][1] == "splits"


@tile.kernel(threads=32)
def pad(X: tile.tensor(tile.f32, ["N"]),
        Y: tile.tensor(tile.f32, ["W * N + 1"]),
        Z: tile.tensor(tile.f32, ["W * 8"]), W: tile.constexpr):
    Y[0:32] = tile.full([32], 1.0)
    Z[0:16] = X[0:16]


def test_constexprs_in_an_expression():
    # W = 2: "W * N + 1" is "2 * N + 1", and "W * 8", no symbol left, the
    # static size 16.
    X = np.arange(20, dtype=np.float32)
    Y = np.zeros(41, np.float32)
    Z = np.zeros(16, np.float32)
    assert pad(X, Y, Z, W=2, backend="interp").matched
    np.testing.assert_array_equal(Z, X[:16])
    np.testing.assert_array_equal(Y[:32], 1.0)
    with pytest.raises(tile.Error, match="dimension 0 is 40, but 2 \\* N "
                                         "\\+ 1 = 41"):
        pad(X, np.zeros(40, np.float32), Z, W=2, backend="interp")


def test_symbol_only_in_an_expression_is_located():
    @tile.kernel(threads=32)
    def unbound(X: tile.tensor(tile.f32, ["2 * Q"])):
        X[0:32] = tile.full([32], 1.0)
    with pytest.raises(tile.CompileError,
                       match="symbol 'Q' is only in dimension expressions"):
        unbound(np.zeros(8, np.float32), backend="interp")
