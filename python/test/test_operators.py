"""Python's operators in a kernel: the bit operators, `**`, and a located
CompileError for the ones a kernel does not have (docs/python.md)."""

import inspect

import numpy as np
import pytest

import tile


def shl32(x, s):
    """`x << s` as the language defines it on i32 (PTX's shl): the amount
    read as unsigned, 0 from 32 on."""
    s = s.astype(np.int64) & 0xFFFFFFFF
    shifted = (x.astype(np.int64) << np.minimum(s, 32)) & 0xFFFFFFFF
    return np.where(s >= 32, 0, shifted).astype(np.uint32).view(np.int32)


def sar32(x, s):
    """`x >> s` on i32: arithmetic, the sign from 32 on (PTX's shr.s32)."""
    s = s.astype(np.int64) & 0xFFFFFFFF
    return (x.astype(np.int64) >> np.minimum(s, 31)).astype(np.int32)


@tile.kernel(threads=128)
def bit_ops(X: tile.tensor(tile.i32, [16, 64]),
            S: tile.tensor(tile.i32, [16, 64]),
            And: tile.tensor(tile.i32, [16, 64]),
            Shl: tile.tensor(tile.i32, [16, 64]),
            Shr: tile.tensor(tile.i32, [16, 64]),
            Mask: tile.tensor(tile.i32, [16, 64])):
    x = X[0:16, 0:64]
    s = S[0:16, 0:64]
    And[0:16, 0:64] = (x & 0xFF) ^ (~x | 3)
    Shl[0:16, 0:64] = x << s
    y = x
    y >>= s
    Shr[0:16, 0:64] = y
    # Booleans combine with & | ^ ~, comparisons first in parentheses.
    inside = (x > 0) & ~(x > 1000) ^ (s == 7)
    Mask[0:16, 0:64] = tile.where(inside, 1, 0)


@pytest.mark.parametrize("backend", ["emulate", "interp"])
def test_bit_operators_against_numpy(backend):
    rng = np.random.default_rng(5)
    X = rng.integers(-2**31, 2**31, (16, 64), dtype=np.int64).astype(np.int32)
    # Amounts across the clamp: negative (huge unsigned), 0 to 31, 32 on.
    S = rng.integers(-40, 72, (16, 64)).astype(np.int32)
    outs = [np.zeros((16, 64), np.int32) for _ in range(4)]
    result = bit_ops(X, S, *outs, backend=backend)
    assert result.matched
    And, Shl, Shr, Mask = outs
    np.testing.assert_array_equal(And, (X & 0xFF) ^ (~X | 3))
    np.testing.assert_array_equal(Shl, shl32(X, S))
    np.testing.assert_array_equal(Shr, sar32(X, S))
    inside = ((X > 0) & ~(X > 1000)) ^ (S == 7)
    np.testing.assert_array_equal(Mask, inside.astype(np.int32))


@tile.kernel(threads=64)
def powers(X: tile.tensor(tile.f32, [64]), Sq: tile.tensor(tile.f32, [64]),
           Cube: tile.tensor(tile.f32, [64]), N: tile.tensor(tile.i32, [64])):
    x = X[0:64]
    Sq[0:64] = x ** 2
    Cube[0:64] = tile.abs(x) ** 3.0
    n = tile.i32(x * 10.0)
    N[0:64] = n ** 2 + (1 << 4) + (2 ** 3)


def test_power_is_a_product_for_two_and_pow_otherwise():
    rng = np.random.default_rng(2)
    X = rng.uniform(-3, 3, 64).astype(np.float32)
    Sq, Cube = np.zeros(64, np.float32), np.zeros(64, np.float32)
    N = np.zeros(64, np.int32)
    result = powers(X, Sq, Cube, N, backend="emulate")
    assert result.matched
    # x ** 2 is x * x, correctly rounded: exact.
    np.testing.assert_array_equal(Sq, X * X)
    np.testing.assert_allclose(Cube, np.abs(X).astype(np.float64) ** 3,
                               rtol=1e-5)
    n = (X * 10).astype(np.int32)
    np.testing.assert_array_equal(N, n * n + 16 + 8)


def source_line(fn, text):
    lines, first = inspect.getsourcelines(fn)
    for offset, line in enumerate(lines):
        if text in line:
            return first + offset
    raise AssertionError(text)


def test_shift_of_a_float_is_a_located_error():
    @tile.kernel(threads=32)
    def shifted(X: tile.tensor(tile.f32, [32]), Y: tile.tensor(tile.f32, [32])):
        Y[0:32] = X[0:32] << 1

    with pytest.raises(tile.CompileError,
                       match="'<<' needs integers .*not defined on floats") \
            as raised:
        shifted.compile()
    assert f":{source_line(shifted, '<< 1')}:" in str(raised.value)


def test_operators_a_kernel_lacks_are_located_compile_errors():
    @tile.kernel(threads=32)
    def pow_of_ints(X: tile.tensor(tile.i32, [32]),
                    Y: tile.tensor(tile.i32, [32])):
        Y[0:32] = X[0:32] ** 3

    @tile.kernel(threads=32)
    def membership(X: tile.tensor(tile.i32, [32]),
                   Y: tile.tensor(tile.i32, [32])):
        Y[0:32] = tile.where(X[0:32] in (1, 2), 1, 0)

    @tile.kernel(threads=32)
    def float_mask(X: tile.tensor(tile.f32, [32]),
                   Y: tile.tensor(tile.f32, [32])):
        x = X[0:32]
        x &= 1.0
        Y[0:32] = x

    for kernel, text in ((pow_of_ints, "** 3"), (membership, " in "),
                         (float_mask, "&= 1.0")):
        with pytest.raises(tile.CompileError) as raised:
            kernel.compile()
        assert f":{source_line(kernel, text)}:" in str(raised.value), \
            str(raised.value)


@tile.kernel(threads=128, grid=lambda M, N: (tile.cdiv(N, 32), tile.cdiv(M, 16)))
def int_matmul(A: tile.tensor(tile.i32, ["M", "K"]),
               B: tile.tensor(tile.i32, ["K", "N"]),
               C: tile.tensor(tile.i32, ["M", "N"])):
    m = tile.block_id(1) * 16
    n = tile.block_id(0) * 32
    acc = tile.zeros((16, 32), tile.i32)
    for k in tile.range(0, K, 16):  # noqa: F821
        acc += A[m:m + 16, k:k + 16] @ B[k:k + 16, n:n + 32]
    C[m:m + 16, n:n + 32] = acc


@pytest.mark.parametrize("backend", ["emulate", "interp"])
def test_i32_dot_is_exact_against_numpy(backend):
    # A shape tensor cores would take for f16: an i32 dot runs SIMT, exact.
    rng = np.random.default_rng(3)
    A = rng.integers(-1000, 1000, (40, 50)).astype(np.int32)
    B = rng.integers(-1000, 1000, (50, 70)).astype(np.int32)
    C = np.zeros((40, 70), np.int32)
    result = int_matmul(A, B, C, backend=backend)
    assert result.matched
    np.testing.assert_array_equal(C, A.astype(np.int64) @ B.astype(np.int64))
