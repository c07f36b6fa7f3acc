"""The Python front end: a kernel's Python source to the tile dialect.

The front end reads the kernel function's syntax tree (``ast``) and walks
it as an interpreter would, statement by statement, with two kinds of
values:

* Python values (numbers, tuples, functions, ``tile.ctx``, a pipeline's
  stages, ...), which it evaluates in Python while it builds the kernel, as
  Triton does with ``constexpr``: ``for i in range(8)`` is unrolled, ``if``
  on a Python value picks its branch;
* :class:`~tile.values.Value`, what the kernel computes, which it emits
  through the C++ IR builder (``tile._tile.Compilation``, the ``.tile``
  front end's semantics exposed op by op), each op located at the Python
  node's file, line and column.

A Python local assigned a value is a ``tile.var`` (as ``var x = e`` is in
``.tile``), declared in the innermost block that holds every use of the
name, so Python's function scope holds (a name assigned in both branches of
an ``if`` is declared before it). ``tile.range`` (and ``for_range``) loops,
``while`` on a value and ``if`` on a value are the kernel's control flow.
"""

import ast
import builtins
import linecache
import threading

from . import _tile, dtypes
from .errors import CompileError, Error
from .values import Value

_state = threading.local()


def current_frontend(what):
    """The front end building a kernel on this thread, or an Error naming
    `what`, which only a kernel can use."""
    stack = getattr(_state, "stack", None)
    if not stack:
        raise Error(f"{what} can only be used inside a @tile.kernel function")
    return stack[-1]


def _pos(node):
    return (node.lineno, node.col_offset + 1)


_STATIC_RANGES = {"range", "range_constexpr", "static_range"}
_OPS = {
    ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/",
    ast.FloorDiv: "//", ast.Mod: "%", ast.MatMult: "@", ast.BitAnd: "&",
    ast.BitOr: "|", ast.BitXor: "^", ast.LShift: "<<", ast.RShift: ">>",
    ast.Pow: "**", ast.Lt: "<", ast.LtE: "<=",
    ast.Gt: ">", ast.GtE: ">=", ast.Eq: "==", ast.NotEq: "!=",
}
_PY_OPS = {
    "+": lambda a, b: a + b, "-": lambda a, b: a - b,
    "*": lambda a, b: a * b, "/": lambda a, b: a / b,
    "//": lambda a, b: a // b, "%": lambda a, b: a % b,
    "<": lambda a, b: a < b, "<=": lambda a, b: a <= b,
    ">": lambda a, b: a > b, ">=": lambda a, b: a >= b,
    "==": lambda a, b: a == b, "!=": lambda a, b: a != b,
    "&": lambda a, b: a & b, "|": lambda a, b: a | b,
    "^": lambda a, b: a ^ b, "@": lambda a, b: a @ b,
    "<<": lambda a, b: a << b, ">>": lambda a, b: a >> b,
    "**": lambda a, b: a ** b,
}


def _is_number(x):
    return isinstance(x, (bool, int, float))


class _Var:
    """A Python local that is a tile.var."""

    __slots__ = ("name", "depth")

    def __init__(self, name, depth):
        self.name = name
        self.depth = depth


class _Index:
    """A loop index of a kernel loop: read-only, local to its body."""

    __slots__ = ("value", "depth")

    def __init__(self, value, depth):
        self.value = value
        self.depth = depth


class _Body:
    """A statement list and the IR block depth its walk emits into."""

    __slots__ = ("stmts", "depth")

    def __init__(self, stmts, depth):
        self.stmts = stmts
        self.depth = depth


class _Return(Exception):
    def __init__(self, value):
        self.value = value


class InlineFunction:
    """A lambda or def of the kernel's source, evaluated by the front end
    at each call (a macro over the kernel's values)."""

    def __init__(self, fe, node, scope):
        self.fe = fe
        self.node = node
        self.scope = scope

    def __call__(self, *args, **kwargs):
        return self.fe.call_inline(self, args, kwargs)


class _Access(list):
    """The ranges of a slice of a tensor as the builder takes them, (start
    id, extent id) a dimension, the extent None for a single index or an
    i32 index tile (a gather's, a scatter's coordinates), and what the
    front end does with the tile the slice is:

    * ``element``: every index a single uniform one, so a read is the
      element, a scalar (``tile.extract`` of the ``[1, ..., 1]`` slice);
    * ``lanes``, ``dim``: a per-thread access, ``lanes`` elements in
      dimension ``dim``; ``one_per_lane`` when the slice's other
      dimensions are 1, so the tile is read as the per-thread ``[lanes]``
      value and a ``[lanes]`` value stored to it takes the slice's shape.
    """

    def __init__(self, ranges, element=False, lanes=None, dim=None,
                 one_per_lane=False):
        super().__init__(ranges)
        self.element = element
        self.lanes = lanes
        self.dim = dim
        self.one_per_lane = one_per_lane

    def lane_shape(self):
        """The slice's shape when it is one element a lane."""
        shape = [1] * len(self)
        shape[self.dim] = self.lanes
        return shape


class SliceRef:
    """A slice of a tensor parameter as an argument (of load and store)."""

    def __init__(self, tensor, ranges, pos):
        self.tensor = tensor
        self.ranges = ranges
        self.pos = pos


class TensorParam:
    """A tensor parameter inside the kernel: sliced to load and store."""

    def __init__(self, fe, name, spec, dtype, pos):
        self.fe = fe
        self.name = name
        self.spec = spec
        self.dtype = dtype
        self.pos = pos
        self.ndim = len(spec.shape)

    @property
    def shape(self):
        """Static sizes as ints, symbolic ones as the symbol's value (an
        expression's computed from its symbols')."""
        return tuple(d if isinstance(d, int) else self.fe.size_value(d)
                     for d in self.spec.shape)

    def __getitem__(self, key):
        """From Python code a kernel calls: ``X[a:b, c:d]`` with integer
        bounds, or ``X[base + thread_id()]``."""
        fe = self.fe
        ranges = fe.python_ranges(self, key)
        return fe.loaded(Value(fe, fe.c.load(self.name, self.pos, ranges,
                                             fe.pos)), ranges)

    def __setitem__(self, key, value):
        fe = self.fe
        slice_id = fe.prepare_ranges(self, fe.python_ranges(self, key),
                                     self.pos, fe.pos)
        fe.store_slice(slice_id, value, fe.pos)

    def __repr__(self):
        return f"<tensor parameter {self.name}: {self.spec!r}>"


def _assigned_names(stmts):
    """Names the statements assign (=, op=, annotated), not the indices of
    loops, which are Python's (unrolled) or the kernel's (read-only)."""
    names = set()
    for stmt in stmts:
        for node in ast.walk(stmt):
            targets = []
            if isinstance(node, ast.Assign):
                targets = list(node.targets)
            elif isinstance(node, (ast.AugAssign, ast.AnnAssign)):
                targets = [node.target]
            while targets:
                target = targets.pop()
                if isinstance(target, ast.Name):
                    names.add(target.id)
                elif isinstance(target, (ast.Tuple, ast.List)):
                    targets.extend(target.elts)
                elif isinstance(target, ast.Starred):
                    targets.append(target.value)
    return names


