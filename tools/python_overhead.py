#!/usr/bin/env python3
"""What a call through the Python binding costs over the same call in C (docs/python.md).

    python3 tools/python_overhead.py [BUILD [N]]     (BUILD: build, N: 1000)

Runs BUILD/tests/python/tplan_py_overhead (C: tplan_state_copy + a 1-step tplan_simulate, and
tplan_state_new, a search run of 1 iteration) and the same through `tplan` (Domain.simulate(state,
steps=1), which copies the state and returns the new one; Domain.initial_state(); Search.run(iterations=1),
which returns the best plan as a Result) on pool and minigolf, N calls each, and
prints the medians (µs) and their differences. Uses BUILD's libtplan.so (TPLAN_LIBRARY)."""

import json
import os
import statistics
import subprocess
import sys
import time

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
build = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(root, "build"))
n = int(sys.argv[2]) if len(sys.argv) > 2 else 1000
os.environ["TPLAN_LIBRARY"] = os.path.join(build, "libtplan.so.0")
sys.path.insert(0, os.path.join(root, "python"))
import tplan  # noqa: E402

print("libtplan %s (%s), %d calls each, median µs" % (tplan.version(), tplan.library_path(), n))
print("%-9s %-22s %9s %9s %9s" % ("domain", "call", "C", "Python", "overhead"))
for name in ("pool", "minigolf"):
    path = os.path.join(root, "domains", name + ".lua")
    c = json.loads(subprocess.run([os.path.join(build, "tests", "python", "tplan_py_overhead"), path, str(n)],
                                  check=True, capture_output=True, text=True).stdout)
    d = tplan.load(path)
    s0 = d.initial_state()
    sim, make, run = [], [], []
    search = tplan.Search(d, seed=1)
    for _ in range(n):
        t0 = time.perf_counter_ns()
        s = d.simulate(s0, steps=1)
        sim.append(time.perf_counter_ns() - t0)
        del s  # freed outside the timing, as in C
        t1 = time.perf_counter_ns()
        s = d.initial_state()
        make.append(time.perf_counter_ns() - t1)
        del s
        t2 = time.perf_counter_ns()
        r = search.run(iterations=1)
        run.append(time.perf_counter_ns() - t2)
        del r
    for call, cns, pns in (("simulate, 1 step", c["simulate_ns"], statistics.median(sim)),
                           ("initial_state", c["state_new_ns"], statistics.median(make)),
                           ("Search.run, 1 iter", c["search_run_ns"], statistics.median(run))):
        print("%-9s %-22s %9.1f %9.1f %9.1f" % (name, call, cns / 1e3, pns / 1e3, (pns - cns) / 1e3))
