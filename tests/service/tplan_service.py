"""Helpers of the tplan serve tests: start the real server on a free port in a temporary data
directory, talk to it over loopback HTTP with urllib, read Server-Sent Events, compare plans.
Every wait is for an event (a line, a status) with a bounded timeout; nothing sleeps for time."""
import http.client
import json
import os
import select
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request

TIMEOUT = 300  # s: the bound of any single wait (a loaded CI machine is slow, never this slow)


# TPLAN_TEST_PG="SOCKET_DIR PORT" (set by service_pg_suite.py): every Server runs on that PostgreSQL,
# one database per data folder (a server restarted on the same folder finds its jobs)
PG_ENV = os.environ.get("TPLAN_TEST_PG")


def pg_store_for(data):
    import hashlib
    sock, port = PG_ENV.split()
    db = "t" + hashlib.sha1(os.path.abspath(data).encode()).hexdigest()[:20]
    psql = ["psql", "-X", "-q", "-A", "-t", "-h", sock, "-p", port, "-U", "tplan", "-d", "postgres", "-c"]
    out = subprocess.run(psql + ["SELECT 1 FROM pg_database WHERE datname = '%s'" % db], capture_output=True,
                         text=True, check=True).stdout
    if out.strip() != "1":
        subprocess.run(psql + ['CREATE DATABASE "%s"' % db], capture_output=True, check=True)
    return "postgresql:///%s?host=%s&port=%s&user=tplan" % (db, sock, port)


SCRIPTS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "scripts")
# a job that plans until it is cancelled, killed or its 300 s limit: for cancel, crash and load tests
LONG = {"domain": "minigolf_random", "max_iters": 1000000000, "time_limit": 300}


def fresh_dir(path):
    """An empty directory at path (removed first if it exists); returns path."""
    shutil.rmtree(path, ignore_errors=True)
    os.makedirs(path)
    return path


def stop_process(proc, log_path, sig=signal.SIGTERM):
    """Ends a server or node process (sig, then a wait bounded by TIMEOUT) and returns its exit
    status (None if there was none); in the sanitizer build a report from it or any of its workers
    in its log (log_path) fails the test."""
    if proc and proc.poll() is None:
        proc.send_signal(sig)
        proc.wait(TIMEOUT)
    code = proc.returncode if proc else None
    log = open(log_path).read()
    for bad in ("ERROR: AddressSanitizer", "ERROR: LeakSanitizer", "runtime error:"):
        if bad in log:
            raise AssertionError("sanitizer report in %s" % log_path)
    return code


def client_socket(port, source):
    """A connection to the server on port from the loopback address source (a client of its own
    for the per-client limits), with the TIMEOUT bound."""
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.bind((source, 0))
    s.settimeout(TIMEOUT)
    s.connect(("127.0.0.1", port))
    return s


def read_to_close(s, data=b""):
    """What s receives until the server closes it, after data; closes s."""
    while True:
        b = s.recv(4096)
        if not b:
            break
        data += b
    s.close()
    return data


