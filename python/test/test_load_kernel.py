"""tile.load_kernel: the .tile examples run from Python on numpy arrays
(and torch tensors) without a Python twin, at ragged sizes on the
emulator, each checked against the reference interpreter and against an
independent numpy computation; and tile-run --input/--output-dir on
numpy's own .npy files."""

import math
import os
import subprocess

import numpy as np
import pytest

import tile

from conftest import BUILD, ROOT


def example(name):
    return os.path.join(ROOT, "examples", name + ".tile")


RNG = np.random.default_rng(27)


def rand(*shape, dtype=np.float32):
    return RNG.uniform(-1, 1, shape).astype(dtype)


def softmax(x):
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def erf(x):
    return np.vectorize(math.erf)(x)


# Each example: its arrays at ragged sizes, and what numpy says the outputs
# are ({parameter: (array, want, rtol, atol)}).
def squares():
    x = rand(16, 1000)
    o, s = np.zeros((16, 64), np.float32), np.zeros((16, 1), np.float32)
    padded = np.pad(x, ((0, 0), (0, 24))).reshape(16, -1, 64)
    want = (padded * padded).sum(axis=1)
    return [x, o, s], {"O": (o, want, 1e-5, 1e-5),
                       "S": (s, want.sum(1, keepdims=True), 1e-5, 1e-4)}


def axpy():
    x, y = rand(3000), rand(3000)
    want = np.float32(2.5) * x + y
    return [2.5, x, y], {"Y": (y, want, 1e-6, 1e-6)}


def embedding():
    ids = RNG.integers(0, 50, (40, 1)).astype(np.int32)
    e = rand(50, 70)
    y = np.zeros((40, 70), np.float32)
    return [ids, e, y], {"Y": (y, e[ids[:, 0]], 0, 0)}


def colsum():
    x, s = rand(70, 200), np.zeros((1, 200), np.float32)
    return [x, s], {"S": (s, x.sum(0, keepdims=True), 1e-5, 1e-5)}


def transpose():
    x, y = rand(40, 70), np.zeros((70, 40), np.float32)
    return [x, y], {"Y": (y, x.T, 0, 0)}


def argmax():
    x, i = rand(20, 300), np.zeros((20, 1), np.int32)
    return [x, i], {"I": (i, x.argmax(1)[:, None], 0, 0)}


def softmax_masked():
    x, y = rand(40, 300) * 8, np.zeros((40, 300), np.float32)
    return [x, y], {"Y": (y, softmax(x), 1e-5, 1e-7)}


def softmax_16x64():
    x, y = rand(16, 64) * 8, np.zeros((16, 64), np.float32)
    return [x, y], {"Y": (y, softmax(x), 1e-5, 1e-7)}


def layernorm():
    x, w, b = rand(20, 300) * 4, rand(1, 300), rand(1, 300)
    y = np.zeros_like(x)
    mean = x.mean(1, keepdims=True)
    var = ((x - mean) ** 2).mean(1, keepdims=True)
    want = (x - mean) / np.sqrt(var + 1e-5) * w + b
    return [1e-5, x, w, b, y], {"Y": (y, want, 1e-4, 1e-5)}


def cross_entropy():
    logits = rand(20, 300) * 5
    labels = RNG.integers(0, 300, (20, 1)).astype(np.int32)
    labels[3, 0] = -100  # ignored, as PyTorch's ignore_index
    loss = np.zeros((20, 1), np.float32)
    m = logits.max(1, keepdims=True)
    lse = m + np.log(np.exp(logits - m).sum(1, keepdims=True))
    picked = np.take_along_axis(logits, np.clip(labels, 0, None), 1)
    want = np.where(labels >= 0, lse - picked, 0)
    return [logits, labels, loss], {"Loss": (loss, want, 1e-5, 1e-5)}


def rowscale():
    x, s = rand(40, 300), rand(40, 1)
    y = np.zeros_like(x)
    return [x, s, y], {"Y": (y, x * s, 1e-6, 0)}


def rowmean():
    x = rand(40, 300)
    mean, chunks = np.zeros((40, 1), np.float32), np.zeros((1, 1), np.int32)
    return [x, mean, chunks], {"Mean": (mean, x.mean(1, keepdims=True), 1e-5,
                                        1e-6),
                               "Chunks": (chunks, [[math.ceil(300 / 64)]], 0,
                                          0)}


