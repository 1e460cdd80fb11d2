"""tplan serve over real loopback HTTP: plans byte-identical to `tplan plan`, events, listing,
idempotent POST, cancel, the synchronous /v1/plan, metrics.
usage: service_api.py TPLAN WORKDIR"""
import json
import os
import subprocess
import sys

from tplan_service import Runner, Server, cli_plan, strip_timing, fresh_dir, openapi_check, SCRIPTS, LONG

TPLAN, WORK = sys.argv[1], fresh_dir(sys.argv[2])


def test_health_domains(s):
    _, _, h = s.json("GET", "/v1/health", expect=200)
    assert h["status"] == "ok" and h["workers"] == 2 and "queued" in h and "running" in h, h
    _, _, d = s.json("GET", "/v1/domains", expect=200)
    names = [x["name"] for x in d["domains"]]
    assert "minigolf" in names and "pool" in names, names
    dice = next(x for x in d["domains"] if x["name"] == "dice")
    count = next(p for p in dice["params"] if p["name"] == "count")
    assert count["type"] == "number" and count["default"] == 400 and count["integer"] is True, count
    assert dice["planner"]["planner"] in ("bgt", "rrt") and dice["description"]
    # the planner defaults are values a job may send back as they are (a form prefilled from them):
    # time_limit is the service's --default-time, not a script's 0 = "none", which a job may not ask
    golf = next(x for x in d["domains"] if x["name"] == "minigolf")
    assert golf["planner"]["time_limit"] == 60, golf
    final = s.events(s.submit(dict(golf["planner"], domain="minigolf")))[-1][1]
    assert final["status"] == "solved", final


def same_plan_as_cli(s, tag, body, cli_args):
    jid = s.submit(body)
    ev = s.events(jid)
    kinds = [e for e, _ in ev]
    assert kinds[0] == "job" and kinds[-1] == "end", kinds
    final = ev[-1][1]
    assert final["status"] == "solved", final
    assert final["summary"]["nodes"] == final["progress"]["nodes"], final
    st, hd, plan = s.request("GET", final["plan"])
    assert st == 200 and hd["content-type"] == "application/json", (st, hd)
    limit = str(body.get("time_limit", 60))
    out = os.path.join(WORK, tag + ".plan.json")
    tree_out = os.path.join(WORK, tag + ".tree")
    ref = cli_plan(TPLAN, out, *cli_args, "--time-limit", limit, "--tree", tree_out)
    assert strip_timing(plan) == strip_timing(ref), "%s: the service's plan differs from tplan plan's" % tag
    if body.get("tree"):
        st, hd, tree = s.request("GET", final["tree"])
        assert st == 200 and hd["content-type"] == "application/octet-stream"
        assert tree == open(tree_out, "rb").read(), "the tree file differs"
    return final


def test_minigolf_bytes(s):
    final = same_plan_as_cli(s, "minigolf", {"domain": "minigolf", "tree": True}, ["minigolf"])
    assert final["request"] == {"domain": "minigolf", "tree": True}, final["request"]
    assert final["summary"]["planner"] == "bgt" and final["summary"]["time"]["physics"] > 0
    # why states were rejected: the plan file's stats.rejections (minigolf seed 1 rejects a few)
    sm = final["summary"]
    _, _, plan = s.request("GET", final["plan"])
    stats = json.loads(plan)["stats"]
    assert sm["rejected"] == stats["rejected"] > 0, (sm, stats)
    assert sm["rejections"] == stats["rejections"], (sm["rejections"], stats.get("rejections"))
    assert sum(r["count"] for r in sm["rejections"].values()) == sm["rejected"], sm
    # portable: the script by its file name and embedded, not the server's install path
    p = json.loads(plan)
    assert p["domain"]["file"] == "minigolf.lua" and p["sources"][0]["path"] == "minigolf.lua", p["domain"]
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    assert root + "/" not in plan.decode(), "the install path %s is in the plan" % root


