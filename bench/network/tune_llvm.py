#!/usr/bin/env python3
"""Tune the llvm conv2d tasks of ONNX networks with `minitvm tune`, one task after another.

usage: tune_llvm.py LOG MODEL.onnx... [--trials N] [--tuner xgb] [--minitvm BIN]

The tasks are the conv2d_NCHWc.x86 workloads `minitvm compile --target llvm --json` reports for
each model (the keys relay::build queries; a workload shared by several models is tuned once).
Records are appended to LOG in TVM's 0.2 format; `minitvm compile/run --log LOG` applies them.
Offline tooling: no test runs it (timing belongs in bench/, and tuning takes minutes).
"""
import argparse
import ast
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_BIN = os.path.join(HERE, "..", "..", "build", "tools", "minitvm")


def tasks_of(minitvm, model):
    with tempfile.TemporaryDirectory() as d:
        rep = os.path.join(d, "report.json")
        subprocess.run([minitvm, "compile", model, "--target", "llvm", "-o", os.path.join(d, "m.mtvm"),
                        "--json", rep], check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        with open(rep) as f:
            report = json.load(f)
    out = []
    for k in report["kernels"]:
        if k["schedule"] != "conv2d_NCHWc.x86" or not k["workload"]:
            continue
        w = ast.literal_eval(k["workload"])
        if w[0] == "conv2d":  # 0.1 key: ('conv2d', (N,C,H,W,dt), (O,I,KH,KW,dt), strides, padding, dilation, layout, dt)
            d, kk, s, p, dil = w[1], w[2], w[3], w[4], w[5]
            pad = list(p) * 2 if len(p) == 2 else list(p)
            args = [["TENSOR", list(d[:4]), d[4]], ["TENSOR", list(kk[:4]), kk[4]], list(s), pad, list(dil),
                    "NCHW", "NCHW", w[-1]]
        else:  # 0.2 key: ('conv2d_NCHWc.x86', ('TENSOR', shape, dt), ...)
            args = [list(a) if isinstance(a, tuple) else a for a in w[1:]]
            args[0] = ["TENSOR", list(w[1][1]), w[1][2]]
            args[1] = ["TENSOR", list(w[2][1]), w[2][2]]
        out.append((k["nodes"], args))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("log")
    ap.add_argument("models", nargs="+")
    ap.add_argument("--trials", type=int, default=40)
    ap.add_argument("--tuner", default="xgb")
    ap.add_argument("--minitvm", default=os.environ.get("MINITVM", DEFAULT_BIN))
    a = ap.parse_args()
    seen = set()
    todo = []
    for m in a.models:
        for nodes, args in tasks_of(a.minitvm, m):
            key = json.dumps(args)
            if key not in seen:
                seen.add(key)
                todo.append((os.path.basename(m), args))
    print(f"{len(todo)} conv2d_NCHWc.x86 tasks, {a.trials} trials each ({a.tuner})", flush=True)
    for i, (m, args) in enumerate(todo):
        cmd = [a.minitvm, "tune", "conv2d_NCHWc.x86"] + [json.dumps(x) if not isinstance(x, str) else x for x in args]
        cmd += ["--trials", str(a.trials), "--tuner", a.tuner, "--log", a.log, "--quiet"]
        r = subprocess.run(cmd, capture_output=True, text=True)
        best = [l for l in r.stdout.splitlines() if l.startswith("best")]
        print(f"[{i + 1}/{len(todo)}] {m} {args[0][1]} x {args[1][1]} s{args[2]}: "
              f"{best[0][:60] if best else 'FAILED ' + r.stderr.strip()[-200:]}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
