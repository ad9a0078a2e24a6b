#!/bin/sh
# Network benchmark: resnet50, mobilenet_v2, vgg16 at batch 1 on llvm, minitvm vs ONNX Runtime.
# usage: bench/network/run.sh [--quick] [MODEL_DIR] [bench.py options...]
#   MODEL_DIR (default bench/network/models, git-ignored) gets the .onnx files from make_models.py.
#   PYTHON (default /work/venv/bin/python, else python3) needs onnx, onnxruntime, numpy;
#   MINITVM (default build/tools/minitvm of this checkout) is the binary under test.
# Full mode: 5 rounds (about 10 minutes on 2 cores); --quick: 2 rounds, fewer runs.
set -e
here=$(cd "$(dirname "$0")" && pwd)
py=${PYTHON:-/work/venv/bin/python}
[ -x "$py" ] || py=python3
quick=
if [ "$1" = "--quick" ]; then quick=--quick; shift; fi
dir=${1:-$here/models}
[ $# -gt 0 ] && shift
exec "$py" "$here/bench.py" "$dir" $quick --json "$dir/bench.json" "$@"
