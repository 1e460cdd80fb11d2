"""tplan serve loses nothing: a worker killed with SIGKILL fails its job (worker_crashed) and the next
job runs; the server killed with SIGKILL while jobs are queued and running restarts with every job,
re-plans the interrupted ones to the same plan bytes and serves the finished ones unchanged.
usage: service_crash.py TPLAN WORKDIR"""
import os
import signal
import sys

from tplan_service import Runner, Server, cli_plan, strip_timing, fresh_dir, openapi_check_every, LONG

TPLAN, WORK = sys.argv[1], fresh_dir(sys.argv[2])


def test_worker_kill(tplan, work):
    s = Server(tplan, os.path.join(work, "wk"), "--interactive-workers", "0", workers=1).start()
    try:
        a = s.submit(LONG)
        s.wait_status(a, ("running",))
        pids = s.workers_pids()
        assert len(pids) == 1, pids
        os.kill(pids[0], signal.SIGKILL)
        final = s.wait_final(a)
        assert final["status"] == "failed" and final["error"]["code"] == "worker_crashed", final
        assert "signal 9" in final["error"]["message"], final
        nxt = s.wait_final(s.submit({"domain": "minigolf", "seed": 3}))
        assert nxt["status"] == "solved", nxt
        assert s.workers_pids() != pids
        st, _, text = s.request("GET", "/metrics")
        assert b"tplan_worker_restarts_total 1" in text, text
    finally:
        assert s.stop() == 0


def test_server_kill(tplan, work):
    data = os.path.join(work, "sk")
    s = Server(tplan, data, workers=1).start()
    done = s.wait_final(s.submit({"domain": "minigolf", "seed": 1}))
    assert done["status"] == "solved"
    _, _, plan_before = s.request("GET", done["plan"])
    # one job running (about 4 s of planning), two queued behind it
    long_job = {"domain": "minigolf_random", "max_iters": 400000, "seed": 2}
    bodies = {s.submit(long_job): long_job}
    for seed in (2, 3):
        b = {"domain": "minigolf", "seed": seed, "planner": "rrt"}
        bodies[s.submit(b)] = b
    first = min(bodies)
    s.wait_status(first, ("running",))
    s.stop(signal.SIGKILL)
    s2 = Server(tplan, data, workers=1).start()
    try:
        log = s2.log()
        assert "1 interrupted job back in the queue" in log and "3 queued jobs to run" in log, log[-1500:]
        for jid, body in sorted(bodies.items()):
            final = s2.wait_final(jid)
            assert final["status"] in ("solved", "approximate"), final
            _, _, plan = s2.request("GET", final["plan"])
            args = [body["domain"], "--seed", str(body["seed"]), "--time-limit", "60"]
            if "max_iters" in body:
                args += ["--max-iters", str(body["max_iters"])]
            if "planner" in body:
                args += ["--planner", body["planner"]]
            ref = cli_plan(tplan, os.path.join(work, "ref%d.json" % jid), *args)
            assert strip_timing(plan) == strip_timing(ref), "job %d: plan differs after the restart" % jid
        _, _, plan_after = s2.request("GET", "/v1/jobs/%d/plan" % done["id"])
        assert plan_after == plan_before, "a finished job's plan changed"
        _, _, page = s2.json("GET", "/v1/jobs?limit=500", expect=200)
        assert sorted(j["id"] for j in page["jobs"]) == sorted(list(bodies) + [done["id"]]), page
    finally:
        assert s2.stop() == 0


def test_clean_stop(tplan, work):
    """SIGTERM while a job runs: exit 0, the job back to queued in the store, run after a restart."""
    data = os.path.join(work, "stop")
    s = Server(tplan, data, workers=1).start()
    jid = s.submit({"domain": "minigolf_random", "max_iters": 400000, "seed": 4})
    s.wait_status(jid, ("running",))
    assert s.stop(signal.SIGTERM) == 0
    assert "job %d queued (interrupted by the stop)" % jid in s.log()
    s2 = Server(tplan, data, workers=1).start()
    try:
        # (seed 4 plans for about 3 s: solved in 172,214 iterations since BK-BGT retires dead ends;
        # it ran to its 400,000 iterations unsolved before)
        assert s2.wait_final(jid)["status"] == "solved"
    finally:
        assert s2.stop(signal.SIGINT) == 0


r = Runner()
r.run("worker killed -> worker_crashed", test_worker_kill, TPLAN, WORK)
r.run("server killed -> nothing lost", test_server_kill, TPLAN, WORK)
r.run("SIGTERM stops cleanly", test_clean_stop, TPLAN, WORK)
r.run("every response documented (OpenAPI)", openapi_check_every, TPLAN, WORK)
r.finish()
