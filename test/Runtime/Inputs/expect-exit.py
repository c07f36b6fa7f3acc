"""expect-exit.py CODE COMMAND...: runs COMMAND and succeeds only if it
exits with CODE (lit's `not` accepts any failure; tile-launch's exit codes
mean different things)."""
import subprocess
import sys

want = int(sys.argv[1])
got = subprocess.call(sys.argv[2:])
if got != want:
    print("expect-exit.py: expected exit code %d, got %d" % (want, got))
    sys.exit(1)
