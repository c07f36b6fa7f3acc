"""Every error path: arguments, compile errors located in the Python source."""

import inspect

import numpy as np
import pytest

import tile
from kernels import squares


def line_of(fn, text):
    """The file line of the first source line of `fn` containing `text`."""
    lines, first = inspect.getsourcelines(fn)
    for offset, line in enumerate(lines):
        if text in line:
            return first + offset, line.index(text) + 1
    raise AssertionError(text)


def arrays(K=128):
    return (np.zeros((16, K), np.float32), np.zeros((16, 64), np.float32),
            np.zeros((16, 1), np.float32))


# ---- arguments ---------------------------------------------------------


def test_wrong_dtype_names_the_parameter():
    X, O, S = arrays()
    with pytest.raises(tile.Error, match="parameter 'X': expected f32 "
                                         "elements, got i32"):
        squares(X.astype(np.int32), O, S, backend="interp")
    with pytest.raises(tile.Error, match="parameter 'O': numpy float64 is "
                                         "not an element type of tile"):
        squares(X, O.astype(np.float64), S, backend="interp")


def test_wrong_shape_names_the_parameter():
    X, O, S = arrays()
    with pytest.raises(tile.Error, match=r"parameter 'O': dimension 1 is 63, "
                                         r"expected 64"):
        squares(X, np.zeros((16, 63), np.float32), S, backend="interp")
    with pytest.raises(tile.Error, match=r"parameter 'S': expected rank 2, "
                                         r"got shape \[16\]"):
        squares(X, O, np.zeros(16, np.float32), backend="interp")


@tile.kernel(threads=32)
def add(A: tile.tensor(tile.f32, ["N"]), B: tile.tensor(tile.f32, ["N"]),
        C: tile.tensor(tile.f32, ["N"])):
    C[0:32] = A[0:32] + B[0:32]


def test_inconsistent_symbol():
    a = np.zeros(32, np.float32)
    with pytest.raises(tile.Error, match=r"parameter 'B': dimension 0 is "
                                         r"N = 64, but N = 32 \(parameter "
                                         r"'A' dimension 0\)"):
        add(a, np.zeros(64, np.float32), a, backend="interp")


def test_argument_count_kind_and_backend():
    X, O, S = arrays()
    with pytest.raises(tile.Error, match="takes 3 arrays"):
        squares(X, O, backend="interp")
    with pytest.raises(tile.Error, match="parameter 'X': expected a numpy "
                                         "array, got list"):
        squares([1.0], O, S, backend="interp")
    with pytest.raises(tile.Error, match="backend='gpu': expected one of"):
        squares(X, O, S, backend="gpu")
    readonly = O.copy()
    readonly.flags.writeable = False
    with pytest.raises(tile.Error, match="parameter 'O': the kernel writes "
                                         "it, but the array is read-only"):
        squares(X, readonly, S, backend="interp")


def test_unannotated_parameter():
    def k(X):
        pass
    with pytest.raises(tile.Error, match="parameter 'X' needs an annotation"):
        tile.kernel(threads=32)(k)


def test_builtins_outside_a_kernel():
    with pytest.raises(tile.Error, match="tile.rowsum can only be used "
                                         "inside a @tile.kernel"):
        tile.rowsum(1)
    assert tile.cdiv(10, 4) == 3  # on Python integers it is Python's


@pytest.mark.skipif(not tile.kernel, reason="")
def test_cuda_unavailable_is_backend_unavailable():
    from conftest import HAS_CUDA
    if HAS_CUDA:
        pytest.skip("a GPU answers here")
    with pytest.raises(tile.BackendUnavailable, match="no CUDA driver"):
        squares(*arrays(), backend="cuda")


# ---- compile errors ------------------------------------------------------


def check_located(error, fn, text, message):
    line, col = line_of(fn, text)
    lines = str(error).splitlines()
    assert lines[0] == f"{__file__}:{line}:{col}: error: {message}"
    source = inspect.getsourcelines(fn)[0][line - inspect.getsourcelines(
        fn)[1]].rstrip("\n")
    assert lines[1] == source
    assert lines[2] == " " * (col - 1) + "^"


@tile.kernel(threads=256)
def mismatched(X: tile.tensor(tile.f32, [16, 64]),
               Y: tile.tensor(tile.f32, [16, 64])):
    x = X[0:16, 0:64]
    Y[0:16, 0:64] = x + tile.i32(x)


def test_type_mismatch_at_the_python_line():
    with pytest.raises(tile.CompileError) as raised:
        mismatched.compile()
    check_located(raised.value, mismatched.fn, "x + tile.i32",
                  "type mismatch in '+': tile<f32>[16, 64] and "
                  "tile<i32>[16, 64]")


@tile.kernel(threads=256, registers=["acc"])
def uneven(O: tile.tensor(tile.f32, [3, 5])):
    acc = tile.zeros((3, 5), tile.f32)
    O[0:3, 0:5] = acc


