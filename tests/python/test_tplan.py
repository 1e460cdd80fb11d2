"""The Python binding over libtplan (python/tplan, docs/python.md): shapes, Sim reproducing a plan
bit for bit, states, errors naming the field, cancel from another thread, the ctypes layout."""

import ctypes
import json
import os
import re
import signal
import subprocess
import sys
import threading

import numpy as np
import pytest

import tplan
from tplan import _lib

HERE = os.path.dirname(os.path.abspath(__file__))
PYPROJECT = os.path.join(HERE, "..", "..", "python", "pyproject.toml")


def test_version_and_library():
    assert tplan.version() == os.environ["TPLAN_PROJECT_VERSION"]
    assert tplan.version_number() // 10000 == _lib.MAJOR
    assert tplan.__version__ == tplan.version()
    m = re.search(r'^version = "([^"]+)"', open(PYPROJECT).read(), re.M)
    assert m and m.group(1) == tplan.version()
    # loaded as CDLL, not PyDLL: ctypes releases the GIL around every call (the cancel test below
    # runs Python meanwhile, but the progress callbacks would give it turns under PyDLL too)
    assert not _lib.lib._func_flags_ & ctypes._FUNCFLAG_PYTHONAPI
    assert not _lib.lib.tplan_plan_progress._flags_ & ctypes._FUNCFLAG_PYTHONAPI
    # TPLAN_LIBRARY chose the library
    assert _lib.found_by == "TPLAN_LIBRARY"
    assert tplan.library_path() == os.path.realpath(os.environ["TPLAN_LIBRARY"])


def test_layout():
    """Every ctypes mirror has the header's offsets and sizes (tests/python/layout.c)."""
    want = json.loads(subprocess.run([os.environ["TPLAN_LAYOUT"]], check=True, capture_output=True).stdout)
    mirrors = {"tplan_error": _lib.Error, "tplan_param": _lib.Param, "tplan_run_def": _lib.RunDef,
               "tplan_progress": _lib.Progress, "tplan_simulate_def": _lib.SimulateDef}
    assert set(want) == set(mirrors)
    for cname, cls in mirrors.items():
        assert ctypes.sizeof(cls) == want[cname]["sizeof"], cname
        names = [f[0] for f in cls._fields_]
        assert names == list(want[cname]["fields"]), cname
        for name, (off, size) in want[cname]["fields"].items():
            f = getattr(cls, name)
            assert (f.offset, f.size) == (off, size), (cname, name)


def test_error_codes():
    """Every tplan.Error subclass carries the library's number for its code's name."""
    classes = [tplan.ArgumentError, tplan.OutOfMemoryError, tplan.FileError, tplan.ScriptError, tplan.LimitError,
               tplan.PlanFileError, tplan.MismatchError, tplan.UnsupportedError, tplan.InternalError]
    assert sorted(c.code for c in classes) == list(range(1, 10))
    for c in classes:
        assert _lib.lib.tplan_code_name(c.code).decode() == c.code_name
        assert issubclass(c, tplan.Error)
    assert issubclass(tplan.ArgumentError, ValueError)


