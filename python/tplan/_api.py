"""Domains, plans, states and stepping over libtplan (tplan/tplan.h; docs/python.md)."""

import ctypes as C
import json
import os
import threading

import numpy as np

from . import _lib as L
from ._errors import ArgumentError, Error, FileError, from_code

_c = L.lib

OUTPUT_KINDS = {0: "print", 1: "info", 2: "warning", 3: "error"}
_PLANNERS = {None: 0, "domain": 0, "rrt": 1, "bgt": 2}
_INT = {"int": (-(2**31), 2**31 - 1), "int64": (-(2**63), 2**63 - 1)}


def _fail(err):
    """The exception for a failing call's tplan_error."""
    return from_code(
        err.code, err.message.decode("utf-8", "replace"), err.field.decode("utf-8", "replace")
    )


def _bad(field, what):
    return ArgumentError("%s: %s" % (field, what), field)


def _text(field, v):
    if isinstance(v, bytes):
        return v
    if isinstance(v, str):
        return v.encode("utf-8")
    raise _bad(field, "expected a string, got %s" % type(v).__name__)


def _number(field, v):
    if isinstance(v, bool) or not isinstance(v, (int, float, np.integer, np.floating)):
        raise _bad(field, "expected a number, got %s" % type(v).__name__)
    return float(v)


def _integer(field, v, kind="int64"):
    if isinstance(v, bool) or not isinstance(v, (int, np.integer)):
        raise _bad(field, "expected an integer, got %s" % type(v).__name__)
    lo, hi = _INT[kind]
    if not lo <= int(v) <= hi:
        raise _bad(field, "%d is out of range" % v)
    return int(v)


class _Owned:
    """A library handle and its free function; freed when the last holder (the Python object,
    a numpy view of its memory) lets go. keep: what must outlive the handle (callbacks)."""

    __slots__ = ("ptr", "free", "keep")

    def __init__(self, ptr, free, keep=None):
        self.ptr, self.free, self.keep = ptr, free, keep

    def __del__(self):
        if self.ptr and self.free:
            self.free(self.ptr)
            self.ptr = None


class _Output:
    """The host's output callback (kind, text): exceptions it raises are kept and re-raised
    when the call that produced the output returns."""

    def __init__(self, fn):
        if not callable(fn):
            raise _bad("output", "expected a callable (kind, text)")
        self.fn, self.error = fn, None
        self.c = L.OUTPUT_FN(self._call)

    def _call(self, user, kind, text, n):
        try:
            self.fn(OUTPUT_KINDS.get(kind, kind), C.string_at(text, n).decode("utf-8", "replace"))
        except BaseException as e:  # noqa: B036 (re-raised after the call)
            if self.error is None:
                self.error = e

    def reraise(self):
        if self.error is not None:
            e, self.error = self.error, None
            raise e


def _reraise(*outputs):
    for o in outputs:
        if o is not None:
            o.reraise()


def _run_def(**kw):
    """A tplan_run_def: the defaults (tplan_run_def_init), then the keywords given (None: the
    domain's). Python types are checked here (ctypes would truncate); ranges by the library."""
    d = L.RunDef()
    _c.tplan_run_def_init_(C.byref(d), C.sizeof(d))
    planner = kw.pop("planner", None)
    if planner not in _PLANNERS:
        raise _bad("planner", "expected 'rrt', 'bgt' or None (the domain's), got %r" % (planner,))
    d.planner = _PLANNERS[planner]
    for name, v in kw.items():
        if v is None:
            continue
        if name in ("mu", "time_limit", "load_time_limit", "call_time_limit", "near_miss"):
            setattr(d, name, _number(name, v))
        elif name == "memory_mb":
            d.memory_limit_mb = _integer(name, v)
        elif name in ("seed", "max_iters", "search_memory_mb"):
            setattr(d, name, _integer(name, v))
        elif name in ("solutions", "jobs"):
            setattr(d, name, _integer(name, v, "int"))
        elif name == "nn_index":
            if not isinstance(v, bool):
                raise _bad(name, "expected True or False")
            d.nn_index = int(v)
        else:
            raise TypeError("unknown keyword %r" % name)
    return d


# ---------------------------------------------------------------------------------------------
# Domains


def domain_dirs():
    """Where load() looks for a domain given by name: $TPLAN_DOMAINS, the installed library's
    PREFIX/share/tplan/domains, the source tree's domains/ when this package is in one."""
    dirs = []
    if os.environ.get("TPLAN_DOMAINS"):
        dirs.append(os.environ["TPLAN_DOMAINS"])
    libpath = L.library_path()
    if libpath:
        up = os.path.dirname(libpath)
        for prefix in (os.path.dirname(up), os.path.dirname(os.path.dirname(up))):
            dirs.append(os.path.join(prefix, "share", "tplan", "domains"))
    tree = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    if os.path.isfile(os.path.join(tree, "api", "include", "tplan", "tplan.h")):
        dirs.append(os.path.join(tree, "domains"))
    return [d for d in dirs if os.path.isdir(d)]