def test_pool_bytes(s):
    same_plan_as_cli(s, "pool", {"domain": "pool", "planner": "rrt", "seed": 3, "solutions": 2},
                     ["pool", "--planner", "rrt", "--seed", "3", "--solutions", "2"])


def test_set_and_script(s):
    text = open(os.path.join(SCRIPTS, "tiny.lua")).read()
    jid = s.submit({"script": text, "set": {"w": 2}, "seed": 5})
    final = s.wait_final(jid)
    assert final["status"] == "solved" and final["domain"] == "job.lua", final
    assert final["request"] == {"set": {"w": 2}, "seed": 5, "script_bytes": len(text.encode())}, final["request"]
    _, _, plan = s.request("GET", final["plan"])
    assert json.loads(plan)["overrides"] == {"w": 2}, plan[:400]
    # the submitted script travels with its plan: it replays anywhere
    p = json.loads(plan)
    assert p["domain"]["file"] == "job.lua" and p["sources"][0]["text"] == text, p["domain"]
    path = os.path.join(WORK, "job.plan.json")
    with open(path, "wb") as f:
        f.write(plan)
    r = subprocess.run([TPLAN, "replay", path, "-q"], cwd=WORK)
    assert r.returncode == 0, "replay of the service's script plan: exit %d" % r.returncode


def test_list(s):
    ids = [s.submit({"script": open(os.path.join(SCRIPTS, "tiny.lua")).read(), "seed": k}) for k in range(3)]
    for i in ids:
        s.wait_final(i)
    _, _, page = s.json("GET", "/v1/jobs?limit=2", expect=200)
    got = [j["id"] for j in page["jobs"]]
    assert got == sorted(got, reverse=True) and len(got) == 2 and page["next"] == got[-1], page
    _, _, page2 = s.json("GET", "/v1/jobs?limit=2&after=%d" % page["next"], expect=200)
    assert all(j["id"] < got[-1] for j in page2["jobs"]), page2
    _, _, solved = s.json("GET", "/v1/jobs?status=solved&limit=500", expect=200)
    assert all(j["status"] == "solved" for j in solved["jobs"]) and set(ids) <= {j["id"] for j in solved["jobs"]}


def test_idempotency(s):
    body = {"script": open(os.path.join(SCRIPTS, "tiny.lua")).read(), "seed": 77}
    st1, h1, a = s.json("POST", "/v1/jobs", body, {"Idempotency-Key": "k-77"}, expect=201)
    st2, h2, b = s.json("POST", "/v1/jobs", body, {"Idempotency-Key": "k-77"}, expect=201)
    assert a["id"] == b["id"] and h2.get("idempotent-replayed") == "true", (a, b, h2)
    st3, _, c = s.json("POST", "/v1/jobs", dict(body, seed=78), {"Idempotency-Key": "k-77"}, expect=422)
    assert c["error"]["code"] == "idempotency_mismatch", c
    _, _, page = s.json("GET", "/v1/jobs?limit=500", expect=200)
    assert sum(1 for j in page["jobs"] if j["id"] == a["id"]) == 1


def test_cancel(s):
    a = s.submit(LONG)
    b = s.submit(LONG)
    c = s.submit(LONG)  # two workers: a and b run, c waits
    s.wait_status(a, ("running",))
    s.wait_status(b, ("running",))
    _, _, jc = s.json("DELETE", "/v1/jobs/%d" % c, expect=200)
    assert jc["status"] == "cancelled" and jc["started"] is None, jc
    _, _, ja = s.json("DELETE", "/v1/jobs/%d" % a, expect=200)
    assert ja["status"] == "cancelled" and ja["error"]["code"] == "cancelled", ja
    _, _, jb = s.json("DELETE", "/v1/jobs/%d" % b, expect=200)
    assert jb["status"] == "cancelled"
    _, _, again = s.json("POST", "/v1/jobs/%d/cancel" % a, expect=409)
    assert again["error"]["code"] == "conflict"
    # a DELETE of a finished job deletes it, files and all
    st, _, _ = s.request("DELETE", "/v1/jobs/%d" % a)
    assert st == 204, st
    s.json("GET", "/v1/jobs/%d" % a, expect=404)
    assert not os.path.exists(os.path.join(s.data, "jobs", str(a)))
    # the workers that were killed are back: a new job runs
    final = s.wait_final(s.submit({"domain": "minigolf", "seed": 2}))
    assert final["status"] == "solved", final


