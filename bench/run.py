#!/usr/bin/env python3
"""Compile-side benchmark of every example kernel against hand-written CUDA.

For each example: registers, spill bytes and shared bytes from `ptxas -v`,
the PTX instructions of the hot loop (and its global loads, shared accesses
and shuffles), next to the same kernel written in CUDA C++ by hand
(bench/reference/*.cu, `nvcc -O3 -ptx`, the same ptxas); and the compile
latency of `tile-translate --tile-to-ptx` against `nvcc -ptx`, median of
several runs. Prints a table and the ratios (ours / reference). Where a
cuobjdump is found (`pip install -r bench/requirements.txt` brings one, with
the nvdisasm it runs), a second table compares the SASS of the hot loops
(bench/sass_stats.py) of both, compiled for the same chip.

  bench/run.py [--build build] [--chip sm_90] [--runs 5] [--cuobjdump BIN]
"""

import argparse
import pathlib
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, str(pathlib.Path(__file__).parent))
import ptx_stats  # noqa: E402
import sass_stats  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parent.parent
# kernel file (under the repository) -> (entry, reference .cu); the
# bench/pipelined kernels (@pipeline) against their examples' references.
KERNELS = {
    "examples/squares.tile": ("squares", "squares.cu"),
    "examples/softmax.tile": ("softmax", "softmax.cu"),
    "examples/matmul.tile": ("matmul", "matmul.cu"),
    "examples/rowscale.tile": ("rowscale", "rowscale.cu"),
    "examples/control.tile": ("rowmean", "rowmean.cu"),
    "bench/pipelined/squares_pipelined.tile": ("squares_pipelined", "squares.cu"),
    "bench/pipelined/matmul_pipelined.tile": ("matmul_pipelined", "matmul.cu"),
    "bench/pipelined/rowscale_pipelined.tile": ("rowscale_pipelined", "rowscale.cu"),
}


def timed(command, runs):
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(command, check=True, capture_output=True)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def measure(ptx_path, entry, chip):
    ptx = ptx_path.read_text()
    body = ptx_stats.entry_bodies(ptx)[entry]
    stats = ptx_stats.loop_counts(body)
    stats.update(ptx_stats.ptxas_report(str(ptx_path), chip)[entry])
    return stats


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", default=str(ROOT / "build"))
    parser.add_argument("--chip", default="sm_90")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--cuobjdump", default=sass_stats.find_cuobjdump(),
                        help="for the SASS table (default: found as "
                             "sass_stats.find_cuobjdump says)")
    args = parser.parse_args()
    translate = pathlib.Path(args.build) / "bin" / "tile-translate"
    nvcc = shutil.which("nvcc") or "/usr/local/cuda/bin/nvcc"
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        out = pathlib.Path(tmp)
        for example, (entry, reference) in KERNELS.items():
            ours_ptx, ref_ptx = out / f"{entry}.tile.ptx", out / f"{entry}.cu.ptx"
            ours_cmd = [str(translate), "--tile-to-ptx", f"--chip={args.chip}",
                        str(ROOT / example), "-o", str(ours_ptx)]
            ref_source = str(ROOT / "bench" / "reference" / reference)
            ref_cmd = [nvcc, "-O3", "-ptx", f"-arch={args.chip}", ref_source,
                       "-o", str(ref_ptx)]
            ours_s, ref_s = timed(ours_cmd, args.runs), timed(ref_cmd, args.runs)
            rows.append((entry, measure(ours_ptx, entry, args.chip),
                         measure(ref_ptx, pathlib.Path(reference).stem,
                                 args.chip), ours_s, ref_s))
            if args.cuobjdump:
                subprocess.run(["ptxas", f"-arch={args.chip}", str(ours_ptx),
                                "-o", str(out / f"{entry}.tile.cubin")],
                               check=True)
                subprocess.run([nvcc, "-O3", "-cubin", f"-arch={args.chip}",
                                ref_source, "-o",
                                str(out / f"{entry}.cuda.cubin")], check=True)
        print_table(rows)
        print()
        if args.cuobjdump:
            return sass_stats.compare_table(args.cuobjdump, out)
        print("SASS: skipped, no cuobjdump (pip install -r "
              "bench/requirements.txt, or --cuobjdump BIN)")
        return 0


def print_table(rows):
    for _, ours, ref, _, _ in rows:
        for stats in (ours, ref):
            loads = stats["loop_global_loads"]
            stats["instr_per_load"] = (
                round(stats["loop_instructions"] / loads, 1) if loads else 0)
    columns = ["registers", "spill_stores", "smem", "loop_instructions",
               "loop_global_loads", "instr_per_load", "loop_shared", "shuffles"]
    header = f"{'kernel':18} {'who':5} " + " ".join(f"{c:>17}" for c in columns)
    print(header + f" {'compile s':>10}")
    print("-" * len(header) + "-" * 11)
    for entry, ours, ref, ours_s, ref_s in rows:
        for who, stats, seconds in (("tile", ours, ours_s), ("cuda", ref, ref_s)):
            print(f"{entry:18} {who:5} " +
                  " ".join(f"{stats.get(c, 0):>17}" for c in columns) +
                  f" {seconds:>10.3f}")
    print("\nratios tile / cuda (registers; hot-loop instructions per global "
          "load, since nvcc may unroll the loop; compile time):")
    for entry, ours, ref, ours_s, ref_s in rows:
        def ratio(a, b):
            return f"{a / b:.2f}" if b else ("1.00" if a == b else "n/a")
        print(f"  {entry:18} registers {ratio(ours['registers'], ref['registers'])}"
              f"  loop {ratio(ours['instr_per_load'], ref['instr_per_load'])}"
              f"  compile {ratio(ours_s, ref_s)}")


if __name__ == "__main__":
    sys.exit(main())
