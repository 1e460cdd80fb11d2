"""tplan serve as a cluster on a real PostgreSQL started by the test (docs/service.md#cluster):
front ends (--workers 0) and worker nodes (--no-http) as separate processes, each with its own data
folder, nothing shared but the database. Every wait polls for an event with a bounded timeout.
usage: service_cluster.py TPLAN WORKDIR [GROUP]
GROUP: store (bad stores, migrations), flow (one front end and one node: the API through the
cluster), load (500 jobs, 2 front ends + 3 nodes), kill (kill -9 of a node and of a front end, a
node cut off past its lease), restart (PostgreSQL restarted under load, and down: 503 everywhere),
refused (PostgreSQL refusing writes: health, POST, a node's result kept), drain (SIGTERM of a node
mid-job, --limit across nodes), lease (a lease lost twice: queued again once, then failed); default: all."""
import http.client
import json
import os
import signal
import subprocess
import sys
import threading
import time

import pg_claim
from pg_cluster import PGBIN, Postgres, free_port
from tplan_service import (LONG, SCRIPTS, TIMEOUT, Runner, Server, cli_plan, fresh_dir, start_state,
                           stop_keeps_interim, stop_process, strip_timing)

TPLAN, WORK = sys.argv[1], fresh_dir(sys.argv[2])
GROUP = sys.argv[3] if len(sys.argv) > 3 else "all"
TINY = open(os.path.join(SCRIPTS, "tiny.lua")).read()
FINAL = ("solved", "approximate", "failed", "cancelled")


class Node:
    """A worker node: tplan serve --no-http on the shared store."""

    def __init__(self, store, data, workers=1, lease=2.0, drain=0, extra=(), env=None):
        self.store, self.data, self.workers, self.lease, self.drain = store, data, workers, lease, drain
        self.extra = list(extra)
        self.env = env  # the process's environment (None: this one's)
        self.proc = None
        self.log_path = os.path.join(data, "node.log")

    def start(self):
        os.makedirs(self.data, exist_ok=True)
        log = open(self.log_path, "a")
        self.proc = subprocess.Popen(
            [TPLAN, "serve", "--no-http", "--store", self.store, "--data", self.data, "--workers", str(self.workers),
             "--interactive-workers", "0", "--batch-nice", "0", "--lease", str(self.lease), "--drain-timeout",
             str(self.drain)] + self.extra,
            stdout=subprocess.PIPE, stderr=log, stdin=subprocess.DEVNULL, text=True, env=self.env)
        log.close()
        line = self.proc.stdout.readline()
        if not line.startswith("node ready"):
            self.proc.kill()
            raise RuntimeError("node did not start: %r\n%s" % (line, self.log()[-2000:]))
        return self

    def log(self):
        return open(self.log_path).read()

    def stop(self, sig=signal.SIGTERM):
        code = stop_process(self.proc, self.log_path, sig)
        self.proc = None
        return code


def front_end(store, data, *args):
    # every test client is 127.0.0.1: one client address for the per-client quota, which holds
    # across the cluster (the flow test checks it)
    return Server(TPLAN, data, "--store", store, "--no-web", "--lease", "2", "--max-queued-per-client", "1000", *args,
                  workers=0).start()


def wait_for(pred, what, timeout=TIMEOUT):
    """Polls pred() until it is true (an event: a status in the store, a line in a log)."""
    deadline = time.time() + timeout
    while True:
        v = pred()
        if v:
            return v
        if time.time() > deadline:
            raise AssertionError("timed out waiting for " + what)
        time.sleep(0.05)  # a poll interval, not a wait for an event: the loop ends on the event


def cli(out, *args):
    """tplan plan's plan with the service's default time limit (recorded in the plan)."""
    return cli_plan(TPLAN, out, *args, "--time-limit", "60")


def run_serve(*args, timeout=60):
    """A tplan serve expected to refuse its store: (exit status, stderr)."""
    r = subprocess.run([TPLAN, "serve", "--port", "0", "--no-web"] + list(args), capture_output=True, text=True,
                       timeout=timeout, stdin=subprocess.DEVNULL)
    return r.returncode, r.stderr


# ---- store: bad input and migrations ----------------------------------------------------------------

