"""``@tile.autotune``: the fastest of several configs of a kernel, chosen
once per key and kept in the cache directory.

On a GPU each config runs (``warmup`` runs, then ``runs`` timed by the CUDA
driver's events; the median counts) on copies of the arrays. Without one,
the configs are ranked by a static estimate from ptxas and the cubin
(docs/python.md, "Autotuning"):

    estimate = waves * (SASS instructions + 8 * spilled words)
                 * max(warps per SM / 4 schedulers, 8 cycles)
    waves    = ceil(CTAs / (resident CTAs per SM * 132 SMs))

with the resident CTAs per SM limited by threads (2048), registers
(65536), shared memory (227 KiB) and 32 CTAs, as on an H100 (sm_90), and
the warps per SM those of the CTAs resident in a wave: a wave issues every
warp's instructions through 4 schedulers, but no faster than one
instruction per warp every 8 cycles (latency, when too few warps hide it).
It ranks; it does not predict a time, and it counts each instruction once
(loops run it more often).
"""

from __future__ import annotations

import json
import math
import os
import re
import shutil
import subprocess
import sysconfig
import tempfile
import threading
import warnings
from typing import Any, Dict, List, Optional, Sequence

import numpy as np

from . import cache, dtypes
from .arrays import host_array
from .errors import Error
from .kernel import Kernel

# The device the static estimate assumes: an H100 SXM (sm_90).
_SMS = 132
_THREADS_PER_SM = 2048
_REGISTERS_PER_SM = 65536
_SHARED_PER_SM = 227 * 1024
_CTAS_PER_SM = 32
_SCHEDULERS = 4
_SPILL_WORD_COST = 8
# Cycles between a warp's instructions: with fewer than this many warps per
# scheduler, latency, not issue, bounds a wave.
_LATENCY = 8


class Config:
    """One config of ``@tile.autotune``: ``threads`` per CTA (None: the
    decorator's) and ``consts``, the ``tile.constexpr`` values."""

    def __init__(self, threads: Optional[int] = None,
                 consts: Optional[Dict[str, Any]] = None):
        if threads is not None and (not isinstance(threads, int) or
                                    isinstance(threads, bool)):
            raise Error(f"tile.Config threads={threads!r}: expected an "
                        "integer")
        self.threads = threads
        self.consts = dict(consts or {})

    def as_dict(self) -> Dict[str, Any]:
        return {"threads": self.threads, "consts": self.consts}

    def __eq__(self, other):
        return isinstance(other, Config) and self.as_dict() == other.as_dict()

    def __hash__(self):
        return hash(json.dumps(self.as_dict(), sort_keys=True))

    def __repr__(self):
        return f"tile.Config(threads={self.threads!r}, consts={self.consts!r})"


def autotune(configs: Sequence[Config], key: Sequence[str] = (),
             warmup: int = 3, runs: int = 10):
    """Decorates a ``@tile.kernel`` to run with the best of ``configs``,
    chosen once for each value of ``key`` (names of parameters, whose
    values or shapes count, or of shape symbols)."""
    def decorate(kernel):
        if not isinstance(kernel, Kernel):
            raise Error("@tile.autotune decorates a @tile.kernel (put it "
                        "above @tile.kernel)")
        return Autotuned(kernel, configs, key, warmup, runs)
    return decorate


