"""tplan serve: every bad request answered with {"error":{...}} and the right status, none crashes or
wedges the server; the token; limits on scripts (memory, endless loops); the static files' paths.
usage: service_errors.py TPLAN WORKDIR"""
import copy
import json
import os
import re
import socket
import subprocess
import sys

from tplan_service import Runner, Server, fresh_dir, SCRIPTS, LONG, openapi_check, cli_plan, start_state, strip_timing

TPLAN, WORK = sys.argv[1], fresh_dir(sys.argv[2])


def script(name):
    return open(os.path.join(SCRIPTS, name)).read()


def expect_error(s, method, path, status, code, field=None, raw=None, body=None, headers=None):
    st, hd, obj = s.json(method, path, body=body, raw=raw, headers=headers)
    assert st == status, "%s %s: status %d, want %d: %s" % (method, path, st, status, obj)
    assert set(obj) == {"error"} and obj["error"]["code"] == code, obj
    assert isinstance(obj["error"]["message"], str) and obj["error"]["message"], obj
    if field:
        assert obj["error"].get("field") == field, obj
    return obj["error"], hd


def test_bad_requests(s):
    e, _ = expect_error(s, "POST", "/v1/jobs", 400, "bad_json", raw=b'{"domain": "minigolf",, }')
    assert "near byte 22" in e["message"] or "near byte 23" in e["message"], e  # the second comma
    expect_error(s, "POST", "/v1/jobs", 400, "bad_json", raw=b'[1, 2]')
    expect_error(s, "POST", "/v1/jobs", 400, "bad_json", raw=b'{"domain":"minigolf"} trailing')
    expect_error(s, "POST", "/v1/jobs", 400, "bad_json", raw=b'')
    expect_error(s, "POST", "/v1/jobs", 404, "unknown_domain", "domain", body={"domain": "nope"})
    expect_error(s, "POST", "/v1/jobs", 404, "unknown_domain", "domain", body={"domain": "../../etc/passwd"})
    table = [
        ({"domain": "minigolf", "colour": 1}, "colour"),
        ({"domain": 3}, "domain"),
        ({"domain": "minigolf", "seed": "x"}, "seed"),
        ({"domain": "minigolf", "seed": -1}, "seed"),
        ({"domain": "minigolf", "seed": 1.5}, "seed"),
        ({"domain": "minigolf", "planner": "astar"}, "planner"),
        ({"domain": "minigolf", "mu": 0}, "mu"),
        ({"domain": "minigolf", "max_iters": 0}, "max_iters"),
        ({"domain": "minigolf", "time_limit": -1}, "time_limit"),
        ({"domain": "minigolf", "time_limit": 1e9}, "time_limit"),
        ({"domain": "minigolf", "solutions": 0}, "solutions"),
        ({"domain": "minigolf", "tree": "yes"}, "tree"),
        ({"domain": "minigolf", "set": [1]}, "set"),
        ({"domain": "minigolf", "set": {"x": [1]}}, "set"),
        ({"domain": "minigolf", "memory_mb": 1}, "memory_mb"),
        # the run definition's own reader (tp/run.h), and the script limits that are the server's
        ({"domain": "minigolf", "nn_index": 1}, "nn_index"),
        ({"domain": "minigolf", "load_time_limit": 5}, "load_time_limit"),
        ({"domain": "minigolf", "call_time_limit": 5}, "call_time_limit"),
        ({"domain": "minigolf", "search_memory_mb": 64}, "search_memory_mb"),
        ({"script": 5}, "script"),
        ({"domain": "minigolf", "script": "x"}, "script"),
        ({}, "domain"),
    ]
    for body, field in table:
        expect_error(s, "POST", "/v1/jobs", 400, "bad_field", field, body=body)
    expect_error(s, "GET", "/v1/jobs/999999", 404, "not_found")
    expect_error(s, "GET", "/v1/jobs/abc", 404, "not_found")
    expect_error(s, "GET", "/v1/jobs/999999/plan", 404, "not_found")
    expect_error(s, "GET", "/v1/nope", 404, "not_found")
    expect_error(s, "GET", "/v1/jobs?limit=0", 400, "bad_field", "limit")
    expect_error(s, "GET", "/v1/jobs?status=done", 400, "bad_field", "status")
    _, hd = expect_error(s, "PUT", "/v1/jobs", 405, "method_not_allowed")
    assert hd["allow"] == "GET, HEAD, POST", hd
    expect_error(s, "DELETE", "/v1/health", 405, "method_not_allowed")
    expect_error(s, "POST", "/v1/plan?wait=abc", 400, "bad_field", "wait", body={"domain": "minigolf"})
    # unknown query parameters are refused, naming the parameter, never ignored
    expect_error(s, "GET", "/v1/jobs?domian=soccer", 400, "bad_field", "domian")
    expect_error(s, "GET", "/v1/health?x=1", 400, "bad_field", "x")
    expect_error(s, "GET", "/v1/jobs/1?verbose=1", 400, "bad_field", "verbose")
    expect_error(s, "POST", "/v1/jobs?priority=high", 400, "bad_field", "priority", body={"domain": "minigolf"})
    expect_error(s, "POST", "/v1/plan?wait=1&deadline=2", 400, "bad_field", "deadline", body={"domain": "minigolf"})
    expect_error(s, "GET", "/v1/jobs?created_after=yesterday", 400, "bad_field", "created_after")
    expect_error(s, "GET", "/v1/jobs?tag=", 400, "bad_field", "tag")
    # the small deviations (repro http_small_deviations.sh): an empty status is refused as the
    # other empty filters are; wait is a plain decimal, given once; no parameter counts twice
    expect_error(s, "GET", "/v1/jobs?status=", 400, "bad_field", "status")
    for w in ("0x10", "%20%201", "1e1", "inf"):
        expect_error(s, "POST", "/v1/plan?wait=" + w, 400, "bad_field", "wait", body={"domain": "minigolf"})
    expect_error(s, "POST", "/v1/plan?wait=0.5&wait=1", 400, "bad_field", "wait", body={"domain": "minigolf"})
    expect_error(s, "GET", "/v1/jobs?status=queued&status=solved", 400, "bad_field", "status")
    for body, field in [({"domain": "minigolf", "name": ""}, "name"), ({"domain": "minigolf", "name": 3}, "name"),
                        ({"domain": "minigolf", "name": "a\nb"}, "name"), ({"domain": "minigolf", "tags": "a"}, "tags"),
                        ({"domain": "minigolf", "tags": ["x" * 65]}, "tags"),
                        ({"domain": "minigolf", "tags": ["t%d" % i for i in range(17)]}, "tags")]:
        expect_error(s, "POST", "/v1/jobs", 400, "bad_field", field, body=body)
    expect_error(s, "POST", "/v1/jobs/999999/stop", 404, "not_found")
    expect_error(s, "GET", "/v1/jobs/1/stop", 405, "method_not_allowed")
    # bodies over the limit: a 5 MB body, a 1.5 MB script
    expect_error(s, "POST", "/v1/jobs", 413, "body_too_large", raw=b"x" * (5 << 20))
    expect_error(s, "POST", "/v1/jobs", 413, "script_too_large", "script", body={"script": "-" * (1536 << 10)})
    _, _, h = s.json("GET", "/v1/health", expect=200)
    assert h["status"] == "ok"


