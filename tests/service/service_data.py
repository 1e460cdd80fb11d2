"""tplan serve: the data kept tidy and the documented API. Cancelled and failed jobs leave no files
(repro cancelled_jobs_leave_files.py), queued scripts wait on disk and not in the server's memory
(repro store_no_retention_queue_memory.py: 400 of them held 455 MB), DELETE of a finished job, the retention policy (count,
at start and while running; folders of no job), name and tags with the list filters, gzip, Range,
HEAD and ETags on files, CORS for --cors-origin only; every response checked against the OpenAPI
document.
usage: service_data.py TPLAN WORKDIR"""
import gzip
import json
import os
import subprocess
import sys

from tplan_service import Runner, Server, fresh_dir, openapi_check, LONG, TIMEOUT

TPLAN, WORK = sys.argv[1], fresh_dir(sys.argv[2])
SANITIZED = b"libasan" in subprocess.run(["ldd", TPLAN], capture_output=True).stdout


def job_dir(s, jid):
    return os.path.join(s.data, "jobs", str(jid))


def test_no_partial_files(s):
    for seed in range(1, 6):  # cancelled while running, after writing who knows what
        jid = s.submit(dict(LONG, tree=True, seed=seed))
        s.wait_status(jid, ("running",))
        _, _, job = s.json("DELETE", "/v1/jobs/%d" % jid, expect=200)
        assert job["status"] == "cancelled" and job["tree"] is None, job
        assert not os.path.exists(job_dir(s, jid)), os.listdir(job_dir(s, jid))
    bad = s.wait_final(s.submit({"script": "error('boom')"}))
    assert bad["status"] == "failed" and not os.path.exists(job_dir(s, bad["id"]))


def test_delete(s):
    final = s.wait_final(s.submit({"domain": "minigolf", "seed": 3, "tree": True}))
    jid = final["id"]
    assert sorted(os.listdir(job_dir(s, jid))) == ["plan.json", "tree.bin"]
    st, _, _ = s.request("DELETE", "/v1/jobs/%d" % jid)
    assert st == 204
    assert not os.path.exists(job_dir(s, jid))
    s.json("GET", "/v1/jobs/%d" % jid, expect=404)
    s.json("GET", "/v1/jobs/%d/plan" % jid, expect=404)
    s.json("DELETE", "/v1/jobs/%d" % jid, expect=404)


def test_names_and_filters(s):
    a = s.wait_final(s.submit({"domain": "minigolf", "seed": 1, "name": "hole 1", "tags": ["golf", "level-3"]}))
    b = s.wait_final(s.submit({"domain": "pool", "name": "break", "tags": ["pool"]}))
    c = s.wait_final(s.submit({"script": "error('x')", "name": "my domain"}))
    assert a["name"] == "hole 1" and a["tags"] == ["golf", "level-3"] and b["tags"] == ["pool"], (a, b)
    assert c["name"] == "my domain" and c["tags"] == [] and c["domain"] == "job.lua", c
    # a script job's text comes back (to edit and submit again); a built-in domain has none
    st, hd, text = s.request("GET", "/v1/jobs/%d/script" % c["id"])
    assert st == 200 and text == b"error('x')" and hd["content-type"].startswith("text/x-lua"), (st, hd, text)
    s.json("GET", "/v1/jobs/%d/script" % a["id"], expect=404)

    def ids(query):
        _, _, page = s.json("GET", "/v1/jobs?" + query, expect=200)
        return [j["id"] for j in page["jobs"]]
    assert ids("domain=pool") == [b["id"]]
    assert ids("tag=golf") == [a["id"]] and ids("tag=level-3") == [a["id"]] and ids("tag=gol") == []
    assert ids("name=my%20domain") == [c["id"]]
    assert ids("status=failed&name=my%20domain") == [c["id"]] and ids("status=solved&name=my%20domain") == []
    assert ids("domain=soccer") == []  # filtered, not the whole list
    after = ids("created_after=%f" % (b["created"] - 1e-3))
    assert after == [c["id"], b["id"]], after
    before = ids("created_before=%f" % (b["created"] - 1e-4))
    assert a["id"] in before and b["id"] not in before, before
    assert ids("created_after=2000-01-01T00:00:00Z&limit=500")[:3] == [c["id"], b["id"], a["id"]]
    assert ids("created_after=2100-01-01T00:00:00Z") == []


