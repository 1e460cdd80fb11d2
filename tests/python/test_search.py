"""The anytime search from Python (tplan.Search over tplan_search; docs/python.md): iteration budgets
split any way give Domain.plan's plan; re-root keeps a subtree or restarts; cancel from another
thread; bad input names the field. No assertion on a duration."""

import threading

import numpy as np
import pytest

import tplan


def _text(result):
    """The plan file's bytes without the timing block (the only wall-clock numbers)."""
    b = result.plan_json()
    return b[: b.index(b'"timing"')]


def test_iterations_split_equal_plan(pool):
    plan = pool.plan(seed=1, max_iters=150, time_limit=0)
    s = tplan.Search(pool, seed=1, max_iters=150)
    r = None
    for n in (1, 49, 100, 10**6):
        if s.done:
            break
        r = s.run(iterations=n)
    assert r is s.best()
    assert _text(r) == _text(plan)
    assert r.iterations == plan.iterations


def test_wall_clock_run_gives_a_plan(pool):
    s = tplan.Search(pool, seed=2)
    r = s.run(0.005)
    assert r.status in ("solved", "approximate")
    assert r.states("cue").shape == (r.steps + 1, 13)
    r2 = s.run(0.005)
    assert r2.iterations >= r.iterations
    assert r.states("cue").shape == (r.steps + 1, 13)  # the earlier Result stays readable


def test_reroot_keeps_or_restarts(pool):
    def story(disturb):
        s = tplan.Search(pool, seed=1)
        best = s.run(iterations=30)
        x = best.state(5)
        if disturb:
            b = x.body("cue")
            row = b.row.copy()
            row[0] += 1e-3
            x.set_body("cue", row, 0)
        kept = s.reroot(x)
        assert np.array_equal(s.best().states("cue")[0], x.body("cue").row)
        r = s.run(iterations=200)
        pool.replay(r.plan_json())  # a plan of a re-rooted search replays from its start
        return kept, _text(r)

    k1, a = story(False)
    k2, b = story(False)
    assert k1 > 1 and k1 == k2 and a == b
    k3, c = story(True)
    k4, d = story(True)
    assert k3 == 0 and k4 == 0 and c == d


ENDLESS = """local tp = require 'tp'
return tp.domain {
  name = 'endless', dt = 1/60,
  bodies = { tp.plane { name = 'floor' },
    tp.sphere { name = 'ball', class = 'active', radius = 0.05, mass = 0.2, pos = {0, 0, 0.05}, max_force = 50 } },
  tactics = { tp.tactic { name = 'push', body = 'ball', skills = {
    tp.skill.impulse { name = 'roll', speed = tp.uniform(0.5, 3), direction = tp.angle(-0.4, 0.4) } } } },
  goal = tp.inside { body = 'ball', min = {300, -0.5}, max = {500, 0.5} },
  planner = { max_iters = 1000000000 },
}
"""


def test_cancel_from_another_thread():
    d = tplan.load_string("endless.lua", ENDLESS)
    s = tplan.Search(d)
    out = {}
    started = threading.Event()

    def run():
        started.set()
        out["r"] = s.run(1e6)  # only the cancel ends it

    t = threading.Thread(target=run)
    t.start()
    started.wait()
    while t.is_alive():  # until the run returns: no sleep, no timing
        s.cancel()
        t.join(0.01)
    assert out["r"].status == "approximate"
    assert not s.done


def test_bad_input_names_the_field(pool):
    s = tplan.Search(pool)
    for bad in (0, -1, float("nan"), float("inf")):
        with pytest.raises(tplan.ArgumentError) as e:
            s.run(bad)
        assert e.value.field == "budget"
    with pytest.raises(tplan.ArgumentError) as e:
        s.run(iterations=0)
    assert e.value.field == "iterations"
    with pytest.raises(tplan.ArgumentError) as e:
        s.run()
    assert e.value.field == "budget"
    with pytest.raises(tplan.ArgumentError) as e:
        s.reroot(pool.initial_state(), tolerance=-1)
    assert e.value.field == "tolerance"
    golf = tplan.load("minigolf")
    with pytest.raises(tplan.ArgumentError) as e:
        s.reroot(golf.initial_state())
    assert e.value.field == "domain"
    with pytest.raises(tplan.ArgumentError) as e:
        tplan.Search(pool, state=golf.initial_state())
    assert e.value.field == "domain"
    with pytest.raises(tplan.ArgumentError) as e:
        pool.initial_state().time = -1
    assert e.value.field == "time"
    assert s.run(iterations=5).iterations == 5  # still usable
