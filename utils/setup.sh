#!/usr/bin/env bash
# Installs every Debian package tile needs to build and test, on a fresh
# Debian 12 machine, then the Python front end's virtual environment
# (${TILE_BUILD_DIR:-build}/venv: python/requirements.txt, pinned; build.sh
# installs the `tile` package into it). A fast no-op when all is there. As a
# non-root user with packages missing, prints the apt-get line to run and
# exits 1.
set -euo pipefail

LLVM_VERSION=22
packages=(
  "llvm-${LLVM_VERSION}-dev" "libmlir-${LLVM_VERSION}-dev"
  "mlir-${LLVM_VERSION}-tools" "llvm-${LLVM_VERSION}-tools"
  cmake ninja-build g++ ccache libgtest-dev python3 git
  # The Python front end: venv for build/venv, Python.h for its extension.
  python3-venv python3-dev
)
# utils/run-tests.sh --sanitize (TILE_SANITIZE=1) builds with clang and its
# AddressSanitizer and UBSan runtimes.
if [[ -n ${TILE_SANITIZE:-} ]]; then
  packages+=("clang-${LLVM_VERSION}" "libclang-rt-${LLVM_VERSION}-dev")
fi

missing=()
for pkg in "${packages[@]}"; do
  status=$(dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null || true)
  [[ "$status" == "install ok installed" ]] || missing+=("$pkg")
done
if [[ ${#missing[@]} -gt 0 ]]; then
  install_line="apt-get update && apt-get install -y --no-install-recommends ${missing[*]}"
  if [[ $(id -u) -ne 0 ]]; then
    echo "setup: missing Debian packages: ${missing[*]}" >&2
    echo "setup: run as root: $install_line" >&2
    exit 1
  fi
  echo "setup: installing ${missing[*]}" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# The virtual environment of the Python front end, made with Debian's
# python3 (the one CMake builds the extension for). A stamp holding the
# requirements keeps the step a no-op until they change.
root=$(cd "$(dirname "$0")/.." && pwd)
build=${TILE_BUILD_DIR:-$root/build}
venv=$build/venv
requirements=$root/python/requirements.txt
stamp=$venv/.tile-requirements
if [[ ! -x $venv/bin/python ]] || ! cmp -s "$requirements" "$stamp"; then
  echo "setup: making $venv with python/requirements.txt" >&2
  mkdir -p "$build"
  /usr/bin/python3 -m venv "$venv"
  "$venv/bin/python" -m pip install --quiet --disable-pip-version-check \
    -r "$requirements"
  cp "$requirements" "$stamp"
fi
# The `tile` package is installed into the venv by utils/build.sh, once the
# extension is built (pyproject.toml, editable); an older setup's link into
# the build tree goes.
site=$("$venv/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
rm -f "$site/tile-build.pth"
