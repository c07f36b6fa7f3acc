"""The .tile examples and their Python twins (examples/python) produce the
same IR after the front end, and the same results on the same inputs."""

import importlib.util
import os
import re
import subprocess

import numpy as np
import pytest

import example_twins
import language_twins
import tile
from conftest import BUILD, ROOT, example

BIN = os.path.join(BUILD, "bin")
TWINS = {"squares": "squares", "softmax": "softmax", "matmul": "matmul",
         "rowscale": "rowscale", "control": "rowmean", "axpy": "axpy",
         "softmax_masked": "softmax_masked"}


def tile_ir(name, path=False):
    translate = os.path.join(BIN, "tile-translate")
    return subprocess.run(
        [translate, "--import-tile", "--mlir-print-debuginfo=false",
         name if path else os.path.join(ROOT, "examples", name + ".tile")],
        check=True, capture_output=True, text=True).stdout


@pytest.mark.parametrize("name", sorted(TWINS))
def test_same_ir_after_the_front_end(name):
    kernel = getattr(example(name), TWINS[name])
    assert kernel.compile().mlir().strip() == tile_ir(name).strip()


@pytest.mark.parametrize("name", ["softmax", "rowscale", "control",
                                  "gathers"])
def test_examples_run_and_match_numpy(name, capsys):
    example(name).main()
    assert "matches numpy" in capsys.readouterr().out


def test_squares_and_matmul_examples(capsys):
    example("squares").main(K=1000)
    example("matmul").main(K=96)
    out = capsys.readouterr().out
    assert out.count("matches numpy") == 2


