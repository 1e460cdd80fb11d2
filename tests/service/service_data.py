"""tplan serve: the data kept tidy and the documented API. Cancelled and failed jobs leave no files
(repro cancelled_jobs_leave_files.py), DELETE of a finished job, name and tags with the list
filters, a script job's text, gzip, Range, HEAD and ETags on files, CORS for --cors-origin only;
every response checked against the OpenAPI document. (Retention: service_retention.py.)
usage: service_data.py TPLAN WORKDIR"""
import gzip
import os
import sys

from tplan_service import Runner, Server, fresh_dir, openapi_check, LONG

TPLAN, WORK = sys.argv[1], fresh_dir(sys.argv[2])


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
    # what a failed script printed stays readable: its log is not a partial file
    said = s.wait_final(s.submit({"script": "print('before the error')\nerror('boom')"}))
    assert said["status"] == "failed" and os.listdir(job_dir(s, said["id"])) == ["log.txt"], said
    st, _, text = s.request("GET", "/v1/jobs/%d/log" % said["id"])
    assert st == 200 and b"before the error" in text, (st, text)


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
    # the service gzips at level 1: minigolf seed 5's plan packs to 0.32 of its size before
    # sleeping (the speed budget) and 0.34 after (another plan, 766 steps instead of 906)
    assert len(packed) < 0.4 * len(plain), (len(packed), len(plain))
    st, hd, tree = s.request("GET", "/v1/jobs/%d/tree" % final["id"], headers={"Accept-Encoding": "gzip"})
    full_tree = s.request("GET", "/v1/jobs/%d/tree" % final["id"])[2]
    assert st == 200 and gzip.decompress(tree) == full_tree
    st, hd, part = s.request("GET", path, headers={"Range": "bytes=10-19"})
    assert st == 206 and part == plain[10:20] and hd["content-range"] == "bytes 10-19/%d" % len(plain), hd
    st, hd, part = s.request("GET", path, headers={"Range": "bytes=-7"})
    assert st == 206 and part == plain[-7:], part
    for bad in ("bytes=--1", "bytes=0--5", "bytes=-+3"):  # not a range (was 206 with the whole file): ignored
        st, hd, whole = s.request("GET", path, headers={"Range": bad})
        assert st == 200 and "content-range" not in hd and whole == plain, (bad, st, hd.get("content-range"))
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
    r.stop_server(srv)
r.run("CORS for --cors-origin only", test_cors, TPLAN, WORK)
r.finish()