def health_from(port, source):
    """GET /v1/health from the loopback address source: (status line, body)."""
    s = client_socket(port, source)
    s.sendall(b"GET /v1/health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
    head, _, body = read_to_close(s).partition(b"\r\n\r\n")
    return head.split(b"\r\n", 1)[0].decode(), body


def slow_socket(port, source):
    """A connection from the loopback address source that has sent half a request head (and waits)."""
    s = client_socket(port, source)
    s.sendall(b"GET /v1/health HTTP/1.1\r\nHost: x\r\n")
    return s


class Server:
    every = []  # every Server this process made: a test of many short-lived servers checks them all

    def __init__(self, tplan, data, *args, workers=2, batch_nice=0, env=None):
        # batch_nice 0 by default: the tests share a loaded machine with other tests at nice 0, which
        # would starve batch workers at the service's default nice 10 past the jobs' wall-clock
        # limits (service_interactive.py checks the default itself: batch_nice=None)
        nice = [] if batch_nice is None else ["--batch-nice", str(batch_nice)]
        # SIGTERM drains (docs/service.md#drain); the tests stop at once unless they test the drain
        drain = [] if "--drain-timeout" in args else ["--drain-timeout", "0"]
        self.tplan, self.data, self.args, self.workers = tplan, data, nice + drain + list(args), workers
        self.env = env  # the server's environment (None: this process's)
        self.proc = None
        self.port = None
        self.log_path = os.path.join(data, "server.log")
        self.responses = []  # (method, path, status, content type, body) of every JSON answer: openapi_check
        Server.every.append(self)

    def start(self):
        os.makedirs(self.data, exist_ok=True)
        log = open(self.log_path, "a")
        store = ["--store", pg_store_for(self.data)] if PG_ENV and "--store" not in self.args else []
        self.proc = subprocess.Popen(
            [self.tplan, "serve", "--port", "0", "--data", self.data, "--workers", str(self.workers)] + store +
            self.args,
            stdout=subprocess.PIPE, stderr=log, stdin=subprocess.DEVNULL, text=True, env=self.env)
        log.close()
        ready, _, _ = select.select([self.proc.stdout], [], [], TIMEOUT)
        line = self.proc.stdout.readline() if ready else ""
        if not line.startswith("listening on http://127.0.0.1:"):
            self.proc.kill()
            raise RuntimeError("server did not start: %r; log:\n%s" % (line, open(self.log_path).read()[-3000:]))
        self.port = int(line.split(":")[2].split(",")[0])
        self.ready_line = line.strip()
        return self

    def stop(self, sig=signal.SIGTERM):
        code = stop_process(self.proc, self.log_path, sig)
        self.proc = None
        return code

    def log(self):
        return open(self.log_path).read()

    def pid(self):
        return self.proc.pid

    def workers_pids(self):
        out = subprocess.run(["pgrep", "-P", str(self.proc.pid)], capture_output=True, text=True).stdout
        return [int(x) for x in out.split()]

    def rss_kb(self):
        for line in open("/proc/%d/status" % self.proc.pid):
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
        return 0

    # ---- HTTP ----
    def request(self, method, path, body=None, headers=None, raw=None, timeout=TIMEOUT):
        """(status, headers, body bytes). body: an object sent as JSON; raw: bytes sent as is."""
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout)
        data = raw if raw is not None else (json.dumps(body).encode() if body is not None else None)
        hdrs = dict(headers or {})
        if data is not None:
            hdrs.setdefault("Content-Type", "application/json")
        conn.request(method, path, body=data, headers=hdrs)
        r = conn.getresponse()
        payload = r.read()
        conn.close()
        hd = {k.lower(): v for k, v in r.getheaders()}
        if method != "HEAD" and len(self.responses) < 5000 and len(payload) < (1 << 20):
            self.responses.append({"method": method, "path": path, "status": r.status,
                                   "type": hd.get("content-type", ""), "encoding": hd.get("content-encoding", ""),
                                   "body": payload.decode("utf-8", "replace")})
        return r.status, hd, payload

    def json(self, method, path, body=None, headers=None, expect=None, raw=None):
        st, hd, data = self.request(method, path, body, headers, raw)
        obj = json.loads(data) if data else None
        if expect is not None and st != expect:
            raise AssertionError("%s %s: expected %d, got %d: %s" % (method, path, expect, st, data[:500]))
        return st, hd, obj

    def submit(self, body, headers=None):
        st, hd, obj = self.json("POST", "/v1/jobs", body, headers, expect=201)
        return obj["id"]

    def events(self, job_id, headers=None, until_end=True):
        """Reads the SSE stream of a job: the list of (event, data object) until `end`."""
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=TIMEOUT)
        conn.request("GET", "/v1/jobs/%d/events" % job_id, headers=headers or {})
        r = conn.getresponse()
        assert r.status == 200, r.status
        assert r.getheader("Content-Type").startswith("text/event-stream")
        out, event, data = [], None, []
        while True:
            line = r.fp.readline()
            if not line:
                break
            line = line.decode().rstrip("\n")
            if line.startswith(":"):
                continue
            if line.startswith("event: "):
                event = line[7:]
            elif line.startswith("data: "):
                data.append(line[6:])
            elif line == "" and event:
                out.append((event, json.loads("\n".join(data))))
                if event == "end" or not until_end:
                    break
                event, data = None, []
        conn.close()
        return out

    def wait_final(self, job_id):
        ev = self.events(job_id)
        assert ev and ev[-1][0] == "end", ev[-3:]
        return ev[-1][1]

    def wait_status(self, job_id, statuses):
        """Follows the job's events until its status is one of statuses (or it ends)."""
        return self.wait_until(job_id, lambda job: job["status"] in statuses, statuses)

    def wait_until(self, job_id, pred, what="the condition"):
        """Follows the job's events until pred(job object) holds; fails if the job ends first."""
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=TIMEOUT)
        conn.request("GET", "/v1/jobs/%d/events" % job_id)
        r = conn.getresponse()
        event = None
        try:
            while True:
                line = r.fp.readline()
                if not line:
                    raise AssertionError("job %d: stream ended before %s" % (job_id, what))
                line = line.decode().rstrip("\n")
                if line.startswith("event: "):
                    event = line[7:]
                elif line.startswith("data: "):
                    job = json.loads(line[6:])
                    if pred(job):
                        return job
                    if event == "end":
                        raise AssertionError("job %d ended %s before %s" % (job_id, job["status"], what))
        finally:
            conn.close()


