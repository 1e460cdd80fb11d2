"""examples/push_box/controller.py as a test: the receding-horizon controller gets
the box into the circle although it is kicked twice; re-roots keep their subtree when nothing
disturbed the world and restart when the box was kicked; the run is the same every time
(iteration budgets)."""

import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CONTROLLER = os.path.join(ROOT, "examples", "push_box", "controller.py")


def _run(*args):
    return subprocess.run([sys.executable, CONTROLLER, *args], capture_output=True, text=True, env=os.environ)


def test_controller_pushes_the_box_in():
    a = _run()
    assert a.returncode == 0, a.stdout + a.stderr
    assert "the box is in the circle" in a.stdout
    kicked = [line for line in a.stdout.splitlines() if "the box was kicked" in line]
    assert len(kicked) == 2 and all("restarted" in line for line in kicked)
    assert sum("kept" in line for line in a.stdout.splitlines()) > 10
    assert _run().stdout == a.stdout  # deterministic under iteration budgets


def test_controller_under_a_wall_clock_budget():
    r = _run("--budget", "0.02", "--cycles", "3")
    assert "cycle  3:" in r.stdout, r.stdout + r.stderr
