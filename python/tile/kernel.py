"""``@tile.kernel``: a Python function as a tile kernel, called on numpy
arrays, compiled once per signature."""

import ast
import builtins
import inspect
import json
import linecache
import os

import numpy as np

from . import _tile, dtypes
from .errors import CompileError, Error, MismatchError
from .frontend import Frontend
from .result import RunResult

_BACKENDS = ("auto", "cuda", "emulate", "interp")
# numpy's element types as tile's (bf16 travels as its uint16 bit patterns).
_FROM_NUMPY = {np.dtype(np.float32): "f32", np.dtype(np.float16): "f16",
               np.dtype(np.uint16): "bf16", np.dtype(np.int32): "i32",
               np.dtype(np.bool_): "i1"}


def _pos(node):
    return (node.lineno, node.col_offset + 1)


_FILE_TREES = {}


def _file_tree(filename):
    lines = linecache.getlines(filename)
    if not lines:
        return None, None
    source = "".join(lines)
    cached = _FILE_TREES.get(filename)
    if cached and cached[0] == source:
        return source, cached[1]
    tree = ast.parse(source, filename)
    _FILE_TREES[filename] = (source, tree)
    return source, tree


def _find_function(tree, fn):
    first = fn.__code__.co_firstlineno
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and \
                node.name == fn.__name__:
            lines = [node.lineno] + [d.lineno for d in node.decorator_list]
            if first in lines or min(lines) == first:
                return node
    return None