def test_file_transfer(s):
    final = s.wait_final(s.submit({"domain": "minigolf", "seed": 5, "tree": True}))
    path = "/v1/jobs/%d/plan" % final["id"]
    st, hd, plain = s.request("GET", path)
    assert st == 200 and hd["accept-ranges"] == "bytes" and hd["etag"], hd
    st, hd, packed = s.request("GET", path, headers={"Accept-Encoding": "gzip"})
    assert st == 200 and hd["content-encoding"] == "gzip" and gzip.decompress(packed) == plain, hd
    assert len(packed) < len(plain) / 3, (len(packed), len(plain))
    st, hd, tree = s.request("GET", "/v1/jobs/%d/tree" % final["id"], headers={"Accept-Encoding": "gzip"})
    full_tree = s.request("GET", "/v1/jobs/%d/tree" % final["id"])[2]
    assert st == 200 and gzip.decompress(tree) == full_tree
    st, hd, part = s.request("GET", path, headers={"Range": "bytes=10-19"})
    assert st == 206 and part == plain[10:20] and hd["content-range"] == "bytes 10-19/%d" % len(plain), hd
    st, hd, part = s.request("GET", path, headers={"Range": "bytes=-7"})
    assert st == 206 and part == plain[-7:], part
    st, hd, part = s.request("GET", path, headers={"Range": "bytes=100-"})
    assert st == 206 and part == plain[100:]
    st, hd, e = s.json("GET", path, headers={"Range": "bytes=%d-" % len(plain)})
    assert st == 416 and e["error"]["field"] == "Range" and hd["content-range"] == "bytes */%d" % len(plain), (st, e)
    st, hd, body = s.request("HEAD", path)
    assert st == 200 and body == b"" and int(hd["content-length"]) == len(plain), hd
    etag = s.request("GET", path)[1]["etag"]
    st, hd, body = s.request("GET", path, headers={"If-None-Match": etag})
    assert st == 304 and body == b"", st
    st, hd, body = s.request("GET", "/v1/jobs/%d" % final["id"])
    assert st == 200 and hd.get("etag"), hd
    assert s.request("GET", "/v1/jobs/%d" % final["id"], headers={"If-None-Match": hd["etag"]})[0] == 304
    # an active job has no ETag (it changes)
    jid = s.submit(LONG)
    s.wait_status(jid, ("running",))
    assert "etag" not in s.request("GET", "/v1/jobs/%d" % jid)[1]
    s.json("DELETE", "/v1/jobs/%d" % jid, expect=200)
    # no CORS header unless --cors-origin
    assert "access-control-allow-origin" not in s.request("GET", "/v1/health", headers={"Origin": "http://x.test"})[1]


def test_queued_scripts_on_disk(tplan, work):
    """50 queued 1 MiB scripts behind a busy worker: the server's memory does not hold them."""
    s = Server(tplan, os.path.join(work, "queue"), "--interactive-workers", "0", workers=1).start()
    try:
        blocker = s.submit(LONG)
        s.wait_status(blocker, ("running",))
        before = s.rss_kb()
        script = "error('x')\n--" + "A" * ((1 << 20) - 20) + "\n"
        ids = [s.submit({"script": script + str(i)}) for i in range(50)]
        grown_mb = (s.rss_kb() - before) / 1024.0
        _, _, h = s.json("GET", "/v1/health", expect=200)
        assert h["queued"] == 50, h
        if not SANITIZED:  # ASan keeps freed memory in quarantine: RSS says nothing there
            assert grown_mb < 25, "the server grew by %.0f MB holding 50 MiB of queued scripts" % grown_mb
        s.json("DELETE", "/v1/jobs/%d" % blocker, expect=200)
        last = s.wait_final(ids[-1])  # each read back from the store when its turn came
        assert last["status"] == "failed" and last["error"]["message"].startswith("job.lua:"), last
    finally:
        assert s.stop() == 0


