#!/usr/bin/env bash
# Installs what minitvm needs to build and test on Debian 12 (as root), skipping what is present.
set -euo pipefail
pkgs=(build-essential cmake ninja-build clang llvm-19-dev libfmt-dev nlohmann-json3-dev libgtest-dev
      libcli11-dev libdlpack-dev libdnnl-dev libonnx-dev libonnx-testdata libprotobuf-dev protobuf-compiler
      clang-19 libclang-rt-19-dev   # clang-19: the sanitizer/libFuzzer stage (scripts/sanitize.sh)
      openmpi-bin libopenmpi-dev)   # `minitvm tune ... --mpi` and its tests (tests/distributed)
missing=()
for p in "${pkgs[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  SUDO=""
  [ "$(id -u)" -ne 0 ] && SUDO=sudo
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}"
fi