def _is_static_for(node):
    call = node.iter
    if not isinstance(call, ast.Call):
        return isinstance(call, (ast.Tuple, ast.List))
    func = call.func
    if isinstance(func, ast.Attribute):  # tile.range_constexpr, not tile.range
        return func.attr in _STATIC_RANGES - {"range"}
    return getattr(func, "id", None) in _STATIC_RANGES


class _Scopes(ast.NodeVisitor):
    """The pre-pass: for each name, the statement lists where its var is
    declared (the innermost one holding all its uses, or one per loop when
    each of several loops assigns it before any use: a var of each loop,
    as `.tile` would write it), and the names assigned inside control flow
    (which are vars even when they hold a number)."""

    def __init__(self):
        self.lists = []  # the statement lists from the kernel body inwards
        self.stmts = []  # the statement visited in each of them
        self.uses = {}   # name -> [(list ids, statements, node, is store)]
        self.mutable = set()

    def note(self, name, node, store):
        self.uses.setdefault(name, []).append(
            (tuple(id(stmts) for stmts in self.lists), tuple(self.stmts),
             node, store))

    def visit_Name(self, node):
        self.note(node.id, node, isinstance(node.ctx, ast.Store))

    # In evaluation order: a value before the names it is assigned to.
    def visit_Assign(self, node):
        self.visit(node.value)
        for target in node.targets:
            self.visit(target)

    def visit_AnnAssign(self, node):
        if node.value is not None:
            self.visit(node.value)
        self.visit(node.annotation)
        self.visit(node.target)

    def visit_AugAssign(self, node):
        if isinstance(node.target, ast.Name):
            self.note(node.target.id, node.target, False)  # read, then written
        self.visit(node.value)
        self.visit(node.target)

    def body(self, stmts, mutable):
        if mutable:
            self.mutable |= _assigned_names(stmts)
        self.lists.append(stmts)
        for stmt in stmts:
            self.stmts.append(stmt)
            self.visit(stmt)
            self.stmts.pop()
        self.lists.pop()

    def visit_For(self, node):
        self.visit(node.target)
        self.visit(node.iter)
        static = _is_static_for(node)
        self.body(node.body, not static)
        self.body(node.orelse, not static)

    def visit_While(self, node):
        self.visit(node.test)
        self.body(node.body, True)
        self.body(node.orelse, True)

    def visit_If(self, node):
        self.visit(node.test)
        self.body(node.body, True)
        self.body(node.orelse, True)

    def visit_With(self, node):
        for item in node.items:
            self.visit(item)
        self.body(node.body, True)

    def result(self):
        homes = {}
        for name, uses in self.uses.items():
            common = list(uses[0][0])
            for lists, _, _, _ in uses[1:]:
                n = 0
                while n < len(common) and n < len(lists) and \
                        common[n] == lists[n]:
                    n += 1
                del common[n:]
            if common:
                homes[name] = self.split(uses, len(common)) or {common[-1]}
        return homes

    def split(self, uses, depth):
        """The bodies of the loops below the home list that each assign
        the name before any use of it, when every use is in one of them."""
        groups = {}
        for use in uses:
            lists, stmts, _, _ = use
            if len(lists) <= depth:
                return None  # a use in the home list itself
            groups.setdefault(id(stmts[depth - 1]), []).append(use)
        if len(groups) < 2:
            return None
        bodies = set()
        for group in groups.values():
            lists, stmts, node, store = group[0]
            loop = stmts[depth - 1]
            traced = isinstance(loop, (ast.While, ast.With)) or (
                isinstance(loop, ast.For) and not _is_static_for(loop))
            if not traced or not all(use[0][depth] == id(loop.body)
                                     for use in group):
                return None
            assign = stmts[depth] if len(stmts) > depth else None
            if not store or len(lists) != depth + 1 or not (
                    isinstance(assign, ast.Assign) and len(assign.targets) == 1
                    and assign.targets[0] is node):
                return None
            bodies.add(id(loop.body))
        return bodies