def test_plan_shapes(golf, tmp_path):
    assert golf.name == "minigolf" and golf.control_bodies == ("robot",)
    r = golf.plan(seed=3, max_iters=300)
    assert r.iterations == 300 and not r.cancelled and r.status in ("solved", "approximate")
    n = len(r.body_names)
    assert r.body_names == golf.body_names
    assert r.steps > 0 and r.trajectory.shape == (r.steps + 1, n, 13)
    assert r.controls.shape == (r.steps, 1, 6) and r.controls.dtype == np.float64
    ball = r.states("ball")
    assert ball.shape == (r.steps + 1, 13) and not ball.flags.writeable
    assert np.array_equal(ball, r.trajectory[:, r.body_names.index("ball")])
    assert np.array_equal(r.body_controls("robot"), r.controls[:, 0])
    green = r.states("green")  # static: its pose only
    assert green.shape == (1, 13) and np.array_equal(r.trajectory[:, 0], np.repeat(green, r.steps + 1, axis=0))
    assert r.body_controls("ball") is None
    # the control report: the robot's is the plan's whole, matching plan.json's "control"
    c, total = r.control("robot"), r.control()
    assert c == total and c["impulse"] > 0 and 0 < c["time"] <= r.steps * r.dt + 1e-12
    assert r.control("ball") == {"impulse": 0.0, "angular_impulse": 0.0, "work": 0.0, "time": 0.0}
    assert json.loads(r.plan_json())["control"]["total"] == total
    # the plan file: the same again for the same seed (apart from stats.timing), and it replays
    plan = r.plan_json()
    a, b = json.loads(plan), json.loads(golf.plan(seed=3, max_iters=300).plan_json())
    assert a["format"] == "tplan-plan" and a["steps"] == r.steps
    del a["stats"]["timing"], b["stats"]["timing"]
    assert a == b
    # ... and the plan `tplan plan` makes (the binding's progress callback changes nothing)
    out = tmp_path / "golf.json"
    subprocess.run([os.environ["TPLAN_PROGRAM"], "plan", golf.path, "--seed", "3", "--max-iters", "300", "-q",
                    "-o", str(out)], check=r.solved)  # exit 3: an approximate plan written
    c = json.loads(out.read_bytes())
    del c["stats"]["timing"]
    assert c == a
    golf.replay(plan)
    # a view outlives its result: it keeps the library's memory alive
    r.close()
    assert ball[0, 0] == r.trajectory[0, r.body_names.index("ball"), 0]


def test_near_miss(golf):
    # 0 is the default (off); a probability re-expands near misses, deterministically per seed
    base = golf.plan(seed=3, max_iters=150)
    off = golf.plan(seed=3, max_iters=150, near_miss=0)
    assert np.array_equal(base.trajectory, off.trajectory)
    a = golf.plan(seed=3, max_iters=150, near_miss=0.5)
    b = golf.plan(seed=3, max_iters=150, near_miss=0.5)
    assert a.iterations == 150 and np.array_equal(a.trajectory, b.trajectory)
    assert np.array_equal(a.controls, b.controls)
    _refused(tplan.ArgumentError, "near_miss", lambda: golf.plan(near_miss=2))
    _refused(tplan.ArgumentError, "near_miss", lambda: golf.plan(near_miss="x"))


def test_simulate_reproduces_the_plan(pool, pool_plan):
    """The plan's controls from its start give its trajectory, rest counts and time bit for bit."""
    r = pool_plan
    assert r.solved and r.controls.shape == (r.steps, 3, 6)
    start = r.state(0)
    end, traj = pool.simulate(start, r.controls, trajectory=True)
    cols = [r.body_names.index(name) for name in start.body_names]
    assert traj.shape == (r.steps + 1, len(start.body_names), 13)
    assert np.array_equal(traj, r.trajectory[:, cols])
    want = r.state(r.steps)
    want.clear_tactics()  # simulating drops the tactics' state (the controls were the caller's)
    assert end.to_json() == want.to_json()
    assert np.array_equal(end.rest, r.state(r.steps).rest)
    # the start is left as it was; 6 * bodies per row is the same controls
    assert start.to_json() == r.state(0).to_json()
    flat = pool.simulate(start, r.controls.reshape(r.steps, 18))
    assert flat.to_json() == end.to_json()
    # stepping in two halves is the same as in one go
    k = r.steps // 2
    mid = pool.simulate(start, r.controls[:k])
    assert pool.simulate(mid, r.controls[k:]).to_json() == end.to_json()
    # no forces
    assert pool.simulate(start, steps=2).time == pytest.approx(2 * r.dt)


