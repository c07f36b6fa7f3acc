"""Reads SASS (`cuobjdump -sass`, or nvdisasm's listing): the hot loop of
each function and what it executes per iteration.

The loop is found as in ptx_stats.py: blocks split at branch targets and
after control transfers, edges from branches and fall-through, the loops
are the strongly connected blocks, and the hot loop is the smallest one
that loads from global memory. Only blocks reachable from the entry count,
so the `BRA self` padding after the last EXIT is not a loop.

  sass_stats.py --cuobjdump BIN DIR   table of DIR/NAME.tile.cubin against
                                      DIR/NAME.cuda.cubin, with ratios
  sass_stats.py --sass FILE FUNCTION  the counts of one function of a saved
                                      listing, a `key: value` line each
  sass_stats.py --sass FILE FUNCTION --loops
                                      each loop of it, a line each
"""

import argparse
import os
import pathlib
import re
import shutil
import subprocess
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import ptx_stats  # noqa: E402

FUNCTION = re.compile(r"^\s*Function\s*:\s*(\S+)")     # cuobjdump
SECTION = re.compile(r"^\s*\.text\.([\w$.]+):")        # nvdisasm
LABEL = re.compile(r"^\s*(\.L_x_\d+):")
INSTRUCTION = re.compile(
    r"/\*([0-9a-f]+)\*/\s+(@!?U?P(?:\d+|T)\s+)?([A-Z][A-Z0-9_.x]*)([^;]*);")
TARGET = re.compile(r"(0x[0-9a-f]+|\.L_x_\d+)\W*$")

# Opcodes that leave the block; the first four take a target.
TRANSFERS = ("BRA", "JMP", "BRX", "JMX", "EXIT", "RET", "KILL")
JUMPS = ("BRA", "JMP")


class Instruction:
    def __init__(self, address, predicate, opcode, operands):
        self.address, self.opcode = int(address, 16), opcode
        self.predicated = bool(predicate) and predicate.strip() != "@PT"
        self.predicate = predicate.strip() if self.predicated else None
        self.base = opcode.split(".")[0]
        self.operands = [o.strip() for o in operands.split(",")]
        target = TARGET.search(operands.strip())
        self.target = target.group(1) if target and self.base in JUMPS else None

    def writes(self, register):
        """Whether this writes predicate `register`: the first operand is a
        destination, and so is the second of a compare or PLOP3."""
        pair = self.base.endswith("SETP") or self.base == "PLOP3"
        return register in self.operands[:2 if pair else 1]

    def ends_block(self):
        return self.base in TRANSFERS

    def falls_through(self):
        # BRA.DIV branches only when the warp diverged: conditional.
        return self.predicated or self.opcode.startswith("BRA.DIV") or \
            self.base not in TRANSFERS


def functions(sass):
    """Maps each function name to its instructions and its labels
    (label -> index of the instruction that follows it)."""
    result, current = {}, None
    for line in sass.splitlines():
        header = FUNCTION.match(line) or SECTION.match(line)
        if header:
            current = result.setdefault(header.group(1), ([], {}))
            continue
        if current is None:
            continue
        label = LABEL.match(line)
        if label:
            current[1][label.group(1)] = len(current[0])
            continue
        match = INSTRUCTION.search(line)
        if match:
            current[0].append(Instruction(*match.groups()))
    return result


def basic_blocks(code, labels):
    """Blocks of instructions and their successors; unreachable blocks get
    no successors, so they can form no loop."""
    by_address = {instr.address: i for i, instr in enumerate(code)}

    def index_of(target):
        if target.startswith(".L_x_"):
            return labels.get(target)
        return by_address.get(int(target, 16))

    leaders = {0} | set(labels.values())
    for i, instr in enumerate(code):
        if instr.target is not None and index_of(instr.target) is not None:
            leaders.add(index_of(instr.target))
        if instr.ends_block():
            leaders.add(i + 1)
    starts = sorted(l for l in leaders if l < len(code))
    block_of = {start: b for b, start in enumerate(starts)}
    bodies = [code[s:e] for s, e in zip(starts, starts[1:] + [len(code)])]
    graph = []
    for b, body in enumerate(bodies):
        successors = []
        for instr in body:
            if instr.target is not None and index_of(instr.target) in block_of:
                successors.append(block_of[index_of(instr.target)])
        if (not body or body[-1].falls_through()) and b + 1 < len(bodies):
            successors.append(b + 1)
        graph.append(successors)
    return bodies, ptx_stats.reachable_edges(graph)


