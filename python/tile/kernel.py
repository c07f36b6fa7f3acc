"""``@tile.kernel``: a Python function as a tile kernel, called on numpy
arrays, compiled once per signature."""

import ast
import builtins
import copy
import hashlib
import inspect
import json
import linecache
import math
import os
import threading

import numpy as np

from . import _tile, cache, dtypes
from .aot import c_header
from .arrays import host_array, is_torch_tensor
from .arrays import tile_dtype as _array_dtype
from .errors import CompileError, Error, MismatchError
from .frontend import Frontend
from .result import RunResult

_BACKENDS = ("auto", "cuda", "emulate", "interp")
# The largest finite value of each floating-point element type: a scalar
# beyond it is an error, not an infinity.
_FLOAT_MAX = {"f32": 3.4028234663852886e38, "f16": 65504.0,
              "bf16": 3.3895313892515355e38}
# The integers each integer scalar type holds.
_INT_BITS = {"i32": 32, "index": 64}
# warmup= and runs= are C ints.
_MAX_RUNS = 2**31 - 1


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


class constexpr:
    """The annotation of a compile-time constant parameter: ``BM:
    tile.constexpr``. Its value (an int, float or bool, given at the call
    by position or keyword, or by a ``tile.Config``) is a constant of the
    kernel's source, usable in shapes (``tile.tensor(tile.f32, ["M", "BM"])``),
    grids and loop steps; each value compiles the kernel anew."""


_CONSTANT_TYPES = (bool, int, float)


