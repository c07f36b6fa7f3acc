"""The functions a kernel calls: tile constructors, loops, context values
and the builtins of the ``.tile`` language (docs/spec.md, "Builtins").

Each emits IR when called inside a ``@tile.kernel`` and is an error
elsewhere (``cdiv`` of Python integers also works outside, for grids and
sizes at the call site).
"""

import builtins as _builtins

from . import _tile, dtypes
from .frontend import current_frontend
from .values import Value


def zeros(shape, dtype=dtypes.f32):
    """A tile of ``shape`` (a tuple of Python ints) whose every element is 0."""
    return current_frontend("tile.zeros").full(shape, dtypes.as_dtype(dtype), 0)


def ones(shape, dtype=dtypes.f32):
    """A tile of ``shape`` whose every element is 1."""
    return current_frontend("tile.ones").full(shape, dtypes.as_dtype(dtype), 1)


def full(shape, value, dtype=dtypes.f32):
    """A tile of ``shape`` whose every element is ``value`` (a number)."""
    return current_frontend("tile.full").full(shape, dtypes.as_dtype(dtype),
                                              value)


def _loop(kind, doc):
    def loop(*args):
        current_frontend("tile.range")
        raise TypeError("tile.range and tile.for_range are loops of the "
                        "kernel: use them as `for i in tile.range(...)` or "
                        "`with tile.for_range(...) as i`")
    loop.__tile_loop__ = kind
    loop.__doc__ = doc
    return loop


range = _loop("traced", """``for i in tile.range(start, stop, step)``: a loop
the kernel runs (``scf.for`` over index values; ``stop`` alone or
``start, stop`` as Python's range). The index is read-only.""")
for_range = _loop("traced", """Seed 003's traced loop: ``with
tile.for_range(0, K) as k:`` (or ``for k in tile.for_range(...)``), the
same loop as ``tile.range``.""")


def range_constexpr(*args):
    """A loop Python unrolls while it builds the kernel (bounds are Python
    integers); the index is a Python int, so it can index register tensors
    and shapes. The builtin ``range`` in a kernel is the same."""
    return _builtins.range(*args)


range_constexpr.__tile_loop__ = "static"
static_range = range_constexpr