def test_driven_motor():
    """A domain with a driven joint motor: its motors, the plan's targets, and the
    targets simulated from the plan's start give its trajectory bit for bit."""
    path = os.path.join(os.environ["TPLAN_DOMAINS"], "..", "tests", "e2e", "scripts", "motor_paddle.lua")
    d = tplan.load(path)
    assert d.motors == (("arm", 1),) and d.control_bodies == ()
    r = d.plan(seed=1)
    assert r.solved and r.motors == d.motors and r.motor_targets.shape == (r.steps, 1)
    end, traj = d.simulate(r.state(0), motor_targets=r.motor_targets, trajectory=True)
    cols = [r.body_names.index(name) for name in r.state(0).body_names]
    assert np.array_equal(traj, r.trajectory[:, cols])
    want = r.state(r.steps)
    want.clear_tactics()  # simulating drops the tactics' state (the controls were the caller's)
    assert end.to_json() == want.to_json()
    with pytest.raises(tplan.Error) as e:
        d.simulate(r.state(0), motor_targets=[[13.0]])  # beyond the paddle's max_speed 12
    assert e.value.field == "motor_targets" and "joint 'arm'" in str(e.value)
    with pytest.raises(tplan.Error) as e:
        d.simulate(r.state(0), motor_targets=[[1.0, 2.0]])
    assert e.value.field == "motor_targets"


def test_state_round_trip(pool, pool_plan):
    s = pool_plan.state(40)
    text = s.to_json()
    back = tplan.State.from_json(pool, text)
    assert back.to_json() == text and back.time == s.time
    assert back.body_names == s.body_names and np.array_equal(back.rows, s.rows)
    assert np.array_equal(back.rest, s.rest)
    assert s.domain == "pool" and json.loads(text)["format"] == tplan.STATE_FORMAT
    cue = s.body("cue")
    assert cue.row.shape == (13,) and np.array_equal(cue.position, s.rows[s.body_names.index("cue"), :3])
    # setting a body and the time; the copy is independent
    c = s.copy()
    row = cue.row.copy()
    row[7:10] = [0.5, -0.25, 0.0]
    c.set_body("cue", row, rest=0)
    c.time = 1.25
    assert np.array_equal(c.body("cue").velocity, [0.5, -0.25, 0.0]) and c.time == 1.25
    assert np.array_equal(s.body("cue").row, cue.row)
    rows = c.rows
    rows[s.body_names.index("cue"), 0] += 0.01
    c.rows = rows
    assert np.array_equal(c.rows, rows)
    # a plan from a state starts there
    again = pool.plan(seed=2, max_iters=50, state=c)
    assert again.state(0).to_json() == c.to_json()


def _refused(exc, field, fn):
    with pytest.raises(exc) as info:
        fn()
    assert info.value.field == field, str(info.value)
    assert field.split(".")[-1] in str(info.value)
    assert "\n" not in str(info.value)
    return info.value


def test_bad_input_names_the_field(golf, pool):
    s = pool.initial_state()
    ghost = np.zeros(13)
    ghost[3] = 1.0
    e = _refused(tplan.ArgumentError, "bodies.ghost", lambda: s.body("ghost"))
    assert e.code == 1 and e.code_name == "TPLAN_ERR_ARGUMENT"
    _refused(tplan.ArgumentError, "bodies.ghost", lambda: s.set_body("ghost", ghost))
    _refused(tplan.ArgumentError, "bodies.ghost",
             lambda: tplan.State.from_json(pool, s.to_json().replace('"cue"', '"ghost"')))
    _refused(tplan.ArgumentError, "bodies.cue.quaternion", lambda: s.set_body("cue", np.zeros(13)))
    _refused(tplan.ArgumentError, "bodies.cue", lambda: s.set_body("cue", np.zeros(12)))
    _refused(tplan.ArgumentError, "time", lambda: setattr(s, "time", -1.0))
    e = _refused(tplan.ScriptError, "params.speed", lambda: tplan.load("pool", params={"speed": 1000}))
    assert e.code == 4 and "pool.lua:" in str(e)
    _refused(tplan.ScriptError, "params.nosuch", lambda: tplan.load("pool", params={"nosuch": 1}))
    _refused(tplan.ArgumentError, "params.speed", lambda: tplan.load("pool", params={"speed": [1]}))
    _refused(tplan.FileError, "domain", lambda: tplan.load("no_such_domain"))
    _refused(tplan.ArgumentError, "seed", lambda: pool.plan(seed=-5))
    _refused(tplan.ArgumentError, "seed", lambda: pool.plan(seed=2**70))
    _refused(tplan.ArgumentError, "max_iters", lambda: pool.plan(max_iters=1.5))
    _refused(tplan.ArgumentError, "planner", lambda: pool.plan(planner="astar"))
    _refused(tplan.ArgumentError, "controls", lambda: pool.simulate(s, np.zeros((3, 2, 6))))
    _refused(tplan.ArgumentError, "controls", lambda: pool.simulate(s, np.full((3, 3, 6), np.nan)))
    _refused(tplan.ArgumentError, "steps", lambda: pool.simulate(s, steps=0))
    _refused(tplan.ArgumentError, "domain", lambda: golf.simulate(s, steps=1))
    _refused(tplan.ArgumentError, "domain", lambda: golf.plan(state=s))
    with pytest.raises(tplan.PlanFileError):
        pool.replay(b"{}")
    # the state refused is left as it was
    assert s.to_json() == pool.initial_state().to_json()


