#!/usr/bin/env bash
# The README's test command: installs what is missing, builds, runs every
# lit and unit test, and ends with the line `N passed, N failed`.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${TILE_BUILD_DIR:-$root/build}

"$root/utils/build.sh" || { echo "0 passed, 1 failed"; exit 1; }

log=$(mktemp)
/usr/lib/llvm-22/bin/lit -sv "$build/test" "$build/unittests" "$@" | tee "$log"
lit_status=${PIPESTATUS[0]}

# lit's summary counts ("  Passed     : 96 (94.12%)"), which follow the
# line "Total Discovered Tests".
count() {
  awk -v key="$1" '/^Total Discovered Tests/ { summary = 1; next }
    summary { line = $0; sub(/^ +/, "", line); split(line, part, / *: */)
              if (part[1] == key) { split(part[2], value, " "); n += value[1] } }
    END { print n + 0 }' "$log"
}
passed=$(( $(count Passed) + $(count "Expectedly Failed") ))
failed=$(( $(count Failed) + $(count Unresolved) + $(count "Timed Out") + $(count "Unexpectedly Passed") ))
skipped=$(count Unsupported)
rm -f "$log"
if [[ $lit_status -ne 0 && $failed -eq 0 ]]; then failed=1; fi
echo "${passed} passed, ${failed} failed, ${skipped} skipped"
[[ $failed -eq 0 ]]
