#!/usr/bin/env bash
# run.sh of the GPU bundle (made by utils/gpu-bundle.sh; docs/performance.md,
# "GPU bundle"). On a machine with an NVIDIA GPU, CUDA, Python, PyTorch and
# Triton, and no LLVM:
#   1. check    tile-launch runs every kernel on the interpreter's inputs and
#               compares its outputs with the interpreter's (the seed's table)
#   2. compare  py/compare.py: tile against PyTorch and Triton at realistic
#               sizes, and achieved GB/s against a device-to-device copy
#   3. sass     py/sass_stats.py: hot-loop SASS counts of our cubins and of
#               the hand-written CUDA references (cuobjdump -sass)
# Everything printed is also written to $OUT/run.log (default: out/ here);
# each step has a timeout, and the whole run stays under 8 minutes.
#
# If bin/tile-launch does not start (built against a newer glibc), run.sh
# first compiles it from src/ with the machine's C++ compiler.
#
# Exit codes: 0 every step ran and every kernel matched; 1 a kernel
# mismatched, a file was bad, or a step failed or timed out; 3 no CUDA
# device answered: steps 1 and 2 only validated the bundle's files (each
# tile-launch must stop at the driver, exit 3) and step 3 ran if cuobjdump
# was found. TILE_CUDA_DRIVER_LIBRARY names another driver library, as for
# tile-launch.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
out=${OUT:-$here/out}
python=${PYTHON:-python3}
launch=$here/bin/tile-launch
mkdir -p "$out/check" "$out/sass"
exec > >(tee "$out/run.log") 2>&1

# Every step has a timeout, and compare.py gets what is left of `deadline`
# after the others, so the run stays under 8 minutes (480 s) in any case.
deadline=460
probe_timeout=20
build_timeout=120
check_timeout=25
compare_max=240
sass_timeout=60

status=0
fail() { status=1; echo "FAILED: $*"; }
begin() { step_start=$SECONDS; echo; echo "=== $1"; }
end() { echo "--- $1: $((SECONDS - step_start)) s"; }

begin "machine"
cat "$here/BUILD-INFO.txt"
echo "run:       $(date -u '+%Y-%m-%d %H:%M:%S UTC') on $(uname -n), bundle $here"
if command -v nvidia-smi >/dev/null; then
  timeout -k 5 "$probe_timeout" nvidia-smi -L || echo "nvidia-smi -L failed"
else
  echo "nvidia-smi: not found"
fi
# The driver itself, as tile-launch will load it.
device=1
timeout -k 5 "$probe_timeout" "$python" - <<'EOF' || device=0
import ctypes, os, sys
library = os.environ.get("TILE_CUDA_DRIVER_LIBRARY") or "libcuda.so.1"
try:
    cuda = ctypes.CDLL(library)
except OSError as error:
    sys.exit(f"no CUDA driver: {error}")
count = ctypes.c_int(0)
if cuda.cuInit(0) != 0 or cuda.cuDeviceGetCount(ctypes.byref(count)) != 0 \
        or count.value == 0:
    sys.exit(f"no CUDA device: {library} loaded, but cuInit/cuDeviceGetCount "
             "found none")
name = ctypes.create_string_buffer(256)
cuda.cuDeviceGetName(name, 256, 0)
print(f"CUDA device 0: {name.value.decode()} ({count.value} in all)")
EOF
if ((!device)); then
  echo "no GPU here: every kernel is still checked up to the driver (exit 3"
  echo "expected), compare.py only plans, and run.sh exits 3"
fi
end "machine"

begin "tile-launch"
# The bundled binary needs the glibc of the machine that made it
# (BUILD-INFO.txt); on an older one, build it here from src/ (no LLVM).
rc=0
"$launch" --help >/dev/null 2>"$out/tile-launch-help.txt" || rc=$?
if ((rc == 2)); then
  echo "bin/tile-launch starts"
