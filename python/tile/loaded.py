"""``tile.load_kernel("k.tile")``: a kernel of a ``.tile`` file, run on
numpy arrays and torch tensors as a ``@tile.kernel`` is, without a Python
twin of it."""

import json
import os

from . import _tile, dtypes
from .errors import Error
from .kernel import bind_keywords, run_compiled


class TileFileKernel:
    """A kernel of a ``.tile`` (or tile-IR ``.mlir``) file, compiled for one
    chip: call it on one array per parameter, in the file's order or by
    name (a scalar parameter takes a Python number); the arrays of the
    parameters it writes receive its results, as for a ``@tile.kernel``.

    * ``name``, ``path``, ``chip``; ``params``: each parameter's name,
      element type, shape (sizes and symbols, as in the manifest) and
      access (``"read"``, ``"write"``, ``"readwrite"``).
    * ``ptx``, ``manifest`` (docs/abi.md), ``mlir(stage)``, ``stages``,
      ``remarks`` (with ``remarks=True``) and ``warnings``, as a
      :class:`tile.CompiledKernel` has them.
    """

    def __init__(self, path, kernel=None, chip="sm_90", fp_div="ieee",
                 remarks=False):
        path = os.fspath(path)
        try:
            with open(path, encoding="utf-8") as f:
                source = f.read()
        except (OSError, UnicodeDecodeError) as error:
            raise Error(f"load_kernel: cannot read {path}: {error}") from None
        if kernel is not None and not isinstance(kernel, str):
            raise Error(f"load_kernel: kernel={kernel!r} is a kernel's name")
        self.path = path
        self.chip = chip
        self.fp_div = fp_div
        self.remarks_requested = bool(remarks)
        self._c = _tile.Compilation(path, source)
        self.name = self._c.load_file(kernel or "", bool(remarks), chip, fp_div)
        # Placement, whose errors are compile errors, and the parameters.
        self._manifest_text = self._c.manifest()
        manifest = self.manifest
        self._access = {p["name"]: p["access"] for p in manifest["params"]}
        self.params = [{"name": p["name"], "dtype": p["dtype"],
                        "shape": p["shape"], "access": p["access"]}
                       for p in manifest["params"]]
        # (name, spec) as run_compiled takes them: a DType is a scalar's.
        self._specs = [(p["name"], dtypes.as_dtype(p["dtype"])
                        if not p["shape"] else p) for p in self.params]
        self.__doc__ = f"The kernel '{self.name}' of {path}."

    def __repr__(self):
        return f"<tile.TileFileKernel {self.name} of {self.path}>"

    def _compilation(self):
        return self._c

    @property
    def manifest(self):
        """The manifest (docs/abi.md) as a dict (a new one each time)."""
        return json.loads(self._manifest_text)

    @property
    def ptx(self):
        """The PTX of the kernel."""
        return self._c.ptx()

    def mlir(self, stage="source", locations=False):
        """The IR after the front end (``"source"``) or after the pass
        ``stage`` of the compile pipeline (``stages`` lists them)."""
        return self._c.ir(stage, locations)

    @property
    def stages(self):
        return self._c.stages()

    @property
    def remarks(self):
        return list(self._c.remarks)

    @property
    def warnings(self):
        return list(self._c.warnings)

    def _bind(self, args, named):
        names = [p["name"] for p in self.params]
        if len(args) > len(names):
            raise Error(f"kernel '{self.name}' takes {len(names)} arrays "
                        f"({', '.join(names)}), got {len(args)}")
        return bind_keywords(self.name, names, dict(zip(names, args)), named)

    def __call__(self, *args, backend="auto", check=True, warmup=3, runs=10,
                 ptx_figures=True, **named):
        """Runs the kernel on the arrays (numpy arrays, torch tensors, any
        ``__dlpack__`` or ``__cuda_array_interface__`` object; a number for
        a scalar parameter), by position or by parameter name. Returns a
        :class:`tile.RunResult`; with ``check=True`` every output is
        compared with the reference interpreter and a difference raises
        :class:`tile.MismatchError`."""
        return run_compiled(self, self._specs, self._bind(args, named),
                            backend, check, warmup, runs, ptx_figures)

    run = __call__


def load_kernel(path, kernel=None, chip="sm_90", fp_div="ieee",
                remarks=False):
    """The kernel of the ``.tile`` file at ``path`` (``kernel``: its name,
    for a file of several), compiled for ``chip`` with f32 division
    ``fp_div`` (``"ieee"`` or ``"full"``), as a :class:`TileFileKernel` to
    call on arrays::

        embedding = tile.load_kernel("examples/embedding.tile")
        embedding(ids, table, out)   # out[i] = table[ids[i]], checked

    A syntax or compile error raises :class:`tile.CompileError`, located in
    the file."""
    return TileFileKernel(path, kernel, chip, fp_div, remarks)
