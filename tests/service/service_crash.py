"""tplan serve loses nothing: a worker killed with SIGKILL fails its job (worker_crashed) and the next
job runs; the server killed with SIGKILL while jobs are queued and running restarts with every job,
re-plans the interrupted ones to the same plan bytes and serves the finished ones unchanged; SIGTERM
drains (docs/service.md#drain): no new job, running ones finish, or are stopped with their best
solution, or are handed back to the queue at --drain-timeout.
usage: service_crash.py TPLAN WORKDIR"""
import os
import re
import signal
import subprocess
import sys
import time

from tplan_service import (SCRIPTS, TIMEOUT, Runner, Server, cli_plan, strip_timing, fresh_dir, openapi_check_every,
                           LONG, stop_keeps_interim)

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


TINY = open(os.path.join(SCRIPTS, "tiny.lua")).read()
# solves within a few iterations, then looks for 10,000 solutions slowly (a busy goal): it has a
# solution long before it could end by itself
SLOW_SOLUTIONS = TINY.replace("goal = function(s) return", "goal = function(s) for _ = 1, 20000 do end return")
assert SLOW_SOLUTIONS != TINY
# never solves (its goal is never reached): runs to its time limit
NEVER = TINY.replace("goal = function(s) return s.t > 0.2 * W end", "goal = function(s) return false end").replace(
    "max_iters = 300", "max_iters = 1000000000")
assert NEVER.count("return false") == 1


def wait_log(s, text):
    deadline = time.time() + TIMEOUT
    while text not in s.log():
        assert s.proc.poll() is None or text in s.log(), "the server exited without logging %r" % text
        assert time.time() < deadline, "timed out waiting for %r in the log" % text
        time.sleep(0.05)  # a poll interval: the loop ends on the line