else
  echo "bin/tile-launch does not start here (exit $rc):"
  head -3 "$out/tile-launch-help.txt"
  cxx=$(command -v "${CXX:-c++}" || command -v g++ || command -v clang++ || true)
  if [[ -z $cxx ]]; then
    fail "no C++ compiler to build tile-launch from src/"
  else
    built=$(mktemp -d)
    echo "building it from src/ with $cxx"
    if timeout -k 5 "$build_timeout" "$cxx" -std=c++17 -O2 -fno-exceptions \
      -I"$here/src/include" "$here/src/tools/tile-launch/tile-launch.cpp" \
      "$here"/src/lib/Runtime/*.cpp -ldl -o "$built/tile-launch"; then
      launch=$built/tile-launch
    else
      fail "could not build tile-launch from src/"
    fi
  fi
fi
end "tile-launch"

begin "check: tile-launch against the interpreter's outputs"
header_printed=0
summary=()
for dir in "$here"/kernels/*/; do
  name=$(basename "$dir")
  log=$out/check/$name.txt
  rc=0
  timeout -k 5 "$check_timeout" "$launch" "$dir/$name.ptx" "$dir/$name.json" \
    --inputs "$dir/io" --expect "$dir/io/expect" --warmup 3 --runs 10 \
    >"$log" 2>&1 || rc=$?
  if ((!header_printed)) && grep -q '^kernel ' "$log"; then
    grep -m1 '^GPU: ' "$log" || true
    grep -A1 '^kernel ' "$log" | head -2
    header_printed=1
  fi
  awk -v k="$name" '$1 == k' "$log"
  case $rc in
    0) summary+=("$name: match $(grep -c ' matches ' "$log") output(s)") ;;
    1) fail "$name: outputs differ"; grep ' wrong at ' "$log" || true ;;
    3) if ((device)); then
         fail "$name: driver error"; cat "$log"
       else
         summary+=("$name: files valid; stopped at the driver: $(tail -1 "$log")")
       fi ;;
    124 | 137) fail "$name: timed out after ${check_timeout} s" ;;
    *) fail "$name: tile-launch exit $rc"; cat "$log" ;;
  esac
done
printf '%s\n' "${summary[@]}"
end "check"

begin "compare: tile against PyTorch and Triton"
compare_timeout=$((deadline - sass_timeout - SECONDS))
((compare_timeout < compare_max)) || compare_timeout=$compare_max
if ((device && compare_timeout < 30)); then
  fail "no time left for compare.py (${SECONDS} s spent)"
elif ((device)); then
  timeout -k 10 "$compare_timeout" "$python" "$here/py/compare.py" \
    --launch "$launch" --out "$out" --budget $((compare_timeout - 20)) ||
    fail "compare.py exit $?"
else
  timeout -k 5 60 "$python" "$here/py/compare.py" --dry-run ||
    fail "compare.py --dry-run exit $?"
fi
end "compare"

begin "sass: hot loops of our cubins and of the CUDA references"
cuobjdump=$(command -v cuobjdump || true)
for candidate in "${CUDA_HOME:-/usr/local/cuda}/bin/cuobjdump" /usr/local/cuda/bin/cuobjdump; do
  [[ -n $cuobjdump || ! -x $candidate ]] || cuobjdump=$candidate
done
if [[ -z $cuobjdump ]]; then
  echo "cuobjdump not found (PATH, \$CUDA_HOME/bin, /usr/local/cuda/bin): skipped"
  ((!device)) || fail "no cuobjdump on the GPU machine"
else
  # cuobjdump -sass runs nvdisasm, which lives next to it.
  PATH=$(dirname "$cuobjdump"):$PATH timeout -k 5 "$sass_timeout" \
    "$python" "$here/py/sass_stats.py" --cuobjdump "$cuobjdump" \
    --save "$out/sass" "$here/cubin" || fail "sass_stats.py exit $?"
fi
end "sass"

echo
echo "total: $SECONDS s; logs in $out"
if ((status)); then
  echo "run.sh: FAILED (exit 1)"
  exit 1
fi
if ((!device)); then
  echo "run.sh: no CUDA device; nothing was timed (exit 3)"
  exit 3
fi
echo "run.sh: all kernels match (exit 0)"
