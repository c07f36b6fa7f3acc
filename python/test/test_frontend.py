"""The Python front end: control flow, names and scopes, typing, grids,
@pipeline, helpers; each against numpy or the IR it must produce."""

import numpy as np
import pytest

import tile

F32 = tile.f32


def run(kernel, *arrays, backend="emulate"):
    return kernel(*arrays, backend=backend)


@tile.kernel(threads=32)
def branches(X: tile.tensor(F32, [32]), Y: tile.tensor(F32, [32]),
             C: tile.tensor(tile.i32, [1])):
    x = X[0:32]
    if tile.ctx.block.x == 0:
        y = x * 2.0          # assigned in both branches, used after: a var
    else:                    # declared before the if
        y = x
    n: tile.i32 = 0
    while n < 3:
        n += 1
    C[0:1] = n
    Y[0:32] = y


def test_if_else_and_while():
    X = np.arange(32, dtype=np.float32)
    Y = np.zeros(32, np.float32)
    C = np.zeros(1, np.int32)
    run(branches, X, Y, C)
    np.testing.assert_array_equal(Y, X * 2)
    assert C[0] == 3
    ir = branches.compile().mlir()
    # y is declared (without a value) before the scf.if.
    assert ir.index('tile.var "y" :') < ir.index("scf.if")
    assert "scf.while" in ir


SCALE = 3.0
USE_BIAS = False


def twice(v):
    return v + v


@tile.kernel(threads=32)
def python_values(X: tile.tensor(F32, [32]), Y: tile.tensor(F32, [32])):
    x = X[0:32]
    total = tile.zeros((32,))
    for k in range(3):            # unrolled: k is a Python int
        total += x * float(k)
    if USE_BIAS:                  # decided in Python: no scf.if
        total += 1.0
    step = 2
    while step < 16:              # step is assigned in the loop: a var, and
        step *= 2                 # this a loop of the kernel
    helper = lambda v: v * SCALE  # noqa: E731, inlined at each call
    Y[0:32] = twice(helper(total)) + tile.f32(step)


def test_python_values_are_evaluated_while_building():
    X = np.arange(32, dtype=np.float32)
    Y = np.zeros(32, np.float32)
    run(python_values, X, Y)
    np.testing.assert_allclose(Y, 2 * SCALE * X * 3 + 16)
    ir = python_values.compile().mlir()
    assert "scf.if" not in ir and "scf.for" not in ir
    assert ir.count("scf.while") == 1


