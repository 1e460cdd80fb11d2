"""tplan serve against hostile clients (docs/service.md#connections, #limits): slow and idle
connections, a job's memory, script output, and requests that must be refused.
Usage: service_hostile.py TPLAN WORKDIR. Every wait is for an event (a socket closed, a status) with
a generous bound; no assertion is about how long something took."""
import errno
import json
import os
import resource
import select
import socket
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tplan_service import LONG, TIMEOUT, Runner, Server, fresh_dir, health_from, slow_socket, openapi_check_every  # noqa: E402
import http.client  # noqa: E402

TPLAN, WORK = sys.argv[1], sys.argv[2]


def closed_by_server(s):
    """True if the server has closed s (end of stream or reset); s must be readable."""
    try:
        return s.recv(4096) == b""
    except OSError as e:
        return e.errno in (errno.ECONNRESET, errno.EPIPE)


def test_one_address_cannot_take_every_connection():
    """Repro slowloris_connection_cap.py: one client opens more idle connections than the server
    takes in all; those beyond its per-address share are closed at once, and another client's
    /v1/health is answered while the share is held."""
    n, share, cap = 150, 8, 64
    srv = Server(TPLAN, fresh_dir(os.path.join(WORK, "slow")), "--max-connections", str(cap),
                 "--max-per-address", str(share), workers=1).start()
    socks = []
    try:
        socks = [slow_socket(srv.port, "127.0.0.2") for _ in range(n)]
        # wait until the server has closed every connection beyond the share (an event per socket)
        pending = wait_closed(socks, n - share)
        assert len(pending) == share, len(pending)
        line, body = health_from(srv.port, "127.0.0.1")
        assert line == "HTTP/1.1 200 OK", line
        assert json.loads(body)["status"] == "ok"
        # the held ones are still open (not answered, not closed)
        ready, _, _ = select.select(pending, [], [], 0)
        assert not ready, "a held connection was closed or answered"
    finally:
        for s in socks:
            s.close()
        srv.stop()


def wait_log(srv, text):
    """Waits until the server's log has text (it is written just after the event it reports)."""
    t_end = time.time() + TIMEOUT
    while text not in srv.log():
        assert time.time() < t_end, "no %r in the server's log" % text
        time.sleep(0.05)


def wait_closed(socks, want):
    """Waits until the server has closed `want` of socks; returns those still open."""
    pending, closed = list(socks), 0
    while closed < want:
        ready, _, _ = select.select(pending, [], [], TIMEOUT)
        assert ready, "the server closed %d of the %d connections expected" % (closed, want)
        for s in ready:
            pending.remove(s)
            assert closed_by_server(s), "the server answered a half-sent request"
            closed += 1
    return pending