def product(m, k, n, out=np.float32, tolerance=1e-3):
    """A [m, k] by [k, n] f16 product into `out`."""
    a, b = rand(m, k, dtype=np.float16), rand(k, n, dtype=np.float16)
    c = np.zeros((m, n), out)
    want = (a.astype(np.float32) @ b.astype(np.float32)).astype(out)
    return [a, b, c], {"C": (c, want, tolerance, tolerance)}


def to_bf16(x):
    """bf16 bit patterns (numpy has no bfloat16) of f32 `x`, truncated."""
    return (x.astype(np.float32).view(np.uint32) >> 16).astype(np.uint16)


def from_bf16(bits):
    return (bits.astype(np.uint32) << 16).view(np.float32)


def linear():
    """X W^T + bias in bf16 (W stored [N, K]), accumulated in f32."""
    x = to_bf16(rand(130, 72).astype(np.float32))
    w = to_bf16(rand(136, 72).astype(np.float32))
    bias = rand(1, 136).astype(np.float32)
    y = np.zeros((130, 136), np.uint16)
    want = (from_bf16(x).astype(np.float64) @ from_bf16(w).T.astype(np.float64)
            + bias)
    return [x, w, bias, y], {"Y": (y, want, 2e-2, 2e-2)}


def int4_unpack():
    packed = RNG.integers(-2**31, 2**31, (13, 100)).astype(np.int32)
    s, w = rand(2, 100), np.zeros((100, 100), np.float32)
    k = np.arange(100)[:, None]
    nibble = (packed.view(np.uint32)[k // 8, np.arange(100)] >>
              (4 * (k % 8)).astype(np.uint32)) & 0xF
    signed = np.where(nibble >= 8, nibble.astype(np.int64) - 16, nibble)
    want = signed.astype(np.float32) * s[k // 64, np.arange(100)]
    return [packed, s, w], {"W": (w, want, 0, 0)}


def rope():
    x = rand(40, 256, dtype=np.float16)
    angles = np.arange(64)[:, None] * 0.1 / (1 + np.arange(64))
    cos, sin = np.cos(angles).astype(np.float32), np.sin(angles).astype(
        np.float32)
    start = np.array([[3]], np.int32)
    y = np.zeros_like(x)
    pos = 3 + np.arange(40)
    heads = x.astype(np.float32).reshape(40, 2, 128)
    x1, x2 = heads[..., :64], heads[..., 64:]
    c, s = cos[pos][:, None, :], sin[pos][:, None, :]
    want = np.concatenate([x1 * c - x2 * s, x2 * c + x1 * s], -1).reshape(
        40, 256).astype(np.float16)
    return [x, cos, sin, start, y], {"Y": (y, want, 2e-3, 2e-3)}


def activations():
    x = rand(40, 100, dtype=np.float16) * 3
    outs = [np.zeros_like(x) for _ in range(3)]
    f = x.astype(np.float64)
    gelu = 0.5 * f * (1 + erf(f / math.sqrt(2)))
    tanh = 0.5 * f * (1 + np.tanh(math.sqrt(2 / math.pi) *
                                  (f + 0.044715 * f ** 3)))
    silu = f / (1 + np.exp(-f))
    return [x, *outs], {"Gelu": (outs[0], gelu, 1e-2, 1e-2),
                        "GeluTanh": (outs[1], tanh, 1e-2, 1e-2),
                        "Silu": (outs[2], silu, 1e-2, 1e-2)}


def flash_attention():
    n, d = 40, 32
    q, k, v = (rand(n, d, dtype=np.float16) for _ in range(3))
    o = np.zeros((n, d), np.float32)
    scores = q.astype(np.float32) @ k.astype(np.float32).T * 0.25
    scores[np.triu_indices(n, 1)] = -np.inf
    want = softmax(scores) @ v.astype(np.float32)
    return [0.25, q, k, v, o], {"O": (o, want, 1e-2, 1e-2)}


def swiglu():
    x = rand(37, 200, dtype=np.float16) * 3
    y = np.zeros((37, 100), np.float16)
    gate, up = x[:, :100].astype(np.float64), x[:, 100:].astype(np.float64)
    want = gate / (1 + np.exp(-gate)) * up
    return [x, y, np.int32(3)], {"Y": (y, want, 1e-2, 1e-2)}


EXAMPLES = {"squares": squares, "axpy": axpy, "embedding": embedding,
            "colsum": colsum, "transpose": transpose, "argmax": argmax,
            "softmax_masked": softmax_masked, "softmax": softmax_16x64,
            "layernorm": layernorm, "cross_entropy": cross_entropy,
            "rowscale": rowscale, "control": rowmean,
            "matmul": lambda: product(32, 96, 64),
            "gemm": lambda: product(130, 40, 130, np.float16, 1e-2),
            "linear": linear,
            "matmul_splitk": lambda: product(40, 100, 70),
            "int4_unpack": int4_unpack, "rope": rope,
            "activations": activations,
            "flash_attention": flash_attention, "swiglu": swiglu}


def test_every_example_is_here():
    names = {n[:-5] for n in os.listdir(os.path.join(ROOT, "examples"))
             if n.endswith(".tile")}
    assert names <= set(EXAMPLES), names - set(EXAMPLES)


@pytest.mark.parametrize("name", sorted(EXAMPLES))
def test_examples_agree_with_numpy(name):
    kernel = tile.load_kernel(example(name))
    arrays, wants = EXAMPLES[name]()
    result = kernel(*arrays, backend="emulate")  # checked against interp
    assert result.matched
    for output, (array, want, rtol, atol) in wants.items():
        if array.dtype == np.uint16:  # bf16 bit patterns
            array = from_bf16(array)
        np.testing.assert_allclose(array.astype(np.float64), want, rtol=rtol,
                                   atol=atol, err_msg=output)


def test_kernel_object():
    kernel = tile.load_kernel(example("embedding"))
    assert kernel.name == "embedding"
    assert [p["name"] for p in kernel.params] == ["Ids", "E", "Y"]
    assert kernel.params[0] == {"name": "Ids", "dtype": "i32",
                                "shape": ["M", 1], "access": "read"}
    assert ".entry embedding" in kernel.ptx
    assert kernel.manifest["kernel"] == "embedding"
    assert "tile.kernel @embedding" in kernel.mlir()
    # By name, and on the reference interpreter.
    ids = np.array([[2], [0], [1]], np.int32)
    e, y = rand(3, 64), np.zeros((3, 64), np.float32)
    result = kernel(Y=y, E=e, Ids=ids, backend="interp")
    assert result.symbols == {"M": 3, "V": 3, "D": 64}
    np.testing.assert_array_equal(y, e[[2, 0, 1]])


def test_torch_tensors():
    torch = pytest.importorskip("torch")
    kernel = tile.load_kernel(example("axpy"))
    x, y = torch.rand(1500), torch.rand(1500)
    want = 0.5 * x + y
    kernel(0.5, x, y, backend="emulate")
    torch.testing.assert_close(y, want)


def test_a_file_of_several_kernels(tmp_path):
    path = tmp_path / "two.tile"
    path.write_text(
        "@launch(32)\nkernel first(A: tensor<f32>[32]) {\n"
        "  A[0 :+ 32] = A[0 :+ 32] + 1.0\n}\n"
        "@launch(32)\nkernel second(B: tensor<i32>[32]) {\n"
        "  B[0 :+ 32] = B[0 :+ 32] * 2\n}\n")
    with pytest.raises(tile.CompileError,
                       match=r"two.tile:1:1: error: the file has 2 kernels "
                             r"\(first, second\); choose one with "
                             r"load_kernel\(\.\.\., kernel=NAME\)"):
        tile.load_kernel(path)
    with pytest.raises(tile.CompileError,
                       match="no kernel named 'secnd'; did you mean "
                             "'second'?"):
        tile.load_kernel(path, kernel="secnd")
    b = np.arange(32, dtype=np.int32)
    tile.load_kernel(path, kernel="second")(b, backend="emulate")
    np.testing.assert_array_equal(b, np.arange(32) * 2)


def test_errors(tmp_path):
    with pytest.raises(tile.Error, match="cannot read .*missing.tile"):
        tile.load_kernel(tmp_path / "missing.tile")
    bad = tmp_path / "bad.tile"
    bad.write_text("@launch(32)\nkernel k(A: tensor<f32>[32]) {\n"
                   "  A[0 :+ 32] = B\n}\n")
    with pytest.raises(tile.CompileError, match=r"bad.tile:3:16: error: undefined name 'B'"):
        tile.load_kernel(bad)
    kernel = tile.load_kernel(example("axpy"))
    x = np.zeros(64, np.float32)
    with pytest.raises(tile.Error, match="'Y' is missing"):
        kernel(1.0, x)
    with pytest.raises(tile.Error, match="no parameter or keyword 'alph'; did you "
                                         "mean 'alpha'?"):
        kernel(X=x, Y=x, alph=1.0)
    with pytest.raises(tile.Error, match="parameter 'X': numpy float64"):
        kernel(1.0, x.astype(np.float64), x)
    with pytest.raises(tile.Error, match="dimension 0 is N = 65, but N = 64"):
        kernel(1.0, x, np.zeros(65, np.float32), backend="interp")


def run_tile(*args):
    return subprocess.run([os.path.join(BUILD, "bin", "tile-run"), *args],
                          capture_output=True, text=True)


def test_tile_run_reads_and_writes_npy(tmp_path):
    """tile-run on numpy's own .npy files: realistic labels (with ignored
    ones) in, the losses out, and numpy agrees with them."""
    logits = rand(37, 250) * 6
    labels = RNG.integers(0, 250, (37, 1)).astype(np.int32)
    labels[::5] = -100
    np.save(tmp_path / "logits.npy", logits)
    np.save(tmp_path / "labels.npy", labels)
    out = tmp_path / "out"
    done = run_tile(example("cross_entropy"), "--backend=emulate",
                    "--ptx-figures=false",
                    f"--input=Logits={tmp_path / 'logits.npy'}",
                    "--input", f"Labels={tmp_path / 'labels.npy'}",
                    "--output-dir", str(out))
    assert done.returncode == 0, done.stderr
    assert "dims: M=37, V=250\n" in done.stdout
    assert sorted(os.listdir(out)) == ["Loss.npy"]
    loss = np.load(out / "Loss.npy")
    assert loss.dtype == np.float32 and loss.shape == (37, 1)
    m = logits.max(1, keepdims=True)
    lse = m + np.log(np.exp(logits - m).sum(1, keepdims=True))
    picked = np.take_along_axis(logits, np.clip(labels, 0, None), 1)
    np.testing.assert_allclose(loss, np.where(labels >= 0, lse - picked, 0),
                               rtol=1e-5, atol=1e-5)


def test_tile_run_npy_of_every_dtype(tmp_path):
    """f16 in and out through numpy's float16 (activations), bf16 as its
    uint16 bit patterns, bool arrays; and numpy's errors of dtype."""
    x = rand(20, 70, dtype=np.float16)
    np.save(tmp_path / "x.npy", x)
    done = run_tile(example("activations"), "--backend=interp",
                    f"--input=X={tmp_path / 'x.npy'}",
                    f"--output-dir={tmp_path}")
    assert done.returncode == 0, done.stderr
    silu = np.load(tmp_path / "Silu.npy")
    assert silu.dtype == np.float16 and silu.shape == (20, 70)
    f = x.astype(np.float64)
    np.testing.assert_allclose(silu, f / (1 + np.exp(-f)), rtol=1e-2,
                               atol=1e-3)
    np.save(tmp_path / "x64.npy", x.astype(np.float64))
    done = run_tile(example("activations"), "--backend=interp",
                    f"--input=X={tmp_path / 'x64.npy'}")
    assert done.returncode == 2
    assert ("unsupported dtype: the file holds float64 ('<f8'), which is no "
            "element type of tile; the parameter is f16 ('<f2'): save "
            "a.astype(numpy.float16)") in done.stderr
    np.save(tmp_path / "xf.npy", np.asfortranarray(x))
    done = run_tile(example("activations"), "--backend=interp",
                    f"--input=X={tmp_path / 'xf.npy'}")
    assert done.returncode == 2 and "Fortran order" in done.stderr
