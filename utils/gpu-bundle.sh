#!/usr/bin/env bash
# utils/gpu-bundle.sh [BUILD_DIR] [OUT_DIR]
#
# Makes OUT_DIR (default: bundle/ of the source tree, git-ignored), a folder
# under 64 MiB that a GPU machine with no LLVM and no network runs as
# `bash OUT_DIR/run.sh` (docs/performance.md, "GPU bundle"): tile-launch,
# every example's PTX and manifest for sm_90, correctness inputs with the
# interpreter's expected outputs, the cubins of ours and of the hand-written
# references (for cuobjdump -sass there), and the scripts.
#
# Builds tile-run, tile-translate and tile-launch in BUILD_DIR (default:
# build/) first, unless TILE_BUNDLE_NO_BUILD=1 (the lit test: it must not
# build the tree it tests). Needs ptxas and nvcc (CUDA toolkit), no GPU.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=$(realpath -m "${1:-$root/build}")
out=$(realpath -m "${2:-$root/bundle}")
chip=sm_90
limit=$((64 * 1024 * 1024))

die() { echo "gpu-bundle: error: $*" >&2; exit 1; }

# Correctness sizes: small enough that interp runs in seconds here and the
# bundle stays small, and not multiples of the tiles, so the bounds of every
# slice are exercised. A kernel not listed gets tile-run's default (1024).
declare -A check_dims=(
  [rowscale]="--dim M=100 --dim N=1000"
  [rowmean]="--dim M=100 --dim N=1000"
  [squares]="--dim K=1000"
  [matmul]="--dim K=200"
  [flash_attention]="--dim N=200 --arg scale=0.18"
  [layernorm]="--dim M=100 --dim N=1000 --arg eps=1e-5"
  [cross_entropy]="--dim M=100 --dim V=1000"
  [embedding]="--dim M=100 --dim V=100 --dim D=300"
  [matmul_splitk]="--dim M=100 --dim N=200 --dim K=300"
  [argmax]="--dim M=100 --dim N=1000"
  [colsum]="--dim M=100 --dim N=1000"
  [transpose_tiles]="--dim M=100 --dim N=300"
  [rope]="--dim S=100 --dim N=384 --dim P=100"
  [gemm]="--dim M=200 --dim N=136 --dim K=72"
  [int4_unpack]="--dim KP=13 --dim N=100 --dim K=100 --dim G=2"
  [swiglu]="--dim M=100 --dim H=300 --arg splits=3"
)

if [[ ${TILE_BUNDLE_NO_BUILD:-0} != 1 ]]; then
  if [[ ! -f $build/build.ninja ]]; then
    launcher=()
    if command -v ccache >/dev/null; then
      launcher=(-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
    fi
    cmake -G Ninja -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release \
      -DPython3_EXECUTABLE=/usr/bin/python3 "${launcher[@]}" >/dev/null
  fi
  ninja -C "$build" tile-run tile-translate tile-launch
fi
for tool in tile-run tile-translate tile-launch; do
  [[ -x $build/bin/$tool ]] || die "$build/bin/$tool is missing (build it, or unset TILE_BUNDLE_NO_BUILD)"
done
ptxas=$(command -v ptxas || echo /usr/local/cuda/bin/ptxas)
nvcc=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
[[ -x $ptxas && -x $nvcc ]] || die "ptxas and nvcc (the CUDA toolkit) are needed to make the cubins"

# The GPU machine has no Debian packages: tile-launch may need nothing but
# the C library and the loader (libcuda is dlopen'ed at run time).
launch=$build/bin/tile-launch
while read -r lib; do
  case $lib in
    linux-vdso.so.* | libc.so.* | libm.so.* | libdl.so.* | ld-linux*.so.* | /lib*/ld-linux*.so.*) ;;
    not) ;; # "not a dynamic executable": fully static is fine too
    *) die "tile-launch needs $lib; only libc, libm, libdl and the loader may be dynamic (ldd $launch)" ;;
  esac
done < <(ldd "$launch" | awk '{print $1}')

# Only ever delete a previous bundle, never a folder that merely has its name.
if [[ -e $out ]]; then
  [[ -f $out/run.sh || -z $(ls -A "$out") ]] || die "$out exists and is not a bundle; not overwriting it"
  rm -rf "$out"
