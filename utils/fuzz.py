#!/usr/bin/env python3
"""Seeded, deterministic mutation fuzzing of the tile tools.

Takes the kernels of the repository (examples/*.tile, test/Frontend/**/*.tile,
and the .mlir tests of test/Dialect, test/Conversion and test/Emulator, split
at `// -----`), mutates them (numbers, element types, lines, op names,
operators, the bit operators among them, attributes, lines spliced in
from other files) and runs each mutant through
the tools a user runs:

  .tile  tile-translate --import-tile, tile-translate --tile-to-ptx (and
         ptxas on the PTX), tile-run --backend=interp and --backend=emulate
  .mlir  tile-opt --tile-to-ptx, tile-opt with the placement passes and
         tile-to-gpu one at a time, tile-run --backend=emulate
  lowered IR (the gpu dialect: examples/*.tile through the placement
         passes and tile-to-gpu, as tile-opt prints them, made once at the
         start with the tools under test) tile-opt --tile-to-ptx and
         tile-emulate (its --arg descriptions from the kernel's
         tile_signature; any kernel fault of a mutant is the mutant's)

A finding is a death by signal, an exit code the tool does not document, a
crash or assertion message, an "internal error", PTX that ptxas rejects, a
run past the timeout (twice: then a fresh start past four times it), a mismatch of emulate or interp with interp (outputs
only left unwritten are the mutant's fault, not one), or a kernel fault
that is the compiler's (a race within a CTA, an out-of-bounds access, a
barrier or shuffle error; a race between CTAs or undefined arithmetic is
the mutant's). Each distinct finding is minimised (delta debugging
over lines) and saved to OUT/NNN-<kind>.{tile,mlir} with the command, the
output and the unminimised mutant. Iteration I of seed S is the same mutant
on every machine: `--seed S --only I` replays it.

A tool's start (loading libMLIR, registering passes and options) costs more
than most runs, so each tool is started once with utils/fuzz-forkserver.c
preloaded and every run is a fork of it that runs main afresh
(--no-fork-server starts each run as a user would; --compare-fork-server
does both and reports any difference of exit code or output). Fork servers
are for unsanitized programs (a sanitizer's runtime must load first).

usage: fuzz.py [--seed N] [--iterations N | --minutes M] [--start I]
               [--only I] [--out DIR] [--bin DIR] [--timeout S]
               [--no-minimise] [--minimise-budget N]
               [--no-fork-server | --compare-fork-server] [--progress N]
Exit code: 0 no findings, 1 findings, 2 bad usage.
"""

import argparse
import os
import pathlib
import random
import re
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent
CRASH_TEXT = re.compile(
    r"LLVM ERROR|Assertion|PLEASE submit a bug report|Stack dump|"
    r"UNREACHABLE|internal error")
TYPES = ["f32", "f16", "bf16", "i32", "i1"] * 3 + ["i8", "f64", "index",
                                                   "i64"]
TILE_OPS = ["rowsum", "rowmax", "dot", "exp", "abs", "max", "min", "where",
            "sqrt", "f32", "f16", "i32", "index", "cdiv", "tanh"]
MLIR_OPS = ["tile.rowsum", "tile.rowmax", "tile.dot", "tile.broadcast",
            "tile.splat", "tile.load", "tile.store", "tile.read", "tile.write",
            "arith.addf", "arith.mulf", "arith.subf", "arith.maximumf",
            "arith.addi", "math.exp", "arith.select", "arith.cmpf olt,",
            "arith.andi", "arith.ori", "arith.xori", "arith.shli",
            "arith.shrsi", "arith.shrui"]
# The binary operators of the language, the bit operators among them.
TILE_OPERATORS = ["+", "-", "*", "/", "%", "&", "|", "^", "<<", ">>"]
OPERATOR = re.compile(r"(?<=\s)(<<|>>|[-+*/%&|^])(?=\s)")
SPECIAL = [0, 1, -1, 2, 3, 7, 15, 16, 17, 31, 32, 33, 48, 63, 64, 65, 96, 127,
           128, 129, 255, 256, 257, 1000, 1023, 1024, 1025, 4096, 65536,
           2**24, 2**31 - 1, 2**31, 2**32, 2**63 - 1, 2**63, 2**64]