def failed_job(s, body, code, prefix):
    final = s.wait_final(s.submit(body))
    assert final["status"] == "failed" and final["error"]["code"] == code, final
    assert final["error"]["message"].startswith(prefix), final["error"]
    assert final["plan"] is None
    return final


def test_script_errors(s):
    failed_job(s, {"script": script("syntax_error.lua")}, "script_error", "job.lua:3:")
    failed_job(s, {"script": script("runtime_error.lua")}, "script_error", "job.lua:3:")
    failed_job(s, {"script": "return 1"}, "script_error", "job.lua")
    failed_job(s, {"script": 'local tp = require "tp"\nrequire "other"'}, "script_error", "job.lua:2:")
    f = failed_job(s, {"domain": "minigolf", "set": {"nonsense": 1}}, "script_error", "")
    assert "unknown parameter 'nonsense'" in f["error"]["message"], f
    failed_job(s, {"domain": "dice", "set": {"count": -5}}, "script_error", "")


def test_limits(s):
    # the messages name the request's members and the server's limits, never a command-line flag
    # (repro cli_flags_in_service_errors.sh: "... 1 s: --call-time-limit)")
    f = failed_job(s, {"script": script("alloc.lua"), "memory_mb": 64}, "memory_limit", "job.lua:3:")
    assert "memory limit of 64 MB exceeded (memory_mb)" in f["error"]["message"], f
    f = failed_job(s, {"script": script("loop_top.lua"), "time_limit": 1}, "time_limit", "job.lua:2:")
    assert "ran longer than" in f["error"]["message"] and "--" not in f["error"]["message"], f
    f = failed_job(s, {"script": script("loop_goal.lua"), "time_limit": 1}, "time_limit", "job.lua:")
    assert f["error"]["message"].endswith("1 s: call_time_limit, the server's)") or "time_limit 1 s" in \
        f["error"]["message"], f
    assert "--" not in f["error"]["message"], f
    f = failed_job(s, {"domain": "dice", "set": {"count": "x"}}, "script_error", "dice.lua:")
    assert ": set count=x: expected" in f["error"]["message"], f
    _, _, h = s.json("GET", "/v1/health", expect=200)
    assert h["running"] == 0 and h["queued"] == 0, h


