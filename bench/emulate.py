#!/usr/bin/env python3
"""The emulator at CI scale (issue 33): for each example and size, one
`tile-run --backend=emulate` (compile, reference, emulate, check) under
`/usr/bin/time -v`, reporting the emulator's ops, its own seconds and ops/s,
the whole run's wall and CPU seconds, its peak memory and its exit code.

  python3 bench/emulate.py [--build build] [--only gemm,squares] [--small]

`--small` runs only the first size of each kernel (a smoke run). Times on a
shared machine vary with its load: the CPU seconds (user + system) are the
steadier figure. Not part of the test suite.
"""

import argparse
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# Three sizes each: the largest last.
CASES = {
    "squares": [["K=65536"], ["K=262144"], ["K=1048576"]],
    "softmax_masked": [["M=256", "N=1024"], ["M=512", "N=2048"],
                       ["M=1024", "N=4096"]],
    "gemm": [["M=256", "N=256", "K=256"], ["M=512", "N=512", "K=512"],
             ["M=1024", "N=1024", "K=1024"]],
    "flash_attention": [["N=1024"], ["N=2048"], ["N=4096"]],
    "layernorm": [["M=256", "N=1024"], ["M=512", "N=2048"],
                  ["M=1024", "N=4096"]],
}

EMULATE = re.compile(r"emulate: .* (\d+) ops, in ([0-9.]+) s")


def run_case(build, kernel, dims):
    command = ["/usr/bin/time", "-v", os.path.join(build, "bin", "tile-run"),
               os.path.join(ROOT, "examples", kernel + ".tile"),
               "--backend=emulate", "--ptx-figures=false"]
    for dim in dims:
        command += ["--dim", dim]
    done = subprocess.run(command, capture_output=True, text=True)
    text = done.stdout + done.stderr
    figures = {"kernel": kernel, "dims": " ".join(dims),
               "exit": done.returncode}
    match = EMULATE.search(text)
    if match:
        figures["ops"] = int(match.group(1))
        figures["emulate_s"] = float(match.group(2))
    for key, pattern in [("wall", r"Elapsed \(wall clock\) time .*: (\S+)"),
                         ("user", r"User time \(seconds\): (\S+)"),
                         ("sys", r"System time \(seconds\): (\S+)"),
                         ("rss_kb", r"Maximum resident set size .*: (\d+)")]:
        found = re.search(pattern, text)
        if found:
            figures[key] = found.group(1)
    return figures


def seconds(clock):
    parts = [float(part) for part in clock.split(":")]
    total = 0.0
    for part in parts:
        total = total * 60 + part
    return total


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--build", default=os.path.join(ROOT, "build"))
    parser.add_argument("--only", default="")
    parser.add_argument("--small", action="store_true")
    args = parser.parse_args()
    kernels = [k for k in CASES if not args.only or k in args.only.split(",")]
    header = (f"{'kernel':16} {'dims':22} {'ops':>11} {'emul s':>8} "
              f"{'M ops/s':>8} {'wall s':>8} {'cpu s':>8} {'peak MB':>8} "
              f"{'exit':>4}")
    print(header)
    print("-" * len(header))
    for kernel in kernels:
        for dims in CASES[kernel][:1 if args.small else 3]:
            f = run_case(args.build, kernel, dims)
            ops = f.get("ops", 0)
            emulate = f.get("emulate_s", 0.0)
            rate = ops / emulate / 1e6 if emulate else 0.0
            cpu = float(f.get("user", 0)) + float(f.get("sys", 0))
            print(f"{kernel:16} {f['dims']:22} {ops:11d} {emulate:8.2f} "
                  f"{rate:8.2f} {seconds(f.get('wall', '0')):8.1f} "
                  f"{cpu:8.1f} {int(f.get('rss_kb', 0)) / 1024:8.0f} "
                  f"{f['exit']:4d}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