def test_retry(s):
    """POST /v1/jobs/{id}/retry: a failed or cancelled job queued again as a new job linked to it."""
    text = open(os.path.join(SCRIPTS, "runtime_error.lua")).read()
    bad = s.submit({"script": text, "seed": 4, "name": "flaky", "tags": ["t1"]})
    old = s.wait_final(bad)
    assert old["status"] == "failed" and old["retry_of"] is None, old
    st, hd, acc = s.json("POST", "/v1/jobs/%d/retry" % bad, expect=201)
    new = acc["id"]
    assert new > bad and acc["status"] == "queued" and hd["location"] == "/v1/jobs/%d" % new, (acc, hd)
    again = s.wait_final(new)
    assert again["retry_of"] == bad and again["status"] == "failed", again
    assert again["request"] == old["request"] and again["name"] == "flaky" and again["tags"] == ["t1"], again
    assert again["error"]["code"] == old["error"]["code"], (again["error"], old["error"])
    st, _, script = s.request("GET", "/v1/jobs/%d/script" % new)
    assert st == 200 and script.decode() == text, st
    # the old job is kept as it ended; a retry of a retry links to the one it retries
    _, _, kept = s.json("GET", "/v1/jobs/%d" % bad, expect=200)
    assert kept["status"] == "failed" and kept["retry_of"] is None, kept
    _, _, third = s.json("POST", "/v1/jobs/%d/retry" % new, expect=201)
    assert s.wait_final(third["id"])["retry_of"] == new
    # a cancelled job runs again (a built-in domain: no script)
    c = s.submit(LONG)
    s.wait_status(c, ("running",))
    s.json("DELETE", "/v1/jobs/%d" % c, expect=200)
    _, _, rc = s.json("POST", "/v1/jobs/%d/retry" % c, expect=201)
    run = s.wait_status(rc["id"], ("running",))
    assert run["retry_of"] == c and run["request"] == LONG, run
    # 409 for an active job (the retry, running) and a solved one; 404 for none; 400 for a query; 405
    _, _, e = s.json("POST", "/v1/jobs/%d/retry" % rc["id"], expect=409)
    assert e["error"]["code"] == "conflict" and "running" in e["error"]["message"], e
    s.json("DELETE", "/v1/jobs/%d" % rc["id"], expect=200)
    ok = s.wait_final(s.submit({"script": open(os.path.join(SCRIPTS, "tiny.lua")).read(), "seed": 9}))
    assert ok["status"] == "solved", ok
    _, _, e = s.json("POST", "/v1/jobs/%d/retry" % ok["id"], expect=409)
    assert e["error"]["code"] == "conflict" and "solved" in e["error"]["message"], e
    _, _, e = s.json("POST", "/v1/jobs/999999/retry", expect=404)
    assert e["error"]["code"] == "not_found", e
    _, _, e = s.json("POST", "/v1/jobs/%d/retry?x=1" % bad, expect=400)
    assert e["error"]["field"] == "x", e
    st, hd, _ = s.request("GET", "/v1/jobs/%d/retry" % bad)
    assert st == 405 and hd["allow"] == "POST", (st, hd)