def test_store(pg):
    d = os.path.join(WORK, "store")
    os.makedirs(d, exist_ok=True)
    # a fresh database: migrated from empty to the current version, then used again as is
    uri = pg.create_db("fresh")
    fe = front_end(uri, os.path.join(d, "fe"))
    fe.stop()
    assert all("schema migrated to version %d" % v in fe.log() for v in (1, 2, 3, 4, 5)), fe.log()[-1000:]
    assert pg.psql("SELECT max(version) FROM tplan_schema", "fresh") == "5"
    tables = pg.psql("SELECT string_agg(tablename, ',' ORDER BY tablename) FROM pg_tables WHERE schemaname='public'",
                     "fresh")
    assert tables == "job_files,jobs,nodes,tplan_schema", tables
    fe = front_end(uri, os.path.join(d, "fe"))
    fe.stop()
    assert fe.log().count("schema migrated") == 5, "migrated twice"
    # a version 1 database (no record sizes, no retry_of): migration 2 fills the sizes from the records,
    # once; migration 3 adds the link of a retry (POST /v1/jobs/{id}/retry), NULL in the old rows, and
    # the priority (0), the queue's index in the claim's order
    pg.create_db("v1")
    fe = front_end(pg.uri("v1"), os.path.join(d, "fe_v1"))
    fe.stop()
    pg.psql("DROP INDEX jobs_finished; ALTER TABLE jobs DROP COLUMN record_bytes, DROP COLUMN request_shown,"
            " DROP COLUMN retry_of, DROP COLUMN priority,"
            " DROP COLUMN run_at, DROP COLUMN retries, DROP COLUMN failures, DROP COLUMN lease_losses,"
            " DROP COLUMN interim;"
            " ALTER TABLE nodes DROP COLUMN draining; DELETE FROM tplan_schema WHERE"
            " version >= 2; INSERT INTO jobs(status, domain, request, script, created, finished, time_limit, memory_mb)"
            " VALUES('solved', 'job.lua', repeat('v', 300000), 'abc'::bytea,"
            " extract(epoch FROM now()), extract(epoch FROM now()), 60, 256)", "v1")
    fe = front_end(pg.uri("v1"), os.path.join(d, "fe_v1"))
    fe.stop()
    assert fe.log().count("schema migrated to version 2") == 2, fe.log()[-1000:]
    assert fe.log().count("schema migrated to version 3") == 2, fe.log()[-1000:]
    assert fe.log().count("schema migrated to version 4") == 2, fe.log()[-1000:]
    assert fe.log().count("schema migrated to version 5") == 2, fe.log()[-1000:]
    got = pg.psql("SELECT record_bytes FROM jobs", "v1")
    assert got == "300003", got
    got = pg.psql("SELECT count(*) FROM jobs WHERE retry_of IS NULL AND priority = 0 AND run_at = 0 AND retries = 0"
                  " AND failures = 0 AND lease_losses = 0", "v1")
    assert got == "1", got
    # a newer schema (a newer tplan upgraded it): refused, one clear error, exit 2
    pg.psql("INSERT INTO tplan_schema VALUES (99, 'from the future', 0)", "fresh")
    code, err = run_serve("--store", uri, "--workers", "0", "--data", os.path.join(d, "x"))
    assert code == 2 and "newer than this tplan's" in err and "version 99" in err, (code, err)
    # a database of another application: refused, nothing created in it
    other = pg.create_db("other")
    pg.psql("CREATE TABLE customers(id int); CREATE TABLE orders(id int)", "other")
    code, err = run_serve("--store", other, "--workers", "0", "--data", os.path.join(d, "x"))
    assert code == 2 and "not a tplan database" in err and "2 tables" in err, (code, err)
    assert pg.psql("SELECT count(*) FROM pg_tables WHERE schemaname='public'", "other") == "2"
    # unreachable: nothing listens on that port
    code, err = run_serve("--store", "postgresql://tplan@127.0.0.1:%d/x" % free_port(), "--workers", "0", "--data",
                          os.path.join(d, "x"))
    assert code == 2 and "cannot connect" in err, (code, err)
    # a database that does not exist
    code, err = run_serve("--store", pg.uri("nosuchdb"), "--workers", "0", "--data", os.path.join(d, "x"))
    assert code == 2 and "cannot connect" in err and "nosuchdb" in err, (code, err)
    # not a connection string
    code, err = run_serve("--store", "postgresql://host:99999999/db?nonsense=1", "--workers", "0", "--data",
                          os.path.join(d, "x"))
    assert code == 2 and "--store" in err, (code, err)
    code, err = run_serve("--store", "mysql://h/db", "--workers", "0", "--data", os.path.join(d, "x"))
    assert code == 2 and "expected sqlite:PATH or postgresql://" in err, (code, err)
    # a password on the command line: refused before any connection, and never echoed
    code, err = run_serve("--store", "postgresql://tplan:hunter2secret@127.0.0.1:%d/fresh" % pg.port, "--workers",
                          "0", "--data", os.path.join(d, "x"))
    assert code == 2 and "carries a password" in err and "hunter2secret" not in err, (code, err)
    # a password in a string that does not parse, or in key=value form: refused, and never echoed
    # (repro password_echoed.sh: libpq's message quoted it too)
    for bad in ("postgresql://tplan:Hunter2PW@127.0.0.1:5432/tplan?bogus=1", "postgresql://tplan:Hunter2PW@[::1/tplan",
                "postgresql://tplan:Hunter2%@127.0.0.1/tplan", "postgresql://tplan@127.0.0.1/tplan?password=Hunter2PW&x",
                "host=127.0.0.1 dbname=tplan user=tplan password=Hunter2PW",
                "host=127.0.0.1 password = 'Hunter2 PW' dbname=tplan"):
        code, err = run_serve("--store", bad, "--workers", "0", "--data", os.path.join(d, "x"))
        assert code == 2 and "--store" in err and "Hunter2" not in err, (bad, code, err)
    # the password from a file, over TCP (scram-sha-256): right and wrong
    pw = os.path.join(d, "pw")
    with open(pw, "w") as f:
        f.write(pg.PASSWORD + "\n")
    os.chmod(pw, 0o600)
    tcp = pg.tcp_uri("fresh2")
    pg.create_db("fresh2")
    fe = front_end(tcp, os.path.join(d, "fe2"), "--store-password-file", pw)
    _, _, h = fe.json("GET", "/v1/health", expect=200)
    fe.stop()
    with open(pw, "w") as f:
        f.write("wrong\n")
    code, err = run_serve("--store", tcp, "--store-password-file", pw, "--workers", "0", "--data",
                          os.path.join(d, "x"))
    assert code == 2 and "password authentication failed" in err and "wrong" not in err.replace(
        "wrong password", ""), (code, err)
    # PGPASSWORD: the server connects with it, and the workers (they run submitted scripts) do not
    # inherit it (repro pgpassword_in_workers.sh)
    os.environ["PGPASSWORD"] = pg.PASSWORD
    try:
        node = Server(TPLAN, os.path.join(d, "node_env"), "--store", tcp, "--no-web", workers=1).start()
    finally:
        del os.environ["PGPASSWORD"]
    try:
        pids = node.workers_pids()
        assert pids, "no worker"
        for w in pids:
            env = open("/proc/%d/environ" % w, "rb").read().split(b"\0")
            assert not any(e.startswith(b"PGPASSWORD=") for e in env), "worker %d has PGPASSWORD" % w
        node.json("GET", "/v1/health", expect=200)
    finally:
        node.stop()
    assert pg.PASSWORD not in node.log()
    # roles that need a shared store
    code, err = run_serve("--workers", "0", "--data", os.path.join(d, "x"))
    assert code == 2 and "needs a shared store" in err, (code, err)
    code, err = run_serve("--no-http", "--workers", "1", "--data", os.path.join(d, "x"))
    assert code == 2 and "--no-http" in err, (code, err)
    code, err = run_serve("--store", "sqlite:", "--data", os.path.join(d, "x"))
    assert code == 2 and "sqlite:PATH" in err, (code, err)


# ---- the API through a front end, planned by a node ---------------------------------------------------

def check_exposition(text):
    """Prometheus text format as promtool checks it: every family's samples together, after its
    # HELP and # TYPE (repro metrics_promtool.sh: tplan_node_* had neither)."""
    helped, typed, seen, last = set(), {}, set(), None
    for line in text.splitlines():
        if line.startswith("# HELP "):
            helped.add(line.split()[2])
        elif line.startswith("# TYPE "):
            typed[line.split()[2]] = line.split()[3]
        elif line and not line.startswith("#"):
            name = line.split("{")[0].split()[0]
            fam = next((name[:-len(x)] for x in ("_bucket", "_sum", "_count") if name.endswith(x) and
                        name[:-len(x)] in typed), name)
            assert fam in helped and fam in typed, "%s: no HELP or TYPE" % fam
            assert fam == last or fam not in seen, "%s: its samples are not together" % fam
            assert typed[fam] != "counter" or fam.endswith("_total"), "%s: a counter without _total" % fam
            seen.add(fam)
            last = fam

