#!/usr/bin/env python3
"""Figures of docs/parallel.md: time to solve with `tplan plan --jobs 1` vs `--jobs 2` over seeds,
and the simulated scaling table (order statistics of the measured --jobs 1 times).

usage: tools/parallel_figures.py TPLAN [--seeds N] [--rows ROWS] [--jobs J]
  ROWS: comma-separated DOMAIN:PLANNER[:NAME=VALUE...], default
        soccer:bgt,soccer:rrt,pool:bgt,pool:rrt,dice:bgt:count=40,minigolf_random:bgt

Each run is one `tplan plan ... -q -o TMP` process, timed with a wall clock (script loading and
plan writing included); exit status 0 = solved within the domain's max_iters, 3 = not solved.
Besides the wall time, the plan's stats.iterations (for --jobs 2: B, the winner's iterations) is
reported: it does not depend on the machine's load, and on free cores the time follows it. Times
in seconds; "-" = that quantile is unsolved. Not a test: nothing here asserts a time.
"""
import argparse
import math
import json
import os
import subprocess
import sys
import tempfile
import time

DEFAULT_ROWS = "soccer:bgt,soccer:rrt,pool:bgt,pool:rrt,dice:bgt:count=40,minigolf_random:bgt"
WORKERS = (1, 2, 4, 16, 64)


def run(tplan, domain, planner, sets, seed, jobs, out):
    """(wall seconds, iterations of the answer); both inf when not solved."""
    cmd = [tplan, "plan", domain, "--planner", planner, "--seed", str(seed), "-q", "-o", out]
    for s in sets:
        cmd += ["--set", s]
    if jobs > 1:
        cmd += ["--jobs", str(jobs)]
    t0 = time.perf_counter()
    rc = subprocess.run(cmd, stdout=subprocess.DEVNULL).returncode
    t = time.perf_counter() - t0
    if rc not in (0, 3):
        sys.exit(f"{' '.join(cmd)}: exit status {rc}")
    if rc != 0:
        return math.inf, math.inf
    with open(out) as f:
        return t, json.load(f)["stats"]["iterations"]


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


def fmti(n):
    return "-" if math.isinf(n) else f"{n:,}"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("tplan")
    ap.add_argument("--seeds", type=int, default=20)
    ap.add_argument("--rows", default=DEFAULT_ROWS)
    ap.add_argument("--jobs", type=int, default=2)
    a = ap.parse_args()
    print(f"| row | jobs | solved | median s | p90 s | median iterations | p90 iterations |")
    print(f"|---|---|---|---|---|---|---|")
    sim = []
    out = os.path.join(tempfile.mkdtemp(prefix="tplan-figures-"), "plan.json")
    for row in a.rows.split(","):
        parts = row.split(":")
        domain, planner, sets = parts[0], parts[1], parts[2:]
        label = f"{domain} {planner}" + "".join(f" {s}" for s in sets)
        for jobs in (1, a.jobs):
            rs = [run(a.tplan, domain, planner, sets, s, jobs, out) for s in range(1, a.seeds + 1)]
            ts = [r[0] for r in rs]
            its = [r[1] for r in rs]
            solved = sum(not math.isinf(t) for t in ts)
            print(f"| {label} | {jobs} | {solved}/{a.seeds} | {fmt(quantile_of_min(ts, 1, 0.5))} | "
                  f"{fmt(quantile_of_min(ts, 1, 0.9))} | {fmti(quantile_of_min(its, 1, 0.5))} | "
                  f"{fmti(quantile_of_min(its, 1, 0.9))} |", flush=True)
            if jobs == 1:
                sim.append((label, ts))
    print()
    print("simulated: minimum of w draws from the measured --jobs 1 times (median / p90 s, solve rate;")
    print("w workers each on its own core, the fixed costs of a run included once)")
    print("| row | " + " | ".join(f"w={w}" for w in WORKERS) + " |")
    print("|---|" + "---|" * len(WORKERS))
    for label, ts in sim:
        u = sum(math.isinf(t) for t in ts) / len(ts)
        cells = [f"{fmt(quantile_of_min(ts, w, 0.5))} / {fmt(quantile_of_min(ts, w, 0.9))}, "
                 f"{100 * (1 - u ** w):.0f} %" for w in WORKERS]
        print(f"| {label} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