def _resolve(domain):
    try:
        path = os.fsdecode(os.fspath(domain))
    except TypeError:
        raise _bad("domain", "expected a path or a domain's name, got %s" % type(domain).__name__) from None
    if os.path.isfile(path) or "/" in path:
        return path  # a missing path: the library's own message
    name = path if path.endswith(".lua") else path + ".lua"
    dirs = domain_dirs()
    for d in dirs:
        if os.path.isfile(os.path.join(d, name)):
            return os.path.join(d, name)
    raise FileError(
        "domain: %s: no such file, nor a domain %s in %s"
        % (path, name, ", ".join(dirs) or "any domain folder (set TPLAN_DOMAINS)"),
        "domain",
    )


def _params(params):
    if params is None:
        return None, 0
    if not isinstance(params, dict):
        raise _bad("params", "expected a dict of name -> value")
    arr = (L.Param * max(1, len(params)))()
    for i, (k, v) in enumerate(params.items()):
        if not isinstance(k, str):
            raise _bad("params", "names must be strings, got %r" % (k,))
        field = "params." + k
        if isinstance(v, bool):
            v = "true" if v else "false"
        elif isinstance(v, (int, np.integer)):
            v = str(int(v))
        elif isinstance(v, (float, np.floating)):
            v = repr(float(v))
        elif not isinstance(v, str):
            raise _bad(field, "expected a string, number or boolean, got %s" % type(v).__name__)
        if "\0" in k or "\0" in v:
            raise _bad(field, "a NUL character")
        arr[i].name, arr[i].value = k.encode("utf-8"), v.encode("utf-8")
    return arr, len(params)


def _param_field(message, params):
    """"params.NAME" when a failed load's message is about the parameter NAME given (the library
    names a parameter in the message only: "set speed=1000: expected ...", "unknown parameter
    'nosuch' (...)", "set speed given more than once"; older builds said "--set ..."),
    else ""."""
    for name in params:
        if (
            (": set %s=" % name) in message
            or ("--set %s=" % name) in message
            or ("unknown parameter '%s'" % name) in message
            or (" set %s given" % name) in message
        ):
            return "params." + name
    return ""


def load(domain, params=None, *, output=None, memory_mb=None, load_time_limit=None, call_time_limit=None):
    """Loads a domain script: a path, or a shipped domain's name ("minigolf", "pool.lua"), with
    tp.param parameters (name -> str, number or bool) and the script's limits. output(kind,
    text) receives the script's print() and the library's messages ("print", "info",
    "warning", "error"); without it they are dropped."""
    path = _resolve(domain)
    return _load(path.encode("utf-8"), None, params, output, memory_mb, load_time_limit, call_time_limit, path)


def load_string(name, source, params=None, *, output=None, memory_mb=None, load_time_limit=None,
                call_time_limit=None):
    """The same from a script's text; name stands for the file in messages ("game.lua"). Such a
    script has no folder: it can require only "tp"."""
    src = _text("source", source)
    return _load(_text("name", name), src, params, output, memory_mb, load_time_limit, call_time_limit, None)


def _load(name, source, params, output, memory_mb, load_time_limit, call_time_limit, path):
    arr, n = _params(params)
    out = _Output(output) if output is not None else None
    d = _run_def(memory_mb=memory_mb, load_time_limit=load_time_limit, call_time_limit=call_time_limit)
    if out is not None:
        d.output = out.c
    err = L.Error()
    if source is None:
        h = _c.tplan_domain_load_file(name, arr, n, C.byref(d), C.byref(err))
    else:
        h = _c.tplan_domain_load_string(name, source, len(source), arr, n, C.byref(d), C.byref(err))
    if not h:
        _reraise(out)
        e = _fail(err)
        if not e.field and params:
            e.field = _param_field(e.message, params)
        raise e
    dom = Domain(_Owned(h, _c.tplan_domain_free, out), path, out)
    _reraise(out)
    return dom


class _Handle:
    """close() and `with` for an object over a library handle (_own, an _Owned)."""

    _kind = "handle"

    def close(self):
        """Lets go of the library's handle: freed now, or once the last array view of its memory
        or the call that uses it is done."""
        self._own = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def _owned(self):
        """The handle, kept by the caller's local for the call (a close() meanwhile frees nothing)."""
        own = self._own
        if own is None:
            raise _bad(self._kind, "the %s was closed" % self._kind)
        return own


def _floats(field, value):
    """value as a contiguous float64 array; a TplanError naming field when it is not numbers."""
    try:
        return np.ascontiguousarray(value, dtype=np.float64)
    except (TypeError, ValueError) as e:
        raise _bad(field, "not an array of numbers (%s)" % e) from None


