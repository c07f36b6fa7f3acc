"""``tile.torch_op``: a tile kernel as a PyTorch custom operator.

The op is registered with ``torch.library`` under its qualified name: the
real implementation allocates the outputs by their rules and runs the
kernel on the tensors; the fake (meta) implementation allocates them only,
which is all ``torch.compile`` needs to trace the op into a graph without a
break. torch is imported only when ``torch_op`` is called.
"""

from __future__ import annotations

import inspect
import threading
from typing import Any, Callable, Dict, Optional, Tuple

from . import dtypes
from .errors import Error

# A scalar parameter's type in a torch schema.
_SCHEMA_TYPES = {"f32": "float", "f16": "float", "bf16": "float",
                 "i32": "int", "index": "int"}
OutputRule = Callable[..., Tuple[Tuple[int, ...], Any]]


def torch_op(name: str, kernel, outputs: Dict[str, OutputRule],
             backend: Optional[str] = None,
             consts: Optional[Dict[str, Any]] = None):
    """Registers `kernel` as the torch operator `name` ("namespace::op")
    and returns it (also ``torch.ops.namespace.op``): called on the
    kernel's other parameters (tensors, and Python numbers for scalars), it
    returns the outputs, new tensors (of one output, the tensor itself).

    * ``outputs``: for each parameter the op returns, a rule from the
      inputs (by parameter name) to its ``(shape, dtype)``: ``{"C": lambda
      A, B: ((A.shape[0], B.shape[1]), A.dtype)}``.
    * ``backend``: the kernel's backend; None runs CUDA tensors on
      ``"cuda"`` and CPU tensors on ``"emulate"``.
    * ``consts``: the kernel's ``tile.constexpr`` values (an
      ``@tile.autotune`` kernel chooses them itself).
    """
    import torch

    from .tuning import Autotuned
    base = kernel.kernel if isinstance(kernel, Autotuned) else kernel
    if not isinstance(name, str) or name.count("::") != 1 or \
            not all(name.split("::")):
        raise Error(f"tile.torch_op name {name!r}: expected "
                    "'namespace::name'")
    params = dict(base.params)
    for output in outputs:
        if output not in params or isinstance(params[output], dtypes.DType):
            raise Error(f"tile.torch_op {name}: output '{output}' is not a "
                        f"tensor parameter of kernel '{base.name}'")
        if not callable(outputs[output]):
            raise Error(f"tile.torch_op {name}: the rule of output "
                        f"'{output}' is not callable")
    inputs = [p for p, _ in base.params if p not in outputs]
    for output, rule in outputs.items():
        for arg in inspect.signature(rule).parameters:
            if arg not in inputs:
                raise Error(f"tile.torch_op {name}: the rule of '{output}' "
                            f"takes '{arg}', which is not an input of "
                            f"kernel '{base.name}'")
    schema = _schema(base, inputs, list(outputs))
    op = _Op(name, kernel, base, inputs, outputs, backend, dict(consts or {}))
    custom = torch.library.custom_op(name, op.run, mutates_args=(),
                                     schema=schema)
    custom.register_fake(op.fake)
    return custom


def _schema(kernel, inputs, outputs):
    params = dict(kernel.params)
    args = []
    for name in inputs:
        spec = params[name]
        if isinstance(spec, dtypes.DType):
            args.append(f"{_SCHEMA_TYPES[spec.name]} {name}")
        else:
            args.append(f"Tensor {name}")
    returns = "Tensor" if len(outputs) == 1 else \
        "(" + ", ".join("Tensor" for _ in outputs) + ")"
    return f"({', '.join(args)}) -> {returns}"


class _Op:
    """The implementations of one op."""

    def __init__(self, name, kernel, base, inputs, outputs, backend, consts):
        self.name = name
        self.kernel = kernel
        self.base = base
        self.inputs = inputs
        self.outputs = outputs
        self.backend = backend
        self.consts = consts
        self.checked = set()
        self.lock = threading.Lock()

    def _allocate(self, args, allocate):
        bound = dict(zip(self.inputs, args))
        tensors = [a for a in args if hasattr(a, "new_empty")]
        if not tensors:
            raise Error(f"tile.torch_op {self.name}: no tensor input to "
                        "allocate the outputs like")
        made = {}
        for output, rule in self.outputs.items():
            names = inspect.signature(rule).parameters
            try:
                shape, dtype = rule(**{n: bound[n] for n in names})
            except Error:
                raise
            except Exception as error:
                raise Error(f"tile.torch_op {self.name}: the rule of "
                            f"'{output}' failed: {error}") from error
            made[output] = allocate(tensors[0], tuple(shape), dtype)
        return made

    def fake(self, *args):
        made = self._allocate(args, lambda like, shape, dtype:
                              like.new_empty(shape, dtype=dtype))
        return self._returned(made)

    def run(self, *args):
        made = self._allocate(args, lambda like, shape, dtype:
                              like.new_zeros(shape, dtype=dtype))
        bound = dict(zip(self.inputs, args))
        bound.update(made)
        arrays = [bound[name] for name, _ in self.base.params]
        backend = self.backend or ("cuda" if any(
            getattr(getattr(a, "device", None), "type", "cpu") == "cuda"
            for a in arrays) else "emulate")
        self._check_writes(arrays)
        self.kernel(*arrays, backend=backend, check=False, warmup=0, runs=0,
                    ptx_figures=False, **self.consts)
        return self._returned(made)

    def _check_writes(self, arrays):
        """A torch op must not write its inputs (it declares none mutated):
        checked on the compiled kernel's manifest once per signature."""
        compiled = self.base.compile(*arrays, **self.consts) \
            if not self.base.constexprs or self.consts else None
        if compiled is None or id(compiled) in self.checked:
            return
        for param in compiled.manifest["params"]:
            if param["name"] in self.inputs and param["access"] != "read":
                raise Error(f"tile.torch_op {self.name}: kernel "
                            f"'{self.base.name}' writes '{param['name']}', "
                            "which is an input; make it an output")
        with self.lock:
            self.checked.add(id(compiled))

    def _returned(self, made):
        values = list(made.values())
        return values[0] if len(values) == 1 else tuple(values)
