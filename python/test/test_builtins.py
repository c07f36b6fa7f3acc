"""Every builtin of the language is a function of the package, and each of
those that take values runs, under the emulator, as the reference
interpreter says (so a builtin the language adds is exposed and checked
here without a change)."""

import os
import re

import numpy as np
import pytest

import tile
from tile.api import SPECIAL

NAMES = sorted(tile._tile.builtin_names())
# Those that take more than values (slices, shapes) have their own tests
# (test_access.py, test_frontend.py).
VALUE_BUILTINS = [name for name in NAMES if name not in SPECIAL]


def test_every_builtin_is_exposed():
    for name in NAMES:
        assert callable(getattr(tile, name)), name
        assert tile.BUILTINS[name] is getattr(tile, name) or name in (
            "abs", "max", "min"), name
        assert name in tile.__all__, name
    assert tile.abs is tile.BUILTINS["abs"]
    assert tile.maximum is tile.BUILTINS["max"]


def applying(name, arity):
    """A kernel storing `name` of `arity` [32, 32] f32 tiles, whatever the
    shape and type of the result."""
    fn = tile.BUILTINS[name]

    @tile.kernel(threads=128)
    def apply(A: tile.tensor(tile.f32, [32, 32]),
              B: tile.tensor(tile.f32, [32, 32]),
              O: tile.tensor(tile.f32, [32, 32])):
        args = [A[0:32, 0:32], B[0:32, 0:32], A[0:32, 0:32]][:arity]
        y = fn(*args)
        # (Python decides these, while it builds the kernel; a result of
        # another type, as rowargmax's i32, is converted into a new name.)
        z = y if y.dtype == tile.f32 else tile.f32(y)
        r, c = z.shape if z.ndim == 2 else (1, 1)
        O[0:r, 0:c] = z
    return apply


@pytest.mark.parametrize("name", VALUE_BUILTINS)
def test_builtin_runs_as_the_reference_says(name):
    rng = np.random.default_rng(len(name))
    A = rng.uniform(0.5, 2, (32, 32)).astype(np.float32)
    B = rng.uniform(0.5, 2, (32, 32)).astype(np.float32)
    errors = []
    for arity in (1, 2, 3):
        kernel = applying(name, arity)
        try:
            kernel.compile()
        except tile.CompileError as error:
            errors.append(str(error))
            continue
        O = np.full((32, 32), -7, np.float32)
        result = kernel(A, B, O, backend="emulate")
        assert result.matched and result.checks
        assert not (O == -7).all()
        return
    pytest.fail(f"{name} takes no 1, 2 or 3 f32 tiles:\n" + "\n".join(errors))


@tile.kernel(threads=32)
def numpy_semantics(X: tile.tensor(tile.f32, [32]),
                    Y: tile.tensor(tile.f32, [8, 32]),
                    I: tile.tensor(tile.i32, [32])):
    x = X[0:32]
    for k, fn in enumerate([tile.exp, tile.log, tile.sqrt, tile.tanh,
                            tile.sigmoid, tile.floor, tile.abs, tile.rsqrt]):
        Y[k, 0:32] = tile.reshape(fn(x), (1, 32))
    I[0:32] = tile.cdiv(tile.i32(x * 10.0), 3)


def test_builtins_match_numpy():
    X = np.random.default_rng(0).uniform(0.1, 3, 32).astype(np.float32)
    Y = np.zeros((8, 32), np.float32)
    I = np.zeros(32, np.int32)
    numpy_semantics(X, Y, I, backend="emulate")
    x = X.astype(np.float64)
    want = [np.exp(x), np.log(x), np.sqrt(x), np.tanh(x),
            1 / (1 + np.exp(-x)), np.floor(x), np.abs(x), 1 / np.sqrt(x)]
    np.testing.assert_allclose(Y, np.array(want), rtol=2e-5, atol=1e-6)
    np.testing.assert_array_equal(I, -(-(X * 10).astype(np.int32) // 3))


# The spec's lists (docs/spec.md, "Builtins", "Atomics", "Copies and
# pipelines", "Context") against the package and the C++ front end.
SPEC_ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))


def spec_section(title):
    with open(os.path.join(SPEC_ROOT, "docs", "spec.md")) as f:
        text = f.read()
    return text.split(f"\n### {title}\n", 1)[1].split("\n### ", 1)[0]


def spec_builtins():
    """The names the spec's Builtins table calls (`rowsum(t)`, `exp exp2
    ...(x)`, `f32(x)`), and the atomics of its Atomics section."""
    names = set()
    for row in spec_section("Builtins").splitlines():
        if not row.startswith("| `"):
            continue
        for code in re.findall(r"`([^`]*)`", row.split("|")[1]):
            names.update(code.split("(")[0].split())
    names.update(re.findall(r"\b(atomic_[a-z]+)\(", spec_section("Atomics")))
    return names


CASTS = {"f32", "f16", "bf16", "i32", "index"}


def test_the_spec_lists_every_builtin_of_the_front_end():
    documented = spec_builtins()
    assert {"rowsum", "exp", "sigmoid", "where", "load", "atomic_add"} <= \
        documented
    assert set(tile._tile.builtin_names()) == documented - CASTS


def test_every_builtin_of_the_spec_is_in_python():
    for name in spec_builtins() - CASTS:
        assert callable(getattr(tile, name)), name
    for name in CASTS:
        assert callable(getattr(tile, name)), name  # tile.f32(x)


def test_every_statement_and_context_value_of_the_spec_is_in_python():
    # The statements of "Copies and pipelines" and the stage accessors.
    for name in ("copy", "barrier", "commit_group", "wait_group"):
        assert callable(getattr(tile, name)), name
    for method in ("advance", "stage", "front", "back"):
        assert callable(getattr(tile.Pipeline, method)), method
    # ctx.thread, ctx.threads, ctx.lanes, ctx.block.x|y|z, ctx.blocks.x|y|z
    context = spec_section("Context")
    for field in ("thread", "threads", "lanes", "block", "blocks"):
        assert f"ctx.{field}" in context
        assert hasattr(type(tile.ctx), field), field
    for axis in "xyz":
        assert hasattr(type(tile.ctx.block), axis)