def same_results_as_tile_run(path, compiled, dims, tmp_path, kernel=None):
    """tile-run writes its seeded inputs and interp's outputs of the kernel
    in `path`; the Python kernel on those inputs writes the same outputs."""
    run = os.path.join(BIN, "tile-run")
    command = [run, path, "--backend=interp", "--write-io", str(tmp_path)]
    if kernel:
        command += ["--kernel", kernel]
    for symbol, value in dims.items():
        command += ["--dim", f"{symbol}={value}"]
    subprocess.run(command, check=True, capture_output=True)
    manifest = compiled.manifest
    values = {}
    for line in (tmp_path / "dims.txt").read_text().split():
        key, value = line.split("=")
        values[key] = value
    arrays, written = [], []
    for param in manifest["params"]:
        # (bf16 as its uint16 bit patterns, as tile's Python API takes it.)
        dtype = {"f32": np.float32, "f16": np.float16, "bf16": np.uint16,
                 "i32": np.int32}[param["dtype"]]
        if not param["shape"]:  # a scalar: dims.txt has its value
            arrays.append(dtype(float(values[param["name"]])))
            continue
        # A symbol's value, or an expression's ("2 * H") from them.
        symbols = {s: int(values[s]) for s in manifest["symbols"]}
        shape = [tile.dtypes.substitute_consts(d, symbols)
                 for d in param["shape"]]
        path = tmp_path / (param["name"] + ".bin")
        array = np.fromfile(path, dtype).reshape(shape) if path.exists() \
            else np.zeros(shape, dtype)
        arrays.append(array)
        if param["access"] != "read":
            written.append((param["name"], array))
    assert written
    compiled.run(*arrays, backend="emulate")
    for param_name, array in written:
        want = np.fromfile(tmp_path / "expect" / (param_name + ".bin"),
                           array.dtype)
        np.testing.assert_allclose(array.ravel(), want, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("name, kernel, dims", [
    ("squares", "squares", {"K": 192}),
    ("softmax_masked", "softmax_masked", {"M": 40, "N": 300}),
    ("axpy", "axpy", {"N": 3000}),
])
def test_same_results_as_tile_run(name, kernel, dims, tmp_path):
    same_results_as_tile_run(os.path.join(ROOT, "examples", name + ".tile"),
                             getattr(example(name), kernel).compile(), dims,
                             tmp_path)


# The other .tile examples, in Python (example_twins.py): the same IR after
# the front end and the same results as tile-run's reference on the same
# inputs.
@pytest.mark.parametrize("name, kernel, dims, same_ir", [
    ("flash_attention", "flash_attention", {"N": 40}, True),
    ("layernorm", "layernorm", {"M": 20, "N": 300}, True),
    ("transpose", "transpose_tiles", {"M": 40, "N": 70}, True),
    ("colsum", "colsum", {"M": 70, "N": 200}, True),
    ("argmax", "argmax", {"M": 20, "N": 300}, True),
    ("matmul_splitk", "matmul_splitk", {"M": 40, "N": 70, "K": 100}, True),
    ("embedding", "embedding", {"M": 20, "V": 10, "D": 70}, True),
    ("cross_entropy", "cross_entropy", {"M": 20, "V": 300}, True),
    ("gemm", "gemm", {"M": 130, "N": 130, "K": 40}, True),
    ("linear", "linear", {"M": 130, "N": 136, "K": 72}, True),
    ("activations", "activations", {"M": 40, "N": 100}, True),
    ("rope", "rope", {"S": 40, "N": 200, "P": 30}, True),
    # (The same ops, but Python emits a gather's constant row offset after
    # the read of its column start, .tile before it.)
    ("int4_unpack", "int4_unpack", {"KP": 13, "N": 100, "K": 100, "G": 2},
     False),
    ("swiglu", "swiglu", {"M": 37, "H": 100}, True),
])
def test_every_tile_example_has_a_python_twin(name, kernel, dims, same_ir,
                                              tmp_path):
    compiled = getattr(example_twins, kernel).compile()
    if same_ir:
        assert compiled.mlir().strip() == tile_ir(name).strip()
    same_results_as_tile_run(os.path.join(ROOT, "examples", name + ".tile"),
                             compiled, dims, tmp_path)


def test_the_examples_are_all_twinned():
    """Each .tile example has a twin here or in examples/python."""
    twinned = set(TWINS) | {"flash_attention", "layernorm", "transpose",
                            "colsum", "argmax", "matmul_splitk", "embedding",
                            "cross_entropy", "gemm", "activations",
                            "rope", "int4_unpack", "swiglu", "linear"}
    examples = {name[:-len(".tile")] for name in
                os.listdir(os.path.join(ROOT, "examples"))
                if name.endswith(".tile")}
    assert examples <= twinned, examples - twinned


def frontend_test(name):
    return os.path.join(ROOT, "test", "Frontend", name + ".tile")


def kernel_ir(module, name):
    """The text of kernel `name` in a printed module."""
    match = re.search(rf"^  tile\.kernel @{name}\(.*?^  }}\n", module,
                      re.S | re.M)
    assert match, name
    return match.group(0)


# The language's own kernels of elements, sub-tiles, gathers, scatters and
# atomics (test/Frontend/*.tile), in Python: the same results on the same
# inputs, and, where both front ends emit the ops in one order, the same IR.
# (A gather's or an atomic's slice is emitted where the .tile front end
# evaluates it and where Python calls the builtin: the same ops, in another
# order.)
@pytest.mark.parametrize("source, kernel, dims, same_ir", [
    ("indexing", language_twins.subtiles, {}, True),
    ("indexing", language_twins.lookup, {"V": 100}, False),
    ("indexing", language_twins.permute, {"M": 40}, False),
    ("indexing", language_twins.halves, {"K": 200}, True),
    ("atomics", language_twins.split_sums, {"M": 40, "N": 200}, False),
    # Python's buffers are zero-filled (the language's start without a
    # value), so `staged` and `flat` differ by that write.
    ("copy", language_twins.staged, {"N": 300}, False),
    ("copy", language_twins.flat, {"N": 1000}, False),
    ("copy", language_twins.ring, {"K": 200}, True),
], ids=lambda x: getattr(x, "name", None))
def test_language_twins(source, kernel, dims, same_ir, tmp_path):
    compiled = kernel.compile()
    same_results_as_tile_run(frontend_test(source), compiled, dims, tmp_path,
                             kernel=kernel.name)
    if same_ir:
        want = tile_ir(frontend_test(source), path=True)
        assert kernel_ir(compiled.mlir(), kernel.name) == \
            kernel_ir(want, kernel.name)


ISSUE_EXAMPLE = '''
import tile

@tile.kernel(threads=256, registers=["acc"])
def squares(X: tile.tensor(tile.f32, [16, "K"]), O: tile.tensor(tile.f32, [16, 64]), S: tile.tensor(tile.f32, [16, 1])):
    acc = tile.zeros((16, 64), tile.f32)          # or register_tensor((16, 64), dtype="float", fill=0.0)
    for kt in tile.range(0, X.shape[1], 64):
        x = X[0:16, kt:kt + 64]
        acc += x * x
    O[0:16, 0:64] = acc
    S[0:16, 0:1] = tile.rowsum(acc)
'''


def test_the_issue_example_verbatim(tmp_path):
    path = tmp_path / "issue_example.py"
    path.write_text(ISSUE_EXAMPLE)
    spec = importlib.util.spec_from_file_location("issue_example", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    X = np.random.default_rng(0).uniform(-1, 1, (16, 512)).astype(np.float32)
    O = np.zeros((16, 64), np.float32)
    S = np.zeros((16, 1), np.float32)
    result = module.squares(X, O, S, backend="emulate")
    assert result.matched
    np.testing.assert_allclose(S[:, 0], (X.astype(np.float64) ** 2).sum(1),
                               rtol=1e-5)


@pytest.mark.parametrize("backend", ["emulate", "interp"])
def test_the_report_is_tile_runs(backend):
    """str(result) is tile-run's report of the .tile twin, line for line,
    but for the source locations (the Python file's), the run's time and
    tile-run's line on its seeded inputs (Python's are the caller's)."""
    ran = subprocess.run(
        [os.path.join(BIN, "tile-run"),
         os.path.join(ROOT, "examples", "squares.tile"),
         f"--backend={backend}", "--dim", "K=192"],
        check=True, capture_output=True, text=True).stdout
    X = np.random.default_rng(2).uniform(-1, 1, (16, 192)).astype(np.float32)
    result = example("squares").squares(
        X, np.zeros((16, 64), np.float32), np.zeros((16, 1), np.float32),
        backend=backend)

    def normalized(report):
        report = re.sub(r"(?m)^inputs: seeded with .*\n", "", report)
        report = re.sub(r"\S+\.(tile|py):\d+:\d+", "LOC", report)
        return re.sub(r"in \d+\.\d+ s", "in T s", report).strip()
    assert normalized(str(result)) == normalized(ran)
    assert "LOC" in normalized(ran) or backend == "interp"
    assert "inputs: seeded with --seed=1" in ran