class Domain(_Handle):
    """A loaded domain script: the model (MuJoCo's mjModel). One thread at a time uses it: a
    second thread's call waits for the first's to return (the library's rule, kept by a lock)."""

    _kind = "domain"

    def __init__(self, owned, path, output):
        self._own, self._out = owned, output
        self._lock = threading.Lock()
        self._holder = None
        h = owned.ptr
        self.path = path
        self.name = _c.tplan_domain_name(h).decode("utf-8")
        self.body_names = tuple(
            _c.tplan_domain_body_name(h, i).decode("utf-8") for i in range(_c.tplan_domain_body_count(h))
        )
        self.control_bodies = tuple(
            self.body_names[_c.tplan_domain_control_body(h, k)] for k in range(_c.tplan_domain_control_count(h))
        )
        axis = C.c_int()
        # the driven joint motors (motor = { driven = true }): (joint, axis 1 or 2), in the order of a
        # row of motor_targets
        self.motors = tuple(
            (_c.tplan_domain_motor_joint(h, m, C.byref(axis)).decode("utf-8"), axis.value)
            for m in range(_c.tplan_domain_motor_count(h))
        )
        self.params = json.loads(_c.tplan_domain_params_json(h).decode("utf-8"))
        self.warnings = tuple(
            _c.tplan_domain_warning(h, i).decode("utf-8") for i in range(_c.tplan_domain_warning_count(h))
        )

    def __repr__(self):
        return "<tplan.Domain %r: %d bodies, %d controlled>" % (self.name, len(self.body_names),
                                                                 len(self.control_bodies))

    class _Use:
        def __init__(self, dom):
            self.dom = dom

        def __enter__(self):
            dom = self.dom
            if dom._holder == threading.get_ident():
                raise Error(
                    "domain: %r is in use by this thread's call (a callback must not use its domain)" % dom.name,
                    "domain",
                    code=1,
                )
            dom._lock.acquire()  # releases the GIL while it waits
            dom._holder = threading.get_ident()
            self.own = dom._own  # kept until the call returns, whoever closes the domain meanwhile
            if self.own is None:
                self.__exit__()
                raise _bad("domain", "the domain was closed")
            return self.own.ptr

        def __exit__(self, *exc):
            self.own = None
            self.dom._holder = None
            self.dom._lock.release()

    def _use(self):
        return Domain._Use(self)


    def plan(self, *, seed=None, max_iters=None, time_limit=None, planner=None, mu=None, solutions=None,
             nn_index=None, search_memory_mb=None, call_time_limit=None, near_miss=None, state=None,
             output=None, progress=None, cancel=None, progress_interval=0.05):
        """Plans the domain (tplan_plan_progress); every limit None is the domain's own.

        state: plan from this State instead of the initial one. time_limit: s of search (0:
        none). cancel: an object with is_set() (threading.Event) that another thread sets to
        stop the search; progress(Progress) is called every progress_interval s and stops the
        search by returning True. A stopped search returns its best plan so far (Result.cancelled
        or .stopped tells). The GIL is released while the library plans."""
        d = _run_def(seed=seed, max_iters=max_iters, time_limit=time_limit, planner=planner, mu=mu,
                     solutions=solutions, nn_index=nn_index, search_memory_mb=search_memory_mb,
                     call_time_limit=call_time_limit, near_miss=near_miss)
        if state is not None:
            if not isinstance(state, State):
                raise _bad("state", "expected a tplan.State, got %s" % type(state).__name__)
            d.start = state._own.ptr
        out = _Output(output) if output is not None else None
        if out is not None:
            d.output = out.c
        interval = _number("progress_interval", progress_interval)
        if not 0 < interval < 1e9:
            raise _bad("progress_interval", "expected seconds > 0")
        watch = _Watch(progress, cancel)
        err = L.Error()
        with self._use() as h:
            r = _c.tplan_plan_progress(h, C.byref(d), watch.c, None, interval, C.byref(err))
        if watch.error is not None:
            if r:
                _c.tplan_result_free(r)
            raise watch.error
        if not r:
            _reraise(out, self._out)
            raise _fail(err)
        res = Result(_Owned(r, _c.tplan_result_free), self, watch.cancelled, watch.stopped)
        _reraise(out, self._out)
        return res

    def initial_state(self):
        """The domain's initial state (time 0, rest counts 0)."""
        err = L.Error()
        own = self._owned()
        s = _c.tplan_state_new(own.ptr, C.byref(err))
        if not s:
            raise _fail(err)
        return State(_Owned(s, _c.tplan_state_free))

    def state_from_plan(self, plan, world=0, step=0, tactics=False):
        """The state at step of world (0: the plan's solution, k: its alternative k) of a plan
        file's bytes, by replaying it bit for bit up to there. tactics=True adds the tactics' state
        by making the plan's search again (a planning run's time; MismatchError when it differs)."""
        b = _text("plan", plan)
        w, s = _integer("world", world, "int"), _integer("step", step, "int")
        err = L.Error()
        fn = _c.tplan_state_from_plan_tactics if tactics else _c.tplan_state_from_plan
        with self._use() as h:
            p = fn(h, b, len(b), w, s, C.byref(err))
        _reraise(self._out)
        if not p:
            raise _fail(err)
        return State(_Owned(p, _c.tplan_state_free))

    def simulate(self, state, controls=None, *, steps=None, trajectory=False, motor_targets=None):
        """Steps a copy of state with exactly the planner's Sim and returns it (state is left as
        it was). controls: steps x controlled bodies x 6 (force N, torque N·m, world frame; the
        bodies of control_bodies, in that order), or steps x (6 * controlled bodies); None: no
        forces for `steps` steps. motor_targets: steps x driven motors (motors, in that order)
        target speeds, rad/s or m/s; None: each motor at its declared speed. trajectory=True
        returns (State, array (steps + 1) x the state's bodies x 13), the start first."""
        if not isinstance(state, State):
            raise _bad("state", "expected a tplan.State, got %s" % type(state).__name__)
        nc = len(self.control_bodies)
        a = None
        if controls is not None:
            a = _floats("controls", controls)
            if a.ndim == 3 and a.shape[1:] == (nc, 6):
                pass
            elif a.ndim == 2 and a.shape[1] == 6 * nc:
                a = a.reshape(a.shape[0], nc, 6)
            else:
                raise _bad("controls", "expected an array of steps x %d x 6 (the controlled bodies %s), got "
                                       "shape %s" % (nc, ", ".join(self.control_bodies) or "(none)", a.shape))
            if steps is not None and _integer("steps", steps, "int") != a.shape[0]:
                raise _bad("steps", "%d given with %d rows of controls" % (steps, a.shape[0]))
            steps = a.shape[0]
        m = None
        if motor_targets is not None:
            m = _floats("motor_targets", motor_targets)
            nm = len(self.motors)
            if m.ndim != 2 or m.shape[1] != nm or (steps is not None and m.shape[0] != steps):
                raise _bad("motor_targets", "expected an array of steps x %d (the driven motors %s), got shape %s"
                           % (nm, ", ".join(j for j, _ in self.motors) or "(none)", m.shape))
            steps = m.shape[0] if steps is None else steps
        if steps is None:
            raise _bad("steps", "give the controls or the number of steps")
        steps = _integer("steps", steps, "int")
        sd = L.SimulateDef()
        _c.tplan_simulate_def_init_(C.byref(sd), C.sizeof(sd))
        sd.steps = steps
        if a is not None and a.size:
            sd.controls = a.ctypes.data_as(L.DP)
        if m is not None and m.size:
            sd.motor_targets = m.ctypes.data_as(L.DP)
        traj = None
        if trajectory and steps >= 1:
            traj = np.empty((steps + 1, _c.tplan_state_body_count(state._own.ptr), 13))
            sd.trajectory = traj.ctypes.data_as(L.DP)
        out = state.copy()
        err = L.Error()
        with self._use() as h:
            code = _c.tplan_simulate(h, out._own.ptr, C.byref(sd), C.byref(err))
        _reraise(self._out)
        if code != 0:
            raise _fail(err)
        return (out, traj) if trajectory else out

    def replay(self, plan):
        """Re-simulates a plan file's selected solution and checks it bit for bit (and its goal
        when solved): None, or MismatchError naming the step, PlanFileError for other bytes."""
        b = _text("plan", plan)
        err = L.Error()
        with self._use() as h:
            code = _c.tplan_replay(h, b, len(b), C.byref(err))
        _reraise(self._out)
        if code != 0:
            raise _fail(err)