def executed(code):
    """The instructions that do work: NOP padding is not counted."""
    return [instr for instr in code if instr.base != "NOP"]


def on_edge(bodies, graph):
    """What a block runs on its way to each successor: where the block ends
    in a branch on a predicate, the instructions of the block guarded by
    that predicate run only on the edge where it holds (ptxas if-converts a
    short guarded path into predicated instructions before the branch)."""
    def run(block, successor):
        body = bodies[block]
        last = body[-1] if body else None
        if not last or last.base not in JUMPS or not last.predicated or \
                len(set(graph[block])) != 2:
            return body
        taken = successor != block + 1
        negated, register = last.predicate.startswith("@!"), \
            last.predicate.lstrip("@!")
        # Only what follows the last write of the predicate shares it.
        start = max((i + 1 for i, instr in enumerate(body)
                     if instr.writes(register)), default=0)
        return body[:start] + [
            instr for instr in body[start:]
            if instr is last or not instr.predicated or
            instr.predicate.lstrip("@!") != register or
            (instr.predicate.startswith("@!") == negated) == taken]
    return run


GLOBAL_LOADS = ("LDG", "LDGSTS")  # LDGSTS: cp.async, global to shared
FMAS = ("FFMA", "HFMA2", "DFMA")
FLOAT_ARITHMETIC = FMAS + ("FMUL", "FADD", "HMUL2", "HADD2", "DMUL", "DADD")


def load_bytes(instr):
    """Bytes one thread's global load moves (LDG.E.128: 16, LDG.E: 4)."""
    parts = instr.opcode.split(".")
    for width, size in (("128", 16), ("64", 8), ("U16", 2), ("S16", 2),
                        ("U8", 1), ("S8", 1)):
        if width in parts:
            return size
    return 4


def loaded_bytes(code, opcodes=GLOBAL_LOADS):
    """Global bytes a thread loads (or, with opcodes ("STG",), stores) in
    one pass over `code`: accesses under a predicate and under its
    negation are alternatives (ptxas if-converts two paths into `@P` and
    `@!P` instructions that both issue, one of which loads), so each
    predicate register counts the larger of its two sides. Where the
    register is rewritten between them this counts too few bytes, so too
    few source iterations: never a smaller figure."""
    plain, sides = 0, {}
    for instr in code:
        if instr.base not in opcodes:
            continue
        if not instr.predicated:
            plain += load_bytes(instr)
            continue
        register = instr.predicate.lstrip("@!")
        side = sides.setdefault(register, [0, 0])
        side[instr.predicate.startswith("@!")] += load_bytes(instr)
    return plain + sum(max(side) for side in sides.values())


def loops(code, labels):
    """Every loop of a function that loads or stores global memory, in the
    order of its first instruction: one iteration of each (see
    ptx_stats.iteration: the path with the most global loads, then the
    fewest instructions), as {instructions, load_bytes, store_bytes} a
    thread, and the tensor-core multiply-adds of a warp (mma_macs). A loop
    nested in another is part of its iteration."""
    bodies, graph = basic_blocks(code, labels)
    result = []
    for component in ptx_stats.strongly_connected(graph):
        lines = executed(ptx_stats.iteration(
            component, bodies, graph,
            lambda loop: sum(i.base in GLOBAL_LOADS for i in loop),
            lambda loop: len(executed(loop)), on_edge(bodies, graph)))
        loaded, stored = loaded_bytes(lines), loaded_bytes(lines, ("STG",))
        if loaded or stored:
            start = min(i.address for b in component for i in bodies[b])
            result.append((start, {
                "instructions": len(lines), "load_bytes": loaded,
                "store_bytes": stored,
                "mma_macs": sum(mma_macs(i) for i in lines)}))
    return [stats for _, stats in sorted(result, key=lambda r: r[0])]


def arithmetic(code):
    """Global bytes loaded a thread, the widest load, and the share of the
    float arithmetic that is fused multiply-add, of `code`."""
    loads = [load_bytes(i) for i in code if i.base in GLOBAL_LOADS]
    floats = [i.base for i in code if i.base in FLOAT_ARITHMETIC]
    return {"load_bytes": loaded_bytes(code),
            "max_load_bytes": max(loads, default=0),
            "fma_share": round(sum(op in FMAS for op in floats) /
                               len(floats), 2) if floats else 0}


