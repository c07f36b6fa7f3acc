"""torch tensors in and out, DLPack arrays, and tile.torch_op: a kernel as a
PyTorch custom op, called directly, through torch.ops and under
torch.compile. Skipped where torch is not installed (utils/setup.sh
installs it)."""

import subprocess
import sys

import numpy as np
import pytest

import tile

torch = pytest.importorskip("torch")


@tile.kernel(threads=128, grid=lambda M: tile.cdiv(M, 16))
def scale_rows(X: tile.tensor(tile.f32, ["M", 64]),
               Y: tile.tensor(tile.f32, ["M", 64])):
    r = tile.block_id(0) * 16
    Y[r:r + 16, 0:64] = X[r:r + 16, 0:64] * 2.0 + 1.0


@tile.kernel(threads=256, registers=["acc"])
def matmul(A: tile.tensor(tile.f16, [32, "K"]),
           B: tile.tensor(tile.f16, ["K", 64]),
           C: tile.tensor(tile.f32, [32, 64])):
    acc = tile.zeros((32, 64), tile.f32)
    for k in tile.range(0, A.shape[1], 32):
        acc += tile.dot(A[0:32, k:k + 32], B[k:k + 32, 0:64])
    C[0:32, 0:64] = acc


@tile.kernel(threads=32)
def widen(X: tile.tensor(tile.bf16, [32]), Y: tile.tensor(tile.f32, [32])):
    Y[0:32] = tile.f32(X[0:32])


def test_cpu_tensors_in_and_out():
    X = torch.randn(48, 64)
    Y = torch.zeros(48, 64)
    result = scale_rows(X, Y, backend="emulate")
    assert result.matched is True
    torch.testing.assert_close(Y, X * 2 + 1)


def test_transposed_and_sliced_tensors():
    # A transposed view in, a column slice out: each travels as a copy,
    # and the output's copy is written back into the caller's view.
    base = torch.randn(64, 32)
    X = base.t()  # [32, 64], not contiguous
    assert not X.is_contiguous()
    wide = torch.zeros(32, 128)
    Y = wide[:, 32:96]
    assert not Y.is_contiguous()
    scale_rows(X, Y, backend="emulate")
    torch.testing.assert_close(wide[:, 32:96], X * 2 + 1)
    assert not wide[:, :32].any() and not wide[:, 96:].any()


def test_requires_grad_and_bf16_tensors():
    X = torch.randn(16, 64, requires_grad=True)
    Y = torch.zeros(16, 64)
    scale_rows(X, Y, backend="interp")
    torch.testing.assert_close(Y, X.detach() * 2 + 1)
    h = torch.randn(32).to(torch.bfloat16)
    out = torch.zeros(32)
    widen(h, out, backend="emulate")
    torch.testing.assert_close(out, h.float())


def test_dlpack_objects():
    class Capsule:
        """Only the DLPack protocol, like a CuPy or JAX array on the host."""

        def __init__(self, array):
            self.array = array

        def __dlpack__(self, **kwargs):
            return self.array.__dlpack__(**kwargs)

        def __dlpack_device__(self):
            return self.array.__dlpack_device__()

    X = np.random.default_rng(0).standard_normal((16, 64)).astype(np.float32)
    Y = np.zeros((16, 64), np.float32)
    scale_rows(Capsule(X), Capsule(Y), backend="emulate")
    np.testing.assert_allclose(Y, X * 2 + 1, rtol=1e-6)
    T = torch.from_dlpack(X)
    Z = torch.zeros(16, 64)
    scale_rows(T, torch.from_dlpack(Z.numpy()), backend="emulate")
    torch.testing.assert_close(Z, T * 2 + 1)


def test_signature_errors_name_the_parameter():
    with pytest.raises(tile.Error, match=r"parameter 'X': torch.float64 is "
                                         r"not an element type of tile"):
        scale_rows(torch.zeros(16, 64, dtype=torch.float64),
                   torch.zeros(16, 64), backend="interp")
    with pytest.raises(tile.Error, match=r"parameter 'Y': dimension 1 is 63, "
                                         r"expected 64"):
        scale_rows(torch.zeros(16, 64), torch.zeros(16, 63), backend="interp")
    with pytest.raises(tile.Error, match=r"parameter 'X': expected a numpy "
                                         r"array, got list \(or a torch "
                                         r"tensor, or any object with "
                                         r"__dlpack__"):
        scale_rows([[1.0]], torch.zeros(16, 64), backend="interp")


