"""Values of a kernel being built: what Python code inside a kernel holds.

A :class:`Value` is an expression the compiler evaluated: a scalar or a
tile (with its dtype and shape), or a literal whose type its context
decides (``acc * 0.5``). Python's operators on values emit the tile
dialect's ops at the current source position, with the ``.tile``
language's typing: no implicit conversions between element types,
literals take the other operand's type, scalars and size-1 dimensions
broadcast.
"""

from . import dtypes
from .errors import CompileError

_BINARY = {
    "__add__": "+", "__sub__": "-", "__mul__": "*", "__truediv__": "/",
    "__floordiv__": "//", "__mod__": "%", "__lt__": "<", "__le__": "<=",
    "__gt__": ">", "__ge__": ">=", "__eq__": "==", "__ne__": "!=",
    "__and__": "&", "__or__": "|", "__xor__": "^", "__matmul__": "@",
    "__lshift__": "<<", "__rshift__": ">>", "__pow__": "**",
}
_REFLECTED = {
    "__radd__": "+", "__rsub__": "-", "__rmul__": "*", "__rtruediv__": "/",
    "__rfloordiv__": "//", "__rmod__": "%", "__rand__": "&", "__ror__": "|",
    "__rxor__": "^", "__rmatmul__": "@", "__rlshift__": "<<",
    "__rrshift__": ">>", "__rpow__": "**",
}


class Value:
    """A scalar or tile value of a kernel (or a literal not yet typed)."""

    __slots__ = ("fe", "id", "kind", "dtype", "shape", "literal")

    def __init__(self, fe, id):
        self.fe = fe
        self.id = id
        kind, dtype, shape, literal = fe.c.describe(id)
        self.kind = kind  # "scalar", "tile", or a literal's "int"/"float"/"bool"
        self.dtype = dtypes.as_dtype(dtype) if dtype else None
        self.shape = tuple(shape) if shape is not None else ()
        self.literal = literal

    @property
    def is_tile(self):
        return self.kind == "tile"

    @property
    def ndim(self):
        return len(self.shape)

    def astype(self, dtype):
        """The value converted elementwise: ``x.astype(tile.f16)``."""
        return self.fe.cast(dtypes.as_dtype(dtype), self)

    def __repr__(self):
        if self.kind == "tile":
            return f"<tile {self.dtype.name}{list(self.shape)}>"
        if self.kind == "scalar":
            return f"<scalar {self.dtype.name}>"
        return f"<literal {self.literal!r}>"

    def __bool__(self):
        raise CompileError(self.fe.located(
            "a value the kernel computes has no truth value while Python "
            "builds the kernel; write the `if` or `while` in the kernel "
            "itself, or select elementwise with tile.where(c, a, b)"))

    def __iter__(self):
        raise CompileError(self.fe.located(
            "a tile cannot be iterated over in Python; index it with "
            "constants or use tile.range for a loop the kernel runs"))

    def __neg__(self):
        return self.fe.unary("-", self)

    def __pos__(self):
        return self

    def __invert__(self):
        return self.fe.unary("~", self)

    def __abs__(self):
        return self.fe.builtin("abs", [self])

    def __getitem__(self, key):
        return self.fe.subscript_value(self, key)

    __hash__ = object.__hash__


def _binary(op):
    def method(self, other):
        if hasattr(other, "slice_start"):  # a per-thread index: its own ops
            return NotImplemented
        return self.fe.binary(op, self, other)
    return method


def _reflected(op):
    def method(self, other):
        if hasattr(other, "slice_start"):
            return NotImplemented
        return self.fe.binary(op, other, self)
    return method


for _name, _op in _BINARY.items():
    setattr(Value, _name, _binary(_op))
for _name, _op in _REFLECTED.items():
    setattr(Value, _name, _reflected(_op))
