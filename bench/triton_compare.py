#!/usr/bin/env python3
"""tile against Triton 3.9, like for like, in sm_90 SASS (no GPU needed).

Each example is compiled by tile-translate and ptxas, and its Triton
kernel (bench/triton_examples.py) by Triton, both for sm_90, and both
told the same: pointers 16-byte aligned, the run-time sizes i32 with
nothing known of them (tile's general entry against Triton's `same`), or
every size divisible by 16 (tile's div16 variant, the general entry
where the example has none, against Triton's `div16`, the launcher's +16
specialization). Where the example divides, tile is compiled with
`--fp-div=full` (div.full.f32, as Triton's `/`); tile's default
(div.rn.f32) is compared with the Triton kernel's `tl.div_rn` form in the
extra rows.

The measure: warp-instructions per source iteration, summed over the
example's loops. For each loop of the SASS that reaches global memory (in
address order, one per source loop): the instructions of one iteration
(bench/sass_stats.py: the path with the most loads, then the fewest
instructions) times the warps, over the source iterations that iteration
runs (the bytes it moves, loaded or stored, or its tensor-core
multiply-adds, as LOOPS says, over a source iteration's: ptxas and Triton
unroll). A kernel without a loop counts
its whole function (one program does one tile CTA's work). Also each
side's registers and local memory (spills) from `cuobjdump -res-usage`.

  bench/triton_compare.py [--build build] [--triton-python PY]
                          [--cuobjdump BIN] [--markdown] [NAME ...]
"""

import argparse
import json
import pathlib
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import ptx_stats  # noqa: E402
import sass_stats  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parent.parent

# name -> (the tile example, its source loops in order: what counts a
# loop's source iterations, and how much of it a CTA does in one source
# iteration: the bytes it loads or stores, or its tensor cores'
# multiply-adds). An access that threads repeat (a row of W broadcast over
# the rows, a dot operand each warp reads whole) cannot count iterations:
# a loop that has one counts by what has none, its store or its MMAs.
LOOPS = {
    "squares": ("examples/squares.tile", [("load", 16 * 64 * 4)]),
    "softmax": ("examples/softmax.tile", []),
    "matmul": ("examples/matmul.tile", [("load", (32 * 32 + 32 * 64) * 2)]),
    "rowscale": ("examples/rowscale.tile", [("store", 16 * 128 * 4)]),
    "rowmean": ("examples/control.tile", [("load", 16 * 64 * 4)]),
    "gemm": ("examples/gemm.tile", [("load", (128 * 32 + 32 * 128) * 2)]),
    "flash_attention": ("examples/flash_attention.tile",
                        [("mma", 2 * 16 * 32 * 32)]),
    "layernorm": ("examples/layernorm.tile",
                  [("load", 16 * 128 * 4)] * 2 + [("store", 16 * 128 * 4)]),
    "embedding": ("examples/embedding.tile", [("store", 16 * 64 * 4)]),
    "transpose": ("examples/transpose.tile", []),
    "cross_entropy": ("examples/cross_entropy.tile", [("load", 16 * 128 * 4)]),
    "softmax_masked": ("examples/softmax_masked.tile",
                       [("load", 16 * 128 * 4), ("store", 16 * 128 * 4)]),
    "colsum": ("examples/colsum.tile", [("load", 32 * 128 * 4)]),
}


def per_source_iteration(cuobjdump, cubin, function, warps, loops):
    """{per_iteration, loops (each loop's share), registers, local} of
    `function` in `cubin`; per_iteration None where the SASS has not one
    loop a source loop."""
    code, labels = sass_stats.functions(
        sass_stats.disassemble(cuobjdump, cubin))[function]
    stats = dict(sass_stats.resource_usage(cuobjdump, cubin)[function])
    found = sass_stats.loops(code, labels)
    if not loops:
        stats["loops"] = []
        stats["per_iteration"] = len(sass_stats.executed(code)) * warps
        return stats
    if len(found) != len(loops):
        stats["loops"], stats["per_iteration"] = found, None
        return stats
    shares = []
    for loop, (access, source_bytes) in zip(found, loops):
        moved = (loop["mma_macs"] * warps if access == "mma" else
                 loop[access + "_bytes"] * warps * 32)
        iterations = max(1, round(moved / source_bytes))
        shares.append(loop["instructions"] * warps / iterations)
    stats["loops"] = [round(share) for share in shares]
    stats["per_iteration"] = round(sum(shares))
    return stats


def compile_tile(translate, chip, example, stem, options=()):
    """stem.cubin of `example` (tile-translate --tile-to-ptx, then ptxas),
    and whether its PTX divides with div.rn.f32."""
    ptx, cubin = stem.with_suffix(".ptx"), stem.with_suffix(".cubin")
    subprocess.run([str(translate), "--tile-to-ptx", f"--chip={chip}",
                    *options, str(example), "-o", str(ptx)], check=True)
    subprocess.run(["ptxas", f"-arch={ptx_stats.ptx_arch(ptx, chip)}", str(ptx),
                    "-o", str(cubin)], check=True)
    return cubin, "div.rn.f32" in ptx.read_text()


def tile_entries(cuobjdump, cubin):
    """(general entry, div16 entry: the general one where there is none)."""
    names = sass_stats.resource_usage(cuobjdump, cubin)
    general = next(n for n in names if not n.endswith("_div16"))
    return general, (general + "_div16" if general + "_div16" in names
                     else general)


