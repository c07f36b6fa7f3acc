"""The per-thread API: register tensors, explicit copies, pipelines and
per-thread code, mapped onto the tile dialect (``tile.threads``; the
deprecated ``tile.seed`` is the same module under its old name).

The mapping (docs/python.md, "Per-thread code"): tile spreads every tile
over a CTA of T threads, element ``e`` in thread ``e % T``, so

* a *per-thread value* (one value in each thread) is a tile of shape
  ``[T]`` whose element ``t`` is thread ``t``'s value: per-thread arithmetic
  is elementwise tile arithmetic, which stays in registers;
* ``thread_id()`` is such a value, ``iota([T], 0)``,
  and indices built from it as ``base + thread_id()`` (``base`` uniform) are
  tracked as such, so ``X[base + tid]`` is the slice ``X[base :+ T]``
  (with single indices in a tensor's other dimensions, reshaped to
  ``[T]``), and a store to it the slice store;
* ``register_tensor(shape)`` is one per-thread value per element, each a
  ``[T]`` tile var kept in registers (``@registers``); its indices are
  compile-time constants (each element is its own register tile);
* ``threadgroup_alloc(dtype, size)`` is a ``[size]`` tile var in shared
  memory (a request), zero-filled (of the shape ``size``, a tuple: the
  language's ``var t: shared tile<T>[R, C]``);
* ``copy`` is ``tile.copy``, CTA-wide, ``coalesced_width`` elements a
  thread at a time, masked by ``mask_fn`` over the element index: the
  flat form's ``count`` elements of 1-D sides, or the language's box of slices
  and buffer parts (``tile.copy(X[r:r + 16, 0:64], buf[0:16, :])``);
  ``barrier()`` a requested ``tile.barrier``;
* ``pipeline(dtype, size, stages)`` is a ring of ``stages`` shared tiles
  (of a shape, with a tuple ``size``);
  ``stage(k)`` is ``tile.stage`` at the ring's rotation count plus ``k``,
  and ``advance()`` increments the count in the kernel (so it is right in
  every iteration of a traced loop), renaming the stages, moving nothing.

Element access follows the language's gathers, scatters and sub-tiles
(docs/python.md, "Element access"): ``X[2 * tid]`` is a gather,
``buf[i]`` with a constant ``i`` ``tile.extract``, ``buf[a:b] = v``
``tile.insert_slice``.
"""

import itertools

from . import dtypes
from .errors import CompileError
from .frontend import current_frontend
from .values import Value


def _as_dtype(dtype):
    return dtypes.as_dtype(dtype)


