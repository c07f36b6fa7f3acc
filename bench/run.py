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
(bench/sass_stats.py) of both, compiled for the same chip, a third
the pipelined f16 GEMM at 3 and 8 stages, in shared memory by cp.async and
in registers (--stages-only: that table alone), and, where a Python with
Triton is found, the like-for-like comparison with Triton
(bench/triton_compare.py, which also runs alone).

  bench/run.py [--build build] [--chip sm_90] [--runs 5] [--cuobjdump BIN]
               [--stages-only]
"""

import argparse
import json
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
import triton_compare  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parent.parent
# kernel file (under the repository) -> (entry, reference .cu, or None
# where there is none); the bench/pipelined kernels (@pipeline) against
# their examples' references.
KERNELS = {
    "examples/squares.tile": ("squares", "squares.cu"),
    "examples/softmax.tile": ("softmax", "softmax.cu"),
    "examples/matmul.tile": ("matmul", "matmul.cu"),
    "examples/rowscale.tile": ("rowscale", "rowscale.cu"),
    "examples/control.tile": ("rowmean", "rowmean.cu"),
    "examples/gemm.tile": ("gemm", "gemm.cu"),
    "bench/pipelined/squares_pipelined.tile": ("squares_pipelined", "squares.cu"),
    "bench/pipelined/matmul_pipelined.tile": ("matmul_pipelined", "matmul.cu"),
    "bench/pipelined/matmul_registers.tile": ("matmul_registers", "matmul.cu"),
    "bench/pipelined/rowscale_pipelined.tile": ("rowscale_pipelined", "rowscale.cu"),
    "bench/pipelined/gemm_pipelined.tile": ("gemm_pipelined", "gemm.cu"),
}


# The pipelined f16 GEMM (bench/pipelined/matmul_pipelined.tile) at fixed
# stage counts, its tiles in flight in shared memory (cp.async) and in
# registers (shared = false), and with the stages tile-pipeline-loads picks.
STAGED_GEMM = "bench/pipelined/matmul_pipelined.tile"
STAGE_VARIANTS = [("auto", "@pipeline(k)")] + [
    (f"{stages} {where}",
     f"@pipeline(k, stages = {stages}{', shared = false' if where == 'registers' else ''})")
    for stages in (3, 8) for where in ("shared", "registers")]
STAGE_COLUMNS = {"registers": "regs", "spill_stores": "spill B",
                 "smem": "smem B", "stages": "stages",
                 "copy_loop_async_copies": "LDGSTS/it",
                 "copy_loop_plain_loads": "LDG/it",
                 "copy_loop_instructions": "instr/it", "async_copies": "LDGSTS",
                 "loop_global_loads": "slow LDG/it"}


def print_stages_row(name, stats):
    print(f"{name:14} " + " ".join(f"{stats.get(c, '-'):>11}"
                                   for c in STAGE_COLUMNS))


def stages_table(args, out, translate):
    """Registers, spills, shared bytes (ptxas -v), the stages (the
    manifest), and the cp.async (LDGSTS) and plain global loads (LDG) in
    sm_90 SASS, for each STAGE_VARIANTS line of STAGED_GEMM, and for
    Triton's matmul of the same CTA shape."""
    source = (ROOT / STAGED_GEMM).read_text()
    entry = KERNELS[STAGED_GEMM][0]
    print(STAGED_GEMM + " at each stage count: 'shared' stages in rings of "
          "shared memory\nby cp.async, 'registers' carries the tiles in "
          "flight in registers (shared = false),\n'auto' omits stages. regs, "
          "spill B: ptxas -v; smem B, stages: the manifest (ptxas -v\ncounts "
          "static shared memory only, and above 48 KiB it is dynamic). The "
          "hot\nloop's "
          "iteration with the most cp.async: its LDGSTS, LDG and "
          "instructions; LDGSTS:\nthe whole kernel's; slow LDG/it: the "
          "iteration with the most global loads (the\nelement-wise fallback "
          "for chunks not aligned at run time).")
    header = f"{'variant':14} " + " ".join(f"{t:>11}"
                                           for t in STAGE_COLUMNS.values())
    print(header)
    print("-" * len(header))
    for name, line in STAGE_VARIANTS:
        variant = out / f"stages-{name.replace(' ', '-')}.tile"
        variant.write_text(source.replace("@pipeline(k)", line))
        ptx = variant.with_suffix(".ptx")
        subprocess.run([str(translate), "--tile-to-ptx", f"--chip={args.chip}",
                        str(variant), "-o", str(ptx)], check=True)
        stats = ptx_stats.ptxas_report(str(ptx), args.chip)[entry]
        manifest = json.loads(subprocess.run(
            [str(translate), "--tile-to-manifest", str(variant)], check=True,
            capture_output=True, text=True).stdout)
        stats["stages"] = manifest_stages(manifest)
        stats["smem"] = manifest[0]["shared_bytes"]
        cubin = variant.with_suffix(".cubin")
        subprocess.run(["ptxas", f"-arch={ptx_stats.ptx_arch(ptx, args.chip)}",
                        str(ptx), "-o", str(cubin)], check=True)
        code, labels = sass_stats.functions(
            sass_stats.disassemble(args.cuobjdump, cubin))[entry]
        stats.update(sass_stats.counts(code, labels))
        print_stages_row(name, stats)
    if not args.triton_python:
        print("Triton: skipped, no Python with triton")
        return
    # Triton's matmul of the same CTA shape (32 x 64, BLOCK_K 32, 8 warps),
    # at its default num_stages.
    for config in ("same", "div16"):
        cubin = out / f"stages-triton-{config}.cubin"
        report = json.loads(subprocess.run(
            [args.triton_python, str(ROOT / "bench" / "triton_examples.py"),
             "matmul", config, str(cubin)], check=True, capture_output=True,
            text=True).stdout)
        stats = sass_stats.resource_usage(args.cuobjdump,
                                          cubin)["matmul_kernel"]
        # Triton's shared memory is dynamic: its launcher's, not the cubin's.
        stats["smem"], stats["spill_stores"] = report["shared"], stats["local"]
        code, labels = sass_stats.functions(
            sass_stats.disassemble(args.cuobjdump, cubin))["matmul_kernel"]
        stats.update(sass_stats.counts(code, labels))
        print_stages_row("triton/" + config, stats)
    print("(triton rows: regs from cuobjdump -res-usage, spill B its local "
          "bytes, smem B the\ndynamic shared memory Triton launches it with; "
          "num_stages its default, 3)")


