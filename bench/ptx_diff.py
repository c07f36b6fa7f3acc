#!/usr/bin/env python3
"""The PTX of every example before and after a change: which examples
changed and how.

Each side is a build directory (its bin/tile-translate compiles every
examples/*.tile of this checkout, or of --examples DIR) or a directory of
PTX files saved by an earlier run (--save). For every example it prints
`same` (byte-identical PTX), or, for each entry that changed, the
instruction count deltas by kind (ld.global.v4, st.shared, shfl, bar,
div.rn, ...) of the whole entry and of its hot loop (bench/ptx_stats.py),
and its registers and spill bytes (ptxas -v), so that every change of a
redesign can be explained. Exit status 0; 2 when an example has no PTX
on a side (it does not compile there).

To compare two commits, build the older one in its own worktree:
  git worktree add /tmp/before REV && (cd /tmp/before && utils/build.sh)
  bench/ptx_diff.py /tmp/before/build build

  bench/ptx_diff.py [--chip sm_90] [--examples DIR] [--save DIR]
                    [--option OPT ...] [--ptxas BIN] BEFORE AFTER
"""

import argparse
import collections
import pathlib
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import ptx_stats  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parent.parent
# Opcodes whose second part says what they do (the state space of an
# access, the rounding of a division): kept in the kind.
SPACES = ("ld", "st", "atom", "red", "cp", "div", "rcp", "sqrt", "rsqrt",
          "ex2", "lg2", "mma", "wgmma", "ldmatrix", "cvt")


def kind(opcode):
    """ld.global.nc.v4.f32 -> ld.global.v4; div.rn.f32 -> div.rn; mul.lo.s32
    -> mul."""
    parts = opcode.split(".")
    name = parts[0]
    if name in SPACES and len(parts) > 1:
        name += "." + parts[1]
    vector = next((p for p in parts if p in ("v2", "v4", "v8")), None)
    return name + ("." + vector if vector else "")


def compile_side(side, examples, chip, options, save):
    """{example stem: PTX text or None where it does not compile}."""
    side = pathlib.Path(side)
    translate = side / "bin" / "tile-translate"
    if not translate.exists():  # a directory of saved PTX
        return {path.stem: path.read_text() for path in
                sorted(side.glob("*.ptx"))}
    result = {}
    for example in examples:
        run = subprocess.run([str(translate), "--tile-to-ptx",
                              f"--chip={chip}", *options, str(example),
                              "-o", "-"], capture_output=True, text=True)
        result[example.stem] = run.stdout if run.returncode == 0 else None
        if save and run.returncode == 0:
            pathlib.Path(save).mkdir(parents=True, exist_ok=True)
            (pathlib.Path(save) / f"{example.stem}.ptx").write_text(run.stdout)
    return result


def kinds(lines):
    return collections.Counter(kind(op) for op in ptx_stats.instructions(lines))


def resources(ptx, chip, ptxas):
    """{entry: {registers, spill_stores, ...}} by ptxas -v ({} if ptxas
    rejects it)."""
    with tempfile.NamedTemporaryFile("w", suffix=".ptx") as file:
        file.write(ptx)
        file.flush()
        try:
            return ptx_stats.ptxas_report(file.name, chip, ptxas)
        except RuntimeError:
            return {}


def deltas(before, after):
    """'+2 ld.global.v4, -8 ld.global' for two Counters, largest first."""
    keys = set(before) | set(after)
    changes = [(after[k] - before[k], k) for k in keys if after[k] != before[k]]
    changes.sort(key=lambda c: (-abs(c[0]), c[1]))
    return ", ".join(f"{d:+d} {k}" for d, k in changes) or "no count changed"


def describe(name, before, after, chip, ptxas):
    """Lines saying how example `name`'s PTX changed."""
    if before == after:
        return [f"{name}: same"]
    old, new = ptx_stats.entry_bodies(before), ptx_stats.entry_bodies(after)
    old_res = resources(before, chip, ptxas)
    new_res = resources(after, chip, ptxas)
    lines = [f"{name}: changed"]
    for entry in sorted(set(old) | set(new)):
        if entry not in new or entry not in old:
            lines.append(f"  {entry}: {'removed' if entry in old else 'added'}")
            continue
        if old[entry] == new[entry]:
            continue
        total = deltas(kinds(old[entry]), kinds(new[entry]))
        loop = deltas(kinds(ptx_stats.hot_loop(old[entry])),
                      kinds(ptx_stats.hot_loop(new[entry])))
        regs = [f"{key} {old_res.get(entry, {}).get(key, '?')} -> "
                f"{new_res.get(entry, {}).get(key, '?')}"
                for key in ("registers", "spill_stores")
                if old_res.get(entry, {}).get(key) !=
                new_res.get(entry, {}).get(key)]
        lines.append(f"  {entry}: {len(ptx_stats.instructions(old[entry]))}"
                     f" -> {len(ptx_stats.instructions(new[entry]))} "
                     f"instructions: {total}")
        lines.append(f"    hot loop: {loop}")
        if regs:
            lines.append(f"    {'; '.join(regs)}")
    return lines


def main():
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("before", help="a build directory or saved PTX")
    parser.add_argument("after", help="a build directory or saved PTX")
    parser.add_argument("--chip", default="sm_90")
    parser.add_argument("--examples", default=str(ROOT / "examples"),
                        help="the .tile files to compile (default: "
                             "examples/ of this checkout)")
    parser.add_argument("--option", action="append", default=[],
                        help="a tile-translate option for both sides")
    parser.add_argument("--ptxas", default=shutil.which("ptxas") or
                        "/usr/local/cuda/bin/ptxas")
    parser.add_argument("--save", metavar="DIR",
                        help="write the AFTER side's PTX as DIR/NAME.ptx")
    args = parser.parse_args()
    examples = sorted(pathlib.Path(args.examples).glob("*.tile"))
    before = compile_side(args.before, examples, args.chip, args.option, None)
    after = compile_side(args.after, examples, args.chip, args.option,
                         args.save)
    status, changed = 0, 0
    for name in sorted(set(before) | set(after)):
        old, new = before.get(name), after.get(name)
        if old is None or new is None:
            sides = [side for side, ptx in (("before", old), ("after", new))
                     if ptx is None]
            print(f"{name}: no PTX {' or '.join(sides)} (it does not compile, "
                  f"or was not saved)")
            status = 2
            continue
        lines = describe(name, old, new, args.chip, args.ptxas)
        changed += lines[0].endswith("changed")
        print("\n".join(lines))
    print(f"{changed} of {len(set(before) | set(after))} examples changed")
    return status


if __name__ == "__main__":
    sys.exit(main())