class ThreadIndex:
    """``base + scale * e`` for element ``e`` of a ``[lanes]`` tile (thread
    ``e``'s, for ``thread_id()``: lanes = threads): an index kept symbolic
    so that it can index a tensor as a slice of ``lanes`` elements.

    Used as a value (``tid * tid``, ``tid < n``, ``tile.f32(tid)``) it is the
    ``[lanes]`` i32 tile of those indices (``iota``: element ``e`` is held by
    thread ``e % threads``); a uniform ``index`` operand of such arithmetic
    is converted to i32.
    """

    def __init__(self, fe, base=0, scale=1, lanes=None):
        self.fe = fe
        self.base = base    # a Python int or a uniform scalar Value
        self.scale = scale  # a Python int
        self.lanes = lanes or fe.kernel.threads

    def __repr__(self):
        return f"<thread index {self.base!r} + {self.scale} * t>"

    def _uniform(self, other):
        return (isinstance(other, int) and not isinstance(other, bool)) or (
            isinstance(other, Value) and other.kind == "scalar"
            and other.dtype in (dtypes.index, dtypes.i32))

    def _combine(self, other, sign):
        fe = self.fe
        if isinstance(other, ThreadIndex):
            if other.lanes != self.lanes:
                return None
            base, other_base = self._same_type(self.base, other.base)
            return ThreadIndex(fe, fe.binary("+" if sign > 0 else "-", base,
                                             other_base),
                               self.scale + sign * other.scale, self.lanes)
        if self._uniform(other):
            base = self.base
            if isinstance(base, int) and isinstance(other, int):
                return ThreadIndex(fe, base + sign * other, self.scale,
                                   self.lanes)
            base, other = self._same_type(base, other)
            return ThreadIndex(fe, fe.binary("+" if sign > 0 else "-", base,
                                             other), self.scale, self.lanes)
        return None

    def _same_type(self, a, b):
        if isinstance(a, Value) and isinstance(b, Value) and a.dtype != b.dtype:
            return self.fe.cast(dtypes.index, a), self.fe.cast(dtypes.index, b)
        return a, b

    def __add__(self, other):
        result = self._combine(other, 1)
        return result if result is not None else self.value() + other

    __radd__ = __add__

    def __sub__(self, other):
        result = self._combine(other, -1)
        return result if result is not None else self.value() - other

    def __rsub__(self, other):
        negated = ThreadIndex(self.fe, 0, -self.scale,
                              self.lanes)._combine(other, 1)
        if negated is not None and self.base == 0:
            return negated
        return other - self.value()

    def __mul__(self, other):
        if isinstance(other, int) and not isinstance(other, bool):
            base = self.base * other if isinstance(self.base, int) else \
                self.fe.binary("*", self.base, other)
            return ThreadIndex(self.fe, base, self.scale * other, self.lanes)
        return self.value() * other

    __rmul__ = __mul__

    def __neg__(self):
        return self * -1

    def value(self):
        """The ``[lanes]`` i32 tile of the indices."""
        fe = self.fe
        tile = fe.iota([self.lanes], 0)
        if self.scale != 1:
            tile = fe.binary("*", tile, self.scale)
        if not (isinstance(self.base, int) and self.base == 0):
            base = self.base
            if isinstance(base, Value) and base.dtype != dtypes.i32:
                base = fe.cast(dtypes.i32, base)
            tile = fe.binary("+", tile, base)
        return tile

    def slice_start(self):
        """The start of the slice this index reads, or None."""
        if self.scale != 1:
            return None
        base = self.base
        if isinstance(base, Value) and base.dtype != dtypes.index:
            return self.fe.cast(dtypes.index, base)
        return base


def _value_op(name):
    def method(self, *args):
        # A uniform index meets the i32 indices as an i32.
        args = [self.fe.cast(dtypes.i32, a) if isinstance(a, Value) and
                a.kind == "scalar" and a.dtype == dtypes.index else a
                for a in args]
        return getattr(self.value(), name)(*args)
    return method


for _name in ("__lt__", "__le__", "__gt__", "__ge__", "__eq__", "__ne__",
              "__truediv__", "__floordiv__", "__mod__", "__rtruediv__",
              "__rfloordiv__", "__rmod__", "__and__", "__or__", "astype"):
    setattr(ThreadIndex, _name, _value_op(_name))
ThreadIndex.__hash__ = object.__hash__


def thread_id():
    """This thread's index in its CTA, a per-thread value."""
    return ThreadIndex(current_frontend("tile.thread_id"))


def num_threads():
    """Threads per CTA: the kernel's ``threads=``, a Python int."""
    return current_frontend("tile.num_threads").kernel.threads


def barrier():
    """Seed 003's barrier: ``tile.barrier {requested}``. The compiler puts a
    barrier wherever one thread's access meets another's
    (tile-insert-barriers) anyway; a requested one stays, counts like any
    other, and a remark says when it orders nothing that needs ordering."""
    fe = current_frontend("tile.barrier")
    fe.c.barrier(fe.pos)


class _Scoped:
    """An object of the kernel that holds vars declared in one block: usable
    only while that block is open."""

    def __init__(self, fe, what):
        self.fe = fe
        self.what = what
        self.path = fe.block_path()

    def check_scope(self):
        path = self.fe.block_path()
        if path[:len(self.path)] != self.path:
            raise CompileError(self.fe.located(
                f"{self.what} was made inside a loop or if that has ended"))