class Kernel:
    """A tile kernel: call it on arrays, or ``compile()`` it."""

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
        self._lock = threading.Lock()
        # A specialisation's constexpr values (see _specialize), and the
        # names its source looked up while building (the compile cache's).
        self._consts = {}
        self._looked_up = None
        self.__doc__ = fn.__doc__
        self.__name__ = fn.__name__
        self.__wrapped__ = fn
        signature = inspect.signature(fn)
        hints = dict(fn.__annotations__)
        self.params = []
        self.constexprs = []
        self.arg_names = list(signature.parameters)
        for name, param in signature.parameters.items():
            spec = hints.get(name)
            if isinstance(spec, str):  # from __future__ import annotations
                spec = eval(spec, fn.__globals__)  # noqa: S307
            if spec is constexpr or isinstance(spec, constexpr):
                self.constexprs.append(name)
                continue
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

    def _specialize(self, threads, consts):
        """This kernel with `threads` and the constexpr values `consts`."""
        special = copy.copy(self)
        special.threads = threads
        special._consts = dict(consts)
        special._looked_up = {}
        return special

    def _record(self, name, value):
        if self._looked_up is not None:
            self._looked_up.setdefault(name, value)
        return value

    def peek_global(self, name):
        if name in self._consts:
            return self._consts[name]
        return self._record(name, self._peek(name))

    def _peek(self, name):
        closure = self._closure()
        if name in closure:
            return closure[name]
        if name in self.fn.__globals__:
            return self.fn.__globals__[name]
        return getattr(builtins, name, None)

    def lookup_global(self, name, node, fe):
        if name in self._consts:
            return self._consts[name]
        closure = self._closure()
        if name in closure:
            return self._record(name, closure[name])
        if name in self.fn.__globals__:
            return self._record(name, self.fn.__globals__[name])
        if hasattr(builtins, name):
            return self._record(name, getattr(builtins, name))
        known = [*self._consts, *fe.locals, *fe.params, *fe.scalars,
                 *fe.symbols, *closure, *self.fn.__globals__]
        raise fe.error(f"undefined name '{name}'"
                       f"{_tile.did_you_mean(name, known)}", node)

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
        args = [a for a in node.args.args if a.arg not in self.constexprs]
        for arg, (name, spec) in zip(args, self.params):
            if not isinstance(spec, dtypes.DType) and self._consts:
                spec = dtypes.TensorSpec(spec.dtype, [
                    dtypes.substitute_consts(d, self._consts)
                    for d in spec.shape])
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

    def compile(self, *arrays, chip=None, remarks=False, fp_div="ieee",
                threads=None, **consts):
        """The kernel compiled for ``chip`` (default: the decorator's).

        ``fp_div="full"`` compiles every f32 ``/`` to ``div.full.f32``
        (at most 2 ulp, Triton's division; the check then counts ``/`` as
        inexact); the default, ``"ieee"``, divides correctly rounded
        (docs/spec.md, "Floating point").
        Arrays are needed only for parameters annotated without a dtype.
        ``threads`` overrides the decorator's; the ``tile.constexpr``
        parameters' values come by keyword (``BM=16``).
        Cached: a second call with the same signature returns the same
        :class:`CompiledKernel`; across processes, the compile cache
        (``tile.cache_info()``) keeps its PTX, manifest and cubin.
        """
        chip = chip or self.chip
        threads = self.threads if threads is None else threads
        if not isinstance(threads, int) or isinstance(threads, bool):
            raise Error(f"threads={threads!r}: expected an integer")
        consts = self._check_consts(consts)
        chosen = self._signature(arrays if arrays else None)
        key = (tuple(d.name for d in chosen.values()), chip, bool(remarks),
               fp_div, threads, tuple(sorted(consts.items())))
        # Built once, under the lock: threads calling one kernel share it.
        with self._lock:
            compiled = self._cache.get(key)
            if compiled is None:
                compiled = CompiledKernel(self._specialize(threads, consts),
                                          chosen, chip, remarks, fp_div)
                self._cache[key] = compiled
        return compiled

    def _check_consts(self, consts):
        for name in consts:
            if name not in self.constexprs:
                known = ", ".join(self.constexprs) or "none"
                raise Error(f"kernel '{self.name}' has no tile.constexpr "
                            f"parameter '{name}' (its constexprs: {known})")
        for name in self.constexprs:
            if name not in consts:
                raise Error(f"kernel '{self.name}': the tile.constexpr "
                            f"parameter '{name}' needs a value ({name}=...)")
            value = consts[name]
            if not isinstance(value, _CONSTANT_TYPES):
                raise Error(f"tile.constexpr '{name}': {value!r} is not an "
                            "int, a float or a bool")
        return {name: consts[name] for name in self.constexprs}

    def bind(self, args, named):
        """The call's arrays (one per non-constexpr parameter, in order) and
        constexpr values, from positional and keyword arguments."""
        names = [n for n, _ in self.params]
        if self.constexprs and len(args) == len(self.arg_names):
            bound = dict(zip(self.arg_names, args))
        elif len(args) <= len(names):
            bound = dict(zip(names, args))
        else:
            bound = None
        if bound is None:
            raise Error(f"kernel '{self.name}' takes {len(names)} arrays "
                        f"({', '.join(names)}), got {len(args)}")
        return (bind_keywords(self.name, names, bound, named,
                              self.arg_names),
                {n: bound[n] for n in self.constexprs if n in bound})

    def __call__(self, *args, backend="auto", check=True, remarks=False,
                 warmup=3, runs=10, ptx_figures=True, chip=None,
                 fp_div="ieee", threads=None, **named):
        """Runs the kernel on arrays (one per parameter: numpy arrays, torch
        tensors, any ``__dlpack__`` or ``__cuda_array_interface__``
        object); the arrays of the parameters it writes receive its
        results. ``tile.constexpr`` values come by position or keyword.
        Returns a :class:`tile.RunResult`; with ``check=True`` every written
        output is compared with the reference interpreter and a difference
        raises :class:`tile.MismatchError`."""
        arrays, consts = self.bind(args, named)
        compiled = self.compile(*arrays, chip=chip, remarks=remarks,
                                fp_div=fp_div, threads=threads, **consts)
        return compiled.run(*arrays, backend=backend, check=check,
                            warmup=warmup, runs=runs, ptx_figures=ptx_figures)


