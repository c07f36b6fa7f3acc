"""The cache of compiled kernels and autotuning choices across processes.

It lives in ``TILE_CACHE_DIR``, by default ``$XDG_CACHE_HOME/tile`` (else
``~/.cache/tile``):

* ``kernels/KK/KEY/``: one compiled kernel: ``NAME.ptx``, ``NAME.json`` (the
  manifest), ``NAME.cubin`` when ptxas is there, and ``entry.json``, which
  holds the key, the fingerprints of the Python names the kernel's source
  used (checked again on a hit), and a SHA-256 of every file. An entry
  whose key, names or files do not match is ignored and rebuilt, never
  trusted.
* ``autotune/KEY.json``: the config ``@tile.autotune`` chose per key.

An entry is written into a temporary directory and renamed into place, so
a reader sees a whole entry or none; two processes compiling one kernel at
once both write it, and the last rename wins with identical content.
"""

from __future__ import annotations

import hashlib
import inspect
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import types
from typing import Any, Dict, NamedTuple, Optional

from . import _tile

FORMAT = 1
_lock = threading.Lock()
_stats = {"hits": 0, "misses": 0}


class CacheInfo(NamedTuple):
    """What ``tile.cache_info()`` reports: this process's ``hits`` and
    ``misses`` of the compile cache, and its ``directory``."""
    hits: int
    misses: int
    directory: str


def cache_dir() -> str:
    """The cache directory: ``TILE_CACHE_DIR``, else the user's."""
    explicit = os.environ.get("TILE_CACHE_DIR")
    if explicit:
        return explicit
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(
        os.path.expanduser("~"), ".cache")
    return os.path.join(base, "tile")


def cache_info() -> CacheInfo:
    """Hits and misses of the compile cache in this process."""
    with _lock:
        return CacheInfo(_stats["hits"], _stats["misses"], cache_dir())


def _count(kind: str) -> None:
    with _lock:
        _stats[kind] += 1


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _file_sha(path: Optional[str]) -> str:
    if not path:
        return ""
    try:
        with open(path, "rb") as f:
            return _sha(f.read())
    except OSError:
        return ""


_TOOLCHAIN: Dict[str, str] = {}


def toolchain() -> Dict[str, str]:
    """What compiled a kernel: the extension (its size and modification
    time; a rebuilt compiler is another toolchain), the package's version,
    Python's, and ptxas (likewise) when it is there."""
    with _lock:
        if _TOOLCHAIN:
            return dict(_TOOLCHAIN)
    from . import _tile
    from . import __version__
    stat = os.stat(_tile.__file__)
    found = {"tile": __version__,
             "extension": f"{stat.st_size}:{stat.st_mtime_ns}",
             "python": sys.version.split()[0],
             "ptxas": _ptxas_version()}
    with _lock:
        _TOOLCHAIN.update(found)
    return found


def find_ptxas() -> Optional[str]:
    """ptxas, where tile-run looks for it: /usr/local/cuda/bin, then PATH."""
    local = "/usr/local/cuda/bin/ptxas"
    return local if os.access(local, os.X_OK) else shutil.which("ptxas")


def _ptxas_version() -> str:
    """ptxas's identity: its path, size and modification time (cheaper
    than running it, and a changed ptxas changes it)."""
    ptxas = find_ptxas()
    if ptxas is None:
        return ""
    stat = os.stat(ptxas)
    return f"{os.path.realpath(ptxas)}:{stat.st_size}:{stat.st_mtime_ns}"


def fingerprint(value: Any) -> str:
    """What a Python name the kernel's source used stands for, as text that
    changes when it does (a function by its file's content); a value with
    no stable text (an arbitrary object) never matches, so it never hits."""
    if value is None or isinstance(value, (bool, int, float, str, bytes)):
        return repr(value)
    if isinstance(value, (tuple, list)):
        return "(" + ",".join(fingerprint(v) for v in value) + ")"
    if isinstance(value, types.ModuleType):
        return f"module {value.__name__} {_file_sha(getattr(value, '__file__', None))}"
    if isinstance(value, (types.FunctionType, type)):
        try:
            source = inspect.getsourcefile(value)
        except TypeError:
            source = None
        return (f"{type(value).__name__} {value.__module__}."
                f"{value.__qualname__} {_file_sha(source)}")
    module = getattr(type(value), "__module__", "")
    if module.split(".")[0] == "tile":
        return f"tile {module}.{type(value).__qualname__} {value!r}"
    return f"unstable {id(value)}"