def test_priority(s):
    """priority: higher first when a worker frees; bad values 400 naming the field; kept by a retry."""
    for bad in (101, -101, 1.5, "1", True, None):
        _, _, e = s.json("POST", "/v1/jobs", {"domain": "minigolf", "priority": bad}, expect=400)
        assert e["error"]["code"] == "bad_field" and e["error"]["field"] == "priority", (bad, e)
    a, b = s.submit(LONG), s.submit(LONG)  # both workers busy
    s.wait_status(a, ("running",))
    s.wait_status(b, ("running",))
    low = s.submit(dict(LONG, priority=-5))
    normal = s.submit(LONG)
    high = s.submit(dict(LONG, priority=10))
    _, _, q = s.json("GET", "/v1/jobs/%d" % high, expect=200)
    assert q["status"] == "queued" and q["priority"] == 10 and q["request"]["priority"] == 10, q
    s.json("DELETE", "/v1/jobs/%d" % a, expect=200)  # a worker frees: the newest, highest goes
    s.wait_status(high, ("running",))
    for jid, pr in ((low, -5), (normal, 0)):
        _, _, j = s.json("GET", "/v1/jobs/%d" % jid, expect=200)
        assert j["status"] == "queued" and j["priority"] == pr, j
    s.json("DELETE", "/v1/jobs/%d" % b, expect=200)  # then priority 0 before -5
    s.wait_status(normal, ("running",))
    _, _, j = s.json("GET", "/v1/jobs/%d" % low, expect=200)
    assert j["status"] == "queued", j
    for jid in (high, normal, low):
        s.json("DELETE", "/v1/jobs/%d" % jid, expect=200)
    _, _, r = s.json("POST", "/v1/jobs/%d/retry" % low, expect=201)
    _, _, j = s.json("GET", "/v1/jobs/%d" % r["id"], expect=200)
    assert j["priority"] == -5 and j["retry_of"] == low, j
    s.json("DELETE", "/v1/jobs/%d" % r["id"], expect=200)


def test_run_at(s):
    """run_at: a scheduled job is listed queued with its run_at and not started before it."""
    import time
    for bad in ("soon", -1, None, time.time() + 400 * 86400):
        _, _, e = s.json("POST", "/v1/jobs", {"domain": "minigolf", "run_at": bad}, expect=400)
        assert e["error"]["code"] == "bad_field" and e["error"]["field"] == "run_at", (bad, e)
    _, _, e = s.json("POST", "/v1/plan", {"domain": "minigolf", "run_at": time.time() + 60}, expect=400)
    assert e["error"]["field"] == "run_at", e
    later = time.time() + 3600
    far = s.submit({"domain": "minigolf", "run_at": later, "priority": 100})
    # a job queued after it, of a lower priority, runs to its end meanwhile: the workers were free
    now = s.wait_final(s.submit({"domain": "minigolf", "seed": 3}))
    assert now["status"] == "solved" and now["run_at"] is None, now
    _, _, j = s.json("GET", "/v1/jobs/%d" % far, expect=200)
    assert j["status"] == "queued" and j["started"] is None and abs(j["run_at"] - later) < 1e-3, j
    _, _, page = s.json("GET", "/v1/jobs?status=queued&limit=500", expect=200)
    assert any(x["id"] == far and x["run_at"] == j["run_at"] for x in page["jobs"]), page
    # one due in a moment starts by itself (the scheduler wakes at its time); one in the past at once
    soon = s.submit({"domain": "minigolf", "seed": 4, "run_at": time.time() + 0.5})
    done = s.wait_final(soon)
    assert done["status"] == "solved" and done["started"] >= done["run_at"], done
    past = s.wait_final(s.submit({"domain": "minigolf", "seed": 5, "run_at": 1}))
    assert past["status"] == "solved" and past["run_at"] is None, past
    _, _, c = s.json("DELETE", "/v1/jobs/%d" % far, expect=200)
    assert c["status"] == "cancelled", c
    # its retry keeps its time while it is ahead (the operations audit: the retry ran at once)
    _, _, r = s.json("POST", "/v1/jobs/%d/retry" % far, expect=201)
    _, _, j = s.json("GET", "/v1/jobs/%d" % r["id"], expect=200)
    assert j["status"] == "queued" and j["started"] is None and abs(j["run_at"] - later) < 1e-3, j
    s.json("DELETE", "/v1/jobs/%d" % r["id"], expect=200)