def openapi_check(servers, work, doc_server=None):
    """Validates the OpenAPI document (GET /v1/openapi.json of doc_server, else of servers[0], which
    must be running) with @seriousme/openapi-schema-validator and every JSON response the servers
    gave against it with ajv (tests/service/openapi_check.mjs)."""
    here = os.path.dirname(os.path.abspath(__file__))
    if not os.path.isdir(os.path.join(here, "node_modules", "ajv")):
        raise AssertionError("tests/service/node_modules is missing: run .ci/install-deps (npm ci)")
    os.makedirs(work, exist_ok=True)
    doc_path = os.path.join(work, "openapi.json")
    with open(doc_path, "wb") as f:
        f.write((doc_server or servers[0]).request("GET", "/v1/openapi.json")[2])
    rec = os.path.join(work, "responses.json")
    with open(rec, "w") as f:
        json.dump([r for s in servers for r in s.responses], f)
    out = subprocess.run(["node", os.path.join(here, "openapi_check.mjs"), doc_path, rec], capture_output=True,
                         text=True)
    print(out.stdout.strip())
    if out.returncode != 0:
        raise AssertionError("OpenAPI check failed:\n" + out.stdout[-3000:] + out.stderr[-3000:])


def openapi_check_every(tplan, work):
    """openapi_check over every server this process made (most stopped by now): one more server
    gives the document."""
    doc = Server(tplan, fresh_dir(os.path.join(work, "openapi_doc")), workers=1).start()
    try:
        openapi_check(Server.every, os.path.join(work, "openapi"), doc_server=doc)
    finally:
        doc.stop()


def strip_timing(plan_bytes):
    """A plan file without stats.timing (the one member that differs between runs)."""
    d = json.loads(plan_bytes)
    d.get("stats", {}).pop("timing", None)
    return d


def cli_plan(tplan, out, *args):
    r = subprocess.run([tplan, "plan"] + list(args) + ["-o", out, "-q"], capture_output=True, text=True)
    assert r.returncode in (0, 3), r.stderr
    return open(out, "rb").read()


def start_state(tplan, script, folder):
    """The state at step 0 of a plan of SCRIPTS/script (tplan plan, then tplan state), as a dict."""
    name = os.path.splitext(script)[0]
    plan, state = os.path.join(folder, name + ".json"), os.path.join(folder, name + "_state.json")
    subprocess.run([tplan, "plan", os.path.join(SCRIPTS, script), "-q", "-o", plan], check=True)
    subprocess.run([tplan, "state", plan, "--step", "0", "-o", state], check=True)
    with open(state) as f:
        return json.load(f)


def stop_keeps_interim(server, jid):
    """Job jid, queued again by a drain's hand-back: its interim plan is served, and a stop ends it
    approximate with exactly those bytes as its final plan. Returns (the job before the stop, its end)."""
    _, _, job = server.json("GET", "/v1/jobs/%d" % jid, expect=200)
    assert job["status"] == "queued" and job["interim_plan"]["n"] == 1, job
    st, hd, interim = server.request("GET", "/v1/jobs/%d/plan" % jid)
    assert st == 200 and hd["x-tplan-plan"] == "interim", (st, hd)
    _, _, end = server.json("POST", "/v1/jobs/%d/stop" % jid, expect=200)
    assert end["status"] == "approximate" and end["interim_plan"] is None and end["summary"], end
    st, hd, final = server.request("GET", "/v1/jobs/%d/plan" % jid)
    assert st == 200 and hd["x-tplan-plan"] == "final" and final == interim, (st, hd)
    return job, end


class Runner:
    """Runs named test functions; prints one line per test and 'N passed, N failed'."""

    def __init__(self):
        self.passed = self.failed = 0

    def run(self, name, fn, *args):
        t0 = time.time()
        try:
            fn(*args)
            self.passed += 1
            print("ok    %-40s %.1f s" % (name, time.time() - t0), flush=True)
        except Exception as e:  # noqa: BLE001 - a test's failure of any kind is reported
            self.failed += 1
            import traceback
            print("FAIL  %-40s %s" % (name, e), flush=True)
            traceback.print_exc()

    def stop_server(self, srv):
        """Stops srv at the end of a group (its `finally`); a non-zero exit status counts as a
        failure, with the end of its log."""
        code = srv.stop()
        if code != 0:
            print("server exit status %s; log:\n%s" % (code, srv.log()[-4000:]))
            self.failed += 1

    def finish(self):
        print("%d passed, %d failed" % (self.passed, self.failed))
        sys.exit(1 if self.failed else 0)
