"""The synchronous POST /v1/plan?wait=W's deadline, measured over loopback HTTP (not a
test: it prints the figures of docs/service.md and docs/embedding.md). A server with one
interactive worker; N calls one after another, each planning pool from a state taken mid-plan
(still rolling) with no iteration bound, so that every search runs to its deadline. For each wait W
it prints the answers (200 solved / approximate, 503 deadline_missed) and the latency seen by the
client (http.client, from the request's send to the whole answer read) less W: the overshoot.
usage: bench_sync_deadline.py TPLAN WORKDIR [N [W ...]]   (defaults: 200 calls at 0.05, 0.1, 0.5 s)"""
import json
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tplan_service import Server, fresh_dir  # noqa: E402

TPLAN, WORK = sys.argv[1], fresh_dir(sys.argv[2])
N = int(sys.argv[3]) if len(sys.argv) > 3 else 200
WAITS = [float(w) for w in sys.argv[4:]] or [0.05, 0.1, 0.5]


def pct(xs, q):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))]


plan, mid = os.path.join(WORK, "p.json"), os.path.join(WORK, "mid.json")
subprocess.run([TPLAN, "plan", "pool", "--seed", "1", "-q", "-o", plan], check=True)
subprocess.run([TPLAN, "state", plan, "--step", "40", "-o", mid], check=True)
state = json.load(open(mid))
s = Server(TPLAN, os.path.join(WORK, "data"), "--interactive-workers", "1", workers=1).start()
try:
    for w in WAITS:
        over, codes = [], {}
        for i in range(N):
            body = {"domain": "pool", "state": state, "seed": i + 1, "max_iters": 1000000000, "solutions": 10000}
            t0 = time.monotonic()
            st, hd, data = s.request("POST", "/v1/plan?wait=%g" % w, body)
            over.append(time.monotonic() - t0 - w)
            key = "%d %s" % (st, hd.get("x-tplan-status") if st == 200 else json.loads(data)["error"]["code"])
            codes[key] = codes.get(key, 0) + 1
        # the server's own view: its log's "POST /v1/plan CODE MS ms" lines, from the request's
        # arrival to the answer queued (the client's view adds its own scheduling on a loaded machine)
        lines = [ln.split() for ln in s.log().splitlines() if " POST /v1/plan" in ln]
        served = [float(ln[4]) - 1e3 * w for ln in lines[-N:]]
        print("wait %g s, %d calls: %s; overshoot seen by the client median %.1f / p90 %.1f / p99 %.1f / max "
              "%.1f ms, within the wait %d; by the server median %.1f / p99 %.1f / max %.1f ms, within %d"
              % (w, N, codes, 1e3 * pct(over, 0.5), 1e3 * pct(over, 0.9), 1e3 * pct(over, 0.99), 1e3 * max(over),
                 sum(o <= 0 for o in over), pct(served, 0.5), pct(served, 0.99), max(served),
                 sum(o <= 0 for o in served)))
        sys.stdout.flush()
finally:
    s.stop()
with open("/proc/loadavg") as f:
    print("load average:", f.read().split()[:3])
