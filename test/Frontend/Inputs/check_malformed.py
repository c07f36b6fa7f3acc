"""Runs `tile-translate --import-tile` on every malformed input of a folder.

Each must fail cleanly: exit code 1 (not 0, not a signal or an abort), an
`error:` at a `:line:col`, nothing on stdout (no partial module), and within
a timeout (no infinite loop).

usage: check_malformed.py TILE_TRANSLATE DIR
"""

import pathlib
import re
import subprocess
import sys

TIMEOUT_S = 20
LOCATED_ERROR = re.compile(rb":\d+:\d+: error: ")


def check(tool, path):
    try:
        result = subprocess.run([tool, "--import-tile", str(path)],
                                capture_output=True, timeout=TIMEOUT_S)
    except subprocess.TimeoutExpired:
        return "did not finish within %d s" % TIMEOUT_S
    if result.returncode != 1:
        return "exit code %d, expected 1\n%s" % (
            result.returncode, result.stderr.decode(errors="replace")[-2000:])
    if not LOCATED_ERROR.search(result.stderr):
        return "no 'file:line:col: error:' in\n%s" % result.stderr.decode(
            errors="replace")[-2000:]
    if result.stdout:
        return "printed output despite the error"
    return None


def main():
    tool, folder = sys.argv[1], pathlib.Path(sys.argv[2])
    inputs = sorted(folder.glob("*.bad"))
    if len(inputs) < 50:
        print("expected at least 50 malformed inputs, found %d" % len(inputs))
        return 1
    failures = 0
    for path in inputs:
        problem = check(tool, path)
        if problem:
            failures += 1
            print("FAIL %s: %s" % (path.name, problem))
    print("%d malformed inputs, %d failed cleanly as expected" %
          (len(inputs), len(inputs) - failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
