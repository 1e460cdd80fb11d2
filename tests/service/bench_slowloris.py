"""Not a test: prints /v1/health latency while slow clients hold connections (docs/service.md#connections).
Starts `tplan serve` with its defaults, opens N half-sent requests that trickle one byte every 5 s
from one loopback address (127.0.0.2), then times R health requests from 127.0.0.1, each on a new
connection. With --addresses K the N sockets come from K addresses (127.0.1.1 ...), the case the
per-address limit cannot stop on its own.
Usage: bench_slowloris.py TPLAN WORKDIR [N=2000] [R=400] [--addresses K]"""
import os
import resource
import socket
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tplan_service import Server, fresh_dir, read_to_close  # noqa: E402

args = [a for a in sys.argv[1:] if not a.startswith("--")]
k = int(sys.argv[sys.argv.index("--addresses") + 1]) if "--addresses" in sys.argv else 1
if k > 1:
    args = [a for a in args if a != str(k)]
tplan, work = args[0], args[1]
n = int(args[2]) if len(args) > 2 else 2000
reqs = int(args[3]) if len(args) > 3 else 400
resource.setrlimit(resource.RLIMIT_NOFILE, (20000, resource.getrlimit(resource.RLIMIT_NOFILE)[1]))
srv = Server(tplan, fresh_dir(work), workers=1).start()
socks, refused = [], 0
for i in range(n):
    src = "127.0.0.2" if k == 1 else "127.0.1.%d" % (1 + i % k)
    try:
        s = socket.socket()
        s.bind((src, 0))
        s.settimeout(5)
        s.connect(("127.0.0.1", srv.port))
        s.sendall(b"GET /v1/health HTTP/1.1\r\nHost: x\r\n")
        socks.append(s)
    except OSError:
        refused += 1
stop = [False]


def drip():
    while not stop[0]:
        for s in socks:
            try:
                s.send(b"X")
            except OSError:
                pass
        time.sleep(5)


th = threading.Thread(target=drip)
th.start()
time.sleep(1)
lat, fails = [], 0
for i in range(reqs):
    t0 = time.time()
    try:
        c = socket.create_connection(("127.0.0.1", srv.port), timeout=10)
        c.sendall(b"GET /v1/health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        data = read_to_close(c)
        if data.startswith(b"HTTP/1.1 200"):
            lat.append(time.time() - t0)
        else:
            fails += 1
    except OSError:
        fails += 1
stop[0] = True
th.join()
alive = 0
for s in socks:
    s.setblocking(False)
    try:
        alive += s.recv(1) != b""
    except BlockingIOError:
        alive += 1
    except OSError:
        pass
    s.close()
srv.stop()
lat.sort()
q = (lambda p: lat[min(len(lat) - 1, int(p * len(lat)))] * 1000) if lat else (lambda p: float("nan"))
print("%d slow sockets from %d address%s (%d held open by the server at the end); %d health requests: %d ok, "
      "%d failed; p50 %.2f ms, p99 %.2f ms, max %.2f ms"
      % (n, k, "" if k == 1 else "es", alive, reqs, len(lat), fails, q(0.5), q(0.99), q(1.0)))