class RegisterTensor(_Scoped):
    """``register_tensor(shape, dtype, fill)``: a small per-thread tensor,
    indexed with compile-time constants (``acc[i, j]``); each element is a
    per-thread value kept in registers."""

    def __init__(self, fe, name, shape, dtype, fill):
        super().__init__(fe, f"register tensor '{name}'")
        self.name = name
        self.shape = tuple(shape)
        self.dtype = dtype
        threads = fe.kernel.threads
        init = fe.full((threads,), dtype, fill)
        for index in itertools.product(*(range(n) for n in self.shape)):
            var = self.var(index)
            fe.c.declare_var(var, fe.pos, None, init.id, fe.pos, fe.c.depth)
            fe.c.add_register(var, fe.pos)

    def var(self, index):
        return "_".join([self.name] + [str(i) for i in index])

    def _index(self, key):
        key = key if isinstance(key, tuple) else (key,)
        if len(key) != len(self.shape) or not all(
                isinstance(i, int) and not isinstance(i, bool) and
                0 <= i < n for i, n in zip(key, self.shape)):
            raise CompileError(self.fe.located(
                f"register tensor '{self.name}' of shape {list(self.shape)} "
                f"is indexed with compile-time constants in range, got "
                f"{key!r}"))
        return key

    def __tile_getitem__(self, key):
        self.check_scope()
        var = self.var(self._index(key))
        return Value(self.fe, self.fe.c.name(var, self.fe.pos))

    def __tile_setitem__(self, key, value):
        self.check_scope()
        var = self.var(self._index(key))
        self.fe.c.assign(var, self.fe.pos, "", self.fe.pos,
                         self.fe.to_id(value), self.fe.pos)

    def __repr__(self):
        return f"<register tensor {self.name} {self.dtype.name}" \
               f"{list(self.shape)}>"


def register_tensor(shape, dtype="float", fill=0):
    """A small per-thread tensor of ``shape`` (a tuple of ints) filled with
    ``fill``, in registers; its indices are compile-time constants."""
    fe = current_frontend("tile.register_tensor")
    shape = (shape,) if isinstance(shape, int) else tuple(shape)
    if not shape or not all(isinstance(n, int) and n > 0 for n in shape):
        raise CompileError(fe.located(
            f"a register tensor's shape is a tuple of positive ints, got "
            f"{shape!r}"))
    return RegisterTensor(fe, fe.new_name("regs"), shape, _as_dtype(dtype),
                          fill)


def _shape(fe, size, what):
    """A buffer's shape: `size` (an int) or a tuple of positive ints."""
    shape = (size,) if isinstance(size, int) else size
    if not isinstance(shape, (tuple, list)) or not shape or not all(
            isinstance(n, int) and not isinstance(n, bool) and n > 0
            for n in shape):
        raise CompileError(fe.located(
            f"{what} is a positive int (or a shape, a tuple of them), got "
            f"{size!r}"))
    return tuple(shape)


class BufferPart:
    """`buf[a:b, c:d]` of a buffer or a stage as a side of a copy: its
    offsets (ids) and extents (ints)."""

    def __init__(self, buffer, offsets, extents):
        self.buffer = buffer
        self.offsets = offsets
        self.extents = extents

    def __repr__(self):
        return f"<part {self.extents} of {self.buffer.what}>"


