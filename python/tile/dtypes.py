"""Element types and parameter annotations."""

import ast
import re

import numpy as np

from .errors import Error


class DType:
    """An element type of tile: ``tile.f32``, ``f16``, ``bf16``, ``i32``,
    ``i1`` and (scalars only) ``index``.

    Inside a kernel a dtype is also its cast: ``tile.f16(x)`` converts ``x``
    elementwise, as the ``.tile`` language's ``f16(x)`` does.
    """

    def __init__(self, name, numpy_dtype):
        self.name = name
        self.numpy = numpy_dtype

    def __repr__(self):
        return "tile." + self.name

    def __call__(self, value):
        from .frontend import current_frontend
        return current_frontend("tile." + self.name).cast(self, value)


f32 = DType("f32", np.dtype(np.float32))
f16 = DType("f16", np.dtype(np.float16))
# numpy has no bfloat16: bf16 tensors are uint16 arrays of the bit patterns.
bf16 = DType("bf16", np.dtype(np.uint16))
i32 = DType("i32", np.dtype(np.int32))
i1 = DType("i1", np.dtype(np.bool_))
index = DType("index", None)

_BY_NAME = {d.name: d for d in (f32, f16, bf16, i32, i1, index)}
# C's and numpy's names for element types ("float", ...).
_ALIASES = {"float": f32, "float32": f32, "half": f16, "float16": f16,
            "bfloat16": bf16, "int": i32, "int32": i32, "bool": i1}


def as_dtype(value, what="dtype"):
    """A DType from a DType, its name, a C or numpy alias or a numpy dtype."""
    if isinstance(value, DType):
        return value
    if isinstance(value, str):
        found = _BY_NAME.get(value) or _ALIASES.get(value)
        if found:
            return found
    else:
        try:
            np_dtype = np.dtype(value)
        except TypeError:
            np_dtype = None
        for d in (f32, f16, i32, i1):
            if np_dtype == d.numpy:
                return d
    raise Error(f"{what}: {value!r} is not a tile element type; expected "
                "tile.f32, f16, bf16, i32 or i1")


def _shape(what, shape, kinds, described):
    """`shape` as a list whose every dimension is one of `kinds`."""
    dims = [shape] if isinstance(shape, (int, str)) else list(shape)
    for dim in dims:
        if isinstance(dim, bool) or not isinstance(dim, kinds):
            raise Error(f"{what} shape {shape!r}: each dimension is "
                        f"{described}")
    return dims


_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def dim_names(dim):
    """The names a dimension uses: a symbol itself, or those of an
    expression ("2 * H" uses H); none for a static size."""
    return _NAME.findall(dim) if isinstance(dim, str) else []


def substitute_consts(dim, consts):
    """`dim` with the integer `consts` it names replaced by their values;
    an expression left with no name is the static size it computes."""
    if not isinstance(dim, str):
        return dim
    if dim in consts:
        return consts[dim]
    text = _NAME.sub(lambda m: str(consts[m[0]]) if isinstance(
        consts.get(m[0]), int) else m[0], dim)
    if dim_names(text) or not re.fullmatch(r"[0-9 +\-*()]+", text):
        return text

    def value(node):
        if isinstance(node, ast.Constant):
            return node.value
        if isinstance(node, ast.UnaryOp):
            return -value(node.operand)
        left, right = value(node.left), value(node.right)
        return {ast.Add: left + right, ast.Sub: left - right,
                ast.Mult: left * right}[type(node.op)]
    try:
        return value(ast.parse(text, mode="eval").body)
    except (SyntaxError, KeyError, AttributeError):
        return text  # the compiler's error says what is wrong with it


class TensorSpec:
    """``tile.tensor(dtype, shape)``: the annotation of a tensor parameter.

    ``shape`` holds integers (static sizes) and strings: symbolic
    dimensions (one name in several parameters is one value, bound by the
    arrays of a call), or expressions of symbols and integers with ``+``,
    ``-``, ``*`` and parentheses (``"2 * H"``, checked against the arrays
    once their symbols are bound; each symbol must also be a dimension of
    its own). ``dtype=None`` takes the element type from the array
    of each call, and the kernel is compiled once per such signature.
    """

    def __init__(self, dtype, shape):
        self.dtype = None if dtype is None else as_dtype(dtype)
        if self.dtype is index or self.dtype is i1:
            raise Error(f"a tensor of {self.dtype!r}: tensors hold f32, f16, "
                        "bf16 or i32")
        self.shape = _shape("tile.tensor", shape, (int, str),
                            "an integer, a symbol name or an expression of "
                            "symbols (\"2 * H\")")

    def __repr__(self):
        return f"tile.tensor({self.dtype!r}, {self.shape!r})"


def tensor(dtype, shape):
    """The annotation of a tensor parameter: ``tile.tensor(tile.f32, [16, "K"])``."""
    return TensorSpec(dtype, shape)


class TileType:
    """``tile.tile_type(dtype, shape)``: the annotation that declares a tile
    var without a value, as ``var t: tile<f32>[16, 1]`` does in ``.tile``::

        mean: tile.tile_type(tile.f32, [16, 1])
        if n == 0:
            mean = 0.0
        else:
            mean = tile.rowsum(acc) / tile.f32(n)
    """

    def __init__(self, dtype, shape):
        self.dtype = as_dtype(dtype)
        self.shape = _shape("tile.tile_type", shape, (int,), "an integer")

    def __repr__(self):
        return f"tile.tile_type({self.dtype!r}, {self.shape!r})"


def tile_type(dtype, shape):
    """The annotation of a tile var: ``t: tile.tile_type(tile.f32, [16, 1])``."""
    return TileType(dtype, shape)