def test_drain(tplan, work):
    """SIGTERM drains: health 503 draining, nothing new starts, a running job finishes within
    --drain-timeout and the server exits 0; with a short drain, a job with a solution is stopped
    with its best one (solved, its plan kept) and one without any is handed back to the queue with
    its best approximate plan kept as an interim plan (the service operations audit: the hand-back
    threw the work away), served while it is planned again after the restart and replaced by the
    re-run's final plan."""
    data = os.path.join(work, "drain")
    s = Server(tplan, data, "--drain-timeout", "600", "--interactive-workers", "0", workers=1).start()
    a = s.submit({"domain": "minigolf_random", "max_iters": 400000, "seed": 4})
    s.wait_status(a, ("running",))
    s.proc.send_signal(signal.SIGTERM)
    wait_log(s, "draining: no new job is taken; 1 running job given 600 s to end")
    st, hd, h = s.json("GET", "/v1/health")
    assert st == 503 and h["status"] == "draining" and hd.get("retry-after"), (st, h)
    b = s.submit({"script": TINY})  # taken, stored queued, not started by a draining server
    assert s.proc.wait(TIMEOUT) == 0
    log = s.log()
    assert "job %d solved" % a in log and "drained: no job running" in log, log[-1500:]
    assert "job %d running" % b not in log, log[-1500:]
    s.proc = None
    s = Server(tplan, data, "--drain-timeout", "1", "--interactive-workers", "0", workers=3).start()
    try:
        assert s.wait_final(b)["status"] == "solved"  # run after the restart
        sol = s.submit({"script": SLOW_SOLUTIONS, "solutions": 10000, "max_iters": 1000000000, "time_limit": 300})
        none = s.submit({"script": NEVER, "time_limit": 300})
        other = s.submit({"script": NEVER, "time_limit": 300, "seed": 2})
        s.wait_until(sol, lambda j: j["status"] == "running" and j["progress"]["solutions"] >= 1, "a solution")
        s.wait_status(none, ("running",))
        s.wait_status(other, ("running",))
        s.proc.send_signal(signal.SIGTERM)
        assert s.proc.wait(TIMEOUT) == 0
        log = s.log()
        assert "drain: job %d stopped with its best solution" % sol in log, log[-2000:]
        assert "drain: job %d stopped to be handed back with its best approximate plan kept" % none in log, log[-2000:]
        assert re.search(r"job %d handed back to the queue with its best approximate plan kept as interim plan 1 "
                         r"\(\d+ iterations" % none, log), log[-2000:]
        assert "job %d handed back to the queue with its best approximate plan kept as interim plan 1" % other in log
        assert "drained: no job running" in log and "interrupted by the stop" not in log, log[-2000:]
    finally:
        s.proc = None
    interim_file = os.path.join(data, "jobs", str(none), "interim.1.json")
    assert os.path.exists(interim_file) and not os.path.exists(os.path.join(data, "jobs", str(none), "plan.json"))
    s = Server(tplan, data, "--interactive-workers", "0", workers=1).start()
    try:
        _, _, job = s.json("GET", "/v1/jobs/%d" % sol, expect=200)
        assert job["status"] == "solved" and job["progress"]["solutions"] >= 1 and job["interim_plan"] is None, job
        st, hd, plan = s.request("GET", "/v1/jobs/%d/plan" % sol)
        assert st == 200 and plan and hd["x-tplan-plan"] == "final", (st, hd)
        # handed back with its best plan: planned again after the restart, its interim plan served meanwhile
        job = s.wait_status(none, ("running",))
        ip = job["interim_plan"]
        assert ip and ip["n"] == 1 and ip["url"] == "/v1/jobs/%d/plan" % none and ip["iterations"] > 0, job
        assert job["plan"] is None and job["summary"] is None, job
        st, hd, plan = s.request("GET", "/v1/jobs/%d/plan" % none)
        assert st == 200 and hd["x-tplan-plan"] == "interim" and hd["cache-control"] == "no-cache", (st, hd)
        assert b'"status": "approximate"' in plan and plan == open(interim_file, "rb").read(), plan[:300]
        st, _, _ = s.request("GET", "/v1/jobs/%d/plan" % none, headers={"If-None-Match": hd["etag"]})
        assert st == 304, st
        # the other one waits its turn (one worker) with its interim plan: a stop ends it with that plan
        job, end = stop_keeps_interim(s, other)
        assert end["progress"]["iterations"] == job["interim_plan"]["iterations"] > 0, (end, job)
        assert "job %d stopped while queued: its interim plan 1 is its plan" % other in s.log()
        # the re-run's end replaces it: stopped, it ends approximate with its own best plan
        _, _, end = s.json("POST", "/v1/jobs/%d/stop" % none, expect=200)
        assert end["status"] == "approximate" and end["interim_plan"] is None and end["plan"], end
        st, hd, final = s.request("GET", "/v1/jobs/%d/plan" % none)
        assert st == 200 and hd["x-tplan-plan"] == "final" and b'"status": "approximate"' in final, (st, hd)
        assert not os.path.exists(interim_file), os.listdir(os.path.dirname(interim_file))
    finally:
        assert s.stop(signal.SIGINT) == 0


def test_drain_unsolved_stop(tplan, work):
    """--drain-unsolved stop: at the drain's end a job without a solution is stopped, not handed back:
    it ends approximate with its best plan kept (the service-operations audit: a drained job without
    a solution dropped its best plan), and the plan is there after a restart; a bad value is refused."""
    data = os.path.join(work, "drain_stop")
    s = Server(tplan, data, "--drain-timeout", "1", "--drain-unsolved", "stop", "--interactive-workers", "0",
               workers=1).start()
    try:
        none = s.submit({"script": NEVER, "time_limit": 300})
        s.wait_status(none, ("running",))
        s.proc.send_signal(signal.SIGTERM)
        assert s.proc.wait(TIMEOUT) == 0
        log = s.log()
        assert "drain: job %d stopped with its best approximate plan (no solution yet" % none in log, log[-2000:]
        assert "drained: no job running" in log and "handed back" not in log, log[-2000:]
    finally:
        s.proc = None
    s = Server(tplan, data, "--interactive-workers", "0", workers=1).start()
    try:
        _, _, job = s.json("GET", "/v1/jobs/%d" % none, expect=200)
        assert job["status"] == "approximate", job
        st, _, plan = s.request("GET", "/v1/jobs/%d/plan" % none)
        assert st == 200 and b'"status": "approximate"' in plan, (st, plan[:300])
    finally:
        assert s.stop(signal.SIGINT) == 0
    out = subprocess.run([tplan, "serve", "--port", "0", "--no-web", "--data", os.path.join(work, "drain_bad"),
                          "--drain-unsolved", "keep"], capture_output=True, text=True, timeout=60,
                         stdin=subprocess.DEVNULL)
    assert out.returncode == 2 and "--drain-unsolved: expected handback or stop (got 'keep')" in out.stderr, out.stderr