class Kernel:
    """A tile kernel: call it on numpy arrays, or ``compile()`` it."""

    def __init__(self, fn, threads, grid=None, registers=(), pipeline=None,
                 chip="sm_90"):
        if not isinstance(threads, int) or isinstance(threads, bool):
            raise Error(f"@tile.kernel threads must be an integer, got "
                        f"{threads!r}")
        self.fn = fn
        self.name = fn.__name__
        self.threads = threads
        self.grid = grid
        self.registers = [registers] if isinstance(registers, str) else list(
            registers)
        self.pipeline = pipeline
        self.chip = chip
        self._cache = {}
        self.__doc__ = fn.__doc__
        self.__name__ = fn.__name__
        self.__wrapped__ = fn
        signature = inspect.signature(fn)
        hints = dict(fn.__annotations__)
        self.params = []
        for name, param in signature.parameters.items():
            spec = hints.get(name)
            if isinstance(spec, str):  # from __future__ import annotations
                spec = eval(spec, fn.__globals__)  # noqa: S307
            if isinstance(spec, dtypes.DType) and spec is not dtypes.i1:
                pass  # a scalar parameter, passed by value
            elif not isinstance(spec, dtypes.TensorSpec):
                raise Error(f"kernel '{self.name}': parameter '{name}' needs "
                            "an annotation: tile.tensor(dtype, shape) for a "
                            "tensor, an element type (tile.f32, tile.index, "
                            "...) for a scalar")
            self.params.append((name, spec))

    def __repr__(self):
        return f"<tile.kernel {self.name}>"

    # ---- names the kernel's source refers to ------------------------------

    def _closure(self):
        closure = inspect.getclosurevars(self.fn)
        return closure.nonlocals

    def peek_global(self, name):
        closure = self._closure()
        if name in closure:
            return closure[name]
        if name in self.fn.__globals__:
            return self.fn.__globals__[name]
        return getattr(builtins, name, None)

    def lookup_global(self, name, node, fe):
        closure = self._closure()
        if name in closure:
            return closure[name]
        if name in self.fn.__globals__:
            return self.fn.__globals__[name]
        if hasattr(builtins, name):
            return getattr(builtins, name)
        raise fe.error(f"undefined name '{name}'", node)

    # ---- the kernel's attributes, for the builder -------------------------

    def _decorator(self, node):
        for decorator in node.decorator_list:
            if isinstance(decorator, ast.Call):
                func = decorator.func
                name = func.attr if isinstance(func, ast.Attribute) else \
                    getattr(func, "id", None)
                if name == "kernel" or any(k.arg == "threads"
                                           for k in decorator.keywords):
                    return decorator
        return None

    def describe(self, fe, node):
        """The kernel for Compilation.begin_kernel: parameters, threads,
        grid, @registers, @pipeline, located in the Python source."""
        decorator = self._decorator(node)
        keywords = {k.arg: k for k in decorator.keywords} if decorator else {}

        def where(key, default=None):
            if key in keywords:
                return _pos(keywords[key].value)
            return default or _pos(decorator or node)

        params = []
        for arg, (name, spec) in zip(node.args.args, self.params):
            scalar = isinstance(spec, dtypes.DType)
            dtype = spec if scalar else (spec.dtype or
                                         fe.dtypes_by_param[name])
            annotation = arg.annotation or arg
            params.append({
                "name": name, "pos": _pos(arg), "dtype": dtype.name,
                "dtype_pos": _pos(annotation), "scalar": scalar,
                "dims": [] if scalar else list(spec.shape),
                "spec": spec, "dtype_obj": dtype,
            })
        desc = {
            "name": self.name, "pos": _pos(node), "params": params,
            "threads": self.threads, "threads_pos": where("threads"),
            "grid": [], "grid_pos": where("grid"),
            "registers": [], "registers_pos": where("registers"),
            "pipeline_pos": None, "pipeline_names": [],
            "pipeline_options": [],
        }
        if self.grid is not None:
            desc["grid"] = _GridBuilder(fe, self, keywords.get("grid")).build()
        registers_node = keywords.get("registers")
        items = registers_node.value.elts if registers_node is not None and \
            isinstance(registers_node.value, (ast.List, ast.Tuple)) else []
        for i, name in enumerate(self.registers):
            if not isinstance(name, str):
                raise fe.error(f"registers= names vars, got {name!r}",
                               registers_node or node)
            pos = _pos(items[i]) if i < len(items) else where("registers")
            desc["registers"].append((name, pos))
        if self.pipeline is not None:
            self._describe_pipeline(fe, desc, where("pipeline"),
                                    keywords.get("pipeline"))
        return desc

    def _describe_pipeline(self, fe, desc, pos, node):
        pipeline = self.pipeline
        desc["pipeline_pos"] = pos
        if isinstance(pipeline, str):
            pipeline = {"names": [pipeline]}
        elif isinstance(pipeline, (list, tuple)):
            pipeline = {"names": list(pipeline)}
        if not isinstance(pipeline, dict):
            raise fe.error("pipeline= is a loop index's name, a list of "
                           "names, or a dict {'names': [...], 'stages': n}",
                           node)
        for key, value in pipeline.items():
            if key == "names":
                for name in [value] if isinstance(value, str) else value:
                    if not isinstance(name, str):
                        raise fe.error(f"pipeline names are strings, got "
                                       f"{name!r}", node)
                    desc["pipeline_names"].append((name, pos))
                continue
            values = value if isinstance(value, (list, tuple)) else [value]
            exprs = []
            for item in values:
                if isinstance(item, bool):
                    exprs.append(fe.c.expr_bool(item, pos))
                elif isinstance(item, int):
                    exprs.append(fe.c.expr_int(item, pos))
                elif isinstance(item, float):
                    exprs.append(fe.c.expr_float(item, pos))
                elif isinstance(item, str):
                    exprs.append(fe.c.expr_name(item, pos))
                else:
                    raise fe.error(f"pipeline option {key}: {item!r} is not "
                                   "a number, a boolean or a name", node)
            desc["pipeline_options"].append(
                (key, pos, exprs, isinstance(value, (list, tuple))))

    # ---- compiling --------------------------------------------------------

    def _signature(self, arrays):
        """The element type of each parameter: annotated, or the array's."""
        chosen = {}
        for i, (name, spec) in enumerate(self.params):
            if isinstance(spec, dtypes.DType):
                chosen[name] = spec
                continue
            if spec.dtype is not None:
                chosen[name] = spec.dtype
                continue
            if arrays is None or i >= len(arrays):
                raise Error(f"parameter '{name}' takes its element type "
                            "from the array it is called with; compile() "
                            "needs the arrays too")
            chosen[name] = dtypes.as_dtype(_tile_dtype(name, arrays[i]))
        return chosen

    def compile(self, *arrays, chip=None, remarks=False, fp_div="ieee"):
        """The kernel compiled for ``chip`` (default: the decorator's).

        ``fp_div="full"`` compiles every f32 ``/`` to ``div.full.f32``
        (at most 2 ulp, Triton's division; the check then counts ``/`` as
        inexact); the default, ``"ieee"``, divides correctly rounded
        (docs/spec.md, "Floating point").
        Arrays are needed only for parameters annotated without a dtype.
        Cached: a second call with the same signature returns the same
        :class:`CompiledKernel`.
        """
        chip = chip or self.chip
        chosen = self._signature(arrays if arrays else None)
        key = (tuple(d.name for d in chosen.values()), chip, bool(remarks),
               fp_div)
        compiled = self._cache.get(key)
        if compiled is None:
            compiled = CompiledKernel(self, chosen, chip, remarks, fp_div)
            self._cache[key] = compiled
        return compiled

    def __call__(self, *arrays, backend="auto", check=True, remarks=False,
                 warmup=3, runs=10, ptx_figures=True, chip=None,
                 fp_div="ieee"):
        """Runs the kernel on numpy arrays (one per parameter); the arrays
        of the parameters it writes receive its results. Returns a
        :class:`tile.RunResult`; with ``check=True`` every written output
        is compared with the reference interpreter and a difference raises
        :class:`tile.MismatchError`."""
        if len(arrays) != len(self.params):
            raise Error(f"kernel '{self.name}' takes {len(self.params)} "
                        f"arrays ({', '.join(n for n, _ in self.params)}), "
                        f"got {len(arrays)}")
        compiled = self.compile(*arrays, chip=chip, remarks=remarks,
                                fp_div=fp_div)
        return compiled.run(*arrays, backend=backend, check=check,
                            warmup=warmup, runs=runs, ptx_figures=ptx_figures)


