#!/usr/bin/env bash
# Sets everything up, builds, and runs all tests (ctest; GPU tests skip without a GPU).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bash scripts/build.sh
set +e
ctest --test-dir build --output-on-failure -j"$(nproc)" --timeout 900 2>&1 | tee build/ctest.log
rc=${PIPESTATUS[0]}
set -e
# Close with ctest's counts on one plain line (ctest itself ends with the list of skipped tests).
total=$(grep -oE 'tests failed out of [0-9]+' build/ctest.log | grep -oE '[0-9]+$' || echo 0)
failed=$(grep -oE '[0-9]+ tests failed out of' build/ctest.log | grep -oE '^[0-9]+' || echo 0)
skipped=$(grep -cE '\*\*\*Skipped' build/ctest.log || true)
echo "ctest: $((total - failed - skipped)) passed, ${failed} failed, ${skipped} skipped"
exit "$rc"
