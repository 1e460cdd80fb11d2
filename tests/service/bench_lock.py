"""Benchmark (not a test: it prints figures): /v1/health latency while the server holds N stored
jobs of ~4 MiB each (64 `set` strings of 64,000 bytes: the job fails at once, its request is kept),
over 32 s, i.e. three retention passes or more (each pass read every stored request under
the server's lock). Then restarted with a --keep-days that makes the oldest expire 12 s later: the
same while passes delete them (~25 a pass); then restarted with --keep-jobs 16 (the pass at start
deletes the others): the same while the store gives their 1.5 GB of pages back.
usage: bench_lock.py TPLAN WORKDIR [N]   (N default 400)"""
import os
import socket
import sys
import threading
import time
import urllib.error
import urllib.request
import json

from tplan_service import Server, fresh_dir

TPLAN, WORK = sys.argv[1], fresh_dir(sys.argv[2])
N = int(sys.argv[3]) if len(sys.argv) > 3 else 400
BODY = json.dumps({"domain": "minigolf", "set": {"p%02d" % i: "v" * 64000 for i in range(64)}}).encode()


def post(port):
    while True:
        try:
            req = urllib.request.Request("http://127.0.0.1:%d/v1/jobs" % port, data=BODY, method="POST")
            return urllib.request.urlopen(req).status
        except urllib.error.HTTPError as e:
            if e.code != 429:
                return e.code
            time.sleep(0.5)


def probe(port, seconds):
    """health on a new connection every 50 ms: the latencies (s)"""
    out, t0 = [], time.time()
    while time.time() - t0 < seconds:
        h0 = time.time()
        s = socket.create_connection(("127.0.0.1", port), timeout=120)
        s.sendall(b"GET /v1/health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        while s.recv(4096):
            pass
        s.close()
        out.append(time.time() - h0)
        time.sleep(0.05)
    return out


def report(what, lat):
    lat = sorted(lat)
    pick = lambda q: lat[min(len(lat) - 1, int(q * len(lat)))] * 1000
    print("%-46s %4d probes  p50 %7.2f ms  p99 %7.2f ms  max %7.1f ms  over 50 ms: %d" %
          (what, len(lat), pick(0.5), pick(0.99), lat[-1] * 1000, sum(1 for x in lat if x > 0.05)), flush=True)


data = os.path.join(WORK, "data")
s = Server(TPLAN, data).start()
try:
    t0 = time.time()
    ths = [threading.Thread(target=lambda: [post(s.port) for _ in range(N // 4)]) for _ in range(4)]
    [t.start() for t in ths]
    [t.join() for t in ths]
    while s.json("GET", "/v1/health")[2]["queued"] > 0:
        time.sleep(0.5)
    print("%d jobs of %d KiB stored in %.0f s" % (N, len(BODY) >> 10, time.time() - t0), flush=True)
    report("%d stored, 32 s (3+ retention passes)" % N, probe(s.port, 32))
    oldest = s.json("GET", "/v1/jobs/1")[2]["finished"]
finally:
    s.stop()
keep = (time.time() - oldest + 12) / 86400
s = Server(TPLAN, data, "--keep-days", "%.9f" % keep).start()
try:
    report("the oldest expiring while served, 40 s", probe(s.port, 40))
finally:
    s.stop()
s = Server(TPLAN, data, "--keep-jobs", "16").start()
try:
    report("pages of the deleted given back, 40 s", probe(s.port, 40))
finally:
    s.stop()
print("server log: retention lines:")
print("".join(l for l in open(s.log_path) if "retention" in l or "upgraded" in l))