def test_flow(pg):
    d = os.path.join(WORK, "flow")
    uri = pg.create_db("flow")
    fe = front_end(uri, os.path.join(d, "fe"))
    node = Node(uri, os.path.join(d, "n1"), workers=2).start()
    try:
        body = {"domain": "minigolf", "seed": 7, "max_iters": 300}
        jid = fe.submit(body)
        ev = fe.events(jid)
        assert ev[-1][0] == "end" and ev[-1][1]["status"] in ("solved", "approximate"), ev[-1]
        st, hd, plan = fe.request("GET", "/v1/jobs/%d/plan" % jid)
        assert st == 200, st
        want = cli(os.path.join(d, "cli.json"), "minigolf", "--seed", "7", "--max-iters", "300")
        assert strip_timing(plan) == strip_timing(want), "the cluster's plan differs from tplan plan's"
        # the node removed its copy once stored; the front end's is a cache of the store's
        assert not os.path.exists(os.path.join(d, "n1", "jobs", str(jid), "plan.json"))
        # the synchronous call through the front end
        st, hd, plan2 = fe.request("POST", "/v1/plan?wait=60", {"domain": "minigolf", "seed": 7, "max_iters": 300})
        assert st == 200 and hd["x-tplan-status"] in ("solved", "approximate"), (st, plan2[:300])
        got, ref = strip_timing(plan2), strip_timing(want)
        for k in ("bodies", "tactics", "cost", "steps"):  # its planner's time_limit is the wait's, not 60
            assert got[k] == ref[k], k
        # a script's message with bytes that are not UTF-8: stored (repaired) once, not retried for ever
        bad = fe.submit({"script": 'local tp = require "tp"\nerror("bad bytes: \\xff\\xfe")\nreturn tp.domain {}\n'})
        job = fe.wait_final(bad)
        assert job["status"] == "failed" and "bad bytes: ??" in job["error"]["message"], job
        assert pg.psql("SELECT attempt FROM jobs WHERE id=%d" % bad, "flow") == "1"
        # cancel and stop reach the node that runs the job
        long1 = fe.submit(LONG)
        fe.wait_until(long1, lambda j: j["status"] == "running" and j["progress"]["iterations"] > 0, "progress of a running job")
        st, hd, _ = fe.json("GET", "/v1/jobs/%d" % long1, expect=200)
        assert "etag" not in hd, "a running job's object must not be cached"
        st, _, job = fe.json("POST", "/v1/jobs/%d/cancel" % long1, expect=200)
        assert job["status"] == "cancelled", job
        long2 = fe.submit(LONG)
        fe.wait_until(long2, lambda j: j["status"] == "running" and j["progress"]["iterations"] > 0, "progress")
        st, _, job = fe.json("POST", "/v1/jobs/%d/stop" % long2, expect=200)
        assert job["status"] in ("solved", "approximate", "cancelled"), job
        st, _, _ = fe.json("POST", "/v1/jobs/%d/cancel" % long2)
        assert st == 409, st
        # a queued job cancelled from the front end (no node takes it: the node's workers are busy)
        busy = [fe.submit(LONG) for _ in range(2)]
        for b in busy:
            fe.wait_status(b, ("running",))
        q = fe.submit(body)
        st, _, job = fe.json("DELETE", "/v1/jobs/%d" % q)
        assert st == 200 and job["status"] == "cancelled", (st, job)
        for b in busy:
            fe.json("DELETE", "/v1/jobs/%d" % b, expect=200)
        # health and metrics of the cluster
        _, _, h = fe.json("GET", "/v1/health", expect=200)
        assert h["queued"] == 0 and h["running"] == 0, h
        _, _, m = fe.request("GET", "/metrics")
        m = m.decode()
        assert "tplan_cluster_nodes 2" in m and 'tplan_node_finished_total' in m, m[-1500:]
        check_exposition(m)
        # a front end (--workers 0) plans nothing itself, /v1/plan jobs neither (repro frontend_plans.py)
        assert fe.workers_pids() == [], fe.workers_pids()
        assert h["workers"] == 0 and h["interactive_workers"] == 0, h
        # a state that does not fit its domain: refused by the front end's state checker before it
        # reaches the store (400 naming the field, as /v1/plan), a good one planned by the node
        state = start_state(TPLAN, "tiny.lua", d)
        good = fe.submit({"script": TINY, "state": state})
        assert fe.wait_final(good)["status"] == "solved"
        state["bodies"]["robob"] = state["bodies"].pop("robot")
        before = pg.psql("SELECT count(*) FROM jobs", "flow")
        st, _, err = fe.json("POST", "/v1/jobs", body={"script": TINY, "state": state})
        assert st == 400 and err["error"]["code"] == "bad_state" and err["error"]["field"] == "state.bodies.robob", err
        assert pg.psql("SELECT count(*) FROM jobs", "flow") == before, "a refused job reached the store"
        # a deleted job leaves the store (and its files with it)
        st, _, _ = fe.request("DELETE", "/v1/jobs/%d" % jid)
        assert st == 204, st
        assert pg.psql("SELECT count(*) FROM job_files WHERE job_id=%d" % jid, "flow") == "0"
    finally:
        assert node.stop() == 0
        assert fe.stop() == 0
    assert "this node no longer holds" not in node.log()


# ---- 500 jobs, 2 front ends, 3 nodes -----------------------------------------------------------------

BODIES = [{"script": TINY, "seed": 1}, {"script": TINY, "seed": 2, "set": {"w": 2.0}},
          {"domain": "minigolf", "seed": 3, "max_iters": 60}, {"domain": "minigolf", "seed": 4, "max_iters": 60},
          {"script": TINY, "seed": 5}]


def expected_plans(d):
    out = []
    for i, b in enumerate(BODIES):
        if "script" in b:
            path = os.path.join(d, "job.lua")  # the name a submitted script has in its plan
            with open(path, "w") as f:
                f.write(TINY)
            args = [path, "--seed", str(b["seed"])]
            for k, v in b.get("set", {}).items():
                args += ["--set", "%s=%s" % (k, v)]
        else:
            args = [b["domain"], "--seed", str(b["seed"]), "--max-iters", str(b["max_iters"])]
        out.append(strip_timing(cli(os.path.join(d, "want%d.json" % i), *args)))
    return out


