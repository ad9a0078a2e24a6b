#!/usr/bin/env bash
# bench/gpu_check.sh: every GPU figure minitvm reports, in one command and one results file.
#
#   bench/gpu_check.sh [results-file]        (default: <repo>/gpu_results.txt)
#
# On a machine with an NVIDIA GPU: builds the repo if needed (build dir $MINITVM_GPU_BUILD_DIR,
# default <repo>/build-gpu; an existing build is updated incrementally), runs every ctest test
# labelled `gpu` (verbose, so their GPU_RESULT timing lines are kept), then every benchmark
# executable named minitvm-bench-gpu-* found in the build tree, and writes one text file with the
# device, the commit, the test summary, the timings, each benchmark's headline lines (GEOMEAN,
# SUMMARY, "N passed, N failed") and each benchmark's output. Benchmarks get 150 s each
# (minitvm-bench-gpu-conv2d, 201 layers with their own 150 s budget: 210 s). Budget: under 5
# minutes on an H100/H200 with a built tree. Exit status: non-zero if a test or benchmark failed.
#
# Environment: MINITVM_GPU_NO_BUILD=1 uses the build directory as it is (a prebuilt tree from
# bench/gpu_bundle.sh, on a machine without minitvm's build dependencies); MINITVM_GPU_CONV2D_BUDGET
# sets minitvm-bench-gpu-conv2d's --time-budget in seconds (default 150; its timeout is 60 s more);
# MINITVM_GPU_BENCH_LIMIT the other benchmarks' timeout in seconds (default 150);
# MINITVM_GPU_SKIP_TESTS=1 / MINITVM_GPU_SKIP_BENCH=1 leave out the tests / the benchmarks.
set -u -o pipefail

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD="${MINITVM_GPU_BUILD_DIR:-$REPO/build-gpu}"
OUT="${1:-$REPO/gpu_results.txt}"
JOBS="$(nproc 2>/dev/null || echo 4)"
TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT
start=$(date +%s)
status=0

log() { echo "[gpu_check] $*" >&2; }

# ---- build ---------------------------------------------------------------------------------
if [ "${MINITVM_GPU_NO_BUILD:-0}" = 1 ]; then
  log "MINITVM_GPU_NO_BUILD=1: using $BUILD as it is"
elif [ ! -f "$BUILD/CMakeCache.txt" ]; then
  log "configuring $BUILD"
  gen=""; command -v ninja >/dev/null && gen="-G Ninja"
  cmake -S "$REPO" -B "$BUILD" $gen -DCMAKE_BUILD_TYPE=Release >"$TMP/configure.log" 2>&1 ||
    { cat "$TMP/configure.log" >&2; log "configure failed"; exit 2; }
fi
if [ "${MINITVM_GPU_NO_BUILD:-0}" != 1 ]; then
  log "building (incremental) in $BUILD with $JOBS jobs"
fi
if [ "${MINITVM_GPU_NO_BUILD:-0}" != 1 ] && ! cmake --build "$BUILD" -j"$JOBS" >"$TMP/build.log" 2>&1; then
  tail -50 "$TMP/build.log" >&2
  log "build failed; running whatever was built"
  status=1
fi

# ---- gpu-labelled tests ----------------------------------------------------------------------
if [ "${MINITVM_GPU_SKIP_TESTS:-0}" = 1 ]; then
  log "MINITVM_GPU_SKIP_TESTS=1: no tests"
  echo "(tests left out: MINITVM_GPU_SKIP_TESTS=1)" >"$TMP/ctest.log"
else
  log "running ctest -L gpu"
  ctest --test-dir "$BUILD" -L gpu -V --timeout 240 >"$TMP/ctest.log" 2>&1 || status=1
fi

# ---- benchmarks ------------------------------------------------------------------------------
benches=()
[ "${MINITVM_GPU_SKIP_BENCH:-0}" = 1 ] ||
  mapfile -t benches < <(find "$BUILD" -type f -perm -u+x -name 'minitvm-bench-gpu-*' | sort)
log "benchmarks found: ${#benches[@]}"
: >"$TMP/bench.log"
for b in "${benches[@]}"; do
  name="$(basename "$b")"
  limit="${MINITVM_GPU_BENCH_LIMIT:-150}"
  args=()
  if [ "$name" = "minitvm-bench-gpu-conv2d" ]; then
    budget="${MINITVM_GPU_CONV2D_BUDGET:-150}"
    limit=$((budget + 60))
    args=(--time-budget "$budget")
  fi
  log "running $name (timeout $limit s)"
  {
    echo "---- $name ----"
    t0=$(date +%s)
    timeout "$limit" "$b" "${args[@]}"
    rc=$?
    echo "(exit $rc, $(( $(date +%s) - t0 )) s)"
  } >>"$TMP/bench.log" 2>&1
  [ "$rc" -eq 0 ] || status=1
done

# ---- results file ----------------------------------------------------------------------------
{
  echo "minitvm GPU results"
  echo "date:    $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  if git -C "$REPO" rev-parse --short HEAD >/dev/null 2>&1; then
    echo "commit:  $(git -C "$REPO" rev-parse --short HEAD)$(git -C "$REPO" diff --quiet || echo ' (dirty)')"
  elif [ -f "$BUILD/bundle.info" ]; then
    echo "bundle:  $(tr '\n' ' ' <"$BUILD/bundle.info")"
  else
    echo "commit:  unknown"
  fi
  echo "host:    $(hostname)"
  if command -v nvidia-smi >/dev/null; then
    echo "gpu:     $(nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>/dev/null | head -1)"
  else
    echo "gpu:     nvidia-smi not found"
  fi
  echo "build:   $BUILD"
  echo
  echo "== gpu-labelled tests (ctest -L gpu) =="
  grep -E "tests passed|tests failed|Total Test time" "$TMP/ctest.log" || echo "(no ctest summary)"
  grep -E "^\s*[0-9]+/[0-9]+ Test +#[0-9]+:" "$TMP/ctest.log" | sed 's/^ *//' || true
  echo
  echo "== kernel timings from the gpu tests (time_evaluator, median) =="
  grep -hoE "GPU_RESULT .*" "$TMP/ctest.log" | sort -u || echo "(none: no GPU or tests skipped)"
  skipped=$(grep -hoE "no CUDA GPU: .*" "$TMP/ctest.log" | sort -u | head -3)
  [ -n "$skipped" ] && { echo; echo "skip reasons:"; echo "$skipped"; }
  echo
  echo "== benchmarks (minitvm-bench-gpu-*): ${#benches[@]} found =="
  for b in "${benches[@]}"; do echo "  $(basename "$b")"; done
  echo
  echo "== benchmark headlines =="
  awk '/^---- .* ----$/ { name = $2 }
       /^(GEOMEAN|SUMMARY|SKIP)|^[0-9]+ passed, [0-9]+ failed|^\(exit [0-9]+/ { print name ": " $0 }' "$TMP/bench.log"
  echo
  cat "$TMP/bench.log"
  echo
  echo "== failed tests (output) =="
  if grep -qE "tests failed out of" "$TMP/ctest.log" && ! grep -q "100% tests passed" "$TMP/ctest.log"; then
    grep -E "\(Failed\)|\*\*\*Failed|Timeout" "$TMP/ctest.log"
  else
    echo "(none)"
  fi
  echo
  echo "total time: $(( $(date +%s) - start )) s, status: $([ $status -eq 0 ] && echo OK || echo FAILED)"
} >"$OUT"
cp "$TMP/ctest.log" "${OUT%.txt}.ctest.log" 2>/dev/null || true
log "wrote $OUT"
exit $status