def _scalar(name, dtype, value):
    """The value of scalar parameter `name`, checked against its dtype."""
    if isinstance(value, np.ndarray) or is_torch_tensor(value):
        if value.ndim != 0:
            raise Error(f"parameter '{name}' is a scalar {dtype.name}; got an "
                        f"array of shape {tuple(value.shape)}")
        value = value.item()
    elif isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise Error(f"parameter '{name}' is a scalar {dtype.name}; got "
                    f"{type(value).__name__}")
    bits = _INT_BITS.get(dtype.name)
    if bits is not None:
        if not isinstance(value, int):
            raise Error(f"parameter '{name}' is a scalar {dtype.name}; got "
                        f"the number {value!r}")
        if not -2**(bits - 1) <= value < 2**(bits - 1):
            raise Error(f"parameter '{name}': {value} does not fit in "
                        f"{dtype.name} ({bits}-bit signed)")
        return value
    try:
        number = float(value)
    except OverflowError:
        number = None
    if number is None or math.isfinite(number) and \
            abs(number) > _FLOAT_MAX[dtype.name]:
        text = str(value)
        text = text if len(text) < 24 else f"{text[:8]}... ({len(text)} digits)"
        raise Error(f"parameter '{name}': {text} does not fit in "
                    f"{dtype.name} (at most {_FLOAT_MAX[dtype.name]:.6g})")
    return number


