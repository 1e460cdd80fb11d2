"""tplan serve under load (loopback only, bounded, stops by itself): 200 short jobs from 20
concurrent clients, each polling its jobs' status; every job ends in a final state, none is lost or
duplicated, and the server's resident memory stays flat from one round of jobs to the next.
usage: service_load.py TPLAN WORKDIR [JOBS CLIENTS]"""
import os
import sys
import threading

from tplan_service import Runner, Server, fresh_dir, openapi_check, SCRIPTS

TPLAN, WORK = sys.argv[1], fresh_dir(sys.argv[2])
JOBS = int(sys.argv[3]) if len(sys.argv) > 3 else 200
CLIENTS = int(sys.argv[4]) if len(sys.argv) > 4 else 20
SCRIPT = open(os.path.join(SCRIPTS, "tiny.lua")).read()
FINAL = ("solved", "approximate", "failed", "cancelled")


def client(s, k, n, ids, errors, polls):
    try:
        mine = []
        for j in range(n):
            body = {"script": SCRIPT, "seed": k * 1000 + j} if j % 2 else {"domain": "minigolf", "seed": k * 1000 + j,
                                                                            "max_iters": 200}
            mine.append(s.submit(body))
        for jid in mine:  # status polls while the workers are busy: the loop ends on a final status
            for _ in range(100000):
                st, _, job = s.json("GET", "/v1/jobs/%d" % jid)
                polls[k] += 1
                assert st == 200, st
                if job["status"] in FINAL:
                    break
            else:
                raise AssertionError("job %d never ended" % jid)
        ids[k] = mine
    except Exception as e:  # noqa: BLE001 - reported by the main thread
        errors.append("client %d: %r" % (k, e))


def round_of_jobs(s, total):
    ids, errors, polls = [None] * CLIENTS, [], [0] * CLIENTS
    threads = [threading.Thread(target=client, args=(s, k, total // CLIENTS, ids, errors, polls))
               for k in range(CLIENTS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors[:3]
    flat = [i for lst in ids for i in lst]
    assert len(flat) == total and len(set(flat)) == total, "lost or duplicated ids"
    return flat, sum(polls)


def test_load(s):
    warm, _ = round_of_jobs(s, JOBS)
    rss1 = s.rss_kb()
    second, polls = round_of_jobs(s, JOBS)
    rss2 = s.rss_kb()
    _, _, page = s.json("GET", "/v1/jobs?limit=500", expect=200)
    listed = [j["id"] for j in page["jobs"]]
    assert sorted(listed) == sorted(warm + second), "the store does not hold exactly the submitted jobs"
    bad = [j for j in page["jobs"] if j["status"] not in ("solved", "approximate")]
    assert not bad, bad[:2]
    _, _, h = s.json("GET", "/v1/health", expect=200)
    assert h["queued"] == 0 and h["running"] == 0, h
    print("      %d jobs x 2 rounds, %d status polls; server RSS %d kB after round 1, %d kB after round 2"
          % (JOBS, polls, rss1, rss2))
    # flat: a second round of the same jobs may not grow the server by more than 4 MB (no job is kept
    # in memory once final; what remains is allocator slack)
    assert rss2 - rss1 < 4096, (rss1, rss2)


r = Runner()
srv = Server(TPLAN, os.path.join(WORK, "data")).start()
try:
    r.run("%d jobs from %d clients" % (JOBS, CLIENTS), test_load, srv)
    r.run("every response documented (OpenAPI)", openapi_check, [srv], WORK)
finally:
    code = srv.stop()
    if code != 0:
        print("server exit status %s" % code)
        r.failed += 1
r.finish()
