#!/usr/bin/env python3
"""Seeded generator of small random tile kernels for differential tests.

Each kernel accumulates a random elementwise expression of slices of X over
a loop (K need not be a multiple of the slice, so the bound masks matter),
reduces the accumulator by rows (rowsum or rowmax, broadcast back), and
stores an elementwise result and the row results. Shapes, thread counts,
the expression, the reduction, the placement of the accumulator (registers or
shared memory) and whether the loop's load is issued 1 or 2 iterations
ahead (@pipeline) are random, within the dialect's rules.

    gen.py --seed 1 --count 200 [--dots 40] --out DIR

writes DIR/kernel_NNN.mlir, each with a first line

    // ARGS: --kernel k_NNN --arg X=f32[R,K] ... --dim K=NN --output O,S

that `tile-emulate` takes after the lowering. With --run it also runs every
kernel through `tile-run --backend=emulate` (on PATH): compiled, lowered,
emulated with every check on, and every output element compared with the
reference interpreter; it fails if any kernel does not match or a check
fires.
"""

import argparse
import os
import random
import subprocess
import sys


class Kernel:
    def start(self, rng, index):
        """The state every kernel's text is built in."""
        self.rng = rng
        self.index = index
        self.lines = []
        self.indent = "  "
        self.next_id = 0

    def __init__(self, rng, index):
        self.start(rng, index)
        # Shapes: R x C tiles, T threads, R*C a multiple of T, at most 64
        # elements a thread (the register rule).
        while True:
            self.rows = rng.choice([1, 2, 4, 8, 16])
            self.cols = rng.choice([8, 16, 32, 48, 64, 96, 128])
            self.threads = rng.choice([32, 64, 128, 256])
            n = self.rows * self.cols
            if n % self.threads == 0 and n // self.threads <= 64:
                break
        self.registers = rng.random() < 0.5
        self.stages = rng.choice([0, 0, 2, 3])  # @pipeline(kt, stages = S)
        self.k = rng.randint(1, 4) * self.cols + rng.choice(
            [0, 0, rng.randint(1, self.cols - 1)])
        self.type = f"tensor<{self.rows}x{self.cols}xf32>"

    def fresh(self):
        self.next_id += 1
        return f"%v{self.next_id}"

    def emit(self, text):
        self.lines.append(self.indent + text)

    def constant(self):
        value = self.rng.choice([0.5, 0.25, 1.5, -0.75, 2.0])
        scalar, tile = self.fresh(), self.fresh()
        self.emit(f"{scalar} = arith.constant {value} : f32")
        self.emit(f"{tile} = tile.splat {scalar} : {self.type}")
        return tile

    def expression(self, leaves, depth):
        """A random elementwise expression over `leaves`; bounded values."""
        if depth == 0 or self.rng.random() < 0.25:
            pick = self.rng.randrange(len(leaves) + 1)
            return leaves[pick] if pick < len(leaves) else self.constant()
        t = self.type
        kind = self.rng.choice(["add", "sub", "mul", "max", "min", "tanh",
                                "abs", "select", "neg"])
        a = self.expression(leaves, depth - 1)
        result = self.fresh()
        if kind in ("tanh", "abs", "neg"):
            op = {"tanh": "math.tanh", "abs": "math.absf",
                  "neg": "arith.negf"}[kind]
            self.emit(f"{result} = {op} {a} : {t}")
            return result
        b = self.expression(leaves, depth - 1)
        if kind == "select":
            cond = self.fresh()
            pred = self.rng.choice(["ogt", "olt", "oge", "ole"])
            self.emit(f"{cond} = arith.cmpf {pred}, {a}, {b} : {t}")
            self.emit(f"{result} = arith.select {cond}, {a}, {b} : "
                      f"tensor<{self.rows}x{self.cols}xi1>, {t}")
            return result
        op = {"add": "arith.addf", "sub": "arith.subf", "mul": "arith.mulf",
              "max": "arith.maximumf", "min": "arith.minimumf"}[kind]
        self.emit(f"{result} = {op} {a}, {b} : {t}")
        if kind == "mul":  # keep magnitudes small over the loop
            bounded = self.fresh()
            self.emit(f"{bounded} = math.tanh {result} : {t}")
            return bounded
        return result

    def text(self):
        r, c, t = self.rows, self.cols, self.type
        name = f"k_{self.index:03d}"
        x = f"!tile.tensor<[{r}, K], f32>"
        o = f"!tile.tensor<[{r}, {c}], f32>"
        s = f"!tile.tensor<[{r}, 1], f32>"
        attrs = f"threads = {self.threads} : i64"
        if self.registers:
            attrs += ', registers = ["acc"]'
        if self.stages:
            attrs += (f', pipeline = {{names = ["kt"], '
                      f'stages = {self.stages} : i64}}')
        self.emit("%c0 = arith.constant 0 : index")
        self.emit(f"%cstep = arith.constant {c} : index")
        self.emit(f"%K = tile.dim %X[1] : {x}")
        self.emit(f"%zero = arith.constant dense<0.0> : {t}")
        self.emit(f'%acc = tile.var "acc" = %zero : !tile.var<{r}x{c}xf32>')
        self.emit("scf.for %kt = %c0 to %K step %cstep {")
        self.indent = "    "
        self.emit(f"%x = tile.load %X[%c0, %kt] : {x} -> {t}")
        self.emit(f"%a = tile.read %acc : !tile.var<{r}x{c}xf32>")
        body = self.expression(["%x"], self.rng.randint(1, 3))
        self.emit(f"%n = arith.addf %a, {body} : {t}")
        self.emit(f"tile.write %n, %acc : !tile.var<{r}x{c}xf32>")
        self.indent = "  "
        self.emit('} {tile.index = "kt"}')
        self.emit(f"%final = tile.read %acc : !tile.var<{r}x{c}xf32>")
        reduce = self.rng.choice(["rowsum", "rowmax"])
        self.emit(f"%s = tile.{reduce} %final : {t} -> tensor<{r}x1xf32>")
        self.emit(f"%b = tile.broadcast %s : tensor<{r}x1xf32> -> {t}")
        out = self.expression(["%final", "%b"], self.rng.randint(1, 2))
        self.emit(f"tile.store {out}, %O[%c0, %c0] : {t} -> {o}")
        self.emit(f"tile.store %s, %S[%c0, %c0] : tensor<{r}x1xf32> -> {s}")
        self.emit("tile.return")
        args = (f"--kernel {name} --arg X=f32[{r},K] --arg O=f32[{r},{c}] "
                f"--arg S=f32[{r},1] --dim K={self.k} --output O,S")
        header = [f"// ARGS: {args}",
                  f"tile.kernel @{name}(%X: {x}, %O: {o}, %S: {s}) "
                  f"attributes {{{attrs}}} {{"]
        return "\n".join(header + self.lines + ["}"]) + "\n"