def test_queue_full(tplan, work):
    s = Server(tplan, os.path.join(work, "queue"), "--max-queue", "2", workers=1).start()
    try:
        a = s.submit(LONG)
        s.wait_status(a, ("running",))
        s.submit(LONG)
        s.submit(LONG)
        _, hd = expect_error(s, "POST", "/v1/jobs", 429, "queue_full", body=LONG)
        assert hd["retry-after"] == "1", hd
    finally:
        assert s.stop() == 0, s.log()[-2000:]


def test_token(tplan, work):
    tok = os.path.join(work, "token")
    with open(tok, "w") as f:
        f.write("s3cret-token-0123\n")
    os.chmod(tok, 0o600)
    s = Server(tplan, os.path.join(work, "tok"), "--token-file", tok, workers=1).start()
    try:
        _, hd = expect_error(s, "GET", "/v1/domains", 401, "unauthorized")
        assert hd["www-authenticate"].startswith("Bearer"), hd
        expect_error(s, "GET", "/v1/jobs", 401, "unauthorized", headers={"Authorization": "Bearer s3cret-token-012"})
        expect_error(s, "GET", "/v1/jobs", 401, "unauthorized", headers={"Authorization": "Bearer s3cret-token-01234"})
        expect_error(s, "GET", "/v1/openapi.json", 401, "unauthorized")
        # liveness needs no token and then tells nothing but "ok"; with the token, the counts
        for hdrs in ({}, {"Authorization": "Bearer s3cret-token-012"}):
            _, _, h = s.json("GET", "/v1/health", headers=hdrs, expect=200)
            assert h == {"status": "ok"}, h
        _, _, h = s.json("GET", "/v1/health", headers={"Authorization": "Bearer s3cret-token-0123"}, expect=200)
        assert h["status"] == "ok" and "queued" in h and "workers" in h, h
        expect_error(s, "POST", "/v1/jobs", 401, "unauthorized", body={"domain": "minigolf"})
        expect_error(s, "GET", "/metrics", 401, "unauthorized")
        s.json("GET", "/v1/health", headers={"Authorization": "Bearer s3cret-token-0123"}, expect=200)
        s.json("GET", "/v1/health?access_token=s3cret-token-0123", expect=200)
        st, _, _ = s.request("GET", "/metrics", headers={"Authorization": "Bearer s3cret-token-0123"})
        assert st == 200
    finally:
        assert s.stop() == 0


def raw_get(port, path):
    """A request line sent as is (no client-side normalisation of the path); returns the status."""
    with socket.create_connection(("127.0.0.1", port), timeout=60) as c:
        c.sendall(("GET %s HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n" % path).encode())
        data = b""
        while True:
            chunk = c.recv(65536)
            if not chunk:
                break
            data += chunk
    return int(data.split(b" ", 2)[1]), data


