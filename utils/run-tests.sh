#!/usr/bin/env bash
# The README's test command: installs what is missing, builds, runs every
# lit and unit test and the Python package's pytest suite, and ends with the
# line `N passed, N failed`.
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
if [[ $lit_status -ne 0 && $failed -eq 0 ]]; then failed=1; fi

# The Python package (python/test), in the venv utils/setup.sh made; its
# closing counts ("12 passed, 1 skipped in 3.2s") join lit's.
pytest_status=0
if [[ -x $build/venv/bin/python && -d $build/python/tile ]]; then
  (cd "$root/python" && "$build/venv/bin/python" -m pytest -q -p no:cacheprovider test) | tee "$log"
  pytest_status=${PIPESTATUS[0]}
  summary=$(grep -E '^[0-9]+ (passed|failed|skipped|error|errors|deselected|xfailed|xpassed)' "$log" | tail -1)
  pycount() { echo "$summary" | grep -oE "[0-9]+ $1" | grep -oE '^[0-9]+' || echo 0; }
  passed=$(( passed + $(pycount passed) + $(pycount xfailed) ))
  py_failed=$(( $(pycount failed) + $(pycount errors) + $(pycount error) + $(pycount xpassed) ))
  failed=$(( failed + py_failed ))
  skipped=$(( skipped + $(pycount skipped) ))
  if [[ $pytest_status -ne 0 && $py_failed -eq 0 ]]; then failed=$(( failed + 1 )); fi
fi
rm -f "$log"
echo "${passed} passed, ${failed} failed, ${skipped} skipped"
[[ $failed -eq 0 ]]
