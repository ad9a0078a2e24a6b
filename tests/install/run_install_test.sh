#!/usr/bin/env bash
# Installs the build tree into a temporary prefix, runs the installed programs (no LD_LIBRARY_PATH:
# they find libminitvm through their RUNPATH), and builds/runs a consumer project against it with
# the given C++ compiler and extra compile/link flags (the build's sanitizer flags).
set -euo pipefail
build_dir=$1; src_dir=$2; cxx=${3:-c++}; flags=${4:-}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
prefix="$tmp/prefix"
cmake --install "$build_dir" --prefix "$prefix" >/dev/null
unset LD_LIBRARY_PATH
fail() { echo "install test: $*" >&2; exit 1; }

"$prefix/bin/minitvm" --help >"$tmp/help.txt" || fail "bin/minitvm --help: exit $?"
grep -q "^  tophub " "$tmp/help.txt" || fail "bin/minitvm --help: $(cat "$tmp/help.txt")"
"$prefix/bin/minitvm" tophub inspect "$prefix/share/minitvm/tophub/llvm_v0.04.log" >"$tmp/inspect.txt" \
  || fail "bin/minitvm tophub inspect"
grep -q "records: 35 " "$tmp/inspect.txt" || fail "tophub inspect of the installed llvm_v0.04.log: $(cat "$tmp/inspect.txt")"
for b in "$prefix"/bin/minitvm-bench-*; do
  [ -e "$b" ] || continue
  "$b" --help >"$tmp/help.txt" || fail "$b --help: exit $?"
  grep -q "^usage: $(basename "$b")" "$tmp/help.txt" || fail "$b --help: $(cat "$tmp/help.txt")"
done
if [ -d "$build_dir/bench" ]; then
  [ -x "$prefix/bin/minitvm-bench-pool" ] || fail "bin/minitvm-bench-pool is not installed"
fi

cmake -S "$src_dir/tests/install/consumer" -B "$tmp/consumer" -DCMAKE_PREFIX_PATH="$prefix" \
  -DCMAKE_CXX_COMPILER="$cxx" -DCMAKE_CXX_FLAGS="$flags" -DCMAKE_EXE_LINKER_FLAGS="$flags" >/dev/null
cmake --build "$tmp/consumer" >/dev/null
# TopHub comes from the installed share folder, never from the source tree.
"$tmp/consumer/consumer" "$prefix/share/minitvm/tophub"
# A MINITVM_TOPHUB_ROOT that is not a folder is named in a warning.
MINITVM_TOPHUB_ROOT="$tmp/missing" "$tmp/consumer/consumer" "$tmp/missing" 2>"$tmp/warn.txt" >/dev/null
grep -q "MINITVM_TOPHUB_ROOT is '$tmp/missing'" "$tmp/warn.txt" || fail "no warning for a missing MINITVM_TOPHUB_ROOT"
echo "install test: ok"
