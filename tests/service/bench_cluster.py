"""Figures of the cluster (docs/service.md#cluster-figures), not a test: a throwaway PostgreSQL
(pg_cluster.py), one front end and 1..3 worker nodes as separate processes on this machine.
  1. jobs/s and per-job overhead with 1, 2, 3 worker nodes (1 worker each), tiny jobs, 8 clients,
     against the single-process SQLite service with as many workers;
  2. the queue alone: claims/s with 16 concurrent claimers (pgbench running the nodes' claim and
     finish statements on empty jobs);
  3. lease-expiry recovery: kill -9 of the node running a job, until another node runs it again;
  4. a 400-dice plan (tplan plan dice): its size, compressed size and the time to store and fetch it;
  5. the claim with concurrency limits (--limit): claims/s of the locked claim (pg_claim.py) + finish,
     16 concurrent claimers, with no limit, and with a limit of 4 on half the jobs.
usage: bench_cluster.py TPLAN WORKDIR [JOBS]; BENCH=125 runs sections 1, 2 and 5 (default 1234)"""
import os
import signal
import subprocess
import sys
import threading
import time
import zlib

import pg_claim
from pg_cluster import PGBIN, Postgres
from tplan_service import SCRIPTS, Server, fresh_dir

sys.argv += [] if len(sys.argv) > 2 else ["build/tplan", "/tmp/tplan-bench-cluster"]
TPLAN, WORK = os.path.abspath(sys.argv[1]), fresh_dir(sys.argv[2])
JOBS = int(sys.argv[3]) if len(sys.argv) > 3 else 300
TINY = open(os.path.join(SCRIPTS, "tiny.lua")).read()


def node(uri, data, lease=10, workers=1):
    os.makedirs(data, exist_ok=True)
    p = subprocess.Popen([TPLAN, "serve", "--no-http", "--store", uri, "--data", data, "--workers", str(workers),
                          "--interactive-workers", "0", "--batch-nice", "0", "--lease", str(lease)],
                         stdout=subprocess.PIPE, stderr=open(os.path.join(data, "node.log"), "a"), text=True)
    assert p.stdout.readline().startswith("node ready")
    return p