def submit_all(fes, n_clients, per_client, retry=False):
    """n_clients threads submit per_client jobs each, alternating front ends; [(id, body index)]."""
    done, errors = [[] for _ in range(n_clients)], []

    def client(k):
        try:
            for j in range(per_client):
                fe = fes[(k + j) % len(fes)]
                bi = (k + j) % len(BODIES)
                for attempt in range(200):
                    try:
                        st, _, obj = fe.json("POST", "/v1/jobs", BODIES[bi])
                    except OSError:
                        st, obj = 0, None
                    if st == 201:
                        break
                    if not retry or st not in (0, 500, 503):
                        raise AssertionError("submit: %d %r" % (st, obj))
                    time.sleep(0.1)  # a retry interval during a database restart
                done[k].append((obj["id"], bi))
        except Exception as e:  # noqa: BLE001 - reported by the caller
            errors.append("client %d: %r" % (k, e))

    threads = [threading.Thread(target=client, args=(k,)) for k in range(n_clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors[:3]
    return [x for lst in done for x in lst]


def wait_all_final(pg, db, n):
    wait_for(lambda: pg.psql("SELECT count(*) FROM jobs WHERE status IN ('solved','approximate','failed',"
                             "'cancelled')", db) == str(n), "%d final jobs" % n)


def check_plans(fes, jobs, want, d):
    for i, (jid, bi) in enumerate(jobs):
        fe = fes[i % len(fes)]
        st, _, plan = fe.request("GET", "/v1/jobs/%d/plan" % jid)
        assert st == 200, (jid, st, plan[:200])
        assert strip_timing(plan) == want[bi], "job %d: its plan differs from tplan plan's" % jid


def finished_lines(nodes, jid):
    """How many times the nodes' logs say job jid reached a final status."""
    n = 0
    for node in nodes:
        for line in node.log().splitlines():
            for s in FINAL:
                if (" job %d %s" % (jid, s)) in line:
                    n += 1
    return n


def test_load(pg):
    d = os.path.join(WORK, "load")
    os.makedirs(d, exist_ok=True)
    want = expected_plans(d)
    uri = pg.create_db("load")
    fes = [front_end(uri, os.path.join(d, "fe%d" % i)) for i in range(2)]
    nodes = [Node(uri, os.path.join(d, "n%d" % i)).start() for i in range(3)]
    try:
        t0 = time.time()
        jobs = submit_all(fes, 20, 25)
        assert len(jobs) == 500 and len({j for j, _ in jobs}) == 500
        wait_all_final(pg, "load", 500)
        dt = time.time() - t0
        rows = pg.psql("SELECT count(*) FROM jobs WHERE attempt = 1 AND status IN ('solved', 'approximate')", "load")
        assert rows == "500", rows  # every job planned once (its first attempt, none reclaimed)
        per_node = pg.psql("SELECT string_agg(n::text, ',') FROM (SELECT count(*) AS n FROM jobs GROUP BY node) c",
                           "load")
        check_plans(fes, jobs, want, d)
        for jid, _ in jobs[::25]:
            assert finished_lines(nodes, jid) == 1, jid
        total = sum(finished_lines(nodes, j) for j, _ in jobs)
        assert total == 500, total
        print("      500 jobs in %.1f s through 2 front ends on 3 nodes (jobs per node: %s)" % (dt, per_node))
        idempotency_race(pg, fes)
    finally:
        for n in nodes:
            assert n.stop() == 0
        for fe in fes:
            assert fe.stop() == 0


# ---- kill -9 of a node and of a front end; a node cut off past its lease ---------------------------------

MEDIUM = {"domain": "minigolf_random", "seed": 11, "max_iters": 60000}  # ~1 s: ends at max_iters
SLOW = {"domain": "minigolf_random", "seed": 12, "max_iters": 100000}   # ~2 s


def idempotency_race(pg, fes):
    """The same new Idempotency-Key at both front ends at the same moment, 20 times: one job each
    time, and both answers are 201 with its id, one of them a replay (the losing front end's insert
    once failed: 500)."""
    for k in range(20):
        key, res, gate = "race-%d" % k, [None, None], threading.Barrier(2)

        def post(i):
            gate.wait()
            res[i] = fes[i].json("POST", "/v1/jobs", BODIES[0], headers={"Idempotency-Key": key})

        threads = [threading.Thread(target=post, args=(i,)) for i in range(2)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert [r[0] for r in res] == [201, 201], (key, res)
        assert res[0][2]["id"] == res[1][2]["id"], (key, res)
        assert sum(r[1].get("idempotent-replayed") == "true" for r in res) == 1, (key, [r[1] for r in res])
    rows = pg.psql("SELECT count(*) FROM jobs WHERE idem_key LIKE 'race-%'", "load")
    assert rows == "20", rows


def running_on(pg, db, node):
    out = pg.psql("SELECT string_agg(id::text, ',') FROM jobs WHERE status='running' AND node LIKE '%%:%d:%%'"
                  % node.proc.pid, db)
    return [int(x) for x in out.split(",")] if out else []


def test_kill(pg):
    d = os.path.join(WORK, "kill")
    os.makedirs(d, exist_ok=True)
    want = strip_timing(cli(os.path.join(d, "want.json"), "minigolf_random", "--seed", "11", "--max-iters", "60000"))
    uri = pg.create_db("kill")
    fes = [front_end(uri, os.path.join(d, "fe%d" % i)) for i in range(2)]
    nodes = [Node(uri, os.path.join(d, "n%d" % i)).start() for i in range(3)]
    try:
        ids = [fes[i % 2].submit(MEDIUM) for i in range(9)]
        def a_node_running():
            for n in nodes:
                on = running_on(pg, "kill", n)
                if on:
                    return n, on
            return None

        victim, lost = wait_for(a_node_running, "a job running on a node")
        alive = [n for n in nodes if n is not victim]
        victim.proc.send_signal(signal.SIGKILL)  # its workers die with it (PR_SET_PDEATHSIG)
        victim.proc.wait()
        fes[0].proc.send_signal(signal.SIGKILL)  # and a front end
        fes[0].proc.wait()
        wait_all_final(pg, "kill", 9)
        rows = pg.psql("SELECT id, status, attempt FROM jobs ORDER BY id", "kill").splitlines()
        for r in rows:
            jid, st, attempt = r.split("|")
            assert st == want["status"], r
            assert int(attempt) == (2 if int(jid) in lost else 1), (r, lost)
        for jid in ids:
            st, _, plan = fes[1].request("GET", "/v1/jobs/%d/plan" % jid)
            assert st == 200 and strip_timing(plan) == want, jid
            assert finished_lines(nodes, jid) == 1, "job %d finished %d times" % (jid, finished_lines(nodes, jid))
        assert "queued again" in "".join(n.log() for n in alive) + fes[1].log()  # any node may reclaim
        # a node cut off (stopped) past its lease comes back: its result is refused, the job stays
        # as the node that reclaimed it finished it
        jid = fes[1].submit(SLOW)

        def runner():
            for n in alive:
                if jid in running_on(pg, "kill", n):
                    return n
            return "ended" if pg.psql("SELECT status FROM jobs WHERE id=%d" % jid, "kill") in FINAL else None

        cut = wait_for(runner, "the job running")
        assert cut != "ended", "the job ended before it could be cut off"
        cut.proc.send_signal(signal.SIGSTOP)
        try:
            wait_for(lambda: pg.psql("SELECT status IN ('solved', 'approximate') AND attempt = 2 FROM jobs WHERE id=%d"
                                     % jid, "kill") == "t",
                     "the job reclaimed and finished by the other node")
            record = pg.psql("SELECT finished, iterations, summary FROM jobs WHERE id=%d" % jid, "kill")
        finally:
            cut.proc.send_signal(signal.SIGCONT)
        # its worker planned on meanwhile (SIGSTOP stopped the node's server process only): the node
        # either stops it at its next lease renewal or has its finished result refused
        wait_for(lambda: "lease lost" in cut.log() or "is dropped" in cut.log(), "the cut-off node noticing")
        assert pg.psql("SELECT finished, iterations, summary FROM jobs WHERE id=%d" % jid, "kill") == record
        assert finished_lines(nodes, jid) == 1, "job %d finished %d times" % (jid, finished_lines(nodes, jid))
    finally:
        for n in nodes:
            if n.proc and n.proc.poll() is None:
                assert n.stop() == 0
        fes[1].stop()
        fes[0].proc = None


# ---- PostgreSQL restarted under load -------------------------------------------------------------------

def test_restart(pg):
    d = os.path.join(WORK, "restart")
    os.makedirs(d, exist_ok=True)
    want = expected_plans(d)
    uri = pg.create_db("restart")
    fes = [front_end(uri, os.path.join(d, "fe%d" % i)) for i in range(2)]
    nodes = [Node(uri, os.path.join(d, "n%d" % i), lease=5).start() for i in range(2)]
    try:
        # two jobs of ~1 s first, so that both nodes are in the middle of one when the database goes
        medium = [fes[i].submit(MEDIUM) for i in range(2)]
        first = submit_all(fes, 4, 15)
        # the moment a node plans (or, on a machine too slow to see it, the end of the queue: a failure,
        # not a hang)
        def running_or_done():
            running, active = pg.psql("SELECT count(*) FILTER (WHERE status = 'running') || '|' || count(*)"
                                      " FILTER (WHERE status IN ('queued', 'running')) FROM jobs", "restart").split("|")
            return (running, active) if running != "0" or active == "0" else None

        state = wait_for(running_or_done, "a running job")
        assert state[0] != "0", "every job ended before the restart: no load to restart under"
        pg.restart()  # fast shutdown: every connection is cut, mid-job
        more = submit_all(fes, 4, 10, retry=True)
        jobs = first + more
        wait_all_final(pg, "restart", len(jobs) + 2)
        rows = pg.psql("SELECT count(*) FROM jobs WHERE status IN ('solved', 'approximate')", "restart")
        assert rows == str(len(jobs) + 2), rows
        check_plans(fes, jobs, want, d)
        ref = strip_timing(cli(os.path.join(d, "medium.json"), "minigolf_random", "--seed", "11", "--max-iters",
                               "60000"))
        for jid in medium:
            st, _, plan = fes[0].request("GET", "/v1/jobs/%d/plan" % jid)
            assert st == 200 and strip_timing(plan) == ref, (jid, st)
        assert "reconnect" in "".join(n.log() for n in nodes), "no node saw the restart"
        # a front end without its database says so to a load balancer, and recovers with it
        long_id = fes[0].submit(LONG)
        fes[0].wait_until(long_id, lambda j: j["status"] == "running", "the long job running")
        conn = http.client.HTTPConnection("127.0.0.1", fes[0].port, timeout=TIMEOUT)
        conn.request("GET", "/v1/jobs/%d/events" % long_id)
        stream = conn.getresponse()
        assert stream.status == 200
        while stream.fp.readline() != b"event: job\n":  # the stream is open (raw lines: chunk sizes too)
            pass
        pg.stop()
        st, hd, h = fes[0].json("GET", "/v1/health")
        assert st == 503 and h["status"] == "store_unreachable" and hd.get("retry-after"), (st, h)
        outage_answers(fes[0], jobs[0][0], long_id)
        pg.start()
        wait_for(lambda: fes[0].request("GET", "/v1/health")[0] == 200, "health back")
        fes[0].json("POST", "/v1/jobs/%d/cancel" % long_id, expect=200)
        # the stream of the running job waited through the outage (it was ended in error) and ends
        # with the job
        lines = []
        while len(lines) < 2 or not lines[-1].startswith(b"data: ") or lines[-2] != b"event: end\n":
            lines.append(stream.fp.readline())
            assert lines[-1], "the stream ended without its end event: %r" % lines[-4:]
        assert json.loads(lines[-1][6:])["status"] == "cancelled", lines[-1]
        assert b": the job store does not answer; waiting for it\n" in lines, lines[:10]
        conn.close()
        # and every process stops cleanly (exit 0) while the database is away
        pg.stop()
        for p in nodes + fes:
            assert p.stop() == 0
        pg.start()
    finally:
        for p in nodes + fes:
            if p.proc:
                assert p.stop() == 0


def test_script_read(pg):
    """The store lost between a node's claim and its read of the job's script: the window a restart of
    PostgreSQL hit now and then in test_restart (the job ended failed "internal", "the job's script
    could not be read from the store"). The node is preloaded with pg_hold.c, which holds that read
    until the test has stopped PostgreSQL: the read fails, the reconnection too, and the job is handed
    back, queued again once the store is back, and solved, by the same node."""
    shim = os.environ.get("TPLAN_TEST_PG_HOLD")
    assert shim and os.path.exists(shim), "TPLAN_TEST_PG_HOLD names no shim (ctest sets it: tests/service/pg_hold.c)"
    d = os.path.join(WORK, "restart", "script_read")
    hold = os.path.join(d, "hold")
    os.makedirs(hold, exist_ok=True)
    uri = pg.create_db("script_read")
    env = dict(os.environ, LD_PRELOAD=shim, TPLAN_TEST_PG_HOLD_DIR=hold,
               # under ASan the preloaded shim comes before the sanitizer's runtime in the library list
               ASAN_OPTIONS=",".join(filter(None, [os.environ.get("ASAN_OPTIONS"), "verify_asan_link_order=0"])))
    fe = front_end(uri, os.path.join(d, "fe"))
    node = Node(uri, os.path.join(d, "n"), lease=5, env=env).start()
    try:
        jid = fe.submit({"script": TINY})
        wait_for(lambda: os.listdir(hold), "the node holding its read of the script")
        assert pg.psql("SELECT status || '|' || attempt FROM jobs WHERE id=%d" % jid, "script_read") == "running|1"
        away = time.time()
        pg.stop()  # the node's connection is cut, and it cannot reconnect
        open(os.path.join(hold, "go"), "w").close()
        back = "job %d: its script could not be read (the job store does not answer): handed back" % jid
        failed = ("job %d failed" % jid, "job %d: its failed" % jid)  # ended, or ended but not stored yet
        wait_for(lambda: back in node.log() or any(f in node.log() for f in failed), "the node handing the job back")
        assert back in node.log() and not any(f in node.log() for f in failed), node.log()[-2000:]
        pg.start()
        wait_for(lambda: fe.request("GET", "/v1/health")[0] == 200, "the front end's store back")
        outage = time.time() - away
        job = fe.wait_final(jid)
        assert job["status"] == "solved", job
        # queued again by the node's next renewal, planned again; no lease lost unless the database took
        # longer than the lease (5 s) to come back (a very loaded machine: the lease ran out meanwhile)
        got = pg.psql("SELECT attempt || '|' || lease_losses FROM jobs WHERE id=%d" % jid, "script_read")
        assert got == "2|0" or (outage > 5 and got == "2|1"), (got, outage)
        assert "job %d: held by this node but no longer running here; queued again" % jid in node.log() or got == "2|1"
    finally:
        assert node.stop() == 0
        fe.stop()


# ---- the store refuses writes (its disk full, read-only) -----------------------------------------------

# a job that runs to its time limit (its goal is never reached) and ends approximate with a plan
NEVER = TINY.replace("goal = function(s) return s.t > 0.2 * W end", "goal = function(s) return false end").replace(
    "max_iters = 300", "max_iters = 1000000000")
assert NEVER.count("return false") == 1 and "1000000000" in NEVER


def set_read_only(pg, on):
    """Every session of the server read-only (SQLSTATE 25006 on a write, as a full disk refuses them
    with 53100), applied to open sessions by a reload."""
    r = subprocess.run(["psql", "-X", "-q", "-h", pg.root, "-p", str(pg.port), "-U", "tplan", "-d", "postgres",
                        "-c", "SET default_transaction_read_only = off",
                        "-c", "ALTER SYSTEM %s" % ("SET default_transaction_read_only = on" if on else
                                                   "RESET default_transaction_read_only"),
                        "-c", "SELECT pg_reload_conf()"], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr


def test_refused(pg):
    """Repro pg_disk_full.py: with PostgreSQL refusing writes, health said "ok" while POSTs failed 500,
    and the nodes dropped the results they could not store (logged as a lease another node held),
    so jobs were planned again and again until one ended failed "internal"."""
    d = os.path.join(WORK, "refused")
    uri = pg.create_db("refused")
    fe = front_end(uri, os.path.join(d, "fe"))
    node = Node(uri, os.path.join(d, "n1"), lease=30).start()  # its lease outlasts the test: nothing reclaimed
    try:
        jid = fe.submit({"script": NEVER, "time_limit": 2})
        fe.wait_status(jid, ("running",))
        set_read_only(pg, True)
        accepted = []

        def refused():
            st, hd, obj = fe.json("POST", "/v1/jobs", {"script": TINY})
            if st == 201:  # the reload has not reached the front end's session yet
                accepted.append(obj["id"])
                return None
            return st, hd, obj

        st, hd, obj = wait_for(refused, "a POST refused")
        assert st == 503 and obj["error"]["code"] == "store_unavailable" and hd.get("retry-after"), (st, obj)
        st, hd, h = fe.json("GET", "/v1/health")
        assert st == 503 and h["status"] == "store_failed" and hd.get("retry-after"), (st, h)
        # the job ends on the node meanwhile: its result is kept there, not dropped
        wait_for(lambda: "it is kept here and written again" in node.log(), "the node keeping the result")
        set_read_only(pg, False)
        wait_for(lambda: pg.psql("SELECT status || '|' || attempt FROM jobs WHERE id=%d" % jid, "refused") ==
                 "approximate|1", "the kept result stored, planned once")
        wait_for(lambda: fe.request("GET", "/v1/health")[0] == 200, "health ok again")
        st, _, plan = fe.request("GET", "/v1/jobs/%d/plan" % jid)
        assert st == 200 and json.loads(plan)["bodies"], (st, plan[:200])
        fe.submit({"script": TINY})  # new jobs taken again, no restart
        for a in accepted:
            fe.wait_final(a)
        assert "is dropped" not in node.log() and finished_lines([node], jid) == 1, node.log()[-2000:]
    finally:
        set_read_only(pg, False)
        assert node.stop() == 0
        assert fe.stop() == 0


def outage_answers(fe, jid, running_id):
    """What a front end answers while its PostgreSQL is down (repro outage_404.py: 404 "no job N" for
    jobs that exist, 500 on POST, 200 with zero counts on /metrics): 503 store_unavailable with
    Retry-After on every route that needs the store, and metrics without invented counts."""
    for method, path, body in [("GET", "/v1/jobs/%d" % jid, None), ("GET", "/v1/jobs/%d/plan" % jid, None),
                               ("GET", "/v1/jobs?limit=5", None), ("GET", "/v1/jobs/%d/events" % jid, None),
                               ("GET", "/v1/jobs/%d/log" % jid, None), ("DELETE", "/v1/jobs/%d" % jid, None),
                               ("POST", "/v1/jobs/%d/cancel" % running_id, None),
                               ("POST", "/v1/jobs", {"domain": "minigolf"})]:
        st, hd, obj = fe.json(method, path, body)
        assert st == 503 and obj["error"]["code"] == "store_unavailable" and hd.get("retry-after"), (method, path, st,
                                                                                                     obj)
    st, _, m = fe.request("GET", "/metrics")
    m = m.decode()
    assert st == 200 and "tplan_store_up 0" in m and "tplan_jobs{" not in m, m[:600]
    check_exposition(m)


# ---- drain, concurrency limits, lease lost ------------------------------------

def node_running(pg, db, nodes, jid):
    for n in nodes:
        if n.proc and jid in running_on(pg, db, n):
            return n
    return None


def test_drain(pg):
    """SIGTERM of a node mid-job: it claims nothing more, hands the job back at --drain-timeout with
    its best approximate plan kept as an interim plan (in the store: any front end serves it while
    the job is planned again) and exits 0; the other node plans it, exactly once, and its final plan
    replaces the interim one. With --drain-unsolved stop a drained node ends such a job approximate
    with its best plan instead (planned once). --limit TAG=N holds across the nodes."""
    d = os.path.join(WORK, "drain")
    uri = pg.create_db("drain")
    fe = front_end(uri, os.path.join(d, "fe"))
    nodes = [Node(uri, os.path.join(d, "n%d" % i), drain=1, lease=2).start() for i in range(2)]
    try:
        jid = fe.submit({"script": NEVER, "time_limit": 300})  # no solution: handed back, not stopped
        first = wait_for(lambda: node_running(pg, "drain", nodes, jid), "the job running on a node")
        # the cluster page's route: both nodes (worker nodes: no HTTP), the job on its node with a lease
        def view():
            c = fe.json("GET", "/v1/cluster", expect=200)[2]
            return c if len([n for n in c["nodes"] if not n["http"] and n["state"] == "up"]) == 2 else None
        c = wait_for(view, "both nodes' heartbeats")
        run = [j for j in c["running"] if j["id"] == jid]
        assert c["store"] == "postgresql" and len(run) == 1 and run[0]["attempt"] == 1, c
        assert run[0]["node"] == [n["id"] for n in c["nodes"] if n["pid"] == first.proc.pid][0], c
        other = nodes[1] if first is nodes[0] else nodes[0]
        first.proc.send_signal(signal.SIGTERM)
        assert first.proc.wait(TIMEOUT) == 0
        log = first.log()
        assert "draining: no new job is taken; 1 running job given 1 s to end" in log, log[-1500:]
        assert "job %d handed back to the queue with its best approximate plan kept as interim plan 1" % jid in log, \
            log[-1500:]
        assert "drained: no job running" in log and "interrupted by the stop" not in log, log[-1500:]
        first.proc = None
        # the other node plans it again; the front end serves the interim plan from the store meanwhile
        job = fe.wait_status(jid, ("running",))
        assert job["interim_plan"]["n"] == 1 and job["interim_plan"]["iterations"] > 0 and job["plan"] is None, job
        st, hd, interim = fe.request("GET", "/v1/jobs/%d/plan" % jid)
        assert st == 200 and hd["x-tplan-plan"] == "interim" and b'"status": "approximate"' in interim, (st, hd)
        assert pg.psql("SELECT string_agg(name, ',') FROM job_files WHERE job_id=%d" % jid, "drain") == "interim.1.json"
        _, _, job = fe.json("POST", "/v1/jobs/%d/stop" % jid, expect=200)  # the re-run's end replaces it
        assert job["status"] == "approximate" and job["interim_plan"] is None and job["plan"], job
        st, hd, final = fe.request("GET", "/v1/jobs/%d/plan" % jid)
        assert st == 200 and hd["x-tplan-plan"] == "final" and b'"status": "approximate"' in final, (st, hd)
        files = pg.psql("SELECT string_agg(name, ',' ORDER BY name) || '|' || (SELECT interim IS NULL FROM jobs"
                        " WHERE id=%d) FROM job_files WHERE job_id=%d" % (jid, jid), "drain")
        assert files == "plan.json|true", files  # the interim plan's file and record dropped
        row = pg.psql("SELECT attempt, lease_losses, node LIKE '%%:%d:%%' FROM jobs WHERE id=%d"
                      % (other.proc.pid, jid), "drain")
        assert row == "2|0|t", row  # a hand-back is no lease lost
        assert finished_lines(nodes, jid) == 1, "job %d finished %d times" % (jid, finished_lines(nodes, jid))
    finally:
        for n in nodes:
            if n.proc:
                assert n.stop() == 0
        fe.stop()
    # a job handed back while no other node plans it waits queued with its interim plan (served by the
    # front end from the store); a stop through the front end ends it with that plan, planned once
    node = Node(uri, os.path.join(d, "h0"), workers=2, drain=1, lease=2).start()
    fe = front_end(uri, os.path.join(d, "fe_queued"))
    try:
        jid = fe.submit({"script": NEVER, "time_limit": 300})
        gone = fe.submit({"script": NEVER, "time_limit": 300, "seed": 2})
        fe.wait_status(jid, ("running",))
        fe.wait_status(gone, ("running",))
        node.proc.send_signal(signal.SIGTERM)
        assert node.proc.wait(TIMEOUT) == 0
        node.proc = None
        stop_keeps_interim(fe, jid)
        files = pg.psql("SELECT string_agg(name, ',' ORDER BY name) || '|' || (SELECT attempt || ',' ||"
                        " (interim IS NULL) FROM jobs WHERE id=%d) FROM job_files WHERE job_id=%d" % (jid, jid), "drain")
        assert files == "plan.json|1,true", files
        # the other one cancelled while queued: its interim plan goes with the run's files (none)
        _, _, end = fe.json("POST", "/v1/jobs/%d/cancel" % gone, expect=200)
        assert end["status"] == "cancelled" and end["interim_plan"] is None and end["plan"] is None, end
        assert fe.request("GET", "/v1/jobs/%d/plan" % gone)[0] == 404
        files = pg.psql("SELECT count(*) || '|' || (SELECT (interim IS NULL)::text FROM jobs WHERE id=%d)"
                        " FROM job_files WHERE job_id=%d AND name LIKE 'interim.%%'" % (gone, gone), "drain")
        assert files == "0|true", files
    finally:
        if node.proc:
            assert node.stop() == 0
        fe.stop()
    # --drain-unsolved stop: the drained node ends the job approximate with its best plan, stored once
    node = Node(uri, os.path.join(d, "s0"), drain=1, lease=2, extra=["--drain-unsolved", "stop"]).start()
    fe = front_end(uri, os.path.join(d, "fe_stop"))
    try:
        jid = fe.submit({"script": NEVER, "time_limit": 300})
        fe.wait_status(jid, ("running",))
        node.proc.send_signal(signal.SIGTERM)
        assert node.proc.wait(TIMEOUT) == 0
        log = node.log()
        assert "drain: job %d stopped with its best approximate plan (no solution yet; --drain-unsolved stop)" % jid \
            in log and "drained: no job running" in log and "handed back" not in log, log[-1500:]
        node.proc = None
        _, _, job = fe.json("GET", "/v1/jobs/%d" % jid, expect=200)
        assert job["status"] == "approximate" and job["plan"] and job["interim_plan"] is None, job
        st, hd, plan = fe.request("GET", "/v1/jobs/%d/plan" % jid)
        assert st == 200 and hd["x-tplan-plan"] == "final" and b'"status": "approximate"' in plan, (st, hd)
        assert pg.psql("SELECT attempt FROM jobs WHERE id=%d" % jid, "drain") == "1"  # not planned again
        assert finished_lines([node], jid) == 1
    finally:
        if node.proc:
            assert node.stop() == 0
        fe.stop()
    # the limit across two nodes: a second job of the tag stays queued while a node is free (an
    # untagged job submitted after it is claimed by that node: the claim passed it over)
    fe = front_end(uri, os.path.join(d, "fe2"))
    nodes = [Node(uri, os.path.join(d, "m%d" % i), lease=2, extra=["--limit", "g=1"]).start() for i in range(2)]
    try:
        a = fe.submit(dict(LONG, tags=["g"]))
        fe.wait_status(a, ("running",))
        b = fe.submit(dict(LONG, tags=["g"]))
        c = fe.submit(LONG)
        fe.wait_status(c, ("running",))
        _, _, j = fe.json("GET", "/v1/jobs/%d" % b, expect=200)
        assert j["status"] == "queued", j
        fe.json("DELETE", "/v1/jobs/%d" % a, expect=200)
        fe.wait_status(b, ("running",))
        for jid in (b, c):
            fe.json("DELETE", "/v1/jobs/%d" % jid, expect=200)
    finally:
        for n in nodes:
            assert n.stop() == 0
        fe.stop()


def test_limit_atomic(pg):
    """--limit across claimers at once: 16 concurrent pgbench clients run the nodes' locked claim
    (pg_claim.py) over 100 jobs tagged g (limit 3) and 100 untagged: every untagged job is claimed,
    exactly 3 of the tagged ones, none twice (the advisory lock serializes the count and the claim)."""
    d = os.path.join(WORK, "limit_atomic")
    uri = pg.create_db("limit_atomic")
    front_end(uri, os.path.join(d, "fe")).stop()  # the schema
    pg.psql("INSERT INTO jobs(status, domain, request, created, time_limit, memory_mb, tags)"
            " SELECT 'queued', 'minigolf', '{}', extract(epoch FROM now()), 60, 256,"
            " CASE WHEN i % 2 = 0 THEN '[\"g\"]' END FROM generate_series(1, 200) i", "limit_atomic")
    path = os.path.join(d, "claim.sql")
    with open(path, "w") as f:
        f.write(pg_claim.script("{g}", "{3}"))
    r = subprocess.run([os.path.join(PGBIN, "pgbench"), "-n", "-h", pg.root, "-p", str(pg.port), "-U", "tplan",
                        "-c", "16", "-j", "2", "-t", "20", "-f", path, "limit_atomic"],
                       capture_output=True, text=True, timeout=TIMEOUT)
    assert r.returncode == 0, r.stderr[-2000:]
    got = pg.psql("SELECT count(*) FILTER (WHERE status = 'running' AND tags IS NOT NULL) || '|' ||"
                  " count(*) FILTER (WHERE status = 'running' AND tags IS NULL) || '|' ||"
                  " count(*) FILTER (WHERE attempt > 1) FROM jobs", "limit_atomic")
    assert got == "3|100|0", got


def test_lease(pg):
    """A node that cannot renew its lease (the database away past it) stops the run; the store queues
    the job again once; the second time it fails lease_lost with a clear reason."""
    d = os.path.join(WORK, "lease")
    uri = pg.create_db("lease")
    node = Node(uri, os.path.join(d, "n"), lease=1).start()
    fe = front_end(uri, os.path.join(d, "fe"))
    try:
        jid = fe.submit({"script": NEVER, "time_limit": 300})
        for attempt in (1, 2):
            wait_for(lambda: pg.psql("SELECT status || '|' || attempt FROM jobs WHERE id=%d" % jid, "lease")
                     == "running|%d" % attempt, "attempt %d running" % attempt)
            pg.stop()
            wait_for(lambda: node.log().count("job %d: run stopped (its lease ran out)" % jid) == attempt,
                     "the node stopping the run")
            pg.start()
        wait_for(lambda: fe.request("GET", "/v1/health")[0] == 200, "the front end's store back")
        job = fe.wait_final(jid)
        assert job["status"] == "failed" and job["error"]["code"] == "lease_lost", job
        assert "its lease ran out a second time (attempt 2)" in job["error"]["message"], job
        assert pg.psql("SELECT lease_losses FROM jobs WHERE id=%d" % jid, "lease") == "2"
        assert finished_lines([node], jid) == 0  # the node never wrote an end: the store did
    finally:
        assert node.stop() == 0
        fe.stop()


def no_sql_errors(group):
    """No statement of any node failed (a connection lost is a retry, not an error)."""
    bad = []
    for root, _, files in os.walk(os.path.join(WORK, group)):
        for name in files:
            if name.endswith(".log"):
                bad += [line for line in open(os.path.join(root, name), errors="replace") if "ERROR:" in line]
    assert not bad, bad[:5]


r = Runner()
pg = Postgres()
try:
    groups = {"store": test_store, "flow": test_flow, "load": test_load, "kill": test_kill, "restart": test_restart,
              "refused": test_refused, "drain": test_drain, "lease": test_lease}
    extra = {"drain": [("the limit's claim atomic across claimers", test_limit_atomic)],
             "restart": [("the store lost between a claim and the script's read", test_script_read)]}
    for name, fn in groups.items():
        if GROUP in ("all", name):
            r.run(name, fn, pg)
            for label, more in extra.get(name, []):
                r.run(name + ": " + label, more, pg)
            if name not in ("refused", "lease"):  # their statements are refused / cut on purpose
                r.run(name + ": no SQL errors in the logs", no_sql_errors, name)
finally:
    pg.destroy()
r.finish()
