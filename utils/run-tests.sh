#!/usr/bin/env bash
# The README's test command: installs what is missing, builds, runs every
# lit and unit test and the Python package's pytest suite, and ends with the
# line `N passed, N failed`.
#
# utils/run-tests.sh --sanitize [lit options]: the same under AddressSanitizer
# and UndefinedBehaviorSanitizer, in build-sanitize/ with clang-22 (setup.sh
# installs Debian's clang-22 and libclang-rt-22-dev; not part of CI).
# Debian's libMLIR is not instrumented, so LLVM's inlined allocator
# poisoning would look like use-after-poison: allow_user_poisoning=0. Leaks
# are not checked (MLIR's registries live until exit by design). Any report
# aborts the tool, so the test that ran it fails.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
if [[ ${1:-} == --sanitize ]]; then
  shift
  export TILE_SANITIZE=1 TILE_BUILD_DIR=${TILE_BUILD_DIR:-$root/build-sanitize}
  export ASAN_OPTIONS=allow_user_poisoning=0:detect_leaks=0:abort_on_error=1
  export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
fi
build=${TILE_BUILD_DIR:-$root/build}

"$root/utils/build.sh" || { echo "0 passed, 1 failed"; exit 1; }
# Python is not instrumented: the sanitizers' runtime is preloaded for the
# extension.
preload=
if [[ -n ${TILE_SANITIZE:-} ]]; then
  preload=$(clang++-22 -print-file-name=libclang_rt.asan-x86_64.so)
fi

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

# The Python package (python/test), as build.sh installed it into the venv
# utils/setup.sh made (run from the root, so that python/tile is imported
# as installed, not from the working directory); its closing counts ("12
# passed, 1 skipped in 3.2s") join lit's.
pytest_status=0
if [[ -x $build/venv/bin/python && -d $build/python/tile ]]; then
  (cd "$root" && env TILE_BUILD_DIR="$build" ${preload:+LD_PRELOAD=$preload} \
     "$build/venv/bin/python" -m pytest -q -p no:cacheprovider python/test) | tee "$log"
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
