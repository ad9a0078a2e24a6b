#!/usr/bin/env python3
"""Network latency, minitvm (llvm) vs ONNX Runtime (CPUExecutionProvider), batch 1.

Each model is compiled once (`minitvm compile MODEL.onnx --target llvm -o OUT`); then R rounds
alternate the contenders, each round one fresh process per contender and model:
  minitvm: `minitvm run OUT --warmup W --repeat N --json F` (W untimed runs, N timed runs, as
           ORT's; its own thread pool, one worker per hardware thread);
  ORT:     this script with --ort-worker: InferenceSession(intra_op_num_threads = core count,
           inter_op_num_threads = 1, sequential execution, graph optimisation level ALL),
           W warm-up runs, N timed runs.
  PyTorch: (when torch and torchvision import) this script with --torch-worker: the torchvision
           model of the same name (random weights, eval mode), torch.set_num_threads(core count),
           under torch.inference_mode; traced and frozen with torch.jit (the column "PyTorch"),
           W warm-up runs, N timed runs. --no-torch leaves it out.
Each process gets the median of its N runs; the report gives per model the median of the R round
medians and the spread (min / max over rounds), and minitvm / ORT of the medians.  Timed processes
run under `setsid`, with `renice -n -10` and `echo -10 > /proc/self/autogroup` tried first
(failures, e.g. without permission, are ignored).

usage: bench.py MODEL_DIR [--quick] [--models resnet50,mobilenet_v2,vgg16] [--rounds R] [--repeat N]
                [--minitvm BIN] [--json OUT.json] [--no-torch]
MODEL_DIR holds <model>.onnx files written by make_models.py (missing ones are generated there).
"""
import argparse
import datetime
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_BIN = os.path.normpath(os.path.join(HERE, "..", "..", "build", "tools", "minitvm"))
PRIO = 'renice -n -10 $$ >/dev/null 2>&1; echo -10 > /proc/self/autogroup 2>/dev/null; exec "$@"'


def timed_cmd(argv):
    cmd = ["sh", "-c", PRIO, "sh", *argv]
    if shutil.which("setsid"):
        cmd = ["setsid", "-w", *cmd]
    return cmd


def ort_worker(a):
    import numpy as np
    import onnxruntime as ort
    so = ort.SessionOptions()
    so.intra_op_num_threads = a.threads
    so.inter_op_num_threads = 1
    so.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    sess = ort.InferenceSession(a.ort_worker, so, providers=["CPUExecutionProvider"])
    i = sess.get_inputs()[0]
    x = np.random.default_rng(0).uniform(-1, 1, [d if isinstance(d, int) else 1 for d in i.shape]).astype(np.float32)
    for _ in range(a.warmup):
        sess.run(None, {i.name: x})
    ts = []
    for _ in range(a.repeat):
        t = time.perf_counter()
        sess.run(None, {i.name: x})
        ts.append((time.perf_counter() - t) * 1e3)
    ts.sort()
    print(json.dumps({"median": statistics.median(ts), "min": ts[0], "max": ts[-1], "repeat": a.repeat,
                      "threads": a.threads, "ort": ort.__version__}))


def torch_worker(a):
    import torch
    import torchvision
    torch.set_num_threads(a.threads)
    torch.manual_seed(0)
    model = getattr(torchvision.models, a.torch_worker)(weights=None).eval()
    x = torch.rand(1, 3, 224, 224) * 2 - 1
    with torch.inference_mode():
        model = torch.jit.freeze(torch.jit.trace(model, x))
        for _ in range(a.warmup):
            model(x)
        ts = []
        for _ in range(a.repeat):
            t = time.perf_counter()
            model(x)
            ts.append((time.perf_counter() - t) * 1e3)
    ts.sort()
    print(json.dumps({"median": statistics.median(ts), "min": ts[0], "max": ts[-1], "repeat": a.repeat,
                      "threads": a.threads, "torch": torch.__version__}))


def have_torch():
    p = subprocess.run([sys.executable, "-c", "import torch, torchvision"], capture_output=True)
    return p.returncode == 0


def machine():
    cpu = "?"
    try:
        for line in subprocess.run(["lscpu"], capture_output=True, text=True).stdout.splitlines():
            if line.startswith("Model name:"):
                cpu = line.split(":", 1)[1].strip()
    except OSError:
        pass
    import numpy as np
    n = 256 * 2**20 // 4
    src = np.ones(n, np.float32)
    dst = np.empty_like(src)
    np.copyto(dst, src)
    best = min(_time(lambda: np.copyto(dst, src)) for _ in range(5))
    load = os.getloadavg()
    return {"cpu": cpu, "cores": os.cpu_count(), "copy_GBps": 256 * 2**20 / best / 1e9,
            "loadavg": load, "kernel": platform.release()}


