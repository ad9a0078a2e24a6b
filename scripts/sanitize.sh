#!/usr/bin/env bash
# The sanitizer stage of CI (docs/TESTING.md): builds minitvm in build-asan/ with AddressSanitizer
# + UndefinedBehaviorSanitizer (-O1, line tables, UBSan never recovers) and runs the test suite
# there, less the GPU-only and stress labels, then the fuzz harnesses: a replay of every committed
# corpus and a short fuzzing run of each. Any sanitizer report fails the stage, also in tests that
# judge their output by a regular expression.
#
# With clang-19 (scripts/setup.sh installs it) the whole build also carries libFuzzer's coverage
# instrumentation and tests/fuzz builds real libFuzzer targets; without it the build uses the
# default compiler and the fuzzers only replay their corpora (said so below).
#
# Environment: SANITIZE_JOBS (default nproc), SANITIZE_CTEST_ARGS (extra ctest arguments, e.g.
# "-R test_emulator"), SANITIZE_FUZZ_SECONDS (overrides each fuzzer's short run),
# SANITIZE_DEADLINE (a time in seconds since the epoch: CI's time limit). With a deadline the
# build is stopped when it is reached (the stage then says it is incomplete and passes: nothing
# was found), and ctest starts no test after it (--stop-time); the tests that did not run are
# listed. Reports found before the deadline fail the stage as always.
set -euo pipefail
cd "$(dirname "$0")/.."
start=$(date +%s)
jobs=${SANITIZE_JOBS:-$(nproc)}
build=build-asan

if command -v clang++-19 >/dev/null && [ -e "$(clang++-19 -print-file-name=libclang_rt.fuzzer-x86_64.a 2>/dev/null)" ]; then
  cc=clang-19; cxx=clang++-19; fuzz=ON; debug=-gline-tables-only
else
  cc=gcc; cxx=g++; fuzz=OFF; debug=-g1
  echo "sanitize: clang-19 with libFuzzer (clang-19, libclang-rt-19-dev) not found: fuzz harnesses only replay their corpora"