def test_retention(tplan, work):
    data = os.path.join(work, "keep")
    s = Server(tplan, data, "--keep-jobs", "3", workers=1).start()
    try:
        ids = [s.wait_final(s.submit({"domain": "minigolf", "seed": i}))["id"] for i in range(1, 6)]
        # a pass soon after a job ends deletes the oldest beyond 3, files too (each round waits for a
        # job's end, an event)
        for _ in range(TIMEOUT * 10):
            _, _, page = s.json("GET", "/v1/jobs", expect=200)
            if len(page["jobs"]) <= 3:
                break
            s.wait_status(s.submit({"domain": "minigolf", "seed": 1}), ("solved",))  # an event, not a sleep
        kept = [j["id"] for j in page["jobs"]]
        assert len(kept) == 3 and ids[0] not in kept and ids[1] not in kept, kept
        assert not os.path.exists(os.path.join(data, "jobs", str(ids[0])))
    finally:
        assert s.stop() == 0
    # at start: the policy applies at once, and folders of no stored job are removed
    os.makedirs(os.path.join(data, "jobs", "999999"))
    open(os.path.join(data, "jobs", "999999", "plan.json.tmp"), "w").close()
    s = Server(tplan, data, "--keep-jobs", "1", workers=1).start()
    try:
        _, _, page = s.json("GET", "/v1/jobs", expect=200)
        assert len(page["jobs"]) == 1 and page["jobs"][0]["id"] == max(kept + ids), page["jobs"]
        assert sorted(os.listdir(os.path.join(data, "jobs"))) == [str(page["jobs"][0]["id"])]
    finally:
        assert s.stop() == 0


def test_cors(tplan, work):
    s = Server(tplan, os.path.join(work, "cors"), "--cors-origin", "http://editor.test", workers=1).start()
    try:
        st, hd, _ = s.request("GET", "/v1/health", headers={"Origin": "http://editor.test"})
        assert st == 200 and hd["access-control-allow-origin"] == "http://editor.test", hd
        assert "access-control-allow-origin" not in s.request("GET", "/v1/health", headers={"Origin": "http://evil.test"})[1]
        st, hd, _ = s.request("OPTIONS", "/v1/jobs", headers={"Origin": "http://editor.test",
                                                               "Access-Control-Request-Method": "POST"})
        assert st == 204 and "POST" in hd["access-control-allow-methods"], (st, hd)
        assert "Authorization" in hd["access-control-allow-headers"], hd
        st, _, e = s.json("OPTIONS", "/v1/jobs", headers={"Origin": "http://evil.test"})
        assert st == 403 and e["error"]["field"] == "Origin", e
        openapi_check([s], os.path.join(work, "cors"))
    finally:
        assert s.stop() == 0


r = Runner()
srv = Server(TPLAN, os.path.join(WORK, "data")).start()
try:
    r.run("cancelled and failed jobs leave no files", test_no_partial_files, srv)
    r.run("DELETE of a finished job", test_delete, srv)
    r.run("name, tags and list filters", test_names_and_filters, srv)
    r.run("gzip, Range, HEAD, ETag", test_file_transfer, srv)
    r.run("every response documented (OpenAPI)", openapi_check, [srv], WORK)
finally:
    code = srv.stop()
    if code != 0:
        print("server exit status %s; log:\n%s" % (code, srv.log()[-4000:]))
        r.failed += 1
r.run("queued scripts wait on disk", test_queued_scripts_on_disk, TPLAN, WORK)
r.run("retention: count, at start, orphans", test_retention, TPLAN, WORK)
r.run("CORS for --cors-origin only", test_cors, TPLAN, WORK)
r.finish()