class Search(_Handle):
    """An anytime search (tplan_search, docs/python.md): run it for a budget, read its best plan,
    run it again; re-root it on the state the world is in now (receding horizon).

    Made from a domain (kept alive by the search) with the keywords of Domain.plan (state: plan
    from this State). run(budget) searches for at most budget s of wall clock and returns the best
    plan so far (a Result); run(iterations=n) for n iterations, the deterministic budget. One
    thread at a time runs or re-roots a search (a lock keeps the rule); cancel() may be called
    from any thread, also while another runs it. The GIL is released while the library searches."""

    _kind = "search"

    def __init__(self, domain, *, state=None, seed=None, max_iters=None, planner=None, mu=None, solutions=None,
                 nn_index=None, search_memory_mb=None, call_time_limit=None, near_miss=None, output=None):
        if not isinstance(domain, Domain):
            raise _bad("domain", "expected a tplan.Domain, got %s" % type(domain).__name__)
        d = _run_def(seed=seed, max_iters=max_iters, planner=planner, mu=mu, solutions=solutions,
                     nn_index=nn_index, search_memory_mb=search_memory_mb, call_time_limit=call_time_limit,
                     near_miss=near_miss)
        start = None
        if state is not None:
            if not isinstance(state, State):
                raise _bad("state", "expected a tplan.State, got %s" % type(state).__name__)
            start = state._own.ptr
        self._out = _Output(output) if output is not None else None
        if self._out is not None:
            d.output = self._out.c
        self.domain = domain
        self._lock = threading.Lock()
        self._best = None
        err = L.Error()
        with domain._use() as h:
            p = _c.tplan_search_new(h, C.byref(d), start, C.byref(err))
        _reraise(self._out, domain._out)
        if not p:
            raise _fail(err)
        # the search reads the domain's handle (its script's path, limits, output): it keeps it alive
        self._own = _Owned(p, _c.tplan_search_free, keep=(domain._owned(), self._out))
        self._take()

    def __repr__(self):
        return "<tplan.Search of %r%s>" % (self.domain.name, ", done" if self.done else "")

    def _take(self):
        r = _c.tplan_search_take_best(self._own.ptr)
        if r:
            self._best = Result(_Owned(r, _c.tplan_result_free), self.domain, False, False)
        return self._best

    def run(self, budget=None, *, iterations=None):
        """Searches on for at most budget s of wall clock (the call returns within it), or for
        `iterations` iterations (exactly one of the two), and returns the best plan so far."""
        if (budget is None) == (iterations is None):
            raise _bad("budget", "give a budget in seconds or a number of iterations (one of the two)")
        err = L.Error()
        with self._lock:
            own = self._owned()
            if budget is not None:
                code = _c.tplan_search_run(own.ptr, _number("budget", budget), C.byref(err))
            else:
                code = _c.tplan_search_run_iterations(own.ptr, _integer("iterations", iterations), C.byref(err))
            _reraise(self._out, self.domain._out)
            if code != 0:
                raise _fail(err)
            return self._take()

    def best(self):
        """The best plan at the end of the last run or re-root (the Result run returned)."""
        return self._best

    @property
    def done(self):
        """True when running on changes nothing until a re-root (solved with its solutions, nothing
        left to expand, max_iters or the memory bound reached)."""
        own = self._owned()
        return bool(_c.tplan_search_done(own.ptr))

    def cancel(self):
        """Stops the run going on (it returns its best plan so far), or the next run if none is."""
        own = self._own
        if own is not None:
            _c.tplan_search_cancel(own.ptr)

    def reroot(self, state, tolerance=0.0):
        """The world is now in `state`: keeps the subtree of the node holding that state (within
        tolerance; 0: bit for bit) or restarts from it. Returns the number of nodes kept (0: it
        restarted); the best plan (best()) then starts from the new root."""
        if not isinstance(state, State):
            raise _bad("state", "expected a tplan.State, got %s" % type(state).__name__)
        kept = C.c_int64()
        err = L.Error()
        with self._lock:
            own = self._owned()
            code = _c.tplan_search_reroot(own.ptr, state._own.ptr, _number("tolerance", tolerance), C.byref(kept),
                                          C.byref(err))
            _reraise(self._out, self.domain._out)
            if code != 0:
                raise _fail(err)
            self._take()
        return kept.value