def manifest_stages(manifest):
    """The stages of the first @pipeline loop the manifest records."""
    for kernel in manifest:
        for loop in kernel.get("pipelined", []):
            return loop["stages"]
    return "-"


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
    parser.add_argument("--triton-python", default=find_triton_python(),
                        help="a Python with Triton 3.9 (bench/requirements."
                             "txt), for the Triton table; default: this one, "
                             "if it imports triton")
    parser.add_argument("--stages-only", action="store_true",
                        help="only the table of the pipelined GEMM at each "
                             "stage count")
    args = parser.parse_args()
    translate = pathlib.Path(args.build) / "bin" / "tile-translate"
    if args.stages_only:
        if not args.cuobjdump:
            print("no cuobjdump (pip install -r bench/requirements.txt, or "
                  "--cuobjdump BIN)")
            return 1
        with tempfile.TemporaryDirectory() as tmp:
            stages_table(args, pathlib.Path(tmp), translate)
        return 0
    nvcc = shutil.which("nvcc") or "/usr/local/cuda/bin/nvcc"
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        out = pathlib.Path(tmp)
        for example, (entry, reference) in KERNELS.items():
            ours_ptx, ref_ptx = out / f"{entry}.tile.ptx", out / f"{entry}.cu.ptx"
            ours_cmd = [str(translate), "--tile-to-ptx", f"--chip={args.chip}",
                        str(ROOT / example), "-o", str(ours_ptx)]
            ours_s = timed(ours_cmd, args.runs)
            ref, ref_s = None, None
            if reference:
                ref_source = str(ROOT / "bench" / "reference" / reference)
                ref_cmd = [nvcc, "-O3", "-ptx", f"-arch={args.chip}",
                           ref_source, "-o", str(ref_ptx)]
                ref_s = timed(ref_cmd, args.runs)
                ref = measure(ref_ptx, pathlib.Path(reference).stem, args.chip)
            rows.append((entry, measure(ours_ptx, entry, args.chip), ref,
                         ours_s, ref_s))
            if args.cuobjdump:
                arch = ptx_stats.ptx_arch(ours_ptx, args.chip)
                subprocess.run(["ptxas", f"-arch={arch}", str(ours_ptx),
                                "-o", str(out / f"{entry}.tile.cubin")],
                               check=True)
                if reference:
                    subprocess.run([nvcc, "-O3", "-cubin",
                                    f"-arch={args.chip}", ref_source, "-o",
                                    str(out / f"{entry}.cuda.cubin")],
                                   check=True)
        print_table(rows)
        print()
        if not args.cuobjdump:
            print("SASS: skipped, no cuobjdump (pip install -r "
                  "bench/requirements.txt, or --cuobjdump BIN)")
            return 0
        status = sass_stats.compare_table(args.cuobjdump, out)
        print()
        stages_table(args, out, translate)
        print()
        if not args.triton_python:
            print("Triton: skipped, no Python with triton (pip install -r "
                  "bench/requirements.txt, or --triton-python PY)")
            return status
        print("tile against Triton, like for like (bench/triton_compare.py):")
        triton_compare.print_table(
            [(name, triton_compare.compare(args, out, name))
             for name in triton_compare.LOOPS], markdown=False)
        return status