class Frontend:
    """Builds one kernel (one specialisation of a @tile.kernel) into a
    tile._tile.Compilation."""

    def __init__(self, kernel, compilation, dtypes_by_param, func_node,
                 source_file):
        self.kernel = kernel
        self.c = compilation
        self.dtypes_by_param = dtypes_by_param
        self.func_node = func_node
        self.file = source_file
        self.pos = _pos(func_node)
        self.locals = {}
        self.params = {}
        self.scalars = set()
        self.symbols = {}
        self.symbol_values = {}
        self.bodies = []
        self.homes = {}
        self.mutable = set()
        self.inline_depth = 0
        self.inline_entry = []
        # The inline functions being called, innermost last.
        self.inline_calls = []
        # The kernel blocks open (ids), and the name an assignment gives.
        self.open_blocks = []
        self.slice_ranges = {}
        # Writes of vars so far: an assignment that read a var before its
        # value reads it again when the value wrote it.
        self.var_writes = 0
        self.block_count = 0
        self.target_name = None
        self.names = set()

    # ---- diagnostics ------------------------------------------------------

    def located(self, message, pos=None):
        """`message` as a diagnostic at `pos` (default: the node being
        built), with the source line and a caret."""
        line, col = pos or self.pos
        text = linecache.getline(self.file, line).rstrip("\n")
        caret = " " * (col - 1) + "^"
        return f"{self.file}:{line}:{col}: error: {message}\n{text}\n{caret}"

    def error(self, message, node=None):
        return CompileError(self.located(
            message, _pos(node) if node is not None else None))

    def block_path(self):
        """The kernel blocks open here, outermost first."""
        return tuple(self.open_blocks)

    def _open_block(self):
        self.block_count += 1
        self.open_blocks.append(self.block_count)

    def new_name(self, default):
        """A name for vars an API call declares: the name the statement
        assigns it to (`acc = tile.register_tensor(...)`), made unique."""
        base = self.target_name or default
        self.target_name = None
        name, n = base, 1
        while name in self.names:
            n += 1
            name = f"{base}{n}"
        self.names.add(name)
        return name

    # ---- building ---------------------------------------------------------

    def build(self):
        stack = getattr(_state, "stack", None)
        if stack is None:
            stack = _state.stack = []
        stack.append(self)
        try:
            self._build()
        finally:
            stack.pop()

    def _build(self):
        node = self.func_node
        scopes = _Scopes()
        scopes.body(node.body, False)
        self.homes = scopes.result()
        self.mutable = scopes.mutable

        desc = self.kernel.describe(self, node)
        self.c.begin_kernel(desc)
        for param in desc["params"]:
            if param["scalar"]:
                self.scalars.add(param["name"])
                continue
            self.params[param["name"]] = TensorParam(
                self, param["name"], param["spec"], param["dtype_obj"],
                param["pos"])
            for dim in param["dims"]:
                for name in dtypes.dim_names(dim):
                    self.symbols.setdefault(name, param["pos"])
        self.walk_body(node.body)
        self.pos = _pos(node)
        self.c.end_kernel()

    # ---- statements -------------------------------------------------------

    def walk_body(self, stmts):
        body = _Body(stmts, self.c.depth)
        self.bodies.append(body)
        try:
            for stmt in stmts:
                self.pos = _pos(stmt)
                self.stmt(stmt)
        finally:
            self.bodies.pop()

    def stmt(self, node):
        method = getattr(self, "stmt_" + type(node).__name__, None)
        if method is None:
            raise self.error(f"'{type(node).__name__}' statements are not "
                             "supported in a kernel", node)
        method(node)

    def stmt_Expr(self, node):
        if isinstance(node.value, ast.Constant) and isinstance(
                node.value.value, str):
            return  # a docstring
        self.expr(node.value)

    def stmt_Pass(self, node):
        pass

    def stmt_Assert(self, node):
        test = self.expr(node.test)
        if isinstance(test, Value):
            raise self.error("assert needs a condition Python can decide "
                             "while it builds the kernel", node)
        if not test:
            message = self.expr(node.msg) if node.msg else "assertion failed"
            raise self.error(str(message), node)

    def stmt_Return(self, node):
        if not self.inline_depth:
            raise self.error("a kernel returns nothing: store its results "
                             "into its tensor parameters", node)
        raise _Return(self.expr(node.value) if node.value else None)

    def stmt_FunctionDef(self, node):
        if node.decorator_list:
            raise self.error("a function defined inside a kernel takes no "
                             "decorators", node)
        function = InlineFunction(self, node, dict(self.locals))
        # Its own name is in its scope, so that a call of itself is found
        # (and refused in call_inline), not an undefined name.
        function.scope[node.name] = function
        self.locals[node.name] = function

    def stmt_Assign(self, node):
        target = node.targets[0]
        if len(node.targets) == 1 and isinstance(target, ast.Subscript) and \
                self.is_var(target.value):
            # A part of a tile var: the var read first, then the value, as
            # .tile emits them; read again if the value wrote the var (a
            # helper function may).
            whole = self.expr(target.value)
            key = self.subscript_key(target.slice)
            writes = self.var_writes
            value = self.expr(node.value)
            if self.var_writes != writes:
                whole = self.expr(target.value)
            self.assign_part(target, whole, key, "", value, node)
            return
        if len(node.targets) == 1 and isinstance(target, ast.Subscript):
            obj = self.expr(target.value)
            if isinstance(obj, TensorParam):
                # The slice first, then the value, as .tile emits them (no
                # expression has side effects, so the order is not seen).
                slice_id = self.prepare_slice(obj, target.slice, target)
                value = self.expr(node.value)
                self.pos = _pos(node)
                self.store_slice(slice_id, value, _pos(node))
                return
        if len(node.targets) == 1 and isinstance(target, ast.Name):
            self.target_name = target.id
        try:
            value = self.expr(node.value)
        finally:
            self.target_name = None
        for target in node.targets:
            self.assign(target, value, node)

    def stmt_AnnAssign(self, node):
        if not isinstance(node.target, ast.Name):
            raise self.error("an annotated assignment declares a name", node)
        annotation = self.expr(node.annotation)
        name = node.target.id
        if isinstance(annotation, dtypes.TileType):
            dtype, shape = annotation.dtype, annotation.shape
        else:
            try:
                dtype = dtypes.as_dtype(annotation)
            except Error:
                raise self.error(
                    f"the annotation of '{name}' must be an element type "
                    "(tile.f32, tile.index, ...) or "
                    "tile.tile_type(dtype, shape)", node.annotation) from None
            shape = []
        if name in self.locals:
            raise self.error(f"'{name}' is already defined; annotate a "
                             "name where it is first assigned", node.target)
        value = self.expr(node.value) if node.value is not None else None
        self.declare(name, node.target, value, (dtype.name, list(shape)),
                     _pos(node.annotation))

    def operator(self, node):
        """The spelling of a BinOp's or AugAssign's operator, or a located
        error for one a kernel does not have."""
        op = _OPS.get(type(node.op))
        if op is None:
            raise self.error(f"the operator {type(node.op).__name__} is not "
                             "supported in a kernel", node)
        return op

    def stmt_AugAssign(self, node):
        op = self.operator(node)
        target = node.target
        if isinstance(target, ast.Subscript):
            if self.is_var(target.value):
                # Python's order: the var, its index, then the value.
                whole = self.expr(target.value)
                key = self.subscript_key(target.slice)
                value = self.expr(node.value)
                self.assign_part(target, whole, key, op, value, node)
                return
            obj = self.expr(target.value)
            if isinstance(obj, TensorParam):
                slice_id = self.prepare_slice(obj, target.slice, target)
                current = self.load_slice(slice_id, _pos(target))
                value = self.expr(node.value)
                self.pos = _pos(node)
                result = self.binary(op, current, value)
                self.store_slice(slice_id, result, _pos(node))
                return
            if hasattr(obj, "__tile_setitem__"):
                key = self.subscript_key(target.slice)
                current = obj.__tile_getitem__(key)
                value = self.expr(node.value)
                self.pos = _pos(node)
                obj.__tile_setitem__(key, self.binary(op, current, value))
                return
            raise self.error("this subscript cannot be assigned to", target)
        if not isinstance(target, ast.Name):
            raise self.error("only names and slices can be assigned to",
                             target)
        # Python's order, and .tile's: the current value, the right-hand
        # side, the operation, the assignment.
        current = self.expr(target)
        value = self.expr(node.value)
        self.pos = _pos(node)
        self.assign(target, self.binary(op, current, value), node)

    def assign(self, target, value, node):
        if isinstance(target, ast.Name):
            self.assign_name(target, value, node)
        elif isinstance(target, ast.Subscript):
            if self.is_var(target.value):
                whole = self.expr(target.value)
                key = self.subscript_key(target.slice)
                self.assign_part(target, whole, key, "", value, node)
                return
            obj = self.expr(target.value)
            self.pos = _pos(node)
            if isinstance(obj, TensorParam):
                slice_id = self.prepare_slice(obj, target.slice, target)
                self.store_slice(slice_id, value, _pos(node))
            elif hasattr(obj, "__tile_setitem__"):
                obj.__tile_setitem__(self.subscript_key(target.slice), value)
            elif hasattr(obj, "__setitem__") and not isinstance(obj, Value):
                try:
                    obj[self.subscript_key(target.slice)] = value
                except (TypeError, IndexError, KeyError) as error:
                    raise self.error(str(error), target) from None
            else:
                raise self.error("this subscript cannot be assigned to",
                                 target)
        elif isinstance(target, (ast.Tuple, ast.List)):
            if isinstance(value, Value) or not hasattr(value, "__len__"):
                raise self.error("only a Python tuple can be unpacked", node)
            if len(value) != len(target.elts):
                raise self.error(f"unpacking {len(value)} values into "
                                 f"{len(target.elts)} names", node)
            for element, item in zip(target.elts, value):
                self.assign(element, item, node)
        else:
            raise self.error("only names, tuples and slices can be assigned "
                             "to", target)

    def is_var(self, node):
        return isinstance(node, ast.Name) and isinstance(
            self.locals.get(node.id), _Var)

    def assign_part(self, target, whole, key, op, value, node):
        """`t[key] [op]= value` on a tile var `t` whose value `whole` was
        read: that part of it replaced (the language's tile.insert_slice,
        constant indices)."""
        self.pos = _pos(target)
        if whole.kind != "tile":
            raise self.error(f"'{target.value.id}' is a scalar var; only "
                             "tiles and tensors can be indexed", target)
        indices = self.tile_indices(whole, key)
        self.pos = _pos(node)
        self.c.assign_part((target.value.id, _pos(target.value), None, 0),
                           indices, op or "", _pos(node), self.to_id(value),
                           _pos(node), whole.id)
        self.var_writes += 1

    def assign_name(self, target, value, node):
        name = target.id
        binding = self.locals.get(name)
        if isinstance(binding, _Index):
            raise self.error(f"cannot assign to loop index '{name}'", target)
        if name in self.scalars:
            raise self.error(f"cannot assign to scalar parameter '{name}'",
                             target)
        if name in self.params:
            raise self.error(f"cannot assign to tensor parameter '{name}'; "
                             f"store into a slice of it: {name}[a:b] = value",
                             target)
        is_ir = isinstance(value, Value) or (
            _is_number(value) and name in self.mutable)
        if isinstance(binding, _Var):
            if not (isinstance(value, Value) or _is_number(value)):
                raise self.error(f"'{name}' holds a value of the kernel; it "
                                 f"cannot hold {type(value).__name__}", node)
            self.c.assign(name, _pos(target), "", _pos(node),
                          self.to_id(value), _pos(node))
            self.var_writes += 1
            return
        if not is_ir or self.inline_depth:
            if self.inline_depth and self.c.depth > self.inline_entry[-1]:
                raise self.error(
                    "a helper function cannot assign names inside its own "
                    "loops or ifs; write those in the kernel", target)
            self.locals[name] = value
            return
        self.declare(name, target, value, None, _pos(target))

    def declare(self, name, target, value, type, type_pos):
        """Declares `name` a var in the block that holds all its uses."""
        homes = self.homes.get(name, ())
        depth = self.c.depth
        for body in reversed(self.bodies):
            if id(body.stmts) in homes:
                depth = body.depth
                break
        here = depth >= self.c.depth
        init = self.to_id(value) if value is not None and here else None
        if type is None and not here:
            if not isinstance(value, Value) or value.kind not in (
                    "scalar", "tile"):
                lit = dtypes.f32 if isinstance(value, float) else (
                    dtypes.i1 if isinstance(value, bool) else dtypes.i32)
                type = (lit.name, [])
            else:
                type = (value.dtype.name, list(value.shape))
        self.c.declare_var(name, _pos(target), type, init, type_pos,
                           min(depth, self.c.depth))
        self.locals[name] = _Var(name, min(depth, self.c.depth))
        if not here and value is not None:
            self.c.assign(name, _pos(target), "", self.pos,
                          self.to_id(value), self.pos)

    def end_block(self):
        self.c.end_block()
        self.open_blocks.pop()
        depth = self.c.depth
        for name, binding in list(self.locals.items()):
            if isinstance(binding, (_Var, _Index)) and binding.depth > depth:
                del self.locals[name]

    def stmt_For(self, node):
        if node.orelse:
            raise self.error("a for loop in a kernel has no else", node)
        iterable = node.iter
        if isinstance(iterable, ast.Call):
            func = self.expr(iterable.func)
            loop = getattr(func, "__tile_loop__", None)
            if func is builtins.range:
                loop = "static"
            if loop == "static":
                args = [self.expr(a) for a in iterable.args]
                kwargs = {k.arg: self.expr(k.value)
                          for k in iterable.keywords}
                for arg in args + list(kwargs.values()):
                    if not isinstance(arg, int) or isinstance(arg, bool):
                        raise self.error(
                            "the bounds of an unrolled loop (range, "
                            "tile.range_constexpr) must be Python integers; "
                            "use tile.range for a loop the kernel runs",
                            iterable)
                self.unrolled(node, builtins.range(*args, **kwargs))
                return
            if loop == "traced":
                self.traced_for(node, node.target, iterable, node.body)
                return
        items = self.expr(iterable)
        if isinstance(items, Value):
            raise self.error("a value of the kernel cannot be iterated over; "
                             "use tile.range(start, stop, step)", iterable)
        self.unrolled(node, items)

    def unrolled(self, node, items):
        for item in items:
            self.assign(node.target, item, node)
            self.walk_body(node.body)

    def traced_for(self, node, target, call, body):
        if not isinstance(target, ast.Name):
            raise self.error("the index of a tile.range loop is one name",
                             target)
        if call.keywords:
            raise self.error("tile.range takes (stop), (start, stop) or "
                             "(start, stop, step)", call)
        # The start, an integer literal, is made an index before the stop
        # is evaluated, as the .tile front end does (the step stays a
        # literal, whose sign the builder checks).
        args = []
        for arg in call.args:
            value = self.expr(arg)
            if not args and len(call.args) > 1 and (
                    isinstance(value, Value) and value.kind == "int" or (
                        isinstance(value, int) and
                        not isinstance(value, bool))):
                self.pos = _pos(node)
                value = self.cast(dtypes.index, value)
            args.append(value)
        if not 1 <= len(args) <= 3:
            raise self.error(f"tile.range takes 1 to 3 arguments, got "
                             f"{len(args)}", call)
        if len(args) == 1:
            args = [0] + args
        self.pos = _pos(node)
        ids = [self.to_id(a) for a in args]
        step = ids[2] if len(ids) == 3 else None
        name = target.id
        if name in self.locals:
            raise self.error(f"loop index '{name}' is already a name of the "
                             "kernel", target)
        index = self.c.begin_for(name, _pos(target), ids[0], ids[1], step,
                                 _pos(node))
        self._open_block()
        self.locals[name] = _Index(Value(self, index), self.c.depth)
        try:
            self.walk_body(body)
        finally:
            self.end_block()

    def stmt_With(self, node):
        if len(node.items) != 1:
            raise self.error("a kernel's with statement has one item", node)
        item = node.items[0]
        call = item.context_expr
        if isinstance(call, ast.Call):
            func = self.expr(call.func)
            if getattr(func, "__tile_loop__", None) == "traced":
                if item.optional_vars is None:
                    raise self.error("name the loop index: with "
                                     "tile.for_range(0, n) as i:", node)
                self.traced_for(node, item.optional_vars, call, node.body)
                return
        raise self.error("the only with statement of a kernel is a loop: "
                         "with tile.for_range(start, stop, step) as i:", node)

    def stmt_If(self, node):
        test = self.expr(node.test)
        if not isinstance(test, Value):
            self.walk_body(node.body if test else node.orelse)
            return
        self.pos = _pos(node)
        self.c.begin_if(test.id, bool(node.orelse), _pos(node))
        self._open_block()
        try:
            self.walk_body(node.body)
            if node.orelse:
                self._drop_block_bindings()
                self.c.begin_else()
                self.open_blocks[-1] = self.block_count = self.block_count + 1
                self.walk_body(node.orelse)
        finally:
            self.end_block()

    def _drop_block_bindings(self):
        depth = self.c.depth
        for name, binding in list(self.locals.items()):
            if isinstance(binding, (_Var, _Index)) and binding.depth >= depth:
                del self.locals[name]

    def stmt_While(self, node):
        if node.orelse:
            raise self.error("a while loop in a kernel has no else", node)
        if not self.is_traced(node.test):
            for _ in builtins.range(100000):
                if not self.expr(node.test):
                    return
                self.walk_body(node.body)
            raise self.error("a while loop Python unrolls ran 100000 times; "
                             "does it end?", node)
        self.c.begin_while(_pos(node))
        self._open_block()
        try:
            test = self.expr(node.test)
            if not isinstance(test, Value):
                raise self.error("the condition of this while loop does not "
                                 "depend on the kernel's values; Python "
                                 "cannot decide it either", node.test)
            self.pos = _pos(node.test)
            self.c.begin_while_body(self.to_id(test), _pos(node.test))
            # The body is a block of its own, after the condition's.
            self.open_blocks[-1] = self.block_count = self.block_count + 1
            self.walk_body(node.body)
        finally:
            self.end_block()

    def is_traced(self, node):
        """Whether evaluating `node` may involve the kernel's values."""
        for sub in ast.walk(node):
            if isinstance(sub, ast.Name):
                binding = self.locals.get(sub.id)
                if isinstance(binding, (_Var, _Index, Value)):
                    return True
                if sub.id in self.params or sub.id in self.symbols or \
                        sub.id in self.scalars:
                    return True
            if isinstance(sub, ast.Call):
                return True
        return False

    def stmt_Break(self, node):
        raise self.error("break is not supported in a kernel", node)

    def stmt_Continue(self, node):
        raise self.error("continue is not supported in a kernel", node)

    # ---- expressions ------------------------------------------------------

    def expr(self, node):
        method = getattr(self, "expr_" + type(node).__name__, None)
        if method is None:
            raise self.error(f"'{type(node).__name__}' expressions are not "
                             "supported in a kernel", node)
        saved = self.pos
        self.pos = _pos(node)
        try:
            return method(node)
        finally:
            self.pos = saved

    def expr_Constant(self, node):
        return node.value

    def expr_Tuple(self, node):
        return tuple(self.expr(e) for e in node.elts)

    def expr_List(self, node):
        return [self.expr(e) for e in node.elts]

    def expr_Dict(self, node):
        return {self.expr(k): self.expr(v)
                for k, v in zip(node.keys, node.values)}

    def expr_Name(self, node):
        name = node.id
        binding = self.locals.get(name, self)
        if binding is not self:
            if isinstance(binding, _Var):
                return Value(self, self.c.name(name, _pos(node)))
            if isinstance(binding, _Index):
                return binding.value
            return binding
        if name in self.params:
            return self.params[name]
        if name in self.scalars:
            return Value(self, self.c.name(name, _pos(node)))
        if name in self.symbols:
            return self.symbol_value(name)
        return self.kernel.lookup_global(name, node, self)

    def symbol_value(self, name):
        return Value(self, self.c.name(name, self.pos))

    def size_value(self, dim):
        """A symbolic dimension's value: a symbol's, or an expression's
        ("2 * H", which the compiler has checked) from its symbols'."""
        if dim.isidentifier():
            return self.symbol_value(dim)

        def value(node):
            if isinstance(node, ast.Constant):
                return node.value
            if isinstance(node, ast.Name):
                return self.symbol_value(node.id)
            if isinstance(node, ast.UnaryOp):
                return 0 - value(node.operand)
            left, right = value(node.left), value(node.right)
            if isinstance(node.op, ast.Add):
                return left + right
            return left - right if isinstance(node.op, ast.Sub) else \
                left * right
        return value(ast.parse(dim, mode="eval").body)

    def expr_Attribute(self, node):
        obj = self.expr(node.value)
        self.pos = _pos(node)
        try:
            return getattr(obj, node.attr)
        except AttributeError:
            hint = ""
            if getattr(obj, "__name__", None) == "tile":  # tile.relu
                hint = _tile.suggest_builtin(node.attr)
            raise self.error(f"{self.describe(obj)} has no attribute "
                             f"'{node.attr}'{hint}", node) from None

    def describe(self, obj):
        if isinstance(obj, Value):
            return repr(obj)
        return f"a {type(obj).__name__}"

    def expr_BinOp(self, node):
        lhs = self.expr(node.left)
        rhs = self.expr(node.right)
        self.pos = _pos(node)
        return self.binary(self.operator(node), lhs, rhs)

    def expr_UnaryOp(self, node):
        operand = self.expr(node.operand)
        self.pos = _pos(node)
        if isinstance(node.op, ast.Not):
            return self.unary("not", operand)
        if isinstance(node.op, ast.USub):
            return self.unary("-", operand)
        if isinstance(node.op, ast.Invert):
            return self.unary("~", operand)
        return operand

    def expr_BoolOp(self, node):
        op = "and" if isinstance(node.op, ast.And) else "or"
        result = self.expr(node.values[0])
        for value_node in node.values[1:]:
            if not isinstance(result, Value):
                # Python's own short-circuit on Python values.
                if (op == "and") != bool(result):
                    return result
                result = self.expr(value_node)
                continue
            other = self.expr(value_node)
            self.pos = _pos(node)
            result = self.binary(op, result, other)
        return result

    def expr_Compare(self, node):
        result = None
        lhs = self.expr(node.left)
        for op, right in zip(node.ops, node.comparators):
            rhs = self.expr(right)
            self.pos = _pos(node)
            if type(op) not in _OPS:
                if isinstance(lhs, Value) or isinstance(rhs, Value):
                    raise self.error("only < <= > >= == != compare values "
                                     "of a kernel", node)
                part = {ast.Is: lambda a, b: a is b,
                        ast.IsNot: lambda a, b: a is not b,
                        ast.In: lambda a, b: a in b,
                        ast.NotIn: lambda a, b: a not in b}[type(op)](lhs, rhs)
            else:
                part = self.binary(_OPS[type(op)], lhs, rhs)
            result = part if result is None else self.binary(
                "and", result, part)
            lhs = rhs
        return result

    def expr_IfExp(self, node):
        test = self.expr(node.test)
        if not isinstance(test, Value):
            return self.expr(node.body if test else node.orelse)
        a = self.expr(node.body)
        b = self.expr(node.orelse)
        self.pos = _pos(node)
        return self.builtin("where", [test, a, b])

    def expr_Lambda(self, node):
        return InlineFunction(self, node, dict(self.locals))

    def expr_Call(self, node):
        func = self.expr(node.func)
        args = []
        positional = list(node.args)
        # load(X[...], ...), store(Y[...], ...): the slice itself; copy's
        # sides, slices of tensors and parts of buffers, as places.
        places = 2 if getattr(func, "__tile_copy_sides__", False) else \
            1 if getattr(func, "__tile_slice_arg__", False) else 0
        for i, arg in enumerate(positional):
            if isinstance(arg, ast.Starred):
                args.extend(self.expr(arg.value))
            elif i < places:
                args.append(self.place(arg, parts=places == 2))
            else:
                args.append(self.expr(arg))
        kwargs = {}
        for keyword in node.keywords:
            if keyword.arg is None:
                kwargs.update(self.expr(keyword.value))
            elif places == 2 and keyword.arg in ("src", "dst"):
                kwargs[keyword.arg] = self.place(keyword.value, parts=True)
            else:
                kwargs[keyword.arg] = self.expr(keyword.value)
        self.pos = _pos(node)
        if func in _PY_BUILTINS:
            return _PY_BUILTINS[func](self, args, kwargs)
        if _is_numpy(func) and any(isinstance(arg, Value) for arg in
                                   (*args, *kwargs.values())):
            raise self.error(_numpy_on_values(func), node)
        try:
            return func(*args, **kwargs)
        except (CompileError, _Return):
            raise
        except Error as error:
            raise self.error(str(error), node) from None
        except TypeError as error:
            raise self.error(str(error), node) from None

    def place(self, node, parts):
        """An argument that names memory rather than a value read from it:
        `X[a:b, ...]` of a tensor parameter is its SliceRef and, with
        `parts`, `buf[...]` of a buffer or a stage the part
        (`__tile_part__`); anything else is the expression's value."""
        if not isinstance(node, ast.Subscript):
            return self.expr(node)
        saved = self.pos
        obj = self.expr(node.value)
        self.pos = _pos(node)
        try:
            if isinstance(obj, TensorParam):
                return SliceRef(obj, self.tensor_ranges(obj, node.slice,
                                                        node), _pos(node))
            if parts and hasattr(obj, "__tile_part__"):
                return obj.__tile_part__(self.subscript_key(node.slice))
            return self.subscript(obj, node)
        finally:
            self.pos = saved

    def expr_Subscript(self, node):
        return self.subscript(self.expr(node.value), node)

    def subscript(self, obj, node):
        """`obj[...]` read, `obj` the value of `node.value`."""
        self.pos = _pos(node)
        if isinstance(obj, TensorParam):
            return self.tensor_subscript(obj, node.slice, node)
        if isinstance(obj, Value):
            return self.subscript_value(obj, self.subscript_key(node.slice))
        key = self.subscript_key(node.slice)
        if hasattr(obj, "__tile_getitem__"):
            return obj.__tile_getitem__(key)
        try:
            return obj[key]
        except (TypeError, IndexError, KeyError) as error:
            raise self.error(str(error), node) from None

    def subscript_key(self, node):
        if isinstance(node, ast.Slice):
            return slice(*(self.expr(n) if n is not None else None
                           for n in (node.lower, node.upper, node.step)))
        if isinstance(node, ast.Tuple):
            return tuple(self.subscript_key(e) for e in node.elts)
        return self.expr(node)

    # ---- inline functions -------------------------------------------------

    def call_inline(self, function, args, kwargs):
        node = function.node
        params = node.args
        names = [a.arg for a in params.posonlyargs + params.args]
        defaults = [self.expr(d) for d in params.defaults]
        bound = dict(zip(names[len(names) - len(defaults):], defaults))
        if len(args) > len(names):
            raise self.error(f"too many arguments: {len(args)} for "
                             f"{len(names)}", node)
        bound.update(zip(names, args))
        for key, value in kwargs.items():
            if key not in names:
                raise self.error(f"unexpected argument '{key}'", node)
            bound[key] = value
        missing = [n for n in names if n not in bound]
        if missing:
            raise self.error(f"missing argument '{missing[0]}'", node)
        if function in self.inline_calls:
            raise self.error(f"'{node.name}' calls itself: recursion is not "
                             "supported (a function defined in a kernel is "
                             "inlined at each call)", node)
        saved = self.locals
        self.locals = dict(function.scope)
        self.locals.update(self._visible(saved))
        self.locals.update(bound)
        self.inline_depth += 1
        self.inline_calls.append(function)
        self.inline_entry.append(self.c.depth)
        try:
            if isinstance(node, ast.Lambda):
                return self.expr(node.body)
            try:
                self.walk_body(node.body)
            except _Return as result:
                return result.value
            return None
        finally:
            self.inline_depth -= 1
            self.inline_calls.pop()
            self.inline_entry.pop()
            self.locals = saved

    def _visible(self, scope):
        return {k: v for k, v in scope.items() if isinstance(v, (_Var, _Index))}

    # ---- values -----------------------------------------------------------

    def to_id(self, value):
        if isinstance(value, Value):
            return value.id
        if hasattr(value, "__tile_value__"):  # a buffer or a stage: read
            return value.__tile_value__().id
        if hasattr(value, "slice_start"):  # a per-thread ThreadIndex
            return value.value().id
        if isinstance(value, bool):
            return self.c.bool_(value, self.pos)
        if isinstance(value, int):
            if not -2**63 <= value < 2**63:
                raise CompileError(self.located(
                    f"integer {value} does not fit in 64 bits"))
            return self.c.int_(value, self.pos)
        if isinstance(value, float):
            return self.c.float_(value, self.pos)
        raise CompileError(self.located(
            f"{self.describe(value)} is not a value the kernel can use"))

    def value(self, id):
        return Value(self, id)

    def binary(self, op, lhs, rhs):
        lhs, rhs = (x.__tile_value__() if hasattr(x, "__tile_value__") else x
                    for x in (lhs, rhs))
        if not isinstance(lhs, Value) and not isinstance(rhs, Value) or (
                hasattr(lhs, "slice_start") or hasattr(rhs, "slice_start")):
            try:
                return _PY_OPS[op](lhs, rhs)
            except Exception as error:
                raise CompileError(self.located(str(error))) from None
        if op == "@":
            return self.builtin("dot", [lhs, rhs])
        if op == "**":
            # x ** 2 is a product, exact as pow is not; other powers pow.
            if isinstance(rhs, (int, float)) and not isinstance(rhs, bool) \
                    and rhs == 2 and isinstance(lhs, Value):
                return self.binary("*", lhs, lhs)
            return self.builtin("pow", [lhs, rhs])
        if op == "//":
            if self._is_float(lhs) or self._is_float(rhs):
                return self.builtin("floor", [self.binary("/", lhs, rhs)])
            op = "/"
        elif op == "/" and not (self._is_float(lhs) or self._is_float(rhs)):
            raise CompileError(self.located(
                "'/' of integers: use '//' (which rounds toward zero in a "
                "kernel, as in C and Triton) or convert to a float first"))
        return Value(self, self.c.binary(op, self.to_id(lhs),
                                         self.to_id(rhs), self.pos))

    def _is_float(self, x):
        if isinstance(x, Value):
            return x.kind == "float" or (
                x.dtype is not None and x.dtype in (dtypes.f32, dtypes.f16,
                                                    dtypes.bf16))
        return isinstance(x, float)

    def unary(self, op, operand):
        if not isinstance(operand, Value):
            try:
                return {"not": lambda x: not x, "-": lambda x: -x,
                        "~": lambda x: ~x}[op](operand)
            except Exception as error:
                raise CompileError(self.located(str(error))) from None
        return Value(self, self.c.unary(op, operand.id, self.pos))

    def call_with(self, callee, args, statement=False):
        """A builtin whose arguments are more than values: each is
        ("value"|"int"|"ints"|"slice", name, payload)."""
        items = []
        for kind, name, payload in args:
            if kind == "value":
                payload = self.to_id(payload)
            elif kind == "slice":
                pos = payload.pos
                payload = (payload.tensor.name, payload.tensor.pos,
                           payload.ranges)
                items.append((kind, name, pos, payload))
                continue
            items.append((kind, name, self.pos, payload))
        result = self.c.call_with(callee, items, self.pos, statement)
        return None if result is None else Value(self, result)

    def builtin(self, name, args):
        return Value(self, self.c.call(name, [self.to_id(a) for a in args],
                                       self.pos))

    def cast(self, dtype, value):
        if not isinstance(value, Value):
            value = Value(self, self.to_id(value))
        return Value(self, self.c.call(dtype.name, [value.id], self.pos))

    def full(self, shape, dtype, fill):
        if isinstance(shape, int):
            shape = (shape,)
        shape = list(shape)
        for size in shape:
            if not isinstance(size, int) or isinstance(size, bool):
                raise CompileError(self.located(
                    f"a tile's shape holds Python integers, got {shape!r}"))
        if not _is_number(fill):
            raise CompileError(self.located(
                "the fill value of a tile is a Python number"))
        return Value(self, self.c.full(shape, dtype.name, self.to_id(fill),
                                       self.pos))

    def context(self, field, dim=0):
        return Value(self, self.c.context(field, dim, self.pos))

    def subscript_value(self, value, key):
        """`t[i, j]`, `t[a:b, ...]` of a tile value, as `.tile` has them:
        an element (a scalar every thread has) or a sub-tile, constant
        indices."""
        return Value(self, self.c.index(value.id,
                                        self.tile_indices(value, key),
                                        self.pos))

    def tile_indices(self, value, key):
        """The (start, extent or None) ids of `t[key]` on a tile value:
        `:` is the whole dimension, `a:b` constant bounds."""
        key = key if isinstance(key, tuple) else (key,)
        indices = []
        for dim, index in enumerate(key):
            if not isinstance(index, slice):
                indices.append((self.to_id(index), None))
                continue
            start = 0 if index.start is None else index.start
            stop = index.stop
            if stop is None and dim < value.ndim:
                stop = value.shape[dim]
            if index.step is not None or not all(
                    isinstance(x, int) and not isinstance(x, bool)
                    for x in (start, stop)):
                raise CompileError(self.located(
                    "a slice of a tile has constant bounds, start:stop"))
            indices.append((self.to_id(start), self.to_id(stop - start)))
        return indices

    # ---- slices of tensors ------------------------------------------------

    def tensor_ranges(self, tensor, key_node, node):
        """The access `tensor[key]` (an _Access) for a key in the kernel's
        source."""
        elements = key_node.elts if isinstance(key_node, ast.Tuple) else [
            key_node]
        if len(elements) != tensor.ndim:
            raise self.error(
                f"'{tensor.name}' has {tensor.ndim} "
                f"dimension{'s' if tensor.ndim != 1 else ''} but the slice "
                f"has {len(elements)}", node or key_node)
        entries = []
        for dim, element in enumerate(elements):
            if not isinstance(element, ast.Slice):
                self.pos = _pos(element)
                entries.append(("index", self.start_index(self.expr(element)),
                                _pos(element)))
                continue
            if element.step is not None:
                raise self.error("a slice of a tensor has no step", element)
            size = tensor.spec.shape[dim]
            lower = element.lower
            if element.upper is None:
                if not isinstance(size, int):
                    raise self.error(
                        f"dimension {dim} of '{tensor.name}' is the symbol "
                        f"{size}: its slice needs a constant extent, "
                        "start:start + N", element)
                start = self.expr(lower) if lower is not None else 0
                if isinstance(start, Value) or start != 0:
                    raise self.error(
                        "a slice to the end of a dimension starts at 0; "
                        "write start:start + N", element)
                extent = size
            else:
                start = self.expr(lower) if lower is not None else 0
                extent = self.extent(lower, element.upper)
                if extent is None:
                    raise self.error(
                        "a slice extent must be a compile-time constant: "
                        "write start:start + N", element)
            entries.append(("range", (self.start_index(start), extent),
                            _pos(element)))
        return self.access(tensor, entries,
                           _pos(node or key_node))

    def start_index(self, start):
        """A literal slice start as the index constant, emitted where the
        slice is evaluated, as .tile emits it (not where the builtin that
        takes the slice is called); a uniform i32 converted to an index (as
        numpy takes any integer); any other start as it is."""
        if isinstance(start, int) and not isinstance(start, bool):
            return self.cast(dtypes.index, start)
        if isinstance(start, Value) and start.kind == "scalar" and \
                start.dtype == dtypes.i32:
            return self.cast(dtypes.index, start)
        return start

    def python_ranges(self, tensor, key):
        """The access `tensor[key]` for a key Python code computed."""
        key = key if isinstance(key, tuple) else (key,)
        if len(key) != tensor.ndim:
            raise CompileError(self.located(
                f"'{tensor.name}' has {tensor.ndim} dimension(s) but the "
                f"index has {len(key)}"))
        entries = []
        for dim, index in enumerate(key):
            if not isinstance(index, slice):
                entries.append(("index", index, self.pos))
                continue
            start = 0 if index.start is None else index.start
            stop = tensor.spec.shape[dim] if index.stop is None else \
                index.stop
            if index.step is not None or not all(
                    isinstance(x, int) and not isinstance(x, bool)
                    for x in (start, stop)):
                raise CompileError(self.located(
                    f"a slice of '{tensor.name}' in Python code the kernel "
                    "calls has integer bounds; write slices with a computed "
                    "start in the kernel's own source"))
            entries.append(("range", (start, stop - start), self.pos))
        return self.access(tensor, entries, self.pos)

    def per_thread_lanes(self, index):
        """The lanes of a per-thread index (a thread index, or a 1-D i32
        tile: one index a lane), or None for any other index."""
        if hasattr(index, "slice_start"):
            return index.lanes
        if isinstance(index, Value) and index.kind == "tile" and \
                index.ndim == 1:
            if index.dtype != dtypes.i32:
                raise CompileError(self.located(
                    f"a per-thread index is an i32 value, got {index!r}"))
            return index.shape[0]
        return None

    def access(self, tensor, entries, pos):
        """The ranges of a slice whose dimensions are `entries`: ("range",
        (start, extent), pos) or ("index", index, pos).

        A single uniform index is a slice of extent 1 in its dimension; an
        i32 tile of the tensor's rank gives the coordinates of its
        dimension, elementwise (the language's gathers and scatters).
        Per-thread indices (one index a lane: base + k * thread_id(), or a
        1-D i32 tile, the per-thread value) make the slice one element a
        lane in the dimension of the first of them, `dim`: one index
        base + thread_id() is the slice base :+ lanes, read by each thread
        at its own offset; any other is a gather (scatter) whose index tile
        holds the lane's coordinate in `dim`. Slices beside them keep their
        extents: X[tid, 0:64] is [lanes, 64]."""
        rank = len(entries)
        threads = []
        for dim, (kind, index, at) in enumerate(entries):
            if kind == "index":
                self.pos = at
                lanes = self.per_thread_lanes(index)
                if lanes is not None:
                    threads.append((dim, lanes))
        lanes = dim = None
        if threads:
            counts = sorted({n for _, n in threads})
            if len(counts) > 1:
                raise CompileError(self.located(
                    f"'{tensor.name}' is indexed per thread with indices of "
                    f"{' and '.join(map(str, counts))} lanes; one access has "
                    "one index a lane", pos))
            dim, lanes = threads[0]
        per_thread = {d for d, _ in threads}
        size = tensor.spec.shape[dim] if threads else None
        contiguous = len(threads) == 1 and hasattr(
            entries[dim][1], "slice_start") and \
            entries[dim][1].scale == 1 and \
            (not isinstance(size, int) or lanes <= size)
        ranges, one_per_lane, tiles = [], True, False
        for d, (kind, index, at) in enumerate(entries):
            self.pos = at
            if kind == "range":
                start, extent = index
                ranges.append((self.to_id(start), self.to_id(extent)))
                one_per_lane = one_per_lane and extent == 1
            elif d in per_thread and contiguous:
                ranges.append((self.to_id(index.slice_start()),
                               self.to_id(lanes)))
            elif d in per_thread:
                coords = self.value_of(index)
                if rank != 1:
                    shape = [1] * rank
                    shape[dim] = lanes
                    coords = self.reshape(coords, shape)
                ranges.append((coords.id, None))
            elif isinstance(index, Value) and index.kind == "tile":
                # The language's gather: the coordinates of this dimension.
                ranges.append((index.id, None))
                tiles = True
            else:
                ranges.append((self.to_id(index), None))
        self.pos = pos
        element = not threads and not tiles and all(
            kind == "index" for kind, _, _ in entries)
        return _Access(ranges, element, lanes, dim,
                       lanes is not None and one_per_lane and not tiles)

    def reshape(self, value, shape):
        return self.call_with("reshape", [("value", "", value),
                                          ("ints", "", list(shape))])

    def iota(self, shape, axis):
        return self.call_with("iota", [("ints", "", list(shape)),
                                       ("int", "", axis)])

    def extent(self, lower, upper):
        """upper - lower when it is a constant, from their linear forms."""
        lo = self.linear(lower) if lower is not None else ({}, 0)
        hi = self.linear(upper)
        if lo is None or hi is None:
            return None
        terms = dict(hi[0])
        for key, coefficient in lo[0].items():
            terms[key] = terms.get(key, 0) - coefficient
        if any(terms.values()):
            return None
        return hi[1] - lo[1]

    def linear(self, node):
        """`node` as ({term: coefficient}, constant), terms named by their
        source, or None; Python integers it names are constants."""
        if isinstance(node, ast.Constant):
            if isinstance(node.value, int) and not isinstance(node.value,
                                                              bool):
                return {}, node.value
            return None
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            inner = self.linear(node.operand)
            if inner is None:
                return None
            return {k: -v for k, v in inner[0].items()}, -inner[1]
        if isinstance(node, ast.BinOp) and isinstance(node.op,
                                                      (ast.Add, ast.Sub)):
            a, b = self.linear(node.left), self.linear(node.right)
            if a is None or b is None:
                return None
            sign = 1 if isinstance(node.op, ast.Add) else -1
            terms = dict(a[0])
            for key, coefficient in b[0].items():
                terms[key] = terms.get(key, 0) + sign * coefficient
            return terms, a[1] + sign * b[1]
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mult):
            a, b = self.linear(node.left), self.linear(node.right)
            if a is None or b is None:
                return None
            if not a[0]:
                return {k: a[1] * v for k, v in b[0].items()}, a[1] * b[1]
            if not b[0]:
                return {k: b[1] * v for k, v in a[0].items()}, a[1] * b[1]
        if isinstance(node, ast.Name):
            binding = self.locals.get(node.id)
            if isinstance(binding, int) and not isinstance(binding, bool):
                return {}, binding
            if binding is None and node.id not in self.params and \
                    node.id not in self.symbols and \
                    node.id not in self.scalars:
                known = self.kernel.peek_global(node.id)
                if isinstance(known, int) and not isinstance(known, bool):
                    return {}, known
        return {ast.dump(node): 1}, 0

    def tensor_subscript(self, tensor, key_node, node):
        if not isinstance(key_node, ast.AST):
            raise CompileError(self.located(
                f"slice '{tensor.name}' in the kernel's own source"))
        ranges = self.tensor_ranges(tensor, key_node, node)
        pos = _pos(node) if node is not None else self.pos
        self.pos = pos
        value = Value(self, self.c.load(tensor.name, tensor.pos, ranges, pos))
        return self.loaded(value, ranges)

    def loaded(self, value, ranges):
        """The tile a slice read as the front end gives it: an element as
        the scalar, a per-thread access as the [lanes] per-thread value."""
        if getattr(ranges, "element", False):
            zero = self.to_id(0)
            return Value(self, self.c.index(value.id,
                                            [(zero, None)] * value.ndim,
                                            self.pos))
        if getattr(ranges, "one_per_lane", False) and value.ndim != 1:
            return self.reshape(value, [ranges.lanes])
        return value

    def lane_shaped(self, value, ranges):
        """`value` for a slice of one element a lane: a [lanes] per-thread
        value in the slice's shape; anything else as it is."""
        if not getattr(ranges, "one_per_lane", False) or len(ranges) == 1:
            return value
        value = self.value_of(value)
        if value.kind == "tile" and value.shape == (ranges.lanes,):
            return self.reshape(value, ranges.lane_shape())
        return value

    def store_slice(self, slice_id, value, pos):
        """Stores `value` to a prepared slice (a per-thread value to a
        per-thread access in the slice's shape)."""
        value = self.lane_shaped(value, self.slice_ranges[slice_id])
        self.c.store_slice(slice_id, self.to_id(value), pos)

    def load_slice(self, slice_id, pos):
        value = Value(self, self.c.load_slice(slice_id, pos))
        return self.loaded(value, self.slice_ranges[slice_id])

    def value_of(self, value):
        if isinstance(value, Value):
            return value
        if hasattr(value, "slice_start"):
            return value.value()
        return Value(self, self.to_id(value))

    def prepare_slice(self, tensor, key_node, target):
        ranges = self.tensor_ranges(tensor, key_node, target)
        return self.prepare_ranges(tensor, ranges, _pos(target.value),
                                   _pos(target))

    def prepare_ranges(self, tensor, ranges, tensor_pos, pos):
        slice_id = self.c.prepare_slice(tensor.name, tensor_pos, ranges, pos)
        self.slice_ranges[slice_id] = ranges
        return slice_id