# Multiply-adds one warp's tensor-core instruction performs, by its shape:
# HMMA.MNK (mma.sync: 16816 is m16n8k16, the warp's own), and HGMMA.MxNxK
# (wgmma: the warpgroup's, each of its 4 warps issuing it, so a quarter a
# warp).
HMMA_SHAPES = {"16816": 16 * 8 * 16, "1688": 16 * 8 * 8, "16832": 16 * 8 * 32,
               "884": 8 * 8 * 4}


def mma_macs(instr):
    """Multiply-adds a warp's `instr` contributes (0 for any other op)."""
    parts = instr.opcode.split(".")
    if instr.base in ("HMMA", "IMMA") and len(parts) > 1:
        return HMMA_SHAPES.get(parts[1], 0)
    if instr.base in ("HGMMA", "IGMMA") and len(parts) > 1:
        shape = re.fullmatch(r"(\d+)x(\d+)x(\d+)", parts[1])
        if shape:
            m, n, k = map(int, shape.groups())
            return m * n * k // 4
    return 0


def counts(code, labels):
    bodies, graph = basic_blocks(code, labels)
    loop = ptx_stats.smallest_loop(
        bodies, graph, lambda loop: sum(i.base in GLOBAL_LOADS for i in loop),
        lambda loop: len(executed(loop)), on_edge(bodies, graph))
    ops = [instr.base for instr in executed(loop)]
    result = {
        "loop_instructions": len(ops),
        "loop_global_loads": sum(op in GLOBAL_LOADS for op in ops),
        "loop_global_stores": ops.count("STG"),
        "loop_shared": sum(op in ("LDS", "STS", "LDSM") for op in ops),
        "loop_shuffles": ops.count("SHFL"),
        "loop_mma": sum(op.endswith("MMA") for op in ops),
        "loop_ldsm": ops.count("LDSM"),
        "loop_mma_macs": sum(mma_macs(i) for i in executed(loop)),
        "instructions": len(executed(code)),
    }
    result.update({"loop_" + key: value
                   for key, value in arithmetic(executed(loop)).items()})
    result.update({"function_" + key: value
                   for key, value in arithmetic(executed(code)).items()})
    # cp.async (global to shared), counted in the global loads too; and the
    # iteration that issues the most of them, the fewest instructions among
    # those: the aligned path of a loop whose copies fall back to loads and
    # stores when a chunk is not aligned at run time (the iteration above
    # takes the path with the most global loads: that fallback).
    result["loop_async_copies"] = ops.count("LDGSTS")
    result["async_copies"] = sum(i.base == "LDGSTS" for i in executed(code))
    copying = [i.base for i in executed(ptx_stats.smallest_loop(
        bodies, graph, lambda loop: sum(i.base == "LDGSTS" for i in loop),
        lambda loop: len(executed(loop)), on_edge(bodies, graph)))]
    result["copy_loop_async_copies"] = copying.count("LDGSTS")
    result["copy_loop_plain_loads"] = copying.count("LDG")
    result["copy_loop_instructions"] = len(copying)
    return result


def resource_usage(cuobjdump, cubin):
    """{function: {registers, shared, local}} from cuobjdump -res-usage."""
    result = subprocess.run([cuobjdump, "-res-usage", str(cubin)],
                            capture_output=True, text=True, timeout=60)
    usage, current = {}, None
    for line in result.stdout.splitlines():
        header = re.match(r"\s*Function\s+([\w$.]+):", line)
        if header:
            current = header.group(1)
            continue
        fields = dict(re.findall(r"(\w+):(\d+)", line))
        if current and "REG" in fields:
            usage[current] = {"registers": int(fields["REG"]),
                              "shared": int(fields.get("SHARED", 0)),
                              "local": int(fields.get("LOCAL", 0))}
    return usage


def find_cuobjdump():
    """cuobjdump on PATH, in $CUDA_HOME/bin or /usr/local/cuda/bin, or from
    pip's nvidia-cuda-cuobjdump (bench/requirements.txt) for this Python;
    None when there is none."""
    candidates = [shutil.which("cuobjdump"),
                  os.path.join(os.environ.get("CUDA_HOME", "/usr/local/cuda"),
                               "bin", "cuobjdump"),
                  "/usr/local/cuda/bin/cuobjdump"]
    candidates += [os.path.join(path, "nvidia", "cu13", "bin", "cuobjdump")
                   for path in sys.path]
    return next((c for c in candidates if c and os.access(c, os.X_OK)), None)