LOWERED_OPS = ["llvm.load", "llvm.store", "llvm.getelementptr",
               "arith.addf", "arith.mulf", "arith.addi", "arith.muli",
               "arith.select", "gpu.barrier", "gpu.shuffle xor",
               "gpu.shuffle down", "vector.load", "vector.store",
               "vector.broadcast", "memref.load", "memref.store",
               "scf.for", "scf.if", "nvgpu.mma.sync", "nvgpu.ldmatrix",
               "llvm.atomicrmw fadd", "arith.index_cast"]
NUMBER = re.compile(r"(?<![\w.])-?\d+(?![\w.])")
# Also the sizes inside `16x64xf32`.
SIZE = re.compile(r"(?:(?<=\dx)|(?<![\w.%#@-]))\d+(?![\d.]|e\d)")
WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_.]*")
SYMBOL = re.compile(r"\b[A-Z][A-Za-z0-9_]*\b")


def without_comments(text):
    return "\n".join(line for line in text.split("\n")
                     if not line.lstrip().startswith("//"))


def split_kernels(text):
    """The kernels of a .tile file, each with its attributes."""
    chunks, current = [], []
    for line in text.split("\n"):
        starts = line.startswith("@") or line.startswith("kernel ")
        if starts and any(c.startswith("kernel ") for c in current):
            chunks.append("\n".join(current))
            current = []
        current.append(line)
    return chunks + ["\n".join(current)]


def load_corpus():
    """(suffix, text) for each seed kernel: the kernels of the .tile files
    and the .mlir chunks, without comment lines (RUN, CHECK, expected-error).
    Seeds that are errors by design come once, the others ten times."""
    corpus = []
    tiles = sorted(list(ROOT.glob("examples/*.tile")) +
                   list(ROOT.glob("test/Frontend/**/*.tile")))
    for path in tiles:
        weight = 1 if "errors" in path.parts else 10
        for kernel in split_kernels(without_comments(path.read_text())):
            corpus += [(".tile", kernel)] * weight
    for folder in ("test/Dialect", "test/Conversion", "test/Emulator"):
        for path in sorted(ROOT.glob(folder + "/**/*.mlir")):
            weight = 1 if "errors" in path.name else 10
            for chunk in re.split(r"^// -----$", path.read_text(), flags=re.M):
                if "tile.kernel" in chunk or "gpu.func" in chunk:
                    corpus += [(".mlir", without_comments(chunk))] * weight
    return corpus


# The placement pipeline of tile-run and tile-to-ptx, then tile-to-gpu: the
# lowered IR tile-emulate runs (lib/Target/PTX/TileToPTX.cpp).
LOWERING = ("--pass-pipeline=builtin.module(tile.kernel(tile-promote-registers,"
            "canonicalize,tile-reuse-reads,cse,tile-hoist-invariants,"
            "tile-pipeline-loads,tile-tensor-cores,tile-plan-shared,"
            "tile-assign-layouts,tile-insert-barriers),tile-to-gpu,"
            "gpu.module(canonicalize,cse))")
LOWERED = ".lowered.mlir"


def lowered_corpus(bindir):
    """(LOWERED, text) for each example as tile-opt lowers it, ten times
    each; none where tile-opt is not a program (the tests' stand-ins)."""
    opt = os.path.join(bindir, "tile-opt")
    if not is_elf(opt):
        return []
    corpus = []
    for path in sorted(ROOT.glob("examples/*.tile")):
        result = subprocess.run([opt, str(path), LOWERING],
                                capture_output=True, timeout=120)
        text = result.stdout.decode(errors="replace")
        if result.returncode == 0 and "gpu.func" in text:
            corpus += [(LOWERED, text)] * 10
    return corpus


def signature_args(text):
    """tile-emulate's --kernel and --arg descriptions of a lowered kernel:
    the first gpu.func's, from its tile_signature (tile-to-gpu records the
    tile parameter types there); [] where there is none."""
    kernel = re.search(r"gpu\.func @([\w$.]+)", text)
    start = text.find("tile_signature = [")
    if not kernel or start < 0:
        return []
    depth, i, entries, current = 0, start + len("tile_signature = ["), [], ""
    while i < len(text):
        c = text[i]
        if c in "[<(":
            depth += 1
        elif c in ")>" or (c == "]" and depth > 0):
            depth -= 1
        elif c == "]":
            break
        if c == "," and depth == 0:
            entries.append(current.strip())
            current = ""
        else:
            current += c
        i += 1
    entries.append(current.strip())
    args = ["--kernel=" + kernel.group(1)]
    for n, entry in enumerate(e for e in entries if e):
        tensor = re.match(r"!tile\.tensor<\[([^]]*)\],\s*(\w+)>", entry)
        if tensor:
            dims = tensor.group(1).replace(" ", "")
            args.append("--arg=P%d=%s[%s]" % (n, tensor.group(2), dims))
        else:
            args.append("--arg=P%d=%s:1" % (n, entry))
    return args


