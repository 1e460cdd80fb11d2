"""Benchmark (not a test: it prints figures): the data folder and the server's memory after N jobs
with the default retention policy (--keep-days 7, --keep-jobs 5000, --keep-mb 2048).
usage: bench_retention.py TPLAN WORKDIR [N]   (N default 10000 short minigolf jobs, 8 clients)"""
import concurrent.futures
import os
import sys
import time

from tplan_service import Server, fresh_dir

TPLAN, WORK = sys.argv[1], fresh_dir(sys.argv[2])
N = int(sys.argv[3]) if len(sys.argv) > 3 else 10000
data = os.path.join(WORK, "data")
s = Server(TPLAN, data, batch_nice=None).start()  # the service's defaults


def du(path):
    return sum(os.path.getsize(os.path.join(r, f)) for r, _, fs in os.walk(path) for f in fs)


def one(i):
    body = {"domain": "minigolf", "seed": 1 + i % 50, "name": "bench %d" % i, "tags": ["bench"]}
    if i % 10 == 0:
        body["tree"] = True
    while True:
        st, _, obj = s.json("POST", "/v1/jobs", body)
        if st == 201:
            return obj["id"]
        time.sleep(0.05)  # 429: the queue is full


try:
    t0 = time.time()
    rss0 = s.rss_kb()
    with concurrent.futures.ThreadPoolExecutor(8) as ex:
        ids = list(ex.map(one, range(N)))
    while s.json("GET", "/v1/health")[2]["queued"] + s.json("GET", "/v1/health")[2]["running"] > 0:
        time.sleep(0.5)
    s.json("POST", "/v1/jobs", {"domain": "minigolf"})  # one more end brings the retention pass
    time.sleep(2)
    _, _, page = s.json("GET", "/v1/jobs?limit=500")
    n_kept = 0
    after = None
    while True:
        _, _, page = s.json("GET", "/v1/jobs?limit=500" + ("&after=%d" % after if after else ""))
        n_kept += len(page["jobs"])
        after = page["next"]
        if not after:
            break
    print("%d jobs in %.0f s; jobs kept %d; job folders %d" % (N, time.time() - t0, n_kept,
                                                                len(os.listdir(os.path.join(data, "jobs")))))
    print("data folder %.1f MB (tplan.db + WAL %.1f MB, job files %.1f MB); server RSS %.1f MB (at start %.1f MB)" % (
        du(data) / 1e6, sum(os.path.getsize(os.path.join(data, f)) for f in os.listdir(data)
                            if f.startswith("tplan.db")) / 1e6,
        du(os.path.join(data, "jobs")) / 1e6, s.rss_kb() / 1024.0, rss0 / 1024.0))
finally:
    s.stop()