def _count(keyword, value):
    """warmup= or runs=: a count of runs."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) \
            or not 0 <= value <= _MAX_RUNS:
        raise Error(f"{keyword}={value!r}: expected a count of runs, an "
                    f"integer from 0 to {_MAX_RUNS}")
    return int(value)


def _tile_dtype(name, array):
    if not isinstance(array, np.ndarray):
        return host_array(name, array, written=False).dtype
    return _array_dtype(name, array)


class _GridBuilder:
    """The grid as the builder's attribute expressions: from the
    decorator's own lambda or tuple when it is written there (located),
    else from the value (ints and symbol names)."""

    def __init__(self, fe, kernel, keyword):
        self.fe = fe
        self.kernel = kernel
        self.keyword = keyword
        self.symbols = {name for _, spec in kernel.params
                        for d in getattr(spec, "shape", ())
                        for name in dtypes.dim_names(d)}

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
        self._lock = threading.Lock()
        self._c = None
        self._ptx = None
        self._cubin = None
        self._warnings = None
        self._manifest_text = None
        self._access_by_name = None
        filename = kernel.fn.__code__.co_filename
        source, tree = _file_tree(filename)
        if tree is None:
            raise Error(f"kernel '{kernel.name}': its Python source cannot be "
                        "read (the front end reads the function's syntax)")
        node = _find_function(tree, kernel.fn)
        if node is None:
            raise Error(f"kernel '{kernel.name}': its definition is not in "
                        f"{filename}")
        self._where = (filename, source, node)
        # remarks=True compiles anew: the remarks are the compile's.
        self.cache_key = None if remarks else cache.kernel_key(
            self._key_parts(source))
        files = cache.load(self.cache_key, kernel._peek) \
            if self.cache_key else None
        if files is not None:
            self._ptx = files[self.name + ".ptx"].decode()
            self._manifest_text = files[self.name + ".json"].decode()
            self._warnings = json.loads(files["warnings.json"])
            self._cubin = files.get(self.name + ".cubin")
            self.cached = True
            return
        self.cached = False
        self._compilation()
        self.manifest  # placement: its errors are compile errors
        if self.cache_key:
            self._store()

    def _key_parts(self, source):
        """What the compile cache's key covers, besides the toolchain."""
        kernel = self.kernel
        fn = kernel.fn
        return {
            "source": hashlib.sha256(source.encode()).hexdigest(),
            "function": f"{fn.__module__}.{fn.__qualname__}:"
                        f"{fn.__code__.co_firstlineno}",
            "params": [(name, repr(spec)) for name, spec in kernel.params],
            "dtypes": [d.name for d in self.dtypes.values()],
            "chip": self.chip, "fp_div": self.fp_div,
            "threads": kernel.threads,
            "grid": cache.fingerprint(kernel.grid),
            "registers": kernel.registers,
            "pipeline": repr(kernel.pipeline),
            "consts": sorted(kernel._consts.items()),
        }

    def _store(self):
        """Writes this kernel's entry of the compile cache, when its PTX
        compiles (a kernel whose PTX fails reports it from ``ptx``)."""
        try:
            ptx = self.ptx
        except CompileError:
            return
        files = {self.name + ".ptx": ptx.encode(),
                 self.name + ".json": self._manifest_text.encode(),
                 "warnings.json": json.dumps(self.warnings).encode()}
        names = cache.names_fingerprints(self.kernel._looked_up or {})
        cache.store(self.cache_key, names, files)

    def _compilation(self):
        """The C++ compilation of the kernel, built once (a hit of the
        compile cache builds it only when something needs the IR: a run,
        ``mlir()``)."""
        with self._lock:
            if self._c is None:
                self._c = self._build()
                if self._ptx is not None:
                    self._c.set_ptx(self._ptx)
            return self._c

    def _build(self):
        kernel = self.kernel
        filename, source, node = self._where
        compilation = _tile.Compilation(filename, source)
        frontend = Frontend(kernel, compilation, self.dtypes, node, filename)
        try:
            frontend.build()
        except Error:
            raise
        except RecursionError:
            raise CompileError(frontend.located(
                "the kernel's code nests too deeply for the Python front "
                "end (an expression of hundreds of terms?): split it into "
                "statements")) from None
        except Exception as error:  # a Python function the kernel called
            raise CompileError(frontend.located(
                f"{type(error).__name__} while compiling the kernel: "
                f"{error}")) from error
        compilation.finish(kernel.name, bool(self.remarks_requested),
                           self.chip, self.fp_div)
        return compilation

    @property
    def name(self):
        return self.kernel.name

    @property
    def ptx(self):
        """The PTX of the kernel (docs/abi.md)."""
        if self._ptx is None:
            self._ptx = self._compilation().ptx()
        return self._ptx

    @property
    def cubin(self):
        """ptxas's cubin of the PTX for ``chip`` (bytes; kept in the compile
        cache), or None without ptxas."""
        if self._cubin is None:
            self.adopt_cubin(cache.compile_cubin(self.ptx, self.chip))
        return self._cubin

    def adopt_cubin(self, cubin):
        """Keeps ptxas's cubin of ``ptx`` (here and in the compile cache)."""
        if self._cubin is None and cubin is not None:
            self._cubin = cubin
            if self.cache_key:
                cache.add_file(self.cache_key, self.name + ".cubin", cubin)

    @property
    def manifest(self):
        """The manifest (docs/abi.md) as a dict (a new one each time)."""
        if self._manifest_text is None:
            self._manifest_text = self._compilation().manifest()
        return json.loads(self._manifest_text)

    @property
    def _access(self):
        """Each tensor parameter's access ("read", "write", "readwrite")."""
        if self._access_by_name is None:
            self._access_by_name = {p["name"]: p["access"]
                                    for p in self.manifest["params"]}
        return self._access_by_name

    def mlir(self, stage="source", locations=False):
        """The IR after the front end (``"source"``) or after the pass
        ``stage`` of the compile pipeline (``"tile-plan-shared"``,
        ``"tile-to-gpu"``, ...; ``"canonicalize#2"`` for a pass's second
        run); with ``locations=True``, each op's ``loc("FILE.py":LINE:COL)``
        too, the Python source it came from."""
        return self._compilation().ir(stage, locations)

    @property
    def stages(self):
        """The stages ``mlir()`` knows, in pipeline order."""
        return self._compilation().stages()

    @property
    def remarks(self):
        """What the compiler remarked (with ``remarks=True``): placement,
        spills, the shared-memory plan, located in the Python source."""
        if self._c is None:  # a hit of the compile cache: no remarks asked
            return []
        return list(self._c.remarks)

    @property
    def warnings(self):
        """The compile's warnings, located in the Python source."""
        if self._c is None:
            return list(self._warnings)
        return list(self._c.warnings)

    def save(self, directory, inputs=None, dims=None):
        """Writes ``NAME.ptx`` and ``NAME.json`` (the manifest) into
        ``directory``: what ``tile-launch NAME.ptx NAME.json --inputs DIR``
        runs on a machine with only the CUDA driver; and ``NAME.h``, a C
        header that embeds both and declares ``NAME_launch(...)`` over
        libTileRuntime, for a C or C++ program (docs/python.md,
        "Deployment"). With ``inputs`` (one array per parameter) it also
        writes ``DIR/NAME.bin`` for each parameter the kernel reads and
        ``dims.txt``; returns the paths."""
        # Each file whole or not at all, as the tools write theirs: a
        # failed save leaves what an earlier one wrote.
        os.makedirs(directory, exist_ok=True)
        ptx_path = os.path.join(directory, self.name + ".ptx")
        manifest_path = os.path.join(directory, self.name + ".json")
        header_path = os.path.join(directory, self.name + ".h")
        _tile.write_file(ptx_path, self.ptx.encode())
        manifest = self.manifest
        _tile.write_file(manifest_path, (self._manifest_text + "\n").encode())
        _tile.write_file(header_path, c_header(
            self.name, self.ptx, self._manifest_text, manifest).encode())
        paths = [ptx_path, manifest_path, header_path]
        if inputs is not None:
            symbols = dict(dims or {})
            for param, array in zip(manifest["params"], inputs):
                for dim, size in zip(param["shape"], np.shape(array)):
                    if isinstance(dim, str) and dim.isidentifier():
                        symbols.setdefault(dim, size)
                if param["access"] == "write":
                    continue
                path = os.path.join(directory, param["name"] + ".bin")
                _tile.write_file(path, np.ascontiguousarray(array).tobytes())
                paths.append(path)
            path = os.path.join(directory, "dims.txt")
            _tile.write_file(path, "".join(
                f"{name}={symbols[name]}\n" for name in manifest["symbols"]
                if name in symbols).encode())
            paths.append(path)
        return paths

    def run(self, *arrays, backend="auto", check=True, warmup=3, runs=10,
            ptx_figures=True, _planted_bugs=""):
        """Runs on the arrays; see :meth:`Kernel.__call__`."""
        return run_compiled(self, self.kernel.params, arrays, backend, check,
                            warmup, runs, ptx_figures, _planted_bugs)