fi
mkdir -p "$out/bin" "$out/py" "$out/kernels" "$out/cubin" "$out/src"
cp "$launch" "$out/bin/"
cp "$root/utils/gpu-bundle/run.sh" "$out/run.sh"
chmod +x "$out/run.sh"
cp "$root/utils/gpu-bundle/compare.py" "$root/utils/gpu-bundle/triton_kernels.py" \
  "$root/bench/sass_stats.py" "$root/bench/ptx_stats.py" "$out/py/"
# tile-launch's own source (plain C++17, no LLVM): run.sh compiles it there
# if the binary does not start, e.g. on a glibc older than this machine's.
(cd "$root" && cp --parents tools/tile-launch/tile-launch.cpp lib/Runtime/*.cpp \
  include/tile/Runtime/*.h "$out/src/")
# Its --version's header, generated in the build (cmake/TileVersion.cmake).
cp "$build/include/tile/Version.h" "$out/src/include/tile/"

# The examples, and bench/pipelined: some of them with @pipeline, checked
# and timed like their base example (NAME_pipelined, NAME_registers; as
# compare.py's base_name).
for example in "$root"/examples/*.tile "$root"/bench/pipelined/*.tile; do
  manifest=$("$build/bin/tile-run" "$example" --emit=manifest --chip=$chip) ||
    die "tile-run --emit=manifest $example failed"
  name=$(python3 -c 'import json, sys; print(json.load(sys.stdin)["kernel"])' <<<"$manifest")
  dir=$out/kernels/$name
  mkdir -p "$dir"
  cp "$example" "$dir/$name.tile"
  printf '%s\n' "$manifest" >"$dir/$name.json"
  "$build/bin/tile-translate" --tile-to-ptx --chip=$chip "$example" -o "$dir/$name.ptx" ||
    die "tile-translate $example failed"
  base=${name%_pipelined}
  base=${base%_registers}
  read -r -a dims <<<"${check_dims[$base]:-}"
  timeout 120 "$build/bin/tile-run" "$example" --backend=interp --chip=$chip \
    "${dims[@]}" --write-io "$dir/io" >"$dir/interp.log" 2>&1 ||
    die "tile-run --backend=interp --write-io $example failed: $(cat "$dir/interp.log")"
  rm "$dir/interp.log"
  # A kernel on wgmma targets the architecture-specific sm_90a.
  arch=$chip
  grep -q "^\.target ${chip}a" "$dir/$name.ptx" && arch=${chip}a
  "$ptxas" -arch=$arch "$dir/$name.ptx" -o "$out/cubin/$name.tile.cubin" ||
    die "ptxas rejected $dir/$name.ptx"
  reference=$root/bench/reference/$base.cu
  if [[ -f $reference ]]; then
    cp "$reference" "$dir/$name.cu"
    "$nvcc" -O3 -cubin -arch=$chip "$reference" -o "$out/cubin/$name.cuda.cubin" ||
      die "nvcc rejected $reference"
  else
    echo "gpu-bundle: note: no hand-written reference for $name (bench/reference/$name.cu)"
  fi
  echo "gpu-bundle: $name ($(basename "$example")): ptx, manifest, io ${dims[*]:-(default sizes)}, cubins"
done

{
  echo "made:      $(date -u '+%Y-%m-%d %H:%M:%S UTC') on $(uname -n)"
  echo "source:    $(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)$(
    [[ -n $(git -C "$root" status --porcelain 2>/dev/null) ]] && echo ' (with uncommitted changes)')"
  echo "chip:      $chip"
  echo "ptxas:     $("$ptxas" --version | tail -1)"
  echo "nvcc:      $("$nvcc" --version | tail -1)"
  if command -v objdump >/dev/null; then
    echo "tile-launch needs glibc >= $(objdump -T "$launch" | grep -o 'GLIBC_[0-9.]*' | sort -uV | tail -1 | cut -d_ -f2)"
  fi
} >"$out/BUILD-INFO.txt"

bytes=$(du -sb "$out" | cut -f1)
echo "gpu-bundle: $out: $((bytes / 1024)) KiB in $(find "$out" -type f | wc -l) files"
((bytes < limit)) || die "the bundle is $bytes bytes; it must stay under 64 MiB"
echo "gpu-bundle: on the GPU machine: bash $(basename "$out")/run.sh   (logs in \$OUT, else $(basename "$out")/out)"