# Mutations: each takes (rng, lines, donor lines) and changes lines in place.

def pick_match(rng, lines, pattern):
    hits = [(i, m) for i, line in enumerate(lines)
            if not line.lstrip().startswith("//")
            for m in pattern.finditer(line)]
    return rng.choice(hits) if hits else (None, None)


def replace_at(lines, i, m, text):
    lines[i] = lines[i][:m.start()] + text + lines[i][m.end():]


def mutate_number(rng, lines, _):
    i, m = pick_match(rng, lines, NUMBER)
    if m is None:
        return
    n = int(m.group())
    choice = rng.choice(SPECIAL + [n * 2, n // 2, n + 1, n - 1, -n, n * 3])
    replace_at(lines, i, m, str(choice))


def mutate_size_everywhere(rng, lines, _):
    """Every occurrence of one number becomes another: the shapes stay
    consistent between a kernel's uses."""
    i, m = pick_match(rng, lines, SIZE)
    if m is None:
        return
    n = int(m.group())
    choice = str(rng.choice(SPECIAL[:30] + [n * 2, n // 2, n + 1, n - 1]))
    lines[:] = [SIZE.sub(lambda k: choice if int(k.group()) == n else
                         k.group(), line) for line in lines]


TYPE = re.compile(r"\b(%s)\b" % "|".join(sorted(set(TYPES))))


def mutate_type(rng, lines, _):
    i, m = pick_match(rng, lines, TYPE)
    if m is not None:
        replace_at(lines, i, m, rng.choice(TYPES))


def mutate_type_everywhere(rng, lines, _):
    i, m = pick_match(rng, lines, TYPE)
    if m is not None:
        old, new = m.group(), rng.choice(TYPES)
        lines[:] = [re.sub(r"\b%s\b" % old, new, line) for line in lines]


def mutate_op(rng, lines, _):
    mlir = any("tile.kernel" in line for line in lines)
    lowered = any("gpu.func" in line for line in lines)
    names = LOWERED_OPS if lowered else MLIR_OPS if mlir else TILE_OPS
    pattern = re.compile(r"(?<![\w.])(%s)(?![\w.])" %
                         "|".join(re.escape(n) for n in names))
    i, m = pick_match(rng, lines, pattern)
    if m is not None:
        replace_at(lines, i, m, rng.choice(names))


def mutate_operator(rng, lines, _):
    """One binary operator of a .tile kernel becomes another (`+` a `<<`,
    `*` a `&`, ...), or an operand gets a bit operation or `~`."""
    if any("tile.kernel" in line for line in lines):
        return
    i, m = pick_match(rng, lines, OPERATOR)
    if m is None:
        return
    if rng.randrange(3):
        replace_at(lines, i, m, rng.choice(TILE_OPERATORS))
    else:
        amount = rng.choice(["1", "3", "31", "32", "33", "-1", "0xF"])
        replace_at(lines, i, m, "%s %s %s" % (
            rng.choice(["<<", ">>", "&", "^"]), amount, m.group()))
        if rng.randrange(2):
            lines[i] = lines[i].replace("= ", "= ~", 1)


# A symbolic dimension of a tensor parameter's type: `K` in .tile's
# `tensor<f32>[16, K]` and the dialect's `!tile.tensor<[16, K], f32>`.
TENSOR_DIM = re.compile(
    r"(?<=[\[,] )[A-Z]\w*(?=[,\]])|(?<=\[)[A-Z]\w*(?=[,\]])")
DIM_EXPRESSIONS = ["2 * {0}", "{0} + 1", "{0} - 1", "{0} - 64",
                   "3 * ({0} - 1)", "{0} * {0}", "{0} / 2", "-{0}",
                   "{0} + 2147483647"]


def mutate_dimension(rng, lines, _):
    """One symbolic dimension of a tensor type becomes an expression of its
    symbol (`2 * K`, `K - 64`; in the dialect the quoted string), the
    affine and the rejected alike."""
    i, m = pick_match(rng, lines, TENSOR_DIM)
    if m is None:
        return
    text = rng.choice(DIM_EXPRESSIONS).format(m.group())
    replace_at(lines, i, m, '"%s"' % text if "tile.tensor<" in lines[i]
               else text)


def mutate_word(rng, lines, _):
    """One identifier or SSA name becomes another of the file."""
    i, m = pick_match(rng, lines, WORD)
    words = sorted({w for line in lines for w in WORD.findall(line)})
    if m is not None:
        replace_at(lines, i, m, rng.choice(words))


def mutate_lines(rng, lines, donor):
    if not lines:
        return
    i, j = rng.randrange(len(lines)), rng.randrange(len(lines))
    kind = rng.randrange(4)
    if kind == 0:
        del lines[i]
    elif kind == 1:
        lines.insert(j, lines[i])
    elif kind == 2:
        lines[i], lines[j] = lines[j], lines[i]
    elif donor:
        lines.insert(i, rng.choice(donor))


def mutate_attribute(rng, lines, _):
    """Drops, adds or rewrites @launch/@registers/grid (threads/registers/
    grid in the dialect)."""
    text = "\n".join(lines)
    names = re.findall(r"\bvar (\w+)", text) + re.findall(r'tile.var "(\w+)"',
                                                          text)
    name = rng.choice(names) if names else "acc"
    threads = rng.choice([0, 1, 31, 32, 33, 64, 96, 128, 256, 1024, 2048])
    syms = sorted(set(SYMBOL.findall(text))) or ["K"]
    number = rng.choice([1, 3, 16, 0, -2, 2**31, 2**61])
    # The grid may name an integer scalar parameter too.
    syms += re.findall(r"\b(\w+): (?:i32|index)\b", text)
    grid = "cdiv(%s, %d)" % (rng.choice(syms), number)
    ops = ["floordiv", "ceildiv", "mod", "*", "+"]
    map_grid = "grid = affine_map<()[\\1] -> (s0 %s %d)>" % (rng.choice(ops),
                                                            number)
    edits = [
        (r"^@registers\(.*\)$", ""),
        (r"^@launch\(.*\)$", ""),
        (r"^(kernel )", "@registers(%s)\n\\1" % name),
        (r"^@launch\((\d+)", "@launch(%d" % threads),
        (r"^@launch\((\d+)\)", "@launch(\\1, grid = [%s])" % grid),
        (r"^@launch\((\d+), grid = \[.*\]\)", "@launch(\\1)"),
        (r"registers = \[[^]]*\]", 'registers = ["%s"]' % name),
        (r"threads = \d+", "threads = %d" % threads),
        (r"attributes \{", 'attributes {registers = ["%s"], ' % name),
        (r", grid = affine_map<[^>]*>", ""),
        (r"grid = affine_map<\(\)\[([^]]*)\] -> [^>]*>", map_grid),
        (r"threads = (\d+) : i64",
         "threads = \\1 : i64, grid = affine_map<()[s0] -> (s0 ceildiv 16)>"),
    ]
    pattern, replacement = rng.choice(edits)
    lines[:] = re.sub(pattern, replacement, text, count=1,
                      flags=re.M).split("\n")


MUTATIONS = [mutate_number] * 2 + [mutate_size_everywhere] * 4 + [
    mutate_type, mutate_type_everywhere, mutate_type_everywhere] + [
        mutate_op] * 3 + [mutate_lines] * 3 + [mutate_attribute] * 3 + [
            mutate_word] + [mutate_operator] * 2 + [mutate_dimension] * 2


def mutant(seed, iteration, corpus):
    rng = random.Random("%d:%d" % (seed, iteration))
    # Lowered IR where the corpus has it (the real tools): the mutants of
    # a seed differ from those of a run without it.
    kinds = [".tile", ".mlir"]
    if any(s == LOWERED for s, _ in corpus):
        kinds.append(LOWERED)
    suffix = rng.choice(kinds)
    donors = [t for s, t in corpus if s == suffix]
    text = rng.choice(donors)
    donor = rng.choice(donors).split("\n")
    lines = text.split("\n")
    for _ in range(rng.choice([1, 1, 1, 2, 2, 3])):
        rng.choice(MUTATIONS)(rng, lines, donor)
    return suffix, "\n".join(lines)


# Running the tools.

def dims_for(text):
    """--dim for each symbolic dimension of the kernel: small values, empty
    and odd ones among them, the same for the same text."""
    rng = random.Random(text)
    params = " ".join(re.findall(r"tensor<[^>]*>\[([^]]*)\]", text) +
                      re.findall(r"tile\.tensor<\[([^]]*)\]", text))
    return ["--dim=%s=%d" % (s, rng.choice([0, 1, 17, 40, 64, 64, 100, 130]))
            for s in sorted(set(SYMBOL.findall(params)))]


def commands(suffix, text, bindir):
    """(name, argv, allowed exit codes) for each tool run of a mutant."""
    b = str(bindir) + "/"
    run = [b + "tile-run", "--ptx-figures=false"]
    if suffix == LOWERED:
        return [
            ("opt-ptx", [b + "tile-opt", "IN", "--tile-to-ptx", "-o",
                         "/dev/null"], {0, 1}),
            ("emulate-lowered", [b + "tile-emulate", "IN"] +
             signature_args(text) + dims_for(text), LOWERED_EXITS),
        ]
    if suffix == ".tile":
        return [
            ("import", [b + "tile-translate", "--import-tile", "IN"], {0, 1}),
            ("ptx", [b + "tile-translate", "--tile-to-ptx", "IN", "-o", "PTX"],
             {0, 1}),
            ("interp", run + ["--backend=interp", "IN"] + dims_for(text),
             RUN_EXITS),
            ("emulate", run + ["--backend=emulate", "IN"] + dims_for(text),
             RUN_EXITS),
        ]
    opt = b + "tile-opt"
    return [
        ("parse", [opt, "IN", "-o", "/dev/null"], {0, 1}),
        ("promote", [opt, "IN", "--tile-promote-registers",
                     "--tile-hoist-invariants", "-o", "/dev/null"], {0, 1}),
        ("lower", [opt, "IN", "--pass-pipeline=builtin.module(tile.kernel("
                   "tile-plan-shared,tile-insert-barriers),tile-to-gpu)", "-o", "/dev/null"],
         {0, 1}),
        ("opt-ptx", [opt, "IN", "--tile-to-ptx", "-o", "/dev/null"], {0, 1}),
        ("emulate", run + ["--backend=emulate", "IN"] + dims_for(text),
         RUN_EXITS),
    ]


# tile-run's exit codes: match, mismatch, bad input, kernel fault.
RUN_EXITS = {0, 1, 2, 4}
# tile-emulate's: ran, bad input, a fault (of the mutated code: any).
LOWERED_EXITS = {0, 2, 4}
# Faults of a kernel as written, which tile-run rightly reports (exit 4):
# races between CTAs, undefined arithmetic, reading a var never written
# (or using elements of one that nothing wrote), a run that does not end,
# index arithmetic of its own that leaves the 32 bits it is compiled for
# (docs/spec.md, "Index arithmetic").
# Any other fault (a race within a CTA, an access out of bounds, a barrier
# or shuffle error) is the compiler's.
KERNEL_FAULT = re.compile(
    r"race between CTAs|division by zero|is undefined for|is out of range "
    r"for|before anything was written|which never wrote it|step limit|"
    r"stopped after|step must be positive|step -?\d+ is not positive|"
    r"which one lands is undefined|is outside the var of size|"
    r"before every thread wrote it|that is still in flight|"
    r"computed from memory that nothing wrote|"
    r"does not fit in \d+ bits \(the kernel computes indices")


def classify(result, allowed, ptxas, ptx_path):
    """A finding's kind and its key line, or None for a clean run."""
    if result is None:
        return "timeout", "timeout"
    out = result.stdout.decode(errors="replace") + result.stderr.decode(
        errors="replace")
    crash = CRASH_TEXT.search(out)
    if result.returncode < 0:
        return "signal%d" % -result.returncode, crash_key(out)
    if crash:
        return "crash-text", crash_key(out)
    if result.returncode not in allowed:
        return "exit%d" % result.returncode, crash_key(out)
    if result.returncode == 1 and allowed == RUN_EXITS and re.search(
            r"wrong at", out):
        return "mismatch", crash_key(out)  # not only outputs left unwritten
    if result.returncode == 4 and allowed == RUN_EXITS and \
            not KERNEL_FAULT.search(out):
        return "fault", crash_key(out)
    if ptx_path and result.returncode == 0 and ptxas and os.path.exists(
            ptx_path):
        # A kernel on wgmma targets the architecture-specific sm_90a.
        with open(ptx_path) as f:
            arch = "sm_90a" if ".target sm_90a" in f.read() else "sm_90"
        check = subprocess.run([ptxas, f"-arch={arch}", ptx_path, "-o",
                                os.devnull], capture_output=True)
        if check.returncode != 0:
            return "ptxas", crash_key(check.stderr.decode(errors="replace"))
    return None


def crash_key(out):
    """What tells one finding from another: the first frame of the stack
    that is not the signal or abort machinery, else the first telling line
    of the output, without locations or numbers."""
    for frame in re.findall(r"^ *#\d+ 0x[0-9a-f]+ (\w[^(]*)", out, re.M):
        if not re.match(r"llvm::(sys|report)|raise|abort|__|_start|operator "
                        r"new|mlir::(Diagnostic|InFlight|emit)", frame):
            return frame.strip()[:160]
    for line in out.splitlines():
        if CRASH_TEXT.search(line) or re.search(r"error|wrong at", line):
            line = re.sub(r"^\S*:\d+:\d+: ", "", line)
            return re.sub(r"\d+", "N", line)[:160]
    return "(no message)"


class Result:
    """What subprocess.run gives: the exit code (negative: the signal),
    the output."""

    def __init__(self, returncode, stdout, stderr):
        self.returncode, self.stdout, self.stderr = returncode, stdout, stderr


class ForkServer:
    """One tool, started once with utils/fuzz-forkserver.c preloaded: each
    run is a fork of it that runs main with the run's arguments."""

    def __init__(self, binary, shim):
        request_read, self.request = os.pipe()
        self.replies, reply_write = os.pipe()
        env = dict(os.environ, LD_PRELOAD=shim,
                   TILE_FORKSERVER_FDS="%d,%d" % (request_read, reply_write))
        self.process = subprocess.Popen(
            [binary], env=env, pass_fds=(request_read, reply_write),
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL)
        os.close(request_read)
        os.close(reply_write)
        self.pending = b""

    def reply(self, key, timeout):
        """The value of the next reply line, which must start with key;
        None when none came within timeout."""
        deadline = time.monotonic() + timeout
        while b"\n" not in self.pending:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self.replies], [], [], left)[0]:
                return None
            chunk = os.read(self.replies, 4096)
            if not chunk:
                raise OSError("the fork server ended")
            self.pending += chunk
        line, self.pending = self.pending.split(b"\n", 1)
        name, value = line.decode().split()
        if name != key:
            raise OSError("the fork server said " + line.decode())
        return int(value)

    def run(self, argv, cwd, timeout):
        out, err = os.path.join(cwd, "stdout"), os.path.join(cwd, "stderr")
        strings = [cwd, out, err] + argv
        request = "\0".join([str(len(strings))] + strings) + "\0"
        os.write(self.request, request.encode())
        pid = self.reply("pid", 30)
        if pid is None:
            raise OSError("the fork server does not answer")
        status = self.reply("status", timeout)
        if status is None:
            try:
                os.killpg(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            self.reply("status", 30)
        code = os.waitstatus_to_exitcode(status) if status is not None else 0
        result = Result(code, pathlib.Path(out).read_bytes(),
                        pathlib.Path(err).read_bytes())
        return None if status is None else result

    def close(self):
        os.close(self.request)
        os.close(self.replies)
        self.process.wait()


def build_fork_server(workdir):
    """The fork server's shared object, compiled for this run; None (runs
    start the tools afresh) where no C compiler is found."""
    compiler = shutil.which("cc") or shutil.which("gcc") or shutil.which(
        "clang")
    if not compiler:
        return None
    shim = os.path.join(workdir, "fuzz-forkserver.so")
    subprocess.run([compiler, "-shared", "-fPIC", "-O2", "-o", shim,
                    str(ROOT / "utils" / "fuzz-forkserver.c"), "-ldl"],
                   check=True)
    return shim


def untimed(result):
    """A run's exit code and output without its times ("in 0.001 s")."""
    return (result.returncode,
            re.sub(rb"\d+(\.\d+)? m?s\b", b"T", result.stdout),
            re.sub(rb"\d+(\.\d+)? m?s\b", b"T", result.stderr))


def is_elf(path):
    """Whether the tool is a program (the fork server's host), not a
    script (the tests' stand-ins)."""
    try:
        with open(path, "rb") as f:
            return f.read(4) == b"\x7fELF"
    except OSError:
        return False


class Runner:
    def __init__(self, bindir, timeout, workdir, fork_server=True,
                 compare=False):
        self.bindir = os.path.abspath(bindir)
        self.timeout, self.workdir = timeout, workdir
        self.ptxas = shutil.which("ptxas") or (
            "/usr/local/cuda/bin/ptxas"
            if os.path.exists("/usr/local/cuda/bin/ptxas") else None)
        self.runs = 0
        self.shim = build_fork_server(workdir) if fork_server else None
        self.servers = {}
        self.compare = compare

    def close(self):
        for server in self.servers.values():
            server.close()

    def start(self, argv, timeout=None):
        """A fresh process, as a user starts the tool: the result, None at
        the timeout."""
        for attempt in range(30):  # a binary being rebuilt is absent a while
            try:
                return subprocess.run(argv, capture_output=True,
                                      timeout=timeout or self.timeout,
                                      cwd=self.workdir)
            except subprocess.TimeoutExpired:
                return None
            except OSError:
                if attempt == 29:
                    raise
                time.sleep(2)

    def fork(self, argv):
        """The same run, forked from the tool's fork server."""
        server = self.servers.get(argv[0])
        if server is None or server.process.poll() is not None:
            server = self.servers[argv[0]] = ForkServer(argv[0], self.shim)
        try:
            return server.run(argv, self.workdir, self.timeout)
        except OSError:
            # A server that died (a rebuilt binary) is started again once.
            server.process.kill()
            server.close()
            server = self.servers[argv[0]] = ForkServer(argv[0], self.shim)
            return server.run(argv, self.workdir, self.timeout)

    def run_one(self, suffix, text, name, argv, allowed):
        src = os.path.join(self.workdir, "mutant" + suffix)
        ptx = os.path.join(self.workdir, "out.ptx")
        pathlib.Path(src).write_text(text)
        if os.path.exists(ptx):
            os.unlink(ptx)
        real = [{"IN": src, "PTX": ptx}.get(a, a) for a in argv]
        self.runs += 1
        forked = self.shim is not None and is_elf(real[0])
        result = self.fork(real) if forked else self.start(real)
        if result is None:
            # On a loaded machine a slow run is not a hang: a timeout counts
            # only if a fresh start also runs past four times the limit.
            result = self.start(real, self.timeout * 4)
        found = classify(result, allowed, self.ptxas,
                         ptx if name == "ptx" else None)
        output = "" if result is None else (
            result.stdout.decode(errors="replace")[-3000:] +
            result.stderr.decode(errors="replace")[-5000:])
        if forked and self.compare and result is not None:
            # --compare-fork-server: a fresh start must give the same (a
            # run at the time limit may end on one side only: no verdict).
            fresh = self.start(real)
            if fresh is not None and untimed(fresh) != untimed(result):
                return ("fork-server", "differs from a fresh start"), output
        return found, output

    def run_all(self, suffix, text):
        """The first finding of a mutant: (name, argv, kind, key, output)."""
        for name, argv, allowed in commands(suffix, text, self.bindir):
            found, output = self.run_one(suffix, text, name, argv, allowed)
            if found:
                return name, argv, allowed, found, output
            if name in ("import", "parse") and "error:" in output:
                return None  # the input is rejected cleanly: no further tool
        return None


def minimise(runner, suffix, text, name, argv, allowed, found, budget):
    """ddmin over lines: the smallest text that gives the same finding."""
    lines = text.split("\n")
    tests = 0

    def same(candidate):
        nonlocal tests
        tests += 1
        got, _ = runner.run_one(suffix, "\n".join(candidate), name, argv,
                                allowed)
        return got == found

    n = 2
    while len(lines) >= 2 and tests < budget:
        chunk = max(1, len(lines) // n)
        reduced = False
        for start in range(0, len(lines), chunk):
            complement = lines[:start] + lines[start + chunk:]
            if tests < budget and same(complement):
                lines, n, reduced = complement, max(n - 1, 2), True
                break
        if not reduced:
            if chunk == 1:
                break
            n = min(len(lines), n * 2)
    return "\n".join(lines) + "\n"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--iterations", type=int, default=None)
    parser.add_argument("--minutes", type=float, default=None)
    parser.add_argument("--start", type=int, default=0,
                        help="first iteration (to continue a campaign)")
    parser.add_argument("--only", type=int, default=None,
                        help="run only this iteration and print the mutant")
    parser.add_argument("--out", default="fuzz-findings")
    parser.add_argument("--bin", default=str(ROOT / "build" / "bin"))
    parser.add_argument("--timeout", type=float, default=20)
    parser.add_argument("--no-minimise", action="store_true")
    parser.add_argument("--progress", type=int, default=0, metavar="N",
                        help="a progress line every N mutants")
    parser.add_argument("--no-fork-server", action="store_true",
                        help="start every tool run afresh")
    parser.add_argument("--compare-fork-server", action="store_true",
                        help="also start each run afresh; a difference is "
                        "a finding")
    parser.add_argument("--minimise-budget", type=int, default=150)
    args = parser.parse_args()
    if args.iterations is None and args.minutes is None and args.only is None:
        args.iterations = 100
    corpus = load_corpus() + lowered_corpus(args.bin)
    out = pathlib.Path(args.out)
    seen = {}
    start = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="tile-fuzz-") as workdir:
        runner = Runner(args.bin, args.timeout, workdir,
                        fork_server=not args.no_fork_server,
                        compare=args.compare_fork_server)
        iteration = args.start if args.only is None else args.only
        done = 0
        # SIGTERM, like Ctrl-C, ends the campaign with its summary.
        signal.signal(signal.SIGTERM, signal.default_int_handler)
        while True:
            if args.iterations is not None and done >= args.iterations:
                break
            if args.minutes is not None and (
                    time.monotonic() - start > args.minutes * 60):
                break
            suffix, text = mutant(args.seed, iteration, corpus)
            if args.only is not None:
                print(text)
            try:
                hit = runner.run_all(suffix, text)
            except KeyboardInterrupt:
                break
            done += 1
            if hit:
                name, argv, allowed, found, output = hit
                signature = (name, found)
                print("iteration %d: %s %s: %s" % (iteration, name, found[0],
                                                   found[1]), flush=True)
                if signature not in seen:
                    seen[signature] = iteration
                    save(runner, out, len(seen), suffix, text, hit, iteration,
                         args)
            iteration += 1
            if args.only is not None:
                break
            if args.progress and done % args.progress == 0:
                print("progress: %d mutants (up to iteration %d), %d tool runs "
                      "in %.0f s, %d distinct findings" % (
                          done, iteration - 1, runner.runs,
                          time.monotonic() - start, len(seen)), flush=True)
        runner.close()
    print("%d mutants (iterations %d..%d of seed %d), %d tool runs in %.0f s, "
          "%d distinct findings" % (done, iteration - done, iteration - 1,
                                    args.seed, runner.runs,
                                    time.monotonic() - start, len(seen)))
    return 1 if seen else 0


def save(runner, out, number, suffix, text, hit, iteration, args):
    name, argv, allowed, found, output = hit
    out.mkdir(parents=True, exist_ok=True)
    stem = out / ("%03d-%s-%s" % (number, name, found[0]))
    stem.with_suffix(".orig" + suffix).write_text(text)
    small = text
    if not args.no_minimise:
        budget = 3 if found[0] == "timeout" else args.minimise_budget
        small = minimise(runner, suffix, text, name, argv, allowed, found,
                         budget)
    stem.with_suffix(suffix).write_text(small)
    _, output = runner.run_one(suffix, small, name, argv, allowed)
    stem.with_suffix(".txt").write_text(
        "seed %d iteration %d\nkind: %s\nkey: %s\ncommand: %s\n\n%s\n" % (
            args.seed, iteration, found[0], found[1], " ".join(argv), output))
    print("  saved %s" % stem.with_suffix(suffix), flush=True)


if __name__ == "__main__":
    sys.exit(main())