def test_retries(s):
    """retries: a job whose worker dies is queued again after a backoff, until its retries are spent."""
    import signal
    for bad in (-1, 11, 0.5, "2"):
        _, _, e = s.json("POST", "/v1/jobs", {"domain": "minigolf", "retries": bad}, expect=400)
        assert e["error"]["code"] == "bad_field" and e["error"]["field"] == "retries", (bad, e)

    def kill_workers():
        for pid in s.workers_pids():
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass

    jid = s.submit(dict(LONG, retries=1))
    j = s.wait_status(jid, ("running",))
    assert j["retries"] == 1 and j["failures"] == 0, j
    kill_workers()  # an infrastructure failure: queued again (failures 1), then run again after its backoff
    j = s.wait_until(jid, lambda x: x["failures"] == 1 and x["status"] == "running", "running again")
    assert j["error"] is None, j
    kill_workers()  # no retry left: failed
    final = s.wait_final(jid)
    assert final["status"] == "failed" and final["error"]["code"] == "worker_crashed", final
    assert final["failures"] == 1 and final["retries"] == 1, final
    # a script's error is not retried
    text = open(os.path.join(SCRIPTS, "runtime_error.lua")).read()
    bad = s.wait_final(s.submit({"script": text, "retries": 3}))
    assert bad["status"] == "failed" and bad["failures"] == 0 and bad["error"]["code"] != "worker_crashed", bad


def test_sync_plan(s):
    st, hd, plan = s.request("POST", "/v1/plan?wait=30", {"domain": "minigolf", "seed": 4})
    assert st == 200 and hd["x-tplan-status"] == "solved", (st, hd, plan[:300])
    assert json.loads(plan)["status"] == "solved"
    # the anytime answer: an unsolvable-in-time domain answers approximate before the deadline
    st, hd, plan = s.request("POST", "/v1/plan?wait=1.5", LONG)
    assert st == 200 and hd["x-tplan-status"] == "approximate", (st, hd, plan[:300])
    _, _, job = s.json("GET", "/v1/jobs/%s" % hd["x-tplan-job"], expect=200)
    assert job["status"] == "approximate" and job["summary"]["time_limit"] < 1.5, job
    # both batch workers busy: the interactive worker answers (503 only once it is busy too:
    # service_interactive.py)
    a, b = s.submit(LONG), s.submit(LONG)
    s.wait_status(a, ("running",))
    s.wait_status(b, ("running",))
    st, hd, body = s.request("POST", "/v1/plan?wait=30", {"domain": "minigolf"})
    assert st == 200 and hd["x-tplan-status"] == "solved", (st, body[:300])
    s.json("DELETE", "/v1/jobs/%d" % a, expect=200)
    s.json("DELETE", "/v1/jobs/%d" % b, expect=200)
    st, hd, body = s.request("POST", "/v1/plan?wait=10", {"script": open(os.path.join(SCRIPTS, "syntax_error.lua")).read()})
    err = json.loads(body)["error"]
    assert st == 400 and err["code"] == "script_error" and err["message"].startswith("job.lua:3:"), (st, body)


def test_warnings(s):
    """The domain's warnings (a robot that cannot slide) are in the job's summary, file:line of the
    body in the job's script, one and two workers alike; a job without any has no such member."""
    text = open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "e2e", "scripts",
                             "weak_force.lua")).read()
    for jobs in (1, 2):
        final = s.wait_final(s.submit({"script": text, "jobs": jobs}))
        assert final["status"] == "approximate", final
        w = final["summary"].get("warnings")
        assert w and len(w) == 1 and w[0].startswith("job.lua:10: body 'robot' cannot slide: max_force 2 N"), final
    final = s.wait_final(s.submit({"script": text, "set": {"max_force": 20}}))
    assert "warnings" not in final["summary"], final["summary"]