def bind_keywords(kernel, names, bound, named, keywords=None):
    """The values of parameters `names` (of kernel `kernel`), in order:
    `bound` (the positional arguments by name) and the keyword arguments
    `named`, which may also name the other `keywords` (the constexprs; by
    default none), whose values go into `bound`."""
    keywords = names if keywords is None else keywords
    for name, value in named.items():
        if name not in keywords:
            raise Error(f"kernel '{kernel}' has no parameter or keyword "
                        f"'{name}'{_tile.did_you_mean(name, keywords)}")
        if name in bound:
            raise Error(f"kernel '{kernel}': '{name}' given twice")
        bound[name] = value
    missing = [n for n in names if n not in bound]
    if missing:
        raise Error(f"kernel '{kernel}' takes {len(names)} arrays "
                    f"({', '.join(names)}), got {len(names) - len(missing)}"
                    f": '{missing[0]}' is missing")
    return [bound[n] for n in names]


def run_compiled(compiled, params, arrays, backend="auto", check=True,
                 warmup=3, runs=10, ptx_figures=True, planted_bugs=""):
    """Runs a compiled kernel (a :class:`CompiledKernel`, or a ``.tile``
    file's :class:`tile.TileFileKernel`) on `arrays`, one per parameter of
    `params` ((name, spec) pairs; a spec that is a DType is a scalar's)."""
    if backend not in _BACKENDS:
        raise Error(f"backend={backend!r}: expected one of "
                    f"{', '.join(_BACKENDS)}")
    warmup, runs = _count("warmup", warmup), _count("runs", runs)
    if len(arrays) != len(params):
        raise Error(f"kernel '{compiled.name}' takes {len(params)} arrays, "
                    f"got {len(arrays)}")
    manifest = compiled.manifest
    access = compiled._access
    passed, hosts = [], []
    for (name, spec), array in zip(params, arrays):
        if isinstance(spec, dtypes.DType):
            passed.append((spec.name, _scalar(name, spec, array), False))
            continue
        written = access.get(name) != "read"
        host = host_array(name, array, written)
        passed.append((host.dtype, host.array, written))
        hosts.append(host)
    outcome = compiled._compilation().run(passed, backend, bool(check),
                                          warmup, runs, bool(ptx_figures),
                                          planted_bugs)
    for host in hosts:
        host.finish()
    result = RunResult(compiled, outcome, manifest)
    if check:
        result.raise_for_mismatch()
    return result
