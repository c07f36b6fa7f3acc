"""Calls that used to crash or escape as Python's own exceptions: threads
sharing a kernel, read-only inputs, and arguments out of range."""

import threading

import numpy as np
import pytest

import tile
from kernels import rowscale


def make_axpy():
    """A kernel object of its own, so that its compiled state is built
    lazily by whichever thread comes first."""
    @tile.kernel(threads=128, grid=lambda N: tile.cdiv(N, 128))
    def axpy(a: tile.f32, X: tile.tensor(tile.f32, ["N"]),
             Y: tile.tensor(tile.f32, ["N"])):
        i = tile.block_id(0) * 128
        Y[i:i + 128] = a * X[i:i + 128] + Y[i:i + 128]
    return axpy


def test_four_threads_share_one_kernel():
    # Before the Compilation's lock, 4 of 6 such runs crashed: run()
    # releases the GIL, and the threads built the placement, the PTX and
    # the emulator's code into one Compilation at once.
    for round in range(3):
        kernel = make_axpy()
        start = threading.Barrier(4)
        failures = []

        def work(seed):
            rng = np.random.default_rng(seed)
            try:
                start.wait()
                for _ in range(3):
                    x = rng.uniform(-1, 1, 300).astype(np.float32)
                    y = rng.uniform(-1, 1, 300).astype(np.float32)
                    want = 2.0 * x + y
                    kernel(2.0, x, y, backend="emulate")
                    np.testing.assert_allclose(y, want, rtol=1e-6)
                    kernel.compile(x, y).ptx  # also while others run
            except Exception as error:  # reported by the main thread
                failures.append(error)

        threads = [threading.Thread(target=work, args=(round * 10 + i,))
                   for i in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert not failures, failures


def test_read_only_inputs(tmp_path):
    data = np.arange(64 * 64, dtype=np.float32) / 100.0
    X = np.frombuffer(data.tobytes(), np.float32).reshape(64, 64)
    assert not X.flags.writeable
    Y = np.zeros((64, 64), np.float32)
    rowscale(X, Y, backend="emulate")
    assert np.all(np.isfinite(Y)) and Y.any()
    path = tmp_path / "x.bin"
    data.tofile(path)
    mapped = np.memmap(path, np.float32, mode="r", shape=(64, 64))
    Z = np.zeros((64, 64), np.float32)
    rowscale(mapped, Z, backend="interp")
    np.testing.assert_array_equal(Y, Z)
    # A read-only output is still an error, naming the parameter.
    with pytest.raises(tile.Error, match="parameter 'Y': the kernel writes "
                                         "it, but the array is read-only"):
        rowscale(Y, X, backend="interp")


def arguments():
    return np.ones(256, np.float32), np.zeros(256, np.float32)


@pytest.mark.parametrize("keyword, value, message", [
    ("warmup", "x", r"warmup='x': expected a count of runs"),
    ("runs", 2**40, r"runs=1099511627776: expected a count of runs"),
    ("runs", -1, r"runs=-1: expected a count of runs"),
    ("warmup", True, r"warmup=True: expected a count of runs"),
])
def test_run_counts_are_checked(keyword, value, message):
    with pytest.raises(tile.Error, match=message):
        make_axpy()(1.0, *arguments(), backend="interp", **{keyword: value})


def test_scalars_out_of_range():
    axpy = make_axpy()
    with pytest.raises(tile.Error, match=r"parameter 'a': 10000000\.\.\. "
                                         r"\(401 digits\) does not fit in f32"):
        axpy(10**400, *arguments(), backend="interp")
    with pytest.raises(tile.Error, match=r"parameter 'a': 1e\+300 does not "
                                         r"fit in f32"):
        axpy(1e300, *arguments(), backend="interp")

    @tile.kernel(threads=32)
    def first(n: tile.index, X: tile.tensor(tile.f32, [32])):
        X[0:32] = X[0:32] + tile.f32(n)
    X = np.zeros(32, np.float32)
    with pytest.raises(tile.Error, match=r"parameter 'n': "
                                         r"9223372036854775808 does not fit "
                                         r"in index \(64-bit signed\)"):
        first(2**63, X, backend="interp")
    first(2**63 - 1, X, backend="interp", check=False)


def test_deep_expression_is_a_compile_error(tmp_path):
    terms = " + ".join(["x"] * 600)
    source = (
        "import tile\n"
        "@tile.kernel(threads=32)\n"
        "def deep(X: tile.tensor(tile.f32, [32])):\n"
        "    x = X[0:32]\n"
        f"    X[0:32] = {terms}\n")
    path = tmp_path / "deep.py"
    path.write_text(source)
    with pytest.raises(tile.CompileError, match=r"deep\.py:3:1: error: "
                                                r"the kernel's code nests too "
                                                r"deeply"):
        run_file(path)


def test_python_function_raising_is_a_compile_error(tmp_path):
    source = (
        "import tile\n"
        "def pick(n):\n"
        "    return {1: 2.0}[n]\n"
        "@tile.kernel(threads=32)\n"
        "def calls(X: tile.tensor(tile.f32, [32])):\n"
        "    X[0:32] = X[0:32] * pick(3)\n")
    path = tmp_path / "calls.py"
    path.write_text(source)
    with pytest.raises(tile.CompileError, match=r"calls\.py:6:\d+: error: "
                                                r"KeyError while compiling "
                                                r"the kernel: 3") as info:
        run_file(path)
    assert isinstance(info.value.__cause__, KeyError)


def run_file(path):
    import runpy
    module = runpy.run_path(str(path))
    kernel = next(v for v in module.values() if isinstance(v, tile.Kernel))
    kernel(np.zeros(32, np.float32), backend="interp")