def test_jobs_budget(s):
    """jobs: 2 plans as `tplan plan --jobs 2` and takes both workers while it runs."""
    final = same_plan_as_cli(s, "soccer_jobs2", {"domain": "soccer", "seed": 3, "jobs": 2},
                             ["soccer", "--seed", "3", "--jobs", "2"])
    assert final["summary"]["selected_worker"] in (0, 1) and len(final["summary"]["workers"]) == 2, final["summary"]
    a = s.submit(dict(LONG, jobs=2))
    s.wait_status(a, ("running",))
    _, _, text = s.request("GET", "/metrics")
    assert b"tplan_workers_busy 2" in text, "a jobs=2 job must count both workers"
    b = s.submit({"domain": "minigolf", "seed": 5})
    _, _, jb = s.json("GET", "/v1/jobs/%d" % b, expect=200)
    assert jb["status"] == "queued", jb
    s.json("DELETE", "/v1/jobs/%d" % a, expect=200)
    assert s.wait_final(b)["status"] == "solved"
    st, _, e = s.json("POST", "/v1/jobs", {"domain": "minigolf", "jobs": 3})
    assert st == 400 and e["error"]["field"] == "jobs", e


def test_progress_series(s):
    """A finished job's summary carries its progress series (the page's chart of it, the animator audit: one
    dot before): rows [elapsed, best_quality or null, nodes] in time order, ending at the final
    progress, at most 64 of them."""
    body = dict(LONG, time_limit=1.5)  # minigolf_random never solves: it plans until the limit
    final = s.events(s.submit(body))[-1][1]
    assert final["status"] == "approximate", final
    series = final["summary"].get("progress")
    assert isinstance(series, list) and 2 <= len(series) <= 64, series
    assert all(len(r) == 3 and isinstance(r[0], (int, float)) and isinstance(r[2], (int, float)) for r in series), series
    assert all(a[0] <= b[0] and a[2] <= b[2] for a, b in zip(series, series[1:])), series
    assert series[-1][2] == final["progress"]["nodes"], (series[-1], final["progress"])
    assert any(r[1] is not None for r in series), series  # minigolf_random has a quality metric
    # a job with no progress report before its end still has its final row
    quick = s.events(s.submit({"domain": "minigolf"}))[-1][1]
    assert len(quick["summary"]["progress"]) >= 1 and quick["summary"]["progress"][-1][2] == quick["progress"]["nodes"], quick


def test_worlds(s):
    """GET /v1/jobs/{id}/worlds: the answer of `tplan worlds --json`, byte for byte (one evaluator);
    a bad query is 400 bad_field naming "where" (or "rank"); an unknown parameter 400; no job 404."""
    import urllib.parse
    jid = s.submit({"domain": "minigolf", "seed": 1, "solutions": 5})
    final = s.events(jid)[-1][1]
    assert final["status"] == "solved", final
    st, _, plan = s.request("GET", final["plan"])
    path = os.path.join(WORK, "worlds.plan.json")
    with open(path, "wb") as f:
        f.write(plan)
    where, rank = "ball inside [1.5,1.7]x[-0.6,-0.3]x[-inf,inf] between 0 12.65 and duration < 17", "duration,-impulse"
    q = urllib.parse.urlencode({"where": where, "rank": rank})
    st, hd, body = s.request("GET", "/v1/jobs/%d/worlds?%s" % (jid, q))
    assert st == 200 and hd["content-type"] == "application/json", (st, hd, body[:200])
    ref = subprocess.run([TPLAN, "worlds", path, "--json", "--where", where, "--rank", rank], capture_output=True, check=True).stdout
    assert body == ref, "the service's worlds differ from tplan worlds --json"
    got = json.loads(body)
    assert len(got["worlds"]) == 5 and 0 < len(got["order"]) < 5, got["order"]
    _, _, every = s.json("GET", "/v1/jobs/%d/worlds" % jid, expect=200)
    assert every["order"] == [0, 1, 2, 3, 4], every["order"]
    _, _, e = s.json("GET", "/v1/jobs/%d/worlds?where=%s" % (jid, urllib.parse.quote("ball touches vase")), expect=400)
    assert e["error"]["code"] == "bad_field" and e["error"]["field"] == "where", e
    assert "no body named 'vase'" in e["error"]["message"], e
    _, _, e = s.json("GET", "/v1/jobs/%d/worlds?where=%s" % (jid, urllib.parse.quote("ball inside [0,1]x[1,0]x[0,1]")),
                     expect=400)
    assert "empty region: y from 1 to 0" in e["error"]["message"] and e["error"]["field"] == "where", e
    _, _, e = s.json("GET", "/v1/jobs/%d/worlds?rank=speed" % jid, expect=400)
    assert e["error"]["field"] == "rank", e
    _, _, e = s.json("GET", "/v1/jobs/%d/worlds?foo=1" % jid, expect=400)
    assert e["error"]["field"] == "foo", e
    s.json("GET", "/v1/jobs/999999/worlds", expect=404)