def test_rejected_registers_point_at_zeros():
    with pytest.raises(tile.CompileError) as raised:
        uneven.compile()
    check_located(raised.value, uneven.fn, "acc = tile.zeros",
                  "'acc': [3, 5] has 15 elements, which 256 threads cannot "
                  "share evenly: every thread must hold the same number of "
                  "elements")


@tile.kernel(threads=256, registers=["nothing"])
def unknown_register(O: tile.tensor(tile.f32, [16, 64])):
    O[0:16, 0:64] = tile.zeros((16, 64))


def test_unknown_register_name_points_at_the_decorator():
    with pytest.raises(tile.CompileError) as raised:
        unknown_register.compile()
    line, _ = line_of(unknown_register.fn, "registers=")
    assert f":{line}:" in str(raised.value).splitlines()[0]
    assert "@registers names 'nothing', which is not a var of kernel " \
           "'unknown_register'" in str(raised.value)


@tile.kernel(threads=256)
def variable_extent(X: tile.tensor(tile.f32, [16, "K"]),
                    Y: tile.tensor(tile.f32, [16, 64])):
    for kt in tile.range(0, X.shape[1], 64):
        Y[0:16, 0:64] = X[0:16, kt:2 * kt]


def test_slice_extent_must_be_constant():
    with pytest.raises(tile.CompileError) as raised:
        variable_extent.compile()
    check_located(raised.value, variable_extent.fn, "kt:2 * kt",
                  "a slice extent must be a compile-time constant: write "
                  "start:start + N")


@tile.kernel(threads=32)
def int_division(A: tile.tensor(tile.i32, [32]), B: tile.tensor(tile.i32, [32])):
    B[0:32] = A[0:32] / 2


def test_true_division_of_integers():
    with pytest.raises(tile.CompileError, match="'/' of integers: use '//'"):
        int_division.compile()


@tile.kernel(threads=32)
def extent_too_large(A: tile.tensor(tile.f32, [32]), B: tile.tensor(tile.f32, [32])):
    B[0:32] = A[0:64]


def test_extent_larger_than_dimension():
    with pytest.raises(tile.CompileError) as raised:
        extent_too_large.compile()
    assert "slice extent 64 exceeds dimension 0 of 'A', which has size 32" \
        in str(raised.value)


@tile.kernel(threads=32)
def undefined(A: tile.tensor(tile.f32, [32])):
    A[0:32] = nowhere  # noqa: F821


def test_undefined_name():
    with pytest.raises(tile.CompileError) as raised:
        undefined.compile()
    check_located(raised.value, undefined.fn, "nowhere", "undefined name "
                  "'nowhere'")


@tile.kernel(threads=32)
def recursive(A: tile.tensor(tile.f32, [32])):
    def twice(x, n):
        return x if n == 0 else twice(x + x, n - 1)
    A[0:32] = twice(A[0:32], 2)


def test_recursion_is_named():
    # A function defined in a kernel is inlined at each call: one that
    # calls itself is refused as recursion, not as an undefined name.
    with pytest.raises(tile.CompileError) as raised:
        recursive.compile()
    check_located(raised.value, recursive.fn, "def twice",
                  "'twice' calls itself: recursion is not supported (a "
                  "function defined in a kernel is inlined at each call)")


@tile.kernel(threads=48)
def bad_threads(A: tile.tensor(tile.f32, [32])):
    pass


def test_threads_checked():
    with pytest.raises(tile.CompileError, match="@launch threads must be a "
                                                "multiple of 32"):
        bad_threads.compile()


@tile.kernel(threads=32)
def assign_param(A: tile.tensor(tile.f32, [32])):
    A = 1.0  # noqa: F841


@tile.kernel(threads=32)
def tile_condition(A: tile.tensor(tile.f32, [32])):
    if A[0:32] > 0.0:
        A[0:32] = 1.0


@tile.kernel(threads=32)
def python_if_on_value(A: tile.tensor(tile.f32, [32])):
    helper(A[0:32])


def helper(x):
    if x:
        return x


def test_statement_errors():
    with pytest.raises(tile.CompileError, match="cannot assign to tensor "
                                                "parameter 'A'"):
        assign_param.compile()
    with pytest.raises(tile.CompileError, match="the condition of 'if' must "
                                                "be a scalar boolean"):
        tile_condition.compile()
    with pytest.raises(tile.CompileError, match="has no truth value while "
                                                "Python builds the kernel"):
        python_if_on_value.compile()


@tile.kernel(threads=32)
def unwritten(A: tile.tensor(tile.f32, [32])):
    x: tile.f32
    A[0:32] = A[0:32] + x


