"""tplan serve's event streams are bounded (docs/service.md#connections): per client
address, per job and in all (429 / 503 `too_many_streams`, the connection closed), /v1/health
answered while they are held, a stream whose client left or reads nothing (its socket's buffer
full) closed, and its place given back. Small caps, so that it runs in seconds.
Usage: service_streams.py TPLAN WORKDIR. Every wait is for an event (a status, a log line, a socket
closed) with a generous bound; no assertion is about how long something took."""
import errno
import json
import os
import select
import socket
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tplan_service import LONG, TIMEOUT, Runner, Server, fresh_dir, health_from, read_to_close, slow_socket, openapi_check  # noqa: E402

TPLAN, WORK = sys.argv[1], sys.argv[2]
# a queued job whose object (each event) is ~64 KB: 64 `set` strings short enough to be shown whole
BIG = {"domain": "minigolf", "set": {"p%02d" % i: "v" * 1000 for i in range(64)}}


class Drain:
    """Reads every socket handed to it in a thread (streams the test keeps but does not look at:
    their client reads, so the server must not close them)."""

    def __init__(self):
        self.socks, self.stop = [], False
        self.lock = threading.Lock()
        self.t = threading.Thread(target=self.run, daemon=True)
        self.t.start()

    def add(self, s):
        with self.lock:
            self.socks.append(s)

    def remove(self, s):
        with self.lock:
            self.socks.remove(s)

    def run(self):
        while not self.stop:
            with self.lock:
                socks = list(self.socks)
            ready = select.select(socks, [], [], 0.1)[0] if socks else (time.sleep(0.1) or [])
            for s in ready:
                try:
                    s.recv(65536)
                except OSError:
                    pass


def open_stream(port, source, job, rcvbuf=None):
    """GET /v1/jobs/JOB/events from the loopback address source; (socket, status, head + what came
    with it). Reads the head only (and whatever arrived in the same segments)."""
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    if rcvbuf:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
    s.bind((source, 0))
    s.settimeout(TIMEOUT)
    s.connect(("127.0.0.1", port))
    s.sendall(b"GET /v1/jobs/%d/events HTTP/1.1\r\nHost: x\r\n\r\n" % job)
    data = b""
    while b"\r\n\r\n" not in data:
        b = s.recv(1 if rcvbuf else 4096)  # a small buffer: take the head and no more
        if not b:
            break
        data += b
    return s, int(data.split(b" ", 2)[1]) if data else 0, data


def refused(srv, source, job):
    """A stream the server must refuse: (status, error object); the answer is recorded for the
    OpenAPI check and the server must close the connection after it."""
    s, st, data = open_stream(srv.port, source, job)
    data = read_to_close(s, data)  # Connection: close: the server ends it
    head, _, body = data.partition(b"\r\n\r\n")
    assert st in (429, 503), (st, data[:300])
    assert b"Retry-After: 5" in head, head
    srv.responses.append({"method": "GET", "path": "/v1/jobs/%d/events" % job, "status": st,
                          "type": "application/json", "encoding": "", "body": body.decode()})
    return st, json.loads(body)["error"]


def until_accepted(srv, source, job, rcvbuf=None):
    """Opens streams from source until one is accepted: the server frees a closed stream's place
    once its reaper saw it (a quarter of a second); bounded."""
    for _ in range(600):
        s, st, data = open_stream(srv.port, source, job, rcvbuf)
        if st == 200:
            return s
        s.close()
        time.sleep(0.05)
    raise AssertionError("no stream accepted from %s" % source)


def wait_log(srv, text):
    for _ in range(int(TIMEOUT / 0.05)):
        if text in srv.log():
            return
        time.sleep(0.05)
    raise AssertionError("no %r in the server's log" % text)