# ends only when stopped (the time and memory limits: guards, should cancel fail)
LONG = dict(seed=1, solutions=1000000, max_iters=10**9, time_limit=60, search_memory_mb=512)


def test_cancel_from_another_thread(golf):
    """A long plan in a thread stops when the main thread sets its cancel event; meanwhile the main
    thread runs Python (the GIL is released inside the library's call). Events only: the waits'
    timeouts are hang guards, not measurements."""
    started, cancel, done = threading.Event(), threading.Event(), threading.Event()
    box = {}

    def run():
        try:
            box["result"] = golf.plan(**LONG, cancel=cancel, progress=lambda p: started.set(),
                                      progress_interval=0.005)
        except BaseException as e:  # noqa: B036 (reported by the main thread)
            box["error"] = e
        finally:
            done.set()

    t = threading.Thread(target=run)
    t.start()
    assert started.wait(120), "no progress report"
    assert not done.is_set()
    other = tplan.load("minigolf")  # work of this thread while the other plans
    other.simulate(other.initial_state(), steps=3)
    assert not done.is_set()
    cancel.set()
    assert done.wait(120), "the plan did not stop"
    t.join()
    assert "error" not in box, box.get("error")
    r = box["result"]
    assert r.cancelled and not r.stopped
    assert 0 < r.iterations < LONG["max_iters"] and r.seconds < LONG["time_limit"]


def test_progress_stops_and_raises(golf):
    seen = []

    def stop_at_second(p):
        seen.append(p)
        return len(seen) == 2

    r = golf.plan(**LONG, progress=stop_at_second, progress_interval=0.002)
    assert r.stopped and not r.cancelled and len(seen) == 2
    assert seen[1].iterations >= seen[0].iterations > 0 and r.iterations >= seen[1].iterations

    def fail(p):
        raise RuntimeError("from the callback")

    with pytest.raises(RuntimeError, match="from the callback"):
        golf.plan(**LONG, progress=fail, progress_interval=0.002)

    # a callback must not use its own domain (the library forbids it): an error, not a deadlock
    with pytest.raises(tplan.Error, match="in use by this thread's call") as info:
        golf.plan(**LONG, progress=lambda p: golf.simulate(golf.initial_state(), steps=1), progress_interval=0.002)
    assert info.value.field == "domain"


def test_output_callback():
    """The script's print() reaches output(kind, text), never stdout."""
    got = []
    script = open(os.path.join(os.environ["TPLAN_DOMAINS"], "minigolf.lua")).read()
    d = tplan.load_string("golf.lua", 'print("hello", 42)\n' + script, output=lambda k, t: got.append((k, t)))
    assert got == [("print", "hello\t42\n")]
    assert d.name == "minigolf"