def _py_abs(fe, args, kwargs):
    if len(args) == 1 and isinstance(args[0], Value):
        return fe.builtin("abs", args)
    return builtins.abs(*args, **kwargs)


def _py_minmax(name):
    def call(fe, args, kwargs):
        if any(isinstance(a, Value) for a in args):
            if len(args) != 2 or kwargs:
                raise CompileError(fe.located(
                    f"{name}(a, b) of kernel values takes two arguments"))
            return fe.builtin(name, args)
        return getattr(builtins, name)(*args, **kwargs)
    return call


def _py_conversion(kind):
    def call(fe, args, kwargs):
        if any(isinstance(a, Value) for a in args):
            raise CompileError(fe.located(
                f"{kind.__name__}() of a kernel value: convert with "
                "tile.f32(x), tile.i32(x) or x.astype(dtype)"))
        return kind(*args, **kwargs)
    return call


_PY_BUILTINS = {
    builtins.abs: _py_abs,
    builtins.min: _py_minmax("min"),
    builtins.max: _py_minmax("max"),
    builtins.int: _py_conversion(int),
    builtins.float: _py_conversion(float),
    builtins.bool: _py_conversion(bool),
}


def _is_numpy(func):
    """A function of numpy (np.exp, a ufunc, np.sum)."""
    module = getattr(func, "__module__", None) or type(func).__module__
    return isinstance(module, str) and module.split(".")[0] == "numpy"


def _numpy_on_values(func):
    """The error of a numpy function called on a kernel's values: numpy runs
    on arrays, the kernel's math is tile's builtins."""
    name = getattr(func, "__name__", repr(func))
    text = f"numpy's '{name}' runs on arrays, not on a kernel's values"
    names = _tile.builtin_names()
    if name in names or name in ("maximum", "minimum"):
        return f"{text}: use tile.{name}"
    return text + (_tile.suggest_builtin(name) or
                   "; the kernel's functions are tile's (tile.BUILTINS)")
