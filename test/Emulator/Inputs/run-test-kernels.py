"""run-test-kernels.py FILE.mlir...: every tile.kernel of every split of
the given lit inputs (split at `// -----`) through `tile-run
--backend=emulate` (on PATH): compiled, lowered, run on every thread with
the emulator's checks, and compared element by element with interp (an
output element both leave unwritten fails tile-run's check, but is no
disagreement; a kernel whose tensors are over tile-run's size limit is
left out). Prints one line per failure and a count."""

import os
import re
import subprocess
import sys
import tempfile


def main():
    ran, failures = 0, []
    with tempfile.TemporaryDirectory() as tmp:
        for path in sys.argv[1:]:
            with open(path) as file:
                splits = file.read().split("// -----")
            for index, text in enumerate(splits):
                for kernel in re.findall(r"tile\.kernel @(\w+)", text):
                    source = os.path.join(tmp, f"{kernel}_{index}.mlir")
                    with open(source, "w") as file:
                        file.write(text)
                    run = subprocess.run(
                        ["tile-run", "--backend=emulate", "--ptx-figures=false",
                         "--kernel", kernel, source],
                        capture_output=True, text=True, timeout=120)
                    if "over tile-run's limit" in run.stderr:
                        continue  # tensors too large to run (bounds tests)
                    ran += 1
                    # Outputs these kernels leave partly unwritten fail the
                    # check as they should; only a disagreement counts here.
                    unwritten_only = (run.returncode == 1 and
                                      "wrong at" not in run.stderr)
                    if run.returncode != 0 and not unwritten_only:
                        failures.append(f"{os.path.basename(path)}: {kernel}: "
                                        f"exit {run.returncode}\n{run.stderr}")
    for failure in failures:
        print(failure)
    print(f"{ran - len(failures)} of {ran} kernels matched interp under emulate")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
