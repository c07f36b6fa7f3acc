"""The Python package's own costs (docs/performance.md, "The Python
package"): launch overhead per call on the emulate path, a cold compile
(first process) against a cached one (second process), and
@tile.autotune's time over 8 configs without a GPU.

    build/venv/bin/python bench/python_package.py
"""

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

COMPILE = '''
import time
t0 = time.perf_counter()
import numpy as np
import tile
t1 = time.perf_counter()


@tile.kernel(threads=128, grid=lambda M: tile.cdiv(M, 16))
def scale(X: tile.tensor(tile.f32, ["M", 64]), Y: tile.tensor(tile.f32, ["M", 64])):
    r = tile.block_id(0) * 16
    Y[r:r + 16, 0:64] = X[r:r + 16, 0:64] * 2.0


@tile.kernel(threads=256, registers=["acc"])
def matmul(A: tile.tensor(tile.f16, [32, "K"]), B: tile.tensor(tile.f16, ["K", 64]),
           C: tile.tensor(tile.f32, [32, 64])):
    acc = tile.zeros((32, 64), tile.f32)
    for k in tile.range(0, A.shape[1], 32):
        acc += tile.dot(A[0:32, k:k + 32], B[k:k + 32, 0:64])
    C[0:32, 0:64] = acc


t2 = time.perf_counter()
scale.compile().ptx
t3 = time.perf_counter()
matmul.compile().ptx
t4 = time.perf_counter()
print({"import": t1 - t0, "scale": t3 - t2, "matmul": t4 - t3,
       "hits": tile.cache_info().hits})
'''

TUNE = '''
import time, warnings
import numpy as np
import tile

configs = [tile.Config(threads=t, consts={"BM": bm})
           for t in (128, 256) for bm in (16, 32, 64, 128)]


@tile.autotune(configs=configs, key=["M"])
@tile.kernel(threads=128, grid=lambda M: tile.cdiv(M, BM))
def rows(X: tile.tensor(tile.f32, ["M", 64]), Y: tile.tensor(tile.f32, ["M", 64]),
         BM: tile.constexpr):
    r = tile.block_id(0) * BM
    Y[r:r + BM, 0:64] = X[r:r + BM, 0:64] * 2.0 + 1.0


X = np.ones((4096, 64), np.float32)
Y = np.zeros_like(X)
warnings.simplefilter("ignore")
t0 = time.perf_counter()
rows.choose([X, Y])
t1 = time.perf_counter()
print({"tune": t1 - t0, "tuned_now": rows.tuned_now,
       "best": repr(rows.best_config), "method": rows.tune_method})
'''


def in_process(code, cache):
    """Runs `code` as a program of its own (a file: the front end reads
    kernels' source) with the compile cache `cache`; its last line."""
    path = os.path.join(cache, "program.py")
    with open(path, "w") as f:
        f.write(code)
    done = subprocess.run([sys.executable, path], capture_output=True,
                          text=True, env={**os.environ, "TILE_CACHE_DIR": cache},
                          check=True)
    return eval(done.stdout.strip().splitlines()[-1])  # noqa: S307


def launch_overhead():
    import numpy as np

    import tile

    @tile.kernel(threads=32)
    def noop(X: tile.tensor(tile.f32, [32]), Y: tile.tensor(tile.f32, [32])):
        Y[0:32] = X[0:32]

    X = np.ones(32, np.float32)
    Y = np.zeros(32, np.float32)
    noop(X, Y, backend="emulate")
    out = {}
    for label, options in (("unchecked", dict(check=False, warmup=0, runs=0,
                                              ptx_figures=False)),
                           ("default", {})):
        samples, inside = [], []
        for _ in range(5):
            n = 200 if label == "unchecked" else 50
            start = time.perf_counter()
            for _ in range(n):
                result = noop(X, Y, backend="emulate", **options)
            samples.append((time.perf_counter() - start) / n * 1e6)
            inside.append(result.seconds * 1e6)
        out[label] = statistics.median(samples)
        out[label + " (the backend's own run)"] = statistics.median(inside)
    return out


def main():
    print("launch overhead, emulate, 32-thread copy, us per call:",
          json.dumps({k: round(v, 1) for k, v in launch_overhead().items()}))
    with tempfile.TemporaryDirectory() as cache:
        cold = in_process(COMPILE, cache)
        warm = in_process(COMPILE, cache)
    print("compile, first process:", {k: round(v, 4) for k, v in cold.items()})
    print("compile, second process:", {k: round(v, 4) for k, v in warm.items()})
    with tempfile.TemporaryDirectory() as cache:
        first = in_process(TUNE, cache)
        second = in_process(TUNE, cache)
    print("autotune over 8 configs, first process:", first)
    print("autotune, second process:", second)


if __name__ == "__main__":
    main()
