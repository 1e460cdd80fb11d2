"""Benchmark of tplan serve (not a test: prints figures for docs/service.md; no threshold asserted).
  1. throughput of short minigolf jobs (seeds 1..N, BK-BGT): `tplan plan` in a loop vs the service
     with 1 and 2 workers (all jobs submitted at once, time until the last is final);
  2. the service's added latency per job: POST -> plan bytes received, one job at a time on an idle
     server, minus the worker's own run (script load + planning + plan file: summary.time.worker);
  3. GET /v1/jobs/{id} latency (p50, p99) from 8 client threads while both workers plan (and with
     wrk, when installed: the server's latency without python's client overhead);
  4. DELETE of a running job: time until the answer (the job is cancelled when it returns).
usage: bench_service.py TPLAN WORKDIR [N]"""
import os
import shutil
import statistics
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tplan_service import Server, fresh_dir  # noqa: E402

TPLAN, WORK = sys.argv[1], fresh_dir(sys.argv[2])
N = int(sys.argv[3]) if len(sys.argv) > 3 else 40


def pct(xs, p):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(p / 100.0 * (len(xs) - 1))))]


def cli_loop():
    t0 = time.perf_counter()
    walls = []
    for seed in range(1, N + 1):
        t = time.perf_counter()
        subprocess.run([TPLAN, "plan", "minigolf", "--seed", str(seed), "--time-limit", "60", "-q", "-o",
                        os.path.join(WORK, "cli.json")], check=False)
        walls.append(time.perf_counter() - t)
    return N / (time.perf_counter() - t0), walls


def service_throughput(workers):
    s = Server(TPLAN, os.path.join(WORK, "tp%d" % workers), workers=workers).start()
    try:
        s.submit({"domain": "minigolf", "seed": 999})  # warm: workers started, store open
        s.wait_final(s.submit({"domain": "minigolf", "seed": 998}))
        t0 = time.perf_counter()
        ids = [s.submit({"domain": "minigolf", "seed": seed}) for seed in range(1, N + 1)]
        for i in ids:
            s.wait_final(i)
        return N / (time.perf_counter() - t0)
    finally:
        s.stop()


def added_latency():
    s = Server(TPLAN, os.path.join(WORK, "lat"), workers=1).start()
    try:
        s.wait_final(s.submit({"domain": "minigolf", "seed": 997}))
        lat, plan_t, over, work = [], [], [], []
        for seed in range(1, N + 1):
            t = time.perf_counter()
            jid = s.submit({"domain": "minigolf", "seed": seed})
            final = s.wait_final(jid)
            st, _, _ = s.request("GET", final["plan"])
            dt = time.perf_counter() - t
            lat.append(dt)
            plan_t.append(final["summary"]["time"]["total"])
            work.append(final["summary"]["time"]["worker"])
            over.append(dt - final["summary"]["time"]["worker"])
        return lat, plan_t, over, work
    finally:
        s.stop()


def status_latency():
    s = Server(TPLAN, os.path.join(WORK, "st"), workers=2).start()
    long = {"domain": "minigolf_random", "max_iters": 1000000000, "time_limit": 300}
    try:
        a, b = s.submit(long), s.submit(long)
        s.wait_status(a, ("running",))
        s.wait_status(b, ("running",))
        lats = []
        lock = threading.Lock()
        stop = time.perf_counter() + 5.0

        def poll():
            mine = []
            while time.perf_counter() < stop:
                t = time.perf_counter()
                st, _, _ = s.request("GET", "/v1/jobs/%d" % a)
                mine.append(time.perf_counter() - t)
            with lock:
                lats.extend(mine)

        threads = [threading.Thread(target=poll) for _ in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        wrk = None
        if shutil.which("wrk"):  # the same measurement without python's client overhead
            r = subprocess.run(["wrk", "-t2", "-c8", "-d5s", "--latency", "http://127.0.0.1:%d/v1/jobs/%d" % (s.port, a)],
                               capture_output=True, text=True)
            wrk = r.stdout
        t = time.perf_counter()
        s.json("DELETE", "/v1/jobs/%d" % a, expect=200)
        cancel = time.perf_counter() - t
        s.json("DELETE", "/v1/jobs/%d" % b, expect=200)
        return lats, cancel, wrk
    finally:
        s.stop()


rate_cli, walls = cli_loop()
rate1 = service_throughput(1)
rate2 = service_throughput(2)
lat, plan_t, over, work = added_latency()
st, cancel, wrk = status_latency()
print("short minigolf jobs (seeds 1..%d, BK-BGT, solved):" % N)
print("  tplan plan in a shell loop      %6.1f jobs/s   (process wall p50 %.1f ms)" % (rate_cli, 1000 * statistics.median(walls)))
print("  service, 1 worker               %6.1f jobs/s" % rate1)
print("  service, 2 workers              %6.1f jobs/s" % rate2)
print("one job at a time (idle server, 1 worker):")
print("  POST -> plan received           p50 %.1f ms  p90 %.1f ms" % (1000 * statistics.median(lat), 1000 * pct(lat, 90)))
print("  planner run (planner total)     p50 %.1f ms" % (1000 * statistics.median(plan_t)))
print("  worker: load + plan + write     p50 %.1f ms" % (1000 * statistics.median(work)))
print("  service overhead per job        p50 %.2f ms  p90 %.2f ms  (%.1f %% of the worker's run at p50)"
      % (1000 * statistics.median(over), 1000 * pct(over, 90), 100 * statistics.median(over) / statistics.median(work)))
print("GET /v1/jobs/{id} with both workers planning, 8 clients, 5 s: %d requests, p50 %.2f ms, p99 %.2f ms"
      % (len(st), 1000 * statistics.median(st), 1000 * pct(st, 99)))
if wrk:
    print("the same with wrk -t2 -c8 -d5s --latency:")
    print("\n".join("  " + l for l in wrk.splitlines() if l.strip().startswith(("50%", "90%", "99%", "Requests/sec"))))
print("DELETE of a running job answered (cancelled) in %.1f ms" % (1000 * cancel))