def test_metrics(s):
    st, hd, text = s.request("GET", "/metrics")
    text = text.decode()
    assert st == 200 and hd["content-type"].startswith("text/plain"), hd
    for want in ('tplan_jobs{status="solved"}', "tplan_queue_depth", "tplan_workers_busy",
                 'tplan_planning_seconds_bucket{le="+Inf"}', 'tplan_http_requests_total{route="/v1/jobs",code="201"}'):
        assert want in text, want
    solved = int(next(l for l in text.splitlines() if l.startswith('tplan_jobs{status="solved"}')).split()[1])
    _, _, page = s.json("GET", "/v1/jobs?status=solved&limit=500", expect=200)
    assert solved == len(page["jobs"]), (solved, len(page["jobs"]))


def test_limits(_):
    """--limit TAG=N: at most N jobs carrying the tag run at once; the next job in the order that is
    not held by a limit takes the free worker; bad limits refused at start naming the option."""
    s = Server(TPLAN, os.path.join(WORK, "limits"), "--limit", "gpu=1", "--limit", "a=b=2",
               "--interactive-workers", "0").start()
    try:
        a = s.submit(dict(LONG, tags=["gpu"]))
        s.wait_status(a, ("running",))
        b = s.submit(dict(LONG, tags=["x", "gpu"]))  # held: gpu has 1 running
        c = s.submit(dict(LONG, tags=["x"]))  # overtakes b: takes the second worker
        s.wait_status(c, ("running",))
        _, _, j = s.json("GET", "/v1/jobs/%d" % b, expect=200)
        assert j["status"] == "queued", j
        # GET /v1/cluster (the web page's Cluster view): this server, its running jobs, the limits
        _, hd, cl = s.json("GET", "/v1/cluster", expect=200)
        assert hd["cache-control"] == "no-store" and cl["queued"] == 1 and not cl["draining"], cl
        assert sorted(x["id"] for x in cl["running"]) == [a, c], cl
        assert {x["tag"]: (x["max"], x["running"]) for x in cl["limits"]} == {"gpu": (1, 1), "a=b": (2, 0)}, cl
        mine = [n for n in cl["nodes"] if n["self"]]
        assert len(mine) == 1 and mine[0]["state"] == "up" and mine[0]["workers"] == 2, cl
        if cl["store"] == "postgresql":  # the cluster's view: leases
            assert all(x["attempt"] == 1 and x["lease_left"] is not None for x in cl["running"]), cl
        _, _, e = s.json("GET", "/v1/cluster?x=1", expect=400)
        assert e["error"]["field"] == "x", e
        st, hd, _ = s.request("POST", "/v1/cluster")
        assert st == 405 and hd["allow"] == "GET, HEAD", (st, hd)
        d = s.submit(dict(LONG, tags=["a=b"]))  # the tag is "a=b" (the last '=' splits): limit 2
        s.json("DELETE", "/v1/jobs/%d" % a, expect=200)  # gpu's place frees: b, before d (older)
        s.wait_status(b, ("running",))
        _, _, j = s.json("GET", "/v1/jobs/%d" % d, expect=200)
        assert j["status"] == "queued", j
        for jid in (b, c, d):
            s.json("DELETE", "/v1/jobs/%d" % jid, expect=200)
    finally:
        assert s.stop() == 0
    for bad, why in (("gpu", "give TAG=N"), ("gpu=0", "N in 1..10000"), ("=3", "give TAG=N"),
                     ("gpu=1x", "give TAG=N"), ("gpu=10001", "N in 1..10000")):
        out = subprocess.run([TPLAN, "serve", "--port", "0", "--no-web", "--data", os.path.join(WORK, "limits"),
                              "--limit", bad], capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)
        assert out.returncode == 2 and "--limit '%s'" % bad in out.stderr and why in out.stderr, (bad, out.stderr)
    out = subprocess.run([TPLAN, "serve", "--port", "0", "--no-web", "--data", os.path.join(WORK, "limits"),
                          "--limit", "t=1", "--limit", "t=2"], capture_output=True, text=True, timeout=60,
                         stdin=subprocess.DEVNULL)
    assert out.returncode == 2 and "tag 't' has a limit already" in out.stderr, out.stderr


