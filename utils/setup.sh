#!/usr/bin/env bash
# Installs every Debian package tile needs to build and test, on a fresh
# Debian 12 machine. A fast no-op when they are all there. As a non-root user
# with packages missing, prints the apt-get line to run and exits 1.
set -euo pipefail

LLVM_VERSION=22
packages=(
  "llvm-${LLVM_VERSION}-dev" "libmlir-${LLVM_VERSION}-dev"
  "mlir-${LLVM_VERSION}-tools" "llvm-${LLVM_VERSION}-tools"
  cmake ninja-build g++ ccache libgtest-dev python3 git
)

missing=()
for pkg in "${packages[@]}"; do
  status=$(dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null || true)
  [[ "$status" == "install ok installed" ]] || missing+=("$pkg")
done
[[ ${#missing[@]} -eq 0 ]] && exit 0

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