def _scalar(name, dtype, value):
    """The value of scalar parameter `name`, checked against its dtype."""
    if isinstance(value, np.ndarray):
        if value.ndim != 0:
            raise Error(f"parameter '{name}' is a scalar {dtype.name}; got an "
                        f"array of shape {value.shape}")
        value = value.item()
    elif isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise Error(f"parameter '{name}' is a scalar {dtype.name}; got "
                    f"{type(value).__name__}")
    if dtype in (dtypes.i32, dtypes.index) and not isinstance(value, int):
        raise Error(f"parameter '{name}' is a scalar {dtype.name}; got the "
                    f"number {value!r}")
    if dtype is dtypes.i32 and not -2**31 <= value < 2**31:
        raise Error(f"parameter '{name}': {value} does not fit in i32")
    return float(value) if dtype not in (dtypes.i32, dtypes.index) else value


def _tile_dtype(name, array):
    if not isinstance(array, np.ndarray):
        raise Error(f"parameter '{name}': expected a numpy array, got "
                    f"{type(array).__name__}")
    found = _FROM_NUMPY.get(array.dtype)
    if found is None:
        raise Error(f"parameter '{name}': numpy {array.dtype} is not an "
                    "element type of tile (f32 is numpy float32, f16 "
                    "float16, bf16 uint16 bit patterns, i32 int32)")
    return found