class Autotuned:
    """A kernel with configs to choose from. ``best_config`` is the config
    the last call ran, ``tuned_now`` whether that call tuned (False when
    the choice came from this process's memory or the cache directory),
    ``tune_method`` ``"timed"`` or ``"static estimate"``, and ``scores``
    each config's median milliseconds or estimate (None: it failed)."""

    def __init__(self, kernel: Kernel, configs, key, warmup, runs):
        configs = list(configs)
        if not configs or not all(isinstance(c, Config) for c in configs):
            raise Error("@tile.autotune configs= is a non-empty list of "
                        "tile.Config")
        names = set(kernel.arg_names) | _symbols(kernel)
        for name in key:
            if name not in names:
                raise Error(f"@tile.autotune key '{name}' is neither a "
                            f"parameter nor a shape symbol of "
                            f"'{kernel.name}'")
        self.kernel = kernel
        self.configs = configs
        self.key = list(key)
        self.warmup = warmup
        self.runs = runs
        self.best_config: Optional[Config] = None
        self.tuned_now: Optional[bool] = None
        self.tune_method: Optional[str] = None
        self.scores: Optional[List[Optional[float]]] = None
        self._choices: Dict[str, Dict[str, Any]] = {}
        self._lock = threading.Lock()
        self.__name__ = kernel.name
        self.__doc__ = kernel.__doc__

    def __repr__(self):
        return f"<tile.autotune {self.kernel.name}: {len(self.configs)} configs>"

    def __call__(self, *args, backend: str = "auto", **options):
        arrays, consts = self.kernel.bind(args, {
            k: v for k, v in options.items() if k in self.kernel.arg_names})
        options = {k: v for k, v in options.items()
                   if k not in self.kernel.arg_names}
        config = self.choose(arrays, backend)
        return self.kernel(*arrays, backend=backend, threads=config.threads,
                           **{**consts, **config.consts}, **options)

    # ---- choosing ----------------------------------------------------------

    def choose(self, arrays, backend="auto") -> Config:
        """The config for these arrays' key, tuned now if no choice for it
        is remembered here or in the cache directory."""
        timed = backend == "cuda" or (backend == "auto" and
                                      _tile_cuda_device() is not None)
        method = "timed" if timed else "static estimate"
        key = json.dumps(self._key_values(arrays))
        path = cache.autotune_path(self._cache_key(method))
        with self._lock:
            choice = self._choices.get(key)
            tuned = False
            if choice is None:
                stored = cache.load_json(path) or {}
                choice = stored.get(key)
                if not _valid_choice(choice, len(self.configs)):
                    choice = self._tune(arrays, method)
                    tuned = True
                    stored = cache.load_json(path) or {}
                    stored[key] = choice
                    cache.store_json(path, stored)
                self._choices[key] = choice
            self.best_config = self.configs[choice["index"]]
            self.tuned_now = tuned
            self.tune_method = choice["method"]
            self.scores = choice["scores"]
            return self.best_config

    def _cache_key(self, method):
        compiled_key = cache.kernel_key({
            "autotune": self.kernel.name,
            "function": f"{self.kernel.fn.__module__}."
                        f"{self.kernel.fn.__qualname__}",
            "source": cache.fingerprint(self.kernel.fn),
            "configs": [c.as_dict() for c in self.configs],
            "chip": self.kernel.chip, "method": method,
            "device": _tile_cuda_device() if method == "timed" else None,
            "warmup": self.warmup, "runs": self.runs})
        return f"{self.kernel.name}-{compiled_key[:32]}"

    def _key_values(self, arrays):
        values = {}
        by_name = dict(zip((n for n, _ in self.kernel.params), arrays))
        for name in self.key:
            if name in by_name:
                value = by_name[name]
                values[name] = list(_shape(value)) if _shape(value) is not \
                    None else _plain(value)
                continue
            for (param, spec), array in zip(self.kernel.params, arrays):
                dims = getattr(spec, "shape", ())
                shape = _shape(array)
                if name in dims and shape is not None and \
                        len(shape) == len(dims):
                    values[name] = int(shape[dims.index(name)])
                    break
        return values

    def _tune(self, arrays, method):
        scores = []
        for config in self.configs:
            try:
                scores.append(self._time(config, arrays) if method == "timed"
                              else self._estimate(config, arrays))
            except Error as error:
                warnings.warn(f"@tile.autotune {self.kernel.name}: {config} "
                              f"failed: {str(error).splitlines()[0]}",
                              stacklevel=4)
                scores.append(None)
        ranked = [i for i, s in enumerate(scores) if s is not None]
        if not ranked:
            raise Error(f"@tile.autotune {self.kernel.name}: every config "
                        "failed to compile or run")
        best = min(ranked, key=lambda i: scores[i])
        if method == "static estimate":
            warnings.warn(f"@tile.autotune {self.kernel.name}: no GPU, so the "
                          f"configs were ranked by a static estimate "
                          f"(ptxas's registers and spills, SASS instruction "
                          f"counts), not timed; chose "
                          f"{self.configs[best]}", stacklevel=4)
        return {"index": best, "config": self.configs[best].as_dict(),
                "method": method, "scores": scores}

    def _compile(self, config, arrays):
        threads = config.threads
        return self.kernel.compile(*arrays, threads=threads, **config.consts)

    def _time(self, config, arrays):
        compiled = self._compile(config, arrays)
        copies = [a if _is_scalar(spec) else
                  host_array(name, a, False).array.copy()
                  for (name, spec), a in zip(self.kernel.params, arrays)]
        result = compiled.run(*copies, backend="cuda", check=False,
                              warmup=self.warmup, runs=max(self.runs, 1),
                              ptx_figures=False)
        return result.ms

    def _estimate(self, config, arrays):
        compiled = self._compile(config, arrays)
        figures = static_figures(compiled)
        threads = compiled.kernel.threads
        ctas = _ctas(compiled, self.kernel, arrays)
        return estimate(figures, threads, ctas)


