#!/usr/bin/env bash
# The README's main job: installs what is missing, builds, then compiles
# the seed's `squares` kernel, runs it (on the GPU when one answers, else on
# the CPU emulator), checks it against the reference interpreter and prints
# the report. Extra arguments go to tile-run (e.g. --backend=interp).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${TILE_BUILD_DIR:-$root/build}

"$root/utils/build.sh" >/dev/null
exec "$build/bin/tile-run" "$root/examples/squares.tile" --dim K=4096 --tile-remarks "$@"