def _time(f):
    t = time.perf_counter()
    f()
    return time.perf_counter() - t


def run_json(cmd, what):
    p = subprocess.run(timed_cmd(cmd), capture_output=True, text=True)
    if p.returncode != 0:
        err = (p.stderr.strip() or p.stdout.strip()).splitlines()
        raise RuntimeError(f"{what} failed (exit {p.returncode}): {err[-1] if err else ''}")
    return p


def main():
    ap = argparse.ArgumentParser(description="minitvm vs ONNX Runtime network latency")
    ap.add_argument("model_dir", nargs="?")
    ap.add_argument("--quick", action="store_true", help="2 rounds, fewer runs (a few minutes)")
    ap.add_argument("--models", default="resnet50,mobilenet_v2,vgg16")
    ap.add_argument("--rounds", type=int)
    ap.add_argument("--repeat", type=int, help="timed runs per minitvm process (default: --ort-repeat's)")
    ap.add_argument("--ort-repeat", type=int, help="timed runs per ORT/PyTorch process (default 20, quick 10)")
    ap.add_argument("--minitvm", default=os.environ.get("MINITVM", DEFAULT_BIN))
    ap.add_argument("--json", help="write the results here")
    ap.add_argument("--log", help="also time the networks compiled with this tuning log (tuned vs fallback)")
    ap.add_argument("--no-torch", action="store_true", help="leave PyTorch out")
    ap.add_argument("--ort-worker", help=argparse.SUPPRESS)
    ap.add_argument("--torch-worker", help=argparse.SUPPRESS)
    ap.add_argument("--threads", type=int, default=os.cpu_count(), help=argparse.SUPPRESS)
    ap.add_argument("--warmup", type=int, default=3, help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.ort_worker:
        return ort_worker(a)
    if a.torch_worker:
        return torch_worker(a)
    if not a.model_dir:
        ap.error("MODEL_DIR is required")
    rounds = a.rounds or (2 if a.quick else 5)
    orep = a.ort_repeat or (10 if a.quick else 20)
    rep = a.repeat or orep
    if not os.access(a.minitvm, os.X_OK) and "MINITVM" not in os.environ and shutil.which("minitvm"):
        a.minitvm = shutil.which("minitvm")
    if not os.access(a.minitvm, os.X_OK):
        sys.exit(f"bench.py: no minitvm binary at {a.minitvm} (use --minitvm or MINITVM=)")
    models = a.models.split(",")
    os.makedirs(a.model_dir, exist_ok=True)
    missing = [m for m in models if not os.path.exists(os.path.join(a.model_dir, f"{m}.onnx"))]
    if missing:
        subprocess.run([sys.executable, os.path.join(HERE, "make_models.py"), a.model_dir, *missing], check=True)

    mach = machine()
    date = datetime.datetime.now().strftime("%Y-%m-%d %H:%M")
    print(f"{date}  machine: {mach['cpu']}, {mach['cores']} cores, numpy copy of 256 MiB: "
          f"{mach['copy_GBps']:.1f} GB/s, load average {mach['loadavg'][0]:.1f}", flush=True)
    print(f"threads: minitvm its pool ({mach['cores']} workers); ORT intra_op_num_threads={a.threads}, inter_op=1", flush=True)
    use_torch = not a.no_torch and have_torch()
    print(f"{rounds} rounds; per process: minitvm {a.warmup} warm-ups + {rep} runs, ORT {a.warmup} warm-ups + {orep} runs"
          + (f", PyTorch (jit trace + freeze) {a.warmup} warm-ups + {orep} runs" if use_torch else
             ", no PyTorch (torch/torchvision not importable or --no-torch)"), flush=True)

    work = tempfile.mkdtemp(prefix="bench_network_")
    variants = [("minitvm", [])] + ([("tuned", ["--log", os.path.abspath(a.log)])] if a.log else [])
    res = {}
    for m in models:
        onnx_path = os.path.join(a.model_dir, f"{m}.onnx")
        ok = True
        for v, extra in variants:
            out = os.path.join(work, f"{m}.{v}.so")
            t = time.time()
            p = subprocess.run([a.minitvm, "compile", onnx_path, "--target", "llvm", "-o", out, *extra,
                                "--json", os.path.join(work, f"{m}.{v}.build.json")], capture_output=True, text=True)
            if p.returncode != 0:
                print(f"{m}: minitvm compile ({v}) failed: {(p.stderr or p.stdout).strip().splitlines()[-1:]}", flush=True)
                ok = False
                break
            with open(os.path.join(work, f"{m}.{v}.build.json")) as fh:
                wl = json.load(fh)["workloads"]
            res.setdefault(m, {"ort": [], "torch": []})
            res[m][v] = []
            res[m][f"{v}_compile_s"] = time.time() - t
            print(f"{m}: compiled ({v}) in {time.time() - t:.1f} s; workloads {wl['from_log']} from log, "
                  f"{wl['fallback']} fallback", flush=True)
        if not ok:
            res.pop(m, None)

    for r in range(rounds):
        for m in res:
            line = f"round {r + 1}/{rounds} {m:<14}"
            for v, _ in variants:
                f = os.path.join(work, f"{m}.{v}.run.json")
                run_json([a.minitvm, "run", os.path.join(work, f"{m}.{v}.so"), "--warmup", str(a.warmup),
                          "--repeat", str(rep), "--json", f],
                         f"minitvm run {m} ({v})")
                with open(f) as fh:
                    lat = json.load(fh)["latency_ms"]
                res[m][v].append(lat["median"])
                line += f" {v} {lat['median']:9.1f} ms"
            p = run_json([sys.executable, os.path.abspath(__file__), "--ort-worker", os.path.join(a.model_dir, f"{m}.onnx"),
                          "--repeat", str(orep), "--threads", str(a.threads), "--warmup", str(a.warmup)], f"ORT {m}")
            lat_o = json.loads(p.stdout.strip().splitlines()[-1])
            res[m]["ort"].append(lat_o["median"])
            line += f"   ORT {lat_o['median']:8.2f} ms"
            if use_torch:
                p = run_json([sys.executable, os.path.abspath(__file__), "--torch-worker", m, "--repeat", str(orep),
                              "--threads", str(a.threads), "--warmup", str(a.warmup)], f"PyTorch {m}")
                lat_t = json.loads(p.stdout.strip().splitlines()[-1])
                res[m]["torch"].append(lat_t["median"])
                line += f"   PyTorch {lat_t['median']:8.2f} ms"
            print(line, flush=True)

    print()
    names = [v for v, _ in variants]
    hdr = f"{'model':<14}" + "".join(f" {v + ' ms (min-max)':>26}" for v in names) + f" {'ORT ms (min-max)':>24}" + \
        "".join(f" {v + '/ORT':>12}" for v in names) + f" {'per round':>10} {'best/best':>10}" + \
        (f" {'PyTorch ms (min-max)':>24} {'minitvm/PyTorch':>16}" if use_torch else "")
    print(hdr)
    print("-" * len(hdr))
    table = []
    for m, d in res.items():
        if not d["ort"]:
            continue
        ot = statistics.median(d["ort"])
        row = {"model": m, "ort_ms": ot, "ort_min": min(d["ort"]), "ort_max": max(d["ort"])}
        text = f"{m:<14}"
        for v in names:
            mt = statistics.median(d[v])
            key = "minitvm" if v == "minitvm" else v
            row.update({f"{key}_ms": mt, f"{key}_min": min(d[v]), f"{key}_max": max(d[v]), f"{key}_ratio": mt / ot,
                        f"{key}_compile_s": d[f"{v}_compile_s"]})
            text += f" {mt:10.1f} ({min(d[v]):.1f}-{max(d[v]):.1f})".ljust(27)
        row["ratio"] = row["minitvm_ratio"]
        # The machine's slow windows last seconds and only ever add time: the ratio within each
        # round (the two contenders seconds apart) and the ratio of the two best rounds are less
        # disturbed by them than the ratio of the medians.
        row["round_ratio"] = statistics.median(x / y for x, y in zip(d["minitvm"], d["ort"]))
        row["best_ratio"] = min(d["minitvm"]) / min(d["ort"])
        text += f" {ot:8.2f} ({row['ort_min']:.2f}-{row['ort_max']:.2f})".ljust(25)
        text += "".join(f" {row[(v if v != 'minitvm' else 'minitvm') + '_ratio']:11.2f}x" for v in names)
        text += f" {row['round_ratio']:9.2f}x {row['best_ratio']:9.2f}x"
        if d["torch"]:
            tt = statistics.median(d["torch"])
            row.update({"torch_ms": tt, "torch_min": min(d["torch"]), "torch_max": max(d["torch"]),
                        "torch_ratio": row["minitvm_ms"] / tt})
            text += f" {tt:8.2f} ({row['torch_min']:.2f}-{row['torch_max']:.2f})".ljust(25)
            text += f" {row['torch_ratio']:15.2f}x"
        table.append(row)
        print(text)
    print(f"load average at the end: {os.getloadavg()[0]:.1f}")
    if a.json:
        with open(a.json, "w") as fh:
            json.dump({"date": date, "machine": mach, "rounds": rounds, "minitvm_repeat": rep, "ort_repeat": orep,
                       "ort_threads": a.threads, "results": table, "raw": res}, fh, indent=1)
    shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
