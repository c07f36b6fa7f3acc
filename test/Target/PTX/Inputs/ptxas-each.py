"""ptxas-each.py PTXAS CHIPS FILE...: every kernel of every given .tile
file, and of every split of every given .mlir file (split at `// -----`),
compiled with `tile-translate --tile-to-ptx` (on PATH) for each chip of
the comma-separated CHIPS and checked by ptxas. Prints one line per
failure and a count."""

import os
import subprocess
import sys
import tempfile


def sources(paths, tmp):
    for path in paths:
        with open(path) as file:
            text = file.read()
        if path.endswith(".tile"):
            yield os.path.basename(path), path
            continue
        for index, split in enumerate(text.split("// -----")):
            source = os.path.join(tmp, f"{os.path.basename(path)}.{index}.mlir")
            with open(source, "w") as file:
                file.write(split)
            yield f"{os.path.basename(path)} split {index}", source


def ptx_arch(ptx, chip):
    """`chip`, or its architecture-specific variant (sm_90a) when the PTX
    targets that (a kernel on wgmma)."""
    with open(ptx) as file:
        return chip + "a" if f".target {chip}a" in file.read() else chip


def main():
    ptxas, chips, paths = sys.argv[1], sys.argv[2].split(","), sys.argv[3:]
    checked, failures = 0, []
    with tempfile.TemporaryDirectory() as tmp:
        for name, source in sources(paths, tmp):
            for chip in chips:
                ptx = os.path.join(tmp, "kernel.ptx")
                steps = [["tile-translate", "--tile-to-ptx", f"--chip={chip}",
                          source, "-o", ptx],
                         [ptxas, f"-arch={chip}", ptx, "-o", os.devnull]]
                checked += 1
                for step in steps:
                    if step[0] == ptxas:
                        step[1] = f"-arch={ptx_arch(ptx, chip)}"
                    run = subprocess.run(step, capture_output=True, text=True,
                                         timeout=300)
                    if run.returncode != 0:
                        failures.append(f"{name} ({chip}): {step[0]} exit "
                                        f"{run.returncode}\n{run.stderr}")
                        break
    for failure in failures:
        print(failure)
    print(f"{checked - len(failures)} of {checked} compiled and accepted by ptxas")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