fi
launcher=()
if command -v ccache >/dev/null; then
  launcher=(-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
fi
extra=()
[ -n "${SANITIZE_FUZZ_SECONDS:-}" ] && extra=(-DMINITVM_FUZZ_SECONDS="$SANITIZE_FUZZ_SECONDS")
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_C_COMPILER="$cc" -DCMAKE_CXX_COMPILER="$cxx" "${launcher[@]}" \
  -DCMAKE_C_FLAGS_RELEASE="-O1 $debug -DNDEBUG" -DCMAKE_CXX_FLAGS_RELEASE="-O1 $debug -DNDEBUG" \
  -DMINITVM_SANITIZE="address;undefined" -DMINITVM_FUZZ="$fuzz" -DMINITVM_BUILD_BENCH=OFF "${extra[@]}" >/dev/null

# Reports stop the program (halt_on_error, UBSan built with -fno-sanitize-recover=undefined);
# LeakSanitizer runs at every exit. The emulator's compiled kernels are not instrumented (it checks
# their accesses itself), and its fiber switches are announced to ASan (src/runtime/emulator).
# alloc_dealloc_mismatch=0: libLLVM.so (not instrumented) frees with free() the temporary buffer
# that std::stable_sort took with operator new(nothrow) in its optimisation passes
# (PredicateInfoBuilder::renameUses, under every JIT compile); ASan 19 cannot suppress that report
# by library, so the check is off for the whole stage.
export ASAN_OPTIONS="halt_on_error=1:detect_leaks=1:check_initialization_order=1:alloc_dealloc_mismatch=0:print_summary=1${ASAN_OPTIONS_EXTRA:+:$ASAN_OPTIONS_EXTRA}"
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1:print_summary=1"
export LSAN_OPTIONS="suppressions=$PWD/tests/lsan.supp:print_suppressions=0"
# JIT'd kernels are not instrumented: their out-of-bounds reads fault on guard pages instead, every
# array and workspace block between inaccessible pages, against the one after or before it in turn.
export MINITVM_GUARD_PAGES=${MINITVM_GUARD_PAGES:-alternate}

deadline=${SANITIZE_DEADLINE:-0}
left() { echo $((deadline - $(date +%s))); }
if [ "$deadline" -gt 0 ] && [ "$(left)" -lt 120 ]; then
  echo "sanitize: INCOMPLETE: only $(left) s left before the deadline; nothing built or run"
  exit 0
fi
if [ "$deadline" -gt 0 ]; then
  echo "sanitize: deadline in $(left) s"
  set +e
  timeout "$(left)" cmake --build "$build" -j"$jobs"
  brc=$?
  set -e
  if [ "$brc" -eq 124 ]; then
    echo "sanitize: INCOMPLETE: the build did not finish before the deadline ($(( $(date +%s) - start )) s); no test ran"
    exit 0
  fi
  [ "$brc" -eq 0 ] || exit "$brc"
else
  cmake --build "$build" -j"$jobs"
fi
built=$(date +%s)
echo "sanitize: build took $((built - start)) s"
stop=()
if [ "$deadline" -gt 0 ]; then
  stop=(--stop-time "$(date -d "@$deadline" +%H:%M:%S)")
fi

set +e
# shellcheck disable=SC2086
ctest --test-dir "$build" --output-on-failure -j"$jobs" --timeout 1800 -LE "gpu|stress" "${stop[@]}" \
  --output-log "$build/ctest-all.log" ${SANITIZE_CTEST_ARGS:-} 2>&1 | tee "$build/ctest.log"
rc=${PIPESTATUS[0]}
set -e
tested=$(date +%s)
# At the deadline ctest ends the running tests as timeouts: those are not failures of the code.
if [ "$deadline" -gt 0 ] && [ "$rc" -ne 0 ] && [ "$tested" -ge $((deadline - 10)) ]; then
  failures=$(sed -n '/The following tests FAILED/,$p' "$build/ctest.log" | grep -E '^[[:space:]]+[0-9]+ - ' || true)
  if [ -n "$failures" ] && ! echo "$failures" | grep -vq '(Timeout)'; then
    echo "sanitize: tests ended by the deadline (not failures):"
    echo "$failures"
    rc=0
  fi
fi
reports=$(grep -cE "ERROR: (AddressSanitizer|LeakSanitizer)|runtime error:|SUMMARY: UndefinedBehaviorSanitizer|WARNING: ASan (doesn't|is ignoring)" "$build/ctest-all.log" || true)
if [ "$reports" -gt 0 ]; then
  echo "sanitize: $reports sanitizer report lines in the test output:"
  grep -nE "ERROR: (AddressSanitizer|LeakSanitizer)|runtime error:|SUMMARY: UndefinedBehaviorSanitizer|WARNING: ASan (doesn't|is ignoring)" "$build/ctest-all.log" | head -40
  [ "$rc" -eq 0 ] && rc=1
fi
echo "sanitize: tests took $((tested - built)) s, whole stage $((tested - start)) s"
total=$(grep -oE 'tests failed out of [0-9]+' "$build/ctest.log" | grep -oE '[0-9]+$' || echo 0)
failed=$(grep -oE '[0-9]+ tests failed out of' "$build/ctest.log" | grep -oE '^[0-9]+' || echo 0)
skipped=$(grep -cE '\*\*\*Skipped' "$build/ctest.log" || true)
all=$(ctest --test-dir "$build" -N -LE "gpu|stress" ${SANITIZE_CTEST_ARGS:-} | grep -oE 'Total Tests: [0-9]+' | grep -oE '[0-9]+$' || echo 0)
disabled=$(grep -cE '\(Disabled\)' "$build/ctest.log" || true)
all=$((all - disabled))
echo "sanitize: $((total - failed - skipped)) passed, ${failed} failed, ${skipped} skipped of ${all} tests (labels gpu and stress excluded; ${disabled} disabled)"
if [ "$total" -lt "$all" ]; then
  echo "sanitize: INCOMPLETE: $((all - total)) tests did not start before the deadline"
fi
exit "$rc"