def _tile_cuda_device():
    from . import _tile
    return _tile.probe_cuda()


def _valid_choice(choice, count):
    return isinstance(choice, dict) and isinstance(choice.get("index"), int) \
        and 0 <= choice["index"] < count and "method" in choice


def _symbols(kernel):
    return {name for _, spec in kernel.params
            for d in getattr(spec, "shape", ())
            for name in dtypes.dim_names(d)}


def _is_scalar(spec):
    return not hasattr(spec, "shape")


def _shape(value):
    shape = getattr(value, "shape", None)
    return tuple(int(d) for d in shape) if shape is not None and \
        not isinstance(value, (int, float, np.generic)) else None


def _plain(value):
    return value.item() if hasattr(value, "item") else value


def _ctas(compiled, kernel, arrays):
    """The number of CTAs a launch on `arrays` has: the manifest's grid
    expressions evaluated with the symbols the arrays bind."""
    symbols = {}
    for (name, spec), array in zip(kernel.params, arrays):
        dims, shape = getattr(spec, "shape", ()), _shape(array)
        if shape is None:
            if isinstance(array, (int, np.integer)):
                symbols[name] = int(array)
            continue
        for dim, size in zip(dims, shape):
            if isinstance(dim, str) and dim.isidentifier():  # not "2 * H"
                symbols.setdefault(dim, size)
    total = 1
    for expression in compiled.manifest.get("grid", []):
        total *= max(1, _evaluate(expression, symbols))
    return total