def test_static(tplan, work):
    web = os.path.join(work, "web")
    os.makedirs(os.path.join(web, "node_modules", "pkg"), exist_ok=True)
    os.makedirs(os.path.join(web, ".git"), exist_ok=True)
    open(os.path.join(web, "index.html"), "w").write("<!doctype html><title>t</title>")
    open(os.path.join(web, "app.js"), "w").write("export const x = 1;\n")
    open(os.path.join(web, "node_modules", "pkg", "m.js"), "w").write("export default 1;\n")
    open(os.path.join(web, ".git", "config"), "w").write("secret")
    open(os.path.join(web, "notes.secret"), "w").write("secret")
    os.symlink("/etc/passwd", os.path.join(web, "passwd.txt"))
    s = Server(tplan, os.path.join(work, "static"), "--web", web, workers=1).start()
    try:
        st, hd, body = s.request("GET", "/")
        assert st == 200 and hd["content-type"].startswith("text/html") and b"<title>t" in body, (st, hd)
        st, hd, _ = s.request("GET", "/app.js")
        assert st == 200 and hd["content-type"].startswith("text/javascript") and hd["cache-control"] == "no-cache"
        st, hd, _ = s.request("GET", "/node_modules/pkg/m.js")
        assert st == 200 and "max-age" in hd["cache-control"]
        for path in ["/../../etc/passwd", "/%2e%2e/%2e%2e/etc/passwd", "/node_modules/../../CMakeLists.txt",
                     "/..%2f..%2fetc%2fpasswd", "/.git/config", "/notes.secret", "/passwd.txt", "/app.js/",
                     "//etc/passwd", "/node_modules/"]:
            st, data = raw_get(s.port, path)
            assert st in (400, 404), (path, st)
            assert b"root:" not in data and b"secret" not in data, path
        for path in ["/%00index.html", "/index.html%00.js", "/app.js%00/../../etc/passwd"]:
            st, data = raw_get(s.port, path)  # %00 is never decoded: such a path names no file
            assert st == 404 and b"root:" not in data, (path, st)
        st, _, _ = s.request("POST", "/index.html", raw=b"x")
        assert st == 405
    finally:
        assert s.stop() == 0


