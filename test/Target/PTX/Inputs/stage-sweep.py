"""stage-sweep.py PTXAS CHIP FILE[=NAMES]...: each given .tile file's
@pipeline line (or, for FILE=NAMES, a `@pipeline(NAMES)` put before its
kernel) rewritten to every stage count from 2 to 8, with its stages in
shared memory and in registers (shared = false), compiled by
`tile-translate --tile-to-ptx` (on PATH) and checked by `ptxas -v`.
Prints one line per variant: what tile said (accepted; warned that it
would spill; rejected) and the most registers and spill bytes of any of
its entries. A variant tile accepts without a warning must not spill:
each that does is a failure, and the exit status is 1."""

import os
import re
import subprocess
import sys
import tempfile

PIPELINE = re.compile(r"^@pipeline\(([^,)]*)[^)]*\)", re.MULTILINE)


def ptxas_figures(ptxas, chip, ptx):
    """(most registers, most spill bytes) over the PTX's entries."""
    # A kernel on wgmma targets the architecture-specific sm_90a.
    with open(ptx) as file:
        arch = chip + "a" if f".target {chip}a" in file.read() else chip
    run = subprocess.run([ptxas, "-v", f"-arch={arch}", ptx, "-o", os.devnull],
                         capture_output=True, text=True, timeout=300)
    if run.returncode != 0:
        return None
    registers = [int(n) for n in re.findall(r"Used (\d+) registers", run.stderr)]
    spills = [int(a) + int(b) for a, b in re.findall(
        r"(\d+) bytes spill stores, (\d+) bytes spill loads", run.stderr)]
    return max(registers), max(spills)


def main():
    ptxas, chip, paths = sys.argv[1], sys.argv[2], sys.argv[3:]
    failures = 0
    with tempfile.TemporaryDirectory() as tmp:
        for argument in paths:
            path, _, added = argument.partition("=")
            with open(path) as file:
                text = file.read()
            if added:
                text = text.replace("\nkernel ", f"\n@pipeline({added})\nkernel ",
                                    1)
            names = PIPELINE.search(text).group(1)
            for shared in (True, False):
                for stages in range(2, 9):
                    option = f"stages = {stages}" + ("" if shared else
                                                     ", shared = false")
                    source = os.path.join(tmp, os.path.basename(path))
                    with open(source, "w") as file:
                        file.write(PIPELINE.sub(f"@pipeline({names}, {option})",
                                                text, count=1))
                    ptx = os.path.join(tmp, "kernel.ptx")
                    run = subprocess.run(
                        ["tile-translate", "--tile-to-ptx", f"--chip={chip}",
                         source, "-o", ptx],
                        capture_output=True, text=True, timeout=300)
                    name = (f"{os.path.basename(path)} {stages} "
                            f"{'shared' if shared else 'registers'}")
                    if run.returncode != 0:
                        said = "rejected: " + next(
                            (line.split("error: ", 1)[1] for line in
                             run.stderr.splitlines() if "error: " in line), "?")
                        print(f"{name}: {said}")
                        continue
                    warned = "ptxas may spill" in run.stderr
                    figures = ptxas_figures(ptxas, chip, ptx)
                    if figures is None:
                        print(f"{name}: FAIL: ptxas rejected the PTX")
                        failures += 1
                        continue
                    registers, spilled = figures
                    verdict = ""
                    if spilled and not warned:
                        verdict = " FAIL: spills with no warning"
                        failures += 1
                    print(f"{name}: {'warned' if warned else 'accepted'}, "
                          f"{registers} registers, {spilled} B spilled"
                          f"{verdict}")
    print(f"{failures} variant(s) tile accepted without a warning spill")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
