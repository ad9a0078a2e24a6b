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
if [ ! -f "$BUILD/CMakeCache.txt" ]; then
  log "configuring $BUILD"
  gen=""; command -v ninja >/dev/null && gen="-G Ninja"
  cmake -S "$REPO" -B "$BUILD" $gen -DCMAKE_BUILD_TYPE=Release >"$TMP/configure.log" 2>&1 ||
    { cat "$TMP/configure.log" >&2; log "configure failed"; exit 2; }
fi
log "building (incremental) in $BUILD with $JOBS jobs"
if ! cmake --build "$BUILD" -j"$JOBS" >"$TMP/build.log" 2>&1; then
  tail -50 "$TMP/build.log" >&2
  log "build failed; running whatever was built"
  status=1
fi

# ---- gpu-labelled tests ----------------------------------------------------------------------
log "running ctest -L gpu"
ctest --test-dir "$BUILD" -L gpu -V --timeout 240 >"$TMP/ctest.log" 2>&1 || status=1

# ---- benchmarks ------------------------------------------------------------------------------
mapfile -t benches < <(find "$BUILD" -type f -perm -u+x -name 'minitvm-bench-gpu-*' | sort)
log "benchmarks found: ${#benches[@]}"
: >"$TMP/bench.log"
for b in "${benches[@]}"; do
  name="$(basename "$b")"
  limit=150
  [ "$name" = "minitvm-bench-gpu-conv2d" ] && limit=210
  log "running $name (timeout $limit s)"
  {
    echo "---- $name ----"
    t0=$(date +%s)
    timeout "$limit" "$b"
    rc=$?
    echo "(exit $rc, $(( $(date +%s) - t0 )) s)"
  } >>"$TMP/bench.log" 2>&1
  [ "$rc" -eq 0 ] || status=1
done

# ---- results file ----------------------------------------------------------------------------
{
  echo "minitvm GPU results"
  echo "date:    $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "commit:  $(git -C "$REPO" rev-parse --short HEAD 2>/dev/null || echo unknown)$(git -C "$REPO" diff --quiet 2>/dev/null || echo ' (dirty)')"
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
