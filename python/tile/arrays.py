"""Arrays in: numpy arrays, torch tensors, and any object with ``__dlpack__``
or ``__cuda_array_interface__`` (CuPy, JAX), as the host arrays the
extension reads and writes.

The runtime's buffers are dense and row-major (docs/abi.md), so a
non-contiguous array (a transposed view, a slice with steps) travels as a
contiguous copy, and the copy of a parameter the kernel writes is written
back into the caller's array. An array on a CUDA device travels the same
way, through the host (docs/python.md, "Arrays in"). torch is never
imported here: a tensor can only come from a program that imported it.
"""

from __future__ import annotations

import sys
from typing import Any, Callable, Optional, Tuple

import numpy as np

from .errors import Error

# numpy's element types as tile's (bf16 travels as its uint16 bit patterns).
FROM_NUMPY = {np.dtype(np.float32): "f32", np.dtype(np.float16): "f16",
              np.dtype(np.uint16): "bf16", np.dtype(np.int32): "i32",
              np.dtype(np.bool_): "i1"}
# DLPack's device types (dlpack.h): host memory, and what lives on a GPU.
_DL_CPU, _DL_CUDA_HOST = 1, 3
_KINDS = ("a torch tensor, or any object with __dlpack__ or "
          "__cuda_array_interface__")


def _torch():
    """The torch module when the program imported it, else None."""
    return sys.modules.get("torch")


def is_torch_tensor(value: Any) -> bool:
    torch = _torch()
    return torch is not None and isinstance(value, torch.Tensor)


class HostArray:
    """A parameter's array as the extension takes it: ``array`` (numpy,
    C-contiguous), its tile element type ``dtype`` and, after the run,
    ``finish()`` to hand the results of a written parameter back to the
    caller's array when ``array`` is a copy."""

    def __init__(self, array: np.ndarray, dtype: str,
                 write_back: Optional[Callable[[np.ndarray], None]]):
        self.array = array
        self.dtype = dtype
        self._write_back = write_back

    def finish(self) -> None:
        if self._write_back is not None:
            self._write_back(self.array)


def tile_dtype(name: str, array: np.ndarray) -> str:
    """The tile element type of a host array's, or a tile.Error naming
    the parameter."""
    found = FROM_NUMPY.get(array.dtype)
    if found is None:
        raise Error(f"parameter '{name}': numpy {array.dtype} is not an "
                    "element type of tile (f32 is numpy float32, f16 "
                    "float16, bf16 uint16 bit patterns, i32 int32)")
    return found


def _torch_host_view(name: str, tensor) -> Tuple[np.ndarray, Any]:
    """A CPU tensor's numpy view (its memory), and the tensor on the host
    when it was copied there from a device (else None)."""
    torch = _torch()
    if tensor.dtype not in (torch.float32, torch.float16, torch.bfloat16,
                            torch.int32, torch.bool):
        raise Error(f"parameter '{name}': {tensor.dtype} is not an element "
                    "type of tile (f32 is torch.float32, f16 float16, bf16 "
                    "bfloat16, i32 int32)")
    tensor = tensor.detach()
    moved = None
    if tensor.device.type != "cpu":
        moved = tensor = tensor.to("cpu")
    if tensor.dtype is torch.bfloat16:
        return tensor.view(torch.int16).numpy().view(np.uint16), moved
    return tensor.resolve_conj().resolve_neg().numpy(), moved


def host_array(name: str, value: Any, written: bool) -> HostArray:
    """`value` (the argument of parameter `name`) as a contiguous host
    array; `written` when the kernel writes the parameter."""
    write_back = None
    device_tensor = None
    if isinstance(value, np.ndarray):
        array = value
    elif is_torch_tensor(value):
        array, moved = _torch_host_view(name, value)
        if moved is not None:
            device_tensor = value
    elif hasattr(value, "__dlpack__"):
        array, device_tensor = _from_dlpack(name, value)
    elif hasattr(value, "__cuda_array_interface__"):
        array, device_tensor = _from_cuda_array_interface(name, value)
    else:
        raise Error(f"parameter '{name}': expected a numpy array, got "
                    f"{type(value).__name__} (or {_KINDS})")
    dtype_name = tile_dtype(name, array)
    if written and not array.flags.writeable:
        raise Error(f"parameter '{name}': the kernel writes it, but the "
                    "array is read-only")
    contiguous = np.ascontiguousarray(array)
    if written and device_tensor is not None:
        write_back = _device_write_back(device_tensor)
    elif written and contiguous is not array:
        def write_back(result, array=array):
            array[...] = result
    return HostArray(contiguous, dtype_name, write_back)


def _device_write_back(tensor):
    """Copies a result from the host into the device tensor it came from."""
    def write_back(result):
        torch = _torch()
        host = torch.from_numpy(result)
        if tensor.dtype is torch.bfloat16:
            host = host.view(torch.int16).view(torch.bfloat16)
        tensor.detach().copy_(host.reshape(tensor.shape))
    return write_back


def _from_dlpack(name: str, value: Any):
    device = value.__dlpack_device__()[0] if hasattr(
        value, "__dlpack_device__") else _DL_CPU
    if device in (_DL_CPU, _DL_CUDA_HOST):
        try:
            return np.from_dlpack(value), None
        except (TypeError, BufferError, RuntimeError) as error:
            raise Error(f"parameter '{name}': its DLPack capsule does not "
                        f"convert to a host array: {error}") from None
    torch = _torch_for(name, "a DLPack tensor on a device")
    tensor = torch.from_dlpack(value)
    return _torch_host_view(name, tensor)[0], tensor


def _from_cuda_array_interface(name: str, value: Any):
    torch = _torch_for(name, "a __cuda_array_interface__ array")
    tensor = torch.as_tensor(value, device="cuda")
    return _torch_host_view(name, tensor)[0], tensor


def _torch_for(name: str, what: str):
    torch = _torch()
    if torch is None:
        try:
            import torch  # noqa: F811 (only for device arrays)
        except ImportError:
            raise Error(f"parameter '{name}': {what} is read through torch, "
                        "which is not installed; pass a host array") from None
    return torch