def disassemble(cuobjdump, cubin, timeout=60):
    result = subprocess.run([cuobjdump, "-sass", str(cubin)],
                            capture_output=True, text=True, timeout=timeout)
    if result.returncode != 0:
        raise RuntimeError(f"{cuobjdump} -sass {cubin} failed:\n"
                           f"{result.stderr.strip()}")
    return result.stdout


def compare_table(cuobjdump, directory, save=None):
    """Prints the hot-loop counts of DIR/NAME.tile.cubin and
    DIR/NAME.cuda.cubin for every NAME, then the ratios tile / cuda.
    Returns 0, or 1 when a cubin could not be read."""
    directory = pathlib.Path(directory)
    columns = {"loop_instructions": "loop", "loop_global_loads": "LDG",
               "instr_per_load": "loop/LDG", "loop_global_stores": "STG",
               "loop_shared": "LDS+STS", "loop_shuffles": "SHFL",
               "loop_mma": "MMA", "instructions": "function"}
    header = f"{'kernel':18} {'who':5} " + " ".join(
        f"{title:>9}" for title in columns.values())
    print("SASS of the hot loop, one iteration (NOPs not counted): "
          "instructions, global loads and stores, shared accesses, shuffles, "
          "MMAs; 'function' counts the whole kernel")
    print(header)
    print("-" * len(header))
    status, rows = 0, {}
    for ours in sorted(directory.glob("*.tile.cubin")):
        name = ours.name[:-len(".tile.cubin")]
        for who, cubin in (("tile", ours),
                           ("cuda", directory / f"{name}.cuda.cubin")):
            if not cubin.exists():
                print(f"{name:18} {who:5} (no {cubin.name})")
                continue
            try:
                sass = disassemble(cuobjdump, cubin)
            except (RuntimeError, subprocess.TimeoutExpired, OSError) as error:
                print(f"{name:18} {who:5} error: {error}")
                status = 1
                continue
            if save is not None:
                pathlib.Path(save).mkdir(parents=True, exist_ok=True)
                pathlib.Path(save, f"{cubin.stem}.sass").write_text(sass)
            parsed = functions(sass)
            if len(parsed) == 1:  # NAME_pipelined against NAME's reference
                parsed = {name: next(iter(parsed.values()))}
            if name not in parsed:
                print(f"{name:18} {who:5} no function '{name}' in {cubin.name}")
                status = 1
                continue
            stats = counts(*parsed[name])
            loads = stats["loop_global_loads"]
            stats["instr_per_load"] = (
                round(stats["loop_instructions"] / loads, 1) if loads else 0)
            rows.setdefault(name, {})[who] = stats
            print(f"{name:18} {who:5} " +
                  " ".join(f"{stats[c]:>9}" for c in columns))

    def ratio(a, b):
        return f"{a / b:.2f}" if b else ("1.00" if a == b else "n/a")

    print("\nratios tile / cuda (hot-loop instructions per global load, since "
          "nvcc may unroll the loop; loop instructions; whole function):")
    for name, pair in rows.items():
        if "tile" in pair and "cuda" in pair:
            ours, ref = pair["tile"], pair["cuda"]
            print(f"  {name:18} per-load "
                  f"{ratio(ours['instr_per_load'], ref['instr_per_load'])}"
                  f"  loop {ratio(ours['loop_instructions'], ref['loop_instructions'])}"
                  f"  function {ratio(ours['instructions'], ref['instructions'])}")
    return status


def main():
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter)
    group = parser.add_mutually_exclusive_group(required=True)
    group.add_argument("--cuobjdump", metavar="BIN")
    group.add_argument("--sass", metavar="FILE")
    parser.add_argument("target", help="DIR of cubins, or FUNCTION")
    parser.add_argument("--save", metavar="DIR",
                        help="also write each listing as DIR/NAME.WHO.sass")
    parser.add_argument("--loops", action="store_true",
                        help="with --sass: every loop that reaches global "
                             "memory, a line each: its instructions and "
                             "the bytes a thread loads and stores an "
                             "iteration")
    args = parser.parse_args()
    if args.cuobjdump:
        return compare_table(args.cuobjdump, args.target, args.save)
    parsed = functions(pathlib.Path(args.sass).read_text())
    if args.target not in parsed:
        raise SystemExit(f"no function '{args.target}' in {args.sass}")
    if args.loops:
        for number, loop in enumerate(loops(*parsed[args.target])):
            print(f"loop {number}: " + " ".join(
                f"{key} {value}" for key, value in loop.items()))
        return 0
    for key, value in counts(*parsed[args.target]).items():
        print(f"{key}: {value}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