def test_states(s):
    """"state" in POST /v1/jobs and /v1/plan: a state file's bad values are 400 naming the
    field; a state that does not fit the domain fails the job (bad_state; 400 from /v1/plan); a
    good one is planned from, and the plan records it."""
    d = os.path.join(WORK, "states")
    os.makedirs(d, exist_ok=True)
    plan, mid = os.path.join(d, "p.json"), os.path.join(d, "mid.json")
    subprocess.run([TPLAN, "plan", "pool", "--seed", "1", "-q", "-o", plan], check=True)
    steps = json.load(open(plan))["steps"]
    subprocess.run([TPLAN, "state", plan, "--step", str(steps // 2), "-o", mid], check=True)
    state = json.load(open(mid))
    def edited(fn):
        st = copy.deepcopy(state)
        fn(st)
        return st
    table = [
        (3, "state"),
        (edited(lambda st: st.update(time=-1)), "state.time"),
        (edited(lambda st: st.update(version=3)), "state.version"),
        # the tactics' state and the conditions' memory (version 2 only): their types, strictly
        (edited(lambda st: st.update(tactics={"cue_ball": {"skill": 0}})), "state.tactics"),
        (edited(lambda st: st.update(version=2, tactics={"t": {"skill": 0, "busy": 1, "started": True, "vars": []}})),
         "state.tactics.t.busy"),
        (edited(lambda st: st.update(version=2, tactics={"t": {"skill": -1, "busy": False, "started": True,
                                                               "vars": []}})), "state.tactics.t.skill"),
        (edited(lambda st: st.update(version=2, tactics={"t": {"skill": 0, "busy": False, "started": True,
                                                               "vars": [], "x": 1}})), "state.tactics.t.x"),
        (edited(lambda st: st.update(version=2, memory=[1, -2])), "state.memory[1]"),
        (edited(lambda st: st.update(version=2, memory={})), "state.memory"),
        (edited(lambda st: st["bodies"]["cue"].update(quaternion=[2, 0, 0, 0])), "state.bodies.cue.quaternion"),
        (edited(lambda st: st["bodies"]["cue"].update(spin=1)), "state.bodies.cue.spin"),
        (edited(lambda st: st["bodies"]["cue"].update(rest=300)), "state.bodies.cue.rest"),
        (edited(lambda st: st["bodies"]["cue"].pop("velocity")), "state.bodies.cue.velocity"),
    ]
    for bad, field in table:
        expect_error(s, "POST", "/v1/jobs", 400, "bad_field", field, body={"domain": "pool", "state": bad})
    inf = re.sub(r'"position": \[[^,]+,', '"position": [1e999,', json.dumps(state), count=1)
    expect_error(s, "POST", "/v1/jobs", 400, "bad_field", "state.bodies.cue.position",
                 raw=('{"domain": "pool", "state": %s}' % inf).encode())
    # what only the domain can tell: the front end's state checker refuses it before queueing (400
    # bad_state naming the field, no job made), as /v1/plan's worker does (the embedding audit)
    def bad_state(body, field, prefix):
        before = s.json("GET", "/v1/jobs?limit=1", expect=200)[2]["jobs"]
        err, _ = expect_error(s, "POST", "/v1/jobs", 400, "bad_state", field, body=body)
        assert err["message"].startswith(prefix), err
        assert s.json("GET", "/v1/jobs?limit=1", expect=200)[2]["jobs"] == before, "a refused job was queued"
        return err
    # repeated submissions of one domain bind against the loaded domain: no load each time
    def checks():
        text = s.request("GET", "/metrics")[2].decode()
        return {k: int(v) for k, v in re.findall(r'tplan_state_checks_total\{load="(\w+)"\} (\d+)', text)}
    bad_state({"domain": "minigolf", "state": state}, "state.domain", "state: domain: a state of 'pool'")
    ghost = edited(lambda st: st["bodies"].update(ghost=st["bodies"].pop("cue")))
    bad_state({"domain": "pool", "state": ghost}, "state.bodies.ghost", "state: bodies.ghost: no such body")
    missing = edited(lambda st: st["bodies"].pop("cue"))
    bad_state({"domain": "pool", "state": missing}, "state.bodies", "state: bodies: 10 bodies given")
    # a tactic or a memory the domain does not have, a skill index out of its range
    tac = edited(lambda st: st.update(version=2, tactics={"nobody": {"skill": 0, "busy": False, "started": True,
                                                                     "vars": []}}))
    bad_state({"domain": "pool", "state": tac}, "state.tactics.nobody", "state: tactics.nobody: no such tactic")
    mem = edited(lambda st: st.update(version=2, memory=[1]))
    bad_state({"domain": "pool", "state": mem}, "state.memory", "state: memory: 1 values given")
    overlap = edited(lambda st: st["bodies"]["blue"].update(position=st["bodies"]["yellow"]["position"]))
    err = bad_state({"domain": "pool", "state": overlap}, None, "state: bodies.")
    assert "overlap" in err["message"] and err["field"] in ("state.bodies.blue", "state.bodies.yellow"), err
    # `set` may change the domain: the check loads it again with the request's parameters
    c = checks()
    bad_state({"domain": "pool", "set": {"mode": "single"}, "state": ghost}, "state.bodies.ghost", "state: bodies.")
    assert checks()["loaded"] == c["loaded"] + 1, (c, checks())
    # a submitted script is checked too, by the same load (its bodies are its own)
    tiny = script("tiny.lua")
    robot = start_state(TPLAN, "tiny.lua", d)
    ok = s.submit({"script": tiny, "state": robot})
    assert s.wait_final(ok)["status"] == "solved"
    robot["bodies"]["robob"] = robot["bodies"].pop("robot")
    bad_state({"script": tiny, "state": robot}, "state.bodies.robob", "state: bodies.robob: no such body")
    # a hostile script (its load never ends) cannot hold the front end: its check ends at the check's
    # time limit, the job is queued unchecked (its worker decides, as before) and the same script is
    # not loaded for a check again; the server answers meanwhile
    import threading
    hostile = {"script": script("loop_top.lua"), "state": robot, "time_limit": 60}
    done = {}
    t = threading.Thread(target=lambda: done.update(r=s.json("POST", "/v1/jobs", body=hostile)))
    t.start()
    assert s.json("GET", "/v1/health", expect=200)[2]["status"] == "ok"
    t.join(60)
    assert done["r"][0] == 201, done
    c = checks()
    st_, _, again = s.json("POST", "/v1/jobs", body=hostile)
    assert st_ == 201 and checks()["skipped"] == c["skipped"] + 1, (st_, again, c, checks())
    for j in (done["r"][2]["id"], again["id"]):
        s.json("POST", "/v1/jobs/%d/cancel" % j)
    c0 = checks()
    for _ in range(3):
        bad_state({"domain": "pool", "state": ghost}, "state.bodies.ghost", "state: bodies.ghost:")
    c1 = checks()
    assert c1["cached"] - c0["cached"] == 3 and c1["loaded"] == c0["loaded"], (c0, c1)
    # a good state passes the check and is queued
    good = s.submit({"domain": "pool", "state": state, "seed": 3, "max_iters": 50})
    assert s.wait_final(good)["status"] in ("solved", "approximate")
    st_, hd, body = s.request("POST", "/v1/plan?wait=30", {"domain": "pool", "state": ghost})
    err = json.loads(body)["error"]
    assert st_ == 400 and err["code"] == "bad_state" and err["field"] == "state.bodies.ghost", (st_, body)
    st_, hd, body = s.request("POST", "/v1/plan?wait=30", {"domain": "pool", "state": tac})
    err = json.loads(body)["error"]
    assert st_ == 400 and err["code"] == "bad_state" and err["field"] == "state.tactics.nobody", (st_, body)
    # a good state: planned from, recorded in the plan (version 2, its time)
    st_, hd, body = s.request("POST", "/v1/plan?wait=30", {"domain": "pool", "state": state, "seed": 2,
                                                            "max_iters": 200})
    assert st_ == 200, (st_, body[:300])
    p = json.loads(body)
    assert p["version"] == 2 and p["start"]["time"] == state["time"], p.get("start")
    assert p["bodies"][[b["name"] for b in p["bodies"]].index("cue")]["trajectory"][0][:3] == \
        state["bodies"]["cue"]["position"]
    # the state's numbers reach the worker to the bit (cJSON's printer moved a last bit: the time
    # 0.66666666666666707 of step 40 became 0.666666666666667): the plan is `tplan plan --state`'s
    at40 = os.path.join(d, "at40.json")
    subprocess.run([TPLAN, "state", plan, "--step", "40", "-o", at40], check=True)
    st_, hd, body = s.request("POST", "/v1/plan?wait=30", {"domain": "pool", "state": json.load(open(at40)),
                                                            "seed": 2, "max_iters": 200})
    assert st_ == 200, (st_, body[:300])
    want = cli_plan(TPLAN, os.path.join(d, "cli40.json"), "pool", "--state", at40, "--seed", "2", "--max-iters", "200")
    got, want = strip_timing(body), strip_timing(want)
    got["planner"].pop("time_limit")  # a synchronous job's is the time to its deadline
    want["planner"].pop("time_limit")
    assert got == want, "the service's plan from the state differs from tplan plan's"


r = Runner()
srv = Server(TPLAN, os.path.join(WORK, "data")).start()
try:
    r.run("bad requests table", test_bad_requests, srv)
    r.run("script errors -> failed jobs", test_script_errors, srv)
    r.run("memory and time limits", test_limits, srv)
    r.run("states: bad fields, states that do not fit, a plan from one", test_states, srv)
    r.run("every error documented (OpenAPI)", openapi_check, [srv], WORK)
finally:
    r.stop_server(srv)
r.run("queue full -> 429", test_queue_full, TPLAN, WORK)
r.run("bearer token", test_token, TPLAN, WORK)
r.run("static files and traversal", test_static, TPLAN, WORK)
r.finish()
