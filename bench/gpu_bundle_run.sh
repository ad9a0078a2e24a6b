#!/usr/bin/env bash
# bench/gpu_bundle_run.sh [results-file]: on a GPU machine, in a copy of the repository that carries
# gpu-bundle/minitvm-gpu.tar.xz (bench/gpu_bundle.sh): unpack the prebuilt GPU tests and benchmarks
# into build-gpu/ and run bench/gpu_check.sh on them without building.
# bench/gpu_bundle_run.sh --exec CMD [ARGS...]: the same set-up, then CMD instead (for example
# build-gpu/tools/minitvm tune resnet18 --target cuda --trials 32 --log tune.log).
#
# The bundle's CTest files name the build machine's absolute paths (bundle.info's built_at); when the
# copy lives elsewhere, that path is made a link to it. The bundled libraries, the CUDA toolkit
# (ptxas, NVRTC) and NVIDIA's Python wheels (cuDNN, cuBLAS for the benchmarks' comparison columns)
# are put on the search paths.
set -u -o pipefail
REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$REPO"
EXEC=()
if [ "${1:-}" = "--exec" ]; then
  shift
  EXEC=("$@")
  [ ${#EXEC[@]} -gt 0 ] || { echo "usage: bench/gpu_bundle_run.sh --exec CMD [ARGS...]" >&2; exit 2; }
fi
OUTFILE="${1:-$REPO/gpu_results.txt}"
[ -f gpu-bundle/minitvm-gpu.tar.xz ] || { echo "no gpu-bundle/minitvm-gpu.tar.xz: run bench/gpu_bundle.sh first" >&2; exit 2; }

for a in gpu-bundle/*.tar.xz; do
  if command -v xz >/dev/null; then
    xz -dc "$a" | tar xf - -C "$REPO" || exit 2
  else
    python3 -c 'import lzma,sys,tarfile; tarfile.open(fileobj=lzma.open(sys.argv[1])).extractall(sys.argv[2])' \
      "$a" "$REPO" || exit 2
  fi
done
built_at="$(sed -n 's/^built_at=//p' build-gpu/bundle.info)"
if [ -n "$built_at" ] && [ "$built_at" != "$REPO" ]; then
  if [ -e "$built_at" ] && [ "$(cd "$built_at" && pwd -P)" != "$(pwd -P)" ]; then
    echo "gpu_bundle_run: $built_at exists and is not this repository; the CTest paths cannot resolve" >&2
    exit 2
  fi
  mkdir -p "$(dirname "$built_at")" && ln -sfn "$REPO" "$built_at"
fi

libs="$REPO/build-gpu/bundle-lib"
for d in /usr/local/cuda/lib64 /usr/local/cuda/targets/x86_64-linux/lib; do
  [ -d "$d" ] && libs="$libs:$d"
done
# NVIDIA's wheels (nvidia/<name>/lib) next to the machine's Python, when there are any.
if command -v python3 >/dev/null; then
  while read -r d; do libs="$libs:$d"; done < <(python3 - <<'EOF' 2>/dev/null
import glob, site
for sp in site.getsitepackages():
    for d in sorted(glob.glob(sp + "/nvidia/*/lib")) + sorted(glob.glob(sp + "/nvidia/cu*/lib")):
        print(d)
EOF
  )
fi
export LD_LIBRARY_PATH="$libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
probe="$(find build-gpu/tests -maxdepth 1 -type f -name 'test_*_gpu' | head -1)"
if [ -n "$probe" ] && ! "$probe" --gtest_list_tests >/dev/null 2>&1; then
  echo "gpu_bundle_run: $probe does not start with the system C++ runtime; using the bundled one:" >&2
  "$probe" --gtest_list_tests 2>&1 | head -3 >&2
  export LD_LIBRARY_PATH="$REPO/build-gpu/bundle-lib/compat:$LD_LIBRARY_PATH"
fi
[ -d /usr/local/cuda/bin ] && export PATH="/usr/local/cuda/bin:$PATH"
echo "gpu_bundle_run: $(tr '\n' ' ' <build-gpu/bundle.info)" >&2
echo "gpu_bundle_run: ptxas $(command -v ptxas || echo 'not found'); nvidia-smi: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>&1 | head -1)" >&2

if [ ${#EXEC[@]} -gt 0 ]; then
  exec "${EXEC[@]}"
fi
MINITVM_GPU_NO_BUILD=1 MINITVM_GPU_BUILD_DIR="${built_at:-$REPO}/build-gpu" \
  bash "$REPO/bench/gpu_check.sh" "$OUTFILE"
