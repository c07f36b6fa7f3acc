#!/usr/bin/env bash
# Configures (once) and builds tile into ${TILE_BUILD_DIR:-build}.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${TILE_BUILD_DIR:-$root/build}

"$root/utils/setup.sh"

launcher=()
if command -v ccache >/dev/null; then
  launcher=(-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
fi
# TILE_SANITIZE=1 (utils/run-tests.sh --sanitize): clang-22 with
# AddressSanitizer and UndefinedBehaviorSanitizer. The runtime is shared
# (-shared-libsan), as libraries linked with -z defs need it, and found
# through an rpath to clang's runtime directory. The flags are passed on
# every build, so that a changed set reconfigures the build directory.
sanitize=()
if [[ -n ${TILE_SANITIZE:-} ]]; then
  runtime_dir=$(clang++-22 -print-runtime-dir)
  flags="-fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer -g1"
  links="-fsanitize=address,undefined -shared-libsan -Wl,-rpath,$runtime_dir"
  sanitize=(-DCMAKE_C_COMPILER=clang-22 -DCMAKE_CXX_COMPILER=clang++-22
    "-DCMAKE_C_FLAGS=$flags" "-DCMAKE_CXX_FLAGS=$flags"
    "-DCMAKE_EXE_LINKER_FLAGS=$links" "-DCMAKE_SHARED_LINKER_FLAGS=$links"
    "-DCMAKE_MODULE_LINKER_FLAGS=$links")
fi
if [[ ! -f "$build/build.ninja" || ${#sanitize[@]} -gt 0 ]]; then
  cmake -G Ninja -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release \
    -DPython3_EXECUTABLE=/usr/bin/python3 "${launcher[@]}" "${sanitize[@]}" >/dev/null
fi
ninja -C "$build" ${TILE_JOBS:+-j "$TILE_JOBS"}

# The `tile` package, installed into build/venv through pyproject.toml as
# `pip install .` installs it, but editable (python/tile's sources are
# imported where they are, so an edit takes effect at once) and with the
# extension this build made (TILE_PYTHON_PREBUILT: nothing compiled twice).
# Again whenever the extension changed.
venv=$build/venv
extension=$(ls "$build"/python/tile/_tile*.so 2>/dev/null | head -1 || true)
if [[ -n $extension && -x $venv/bin/python ]]; then
  stamp=$venv/.tile-extension
  if ! cmp -s <(stat -c '%s %Y' "$extension"; cat "$root/pyproject.toml") "$stamp"; then
    "$venv/bin/python" -m pip install --quiet --disable-pip-version-check \
      --no-build-isolation --no-deps --editable "$root" \
      --config-settings=build-dir="$build/pip" \
      --config-settings=cmake.define.TILE_PYTHON_PREBUILT="$build" >&2
    { stat -c '%s %Y' "$extension"; cat "$root/pyproject.toml"; } > "$stamp"
  fi
fi
