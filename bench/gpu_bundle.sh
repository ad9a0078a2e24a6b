#!/usr/bin/env bash
# bench/gpu_bundle.sh: the GPU checks as one self-contained archive, for a lent GPU machine that has a
# CUDA driver and toolkit (ptxas, NVRTC) but none of minitvm's build dependencies (LLVM 19, fmt,
# protobuf, GoogleTest).
#
#   bench/gpu_bundle.sh          # here, on the development machine: writes gpu-bundle/minitvm-gpu.tar.xz
#   bench/gpu_bundle_run.sh [results-file]      # there, in a copy of the repository that carries gpu-bundle/
#
# It builds build-gpu/ (Release, LLVM's static component libraries: MINITVM_LLVM_STATIC) with only
# the gpu-labelled test binaries, the minitvm-bench-gpu-* benchmarks and the `minitvm` command (for
# `minitvm tune MODEL --target cuda` on the device), and packs them with the build tree's CTest files, the shared libraries they need beyond the C/C++ runtime (protobuf, onnx,
# zstd, ...) and bundle.info (commit, build path). The archive is xz with a large window, so the
# copies of LLVM in the eight binaries cost about one copy. gpu-bundle/ is ignored by git.
set -euo pipefail
REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD="$REPO/build-gpu"
cd "$REPO"

# LLVM's static archives link against these (Debian 12 packages; not needed for the normal build).
need=(libzstd-dev libz3-dev libxml2-dev zlib1g-dev libedit-dev libncurses-dev libffi-dev xz-utils)
missing=()
for p in "${need[@]}"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
if [ ${#missing[@]} -gt 0 ]; then
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}"
fi

cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release -DMINITVM_LLVM_STATIC=ON \
  -DCMAKE_EXE_LINKER_FLAGS="-Wl,--as-needed" >/dev/null
# The gpu-labelled tests' executables, read from ctest, and the GPU benchmarks.
mapfile -t tests < <(ctest --test-dir "$BUILD" -L gpu -N -V 2>/dev/null |
  sed -nE 's/^[0-9]+: Test command: ([^ ]+).*/\1/p' | sort -u)
targets=()
for t in "${tests[@]}"; do targets+=("$(basename "$t")"); done
targets+=(minitvm-bench-gpu-matmul minitvm-bench-gpu-pool minitvm-bench-gpu-conv2d minitvm_cli)
echo "gpu_bundle: building ${targets[*]}"
cmake --build "$BUILD" -j"$(nproc)" --target "${targets[@]}"

bins=("${tests[@]}")
mapfile -t -O ${#bins[@]} bins < <(find "$BUILD/bench" -type f -perm -u+x -name 'minitvm-bench-gpu-*')
bins+=("$BUILD/tools/minitvm")  # the command line too (`minitvm tune ... --target cuda` on the device)
# Shared libraries beyond the C/C++ runtime (which the GPU machine's newer system provides).
rm -rf "$BUILD/bundle-lib" && mkdir -p "$BUILD/bundle-lib"
for b in "${bins[@]}"; do ldd "$b" | awk '/=> \//{print $3}'; done | sort -u |
  grep -vE '/(libc|libm|libstdc\+\+|libgcc_s|libpthread|libdl|librt|ld-linux[^/]*)\.so' |
  while read -r lib; do cp -L "$lib" "$BUILD/bundle-lib/"; done
# The C++ runtime too, apart, for a GPU machine whose system one is older than this machine's
# (gpu_bundle_run.sh puts it on the path only when a binary does not start without it).
mkdir -p "$BUILD/bundle-lib/compat"
for l in libstdc++.so.6 libgcc_s.so.1; do
  cp -L "$(ldd "${bins[0]}" | awk -v l="$l" '$1 == l {print $3}')" "$BUILD/bundle-lib/compat/"
done
{
  echo "commit=$(git rev-parse --short HEAD)$(git diff --quiet HEAD || echo -dirty)"
  echo "built_at=$REPO"
  echo "date=$(date -u +%Y-%m-%dT%H:%M:%SZ)"
} >"$BUILD/bundle.info"

mkdir -p gpu-bundle
list="$(mktemp)"
trap 'rm -f "$list"' EXIT
for b in "${bins[@]}"; do echo "${b#"$REPO"/}"; done >"$list"
# CTest's files, gtest_discover_tests' lists (<test>[1]_include.cmake, <test>[1]_tests.cmake) too.
(cd "$REPO" && find build-gpu -name CTestTestfile.cmake -o -name '*\[1\]_include.cmake' \
    -o -name '*\[1\]_tests.cmake' && echo build-gpu/bundle.info &&
  find build-gpu/bundle-lib -type f) >>"$list"
# Strip a copy, not the build tree (the next incremental build would relink everything).
stage="$(mktemp -d)"
trap 'rm -f "$list"; rm -rf "$stage"' EXIT
tar cf - -T "$list" | tar xf - -C "$stage"
find "$stage" -type f -perm -u+x -exec strip --strip-unneeded {} + 2>/dev/null || true
tar cf - -C "$stage" . | xz -T"$(nproc)" --lzma2=preset=9,dict=256MiB >gpu-bundle/minitvm-gpu.tar.xz
ls -la gpu-bundle/minitvm-gpu.tar.xz