def test_kernel_fault_is_located():
    # The reference interpreter stops at a read of a var never written.
    with pytest.raises(tile.KernelFault) as raised:
        unwritten(np.zeros(32, np.float32), backend="emulate")
    line, _ = line_of(unwritten.fn, "A[0:32] + x")
    assert f"test_errors.py:{line}:" in str(raised.value)
    assert "reads var 'x' before anything was written to it" in \
        str(raised.value)


@tile.kernel(threads=256)
def wide_dot(A: tile.tensor(tile.f32, [64, 160]),
             B: tile.tensor(tile.f32, [160, 64]),
             C: tile.tensor(tile.f32, [64, 64])):
    C[0:64, 0:64] = tile.dot(A[0:64, 0:160], B[0:160, 0:64])


def test_shared_memory_limit_is_the_chips():
    # 81920 B of operands in shared memory: sm_90 and sm_86 take them, sm_75
    # (64 KiB a CTA) refuses them at compile time, naming the buffers.
    assert wide_dot.compile().manifest["shared_bytes"] == 81920
    assert wide_dot.compile(chip="sm_86").manifest["shared_bytes"] == 81920
    with pytest.raises(tile.CompileError,
                       match=r"needs 81920 bytes of shared memory, more than "
                             r"the 65536 sm_75 allows: 'dot.lhs' \(40960 B\) "
                             r"'dot.rhs' \(40960 B\)"):
        wide_dot.compile(chip="sm_75")


# ---- suggestions: the fix, in the message (issue 32) --------------------


@tile.kernel(threads=32)
def misspelt(A: tile.tensor(tile.f32, [32])):
    total = A[0:32] * 2.0
    A[0:32] = totl  # noqa: F821


def test_undefined_name_suggests_a_name_in_scope():
    with pytest.raises(tile.CompileError) as raised:
        misspelt.compile()
    check_located(raised.value, misspelt.fn, "totl", "undefined name 'totl'; "
                  "did you mean 'total'?")


@tile.kernel(threads=32)
def numpy_exp(A: tile.tensor(tile.f32, [32])):
    A[0:32] = np.exp(A[0:32])


@tile.kernel(threads=32)
def numpy_sum(A: tile.tensor(tile.f32, [1, 32]), S: tile.tensor(tile.f32, [1, 1])):
    S[0:1, 0:1] = np.sum(A[0:1, 0:32])


def test_numpy_on_kernel_values_says_use_tile():
    with pytest.raises(tile.CompileError) as raised:
        numpy_exp.compile()
    check_located(raised.value, numpy_exp.fn, "np.exp", "numpy's 'exp' runs "
                  "on arrays, not on a kernel's values: use tile.exp")
    with pytest.raises(tile.CompileError,
                       match=r"numpy's 'sum' runs on arrays, not on a "
                             r"kernel's values; the language has no 'sum': "
                             r"write tile\.rowsum\(x\)"):
        numpy_sum.compile()


@tile.kernel(threads=32)
def relu(A: tile.tensor(tile.f32, [32])):
    A[0:32] = tile.relu(A[0:32])


@tile.kernel(threads=32)
def rowsun(A: tile.tensor(tile.f32, [1, 32]), S: tile.tensor(tile.f32, [1, 1])):
    S[0:1, 0:1] = tile.rowsun(A[0:1, 0:32])


def test_unknown_builtin_suggests_one():
    with pytest.raises(tile.CompileError,
                       match=r"has no attribute 'relu'; the language has no "
                             r"'relu': write tile\.max\(x, 0\.0\)"):
        relu.compile()
    with pytest.raises(tile.CompileError,
                       match=r"has no attribute 'rowsun'; did you mean "
                             r"'rowsum'\?"):
        rowsun.compile()


@tile.kernel(threads=256, registers=["accum"])
def registers_typo(X: tile.tensor(tile.f32, [16, 64]),
                   O: tile.tensor(tile.f32, [16, 64])):
    acc = tile.zeros((16, 64), tile.f32)
    acc += X[0:16, 0:64]
    O[0:16, 0:64] = acc


def test_registers_list_suggests_a_var():
    with pytest.raises(tile.CompileError,
                       match=r"@registers names 'accum', which is not a var "
                             r".*; did you mean 'acc'\?"):
        registers_typo.compile()


@tile.kernel(threads=32)
def store_f32_to_f16(A: tile.tensor(tile.f32, [32]),
                     H: tile.tensor(tile.f16, [32])):
    H[0:32] = A[0:32] * 2.0


def test_store_of_another_type_says_convert():
    with pytest.raises(tile.CompileError,
                       match=r"expected tile<f16>\[32\]; values are never "
                             r"converted implicitly: write tile\.f16\(\.\.\.\)"):
        store_f32_to_f16.compile()


def test_did_you_mean_is_the_front_ends():
    # One rule, the C++ front end's, for both front ends.
    assert tile._tile.did_you_mean("accum", ["acc", "x"]) == \
        "; did you mean 'acc'?"
    assert tile._tile.did_you_mean("softmax", ["rowmax"]) == ""