def test_drain_sigint(tplan, work):
    """A SIGINT during a SIGTERM's drain ends it at once, and the stop says which signals came (it
    said "stopping (SIGTERM)" for both: the service-operations audit)."""
    s = Server(tplan, os.path.join(work, "drain_int"), "--drain-timeout", "600", "--interactive-workers", "0",
               workers=1).start()
    try:
        a = s.submit(LONG)
        s.wait_status(a, ("running",))
        s.proc.send_signal(signal.SIGTERM)
        wait_log(s, "draining: no new job is taken")
        s.proc.send_signal(signal.SIGINT)
        assert s.proc.wait(TIMEOUT) == 0
        log = s.log()
        assert "drain ended by SIGINT: 1 running job handed back to the queue" in log, log[-1500:]
        assert "stopping (SIGTERM, then SIGINT)" in log, log[-1500:]
    finally:
        s.proc = None


def test_script_read(tplan, work):
    """A job whose script the SQLite store fails to read (SQLITE_BUSY, an I/O error) is tried again
    after a backoff, as PostgreSQL's are handed back: the store's failure, not the job's (it failed
    "internal": the service-operations audit). sq_fail.c fails the first two reads."""
    shim = os.environ.get("TPLAN_TEST_SQ_FAIL_SHIM")
    assert shim and os.path.exists(shim), "TPLAN_TEST_SQ_FAIL_SHIM names no shim (ctest sets it: tests/service/sq_fail.c)"
    env = dict(os.environ, LD_PRELOAD=shim, TPLAN_TEST_SQ_FAIL="2")
    s = Server(tplan, os.path.join(work, "script_read"), "--interactive-workers", "0", workers=1, env=env).start()
    try:
        a = s.submit({"script": TINY})
        final = s.wait_final(a)
        assert final["status"] == "solved" and final["failures"] == 0, final
        log = s.log()
        for wait in (1, 2):
            assert "job %d: its script could not be read (the job store failed): tried again in %d s" % (a, wait) \
                in log, log[-1500:]
        assert s.wait_final(s.submit({"script": TINY}))["status"] == "solved"  # the store reads again
    finally:
        assert s.stop() == 0


def test_units_stop_timeout(tplan, work):
    """The systemd units let a drain run: TimeoutStopSec covers the default --drain-timeout, the 10 s a
    stopped job has to write its plan, and 5 s to stop (else systemd kills the drain with SIGKILL)."""
    text = subprocess.run([tplan, "serve", "--help"], capture_output=True, text=True, timeout=60).stdout
    m = re.search(r"--drain-timeout S .*?\(default (\d+(?:\.\d+)?);", text, re.S)
    assert m, text[-1500:]
    drain = float(m.group(1))
    units = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "packaging")
    for name in ("tplan.service", "tplan-node.service"):
        unit = open(os.path.join(units, name)).read()
        stop = re.search(r"^TimeoutStopSec=(\d+)$", unit, re.M)
        assert stop and float(stop.group(1)) >= drain + 10 + 5, (name, stop and stop.group(1), drain)
        assert re.search(r"^KillSignal=SIGTERM$", unit, re.M), name


r = Runner()
r.run("worker killed -> worker_crashed", test_worker_kill, TPLAN, WORK)
r.run("server killed -> nothing lost", test_server_kill, TPLAN, WORK)
r.run("SIGTERM stops cleanly", test_clean_stop, TPLAN, WORK)
r.run("SIGTERM drains", test_drain, TPLAN, WORK)
r.run("--drain-unsolved stop keeps an unsolved job's best plan", test_drain_unsolved_stop, TPLAN, WORK)
r.run("SIGINT ends a drain, named", test_drain_sigint, TPLAN, WORK)
r.run("a script the SQLite store fails to read: tried again", test_script_read, TPLAN, WORK)
r.run("the systemd units' stop timeout covers the drain", test_units_stop_timeout, TPLAN, WORK)
r.run("every response documented (OpenAPI)", openapi_check_every, TPLAN, WORK)
r.finish()