def kernel_key(parts: Dict[str, Any]) -> str:
    """The key of a compiled kernel: a SHA-256 over its source, options,
    chip and the toolchain."""
    text = json.dumps({"format": FORMAT, **parts, "toolchain": toolchain()},
                      sort_keys=True, default=str)
    return _sha(text.encode())


def _entry_dir(key: str) -> str:
    return os.path.join(cache_dir(), "kernels", key[:2], key)


def load(key: str, lookup) -> Optional[Dict[str, bytes]]:
    """The files of entry `key` when it is whole and its names still mean
    what they meant (``lookup(name)`` is a name's value now), else None;
    counts a hit or a miss."""
    loaded = _load(key, lookup)
    _count("hits" if loaded is not None else "misses")
    return loaded[1] if loaded is not None else None


def add_file(key: str, name: str, data: bytes) -> None:
    """Adds a file (a cubin) to the whole entry `key`."""
    loaded = _load(key, None)
    if loaded is not None:
        names, files = loaded
        store(key, names, {**files, name: data})


def _load(key, lookup):
    """(the entry's names, its files) or None; names unchecked without
    `lookup`."""
    directory = _entry_dir(key)
    try:
        with open(os.path.join(directory, "entry.json")) as f:
            entry = json.load(f)
        if entry.get("format") != FORMAT or entry.get("key") != key:
            return None
        for name, printed in entry["names"].items():
            if lookup is not None and fingerprint(lookup(name)) != printed:
                return None
        files = {}
        for name, digest in entry["files"].items():
            if os.sep in name or name.startswith("."):
                return None
            with open(os.path.join(directory, name), "rb") as f:
                data = f.read()
            if _sha(data) != digest:
                return None
            files[name] = data
        return entry["names"], files
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None


def store(key: str, names: Dict[str, str], files: Dict[str, bytes]) -> None:
    """Writes entry `key` (best effort: a cache that cannot be written is
    not an error of the kernel)."""
    directory = _entry_dir(key)
    entry = {"format": FORMAT, "key": key, "names": names,
             "files": {name: _sha(data) for name, data in files.items()}}
    try:
        os.makedirs(os.path.dirname(directory), exist_ok=True)
        staging = tempfile.mkdtemp(prefix=".tmp-", dir=os.path.dirname(
            directory))
        for name, data in {**files, "entry.json": json.dumps(
                entry, indent=1).encode()}.items():
            with open(os.path.join(staging, name), "wb") as f:
                f.write(data)
        if os.path.isdir(directory):  # a corrupt entry, replaced
            shutil.rmtree(directory, ignore_errors=True)
        try:
            os.rename(staging, directory)
        except OSError:  # another process renamed its copy first
            shutil.rmtree(staging, ignore_errors=True)
    except OSError:
        pass


def ptx_arch(ptx: str, chip: str) -> str:
    """The architecture ptxas compiles ``ptx`` for: ``chip``, or its
    architecture-specific variant (``sm_90a``) when the PTX targets that (a
    kernel on wgmma)."""
    return chip + "a" if f".target {chip}a" in ptx else chip


def compile_cubin(ptx: str, chip: str) -> Optional[bytes]:
    """ptxas's cubin of `ptx` for `chip`, or None without ptxas."""
    ptxas = find_ptxas()
    if ptxas is None:
        return None
    with tempfile.TemporaryDirectory(prefix="tile-ptxas-") as tmp:
        source = os.path.join(tmp, "kernel.ptx")
        cubin = os.path.join(tmp, "kernel.cubin")
        with open(source, "w") as f:
            f.write(ptx)
        try:
            done = subprocess.run([ptxas, f"-arch={ptx_arch(ptx, chip)}",
                                   source, "-o", cubin],
                                  capture_output=True, timeout=600)
        except (OSError, subprocess.SubprocessError):
            return None
        if done.returncode != 0 or not os.path.exists(cubin):
            return None
        with open(cubin, "rb") as f:
            return f.read()


def load_json(path: str) -> Optional[Any]:
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def store_json(path: str, value: Any) -> None:
    """Writes `value` to `path` whole or not at all (best effort), as the
    tools write their outputs (_tile.write_file): a failed write leaves
    neither a partial file nor a temporary one behind."""
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        _tile.write_file(path, json.dumps(value, indent=1,
                                          sort_keys=True).encode())
    except OSError:
        pass


def autotune_path(key: str) -> str:
    return os.path.join(cache_dir(), "autotune", key + ".json")


def names_fingerprints(values: Dict[str, Any]) -> Dict[str, str]:
    return {name: fingerprint(value) for name, value in values.items()}
