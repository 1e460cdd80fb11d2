"""tplan serve: keeping the data tidy. Queued scripts wait on disk and not in the server's memory
(repro store_no_retention_queue_memory.py: 400 of them held 455 MB), and the retention policy:
the count bound while running and at start, folders of no job removed at start, the size bound
(the newest job always kept) and the age bound. Every wait is for an event (a job's end, a
restart, what the next retention pass did), never for a fixed time.
usage: service_retention.py TPLAN WORKDIR"""
import os
import subprocess
import sys
import time

from tplan_service import Runner, Server, fresh_dir, LONG

TPLAN, WORK = sys.argv[1], fresh_dir(sys.argv[2])
SANITIZED = b"libasan" in subprocess.run(["ldd", TPLAN], capture_output=True).stdout


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


def poll_until(pred, what, bound=60.0):
    """Waits for the server's next retention pass to have done its work: pred() polled until it
    holds. A pass comes at most SVC_RETENTION_EVERY (10 s) after the last one, or within a second
    of a job's end: the bound is only against a server that never makes one."""
    end = time.monotonic() + bound
    while True:
        got = pred()
        if got[0]:
            return got
        assert time.monotonic() < end, "no retention pass in %.0f s: %s (%s)" % (bound, what, got[1])
        time.sleep(0.05)


def test_retention(tplan, work):
    data = os.path.join(work, "keep")
    s = Server(tplan, data, "--keep-jobs", "3", workers=1).start()
    try:
        ids = [s.wait_final(s.submit({"domain": "minigolf", "seed": i}))["id"] for i in range(1, 6)]

        # the next pass deletes the oldest beyond 3, files too (once the jobs are fast, a loop that
        # submitted jobs until a pass had run outran the passes, at most one a second)
        def listed():
            _, _, page = s.json("GET", "/v1/jobs", expect=200)
            kept = [j["id"] for j in page["jobs"]]
            return len(kept) <= 3, kept
        _, kept = poll_until(listed, "--keep-jobs 3")
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


def test_retention_size_age(tplan, work):
    """--keep-mb: once the newest jobs' files add up to it, every older job goes (the newest always
    stays); --keep-days: a job finished longer ago goes (checked at a restart: no waiting)."""
    data = os.path.join(work, "keepmb")
    s = Server(tplan, data, "--keep-mb", "1", workers=1).start()
    try:
        # a minigolf plan with its tree is ~2.6 MB of files: more than the bound by itself
        ids = [s.wait_final(s.submit({"domain": "minigolf", "seed": i, "tree": True}))["id"] for i in range(1, 5)]

        def size(path):
            return sum(os.path.getsize(os.path.join(r, f)) for r, _, fs in os.walk(path) for f in fs)

        def holds():
            """the policy holds: within 1 MB, but for the newest job, which stays however large"""
            _, _, page = s.json("GET", "/v1/jobs", expect=200)
            kept = [j["id"] for j in page["jobs"]]
            used = size(os.path.join(data, "jobs"))
            return ids[0] not in kept and used <= max(1 << 20, size(os.path.join(data, "jobs", str(max(kept))))), kept
        last = ids[-1]
        ok, kept = poll_until(holds, "--keep-mb 1")
        assert ok and max(kept) == last and len(kept) < len(ids), (ids, last, kept)
    finally:
        assert s.stop() == 0
    s = Server(tplan, data, "--keep-days", "1e-9", workers=1).start()  # 86 microseconds
    try:
        _, _, page = s.json("GET", "/v1/jobs", expect=200)
        assert page["jobs"] == [], page["jobs"]
        assert os.listdir(os.path.join(data, "jobs")) == []
    finally:
        assert s.stop() == 0


r = Runner()
r.run("queued scripts wait on disk", test_queued_scripts_on_disk, TPLAN, WORK)
r.run("retention: count, at start, orphans", test_retention, TPLAN, WORK)
r.run("retention: size and age", test_retention_size_age, TPLAN, WORK)
r.finish()
