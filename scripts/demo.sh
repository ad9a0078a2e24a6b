#!/usr/bin/env bash
# Sets everything up, builds, and runs the main job: `minitvm demo`.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bash scripts/build.sh
./build/tools/minitvm demo
