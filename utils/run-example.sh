#!/usr/bin/env bash
# The README's main job: installs what is missing, builds, and compiles the
# seed's `squares` kernel, printing the IR.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${TILE_BUILD_DIR:-$root/build}

"$root/utils/build.sh" >/dev/null
"$build/bin/tile-opt" "$root/examples/squares.mlir"