@tile.kernel(threads=64)
def typing(A: tile.tensor(tile.f16, [64]), B: tile.tensor(tile.f16, [64]),
           I: tile.tensor(tile.i32, [64]), J: tile.tensor(tile.i32, [64])):
    a = A[0:64]
    B[0:64] = a * 2 + tile.f16(tile.f32(a) * 0.5)  # literals take f16
    i = I[0:64]
    J[0:64] = tile.where((i > 0) & (i < 5) | (i == -3), i // 2, i % 3)


def test_literals_casts_and_masks():
    A = np.linspace(-2, 2, 64).astype(np.float16)
    B = np.zeros(64, np.float16)
    I = np.arange(-32, 32, dtype=np.int32)
    J = np.zeros(64, np.int32)
    run(typing, A, B, I, J)
    np.testing.assert_allclose(B, A * 2 + A * np.float16(0.5), rtol=2e-3)
    sel = ((I > 0) & (I < 5)) | (I == -3)
    # // and % of integers in a kernel round toward zero, as in C.
    np.testing.assert_array_equal(J, np.where(sel, np.fix(I / 2),
                                              np.fmod(I, 3)))


@tile.kernel(threads=32, grid=(2, "M"))
def grid2(X: tile.tensor(tile.i32, ["M", 64]), Y: tile.tensor(tile.i32,
                                                               ["M", 64])):
    r = tile.block_id(1)
    c = tile.block_id(0) * 32
    Y[r:r + 1, c:c + 32] = X[r:r + 1, c:c + 32] + tile.i32(
        tile.num_blocks(1))


@tile.kernel(threads=32, grid=lambda M, N: (tile.cdiv(N, 32), M))
def grid_lambda(X: tile.tensor(tile.i32, ["M", "N"]),
                Y: tile.tensor(tile.i32, ["M", "N"])):
    r = tile.ctx.block.y
    c = tile.ctx.block.x * 32
    Y[r:r + 1, c:c + 32] = X[r:r + 1, c:c + 32] * 2


def test_grids():
    X = np.arange(5 * 64, dtype=np.int32).reshape(5, 64)
    Y = np.zeros_like(X)
    result = run(grid2, X, Y)
    assert result.ctas == 10
    np.testing.assert_array_equal(Y, X + 5)
    X = np.arange(3 * 70, dtype=np.int32).reshape(3, 70)
    Y = np.zeros_like(X)
    assert run(grid_lambda, X, Y).ctas == 9
    np.testing.assert_array_equal(Y, X * 2)
    assert grid_lambda.compile().manifest["grid"] == ["(N ceildiv 32)", "M",
                                                      "1"]
    assert grid2.compile().manifest["grid"] == ["2", "M", "1"]


@tile.kernel(threads=128, registers=["acc"],
             pipeline={"names": ["kt"], "stages": 3})
def pipelined(X: tile.tensor(F32, [16, "K"]), S: tile.tensor(F32, [16, 1])):
    acc = tile.zeros((16, 64))
    for kt in tile.range(0, X.shape[1], 64):
        acc += X[0:16, kt:kt + 64]
    S[0:16, 0:1] = tile.rowsum(acc)


@tile.kernel(threads=128, pipeline="kt")
def pipelined_default(X: tile.tensor(F32, [16, "K"]),
                      S: tile.tensor(F32, [16, 1])):
    acc = tile.zeros((16, 64))
    for kt in tile.range(X.shape[1] // 64):
        acc += X[0:16, kt * 64:kt * 64 + 64]
    S[0:16, 0:1] = tile.rowsum(acc)


@tile.kernel(threads=128, pipeline={"names": ["kt"], "stages": 99})
def pipelined_bad(X: tile.tensor(F32, [16, "K"]),
                  S: tile.tensor(F32, [16, 1])):
    for kt in tile.range(0, X.shape[1], 64):
        S[0:16, 0:1] = tile.rowsum(X[0:16, kt:kt + 64])


def test_pipeline_attribute():
    X = np.random.default_rng(0).uniform(-1, 1, (16, 640)).astype(np.float32)
    S = np.zeros((16, 1), np.float32)
    result = run(pipelined, X, S)
    assert result.pipelined[0]["loop"] == "kt"
    assert result.pipelined[0]["ahead"] == 2
    np.testing.assert_allclose(S[:, 0], X.sum(1), rtol=1e-4, atol=1e-5)
    run(pipelined_default, X, S)
    np.testing.assert_allclose(S[:, 0], X.sum(1), rtol=1e-4, atol=1e-5)
    with pytest.raises(tile.CompileError, match="stages"):
        pipelined_bad.compile()


@tile.kernel(threads=32)
def any_dtype(X: tile.tensor(None, [32]), Y: tile.tensor(None, [32])):
    Y[0:32] = X[0:32] + X[0:32]


def test_dtype_from_the_call_compiles_per_signature():
    for dtype in (np.float32, np.int32, np.float16):
        X = np.arange(32).astype(dtype)
        Y = np.zeros(32, dtype)
        run(any_dtype, X, Y)
        np.testing.assert_array_equal(Y, X + X)
    assert len(any_dtype._cache) == 3
    with pytest.raises(tile.Error, match="compile\\(\\) needs the arrays"):
        any_dtype.compile()


@tile.kernel(threads=32)
def scopes(X: tile.tensor(F32, [32]), Y: tile.tensor(F32, [32])):
    for i in tile.range(0, 2):
        t = X[0:32] * 2.0        # used only in the loop: declared there
        Y[0:32] = t
    for j in tile.range(0, 2):
        t2 = X[0:32]
        Y[0:32] = t2 + 1.0


def test_vars_are_declared_where_all_their_uses_are():
    ir = scopes.compile().mlir()
    first_loop = ir.index("scf.for")
    assert ir.index('tile.var "t" =') > first_loop
    X = np.ones(32, np.float32)
    Y = np.zeros(32, np.float32)
    run(scopes, X, Y)
    np.testing.assert_array_equal(Y, X + 1)


@tile.kernel(threads=32)
def index_reassigned(X: tile.tensor(F32, [32])):
    for i in tile.range(0, 2):
        i = 3  # noqa: F841


@tile.kernel(threads=32)
def break_in_loop(X: tile.tensor(F32, [32])):
    for i in tile.range(0, 2):
        break


@tile.kernel(threads=32)
def bad_annotation(X: tile.tensor(F32, [32])):
    x: int = 3  # noqa: F841


@tile.kernel(threads=32)
def tile_iterated(X: tile.tensor(F32, [32])):
    for v in X[0:32]:
        pass


@tile.kernel(threads=32)
def returns(X: tile.tensor(F32, [32])):
    return X[0:32]


@tile.kernel(threads=32)
def wrong_rank(X: tile.tensor(F32, [32])):
    X[0:32, 0:1] = 1.0


@tile.kernel(threads=32)
def stepped(X: tile.tensor(F32, [32])):
    X[0:32:2] = 1.0


@tile.kernel(threads=32)
def symbolic_to_end(X: tile.tensor(F32, ["N"])):
    X[0:] = 1.0


@tile.kernel(threads=32)
def python_int_of_value(X: tile.tensor(F32, [32])):
    X[0:32] = int(X[0:32])


@tile.kernel(threads=32)
def zero_step(X: tile.tensor(F32, [64])):
    for c in tile.range(0, 64, 0):
        X[c:c + 32] = 1.0


@tile.kernel(threads=32)
def float_start(X: tile.tensor(F32, [64])):
    for c in tile.range(0.5, 64, 32):
        X[c:c + 32] = 1.0


@pytest.mark.parametrize("kernel, message", [
    (zero_step, "the range step must be positive, got 0"),
    (float_start, "0.5"),
    (index_reassigned, "cannot assign to loop index 'i'"),
    (break_in_loop, "break is not supported in a kernel"),
    (bad_annotation, "the annotation of 'x' must be an element type"),
    (tile_iterated, "cannot be iterated over"),
    (returns, "a kernel returns nothing"),
    (wrong_rank, "'X' has 1 dimension but the slice has 2"),
    (stepped, "a slice of a tensor has no step"),
    (symbolic_to_end, "dimension 0 of 'X' is the symbol N"),
    (python_int_of_value, r"int\(\) of a kernel value"),
])
def test_front_end_errors(kernel, message):
    with pytest.raises(tile.CompileError, match=message) as raised:
        kernel.compile()
    assert "test_frontend.py:" in str(raised.value)


@tile.kernel(threads=32)
def scalars(alpha: tile.f32, n: tile.i32, r: tile.index,
            X: tile.tensor(F32, [4, 32]), Y: tile.tensor(F32, [1, 32])):
    Y[0, 0:32] = X[r, 0:32] * alpha + tile.f32(n)


def test_scalar_parameters_and_single_indices():
    X = np.arange(128, dtype=np.float32).reshape(4, 32)
    Y = np.zeros((1, 32), np.float32)
    run(scalars, 0.5, 3, 2, X, Y)
    np.testing.assert_array_equal(Y[0], X[2] * 0.5 + 3)
    run(scalars, np.float32(2), np.int32(1), np.array(1), X, Y)
    np.testing.assert_array_equal(Y[0], X[1] * 2 + 1)
    assert [p["shape"] for p in scalars.compile().manifest["params"]][:3] == \
        [[], [], []]
    with pytest.raises(tile.Error, match="parameter 'n' is a scalar i32; got "
                                         "the number 1.5"):
        run(scalars, 0.5, 1.5, 2, X, Y)
    with pytest.raises(tile.Error, match="parameter 'alpha' is a scalar f32; "
                                         r"got an array of shape \(2,\)"):
        run(scalars, np.zeros(2), 1, 2, X, Y)


@tile.kernel(threads=128)
def masked_rows(X: tile.tensor(F32, [16, "N"]), Y: tile.tensor(F32, [16, "N"]),
                C: tile.tensor(tile.i32, [16, 64])):
    x = tile.load(X[0:16, 0:64], other=-tile.inf)
    e = tile.exp(x - tile.rowmax(x))
    cols = tile.iota((16, 64), 1)
    C[0:16, 0:64] = cols
    tile.store(Y[0:16, 0:64], e / tile.rowsum(e), mask=cols < tile.i32(N))


def test_load_other_store_mask_iota():
    X = np.random.default_rng(1).uniform(-3, 3, (16, 40)).astype(np.float32)
    Y = np.full((16, 40), 7, np.float32)
    C = np.zeros((16, 64), np.int32)
    run(masked_rows, X, Y, C)
    e = np.exp(X - X.max(1, keepdims=True))
    np.testing.assert_allclose(Y, e / e.sum(1, keepdims=True), rtol=1e-5)
    np.testing.assert_array_equal(C, np.broadcast_to(np.arange(64), (16, 64)))


@tile.kernel(threads=32)
def load_of_value(X: tile.tensor(F32, [32])):
    x = X[0:32]
    X[0:32] = tile.load(x)


@tile.kernel(threads=32)
def iota_axis(X: tile.tensor(tile.i32, [32])):
    X[0:32] = tile.iota((32,), 1)


def test_load_and_iota_errors():
    with pytest.raises(tile.CompileError, match="the first argument of "
                                                "tile.load is a slice"):
        load_of_value.compile()
    with pytest.raises(tile.CompileError, match="the axis of 'iota' is an "
                                                "integer from 0 to 0"):
        iota_axis.compile()


@tile.kernel(threads=32)
def running_sum(X: tile.tensor(F32, [4, 32]), Y: tile.tensor(F32, [1, 32]),
                N: tile.tensor(tile.i32, [1])):
    s = tile.zeros((1, 1))
    count = 0          # a number, but assigned in the loop: a var
    for r in tile.range(0, 4):
        s = s + tile.rowsum(X[r, 0:32])
        count += 1
    Y[0:1, 0:32] = s
    N[0:1] = count


@tile.kernel(threads=32)
def retyped(X: tile.tensor(F32, [32]), I: tile.tensor(tile.i32, [32])):
    for r in tile.range(0, 2):
        x = X[0:32]          # assigned first in each loop: one var per loop
        X[0:32] = x + 1.0
    for r in tile.range(0, 2):
        x = I[0:32]          # so it may change type
        I[0:32] = x * 2


def test_numbers_assigned_in_loops_accumulate():
    X = np.arange(128, dtype=np.float32).reshape(4, 32)
    Y = np.zeros((1, 32), np.float32)
    N = np.zeros(1, np.int32)
    run(running_sum, X, Y, N)
    np.testing.assert_allclose(Y, np.full((1, 32), X.sum()))
    assert N[0] == 4


def test_one_var_per_loop_that_assigns_before_use():
    X = np.zeros(32, np.float32)
    I = np.ones(32, np.int32)
    run(retyped, X, I)
    np.testing.assert_array_equal(X, 2)
    np.testing.assert_array_equal(I, 4)
    ir = retyped.compile().mlir()
    assert ir.count('tile.var "x" =') == 2


@tile.kernel(threads=32)
def tile_index(X: tile.tensor(F32, [2, 32]), Y: tile.tensor(F32, [1, 32])):
    x = X[0:2, 0:32]
    Y[0:1, 0:32] = x[1, 3] + x[0:1, 0:32]


def test_indexing_a_tile_is_the_languages():
    # t[i, j] and t[a:b, ...] of a tile are the .tile front end's
    # tile.extract and tile.extract_slice.
    X = np.arange(64, dtype=np.float32).reshape(2, 32)
    Y = np.zeros((1, 32), np.float32)
    run(tile_index, X, Y)
    np.testing.assert_array_equal(Y, X[1, 3] + X[0:1])
    ir = tile_index.compile().mlir()
    assert "tile.extract %" in ir and "tile.extract_slice" in ir