class _GridBuilder:
    """The grid as the builder's attribute expressions: from the
    decorator's own lambda or tuple when it is written there (located),
    else from the value (ints and symbol names)."""

    def __init__(self, fe, kernel, keyword):
        self.fe = fe
        self.kernel = kernel
        self.keyword = keyword
        self.symbols = {d for _, spec in kernel.params
                        for d in getattr(spec, "shape", ()) if isinstance(d, str)}

    def build(self):
        grid = self.kernel.grid
        node = self.keyword.value if self.keyword is not None else None
        if callable(grid):
            lam = node if isinstance(node, ast.Lambda) else self._find_lambda(
                grid)
            if lam is None:
                raise Error(f"kernel '{self.kernel.name}': the grid lambda's "
                            "source cannot be found")
            names = {a.arg for a in lam.args.args}
            body = lam.body
            dims = body.elts if isinstance(body, (ast.Tuple, ast.List)) else [
                body]
            return [self.convert(d, names) for d in dims]
        values = grid if isinstance(grid, (tuple, list)) else [grid]
        pos = _pos(node) if node is not None else self.fe.pos
        result = []
        for value in values:
            if isinstance(value, bool) or not isinstance(value, (int, str)):
                raise self.fe.error(
                    f"grid= holds integers, symbol names or a lambda over "
                    f"the symbols, got {value!r}", node)
            result.append(self.fe.c.expr_int(value, pos) if isinstance(
                value, int) else self.fe.c.expr_name(value, pos))
        return result

    def _find_lambda(self, fn):
        code = fn.__code__
        _, tree = _file_tree(code.co_filename)
        if tree is None:
            return None
        for node in ast.walk(tree):
            if isinstance(node, ast.Lambda) and \
                    node.lineno == code.co_firstlineno:
                return node
        return None

    def convert(self, node, names):
        c = self.fe.c
        pos = _pos(node)
        if isinstance(node, ast.Constant) and isinstance(node.value, int) \
                and not isinstance(node.value, bool):
            return c.expr_int(node.value, pos)
        if isinstance(node, ast.Name):
            if node.id in names or node.id in self.symbols:
                return c.expr_name(node.id, pos)
            value = self.kernel.peek_global(node.id)
            if isinstance(value, int) and not isinstance(value, bool):
                return c.expr_int(value, pos)
            return c.expr_name(node.id, pos)
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            return c.expr_unary("-", self.convert(node.operand, names), pos)
        if isinstance(node, ast.BinOp):
            ops = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*",
                   ast.FloorDiv: "/", ast.Mod: "%"}
            op = ops.get(type(node.op))
            if op is None:
                raise self.fe.error("a grid expression is made of integers, "
                                    "symbols, + - * // % and "
                                    "tile.cdiv(a, b)", node)
            return c.expr_binary(op, self.convert(node.left, names),
                                 self.convert(node.right, names), pos)
        if isinstance(node, ast.Call):
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else getattr(
                func, "id", None)
            if name == "cdiv" and len(node.args) == 2:
                return c.expr_call("cdiv", [self.convert(a, names)
                                            for a in node.args], pos)
        raise self.fe.error("a grid expression is made of integers, symbols, "
                            "+ - * // % and tile.cdiv(a, b)", node)