def test_many_addresses_cannot_hold_every_connection():
    """Slow connections from many addresses, each within its share: those waiting for a request
    hold at most 3/4 of --max-connections (a new one closes the one that waited longest), so an
    ordinary request still gets a connection and its answer."""
    n, cap = 100, 64
    srv = Server(TPLAN, fresh_dir(os.path.join(WORK, "slowmany")), "--max-connections", str(cap),
                 "--max-per-address", "8", workers=1).start()
    socks = []
    try:
        socks = [slow_socket(srv.port, "127.0.2.%d" % (1 + i % 20)) for i in range(n)]
        held = wait_closed(socks, n - (cap - cap // 4))
        line, body = health_from(srv.port, "127.0.0.1")
        assert line == "HTTP/1.1 200 OK", line
        assert len(held) == cap - cap // 4
        wait_log(srv, "that waited longest for a request, to make room")
    finally:
        for s in socks:
            s.close()
        srv.stop()


def test_request_deadline_is_not_reset_by_each_byte():
    """A connection that trickles one header byte after another, never ending its head, is closed
    at --request-timeout (libmicrohttpd's own idle timeout, 120 s, restarts on every byte)."""
    srv = Server(TPLAN, fresh_dir(os.path.join(WORK, "drip")), "--request-timeout", "1", workers=1).start()
    try:
        s = slow_socket(srv.port, "127.0.0.3")
        t_end = time.time() + 100  # the bound of the wait for the close, far beyond the 1 s asked
        closed = False
        while time.time() < t_end and not closed:
            ready, _, _ = select.select([s], [], [], 0.2)
            if ready:
                closed = closed_by_server(s)
                assert closed, "the server answered a half-sent request"
            else:
                try:
                    s.send(b"X")
                except OSError:
                    closed = True
        assert closed, "a trickling connection was still open after 100 s with --request-timeout 1"
        s.close()
        wait_log(srv, "without a complete request within 1 s")
        # and an ordinary request is answered as before, a kept-alive connection too
        st, _, _ = srv.request("GET", "/v1/health")
        assert st == 200
    finally:
        srv.stop()


# a domain that can never be solved: its search grows until a limit stops it
NOSOLVE = """local tp = require "tp"
return tp.domain {
  name = "nosolve",
  bodies = { tp.plane { name = "ground" },
    tp.box { name = "robot", class = "active", size = {0.2,0.2,0.2}, mass = 1, pos = {0,0,0.1}, max_force = 10 } },
  tactics = { tp.tactic { name = "t", body = "robot", skills = { tp.skill.wait { name = "w", duration = 0.1 } } } },
  goal = function(s) return false end,
  planner = { max_iters = 1e9 },
}
"""


def test_search_memory_is_bounded():
    """Repro worker_memory_unbounded.py: memory_mb bounds the search (tree and index) too; at the
    bound the job ends approximate with the best plan found and says why."""
    srv = Server(TPLAN, fresh_dir(os.path.join(WORK, "mem")), workers=1).start()
    try:
        jid = srv.submit({"script": NOSOLVE, "memory_mb": 16, "time_limit": 300})
        job = srv.wait_final(jid)
        assert job["status"] == "approximate", job
        s = job["summary"]
        assert s["stopped"] == "memory_limit", s
        assert "memory bound (memory_mb 16:" in s["stopped_message"], s
        assert 16 <= s["tree_mb"] < 24, s["tree_mb"]
        st, _, _ = srv.request("GET", "/v1/jobs/%d/plan" % jid)
        assert st == 200
        # the bound counts bytes, not time: the same job stops at the same node, the same plan
        again = srv.wait_final(srv.submit({"script": NOSOLVE, "memory_mb": 16, "time_limit": 300}))
        assert again["summary"]["nodes"] == s["nodes"], (again["summary"]["nodes"], s["nodes"])
    finally:
        srv.stop()


def test_search_memory_is_bounded_or_parallel():
    """The same with "jobs": 2 (an OR-parallel search over two worker processes): the summary says
    stopped: memory_limit too (it once did only for a single search)."""
    srv = Server(TPLAN, fresh_dir(os.path.join(WORK, "mem2")), workers=2).start()
    try:
        job = srv.wait_final(srv.submit({"script": NOSOLVE, "memory_mb": 16, "time_limit": 300, "jobs": 2}))
        assert job["status"] == "approximate", job
        s = job["summary"]
        assert s["stopped"] == "memory_limit", s
        assert "in the worker whose statistics the plan records" in s["stopped_message"], s
    finally:
        srv.stop()


def test_worker_memory_exhaustion_is_reported():
    """Repro worker_memory_oom_misreported.sh: when the worker's address-space limit stops the
    tree from growing, the job keeps the best plan found (approximate, stopped: memory_limit)
    instead of failing as a script_error 'planning failed'. The planner's warning about it reaches
    the server's log naming the job."""
    srv = Server(TPLAN, fresh_dir(os.path.join(WORK, "wmem")), "--worker-memory", "300", workers=1).start()
    try:
        if "no address-space limit" in srv.log():
            print("      (the sanitizer build sets no address-space limit: part skipped)")
            return
        jid = srv.submit({"script": NOSOLVE, "time_limit": 300})
        job = srv.wait_final(jid)
        assert job["status"] == "approximate", job
        assert job["summary"]["stopped"] == "memory_limit", job["summary"]
        # the planner's warning, from the worker, names its job in the server's log (written before
        # the worker reported the job done)
        log = srv.log()
        assert "tplan: job %d: warning: planner: out of memory after " % jid in log, log[-2000:]
        assert "tplan: warning:" not in log, log[-2000:]
    finally:
        srv.stop()


def test_default_worker_memory():
    """Without --worker-memory, each worker's address space is bounded (2 x --max-memory + 1024)."""
    srv = Server(TPLAN, fresh_dir(os.path.join(WORK, "wdef")), "--max-memory", "1000", workers=1).start()
    try:
        log = srv.log()
        assert ("address space at most 3024 MB each" in log) or ("no address-space limit" in log), log[-500:]
        if "at most 3024 MB" in log:
            srv.wait_final(srv.submit({"domain": "minigolf", "max_iters": 5}))  # the worker has set its limit
            w = srv.workers_pids()[0]
            lim = [l for l in open("/proc/%d/limits" % w) if l.startswith("Max address space")][0].split()
            assert lim[3] == str(3024 << 20), lim
    finally:
        srv.stop()


def test_print_goes_to_the_jobs_log():
    """Repro print_floods_server_log.sh: a script's print() is the job's, never the server's log:
    GET /v1/jobs/{id}/log, at most 1 MiB, control characters and bad bytes escaped."""
    srv = Server(TPLAN, fresh_dir(os.path.join(WORK, "print")), workers=1).start()
    try:
        src = ('local tp = require "tp"\n'
               'print("2026-01-01T00:00:00Z job 1 solved (FORGED by a script)")\n'
               'print("bell\\7 escape\\27[31m bad\\255\\254 ok \\u{e9}")\n'
               'for i = 1, 2000 do print(string.rep("x", 1000)) end\n'
               'return tp.domain { name = "x" }\n')
        jid = srv.submit({"script": src})
        job = srv.wait_final(jid)
        assert job["status"] == "failed", job  # the domain is incomplete: what matters is its output
        assert "FORGED" not in srv.log() and "xxxxxxxx" not in srv.log(), "script output in the server's log"
        assert job["log"] == "/v1/jobs/%d/log" % jid, job  # the job object links its log
        st, hd, body = srv.request("GET", job["log"])
        assert st == 200 and hd["content-type"].startswith("text/plain"), (st, hd)
        text = body.decode("utf-8")  # valid UTF-8
        lines = text.split("\n")
        assert lines[0] == "2026-01-01T00:00:00Z job 1 solved (FORGED by a script)", lines[0]
        assert lines[1] == "bell\\x07 escape\\x1B[31m bad\\xFF\\xFE ok \u00e9", repr(lines[1])
        assert len(body) <= (1 << 20) + 200, len(body)
        assert "more bytes of output left out: a job's log keeps 1048576 bytes" in lines[-2], lines[-2][:200]
        # a job that printed nothing has no log
        quiet = srv.submit({"domain": "minigolf", "max_iters": 5})
        final = srv.wait_final(quiet)
        assert final["log"] == "/v1/jobs/%d/log" % quiet, final  # linked all the same
        st, _, body = srv.request("GET", final["log"])
        assert st == 404 and json.loads(body)["error"]["code"] == "not_found", (st, body)
    finally:
        srv.stop()


def test_job_objects_do_not_echo_large_requests():
    """Repros sse_amplification.py / list_amplification.py: a job object shows a long `set` string
    as its size, so GET, the list and every SSE event stay small whatever the request carried."""
    srv = Server(TPLAN, fresh_dir(os.path.join(WORK, "echo")), workers=1).start()
    try:
        big = {"p%d" % i: "v" * 65000 for i in range(8)}
        big["short"] = "kept as it is"
        jid = srv.submit({"domain": "minigolf", "set": big, "max_iters": 5})
        events = srv.events(jid)
        assert events and all(len(json.dumps(d)) < 8192 for _, d in events), [len(json.dumps(d)) for _, d in events]
        st, _, body = srv.request("GET", "/v1/jobs/%d" % jid)
        job = json.loads(body)
        assert len(body) < 8192, len(body)
        assert job["request"]["set"]["p0"] == {"bytes": 65000}, job["request"]["set"]["p0"]
        assert job["request"]["set"]["short"] == "kept as it is"
        st, _, body = srv.request("GET", "/v1/jobs")
        assert st == 200 and len(body) < 8192, len(body)
    finally:
        srv.stop()


def post_from(srv, source, body):
    """POST /v1/jobs from the loopback address source: (status, error code or job id)."""
    c = http.client.HTTPConnection("127.0.0.1", srv.port, timeout=TIMEOUT, source_address=(source, 0))
    c.request("POST", "/v1/jobs", body=json.dumps(body).encode(), headers={"Content-Type": "application/json"})
    r = c.getresponse()
    obj = json.loads(r.read())
    c.close()
    return r.status, (obj["error"]["code"] if "error" in obj else obj["id"])


def test_one_client_cannot_fill_the_queue():
    """Fairness: one client address may have --max-queued-per-client jobs waiting (429
    client_quota beyond); another client still gets its jobs in."""
    srv = Server(TPLAN, fresh_dir(os.path.join(WORK, "quota")), "--max-queue", "10", "--max-queued-per-client", "2",
                 workers=1).start()
    try:
        busy = srv.submit(LONG)
        srv.wait_status(busy, ["running"])  # the worker is taken: what follows stays queued
        assert post_from(srv, "127.0.0.5", {"domain": "minigolf"})[0] == 201
        assert post_from(srv, "127.0.0.5", {"domain": "minigolf"})[0] == 201
        assert post_from(srv, "127.0.0.5", {"domain": "minigolf"}) == (429, "client_quota")
        assert post_from(srv, "127.0.0.6", {"domain": "minigolf"})[0] == 201
        srv.json("DELETE", "/v1/jobs/%d" % busy, expect=200)
    finally:
        srv.stop()


def strict_json(data):
    """json.loads of bytes that must be UTF-8 (RFC 8259): raises on any other byte."""
    return json.loads(data.decode("utf-8", errors="strict"))


def test_requests_that_are_not_what_they_seem():
    """Repros nul_truncates_strings.sh, duplicate_json_keys.sh, invalid_utf8_in_job_json.sh,
    non_utf8_error_messages.sh: a NUL inside a string, a member given twice and a body that is not
    UTF-8 are refused (400 bad_json); every answer is UTF-8, whatever a script's message held."""
    srv = Server(TPLAN, fresh_dir(os.path.join(WORK, "bodies")), workers=1).start()
    try:
        def refused(raw, field=None, path="/v1/jobs"):
            st, _, body = srv.request("POST", path, raw=raw)
            err = strict_json(body)["error"]
            assert st == 400 and err["code"] == "bad_json", (raw[:80], st, body)
            assert err.get("field") == field, (raw[:80], err)
            return err["message"]
        assert "\\u0000 (NUL)" in refused(b'{"domain":"minigolf\\u0000junk","max_iters":5}')
        refused(b'{"domain":"minigolf","seed\\u0000x":5}')
        refused(b'{"script":"return 1\\u0000 garbage"}')
        refused(b'{"domain":"minigolf\\u0000junk"}', path="/v1/plan?wait=1")
        assert refused(b'{"domain":"minigolf","seed":1,"seed":2}', "seed") == "member 'seed' is given twice"
        refused(b'{"domain":"minigolf","domain":"pool"}', "domain")
        refused(b'{"domain":"minigolf","set":{"a":1,"a":2}}', "a")
        assert "not UTF-8: byte 33" in refused(b'{"domain":"minigolf","set":{"x":"\xfe\xff"}}')
        # escaped characters that are not NUL are fine, and so is UTF-8 text
        st, _, _ = srv.request("POST", "/v1/jobs", raw='{"domain":"minigolf","max_iters":5,"set":{}}'.encode())
        assert st == 201
        # a script's error message with arbitrary bytes: the job, the list and the stream stay UTF-8
        src = 'local tp = require "tp"\nerror("bad bytes: \\xff\\xfe")\nreturn tp.domain {}\n'
        jid = srv.submit({"script": src})
        srv.wait_final(jid)
        st, _, body = srv.request("GET", "/v1/jobs/%d" % jid)
        job = strict_json(body)
        assert job["status"] == "failed" and "bad bytes: ??" in job["error"]["message"], job["error"]
        strict_json(srv.request("GET", "/v1/jobs")[2])
        # tplan's own messages: a raw path byte, a name cut inside a character
        st, _, body = srv.request("GET", "/v1/%FF")
        assert st == 404 and "no route /v1/?" in strict_json(body)["error"]["message"]
        st, _, body = srv.request("POST", "/v1/jobs", raw=json.dumps({"domain": "a" + "\u00e9" * 40},
                                                                       ensure_ascii=False).encode())
        assert st == 404 and strict_json(body)["error"]["code"] == "unknown_domain", body[-80:]
    finally:
        srv.stop()


def serve_exit(data, *args):
    """Runs tplan serve on data expecting it to refuse to start: (exit status, stderr)."""
    import subprocess
    r = subprocess.run([TPLAN, "serve", "--port", "0", "--data", data, "--workers", "1"] + list(args),
                       capture_output=True, text=True, timeout=TIMEOUT, stdin=subprocess.DEVNULL)
    return r.returncode, r.stderr


def test_foreign_or_damaged_store_refused():
    """Repro foreign_sqlite_adopted.sh: an SQLite database with tables of its own is refused
    (exit 2), untouched; a damaged store is refused at start instead of answering 500 later."""
    import sqlite3
    d = fresh_dir(os.path.join(WORK, "foreign"))
    db = sqlite3.connect(os.path.join(d, "tplan.db"))
    db.execute("create table customers(id integer primary key, name text)")
    db.execute("insert into customers values (1, 'alice')")
    db.commit()
    db.close()
    rc, err = serve_exit(d)
    assert rc == 2 and "not a tplan store: an SQLite database with 1 tables" in err, (rc, err)
    db = sqlite3.connect(os.path.join(d, "tplan.db"))
    assert [r[0] for r in db.execute("select name from sqlite_master")] == ["customers"]
    assert db.execute("pragma user_version").fetchone()[0] == 0
    db.close()
    # a store of ours, damaged: a page of its jobs overwritten
    d = fresh_dir(os.path.join(WORK, "damaged"))
    srv = Server(TPLAN, d, workers=1).start()
    for i in range(40):
        srv.submit({"domain": "minigolf", "max_iters": 5, "seed": i + 1, "set": {"pad": "x" * 900}})
    srv.wait_final(40)
    srv.stop()
    path = os.path.join(d, "tplan.db")
    with open(path, "r+b") as f:
        f.seek(3 * 4096)
        f.write(b"\xa5" * 4096)
    rc, err = serve_exit(d)
    assert rc == 2 and "the store is damaged" in err, (rc, err)


def test_workers_go_to_the_client_with_fewer_running():
    """Fairness of worker time: a client with a job running does not take the next free worker
    before another client's job, even an older one of its own."""
    srv = Server(TPLAN, fresh_dir(os.path.join(WORK, "fair")), workers=2).start()
    try:
        a = "127.0.0.7"
        st, long1 = post_from(srv, a, LONG)
        st, long2 = post_from(srv, a, LONG)
        srv.wait_status(long1, ["running"])
        srv.wait_status(long2, ["running"])  # both workers: client a's
        quick = {"domain": "minigolf", "max_iters": 50}
        st, a1 = post_from(srv, a, quick)  # queued first
        st, b1 = post_from(srv, "127.0.0.8", quick)  # queued after it, from another client
        assert st == 201
        srv.json("DELETE", "/v1/jobs/%d" % long1, expect=200)  # one worker frees up
        job_b = srv.wait_final(b1)
        srv.json("DELETE", "/v1/jobs/%d" % long2, expect=200)
        job_a = srv.wait_final(a1)
        assert job_b["started"] <= job_a["started"], ("client a's job went first", job_a["started"], job_b["started"])
    finally:
        srv.stop()


def test_store_that_cannot_be_written():
    """Repro disk_full_store_diverges.sh without a small file system: the server runs with a file
    size limit (RLIMIT_FSIZE, SIGXFSZ ignored), so the store's writes fail as on a full disk.
    Then POST answers 503 store_unavailable and /v1/health 503 store_failed, instead of jobs
    shown "queued" for ever and health "ok"."""
    import signal
    import subprocess

    def limited():
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (1 << 20, 1 << 20))

    d = fresh_dir(os.path.join(WORK, "full"))
    srv = Server(TPLAN, d, workers=1)
    orig = subprocess.Popen

    def popen(*a, **k):
        k["preexec_fn"] = limited
        return orig(*a, **k)
    subprocess.Popen = popen
    try:
        srv.start()
    finally:
        subprocess.Popen = orig
    try:
        big = {"domain": "minigolf", "max_iters": 5, "set": {"p%d" % i: "v" * 60000 for i in range(8)}}
        codes = []
        for _ in range(20):  # 480 KB a job: the 1 MiB limit is passed within a few
            st, _, body = srv.request("POST", "/v1/jobs", body=big)
            codes.append(st)
            if st != 201:
                break
        assert codes[-1] in (500, 503) and codes.count(201) >= 1, codes  # the insert or an update failed
        st, _, body = srv.request("GET", "/v1/health")
        assert st == 503 and json.loads(body)["status"] == "store_failed", (st, body)
        st, _, body = srv.request("POST", "/v1/jobs", body={"domain": "minigolf", "max_iters": 5})
        assert st == 503 and json.loads(body)["error"]["code"] == "store_unavailable", (st, body)
        assert "store: it cannot be written" in srv.log()
    finally:
        srv.stop()


def main():
    lim = resource.getrlimit(resource.RLIMIT_NOFILE)
    if lim[0] < 1024 and lim[1] >= 1024:
        resource.setrlimit(resource.RLIMIT_NOFILE, (1024, lim[1]))
    r = Runner()
    r.run("one_address_cannot_take_every_connection", test_one_address_cannot_take_every_connection)
    r.run("many_addresses_cannot_hold_every_connection", test_many_addresses_cannot_hold_every_connection)
    r.run("request_deadline_is_not_reset_by_each_byte", test_request_deadline_is_not_reset_by_each_byte)
    r.run("search_memory_is_bounded", test_search_memory_is_bounded)
    r.run("search_memory_is_bounded_or_parallel", test_search_memory_is_bounded_or_parallel)
    r.run("worker_memory_exhaustion_is_reported", test_worker_memory_exhaustion_is_reported)
    r.run("default_worker_memory", test_default_worker_memory)
    r.run("print_goes_to_the_jobs_log", test_print_goes_to_the_jobs_log)
    r.run("job_objects_do_not_echo_large_requests", test_job_objects_do_not_echo_large_requests)
    r.run("one_client_cannot_fill_the_queue", test_one_client_cannot_fill_the_queue)
    r.run("requests_that_are_not_what_they_seem", test_requests_that_are_not_what_they_seem)
    r.run("foreign_or_damaged_store_refused", test_foreign_or_damaged_store_refused)
    r.run("workers_go_to_the_client_with_fewer_running", test_workers_go_to_the_client_with_fewer_running)
    r.run("store_that_cannot_be_written", test_store_that_cannot_be_written)
    r.run("every response documented (OpenAPI)", openapi_check_every, TPLAN, WORK)
    r.finish()


if __name__ == "__main__":
    main()