class Progress:
    """What a running plan reports: iterations, nodes, rejected, solutions, elapsed (s)."""

    __slots__ = ("iterations", "nodes", "rejected", "solutions", "elapsed")

    def __init__(self, p):
        for k in self.__slots__:
            setattr(self, k, getattr(p, k))

    def __repr__(self):
        return "Progress(%s)" % ", ".join("%s=%r" % (k, getattr(self, k)) for k in self.__slots__)


class _Watch:
    """The plan's progress callback: stops the search (returns 1) when cancel is set, when the
    host's progress function asks, or when it raised (KeyboardInterrupt included: the exception
    is raised once the library has returned)."""

    def __init__(self, progress, cancel):
        if progress is not None and not callable(progress):
            raise _bad("progress", "expected a callable (Progress) -> bool")
        if cancel is not None and not callable(getattr(cancel, "is_set", None)):
            raise _bad("cancel", "expected an object with is_set() (threading.Event)")
        self.progress, self.cancel = progress, cancel
        self.cancelled = self.stopped = False
        self.error = None
        self.c = L.PROGRESS_FN(self._call)

    def _call(self, user, p):
        try:
            if self.cancel is not None and self.cancel.is_set():
                self.cancelled = True
                return 1
            if self.progress is not None and self.progress(Progress(p.contents)):
                self.stopped = True
                return 1
            return 0
        except BaseException as e:  # noqa: B036 (raised by plan())
            if self.error is None:
                self.error = e
            return 1


# ---------------------------------------------------------------------------------------------
# Results


def worlds(plan, where=None, rank=None):
    """Many-worlds browsing (tplan_worlds, docs/python.md): the plan file's worlds with their
    summaries, whether each satisfies the space-time query `where` ("ball inside [0,1]x[0,1]x[0,2]
    between 2 3 and ends at rest") and `order`, the matching ones ranked by `rank` ("duration,-impulse"),
    as the dict of `tplan worlds --json`. ArgumentError (field "where" or "rank") for a bad query."""
    b = _text("plan", plan)
    w = None if where is None else _text("where", where)
    r = None if rank is None else _text("rank", rank)
    err = L.Error()
    n = C.c_size_t()
    p = _c.tplan_worlds(b, len(b), w, r, C.byref(n), C.byref(err))
    if not p:
        raise _fail(err)
    try:
        return json.loads(C.string_at(p, n.value).decode("utf-8"))
    finally:
        _c.tplan_free(p)