class DotKernel(Kernel):
    """`acc += dot(a, b)` over K of random f16 or bf16 slices: a shape that
    tensor cores take (mma.sync) or, now and then, one they do not (SIMT),
    the accumulator in registers or shared memory, K not always a multiple
    of the step, an elementwise epilogue and sometimes a row sum of the
    accumulator (which needs seed 000's distribution: acc converts from
    the mma fragments through shared memory)."""

    def __init__(self, rng, index):
        self.start(rng, index)
        while True:
            self.threads = 32 * rng.choice([1, 2, 4, 8])
            self.rows = rng.choice([16, 32, 64])
            self.cols = rng.choice([8, 16, 32, 64])
            self.step = rng.choice([16, 32, 32, 48, 24])
            n = self.rows * self.cols
            if n % self.threads == 0 and n // self.threads <= 64:
                break
        self.element = rng.choice(["f16", "bf16"])
        self.registers = rng.random() < 0.5
        self.rowsum = rng.random() < 0.25
        self.k = rng.randint(1, 3) * self.step + rng.choice(
            [0, 0, rng.randint(1, self.step - 1)])
        self.type = f"tensor<{self.rows}x{self.cols}xf32>"

    def text(self):
        r, c, t, e, ks = self.rows, self.cols, self.type, self.element, \
            self.step
        name = f"d_{self.index:03d}"
        a = f"!tile.tensor<[{r}, K], {e}>"
        b = f"!tile.tensor<[K, {c}], {e}>"
        o = f"!tile.tensor<[{r}, {c}], f32>"
        s = f"!tile.tensor<[{r}, 1], f32>"
        var = f"!tile.var<{r}x{c}xf32>"
        attrs = f"threads = {self.threads} : i64"
        if self.registers:
            attrs += ', registers = ["acc"]'
        self.emit("%c0 = arith.constant 0 : index")
        self.emit(f"%cstep = arith.constant {ks} : index")
        self.emit(f"%K = tile.dim %A[1] : {a}")
        self.emit(f"%zero = arith.constant dense<0.0> : {t}")
        self.emit(f'%acc = tile.var "acc" = %zero : {var}')
        self.emit("scf.for %kt = %c0 to %K step %cstep {")
        self.indent = "    "
        self.emit(f"%a = tile.load %A[%c0, %kt] : {a} -> "
                  f"tensor<{r}x{ks}x{e}>")
        self.emit(f"%b = tile.load %B[%kt, %c0] : {b} -> "
                  f"tensor<{ks}x{c}x{e}>")
        self.emit(f"%r = tile.read %acc : {var}")
        self.emit(f"%d = tile.dot %a, %b : tensor<{r}x{ks}x{e}>, "
                  f"tensor<{ks}x{c}x{e}> -> {t}")
        self.emit(f"%n = arith.addf %r, %d : {t}")
        self.emit(f"tile.write %n, %acc : {var}")
        self.indent = "  "
        self.emit("}")
        self.emit(f"%final = tile.read %acc : {var}")
        out = self.expression(["%final"], self.rng.randint(0, 2))
        self.emit(f"tile.store {out}, %O[%c0, %c0] : {t} -> {o}")
        params = f"%A: {a}, %B: {b}, %O: {o}"
        args = (f"--kernel {name} --arg A={e}[{r},K] --arg B={e}[K,{c}] "
                f"--arg O=f32[{r},{c}]")
        outputs = "O"
        if self.rowsum:
            self.emit(f"%s = tile.rowsum %final : {t} -> tensor<{r}x1xf32>")
            self.emit(f"tile.store %s, %S[%c0, %c0] : tensor<{r}x1xf32> "
                      f"-> {s}")
            params += f", %S: {s}"
            args += f" --arg S=f32[{r},1]"
            outputs += ",S"
        self.emit("tile.return")
        args += f" --dim K={self.k} --output {outputs}"
        header = [f"// ARGS: {args}",
                  f"tile.kernel @{name}({params}) attributes {{{attrs}}} {{"]
        return "\n".join(header + self.lines + ["}"]) + "\n"