def run_jobs(fe, n, clients=8):
    """n tiny jobs from `clients` threads, each waiting for its jobs' ends; (wall s, mean planning s)."""
    ids, lock = [], threading.Lock()

    def client(k):
        mine = [fe.submit({"script": TINY, "seed": k * 10000 + j}) for j in range(n // clients)]
        for jid in mine:
            fe.wait_final(jid)
        with lock:
            ids.extend(mine)

    t0 = time.time()
    threads = [threading.Thread(target=client, args=(k,)) for k in range(clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    wall = time.time() - t0
    planning = 0.0
    for jid in ids[:50]:
        planning += fe.json("GET", "/v1/jobs/%d" % jid)[2]["progress"]["elapsed"]
    return wall, planning / min(50, len(ids)), len(ids)


def throughput(pg):
    print("1. throughput: %d tiny jobs (tiny.lua), 8 clients waiting on SSE" % JOBS)
    print("   %-34s %8s %10s %14s" % ("setup", "jobs/s", "s/job", "overhead/job"))
    for n in (1, 2, 3):
        uri = pg.create_db("tp%d" % n)
        fe = Server(TPLAN, os.path.join(WORK, "fe%d" % n), "--store", uri, "--no-web", "--max-queued-per-client",
                    "100000", workers=0).start()
        nodes = [node(uri, os.path.join(WORK, "n%d_%d" % (n, i))) for i in range(n)]
        wall, plan_s, count = run_jobs(fe, JOBS)
        # per-job overhead: the worker-seconds a job costs beyond its planning
        overhead = wall * n / count - plan_s
        print("   %-34s %8.1f %10.4f %12.1f ms" % ("PostgreSQL, 1 front end, %d node%s" % (n, "s" if n > 1 else ""),
                                                count / wall, wall / count, overhead * 1000))
        for p in nodes:
            p.send_signal(signal.SIGTERM)
            p.wait()
        fe.stop()
    for w in (1, 2):
        s = Server(TPLAN, os.path.join(WORK, "sqlite%d" % w), "--no-web", "--interactive-workers", "0",
                   "--max-queued-per-client", "100000", workers=w).start()
        wall, plan_s, count = run_jobs(s, JOBS)
        print("   %-34s %8.1f %10.4f %12.1f ms" % ("SQLite, one process, %d worker%s" % (w, "s" if w > 1 else ""),
                                                count / wall, wall / count, (wall * w / count - plan_s) * 1000))
        s.stop()


# the claim statement of store_pg.c (svcPg_Claim), with this test's node name
CLAIM = """UPDATE jobs SET status = 'running', node = 'bench:' || :client_id, attempt = attempt + 1,
  lease_until = extract(epoch FROM clock_timestamp()) + 10
  WHERE id = (SELECT q.id FROM (SELECT id FROM jobs WHERE status = 'queued' AND (sync OR true)
              AND parallel <= 1 ORDER BY sync DESC, id LIMIT 64) c JOIN jobs q ON q.id = c.id
              LEFT JOIN (SELECT client, count(*) AS n FROM jobs WHERE status = 'running' AND client <> ''
              GROUP BY client) r ON r.client = q.client WHERE q.status = 'queued'
              ORDER BY q.sync DESC, COALESCE(r.n, 0), q.id LIMIT 1 FOR UPDATE OF q SKIP LOCKED)
  AND status = 'queued' RETURNING id, attempt;
"""
FINISH = """UPDATE jobs SET status = 'solved', finished = extract(epoch FROM clock_timestamp()), node = node,
  lease_until = NULL WHERE node = 'bench:' || :client_id AND status = 'running';
"""


def claim_rate(pg):
    uri = pg.create_db("claims")
    fe = Server(TPLAN, os.path.join(WORK, "claims"), "--store", uri, "--no-web", workers=0).start()  # the schema
    fe.stop()
    n = 40000
    pg.psql("INSERT INTO jobs(status, domain, request, created, time_limit, memory_mb)"
            " SELECT 'queued', 'minigolf', '{}', extract(epoch FROM now()), 60, 256 FROM generate_series(1, %d)" % n,
            "claims")
    pg.psql("VACUUM ANALYZE jobs", "claims")
    script = os.path.join(WORK, "claim.sql")
    with open(script, "w") as f:
        f.write(CLAIM + FINISH)
    r = subprocess.run([os.path.join(PGBIN, "pgbench"), "-n", "-h", pg.root, "-p", str(pg.port), "-U", "tplan",
                        "-c", "16", "-j", "2", "-t", str(n // 16 - 10), "-f", script, "claims"],
                       capture_output=True, text=True)
    tps = [line for line in r.stdout.splitlines() if line.startswith("tps") or "latency average" in line]
    left = pg.psql("SELECT count(*) FILTER (WHERE status='queued'), count(*) FILTER (WHERE attempt > 1)"
                   " FROM jobs", "claims")
    print("2. the queue alone: 16 concurrent claimers (pgbench -c 16 -j 2), each transaction = claim + finish of"
          " an empty job, %d queued jobs" % n)
    for line in tps:
        print("   " + line.strip())
    print("   queued left, claimed twice: %s" % left)


def recovery(pg):
    print("3. lease-expiry recovery: kill -9 of the node running a job -> the job running on another node")
    for lease in (2, 5, 10):
        uri = pg.create_db("rec%d" % lease)
        fe = Server(TPLAN, os.path.join(WORK, "rec%d" % lease), "--store", uri, "--no-web", "--lease", str(lease),
                    workers=0).start()
        nodes = [node(uri, os.path.join(WORK, "rec%d_%d" % (lease, i)), lease=lease) for i in range(2)]
        jid = fe.submit({"domain": "minigolf_random", "seed": 3, "max_iters": 400000})
        while True:
            row = pg.psql("SELECT node FROM jobs WHERE id=%d AND status='running'" % jid, "rec%d" % lease)
            if row:
                break
            time.sleep(0.01)
        victim = next(p for p in nodes if (":%d:" % p.pid) in row)
        t0 = time.time()
        victim.send_signal(signal.SIGKILL)
        victim.wait()
        while pg.psql("SELECT status || attempt FROM jobs WHERE id=%d" % jid, "rec%d" % lease) != "running2":
            time.sleep(0.01)
        dt = time.time() - t0
        print("   --lease %-3d  %.2f s (expected: up to lease + lease/2 for the next reclaim pass)" % (lease, dt))
        fe.json("POST", "/v1/jobs/%d/cancel" % jid)
        for p in nodes:
            if p.poll() is None:
                p.send_signal(signal.SIGTERM)
                p.wait()
        fe.stop()


def big_plan(pg):
    path = os.path.join(WORK, "dice.json")
    t0 = time.time()
    subprocess.run([TPLAN, "plan", "dice", "-o", path, "-q"], check=False)
    t_plan = time.time() - t0
    data = open(path, "rb").read()
    t0 = time.time()
    z = zlib.compress(data, 1)
    t_z = time.time() - t0
    t0 = time.time()
    zlib.decompress(z)
    t_unz = time.time() - t0
    print("4. a 400-dice plan (tplan plan dice, %.1f s to plan): %.1f MB JSON, %.1f MB with zlib level 1 (%.1f %%);"
          " compress %.2f s, decompress %.2f s" % (t_plan, len(data) / 1e6, len(z) / 1e6, 100.0 * len(z) / len(data),
                                                  t_z, t_unz))
    # the same through a cluster: a node plans it, stores it compressed, a front end serves it
    uri = pg.create_db("dice")
    fe = Server(TPLAN, os.path.join(WORK, "dice_fe"), "--store", uri, "--no-web", workers=0).start()
    n = node(uri, os.path.join(WORK, "dice_n"))
    t0 = time.time()
    job = fe.wait_final(fe.submit({"domain": "dice"}))
    t_job = time.time() - t0
    ends = [line for line in open(os.path.join(WORK, "dice_n", "node.log")) if " running on worker" in line or
            " solved" in line or " approximate" in line]
    stored = pg.psql("SELECT size, octet_length(data) FROM job_files WHERE name = 'plan.json'", "dice")
    t0 = time.time()
    st, _, plan = fe.request("GET", "/v1/jobs/%d/plan" % job["id"])
    t_get1 = time.time() - t0
    t0 = time.time()
    fe.request("GET", "/v1/jobs/%d/plan" % job["id"])
    t_get2 = time.time() - t0
    print("   through the cluster: job %s in %.1f s (worker's run %.1f s: the rest is writing, compressing and"
          " storing the plan); stored size|compressed: %s" % (job["status"], t_job, job["progress"]["elapsed"],
                                                              stored))
    print("   GET its plan from a front end: %.2f s the first time (fetch + inflate into the local cache), %.2f s"
          " cached; %d bytes, %s" % (t_get1, t_get2, len(plan), "the same as tplan plan's" if len(plan) == len(data)
                                     else "size differs from tplan plan's (timing)"))
    print("   " + "".join(ends[-2:]).replace("\n", "\n   ").rstrip())
    n.send_signal(signal.SIGTERM)
    n.wait()
    fe.stop()


def limited_claim_rate(pg):
    """Section 5: the claim statement of a node with --limit (under the claim lock) + a finish."""
    print("5. the claim under --limit: 16 concurrent claimers (pgbench -c 16 -j 2), each transaction = the"
          " locked claim + finish of an empty job, 40,000 queued jobs, half tagged g")
    for label, tags, maxes in (("a limit on another tag (the lock and the count, nothing held)", "{h}", "{4}"),
                               ("--limit g=4 (half the jobs held at 4 running)", "{g}", "{4}")):
        db = "lim%d" % len(label)
        uri = pg.create_db(db)
        fe = Server(TPLAN, os.path.join(WORK, db), "--store", uri, "--no-web", workers=0).start()  # the schema
        fe.stop()
        n = 40000
        pg.psql("INSERT INTO jobs(status, domain, request, created, time_limit, memory_mb, tags)"
                " SELECT 'queued', 'minigolf', '{}', extract(epoch FROM now()), 60, 256,"
                " CASE WHEN i %% 2 = 0 THEN '[\"g\"]' END FROM generate_series(1, %d) i" % n, db)
        pg.psql("VACUUM ANALYZE jobs", db)
        path = os.path.join(WORK, db + ".sql")
        with open(path, "w") as f:
            f.write(pg_claim.script(tags, maxes, FINISH))
        r = subprocess.run([os.path.join(PGBIN, "pgbench"), "-n", "-h", pg.root, "-p", str(pg.port), "-U", "tplan",
                            "-c", "16", "-j", "2", "-t", "1000", "-f", path, db], capture_output=True, text=True)
        tps = [line.strip() for line in r.stdout.splitlines() if line.startswith("tps") or "latency average" in line]
        print("   %s: %s" % (label, "; ".join(tps) or r.stderr[-500:]))


pg = Postgres()
try:
    which = os.environ.get("BENCH", "1234")
    if "1" in which:
        throughput(pg)
    if "2" in which:
        claim_rate(pg)
    if "3" in which:
        recovery(pg)
    if "4" in which:
        big_plan(pg)
    if "5" in which:
        limited_claim_rate(pg)
finally:
    pg.destroy()
