"""tile: GPU kernels over tiles, written in Python, run on numpy arrays,
torch tensors and any DLPack array.

    import numpy as np
    import tile

    @tile.kernel(threads=256, registers=["acc"])
    def squares(X: tile.tensor(tile.f32, [16, "K"]),
                O: tile.tensor(tile.f32, [16, 64]),
                S: tile.tensor(tile.f32, [16, 1])):
        acc = tile.zeros((16, 64), tile.f32)
        for kt in tile.range(0, X.shape[1], 64):
            x = X[0:16, kt:kt + 64]
            acc += x * x
        O[0:16, 0:64] = acc
        S[0:16, 0:1] = tile.rowsum(acc)

    result = squares(X, O, S)   # on the GPU, else the CPU emulator; checked
    print(result)               # the report of tile-run

The kernel's source is compiled by the C++ compiler (the ``.tile`` front
end's semantics, op by op), located at its Python lines; docs/python.md is
the reference.
"""

__version__ = "0.1.0"

from typing import Any, Callable  # noqa: E402

try:
    from . import _tile
except ImportError:
    # Imported from the source tree (python/ first on sys.path): the
    # extension is in the build tree, next to the links to these sources.
    import os as _os
    _build = _os.environ.get("TILE_BUILD_DIR") or _os.path.join(
        _os.path.dirname(__file__), "..", "..", "build")
    __path__.append(_os.path.join(_build, "python", "tile"))
    from . import _tile
from .errors import (BackendUnavailable, CompileError, Error, KernelFault,
                     MismatchError)

_tile.set_errors(Error, CompileError, BackendUnavailable, KernelFault)

from .dtypes import (DType, TensorSpec, TileType, bf16, f16, f32, i1, i32,  # noqa: E402
                     index, tensor, tile_type)
from .api import (BUILTINS, SPECIAL, atomic_add, atomic_max, dot,  # noqa: E402
                  atomic_min, block_id, cdiv, ctx, fma, for_range, full, inf,
                  iota, lanes, load, maximum, minimum, num_blocks, ones,
                  range, range_constexpr, reshape, static_range, store,
                  where, zeros)
from .threads import (Pipeline, RegisterTensor, SharedBuffer, ThreadIndex,  # noqa: E402
                   barrier, commit_group, copy, num_threads, pipeline,
                   register_tensor, thread_id, threadgroup_alloc, wait_group)
from .kernel import CompiledKernel, Kernel, constexpr  # noqa: E402
from .loaded import TileFileKernel, load_kernel  # noqa: E402
from .result import RunResult  # noqa: E402
from .cache import CacheInfo, cache_info  # noqa: E402
from .tuning import Autotuned, Config, autotune  # noqa: E402
from .torch_ops import torch_op  # noqa: E402

globals().update({name: fn for name, fn in BUILTINS.items()
                  if name not in ("max", "min", "abs") + SPECIAL})
abs = BUILTINS["abs"]  # noqa: A001
max = BUILTINS["max"]  # noqa: A001
min = BUILTINS["min"]  # noqa: A001


def cuda_device() -> "str | None":
    """The name of the CUDA device ``backend="auto"`` would run on, or None
    when there is no driver or no device (then it runs on the emulator)."""
    return _tile.probe_cuda()


def kernel(threads: int, grid=None, registers=(), pipeline=None,
           chip: str = "sm_90") -> "Callable[[Callable[..., Any]], Kernel]":
    """Decorates a function as a tile kernel.

    * ``threads``: threads per CTA, a multiple of 32 from 32 to 1024.
    * ``grid``: the CTAs to launch: an int, a symbol's name, a tuple of
      those, or a lambda over the symbols (``lambda M: tile.cdiv(M, 16)``,
      ``lambda M, N: (M // 16, N // 64)``); default one CTA.
    * ``registers``: names of tile vars to keep in registers (@registers).
    * ``pipeline``: a loop index (or a list of them) to pipeline, or a dict
      ``{"names": ["kt"], "stages": 3}`` (@pipeline).
    * ``chip``: the target of compile() and the cuda backend.

    Parameters annotated ``tile.constexpr`` are compile-time constants,
    given at the call (``kernel(A, B, BM=16)``) or by ``@tile.autotune``.
    """
    def decorate(fn):
        return Kernel(fn, threads, grid=grid, registers=registers,
                      pipeline=pipeline, chip=chip)
    return decorate


__all__ = [
    "Error", "CompileError", "KernelFault", "BackendUnavailable",
    "MismatchError", "DType", "TensorSpec", "f32", "f16", "bf16", "i32",
    "i1", "index", "tensor", "tile_type", "TileType", "kernel", "Kernel", "CompiledKernel",
    "RunResult", "cuda_device", "zeros", "ones", "full", "range", "for_range",
    "range_constexpr", "static_range", "cdiv", "fma", "where", "maximum",
    "minimum", "inf", "iota", "load", "store", "atomic_add", "atomic_max",
    "atomic_min", "reshape", "block_id", "num_blocks", "num_threads", "lanes", "ctx",
    "thread_id", "register_tensor", "threadgroup_alloc", "copy", "barrier",
    "commit_group", "wait_group",
    "pipeline", "Pipeline", "RegisterTensor", "SharedBuffer", "ThreadIndex",
    "constexpr", "Config", "autotune", "Autotuned", "cache_info", "CacheInfo",
    "torch_op", "load_kernel", "TileFileKernel",
] + sorted(BUILTINS)