def test_stream_caps(tplan, work):
    data = fresh_dir(os.path.join(work, "caps"))
    srv = Server(tplan, data, "--interactive-workers", "0", "--max-streams-per-address", "3",
                 "--max-streams-per-job", "4", "--max-streams", "6", workers=1).start()
    drain = Drain()
    try:
        long_id = srv.submit(LONG)
        big_id = srv.submit(BIG)  # queued behind it: one worker
        while srv.json("GET", "/v1/jobs/%d" % long_id)[2]["status"] != "running":
            time.sleep(0.05)
        a = [until_accepted(srv, "127.0.0.1", long_id) for _ in range(3)]
        for s in a:
            drain.add(s)
        st, err = refused(srv, "127.0.0.1", long_id)  # the 4th of one address
        assert st == 429 and err["code"] == "too_many_streams" and "client address" in err["message"], err
        b = until_accepted(srv, "127.0.0.2", long_id)  # the 4th of the job
        drain.add(b)
        st, err = refused(srv, "127.0.0.2", long_id)
        assert st == 429 and "job %d" % long_id in err["message"], err
        c = [until_accepted(srv, src, big_id) for src in ("127.0.0.3", "127.0.0.4")]  # 6 in all
        for s in c:
            drain.add(s)
        st, err = refused(srv, "127.0.0.5", big_id)
        assert st == 503 and err["code"] == "too_many_streams" and "--max-streams" in err["message"], err
        # health on capacity no stream takes: from a new address, and from one at its stream cap
        assert health_from(srv.port, "127.0.0.6")[0].endswith("200 OK")
        assert health_from(srv.port, "127.0.0.1")[0].endswith("200 OK")
        # a stream closed by its client gives its place back (the server is told within 0.25 s)
        drain.remove(a[0])
        a[0].close()
        a[0] = until_accepted(srv, "127.0.0.1", long_id)
        drain.add(a[0])
        # a client that reads nothing: its socket's buffers fill with the 64 KB object and the
        # stream is closed (its place too)
        drain.remove(c[1])
        c[1].close()
        stuck = until_accepted(srv, "127.0.0.7", big_id, rcvbuf=4096)
        wait_log(srv, "http: closed 1 event stream whose client read nothing")
        stuck.settimeout(TIMEOUT)
        try:
            while stuck.recv(65536):  # what was in flight, then the end
                pass
        except OSError as e:
            assert e.errno in (errno.ECONNRESET, errno.EPIPE), e
        stuck.close()
        until_accepted(srv, "127.0.0.8", big_id).close()
        # the streams the test read are still open: nothing more was refused or closed
        assert srv.log().count("event stream") == 1, [l for l in srv.log().splitlines() if "event stream" in l]
        assert health_from(srv.port, "127.0.0.9")[0].endswith("200 OK")
        srv.json("DELETE", "/v1/jobs/%d" % long_id)
        openapi_check([srv], os.path.join(work, "openapi"))
    finally:
        drain.stop = True
        srv.stop()


def test_room_no_client_takes(tplan, work):
    """--max-connections 32: streams take at most 4 (an eighth), connections waiting for their
    request at most 24 (three quarters, the longest-waiting pushed out): health on a new connection
    still finds room with both held to the full, from many addresses."""
    data = fresh_dir(os.path.join(work, "room"))
    srv = Server(tplan, data, "--interactive-workers", "0", "--max-connections", "32", workers=1).start()
    drain, held = Drain(), []
    try:
        long_id = srv.submit(LONG)
        while srv.json("GET", "/v1/jobs/%d" % long_id)[2]["status"] != "running":
            time.sleep(0.05)
        for k in range(4):
            s = until_accepted(srv, "127.0.0.%d" % (2 + k), long_id)
            drain.add(s)
            held.append(s)
        st, err = refused(srv, "127.0.0.6", long_id)
        assert st == 503 and "--max-streams" in err["message"], err
        held += [slow_socket(srv.port, "127.0.0.%d" % (10 + k % 4)) for k in range(40)]
        wait_log(srv, "that waited longest for a request, to make room")
        for k in range(3):
            assert health_from(srv.port, "127.0.0.%d" % (20 + k))[0].endswith("200 OK")
        srv.json("DELETE", "/v1/jobs/%d" % long_id)
        openapi_check([srv], os.path.join(work, "openapi_room"))
    finally:
        drain.stop = True
        for s in held:
            s.close()
        srv.stop()


r = Runner()
r.run("event streams: caps, health, stuck", test_stream_caps, TPLAN, WORK)
r.run("room that no client takes", test_room_no_client_takes, TPLAN, WORK)
r.finish()