class _Buffer(_Scoped):
    """A tile var of the CTA (`shape`, `[size]` when 1-D): a buffer, or a
    stage of a pipeline. Read whole (``buf[...]``, ``buf[:]``), it is a
    tile value, and so it is wherever a value is used (``acc +=
    pipe.front()``)."""

    @property
    def ndim(self):
        return len(self.shape)

    def ref(self):
        """The var as the builder names it (name, pos, rotation, stage)."""
        raise NotImplementedError

    def read(self):
        """The buffer's value, a tile of its shape."""
        self.check_scope()
        return Value(self.fe, self.fe.c.read_var(self.ref(), self.fe.pos))

    __tile_value__ = read

    def _constant_key(self, key):
        """The constant part `key` names, as tile_indices takes it, or None
        for the whole buffer: one int or constant slice a dimension."""
        if key is Ellipsis:
            return None
        key = key if isinstance(key, tuple) else (key,)

        def constant(x):
            return x is None or (isinstance(x, int) and
                                 not isinstance(x, bool))
        if len(key) != self.ndim or not all(
                constant(k) if not isinstance(k, slice) else
                k.step is None and constant(k.start) and constant(k.stop)
                for k in key):
            raise CompileError(self.fe.located(
                f"{self.what} of shape {list(self.shape)} is indexed with "
                f"a constant int or slice start:stop in each of its "
                f"{self.ndim} dimensions (or '...' for all of it); got "
                f"{key!r}"))
        if all(isinstance(k, slice) and k.start in (None, 0) and
               k.stop in (None, n) for k, n in zip(key, self.shape)):
            return None
        return key

    def __tile_part__(self, key):
        """`buf[key]` as a side of a copy: a constant box of it."""
        self.check_scope()
        fe = self.fe
        key = self._constant_key(key)
        if key is None:
            return self
        offsets, extents = [], []
        for k, n in zip(key, self.shape):
            start, stop = (k.start or 0, n if k.stop is None else k.stop) \
                if isinstance(k, slice) else (k, k + 1)
            offsets.append(fe.to_id(start))
            extents.append(stop - start)
        return BufferPart(self, offsets, extents)

    def write(self, value):
        self.check_scope()
        self.fe.c.write_var(self.ref(), self.fe.to_id(value), self.fe.pos)

    def _part(self, key):
        """What `buf[key]` names: None for the whole buffer, (start,
        extent) for a constant part (extent None: one element), or a
        per-thread or uniform index the kernel computes."""
        if isinstance(key, tuple) and len(key) == 1:
            key = key[0]
        if isinstance(key, slice):
            start = 0 if key.start is None else key.start
            stop = self.size if key.stop is None else key.stop
            if key.step is not None or not all(
                    isinstance(x, int) and not isinstance(x, bool)
                    for x in (start, stop)):
                raise CompileError(self.fe.located(
                    f"a slice of {self.what} has constant bounds and no "
                    f"step, start:stop; got {key!r}"))
            if (start, stop) == (0, self.size):
                return None
            return (start, stop - start)
        if isinstance(key, int) and not isinstance(key, bool):
            return (key, None)
        if isinstance(key, ThreadIndex) and key.scale == 1 and \
                isinstance(key.base, int) and \
                0 <= key.base <= self.size - key.lanes:
            # Thread t's element base + t: the [lanes] part at base (one
            # reaching outside the buffer is computed, so outside reads 0).
            if key.base == 0 and key.lanes == self.size:
                return None
            return (key.base, key.lanes)
        if isinstance(key, ThreadIndex) or (
                isinstance(key, Value) and (
                    (key.kind == "tile" and key.ndim == 1) or
                    key.kind == "scalar") and
                key.dtype in (dtypes.i32, dtypes.index)):
            return key
        raise CompileError(self.fe.located(
            f"{self.what} of {self.size} elements is indexed with ':', a "
            "constant slice start:stop, a constant, a uniform integer or a "
            f"per-thread index; got {key!r}"))

    def _indices(self, part):
        start, extent = part
        fe = self.fe
        return [(fe.to_id(start), None if extent is None else
                 fe.to_id(extent))]

    def __tile_getitem__(self, key):
        if self.ndim != 1 or key is Ellipsis:
            whole = self.read()
            key = self._constant_key(key)
            if key is None:
                return whole
            fe = self.fe
            return Value(fe, fe.c.index(whole.id, fe.tile_indices(self, key),
                                        fe.pos))
        part = self._part(key)
        whole = self.read()
        if part is None:
            return whole
        fe = self.fe
        if isinstance(part, tuple):
            return Value(fe, fe.c.index(whole.id, self._indices(part),
                                        fe.pos))
        strided = self._strided(whole, part)
        return strided if strided is not None else self._gather(whole, part)

    def _strided(self, whole, index):
        """`buf[b + k * tid]` with constants b >= 0, k > 1 inside the
        buffer: column b % k of the buffer as [size / k, k] rows, from row
        b // k (a reshape and a sub-tile: no comparisons), or None."""
        if not isinstance(index, ThreadIndex) or not isinstance(
                index.base, int):
            return None
        base, k, lanes = index.base, index.scale, index.lanes
        if k <= 1 or self.size % k or base < 0 or \
                base + k * (lanes - 1) >= self.size:
            return None
        fe = self.fe
        rows = fe.reshape(whole, [self.size // k, k])
        column = Value(fe, fe.c.index(rows.id, [
            (fe.to_id(base // k), fe.to_id(lanes)),
            (fe.to_id(base % k), fe.to_id(1))], fe.pos))
        return fe.reshape(column, [lanes])

    def __tile_setitem__(self, key, value):
        if self.ndim != 1 or key is Ellipsis:
            key = self._constant_key(key)
            if key is None:
                self.write(value)
                return
            self.check_scope()
            fe = self.fe
            fe.c.assign_part(self.ref(), fe.tile_indices(self, key), "",
                             fe.pos, fe.to_id(value), fe.pos)
            return
        part = self._part(key)
        if part is None:
            self.write(value)
            return
        fe = self.fe
        self.check_scope()
        if isinstance(part, tuple):
            fe.c.assign_part(self.ref(), self._indices(part), "", fe.pos,
                             fe.to_id(value), fe.pos)
            return
        self.write(self._scatter(self.read(), part, value))

    # A buffer is a tile var, and the dialect gathers from global tensors
    # only, so an index the kernel computes selects elementwise: the
    # element at i is the largest of the row that is `x` where the column
    # is i and -inf elsewhere (exact: max(x, -inf) is x, NaN included).
    # A per-thread index compares [lanes, size] elements, so it costs
    # lanes x size operations and a reduction.

    def _lowest(self):
        dtype = self.dtype
        if dtype in (dtypes.f32, dtypes.f16, dtypes.bf16):
            return float("-inf")
        if dtype == dtypes.i32:
            return -2**31
        raise CompileError(self.fe.located(
            f"{self.what} of {dtype.name} is indexed by a computed index: "
            "that needs an f32, f16, bf16 or i32 buffer"))

    def _index_tile(self, index):
        """A computed index as a scalar i32 or the [lanes] i32 tile."""
        fe = self.fe
        if isinstance(index, ThreadIndex):
            return index.value()
        if index.dtype != dtypes.i32:
            return fe.cast(dtypes.i32, index)
        return index

    def _gather(self, whole, index):
        fe = self.fe
        lowest = self._lowest()
        i = self._index_tile(index)
        lanes = i.shape[0] if i.kind == "tile" else 1
        columns = fe.iota([lanes, self.size], 1)
        hit = fe.binary("==", columns, fe.reshape(i, [lanes, 1])
                        if i.kind == "tile" else i)
        row = fe.reshape(whole, [1, self.size])
        found = fe.builtin("rowmax", [fe.builtin("where",
                                                 [hit, row, lowest])])
        if i.kind == "tile":
            found = fe.reshape(found, [lanes])
        else:
            zero = fe.to_id(0)
            found = Value(fe, fe.c.index(found.id, [(zero, None)] * 2,
                                         fe.pos))
        # An index outside the buffer reads 0, as outside a tensor.
        inside = fe.binary("&", fe.binary(">=", i, 0),
                           fe.binary("<", i, self.size))
        return fe.builtin("where", [inside, found, 0])

    def _scatter(self, whole, index, value):
        fe = self.fe
        i = self._index_tile(index)
        if i.kind != "tile":
            # One element, the same in every thread: an elementwise select.
            hit = fe.binary("==", fe.iota([self.size], 0), i)
            return fe.builtin("where", [hit, value, whole])
        lanes = i.shape[0]
        value = fe.value_of(value)
        if value.kind == "tile":
            if value.shape != (lanes,):
                raise CompileError(fe.located(
                    f"the value stored to {self.what} at a per-thread index "
                    f"is a per-thread value ([{lanes}]) or a scalar; got "
                    f"{value!r}"))
            value = fe.reshape(value, [1, lanes])
        # Element e of the buffer takes the value of the lanes that write
        # it (the largest, when several do; a scatter's repeated targets
        # are undefined) and keeps its own where none does.
        hit = fe.binary("==", fe.iota([self.size, lanes], 0),
                        fe.reshape(i, [1, lanes]))
        lowest = self._lowest()
        written = fe.builtin("rowmax", [fe.builtin("where",
                                                   [hit, value, lowest])])
        one = fe.full((1, 1), dtypes.i32, 1)
        count = fe.builtin("rowmax", [fe.builtin("where", [hit, one, 0])])
        return fe.builtin("where", [
            fe.binary(">", fe.reshape(count, [self.size]), 0),
            fe.reshape(written, [self.size]), whole])


class SharedBuffer(_Buffer):
    """``threadgroup_alloc(dtype, size)``: a buffer the CTA shares, a
    ``[size]`` tile var (or one of the shape ``size``) in shared memory
    (``storage = shared``)."""

    def __init__(self, fe, name, dtype, shape):
        super().__init__(fe, f"buffer '{name}'")
        self.name = name
        self.dtype = dtype
        self.shape = shape
        self.size = shape[0]
        # Zero-filled, so that a masked copy's untouched elements are defined.
        init = fe.full(shape, dtype, 0).id
        fe.c.declare_var(name, fe.pos, None, init, fe.pos, fe.c.depth)
        fe.c.set_var_placement(name, True, None, fe.pos)

    def ref(self):
        return (self.name, self.fe.pos, None, 0)

    def __repr__(self):
        return f"<buffer {self.name} {self.dtype.name}{list(self.shape)}>"


def threadgroup_alloc(dtype, size):
    """A buffer of ``size`` elements the CTA shares, or of the
    shape ``size`` (a tuple: the language's ``var t: shared tile<T>[R,
    C]``), zero-filled."""
    fe = current_frontend("tile.threadgroup_alloc")
    return SharedBuffer(fe, fe.new_name("buffer"), _as_dtype(dtype),
                        _shape(fe, size, "a buffer's size"))


def _int(x):
    return isinstance(x, int) and not isinstance(x, bool)


def _side(fe, side, what):
    """A side of a copy of a box: (var reference, offset ids, extents, the
    tensor parameter or None)."""
    from .frontend import SliceRef, TensorParam
    if isinstance(side, SliceRef):
        ranges = side.ranges
        extents = []
        for start, extent in ranges:
            if ranges.lanes is not None or (
                    extent is None and fe.value(start).kind == "tile"):
                raise CompileError(fe.located(
                    f"copy {what} '{side.tensor.name}': a side of a copy is "
                    "a slice with uniform starts, not a per-thread access "
                    "or a gather"))
            extents.append(1 if extent is None else fe.value(extent).literal)
        tensor = side.tensor
        return ((tensor.name, side.pos, None, 0), [s for s, _ in ranges],
                extents, tensor)
    if isinstance(side, TensorParam):
        raise CompileError(fe.located(
            f"copy {what} '{side.name}': the box of a tensor is a slice of "
            f"it ({side.name}[a:b, ...]), or give count=N"))
    if isinstance(side, BufferPart):
        return side.buffer.ref(), side.offsets, side.extents, None
    if isinstance(side, _Buffer):
        side.check_scope()
        return side.ref(), [], list(side.shape), None  # [] is the origin
    raise CompileError(fe.located(
        f"copy {what} {side!r}: a tensor parameter, a buffer or a pipeline "
        "stage, or a slice of one"))


def _flat_side(fe, side, offset, what):
    """A side of the flat copy of `count` elements: its var
    reference and offset."""
    from .frontend import TensorParam
    if isinstance(side, TensorParam) and side.ndim == 1 or \
            isinstance(side, _Buffer) and side.ndim == 1:
        if isinstance(side, _Buffer):
            side.check_scope()
            return side.ref(), [fe.to_id(offset)]
        return (side.name, side.pos, None, 0), [fe.to_id(offset)]
    if isinstance(side, (TensorParam, _Buffer)):
        name = side.name if isinstance(side, TensorParam) else side.what
        raise CompileError(fe.located(
            f"copy {what} '{name}': the flat copy of count elements moves "
            "elements of 1-D tensors and buffers; copy a slice of it "
            "(tile.copy(X[a:b, c:d], buf)) instead"))
    if isinstance(side, (BufferPart,)) or hasattr(side, "ranges"):
        raise CompileError(fe.located(
            f"copy {what} {side!r}: with count, a side is a whole 1-D "
            "tensor, buffer or stage, and src_offset and dst_offset place "
            "the elements; a slice gives its own offsets and extents: "
            "tile.copy(X[i:i + 256], buf)"))
    raise CompileError(fe.located(
        f"copy {what} {side!r}: a tensor parameter, a buffer or a pipeline "
        "stage"))


def _copy_mask(fe, mask_fn, mask, box):
    """The i1 mask of a copy of `box`: `mask`, or `mask_fn` traced over
    the element's index in each dimension (for a 1-D box an index like
    `thread_id()`'s, 0 .. box[0] - 1; else the i32 tiles `iota(box, d)`)."""
    if mask_fn is not None and mask is not None:
        raise CompileError(fe.located(
            "a copy takes mask_fn or mask, not both"))
    if mask_fn is None:
        return mask
    if len(box) == 1:
        indices = [ThreadIndex(fe, lanes=box[0])]
    else:
        indices = [fe.iota(list(box), d) for d in range(len(box))]
    mask = mask_fn(*indices)
    return mask.value() if isinstance(mask, ThreadIndex) else mask


def copy(src, dst, count=None, src_offset=0, dst_offset=0, mask_fn=None,
         coalesced_width=1, async_=False, mask=None):
    """Copies elements from ``src`` to ``dst``, CTA-wide: ``tile.copy``,
    each thread moving ``coalesced_width`` consecutive elements at a time
    as one vector access (1, 2 or 4; 8 of 16-bit types; at most 16 bytes).

    Seed 003's form, ``count`` given: ``src[src_offset + i]`` to
    ``dst[dst_offset + i]`` for ``i`` from 0 to ``count - 1``, the sides
    whole 1-D tensors, buffers or stages. The language's form, no
    ``count``: the sides are slices of tensors (``X[r:r + 16, c:c + 64]``),
    buffers or stages (whole, or a constant part ``buf[8:16, :]``) of one
    shape, the box.

    ``mask_fn(i)`` (``mask_fn(i, j)`` for a 2-D box), traced over each
    element's index, or ``mask``, an i1 tile broadcast to the box, says
    which elements to copy (the others of ``dst`` keep their values).
    ``async_=True`` is an asynchronous copy (``cp.async``) into shared
    memory, complete after ``commit_group()`` and a ``wait_group(n)`` that
    leaves fewer than its group in flight (and a barrier). Between two
    tensors it is a slice load and store."""
    from .frontend import SliceRef, TensorParam
    fe = current_frontend("tile.copy")
    if coalesced_width not in (1, 2, 4, 8) or isinstance(coalesced_width,
                                                         bool):
        raise CompileError(fe.located(
            f"coalesced_width is 1, 2, 4 or 8, got {coalesced_width!r}"))
    if count is not None:
        if not _int(count) or count <= 0:
            raise CompileError(fe.located(
                f"a copy's count is a positive int, got {count!r}"))
        box = [count]
        mask = _copy_mask(fe, mask_fn, mask, box)
        if isinstance(src, TensorParam) and isinstance(dst, TensorParam):
            for tensor in (src, dst):
                if tensor.ndim != 1:
                    _flat_side(fe, tensor, 0, "of")
            _tensor_to_tensor(
                fe, SliceRef(src, [(fe.to_id(src_offset), fe.to_id(count))],
                             fe.pos),
                SliceRef(dst, [(fe.to_id(dst_offset), fe.to_id(count))],
                         fe.pos), mask, async_)
            return
        source, source_offsets = _flat_side(fe, src, src_offset, "from")
        dest, dest_offsets = _flat_side(fe, dst, dst_offset, "into")
    else:
        for key, offset in (("src_offset", src_offset),
                            ("dst_offset", dst_offset)):
            if not (_int(offset) and offset == 0):
                raise CompileError(fe.located(
                    f"{key} goes with count; a slice gives its own "
                    "offsets: tile.copy(X[i:i + 256], buf)"))
        if isinstance(src, SliceRef) and isinstance(dst, SliceRef):
            mask = _copy_mask(fe, mask_fn, mask, [
                1 if e is None else fe.value(e).literal
                for _, e in src.ranges])
            _tensor_to_tensor(fe, src, dst, mask, async_)
            return
        source, source_offsets, box, _ = _side(fe, src, "from")
        dest, dest_offsets, dest_box, _ = _side(fe, dst, "into")
        if box != dest_box:
            raise CompileError(fe.located(
                f"the source and the destination of a copy are {box} and "
                f"{dest_box}: they must have the same shape"))
        mask = _copy_mask(fe, mask_fn, mask, box)
    fe.c.copy(source, source_offsets, dest, dest_offsets, box,
              coalesced_width, None if mask is None else fe.to_id(mask),
              bool(async_), fe.pos)


copy.__tile_copy_sides__ = True


def _tensor_to_tensor(fe, src, dst, mask, async_):
    """A copy between two tensors: the slice loaded and stored (where
    `mask` is true)."""
    if async_:
        raise CompileError(fe.located(
            "an asynchronous copy goes into a buffer or a pipeline stage, "
            "not between two tensors"))
    value = Value(fe, fe.c.load(src.tensor.name, src.tensor.pos, src.ranges,
                                fe.pos))
    if mask is not None:
        fe.call_with("store", [("slice", "", dst), ("value", "", value),
                               ("value", "mask", mask)], statement=True)
        return
    fe.store_slice(fe.prepare_ranges(dst.tensor, dst.ranges, dst.tensor.pos,
                                     fe.pos), value, fe.pos)


def commit_group():
    """Closes the group of the asynchronous copies issued since the last
    one (``tile.commit_group``)."""
    fe = current_frontend("tile.commit_group")
    fe.call_with("commit_group", [], statement=True)


def wait_group(n):
    """Waits until at most ``n`` (a constant, 0 to 7) groups of
    asynchronous copies are in flight (``tile.wait_group``); a barrier
    after it makes the copies of the others visible to every thread."""
    fe = current_frontend("tile.wait_group")
    fe.call_with("wait_group", [("value", "", n)], statement=True)


class PipelineStage(_Buffer):
    """Stage ``k`` of a pipeline: ``tile.stage`` of its ring at the
    pipeline's rotation."""

    def __init__(self, pipeline, k):
        super().__init__(pipeline.fe, f"stage {k} of pipeline "
                                      f"'{pipeline.name}'")
        self.path = pipeline.path
        self.pipeline = pipeline
        self.k = k
        self.shape = pipeline.shape
        self.size = pipeline.size
        self.dtype = pipeline.dtype

    def ref(self):
        return self.pipeline.ref(self.k)

    def __repr__(self):
        return f"<stage {self.k} of pipeline {self.pipeline.name}>"


class Pipeline(_Scoped):
    """``pipeline(dtype, size, stages)``: a ring of ``stages`` shared tiles
    (``tile.var`` with ``stages``) and the count of its rotations."""

    def __init__(self, fe, name, dtype, shape, stages):
        super().__init__(fe, f"pipeline '{name}'")
        self.name = name
        self.dtype = dtype
        self.shape = shape
        self.size = shape[0]
        self.stages = stages
        # The rotation count: a name no Python identifier takes, as the
        # language's `p.rotation`.
        self.rotation = name + ".rotation"
        # The rotation read in the current block (block path, id), or None:
        # stages of one read are distinct memory to the barrier analysis,
        # as the language reads it once per block between advances.
        self.rotation_read = None
        fe.c.declare_var(name, fe.pos, (dtype.name, list(shape)), None,
                         fe.pos, fe.c.depth)
        fe.c.set_var_placement(name, False, stages, fe.pos)
        fe.c.declare_var(self.rotation, fe.pos, ("index", []),
                         fe.to_id(0), fe.pos, fe.c.depth)

    def ref(self, k):
        self.check_scope()
        fe = self.fe
        path = fe.block_path()
        if self.rotation_read is None or self.rotation_read[0] != path:
            self.rotation_read = (path, fe.c.name(self.rotation, fe.pos))
        return (self.name, fe.pos, self.rotation_read[1], k)

    def stage(self, k):
        """Stage ``k`` (0 is the front)."""
        if not isinstance(k, int) or isinstance(k, bool) or \
                not 0 <= k < self.stages:
            raise CompileError(self.fe.located(
                f"pipeline '{self.name}' has stages 0 to {self.stages - 1}, "
                f"got {k!r}"))
        return PipelineStage(self, k)

    def front(self):
        """This iteration's buffer, stage 0."""
        return self.stage(0)

    def back(self):
        """The most distant prefetch buffer, stage ``stages - 1``."""
        return self.stage(self.stages - 1)

    def advance(self):
        """Rotates the stages by one: stage k + 1 becomes stage k, the front
        the back. Nothing moves: the ring's rotation count goes up by one in
        the kernel (so in every iteration of a loop), and each stage is
        ``tile.stage`` of the ring at it."""
        self.check_scope()
        fe = self.fe
        fe.c.assign(self.rotation, fe.pos, "+", fe.pos, fe.to_id(1), fe.pos)
        self.rotation_read = None


def pipeline(dtype, size, stages=2):
    """A ring of ``stages`` (at least 2) buffers of ``size`` elements (or
    of the shape ``size``, a tuple: the language's ``var p: pipeline<T,
    stages = S>[R, C]``) for overlapping loads with compute."""
    fe = current_frontend("tile.pipeline")
    if not isinstance(stages, int) or isinstance(stages, bool) or stages < 2:
        raise CompileError(fe.located(
            f"a pipeline has at least 2 stages, got {stages!r}"))
    return Pipeline(fe, fe.new_name("pipe"), _as_dtype(dtype),
                    _shape(fe, size, "a pipeline stage's size"), stages)