def _view(ptr, n, owner, shape):
    """A read-only numpy view of n doubles of the library's memory at ptr, keeping owner (the
    handle that owns that memory) alive as long as the view."""
    buf = (C.c_double * n).from_address(C.cast(ptr, C.c_void_p).value)
    buf._tplan_owner = owner
    a = np.frombuffer(buf, dtype=np.float64).reshape(shape)
    a.flags.writeable = False
    return a


class Result(_Handle):
    """A plan: status, steps, Δt, per-body states and controls, the plan file's bytes."""

    _kind = "result"

    def __init__(self, owned, domain, cancelled, stopped):
        self._own, self.domain = owned, domain
        h = owned.ptr
        self.solved = _c.tplan_result_status(h) == 0
        self.status = "solved" if self.solved else "approximate"
        self.steps = _c.tplan_result_steps(h)
        self.dt = _c.tplan_result_dt(h)
        self.iterations = _c.tplan_result_iterations(h)
        self.nodes = _c.tplan_result_nodes(h)
        self.solutions = _c.tplan_result_solutions(h)
        self.seconds = _c.tplan_result_seconds(h)
        self.cancelled, self.stopped = cancelled, stopped
        self.body_names = tuple(
            _c.tplan_result_body_name(h, i).decode("utf-8") for i in range(_c.tplan_result_body_count(h))
        )
        self.control_bodies = domain.control_bodies
        self.motors = domain.motors
        self._traj = self._ctrl = None

    def __repr__(self):
        return "<tplan.Result %s, %d steps, %d iterations%s>" % (self.status, self.steps, self.iterations,
                                                                 ", cancelled" if self.cancelled else "")


    def _index(self, own, body):
        i = _c.tplan_result_body_index(own.ptr, _text("body", body))
        if i < 0:
            raise _bad("body", "no body %r in the plan (its bodies: %s)" % (body, ", ".join(self.body_names)))
        return i

    def states(self, body):
        """The body's states, a read-only view of the result's memory: (steps + 1) x 13, or 1 x 13
        (its pose) for a static body."""
        rows, own = C.c_int(), self._owned()
        p = _c.tplan_result_states(own.ptr, self._index(own, body), C.byref(rows))
        return _view(p, rows.value * 13, own, (rows.value, 13))

    def body_controls(self, body):
        """The controls applied to the body, a read-only view: steps x 6; None for a body the plan
        does not control."""
        own = self._owned()
        p = _c.tplan_result_controls(own.ptr, self._index(own, body))
        return _view(p, self.steps * 6, own, (self.steps, 6)) if p else None

    def control(self, body=None):
        """The control the plan used (plan.json's "control"): a dict of impulse (N s),
        angular_impulse (N m s), work (J) and time (s during which any force acted), for the body
        or, with body None, for all controlled bodies together (zeros for an uncontrolled body)."""
        own, out = self._owned(), (C.c_double * 4)()
        i = -1 if body is None else self._index(own, body)
        _c.tplan_result_control(own.ptr, i, C.cast(out, L.DP))
        return dict(zip(("impulse", "angular_impulse", "work", "time"), list(out)))

    @property
    def trajectory(self):
        """Every body's states, (steps + 1) x bodies (body_names, static ones included) x 13, the
        initial state first (a static body's pose repeated). A read-only copy, made once."""
        if self._traj is None:
            t = np.empty((self.steps + 1, len(self.body_names), 13))
            for i, name in enumerate(self.body_names):
                t[:, i, :] = self.states(name)
            t.flags.writeable = False
            self._traj = t
        return self._traj

    @property
    def controls(self):
        """The controls, steps x controlled bodies (control_bodies) x 6: what Domain.simulate
        takes to reproduce the plan. A read-only copy, made once."""
        if self._ctrl is None:
            c = np.empty((self.steps, len(self.control_bodies), 6))
            for k, name in enumerate(self.control_bodies):
                v = self.body_controls(name)
                c[:, k, :] = 0.0 if v is None else v
            c.flags.writeable = False
            self._ctrl = c
        return self._ctrl

    @property
    def motor_targets(self):
        """The driven motors' target speeds, a read-only view: steps x motors (Domain.motors; rad/s
        or m/s): what Domain.simulate takes as motor_targets; None without driven motors."""
        own = self._owned()
        p = _c.tplan_result_motor_targets(own.ptr)
        n = len(self.motors)
        return _view(p, self.steps * n, own, (self.steps, n)) if p and n else None

    def state(self, step):
        """The state at step 0..steps of the plan's solution, exactly as the planner had it."""
        err = L.Error()
        own, dom = self._owned(), self.domain._owned()
        s = _c.tplan_result_state(own.ptr, dom.ptr, _integer("step", step, "int"), C.byref(err))
        if not s:
            raise _fail(err)
        return State(_Owned(s, _c.tplan_state_free))

    def plan_json(self):
        """The plan file's bytes (docs/plan-format.md), as `tplan plan -o` writes them."""
        n = C.c_size_t()
        own = self._owned()
        p = _c.tplan_result_plan(own.ptr, C.byref(n))
        if not p:
            raise from_code(2, "plan: out of memory formatting the plan file")
        return C.string_at(p, n.value)

    def write_plan(self, path):
        """Writes the plan file atomically (a temporary file renamed into place)."""
        err = L.Error()
        own = self._owned()
        if _c.tplan_result_write_plan(own.ptr, os.fsencode(path), C.byref(err)) != 0:
            raise _fail(err)


