#!/usr/bin/env python3
"""Figures of docs/parallel.md: time to solve with `tplan plan --jobs 1` vs `--jobs 2` over seeds,
and the simulated scaling table (order statistics of the measured --jobs 1 times).

usage: tools/parallel_figures.py TPLAN [--seeds N] [--rows ROWS] [--jobs J]
  ROWS: comma-separated DOMAIN:PLANNER[:NAME=VALUE...], default
        soccer:bgt,soccer:rrt,pool:bgt,pool:rrt,dice:bgt:count=40,minigolf_random:bgt

Each run is one `tplan plan ... --no-out -q` process, timed with a wall clock (script loading
included); exit status 0 = solved within the domain's max_iters, 3 = not solved. Times are in
seconds; "-" = that quantile is unsolved. Not a test: nothing here asserts a time.
"""
import argparse
import math
import subprocess
import sys
import time

DEFAULT_ROWS = "soccer:bgt,soccer:rrt,pool:bgt,pool:rrt,dice:bgt:count=40,minigolf_random:bgt"
WORKERS = (1, 2, 4, 16, 64)


def run(tplan, domain, planner, sets, seed, jobs):
    cmd = [tplan, "plan", domain, "--planner", planner, "--seed", str(seed), "--no-out", "-q"]
    for s in sets:
        cmd += ["--set", s]
    if jobs > 1:
        cmd += ["--jobs", str(jobs)]
    t0 = time.perf_counter()
    rc = subprocess.run(cmd, stdout=subprocess.DEVNULL).returncode
    t = time.perf_counter() - t0
    if rc not in (0, 3):
        sys.exit(f"{' '.join(cmd)}: exit status {rc}")
    return t if rc == 0 else math.inf


def quantile_of_min(times, w, q):
    """q-quantile of the minimum of w independent draws from the empirical distribution of times
    (inf = unsolved): the least t with 1 - (1 - F(t))^w >= q."""
    xs = sorted(times)
    n = len(xs)
    for i, t in enumerate(xs):
        f = (i + 1) / n
        if 1 - (1 - f) ** w >= q - 1e-12:
            return t
    return math.inf


def fmt(t):
    return "-" if math.isinf(t) else f"{t:.2f}"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("tplan")
    ap.add_argument("--seeds", type=int, default=20)
    ap.add_argument("--rows", default=DEFAULT_ROWS)
    ap.add_argument("--jobs", type=int, default=2)
    a = ap.parse_args()
    print(f"| row | jobs | solved | median s | p90 s |")
    print(f"|---|---|---|---|---|")
    sim = []
    for row in a.rows.split(","):
        parts = row.split(":")
        domain, planner, sets = parts[0], parts[1], parts[2:]
        label = f"{domain} {planner}" + "".join(f" {s}" for s in sets)
        for jobs in (1, a.jobs):
            ts = [run(a.tplan, domain, planner, sets, s, jobs) for s in range(1, a.seeds + 1)]
            solved = sum(not math.isinf(t) for t in ts)
            print(f"| {label} | {jobs} | {solved}/{a.seeds} | {fmt(quantile_of_min(ts, 1, 0.5))} | "
                  f"{fmt(quantile_of_min(ts, 1, 0.9))} |", flush=True)
            if jobs == 1:
                sim.append((label, ts))
    print()
    print("simulated: minimum of w draws from the measured --jobs 1 times (median / p90 s, solve rate)")
    print("| row | " + " | ".join(f"w={w}" for w in WORKERS) + " |")
    print("|---|" + "---|" * len(WORKERS))
    for label, ts in sim:
        u = sum(math.isinf(t) for t in ts) / len(ts)
        cells = [f"{fmt(quantile_of_min(ts, w, 0.5))} / {fmt(quantile_of_min(ts, w, 0.9))}, "
                 f"{100 * (1 - u ** w):.0f} %" for w in WORKERS]
        print(f"| {label} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