def test_retry_limits(_):
    """A retry runs its stored request under the server's limits of today: refused 400 naming the
    field when it asks more (a --max-time or --max-memory lowered since); the defaults of today
    when it asked none."""
    data = os.path.join(WORK, "retry_limits")
    s = Server(TPLAN, data, "--max-time", "600", "--default-time", "500", "--interactive-workers", "0").start()
    try:
        big = s.submit(dict(LONG, time_limit=500))
        mem = s.submit(dict(LONG, memory_mb=3000, time_limit=50))
        dflt = s.submit({"domain": "minigolf_random", "max_iters": 1000000000})
        for jid in (big, mem, dflt):
            s.json("DELETE", "/v1/jobs/%d" % jid, expect=200)
    finally:
        assert s.stop() == 0
    s = Server(TPLAN, data, "--max-time", "100", "--max-memory", "2048", "--interactive-workers", "0").start()
    try:
        _, _, e = s.json("POST", "/v1/jobs/%d/retry" % big, expect=400)
        assert e["error"]["code"] == "bad_field" and e["error"]["field"] == "time_limit", e
        assert "(0, 100]" in e["error"]["message"], e
        _, _, e = s.json("POST", "/v1/jobs/%d/retry" % mem, expect=400)
        assert e["error"]["field"] == "memory_mb" and "16..2048" in e["error"]["message"], e
        _, _, acc = s.json("POST", "/v1/jobs/%d/retry" % dflt, expect=201)  # today's default: 60 s
        run = s.wait_status(acc["id"], ("running",))
        assert run["retry_of"] == dflt, run
        s.json("DELETE", "/v1/jobs/%d" % acc["id"], expect=200)
        ev = s.wait_final(acc["id"])
        assert ev["status"] == "cancelled", ev
    finally:
        assert s.stop() == 0


r = Runner()
srv = Server(TPLAN, os.path.join(WORK, "data")).start()
try:
    for name, fn in [("health and domains", test_health_domains), ("minigolf plan = tplan plan", test_minigolf_bytes),
                     ("pool plan = tplan plan", test_pool_bytes), ("script job with set", test_set_and_script),
                     ("list and pagination", test_list), ("idempotent POST", test_idempotency),
                     ("cancel queued and running", test_cancel), ("retry a failed or cancelled job", test_retry), ("priority", test_priority), ("run_at (scheduled jobs)", test_run_at), ("retries after a worker crash", test_retries),
                     ("synchronous /v1/plan", test_sync_plan),
                     ("domain warnings in the summary", test_warnings),
                     ("jobs: 2 (OR-parallel) and the worker budget", test_jobs_budget),
                     ("the progress series in the summary", test_progress_series),
                     ("many-worlds browsing (GET /v1/jobs/{id}/worlds)", test_worlds),
                     ("metrics", test_metrics)]:
        r.run(name, fn, srv)
    r.run("concurrency limits (--limit TAG=N)", test_limits, srv)
    r.run("a retry under today's limits", test_retry_limits, srv)
    r.run("every response documented (OpenAPI)", lambda: openapi_check(Server.every, WORK, doc_server=srv))
finally:
    r.stop_server(srv)
r.finish()