# ---------------------------------------------------------------------------------------------
# States


class BodyState:
    """One body of a state: row (13 doubles: position, quaternion w,x,y,z, velocity, angular
    velocity; a copy) and rest (steps in a row at rest, 0..255)."""

    __slots__ = ("name", "row", "rest")

    def __init__(self, name, row, rest):
        self.name, self.row, self.rest = name, row, rest

    position = property(lambda self: self.row[0:3])
    quaternion = property(lambda self: self.row[3:7])
    velocity = property(lambda self: self.row[7:10])
    angular_velocity = property(lambda self: self.row[10:13])

    def __repr__(self):
        return "BodyState(%r, position=%s, rest=%d)" % (self.name, self.position.tolist(), self.rest)


class TacticState:
    """One tactic of a state: skill (its active skill's index), busy and started
    (bools), vars (its skill variables: sampled parameters, phases, counters; a copy)."""

    __slots__ = ("name", "skill", "busy", "started", "vars")

    def __init__(self, name, skill, busy, started, vars):
        self.name, self.skill, self.busy, self.started, self.vars = name, skill, busy, started, vars

    def __repr__(self):
        return "TacticState(%r, skill=%d, busy=%r, started=%r, %d vars)" % (
            self.name, self.skill, self.busy, self.started, len(self.vars))