def run(path):
    """Compiles one kernel, runs the lowered code under emulate and checks
    every output element against interp (tile-run); returns an error text
    or None."""
    with open(path) as f:
        args = f.readline().split("ARGS:", 1)[1].split()
    dims = [args[i + 1] for i, arg in enumerate(args) if arg == "--dim"]
    command = ["tile-run", "--backend=emulate", "--ptx-figures=false",
               "--tile-remarks", path]
    for dim in dims:
        command += ["--dim", dim]
    ran = subprocess.run(command, capture_output=True, text=True)
    if ran.returncode != 0:
        return (f"tile-run exited with {ran.returncode}:\n" + ran.stdout +
                ran.stderr), False
    return None, "dot on tensor cores" in ran.stderr


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--count", type=int, default=200)
    parser.add_argument("--out", required=True)
    parser.add_argument("--dots", type=int, default=0,
                        help="also write this many `acc += dot(a, b)` "
                             "kernels of f16/bf16 (dot_NNN.mlir)")
    parser.add_argument("--run", action="store_true",
                        help="run each kernel under emulate and check it "
                             "against interp")
    options = parser.parse_args()
    os.makedirs(options.out, exist_ok=True)
    rng = random.Random(options.seed)
    # The dots draw from their own stream: the elementwise kernels of a
    # seed stay the same with or without them.
    dot_rng = random.Random(options.seed * 7919 + 1)
    failures, tensor_cores = 0, 0
    kernels = [(f"kernel_{i:03d}.mlir", Kernel, rng, i)
               for i in range(options.count)]
    kernels += [(f"dot_{i:03d}.mlir", DotKernel, dot_rng, i)
                for i in range(options.dots)]
    for file, kind, stream, index in kernels:
        path = os.path.join(options.out, file)
        with open(path, "w") as f:
            f.write(kind(stream, index).text())
        if options.run:
            error, on_tensor_cores = run(path)
            tensor_cores += on_tensor_cores
            if error:
                failures += 1
                print(f"{path}: {error}", file=sys.stderr)
    if options.run:
        total = len(kernels)
        print(f"{total - failures} of {total} kernels ran "
              "cleanly under emulate and matched interp")
        if options.dots:
            print(f"{tensor_cores} of {options.dots} dot kernels on tensor "
                  "cores")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