class _Int(int):
    """An integer of a grid expression, where ``@`` is ``ceildiv`` (the
    same precedence as ``*``, as in the manifest's grammar)."""

    def __matmul__(self, other):
        return _Int(-(-int(self) // int(other)))

    def __rmatmul__(self, other):
        return _Int(-(-int(other) // int(self)))

    def __floordiv__(self, other):
        return _Int(int(self) // int(other))

    def __mul__(self, other):
        return _Int(int(self) * int(other))

    def __add__(self, other):
        return _Int(int(self) + int(other))

    def __sub__(self, other):
        return _Int(int(self) - int(other))

    def __mod__(self, other):
        return _Int(int(self) % int(other))

    def __neg__(self):
        return _Int(-int(self))


def _evaluate(expression, symbols):
    """A manifest grid expression (docs/abi.md's grammar: integers,
    symbols, + - * floordiv ceildiv mod) for the given symbols; 1 when it
    names a symbol the arrays do not bind."""
    text = re.sub(r"\b(\d+)\b", r"_Int(\1)", str(expression))
    text = re.sub(r"\bceildiv\b", "@", text)
    text = re.sub(r"\bfloordiv\b", "//", text)
    text = re.sub(r"\bmod\b", "%", text)
    names = {name: _Int(value) for name, value in symbols.items()}
    try:
        return int(eval(text, {"__builtins__": {}, "_Int": _Int},  # noqa: S307
                        names))
    except Exception:
        return 1


# ---- the static estimate ---------------------------------------------------

def find_nvdisasm() -> Optional[str]:
    """nvdisasm: PATH, /usr/local/cuda/bin, or the nvidia-cuda-nvdisasm
    package (python/requirements.txt)."""
    found = shutil.which("nvdisasm")
    if found:
        return found
    site = sysconfig.get_paths()["purelib"]
    candidates = ["/usr/local/cuda/bin/nvdisasm"] + [
        os.path.join(site, "nvidia", v, "bin", "nvdisasm")
        for v in ("cu13", "cu12", "cuda_nvdisasm")]
    for path in candidates:
        if os.access(path, os.X_OK):
            return path
    return None


def static_figures(compiled) -> Dict[str, int]:
    """ptxas's registers, spills and shared memory for the kernel's entry,
    and its SASS instruction count (nvdisasm on the cubin; the PTX's
    instruction count without nvdisasm, ``sass`` False then; without
    ptxas, ``ptxas`` False and the registers unknown, 0)."""
    ptxas = cache.find_ptxas()
    entry = compiled.manifest["entry"]
    if ptxas is None:  # the PTX's own counts; registers unknown
        return {"registers": 0, "spill_bytes": 0, "ptxas": False,
                "shared_bytes": compiled.manifest.get("shared_bytes", 0),
                "sass": False,
                "instructions": _ptx_instructions(compiled.ptx, entry)}
    with tempfile.TemporaryDirectory(prefix="tile-tune-") as tmp:
        source = os.path.join(tmp, "k.ptx")
        with open(source, "w") as f:
            f.write(compiled.ptx)
        cubin = os.path.join(tmp, "k.cubin")
        arch = cache.ptx_arch(compiled.ptx, compiled.chip)
        done = subprocess.run([ptxas, "-v", f"-arch={arch}", source,
                               "-o", cubin], capture_output=True, text=True)
        if done.returncode != 0:
            raise Error(f"ptxas rejected the PTX: {done.stderr.strip()}")
        with open(cubin, "rb") as f:
            compiled.adopt_cubin(f.read())
    report = done.stderr
    start = report.find(f"Compiling entry function '{entry}'")
    if start >= 0:
        report = report[start:]
        end = report.find("Compiling entry function", 1)
        report = report[:end if end > 0 else None]

    def find(pattern):
        match = re.search(pattern, report)
        return int(match.group(1)) if match else 0
    figures = {"registers": find(r"Used (\d+) registers"),
               "spill_bytes": find(r"(\d+) bytes spill stores") +
               find(r"(\d+) bytes spill loads"),
               "shared_bytes": find(r"(\d+) bytes smem"), "ptxas": True}
    count = _sass_instructions(compiled, entry)
    figures["sass"] = count is not None
    figures["instructions"] = count if count is not None else \
        _ptx_instructions(compiled.ptx, entry)
    return figures


def _sass_instructions(compiled, entry):
    """The SASS instructions of `entry` in the cubin (nvdisasm's listing,
    read as bench/sass_stats.py reads it), or None without nvdisasm."""
    nvdisasm = find_nvdisasm()
    cubin = compiled.cubin
    if nvdisasm is None or cubin is None:
        return None
    with tempfile.TemporaryDirectory(prefix="tile-sass-") as tmp:
        path = os.path.join(tmp, "k.cubin")
        with open(path, "wb") as f:
            f.write(cubin)
        done = subprocess.run([nvdisasm, path], capture_output=True,
                              text=True)
    if done.returncode != 0:
        return None
    sections = re.split(r"^\.text\.([\w$.]+):", done.stdout,
                        flags=re.MULTILINE)
    listing = dict(zip(sections[1::2], sections[2::2])).get(entry)
    if listing is None:
        return None
    # The NOPs that pad the function's end do not count.
    opcodes = re.findall(r"/\*[0-9a-f]+\*/\s+(?:@!?U?P(?:\d+|T)\s+)?"
                         r"([A-Z][A-Z0-9_.x]*)[^;]*;", listing)
    return sum(1 for op in opcodes if op != "NOP")


def _ptx_instructions(ptx, entry):
    body = ptx[ptx.find(f".entry {entry}("):]
    return len(re.findall(r"^\s+[a-z@][^;]*;", body, re.MULTILINE))


def estimate(figures: Dict[str, int], threads: int, ctas: int) -> float:
    """The static estimate of the module's docstring."""
    warps = -(-threads // 32)
    registers = max(figures["registers"], 1) * warps * 32
    resident = min(_THREADS_PER_SM // max(threads, 1),
                   _REGISTERS_PER_SM // registers,
                   _SHARED_PER_SM // figures["shared_bytes"]
                   if figures["shared_bytes"] else _CTAS_PER_SM,
                   _CTAS_PER_SM)
    resident = max(resident, 1)
    used = min(resident, -(-ctas // _SMS))
    waves = math.ceil(ctas / (resident * _SMS))
    instructions = figures["instructions"] + \
        _SPILL_WORD_COST * figures["spill_bytes"] / 4
    return waves * instructions * max(used * warps / _SCHEDULERS, _LATENCY)