class State:
    """A state of a domain's world: plain data (MuJoCo's mjData) the caller copies, sets and
    keeps. Arrays read from it are copies; set bodies with set_body or the rows property."""

    def __init__(self, owned):
        self._own = owned
        self._names = self._enames = None  # read on first use: a step in a loop need not pay for them

    @property
    def domain(self):
        """The name of the state's domain."""
        return _c.tplan_state_domain(self._own.ptr).decode("utf-8")

    @property
    def body_names(self):
        """The state's bodies (moving ones with a state of their own), in its order."""
        if self._names is None:
            h = self._own.ptr
            self._names = tuple(
                _c.tplan_state_body_name(h, i).decode("utf-8") for i in range(_c.tplan_state_body_count(h))
            )
        return self._names

    @classmethod
    def from_json(cls, domain, text):
        """Reads a state file's text (str or bytes) for domain, strictly (errors name the field)."""
        if not isinstance(domain, Domain):
            raise _bad("domain", "expected a tplan.Domain, got %s" % type(domain).__name__)
        b = _text("json", text)
        err = L.Error()
        with domain._use() as h:
            s = _c.tplan_state_from_json(h, b, len(b), C.byref(err))
        if not s:
            raise _fail(err)
        return cls(_Owned(s, _c.tplan_state_free))

    def to_json(self):
        """The state file's text (str); from_json reads it back to the same bits."""
        b = L.take_string(_c.tplan_state_to_json(self._own.ptr))
        if b is None:
            raise from_code(2, "state: out of memory")
        return b.decode("utf-8")

    def copy(self):
        p = _c.tplan_state_copy(self._own.ptr)
        if not p:
            raise from_code(2, "state: out of memory")
        c = State(_Owned(p, _c.tplan_state_free))
        c._names, c._enames = self._names, self._enames
        return c

    __copy__ = copy

    def __deepcopy__(self, memo):
        return self.copy()

    def __repr__(self):
        return "<tplan.State of %r at t=%r, %d bodies>" % (self.domain, self.time, len(self.body_names))

    @property
    def time(self):
        """s since the plan's start (>= 0)."""
        return _c.tplan_state_time(self._own.ptr)

    @time.setter
    def time(self, t):
        err = L.Error()
        if _c.tplan_state_set_time(self._own.ptr, _number("time", t), C.byref(err)) != 0:
            raise _fail(err)

    def body(self, name):
        """The body's BodyState (a copy); ArgumentError naming "bodies.NAME" for no such body."""
        row = np.empty(13)
        rest = C.c_int()
        err = L.Error()
        if _c.tplan_state_get_body(self._own.ptr, _text("body", name), row.ctypes.data_as(L.DP),
                                   C.byref(rest), C.byref(err)) != 0:
            raise _fail(err)
        return BodyState(name, row, rest.value)

    def set_body(self, name, row, rest=0):
        """Sets the body's 13 doubles (or a BodyState's row and rest) and rest count; checked by
        the library (finite, unit quaternion, rest 0..255)."""
        if isinstance(row, BodyState):
            row, rest = row.row, row.rest
        field = "bodies.%s" % name
        try:
            r = np.ascontiguousarray(row, dtype=np.float64)
        except (TypeError, ValueError) as e:
            raise _bad(field, "not an array of numbers (%s)" % e) from None
        if r.shape != (13,):
            raise _bad(field, "expected 13 numbers (position, quaternion, velocity, angular velocity), "
                              "got shape %s" % (r.shape,))
        err = L.Error()
        if _c.tplan_state_set_body(self._own.ptr, _text("body", name), r.ctypes.data_as(L.DP),
                                   _integer(field + ".rest", rest, "int"), C.byref(err)) != 0:
            raise _fail(err)

    @property
    def tactics(self):
        """The tactics' state, {name: TacticState} in the domain's order; {} when the state gives
        none (a plan from it starts them afresh). A copy: change it with set_tactic."""
        h, out = self._own.ptr, {}
        for i in range(_c.tplan_state_tactic_count(h)):
            name = _c.tplan_state_tactic_name(h, i)
            skill, busy, started, n = C.c_int(), C.c_int(), C.c_int(), C.c_int(16)
            v = np.empty(16)
            err = L.Error()
            if _c.tplan_state_get_tactic(h, name, C.byref(skill), C.byref(busy), C.byref(started),
                                         v.ctypes.data_as(L.DP), C.byref(n), C.byref(err)) != 0:
                raise _fail(err)
            out[name.decode("utf-8")] = TacticState(name.decode("utf-8"), skill.value, bool(busy.value),
                                                    bool(started.value), v[:n.value].copy())
        return out

    def set_tactic(self, name, skill, busy, started, vars):
        """Sets a tactic the state gives (checked against the domain where the state is used)."""
        field = "tactics.%s" % name
        try:
            v = np.ascontiguousarray(vars, dtype=np.float64).reshape(-1)
        except (TypeError, ValueError) as e:
            raise _bad(field + ".vars", "not an array of numbers (%s)" % e) from None
        err = L.Error()
        if _c.tplan_state_set_tactic(self._own.ptr, _text("tactic", name), _integer(field + ".skill", skill, "int"),
                                     1 if busy else 0, 1 if started else 0, v.ctypes.data_as(L.DP), len(v),
                                     C.byref(err)) != 0:
            raise _fail(err)

    def clear_tactics(self):
        """Drops the tactics' state: a plan from this state starts them afresh (σ_init)."""
        _c.tplan_state_clear_tactics(self._own.ptr)

    @property
    def memory(self):
        """The temporal conditions' memory (a tuple of ints, the plan's "temporal" order), None
        when the state gives none (all 0)."""
        h = self._own.ptr
        n = _c.tplan_state_memory_count(h)
        if n < 0:
            return None
        p = _c.tplan_state_memory(h)
        return tuple(int(p[i]) for i in range(n))

    @memory.setter
    def memory(self, values):
        err = L.Error()
        if values is None:
            code = _c.tplan_state_set_memory(self._own.ptr, None, -1, C.byref(err))
        else:
            vals = [_integer("memory[%d]" % i, v, "int") for i, v in enumerate(values)]
            arr = (C.c_int32 * max(1, len(vals)))(*vals)
            code = _c.tplan_state_set_memory(self._own.ptr, arr, len(vals), C.byref(err))
        if code != 0:
            raise _fail(err)

    def _read_all(self):
        """(rows, rest) of every body, one library call a body straight into the arrays."""
        if self._enames is None:
            self._enames = tuple(n.encode("utf-8") for n in self.body_names)
        n = len(self._enames)
        rows = np.empty((n, 13))
        rest = np.empty(n, dtype=np.int64)
        crows, r = (C.c_double * 13 * n).from_buffer(rows), C.c_int()
        h, err, get, pr = self._own.ptr, L.Error(), _c.tplan_state_get_body, C.byref(r)
        for i, name in enumerate(self._enames):
            if get(h, name, crows[i], pr, C.byref(err)) != 0:
                raise _fail(err)
            rest[i] = r.value
        return rows, rest

    @property
    def rows(self):
        """Every body's row, bodies (body_names) x 13: a copy."""
        return self._read_all()[0]

    @rows.setter
    def rows(self, a):
        a = np.asarray(a, dtype=np.float64)
        if a.shape != (len(self.body_names), 13):
            raise _bad("bodies", "expected %d x 13 rows (body_names), got shape %s" % (len(self.body_names),
                                                                                       a.shape))
        rest = self.rest
        tmp = self.copy()  # all or nothing: a bad row leaves this state as it was
        for i, n in enumerate(self.body_names):
            tmp.set_body(n, a[i], int(rest[i]))
        self._own = tmp._own

    @property
    def rest(self):
        """Every body's rest count (body_names order): a copy."""
        return self._read_all()[1]
