#!/usr/bin/env python3
"""Cross-check minitvm against ONNX Runtime on ONNX models.

For each MODEL.onnx: a seeded random input (standard normal, shape from the model's input), ONNX
Runtime (CPUExecutionProvider) and `minitvm run MODEL.onnx --target llvm --input NAME=x.npy
--output-dir DIR` on the same input (plus `--input-shapes NAME:[..]` for inputs with symbolic dims,
which take --batch, default 1); compares every output: max |minitvm - ORT| and that divided by
max |ORT|.  Prints a table; exits 1 if any model fails (rel > --rtol, default 1e-3, a shape
mismatch, or minitvm exits nonzero: its error line is printed).

minitvm binary: --minitvm, else $MINITVM, else build/tools/minitvm of this checkout, else minitvm on PATH.

usage: check_ort.py [--minitvm BIN] [--rtol 1e-3] [--seed 0] [--batch 1] [--keep DIR] MODEL.onnx ...
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

import numpy as np
import onnx
import onnxruntime as ort

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_BIN = os.path.normpath(os.path.join(HERE, "..", "..", "build", "tools", "minitvm"))


def input_specs(path, batch=1):
    m = onnx.load(path, load_external_data=False)
    inits = {i.name for i in m.graph.initializer}
    specs = []
    for vi in m.graph.input:
        if vi.name in inits:
            continue
        shape = vi.type.tensor_type.shape.dim
        dims = [d.dim_value if d.dim_value > 0 else batch for d in shape]
        specs.append((vi.name, dims, any(d.dim_value <= 0 for d in shape)))
    return specs


def check(path, a):
    name = os.path.splitext(os.path.basename(path))[0]
    row = {"model": name, "ok": False}
    work = a.keep and os.path.join(a.keep, name) or tempfile.mkdtemp(prefix=f"check_ort_{name}_")
    os.makedirs(work, exist_ok=True)
    rng = np.random.default_rng(a.seed)
    feeds, args = {}, []
    for iname, dims, symbolic in input_specs(path, a.batch):
        x = rng.standard_normal(dims).astype(np.float32)
        f = os.path.join(work, f"{iname}.npy")
        np.save(f, x)
        feeds[iname] = x
        args += ["--input", f"{iname}={f}"]
        if symbolic:   # minitvm does not take the shape from the .npy: give it (tvmc's spelling)
            args += ["--input-shapes", f"{iname}:[{','.join(map(str, dims))}]"]

    so = ort.SessionOptions()
    so.intra_op_num_threads = os.cpu_count()
    t = time.time()
    sess = ort.InferenceSession(path, so, providers=["CPUExecutionProvider"])
    ref = sess.run(None, feeds)
    row["ort_s"] = time.time() - t

    out_dir = os.path.join(work, "out")
    os.makedirs(out_dir, exist_ok=True)
    rep = os.path.join(work, "run.json")
    cmd = [a.minitvm, "run", path, "--target", "llvm", *args, "--output-dir", out_dir, "--json", rep]
    t = time.time()
    p = subprocess.run(cmd, capture_output=True, text=True)
    row["minitvm_s"] = time.time() - t
    if p.returncode != 0:
        err = (p.stderr.strip() or p.stdout.strip()).splitlines()
        row["error"] = f"minitvm exit {p.returncode}: " + (err[-1] if err else "(no output)")
        return row
    with open(rep) as f:
        outs = json.load(f)["outputs"]
    if len(outs) != len(ref):
        row["error"] = f"minitvm gave {len(outs)} outputs, ORT {len(ref)}"
        return row
    worst_abs, worst_rel, scale = 0.0, 0.0, 0.0
    for o, r in zip(outs, ref):
        y = np.load(o["path"])
        if tuple(y.shape) != tuple(r.shape):
            row["error"] = f"output {o['name']}: shape {list(y.shape)} vs ORT {list(r.shape)}"
            return row
        if not np.all(np.isfinite(y)):
            row["error"] = f"output {o['name']}: non-finite values"
            return row
        d = float(np.max(np.abs(y.astype(np.float64) - r.astype(np.float64))))
        s = float(np.max(np.abs(r)))
        worst_abs = max(worst_abs, d)
        scale = max(scale, s)
        worst_rel = max(worst_rel, d / s if s > 0 else (0.0 if d == 0 else np.inf))
    row.update(max_abs=worst_abs, max_ref=scale, rel=worst_rel, ok=worst_rel <= a.rtol)
    if not a.keep:
        for root, _, files in os.walk(work, topdown=False):
            for f in files:
                os.remove(os.path.join(root, f))
            os.rmdir(root)
    return row


def main():
    ap = argparse.ArgumentParser(description="minitvm vs ONNX Runtime outputs")
    ap.add_argument("models", nargs="+")
    ap.add_argument("--minitvm", default=os.environ.get("MINITVM", DEFAULT_BIN))
    ap.add_argument("--rtol", type=float, default=1e-3)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--batch", type=int, default=1, help="size of symbolic input dims (default 1)")
    ap.add_argument("--keep", help="keep inputs/outputs under this folder")
    a = ap.parse_args()
    if not os.access(a.minitvm, os.X_OK) and shutil.which("minitvm") and "MINITVM" not in os.environ:
        a.minitvm = shutil.which("minitvm")
    if not os.access(a.minitvm, os.X_OK):
        sys.exit(f"check_ort.py: no minitvm binary at {a.minitvm} (use --minitvm or MINITVM=)")
    print(f"minitvm: {a.minitvm}   onnxruntime {ort.__version__} (CPUExecutionProvider)   rtol {a.rtol:g}", flush=True)
    rows = []
    hdr = f"{'model':<22} {'result':<6} {'max|ORT|':>10} {'max abs diff':>13} {'rel':>10} {'ort s':>6} {'minitvm s':>9}"
    print(hdr)
    print("-" * len(hdr), flush=True)
    for p in a.models:
        r = check(p, a)
        rows.append(r)
        if "error" in r:
            print(f"{r['model']:<22} {'FAIL':<6} {'-':>10} {'-':>13} {'-':>10} {r['ort_s']:6.2f} {r['minitvm_s']:9.2f}")
            print(f"    {r['error']}")
        else:
            print(f"{r['model']:<22} {'ok' if r['ok'] else 'FAIL':<6} {r['max_ref']:10.4g} {r['max_abs']:13.3e} "
                  f"{r['rel']:10.2e} {r['ort_s']:6.2f} {r['minitvm_s']:9.2f}")
        sys.stdout.flush()
    bad = [r["model"] for r in rows if not r["ok"]]
    print(f"\n{len(rows) - len(bad)}/{len(rows)} pass" + (f"; failing: {', '.join(bad)}" if bad else ""))
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
