#!/usr/bin/env python3
"""Network tuning benchmark: the task scheduler against one task after another, same budget.

usage: tune_network.py OUT_DIR [--nets resnet50,mobilenet_v2] [--trials N] [--rounds R]
                       [--repeat K] [--mpi-ranks 1,2,3] [--mpi-trials M] [--minitvm BIN]

For each network (zoo names, batch 1, llvm):
  1. `minitvm tune NET --trials N --strategy gradient` and `--strategy sequential` (TVM's
     tune_tasks loop: an equal share per task), each into a fresh log; wall time of each;
  2. `minitvm compile` four variants: fallback configs, TopHub (--tophub), each log;
  3. end-to-end latency: R rounds, each running every variant once (`minitvm run --repeat K`,
     alternating processes), median and spread over the rounds.
Then trials per minute of `mpirun -n K minitvm tune resnet50 --mpi` for each K (fresh logs).
Prints markdown tables with the machine (CPU model, cores, copy GB/s). Python standard library
only; offline tooling, not a test.
"""
import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_BIN = os.path.join(HERE, "..", "..", "build", "tools", "minitvm")


def machine():
    cpu = "unknown"
    try:
        out = subprocess.run(["lscpu"], capture_output=True, text=True).stdout
        m = re.search(r"Model name:\s*(.+)", out)
        cpu = m.group(1).strip() if m else cpu
    except OSError:
        pass
    # Copy bandwidth: 256 MiB bytearray copy, best of 5 (slice assignment is a memcpy); bytes
    # copied per second, as bench.py's numpy copy reports it.
    n = 256 << 20
    src, dst = bytearray(n), bytearray(n)
    best = 1e9
    for _ in range(5):
        t = time.perf_counter()
        dst[:] = src
        best = min(best, time.perf_counter() - t)
    return cpu, os.cpu_count(), n / best / 1e9


def run(cmd, **kw):
    t = time.perf_counter()
    p = subprocess.run(cmd, capture_output=True, text=True, **kw)
    if p.returncode != 0:
        sys.stderr.write(f"failed ({p.returncode}): {' '.join(cmd)}\n{p.stdout[-2000:]}\n{p.stderr[-4000:]}\n")
        raise SystemExit(1)
    return p, time.perf_counter() - t


def estimate_of(table):
    m = re.search(r"fallback ([\d.]+|n/a) ms, now ([\d.]+) ms", table)
    return (m.group(1), m.group(2)) if m else ("?", "?")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--nets", default="resnet50,mobilenet_v2")
    ap.add_argument("--trials", type=int, default=200)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--repeat", type=int, default=20)
    ap.add_argument("--mpi-ranks", default="1,2,3")
    ap.add_argument("--mpi-trials", type=int, default=48)
    ap.add_argument("--minitvm", default=DEFAULT_BIN)
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    cpu, cores, copy = machine()
    print(f"machine: {cpu}, {cores} cores, copy {copy:.1f} GB/s; {time.strftime('%Y-%m-%d %H:%M')}")
    exe = a.minitvm
    tune_rows, lat_rows = [], []
    for net in a.nets.split(","):
        variants = {"fallback": [], "tophub": ["--tophub"]}
        for strat in ("gradient", "sequential"):
            log = os.path.join(a.out, f"{net}_{strat}.log")
            if os.path.exists(log):
                os.remove(log)
            p, wall = run([exe, "tune", net, "--target", "llvm", "--trials", str(a.trials), "--strategy", strat,
                           "--log", log, "--plot", os.path.join(a.out, f"{net}_{strat}.svg"), "--quiet"])
            with open(os.path.join(a.out, f"{net}_{strat}.txt"), "w") as f:
                f.write(p.stdout)
            fb, est = estimate_of(p.stdout)
            tune_rows.append((net, strat, a.trials, wall, fb, est))
            variants[strat] = ["--log", log]
            print(f"{net} {strat}: {a.trials} trials in {wall:.0f} s, estimate of the tuned kernels {fb} -> {est} ms",
                  flush=True)
        files = {}
        for name, extra in variants.items():
            out = os.path.join(a.out, f"{net}_{name}.mtvm")
            run([exe, "compile", net, "--target", "llvm", "-o", out] + extra)
            files[name] = out
        times = {k: [] for k in files}
        for r in range(a.rounds):
            for name, f in files.items():
                p, _ = run([exe, "run", f, "--repeat", str(a.repeat)])
                m = re.search(r"median ([\d.]+) ms", p.stdout)
                times[name].append(float(m.group(1)))
        base = statistics.median(times["fallback"])
        for name, t in times.items():
            med = statistics.median(t)
            lat_rows.append((net, name, med, min(t), max(t), base / med))
            print(f"{net} {name}: median {med:.2f} ms [{min(t):.2f}, {max(t):.2f}] over {a.rounds} processes",
                  flush=True)

    mpi_rows = []
    mpirun = shutil.which("mpirun")
    if mpirun:
        env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
        for k in [int(x) for x in a.mpi_ranks.split(",")]:
            log = os.path.join(a.out, f"mpi_{k}.log")
            if os.path.exists(log):
                os.remove(log)
            cmd = [mpirun, "--oversubscribe", "-n", str(k), exe, "tune", "resnet50", "--target", "llvm", "--trials",
                   str(a.mpi_trials), "--log", log, "--mpi", "--quiet"]
            _, wall = run(cmd, env=env)
            mpi_rows.append((k, a.mpi_trials, wall, a.mpi_trials / wall * 60))
            print(f"mpirun -n {k}: {a.mpi_trials} trials in {wall:.0f} s = {a.mpi_trials / wall * 60:.1f} trials/min",
                  flush=True)

    print(f"\n### Network tuning, llvm, batch 1 ({cpu}, {cores} cores, copy {copy:.1f} GB/s)\n")
    print("| network | strategy | trials | wall time | estimate of tuned kernels: fallback -> tuned |")
    print("|---|---|---|---|---|")
    for net, s, n, w, fb, est in tune_rows:
        print(f"| {net} | {s} | {n} | {w:.0f} s | {fb} -> {est} ms |")
    print("\n| network | configs | end-to-end median | min | max | speedup vs fallback |")
    print("|---|---|---|---|---|---|")
    for net, name, med, lo, hi, sp in lat_rows:
        print(f"| {net} | {name} | {med:.2f} ms | {lo:.2f} | {hi:.2f} | {sp:.2f}x |")
    if mpi_rows:
        print("\n| ranks | trials | wall time | trials/min |")
        print("|---|---|---|---|")
        for k, n, w, tpm in mpi_rows:
            print(f"| {k} | {n} | {w:.0f} s | {tpm:.1f} |")


if __name__ == "__main__":
    main()
