"""A job whose worker stops answering is killed at its hard deadline (its time limit + 10 s + 10 %),
and the message says how long it ran and by how much it overran the limit it was given (issue 40:
it said "10 s past" whatever the overrun). The worker is SIGSTOPped: it uses no CPU and cannot
stop itself, as a worker stuck in a C call. About 11 s: the job's limit is 1 s.
usage: service_hard_deadline.py TPLAN WORKDIR"""
import os
import re
import signal
import sys

from tplan_service import Runner, Server, fresh_dir

TPLAN, WORK = sys.argv[1], fresh_dir(sys.argv[2])


def test_hard_deadline_message(tplan, work):
    s = Server(tplan, os.path.join(work, "hd"), "--interactive-workers", "0", workers=1).start()
    try:
        job = s.submit({"domain": "dice", "time_limit": 1, "max_iters": 1000000000})
        s.wait_status(job, ("running",))
        pids = s.workers_pids()
        assert len(pids) == 1, pids
        os.kill(pids[0], signal.SIGSTOP)
        final = s.wait_final(job)
        assert final["error"]["code"] == "time_limit", final
        msg = final["error"]["message"]
        m = re.fullmatch(r"the job ran (\d+) s, (\d+) s past its time limit of 1 s, and was stopped", msg)
        assert m, msg
        ran, past = int(m.group(1)), int(m.group(2))
        # the kill comes at 1 + 10 + 0.1 s at the earliest: it ran at least that, and the overrun is
        # what it ran less the limit (each rounded to the second)
        assert ran >= 11 and abs((ran - past) - 1) <= 1, msg
    finally:
        assert s.stop() == 0


r = Runner()
r.run("hard deadline message", test_hard_deadline_message, TPLAN, WORK)
r.finish()