def find_triton_python():
    """This Python when it imports triton, else None."""
    result = subprocess.run([sys.executable, "-c", "import triton"],
                            capture_output=True)
    return sys.executable if result.returncode == 0 else None


def print_table(rows):
    """The PTX table: each kernel's tile row and, where it has a reference,
    its cuda row and the ratios."""
    for _, ours, ref, _, _ in rows:
        for stats in (ours, ref) if ref else (ours,):
            loads = stats["loop_global_loads"]
            stats["instr_per_load"] = (
                round(stats["loop_instructions"] / loads, 1) if loads else 0)
    columns = ["registers", "spill_stores", "smem", "loop_instructions",
               "loop_global_loads", "instr_per_load", "loop_shared", "shuffles"]
    header = f"{'kernel':18} {'who':5} " + " ".join(f"{c:>17}" for c in columns)
    print(header + f" {'compile s':>10}")
    print("-" * len(header) + "-" * 11)
    for entry, ours, ref, ours_s, ref_s in rows:
        for who, stats, seconds in (("tile", ours, ours_s),
                                    ("cuda", ref, ref_s))[:2 if ref else 1]:
            print(f"{entry:18} {who:5} " +
                  " ".join(f"{stats.get(c, 0):>17}" for c in columns) +
                  f" {seconds:>10.3f}")
    print("\nratios tile / cuda (registers; hot-loop instructions per global "
          "load, since nvcc may unroll the loop; compile time):")
    for entry, ours, ref, ours_s, ref_s in rows:
        if ref is None:
            print(f"  {entry:18} no hand-written reference")
            continue

        def ratio(a, b):
            return f"{a / b:.2f}" if b else ("1.00" if a == b else "n/a")
        print(f"  {entry:18} registers {ratio(ours['registers'], ref['registers'])}"
              f"  loop {ratio(ours['instr_per_load'], ref['instr_per_load'])}"
              f"  compile {ratio(ours_s, ref_s)}")


if __name__ == "__main__":
    sys.exit(main())
