"""The check's bounds on atomics and overflow: never a pass for a wrong
kernel, never a failure for a correct one (docs/spec.md, "What the check
promises")."""

import numpy as np
import pytest

import tile


@tile.kernel(threads=256, registers=["acc"])
def rowsum_add(X: tile.tensor(tile.f32, [32, 32]),
               S: tile.tensor(tile.f32, [32, 1])):
    # Each element of S gets exactly one atomic update: the bound of a
    # plain store, not that of a sum of updates in an unknown order.
    acc = tile.zeros((32, 32), tile.f32)
    acc += X[0:32, 0:32]
    tile.atomic_add(S[0:32, 0:1], tile.rowsum(acc))


@tile.kernel(threads=256, registers=["acc"])
def rowsum_add_f16(X: tile.tensor(tile.f32, [32, 32]),
                   S: tile.tensor(tile.f16, [32, 1])):
    acc = tile.zeros((32, 32), tile.f32)
    acc += X[0:32, 0:32]
    tile.atomic_add(S[0:32, 0:1], tile.f16(tile.rowsum(acc)))


@tile.kernel(threads=256, registers=["acc"])
def rowsum_max(X: tile.tensor(tile.f32, [32, 32]),
               S: tile.tensor(tile.f32, [32, 1])):
    acc = tile.zeros((32, 32), tile.f32)
    acc += X[0:32, 0:32]
    tile.atomic_max(S[0:32, 0:1], tile.rowsum(acc))


@pytest.mark.parametrize("kernel,dtype", [(rowsum_add, np.float32),
                                          (rowsum_add_f16, np.float16),
                                          (rowsum_max, np.float32)])
def test_a_broken_sum_into_an_atomic_is_caught(rng, kernel, dtype):
    X = rng.uniform(0, 1, (32, 32)).astype(np.float32)
    S = np.zeros((32, 1), dtype)
    compiled = kernel.compile()
    assert compiled.run(X, S, backend="emulate").matched
    # Each butterfly offset doubled (planted in the lowered code): the sums
    # are some 16% off or more, and the check says so.
    S = np.zeros((32, 1), dtype)
    with pytest.raises(tile.MismatchError) as raised:
        compiled.run(X, S, backend="emulate",
                     _planted_bugs="tile-test-break-shuffle")
    assert raised.value.name == "S"


@tile.kernel(threads=128)
def rowsums(X: tile.tensor(tile.f32, [16, 32]),
            S: tile.tensor(tile.f32, [16, 1])):
    S[0:16, 0:1] = tile.rowsum(X[0:16, 0:32])


def test_a_sum_that_may_overflow_is_unchecked_not_failed(rng):
    # [2^127, 2^127, -2^127, -2^127]: 0 in the reference's order, inf or
    # NaN in f32 in the GPU's; the element is unchecked (and said to be),
    # the rows that cannot overflow are checked as ever.
    X = rng.uniform(-1, 1, (16, 32)).astype(np.float32)
    X[3, :4] = np.float32(2.0 ** 127) * np.array([1, 1, -1, -1], np.float32)
    S = np.zeros((16, 1), np.float32)
    result = rowsums(X, S, backend="emulate")
    assert result.matched
    np.testing.assert_allclose(np.delete(S, 3, axis=0),
                               np.delete(X.sum(axis=1, keepdims=True), 3,
                                         axis=0), rtol=1e-5, atol=1e-5)


@tile.kernel(threads=128)
def products(A: tile.tensor(tile.f32, [16, 16]),
             B: tile.tensor(tile.f32, [16, 16]),
             C: tile.tensor(tile.f32, [16, 16])):
    C[0:16, 0:16] = tile.dot(A[0:16, 0:16], B[0:16, 0:16])


@tile.kernel(threads=128)
def products_tf32(A: tile.tensor(tile.f32, [16, 16]),
                  B: tile.tensor(tile.f32, [16, 16]),
                  C: tile.tensor(tile.f32, [16, 16])):
    C[0:16, 0:16] = tile.dot(A[0:16, 0:16], B[0:16, 0:16], precision="tf32")


def test_a_dot_that_may_overflow_is_unchecked_not_failed(rng):
    # Products of 2^129 and -2^129: 0 in double, inf or NaN in f32.
    A = rng.uniform(-1, 1, (16, 16)).astype(np.float32)
    B = rng.uniform(-1, 1, (16, 16)).astype(np.float32)
    A[0, :2] = [2.0 ** 65, -2.0 ** 65]
    B[:2, :] = 2.0 ** 64
    C = np.zeros((16, 16), np.float32)
    assert products(A, B, C, backend="emulate").matched
    # A tf32 operand of FLT_MAX rounds up to inf: inf * 0 is NaN.
    A = rng.uniform(-1, 1, (16, 16)).astype(np.float32)
    A[0, 0] = np.finfo(np.float32).max
    B = rng.uniform(-1, 1, (16, 16)).astype(np.float32)
    B[0, :] = 0
    C = np.zeros((16, 16), np.float32)
    assert products_tf32(A, B, C, backend="emulate").matched
