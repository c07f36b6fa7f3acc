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
(bench/sass_stats.py) of both, compiled for the same chip, and a third
the pipelined f16 GEMM at 3 and 8 stages, in shared memory by cp.async and
in registers (--stages-only: that table alone).

  bench/run.py [--build build] [--chip sm_90] [--runs 5] [--cuobjdump BIN]
               [--stages-only]
"""

import argparse
import json
import pathlib
import re
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


# The Triton comparison (bench/triton_examples.py): each example's kernel
# name, and what one iteration of its source loop loads from global memory
# (a loop's loaded bytes over this is the source iterations it runs: ptxas
# and Triton unroll); softmax has no loop, and counts the whole kernel for
# its CTA's 16 rows.
TRITON_EXAMPLES = {
    "squares": 16 * 64 * 4,
    "softmax": None,
    "matmul": (32 * 32 + 32 * 64) * 2,
    "rowscale": 16 * 128 * 4,
    "rowmean": 16 * 64 * 4,
    "gemm": (128 * 32 + 32 * 128) * 2,
}
# Configurations beyond same, div16 and pref (triton_examples.py): the
# gemm's same-shape kernels with Triton's wgmma off (DISABLE_MMA_V3), on
# mma.sync as tile's: the like-for-like HMMA comparison; softmax's with
# tl.div_rn, correctly rounded as tile's default `/` (Triton's `/` is
# div.full.f32): the like-for-like comparison of tile's default.
TRITON_EXTRA_CONFIGS = {"gemm": ("same-mma", "div16-mma"),
                        "softmax": ("div16-rn",)}
TILE_ROWS = 16  # rows of one tile CTA, for kernels with no loop


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
        subprocess.run(["ptxas", f"-arch={args.chip}", str(ptx), "-o",
                        str(cubin)], check=True)
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


def run_times(command, runs, env=None):
    """Wall seconds of `runs` runs of `command`, each a fresh process."""
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(command, check=True, capture_output=True, env=env)
        times.append(time.perf_counter() - start)
    return times


def per_source_iteration(stats, loop_bytes, warps, rows):
    """SASS instructions the whole CTA issues per iteration of the tile
    example's source loop: a warp's loop instructions times the warps, over
    the source iterations one loop iteration runs (its loaded bytes over a
    source iteration's); for a kernel with no loop, the whole kernel's
    instructions times the warps, per TILE_ROWS rows."""
    if loop_bytes and stats["loop_load_bytes"]:
        iterations = stats["loop_load_bytes"] * warps * 32 / loop_bytes
        return stats["loop_instructions"] * warps / iterations
    return stats["instructions"] * warps * TILE_ROWS / (rows or TILE_ROWS)


def compile_tile(args, translate, example, stem, options):
    """The cubin of `example` compiled with tile-translate's `options`
    (stem.ptx, then ptxas to stem.cubin)."""
    ptx, cubin = stem.with_suffix(".ptx"), stem.with_suffix(".cubin")
    subprocess.run([str(translate), "--tile-to-ptx", f"--chip={args.chip}",
                    *options, str(example), "-o", str(ptx)], check=True)
    subprocess.run(["ptxas", f"-arch={args.chip}", str(ptx), "-o",
                    str(cubin)], check=True)
    return cubin


def triton_table(args, out, translate):
    """tile against Triton (three configurations, triton_examples.py) and the
    hand-written CUDA, in sm_90 SASS: the rows, for print_triton_table."""
    import sass_stats as sass
    rows = []
    for name, loop_bytes in TRITON_EXAMPLES.items():
        example = next(k for k, v in KERNELS.items() if v[0] == name)
        threads = int(re.search(r"@launch\((\d+)",
                                (ROOT / example).read_text()).group(1))
        # tile/div16: the variant a launch with sizes divisible by 16 runs
        # (the same cubin; the general entry when the kernel has none).
        cubin = out / f"{name}.tile.cubin"
        variant = f"{name}_div16"
        if variant not in sass.resource_usage(args.cuobjdump, cubin):
            variant = name
        entries = [("tile", cubin, name, threads // 32, None, None),
                   ("tile/div16", cubin, variant, threads // 32, None, None)]
        # tile/div-full: compiled with --fp-div=full (div.full.f32, as
        # Triton divides), for the examples whose PTX has an IEEE division.
        if "div.rn.f32" in (out / f"{name}.tile.ptx").read_text():
            entries.append(("tile/div-full", compile_tile(
                args, translate, ROOT / example, out / f"{name}.div-full",
                ["--fp-div=full"]), name, threads // 32, None, None))
        for config in ("same", "div16", "pref") + \
                TRITON_EXTRA_CONFIGS.get(name, ()):
            cubin = out / f"{name}.triton-{config}.cubin"
            cold = run_times([args.triton_python, str(ROOT / "bench" /
                              "triton_examples.py"), name, config, str(cubin),
                              str(args.runs)], 1)[0]
            report = json.loads(subprocess.run(
                [args.triton_python, str(ROOT / "bench" / "triton_examples.py"),
                 name, config, str(cubin), str(args.runs)],
                check=True, capture_output=True, text=True).stdout)
            entries.append((f"triton/{config}", cubin, report["function"],
                            report["warps"], report["rows"],
                            (cold, statistics.median(report["warm"]))))
        if (out / f"{name}.cuda.cubin").exists():
            entries.append(("cuda", out / f"{name}.cuda.cubin", name,
                            threads // 32, None, None))
        for who, cubin, function, warps, program_rows, seconds in entries:
            usage = sass.resource_usage(args.cuobjdump, cubin)[function]
            parsed = sass.functions(sass.disassemble(args.cuobjdump, cubin))
            stats = sass.counts(*parsed[function])
            stats.update(usage)
            stats["cta_per_iteration"] = round(per_source_iteration(
                stats, loop_bytes, warps, program_rows))
            # Tensor-core MMAs (HMMA) the CTA issues per source iteration,
            # counted like the instructions.
            mma = dict(stats, loop_instructions=stats["loop_mma"],
                       instructions=stats["loop_mma"])
            stats["mma_per_iteration"] = round(per_source_iteration(
                mma, loop_bytes, warps, program_rows)) if loop_bytes else 0
            # Hot-loop instructions per 1024 tensor-core multiply-adds: the
            # measure of kernels of different CTA shapes or MMA kinds.
            macs = stats["loop_mma_macs"]
            stats["per_kmac"] = round(1024 * stats["loop_instructions"] /
                                      macs, 2) if macs else "-"
            stats["warps"] = warps
            prefix = "loop_" if loop_bytes else "function_"
            stats["vector_bytes"] = stats[prefix + "max_load_bytes"]
            stats["fma"] = stats[prefix + "fma_share"]
            if who == "tile":
                # One compile makes both variants.
                command = [str(translate), "--tile-to-ptx",
                           f"--chip={args.chip}", str(ROOT / example), "-o",
                           str(out / f"{name}.again.ptx")]
                times = run_times(command, args.runs + 1)
                seconds = tile_seconds = (times[0],
                                          statistics.median(times[1:]))
            elif who == "tile/div16":
                seconds = tile_seconds
                stats["variant"] = function
            elif who == "tile/div-full":
                times = run_times([str(translate), "--tile-to-ptx",
                                   f"--chip={args.chip}", "--fp-div=full",
                                   str(ROOT / example), "-o",
                                   str(out / f"{name}.again.ptx")],
                                  args.runs + 1)
                seconds = (times[0], statistics.median(times[1:]))
            stats["cold_s"], stats["warm_s"] = seconds or ("-", "-")
            rows.append((name, who, stats))
    return rows


def print_triton_table(rows):
    columns = [("warps", "warps"), ("registers", "regs"), ("local", "local B"),
               ("shared", "smem B"), ("cta_per_iteration", "CTA instr/it"),
               ("loop_instructions", "loop instr"),
               ("mma_per_iteration", "CTA HMMA/it"), ("loop_mma", "loop HMMA"),
               ("loop_ldsm", "loop LDSM"), ("per_kmac", "instr/kMAC"),
               ("vector_bytes", "load B"), ("fma", "FMA share"),
               ("cold_s", "cold s"), ("warm_s", "warm s")]
    print("sm_90 SASS, tile against Triton 3.9 and the hand-written CUDA. "
          "CTA instr/it: the\ninstructions the whole CTA issues per iteration "
          "of the tile example's source loop\n(a warp's hot-loop instructions "
          "x warps / source iterations a loop iteration runs;\nsoftmax, which "
          "has no loop: the whole kernel per 16 rows). triton/same: tile's "
          "shapes\nand threads, told what tile knows; /div16: and the "
          "launcher's divisibility by 16;\n/pref: Triton's own block sizes "
          "(gemm: its tutorial kernel and Hopper config); /same-mma,\n"
          "/div16-mma: same and div16 with Triton's wgmma off, on mma.sync "
          "as tile's; /div16-rn:\ndiv16 with `/` as tl.div_rn (div.rn.f32, "
          "as tile's default). load B:\nthe widest global load of a thread. CTA "
          "HMMA/it: the CTA's tensor-core MMAs (HMMA,\nor wgmma's HGMMA) per "
          "source iteration; loop HMMA, loop LDSM: a warp's in one loop\n"
          "iteration; instr/kMAC: a warp's loop instructions per 1024 of its "
          "tensor-core\nmultiply-adds (HGMMA.64xNxK: 64 N K / 4 a warp). "
          "FMA share: FFMA/HFMA2 "
          "of the float arithmetic. local B: local memory (spills).\nCompile: "
          "tile-translate --tile-to-ptx (cold: first run); Triton in a fresh "
          "process\n(cold: import and compile) and again in that process "
          "(warm), no cache.")
    print("tile/div16: the entry a launch with every size a multiple of 16 "
          "runs (tile's\ndiv16 variant, the general kernel where it has "
          "none: " + ", ".join(
              name for name, who, stats in rows
              if who == "tile/div16" and stats["variant"] == name) + ").")
    print("tile/div-full: compiled with --fp-div=full, f32 `/` as div.full.f32 "
          "(at most 2 ulp),\nas Triton compiles `/`; tile's default, the tile "
          "rows, is div.rn.f32 (correctly\nrounded, as nvcc's default).")
    header = f"{'kernel':9} {'who':16} " + " ".join(
        f"{title:>12}" for _, title in columns)
    print(header)
    print("-" * len(header))

    def cell(value):
        if isinstance(value, float):
            return f"{value:>12.3f}"
        return f"{value:>12}"
    for name, who, stats in rows:
        print(f"{name:9} {who:16} " +
              " ".join(cell(stats[key]) for key, _ in columns))
    print("\ntargets (tile / triton): CTA instructions per iteration against "
          "triton/same and\ntriton/div16 (<= 1; div16/div16: tile's div16 "
          "variant against triton/div16),\nregisters against "
          "triton/same (<= 1.10), cold compile (< 0.5):")
    by = {}
    for name, who, stats in rows:
        by.setdefault(name, {})[who] = stats
    for name, kinds in by.items():
        ours, same, div = kinds["tile"], kinds["triton/same"], \
            kinds["triton/div16"]
        ours_div = kinds["tile/div16"]

        def ratio(a, b):
            return f"{a / b:.2f}" if b else "n/a"
        print(f"  {name:9} instr {ratio(ours['cta_per_iteration'], same['cta_per_iteration'])}"
              f"  instr/div16 {ratio(ours['cta_per_iteration'], div['cta_per_iteration'])}"
              f"  div16/div16 {ratio(ours_div['cta_per_iteration'], div['cta_per_iteration'])}"
              f"  registers {ratio(ours['registers'], same['registers'])}"
              f"  compile {ratio(ours['cold_s'], same['cold_s'])}")
        full = kinds.get("tile/div-full")
        if full:
            # Like for like: both divide with div.full.f32.
            print(f"  {name:9} div-full: instr {ratio(full['cta_per_iteration'], same['cta_per_iteration'])}"
                  f"  instr/div16 {ratio(full['cta_per_iteration'], div['cta_per_iteration'])}"
                  f"  registers {ratio(full['registers'], same['registers'])}"
                  f"  registers/div16 {ratio(full['registers'], div['registers'])}")
        rn = kinds.get("triton/div16-rn")
        if rn:
            # Like for like: both divide with div.rn.f32 (tile's default).
            print(f"  {name:9} div-rn: instr/div16-rn {ratio(ours_div['cta_per_iteration'], rn['cta_per_iteration'])}"
                  f"  registers/div16-rn {ratio(ours_div['registers'], rn['registers'])}")
    mma_rows = {name: kinds for name, kinds in by.items()
                if "triton/same-mma" in kinds}
    if mma_rows:
        print("\ntensor cores (issue 12): CTA instructions per iteration "
              "against Triton's kernel of\nthe same shape on mma.sync "
              "(<= 1.25), no spills (local B), the same HMMA a CTA\nan "
              "iteration; instructions per kMAC against triton/pref:")
    for name, kinds in mma_rows.items():
        ours, ours_div = kinds["tile"], kinds["tile/div16"]
        same, div = kinds["triton/same-mma"], kinds["triton/div16-mma"]
        print(f"  {name:9} instr {ratio(ours['cta_per_iteration'], same['cta_per_iteration'])}"
              f"  div16/div16 {ratio(ours_div['cta_per_iteration'], div['cta_per_iteration'])}"
              f"  local B {ours['local']}, {ours_div['local']}"
              f"  HMMA/it {ours['mma_per_iteration']}, {ours_div['mma_per_iteration']}"
              f" (triton {same['mma_per_iteration']}, {div['mma_per_iteration']})"
              f"  instr/kMAC {ratio(ours['per_kmac'], kinds['triton/pref']['per_kmac'])}"
              f"  div16 {ratio(ours_div['per_kmac'], kinds['triton/pref']['per_kmac'])}")


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
                subprocess.run(["ptxas", f"-arch={args.chip}", str(ours_ptx),
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
        print_triton_table(triton_table(args, out, translate))
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