class CompiledKernel:
    """A kernel compiled for one signature and chip.

    ``ptx`` (the PTX text), ``manifest`` (a dict, docs/abi.md),
    ``mlir(stage)`` (the IR after the front end, ``"source"``, or after a
    pass of the pipeline: ``stages`` lists them), ``save(dir)`` (what
    ``tile-launch`` runs), and ``run(*arrays)``.
    """

    def __init__(self, kernel, chosen, chip, remarks, fp_div="ieee"):
        self.kernel = kernel
        self.chip = chip
        self.fp_div = fp_div
        self.remarks_requested = remarks
        self.dtypes = chosen
        filename = kernel.fn.__code__.co_filename
        source, tree = _file_tree(filename)
        if tree is None:
            raise Error(f"kernel '{kernel.name}': its Python source cannot be "
                        "read (the front end reads the function's syntax)")
        node = _find_function(tree, kernel.fn)
        if node is None:
            raise Error(f"kernel '{kernel.name}': its definition is not in "
                        f"{filename}")
        self._c = _tile.Compilation(filename, source)
        Frontend(kernel, self._c, chosen, node, filename).build()
        self._c.finish(kernel.name, bool(remarks), chip, fp_div)
        self._c.manifest()  # placement: its errors are compile errors

    @property
    def name(self):
        return self.kernel.name

    @property
    def ptx(self):
        """The PTX of the kernel (docs/abi.md)."""
        return self._c.ptx()

    @property
    def manifest(self):
        """The manifest (docs/abi.md) as a dict."""
        return json.loads(self._c.manifest())

    def mlir(self, stage="source", locations=False):
        """The IR after the front end (``"source"``) or after the pass
        ``stage`` of the compile pipeline (``"tile-plan-shared"``,
        ``"tile-to-gpu"``, ...; ``"canonicalize#2"`` for a pass's second
        run); with ``locations=True``, each op's ``loc("FILE.py":LINE:COL)``
        too, the Python source it came from."""
        return self._c.ir(stage, locations)

    @property
    def stages(self):
        """The stages ``mlir()`` knows, in pipeline order."""
        return self._c.stages()

    @property
    def remarks(self):
        """What the compiler remarked (with ``remarks=True``): placement,
        spills, the shared-memory plan, located in the Python source."""
        return list(self._c.remarks)

    @property
    def warnings(self):
        return list(self._c.warnings)

    def save(self, directory, inputs=None, dims=None):
        """Writes ``NAME.ptx`` and ``NAME.json`` (the manifest) into
        ``directory``: what ``tile-launch NAME.ptx NAME.json --inputs DIR``
        runs on a machine with only the CUDA driver. With ``inputs`` (one
        array per parameter) it also writes ``DIR/NAME.bin`` for each
        parameter the kernel reads and ``dims.txt``; returns the paths."""
        os.makedirs(directory, exist_ok=True)
        ptx_path = os.path.join(directory, self.name + ".ptx")
        manifest_path = os.path.join(directory, self.name + ".json")
        with open(ptx_path, "w") as f:
            f.write(self.ptx)
        manifest = self.manifest
        with open(manifest_path, "w") as f:
            f.write(self._c.manifest() + "\n")
        paths = [ptx_path, manifest_path]
        if inputs is not None:
            symbols = dict(dims or {})
            for param, array in zip(manifest["params"], inputs):
                for dim, size in zip(param["shape"], np.shape(array)):
                    if isinstance(dim, str):
                        symbols.setdefault(dim, size)
                if param["access"] == "write":
                    continue
                path = os.path.join(directory, param["name"] + ".bin")
                np.ascontiguousarray(array).tofile(path)
                paths.append(path)
            path = os.path.join(directory, "dims.txt")
            with open(path, "w") as f:
                for name in manifest["symbols"]:
                    if name in symbols:
                        f.write(f"{name}={symbols[name]}\n")
            paths.append(path)
        return paths

    def run(self, *arrays, backend="auto", check=True, warmup=3, runs=10,
            ptx_figures=True, _planted_bugs=""):
        """Runs on numpy arrays; see :meth:`Kernel.__call__`."""
        if backend not in _BACKENDS:
            raise Error(f"backend={backend!r}: expected one of "
                        f"{', '.join(_BACKENDS)}")
        params = self.kernel.params
        if len(arrays) != len(params):
            raise Error(f"kernel '{self.name}' takes {len(params)} arrays, "
                        f"got {len(arrays)}")
        manifest = self.manifest
        access = {p["name"]: p["access"] for p in manifest["params"]}
        passed, copies = [], []
        for (name, spec), array in zip(params, arrays):
            if isinstance(spec, dtypes.DType):
                passed.append((spec.name, _scalar(name, spec, array)))
                continue
            dtype = _tile_dtype(name, array)
            written = access.get(name) != "read"
            if written and not array.flags.writeable:
                raise Error(f"parameter '{name}': the kernel writes it, but "
                            "the array is read-only")
            contiguous = np.ascontiguousarray(array)
            passed.append((dtype, contiguous))
            copies.append((array, contiguous, written))
        outcome = self._c.run(passed, backend, bool(check), int(warmup),
                              int(runs), bool(ptx_figures), _planted_bugs)
        for array, contiguous, written in copies:
            if written and contiguous is not array:
                array[...] = contiguous
        result = RunResult(self, outcome, manifest)
        if check:
            result.raise_for_mismatch()
        return result