def test_finding_the_library_and_domains(monkeypatch, tmp_path):
    """Without TPLAN_LIBRARY the package in the source tree takes the tree's build/libtplan.so.0
    (when there is one), and a TPLAN_LIBRARY that does not load fails the import naming it; a
    domain's name is found in the source tree's domains/ without TPLAN_DOMAINS."""
    env = {k: v for k, v in os.environ.items() if k != "TPLAN_LIBRARY"}
    code = "import tplan, tplan._lib as L; print(L.found_by, tplan.library_path())"
    tree_lib = os.path.join(HERE, "..", "..", "build", _lib.SONAME)
    p = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    if os.path.isfile(tree_lib):
        assert p.returncode == 0, p.stderr
        assert p.stdout.split() == ["tree", os.path.realpath(tree_lib)]
    env["TPLAN_LIBRARY"] = str(tmp_path / "libnothing.so")
    p = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert p.returncode != 0 and "ImportError" in p.stderr and "libnothing.so (TPLAN_LIBRARY)" in p.stderr
    monkeypatch.delenv("TPLAN_DOMAINS")
    d = tplan.load("minigolf")
    assert os.path.samefile(d.path, os.path.join(HERE, "..", "..", "domains", "minigolf.lua"))


def test_ctrl_c_stops_a_plan(golf):
    """SIGINT while the main thread plans: raised in the next progress callback, which stops the
    search; plan() raises the KeyboardInterrupt once the library has returned."""
    sent = []

    def interrupt(p):
        if not sent:
            sent.append(p)
            os.kill(os.getpid(), signal.SIGINT)

    with pytest.raises(KeyboardInterrupt):
        golf.plan(**LONG, progress=interrupt, progress_interval=0.002)
    assert sent


def test_one_domain_from_two_threads(pool, pool_plan):
    """Two threads stepping the same domain at once take turns (its lock: the library's handles
    are for one thread at a time) and get what one thread gets."""
    start, controls = pool_plan.state(0), pool_plan.controls
    want = pool.simulate(start, controls).to_json()
    got = [[], []]

    def run(i):
        for _ in range(5):
            got[i].append(pool.simulate(start, controls).to_json())

    threads = [threading.Thread(target=run, args=(i,)) for i in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert got == [[want] * 5, [want] * 5]


def test_state_tactics_and_memory():
    """The embedding audit: a state from a plan step holds the tactics' state and the temporal memory; a plan
    from pool_kick's state after the cushion goes on with the same shot (no second cushion)."""
    kick = tplan.load("pool_kick")
    r = kick.plan(seed=1)
    s = r.state(30)
    assert s.memory == (1, 0, 1)  # the sequence's cushion, the never, the ever
    t = s.tactics["cue_ball"]
    assert t.skill == 0 and t.busy and t.started and len(t.vars) >= 1
    text = s.to_json()
    assert json.loads(text)["version"] == tplan.STATE_VERSION == 2
    back = tplan.State.from_json(kick, text)
    assert back.to_json() == text and back.memory == s.memory
    r2 = kick.plan(seed=1, state=s)
    assert r2.status == "solved" and r2.steps == r.steps - 30
    assert np.array_equal(r2.trajectory, r.trajectory[30:])
    assert r2.state(0).memory == (1, 0, 1)
    # from the plan's bytes: the memory; with tactics=True the tactics too (its search made again)
    assert kick.state_from_plan(r.plan_json(), step=30).tactics == {}
    assert kick.state_from_plan(r.plan_json(), step=30, tactics=True).to_json() == text
    # setting them: checked where they can be, the rest where the state is used
    c = s.copy()
    c.set_tactic("cue_ball", 0, False, True, t.vars)
    assert not c.tactics["cue_ball"].busy and s.tactics["cue_ball"].busy
    c.memory = None
    assert c.memory is None
    c.memory = [1, 0, 1]
    c.clear_tactics()
    assert c.tactics == {} and c.memory == (1, 0, 1)
    _refused(tplan.ArgumentError, "memory[1]", lambda: setattr(c, "memory", [0, -1, 0]))
    bad = s.copy()
    bad.set_tactic("cue_ball", 5, True, True, t.vars)
    _refused(tplan.ArgumentError, "tactics.cue_ball.skill", lambda: kick.plan(seed=1, max_iters=5, state=bad))
