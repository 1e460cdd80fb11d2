"""Benchmark (not a test: it prints figures): game AI first. Both batch workers plan 60 s batch jobs
(minigolf_random bounded by iterations, so their plans are reproducible) while a game asks
POST /v1/plan?wait=0.5 one request after another; prints the share answered 200 within 0.5 s, the
latency percentiles, and whether each batch plan is byte-identical to `tplan plan` (timing aside).
usage: bench_interactive.py TPLAN WORKDIR [ITERS]   (ITERS: the batch jobs' max_iters, default
4000000, ~60 s of planning each on this project's machine)"""
import json
import os
import sys
import time

from tplan_service import Server, cli_plan, strip_timing, fresh_dir

TPLAN, WORK = sys.argv[1], fresh_dir(sys.argv[2])
ITERS = int(sys.argv[3]) if len(sys.argv) > 3 else 4000000
s = Server(TPLAN, os.path.join(WORK, "data"), batch_nice=None).start()  # the service's defaults
try:
    batch = [{"domain": "minigolf_random", "seed": 10 + k, "max_iters": ITERS, "time_limit": 600} for k in range(2)]
    ids = [s.submit(b) for b in batch]
    for i in ids:
        s.wait_status(i, ("running",))
    lat, codes, statuses = [], {}, {}
    seed = 0
    while True:
        _, _, j0 = s.json("GET", "/v1/jobs/%d" % ids[0])
        _, _, j1 = s.json("GET", "/v1/jobs/%d" % ids[1])
        if j0["status"] != "running" or j1["status"] != "running":
            break  # only while both batch workers are busy
        seed += 1
        t0 = time.time()
        st, hd, body = s.request("POST", "/v1/plan?wait=0.5", {"domain": "soccer", "seed": seed})
        lat.append(time.time() - t0)
        codes[st] = codes.get(st, 0) + 1
        statuses[hd.get("x-tplan-status")] = statuses.get(hd.get("x-tplan-status"), 0) + 1
    finals = [s.wait_final(i) for i in ids]
    lat.sort()
    n = len(lat)
    ok = sum(1 for t, in zip(lat) if t <= 0.5)
    on_time_200 = codes.get(200, 0)
    print("batch jobs: %s, planning %.1f s and %.1f s" % ([f["status"] for f in finals], finals[0]["progress"]["elapsed"],
                                                          finals[1]["progress"]["elapsed"]))
    print("POST /v1/plan?wait=0.5 while both ran: %d requests, codes %s, X-Tplan-Status %s" % (n, codes, statuses))
    print("answered within 0.5 s: %d of %d = %.2f %%; latency p50 %.3f s, p99 %.3f s, max %.3f s" % (
        ok, n, 100.0 * ok / max(n, 1), lat[n // 2], lat[min(n - 1, int(n * 0.99))], lat[-1]))
    for k, b in enumerate(batch):
        served = s.request("GET", "/v1/jobs/%d/plan" % ids[k])[2]
        want = cli_plan(TPLAN, os.path.join(WORK, "cli%d.json" % k), "minigolf_random", "--seed", str(b["seed"]),
                        "--max-iters", str(ITERS), "--time-limit", "600")
        print("batch job %d plan byte-identical to tplan plan (timing aside): %s" % (
            ids[k], strip_timing(served) == strip_timing(want)))
finally:
    s.stop()