def compile_triton(python, name, config, cubin):
    """The report of bench/triton_examples.py for one configuration."""
    return json.loads(subprocess.run(
        [python, str(ROOT / "bench" / "triton_examples.py"), name, config,
         str(cubin)], check=True, capture_output=True, text=True).stdout)


# Pairs beyond the like-for-like two (not counted against Triton): the
# gemm's with Triton's wgmma off (same-mma, div16-mma: tl.dot on mma.sync,
# as tile's), the tensor-core instruction kind tile has.
EXTRA = {"gemm": [("general", "same-mma"), ("div16", "div16-mma")]}


def compare(args, out, name):
    """The pairs of one example: (label, whether it is one of the
    like-for-like pairs, tile stats, triton stats) each."""
    example, loops = LOOPS[name]
    example = ROOT / example
    warps = int(re.search(r"@launch\((\d+)", example.read_text())[1]) // 32
    translate = pathlib.Path(args.build) / "bin" / "tile-translate"
    default, divides = compile_tile(translate, args.chip, example,
                                    out / f"{name}.tile")
    ours = {"": default}
    if divides:
        ours = {"": compile_tile(translate, args.chip, example,
                                 out / f"{name}.tile-full",
                                 ["--fp-div=full"])[0],
                "-rn": default}
    pairs = []
    for suffix, cubin in ours.items():
        general, div16 = tile_entries(args.cuobjdump, cubin)
        entries = {"general": general, "div16": div16}
        configs = [(kind, config + suffix) for kind, config in
                   (("general", "same"), ("div16", "div16"))]
        if not suffix:
            configs += EXTRA.get(name, [])
        for kind, config in configs:
            entry = entries[kind]
            theirs = out / f"{name}.triton-{config}.cubin"
            report = compile_triton(args.triton_python, name, config, theirs)
            label = kind + (" (none)" if entry == general and
                            kind == "div16" else "")
            counted = config in ("same", "div16")
            pairs.append((label + ("" if counted else f" vs {config}"),
                          counted,
                          per_source_iteration(args.cuobjdump, cubin, entry,
                                               warps, loops),
                          per_source_iteration(args.cuobjdump, theirs,
                                               report["function"],
                                               report["warps"], loops)))
    return pairs


def ratio(a, b):
    return f"{a / b:.2f}" if a is not None and b else "n/a"


def print_table(results, markdown):
    """One line a pair: the instructions, registers and local bytes of
    both, and the ratios tile / Triton."""
    titles = ["example", "pair", "tile", "triton", "ratio", "tile loops",
              "triton loops", "regs", "triton regs", "local B"]
    if markdown:
        print("| " + " | ".join(titles) + " |")
        print("|" + " --- |" * len(titles))
    else:
        print(" ".join(f"{t:>14}" for t in titles))
    for name, pairs in results:
        for label, _, ours, theirs in pairs:
            cells = [name, label, ours["per_iteration"],
                     theirs["per_iteration"],
                     ratio(ours["per_iteration"], theirs["per_iteration"]),
                     "+".join(map(str, ours["loops"])) or "-",
                     "+".join(map(str, theirs["loops"])) or "-",
                     ours["registers"], theirs["registers"],
                     f"{ours['local']}/{theirs['local']}"]
            if markdown:
                print("| " + " | ".join(map(str, cells)) + " |")
            else:
                print(" ".join(f"{str(c):>14}" for c in cells))
    counted = [(ours, theirs) for _, pairs in results
               for _, like, ours, theirs in pairs if like]
    above = sum(o["per_iteration"] is None or t["per_iteration"] is None or
                o["per_iteration"] > t["per_iteration"] for o, t in counted)
    print(f"\n{above} of {len(counted)} like-for-like pairs above Triton "
          f"(the rows 'vs' another configuration not counted); registers above 1.1x Triton's (and +8): "
          f"{sum(o['registers'] > max(1.1 * t['registers'], t['registers'] + 8) for o, t in counted)};"
          f" spills (local B > 0): {sum(o['local'] > 0 for o, _ in counted)}")


def main():
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("names", nargs="*", metavar="NAME",
                        help="examples to compare (default: all of LOOPS)")
    parser.add_argument("--build", default=str(ROOT / "build"))
    parser.add_argument("--chip", default="sm_90")
    parser.add_argument("--cuobjdump", default=sass_stats.find_cuobjdump())
    parser.add_argument("--triton-python", default=sys.executable,
                        help="a Python with Triton 3.9 (bench/"
                             "requirements.txt); default: this one")
    parser.add_argument("--markdown", action="store_true",
                        help="print the table as Markdown")
    args = parser.parse_args()
    unknown = [name for name in args.names if name not in LOOPS]
    if unknown:
        parser.error(f"unknown example {', '.join(unknown)}; known: "
                     f"{', '.join(LOOPS)}")
    if not args.cuobjdump:
        parser.error("no cuobjdump (pip install -r bench/requirements.txt, "
                     "or --cuobjdump BIN)")
    with tempfile.TemporaryDirectory() as tmp:
        results = [(name, compare(args, pathlib.Path(tmp), name))
                   for name in args.names or LOOPS]
    print_table(results, args.markdown)
    return 0


if __name__ == "__main__":
    sys.exit(main())
