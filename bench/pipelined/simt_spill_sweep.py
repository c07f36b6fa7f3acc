"""simt_spill_sweep.py PTXAS CHIP [THREADS...]: f32 GEMMs on SIMT FMAs (no
tensor cores: exact products) of several CTA shapes, at each of THREADS
threads a CTA (default 256; above 256 the PTX keeps `.maxntid`),
`@pipeline(k)` with and without `@registers(acc)`, compiled by `tile-translate --tile-to-ptx`
(on PATH) and checked by `ptxas -v`: whether tile warned that ptxas may
spill (and its estimate), against ptxas's most registers and spill bytes
of any entry. Prints one line a variant, and the misses (spills without a
warning) and the warnings where ptxas did not spill."""

import os
import re
import subprocess
import sys
import tempfile

# [M, K] x [K, N] slices.
SHAPES = [(64, 32, 64), (64, 64, 64), (96, 64, 96), (96, 64, 120),
          (128, 32, 128), (128, 64, 128), (64, 64, 120), (128, 16, 128),
          (80, 64, 120), (96, 32, 120), (112, 64, 120), (32, 64, 120),
          (64, 32, 128)]

KERNEL = """@launch({threads}, grid = [cdiv(N, {n}), cdiv(M, {m})])
@pipeline(k)
{registers}
kernel g(A: tensor<f32>[M, K], B: tensor<f32>[K, N], C: tensor<f32>[M, N]) {{
  var row = ctx.block.y * {m}
  var col = ctx.block.x * {n}
  var acc: tile<f32>[{m}, {n}] = 0.0
  for k in range(0, K, {k}) {{
    var a = A[row :+ {m}, k :+ {k}]
    var b = B[k :+ {k}, col :+ {n}]
    acc += dot(a, b)
  }}
  C[row :+ {m}, col :+ {n}] = acc
}}
"""


def main():
    ptxas, chip = sys.argv[1], sys.argv[2]
    thread_counts = [int(count) for count in sys.argv[3:]] or [256]
    misses = false_alarms = 0
    with tempfile.TemporaryDirectory() as tmp:
        source, ptx = os.path.join(tmp, "g.tile"), os.path.join(tmp, "g.ptx")
        for threads, (m, k, n), registers in (
                (threads, shape, registers) for threads in thread_counts
                for shape in SHAPES for registers in (False, True)):
            with open(source, "w") as file:
                file.write(KERNEL.format(
                    threads=threads, m=m, k=k, n=n,
                    registers="@registers(acc)" if registers else ""))
            name = f"{threads} threads [{m}, {k}] x [{k}, {n}]" + (
                " @registers(acc)" if registers else "")
            run = subprocess.run(["tile-translate", "--tile-to-ptx",
                                  f"--chip={chip}", source, "-o", ptx],
                                 capture_output=True, text=True)
            if run.returncode != 0:
                print(f"{name}: rejected")
                continue
            estimate = re.search(r"keeps about (\d+) registers",
                                 run.stderr)
            verbose = subprocess.run(
                [ptxas, "-v", f"-arch={chip}", ptx, "-o", os.devnull],
                capture_output=True, text=True).stderr
            used = max(int(n) for n in re.findall(r"Used (\d+) registers",
                                                  verbose))
            spilled = max(int(a) + int(b) for a, b in re.findall(
                r"(\d+) bytes spill stores, (\d+) bytes spill loads",
                verbose))
            said = (f"warned (about {estimate.group(1)})" if estimate
                    else "accepted")
            verdict = ""
            if spilled and not estimate:
                verdict, misses = " MISS", misses + 1
            elif estimate and not spilled:
                verdict, false_alarms = " no spill", false_alarms + 1
            print(f"{name}: {said}, {used} registers, {spilled} B "
                  f"spilled{verdict}")
    print(f"{misses} spill(s) without a warning, {false_alarms} warning(s) "
          f"without a spill")


if __name__ == "__main__":
    main()
