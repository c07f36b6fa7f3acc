#!/usr/bin/env python3
"""The Python package's own costs, per example of examples/python: the
front end and placement (a kernel's first call), the whole compile to PTX
(in process), against `tile-translate --tile-to-ptx` of the same kernel's
`.tile` file (a process of its own), and a call once compiled (cached per
signature: its wall time less the emulator's run), side by side.

    build/venv/bin/python bench/python_frontend.py [--runs N]

Prints a table; docs/performance.md records it with the machine and date.
"""

import argparse
import importlib.util
import os
import statistics
import subprocess
import sys
import time

import numpy as np

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
BIN = os.path.join(ROOT, "build", "bin")
sys.path.insert(0, os.path.join(ROOT, "build", "python"))
import tile  # noqa: E402

KernelModule = sys.modules["tile.kernel"]
EXAMPLES = [("squares", "squares", "squares"),
            ("softmax", "softmax", "softmax"),
            ("matmul", "matmul", "matmul"),
            ("rowscale", "rowscale", "rowscale"),
            ("control", "rowmean", "control"),
            ("softmax_masked", "softmax_masked", "softmax_masked")]


def load(name):
    path = os.path.join(ROOT, "examples", "python", name + ".py")
    spec = importlib.util.spec_from_file_location("bench_" + name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def median_ms(fn, runs):
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1e3


def inputs(compiled, rng):
    arrays = []
    for param in compiled.manifest["params"]:
        dtype = {"f32": np.float32, "f16": np.float16, "i32": np.int32}[
            param["dtype"]]
        shape = [d if isinstance(d, int) else 256 for d in param["shape"]]
        arrays.append(rng.uniform(-1, 1, shape).astype(dtype))
    return arrays


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    header = ("kernel", "front end ms", "to PTX ms", "tile-translate ms",
              "ratio", "call ms", "emulate ms")
    print(("{:<16}" + "{:>18}" * 6).format(*header))
    print("-" * (16 + 18 * 6))
    for name, kernel_name, tile_name in EXAMPLES:
        kernel = getattr(load(name), kernel_name)

        def fresh():
            # The front end and placement: what a first call compiles.
            return KernelModule.CompiledKernel(kernel, kernel._signature(None),
                                               kernel.chip, False)

        front = median_ms(fresh, args.runs)
        to_ptx = median_ms(lambda: fresh().ptx, args.runs)
        source = os.path.join(ROOT, "examples", tile_name + ".tile")
        translate = median_ms(lambda: subprocess.run(
            [os.path.join(BIN, "tile-translate"), "--tile-to-ptx", source],
            check=True, capture_output=True), args.runs)
        compiled = fresh()
        arrays = inputs(compiled, rng)
        run = lambda: compiled.run(*arrays, backend="emulate",  # noqa: E731
                                   check=False, ptx_figures=False)
        run()  # lowers the emulator's code once
        # A call's own cost: its wall time less the emulator's run.
        calls, emulated = [], []
        for _ in range(args.runs):
            start = time.perf_counter()
            result = run()
            calls.append(time.perf_counter() - start - result.seconds)
            emulated.append(result.seconds)
        print(("{:<16}" + "{:>18.1f}" * 3 + "{:>18.2f}" + "{:>18.2f}" +
               "{:>18.1f}").format(
                   kernel_name, front, to_ptx, translate, to_ptx / translate,
                   statistics.median(calls) * 1e3,
                   statistics.median(emulated) * 1e3))


if __name__ == "__main__":
    main()
