"""tplan serve: game AI first. A synchronous POST /v1/plan is served while batch jobs hold every
batch worker (the interactive worker, batch workers at a lower CPU priority), the batch plans stay
byte-identical to `tplan plan`, a refused synchronous call leaves no job behind, and "stop" ends a
job with its best plan (solved or approximate) where "cancel" keeps none. No timing thresholds:
every check is on what was answered.
usage: service_interactive.py TPLAN WORKDIR"""
import json
import os
import sys

from tplan_service import Runner, Server, cli_plan, strip_timing, fresh_dir, openapi_check, LONG

TPLAN, WORK = sys.argv[1], fresh_dir(sys.argv[2])
# a batch job that ends by its iteration bound (so its plan is reproducible) after ~1 s of planning
BOUNDED = {"domain": "minigolf_random", "seed": 5, "max_iters": 60000, "time_limit": 300}


def nice_of(pid):
    with open("/proc/%d/stat" % pid) as f:
        return int(f.read().rsplit(")", 1)[1].split()[16])


def test_served_beside_batch(s):
    # two batch workers at nice 10 above the server's own, one interactive worker at the server's
    # (a make test run under `nice -n 5` starts the server at 5: 5, 15, 15)
    own = nice_of(s.proc.pid)
    batch = min(own + 10, 19)
    nices = sorted(nice_of(p) for p in s.workers_pids())
    assert nices == sorted([own, batch, batch]), (own, nices)
    b = s.submit(BOUNDED)
    long_id = s.submit(LONG)
    s.wait_status(b, ("running",))
    s.wait_status(long_id, ("running",))
    st, hd, plan = s.request("POST", "/v1/plan?wait=60", {"domain": "minigolf", "seed": 4})
    assert st == 200 and hd["x-tplan-status"] == "solved", (st, plan[:300])
    # it was served beside the batch jobs, not after them
    _, _, jb = s.json("GET", "/v1/jobs/%d" % b, expect=200)
    _, _, jl = s.json("GET", "/v1/jobs/%d" % long_id, expect=200)
    assert jl["status"] == "running", jl["status"]
    assert jb["status"] == "running", "the bounded batch job ended before the synchronous call was answered"
    final = s.wait_final(b)
    assert final["status"] == "approximate", final["status"]
    _, _, served = s.request("GET", "/v1/jobs/%d/plan" % b)
    want = cli_plan(TPLAN, os.path.join(WORK, "bounded.json"), "minigolf_random", "--seed", "5", "--max-iters", "60000",
                    "--time-limit", "300")
    assert strip_timing(served) == strip_timing(want), "the batch plan changed beside the interactive job"
    s.json("DELETE", "/v1/jobs/%d" % long_id, expect=200)
    text = s.request("GET", "/metrics")[2]
    assert b"tplan_workers 2\n" in text and b"tplan_interactive_workers 1\n" in text, text


def test_stop_keeps_best(s):
    # approximate: no solution yet, the best node by quality
    a = s.submit(LONG)
    s.wait_status(a, ("running",))
    _, _, job = s.json("POST", "/v1/jobs/%d/stop" % a, expect=200)
    assert job["status"] == "approximate" and job["plan"] and job["error"] is None, job
    _, _, plan = s.request("GET", job["plan"])
    assert json.loads(plan)["status"] == "approximate"
    s.json("POST", "/v1/jobs/%d/stop" % a, expect=409)
    # solved: a many-worlds search that had found solutions keeps them
    b = s.submit({"domain": "minigolf", "solutions": 10000, "max_iters": 1000000000, "time_limit": 300})
    s.wait_until(b, lambda j: j["status"] == "running" and j["progress"]["solutions"] >= 1)
    _, _, job = s.json("POST", "/v1/jobs/%d/stop" % b, expect=200)
    assert job["status"] == "solved" and job["plan"] and job["progress"]["solutions"] >= 1, job
    assert json.loads(s.request("GET", job["plan"])[2])["status"] == "solved"
    # cancel keeps nothing
    c = s.submit(LONG)
    s.wait_status(c, ("running",))
    _, _, job = s.json("POST", "/v1/jobs/%d/cancel" % c, expect=200)
    assert job["status"] == "cancelled" and job["plan"] is None, job
    # a "jobs": 2 search stops too (each of its searches ends; the best is kept)
    d = s.submit(dict(LONG, jobs=2))
    s.wait_status(d, ("running",))
    _, _, job = s.json("POST", "/v1/jobs/%d/stop" % d, expect=200)
    assert job["status"] == "approximate" and job["plan"], job


def test_refused_not_left(tplan, work):
    s = Server(tplan, os.path.join(work, "refuse"), "--interactive-workers", "0", workers=1).start()
    try:
        a = s.submit(LONG)
        s.wait_status(a, ("running",))
        st, hd, body = s.request("POST", "/v1/plan?wait=0.3", {"domain": "minigolf"})
        assert st == 503 and "retry-after" in hd and json.loads(body)["error"]["code"] == "no_worker", (st, body)
        _, _, page = s.json("GET", "/v1/jobs", expect=200)
        assert [j["id"] for j in page["jobs"]] == [a], page["jobs"]
        s.json("DELETE", "/v1/jobs/%d" % a, expect=200)
        openapi_check([s], os.path.join(work, "refuse"))
    finally:
        assert s.stop() == 0


r = Runner()
srv = Server(TPLAN, os.path.join(WORK, "data"), batch_nice=None).start()  # the service's default, 10
try:
    r.run("interactive served beside batch jobs", test_served_beside_batch, srv)
    r.run("stop keeps the best plan, cancel none", test_stop_keeps_best, srv)
    r.run("every response documented (OpenAPI)", openapi_check, [srv], WORK)
finally:
    r.stop_server(srv)
r.run("a refused /v1/plan leaves no job", test_refused_not_left, TPLAN, WORK)
r.finish()