def cdiv(a, b):
    """Division rounding up: of Python integers in Python, else in the
    kernel (``arith.ceildivsi``)."""
    if not isinstance(a, Value) and not isinstance(b, Value):
        return -(-a // b)
    return current_frontend("tile.cdiv").builtin("cdiv", [a, b])


def fma(a, b, c):
    """``a * b + c`` elementwise (the GPU fuses it into one fma)."""
    fe = current_frontend("tile.fma")
    return fe.binary("+", fe.binary("*", a, b), c)


def where(condition, a, b):
    """Elementwise select: ``a`` where ``condition`` is true, else ``b``."""
    return current_frontend("tile.where").builtin("where",
                                                  [condition, a, b])


def block_id(axis=0):
    """This CTA's index in the grid along ``axis`` (0, 1, 2 = x, y, z)."""
    return current_frontend("tile.block_id").context("block", _axis(axis))


def num_blocks(axis=0):
    """The grid's size along ``axis``."""
    return current_frontend("tile.num_blocks").context("blocks", _axis(axis))


def lanes():
    """Threads per warp (32), an index."""
    return current_frontend("tile.lanes").context("lanes")


def _axis(axis):
    if isinstance(axis, str):
        axis = "xyz".find(axis)
    if axis not in (0, 1, 2):
        raise ValueError(f"axis {axis!r}: expected 0, 1, 2 or 'x', 'y', 'z'")
    return axis


class _Grid3:
    def __init__(self, field):
        self._field = field

    def _get(self, axis):
        fe = current_frontend(f"tile.ctx.{self._field}")
        return fe.context(self._field, axis)

    x = property(lambda self: self._get(0))
    y = property(lambda self: self._get(1))
    z = property(lambda self: self._get(2))


class _Context:
    """``tile.ctx``: the ``.tile`` language's context values, index
    scalars: ``ctx.thread`` (this thread's index in its CTA),
    ``ctx.threads``, ``ctx.lanes``, ``ctx.block.x|y|z``,
    ``ctx.blocks.x|y|z``."""

    block = _Grid3("block")
    blocks = _Grid3("blocks")

    @property
    def thread(self):
        return current_frontend("tile.ctx.thread").context("thread")

    @property
    def threads(self):
        return current_frontend("tile.ctx.threads").context("threads")

    @property
    def lanes(self):
        return current_frontend("tile.ctx.lanes").context("lanes")


ctx = _Context()


def _make_builtin(name):
    def builtin(*args):
        return current_frontend("tile." + name).builtin(name, list(args))
    builtin.__name__ = name
    builtin.__qualname__ = name
    builtin.__doc__ = (f"The .tile builtin ``{name}`` (docs/spec.md, "
                       "\"Builtins\"), on the kernel's values.")
    return builtin


# One function per builtin of the language, from the C++ front end's own
# list, so a builtin added there is here too.
BUILTINS = {name: _make_builtin(name) for name in _tile.builtin_names()}
maximum = BUILTINS["max"]
minimum = BUILTINS["min"]


inf = float("inf")


def reshape(t, shape):
    """``t``'s elements in row-major order in a tile of ``shape`` (Python
    ints, as many elements): ``tile.reshape(row, (256,))``. No data moves."""
    fe = current_frontend("tile.reshape")
    shape = [shape] if isinstance(shape, int) else list(shape)
    for x in shape:
        if not isinstance(x, int) or isinstance(x, bool):
            raise TypeError(f"tile.reshape's shape holds Python ints, got "
                            f"{x!r}")
    return fe.reshape(t, shape)


def iota(shape, axis):
    """The i32 tile of ``shape`` whose element is its index along ``axis``
    (``tile.iota((16, 64), 1)[i, j] == j``)."""
    fe = current_frontend("tile.iota")
    shape = [shape] if isinstance(shape, int) else list(shape)
    for x in shape + [axis]:
        if not isinstance(x, int) or isinstance(x, bool):
            raise TypeError(f"tile.iota(shape, axis) takes Python ints, got "
                            f"{x!r}")
    return fe.iota(shape, axis)


def load(slice_, other=None):
    """``X[a:b, ...]`` loaded, its elements outside the tensor ``other`` (a
    scalar) instead of 0: ``tile.load(X[0:16, k:k + 64], other=-tile.inf)``."""
    fe = current_frontend("tile.load")
    args = [_slice_arg(fe, "load", slice_)]
    if other is not None:
        args.append(("value", "other", other))
    return fe.loaded(fe.call_with("load", args), slice_.ranges)


def _slice_statement(name, doc):
    """A builtin statement on a slice, a value and a mask: store and the
    atomics."""
    def statement(slice_, value, mask=None):
        fe = current_frontend("tile." + name)
        args = [_slice_arg(fe, name, slice_),
                ("value", "", fe.lane_shaped(value, slice_.ranges))]
        if mask is not None:
            args.append(("value", "mask", fe.lane_shaped(mask,
                                                         slice_.ranges)))
        fe.call_with(name, args, statement=True)
    statement.__name__ = statement.__qualname__ = name
    statement.__doc__ = doc
    statement.__tile_slice_arg__ = True
    return statement


store = _slice_statement("store", """Stores ``value`` into ``Y[a:b, ...]``,
only where ``mask`` (an i1 tile, broadcast) is true:
``tile.store(Y[0:16, 0:64], v, mask=m)``.""")
atomic_add, atomic_max, atomic_min = (_slice_statement(
    "atomic_" + kind, f"""Combines each element of ``value`` into its element
of ``Y[a:b, ...]`` with an atomic {kind} (f32 and i32; add also f16), only
where ``mask`` is true: ``tile.atomic_{kind}(C[m:m + 32, 0:64], acc)``;
the slice may be a scatter's (``tile.atomic_add(H[bins], 1)``). Atomic
updates never race with each other, in one CTA or across CTAs.""")
    for kind in ("add", "max", "min"))



def dot(a, b, precision=None):
    """The matrix product of two rank-2 tiles (``a @ b``); ``precision``
    (``"ieee"``, the default, or ``"tf32"``) says how f32 tiles multiply:
    ``"tf32"`` rounds each operand element to tf32 (to nearest, ties away
    from zero) and runs on tensor cores (mma.sync.m16n8k8, sm_80 and
    newer): ``tile.dot(x, y, precision="tf32")``."""
    fe = current_frontend("tile.dot")
    args = [("value", "", a), ("value", "", b)]
    if precision is not None:
        if not isinstance(precision, str):
            raise TypeError(f"tile.dot's precision is a string, 'ieee' or "
                            f"'tf32'; got {precision!r}")
        args.append(("name", "precision", precision))
    return fe.call_with("dot", args)


# Builtins written here rather than from the C++ list: those whose
# arguments are more than values.
SPECIAL = ("where", "cdiv", "iota", "load", "store", "reshape",
           "atomic_add", "atomic_max", "atomic_min", "dot")

load.__tile_slice_arg__ = True


def _slice_arg(fe, what, slice_):
    from .frontend import SliceRef
    if not isinstance(slice_, SliceRef):
        raise TypeError(f"the first argument of tile.{what} is a slice of a "
                        f"tensor parameter, written in the call: "
                        f"tile.{what}(X[a:b, ...], ...)")
    return ("slice", "", slice_)

# tile.BUILTINS["store"] and the like are these functions too.
BUILTINS.update({name: globals()[name] for name in SPECIAL
                 if name in BUILTINS})