def test_import_without_torch():
    code = ("import sys; sys.modules['torch'] = None; import tile, numpy as np;"
            "from tile import arrays; assert not arrays.is_torch_tensor(1)")
    subprocess.run([sys.executable, "-c", code], check=True)


mm = tile.torch_op("tiletest::matmul", matmul, outputs={
    "C": lambda A, B: ((A.shape[0], B.shape[1]), torch.float32)})
scaled = tile.torch_op("tiletest::scale_rows", scale_rows, outputs={
    "Y": lambda X: (X.shape, X.dtype)})


def test_torch_op_called_directly_and_through_torch_ops():
    A = torch.randn(32, 64).half()
    B = torch.randn(64, 64).half()
    C = mm(A, B)
    assert C.shape == (32, 64) and C.dtype == torch.float32
    torch.testing.assert_close(C, A.float() @ B.float(), rtol=1e-3, atol=1e-3)
    again = torch.ops.tiletest.matmul(A, B)
    torch.testing.assert_close(again, C)
    X = torch.randn(32, 64)
    torch.testing.assert_close(torch.ops.tiletest.scale_rows(X), X * 2 + 1)


def test_torch_op_under_torch_compile():
    def model(X):
        return torch.relu(scaled(X)) - 1.0

    compiled = torch.compile(model, fullgraph=True, backend="aot_eager")
    X = torch.randn(48, 64)
    torch.testing.assert_close(compiled(X), torch.relu(X * 2 + 1) - 1.0)
    # The fake implementation gives the output's shape without running.
    from torch._subclasses.fake_tensor import FakeTensorMode
    with FakeTensorMode():
        fake = scaled(torch.empty(80, 64))
    assert fake.shape == (80, 64)


def test_torch_op_errors():
    with pytest.raises(tile.Error, match=r"output 'Z' is not a tensor "
                                         r"parameter of kernel 'scale_rows'"):
        tile.torch_op("tiletest::bad", scale_rows,
                      outputs={"Z": lambda X: (X.shape, X.dtype)})
    with pytest.raises(tile.Error, match=r"the rule of 'Y' takes 'Q'"):
        tile.torch_op("tiletest::bad2", scale_rows,
                      outputs={"Y": lambda Q: (Q.shape, Q.dtype)})
    with pytest.raises(tile.Error, match=r"expected 'namespace::name'"):
        tile.torch_op("nonamespace", scale_rows,
                      outputs={"Y": lambda X: (X.shape, X.dtype)})


@tile.kernel(threads=128, grid=lambda M: tile.cdiv(M, BM))
def rows_by(X: tile.tensor(tile.f32, ["M", 64]),
            Y: tile.tensor(tile.f32, ["M", 64]), BM: tile.constexpr):
    r = tile.block_id(0) * BM
    Y[r:r + BM, 0:64] = X[r:r + BM, 0:64] * 3.0


def test_torch_op_of_constexpr_and_autotuned_kernels(tmp_path, monkeypatch):
    monkeypatch.setenv("TILE_CACHE_DIR", str(tmp_path))
    fixed = tile.torch_op("tiletest::rows16", rows_by, consts={"BM": 16},
                          outputs={"Y": lambda X: (X.shape, X.dtype)})
    X = torch.randn(64, 64)
    torch.testing.assert_close(fixed(X), X * 3)
    tuned = tile.autotune(configs=[tile.Config(consts={"BM": 16}),
                                   tile.Config(threads=256, consts={"BM": 32})],
                          key=["M"])(rows_by)
    op = tile.torch_op("tiletest::rows_tuned", tuned,
                       outputs={"Y": lambda X: (X.shape, X.dtype)})
    with pytest.warns(UserWarning, match="static estimate"):
        Y = op(X)
    torch.testing.assert_close(Y, X * 3)
    assert tuned.tuned_now is True and tuned.best_config in tuned.configs
    torch.testing.assert_close(torch.ops.tiletest.rows_tuned(X), X * 3)
    assert tuned.tuned_now is False
