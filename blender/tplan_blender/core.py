# tplan Blender add-on: everything that does not need Blender (the domain script, the planner runs,
# reading plans and turning their rows into the artist's transforms), so that it can be read and
# tested on its own. Units: metres, kilograms, seconds; tplan and Blender are both z up.
import gzip
import json
import math
import os
import re
import select
import subprocess
import time
import urllib.error
import urllib.parse
import urllib.request

# Surface materials an object may name (its `material` custom property). friction: Coulomb mu;
# restitution: bounce coefficient in [0, 1]. Two touching objects use sqrt(mu1 mu2) and the larger
# restitution (docs/lua-api.md, Materials).
MATERIALS = {
    "default": (0.5, 0.0),
    "wood": (0.6, 0.2),
    "plastic": (0.4, 0.3),
    "dice": (0.3, 0.2),
    "metal": (0.3, 0.1),
    "rubber": (0.9, 0.7),
    "stone": (0.7, 0.05),
    "ice": (0.05, 0.05),
}

CLASSES = ("static", "passive", "active")
GOALS = ("INSIDE", "REACH", "REST")
G = 9.81
PHYSICS_RATE = 240.0  # Hz: the plan's step (one scene frame) is cut into substeps of at most 1/240 s
GROUND = "tplan_ground"  # the optional ground plane's body name (never a Blender object)


SETTINGS_KEY = "tplan"  # the scene's settings group (bpy.types.Scene.tplan): token, URL, paths


def strip_settings(doc):
    """Removes the add-on's panel settings (the scene's `tplan` group: the service token and URL, the
    tplan path, the working folder, the goal) from a glTF document (a dict), where Blender's exporter
    puts every custom property of the scene when extras are exported: scenes[].extras.tplan (and, to
    be safe, a top-level extras.tplan). The objects' own properties (tplan_class, mass, material,
    the node extras tp.scene reads) are kept. Returns the number of entries removed."""
    removed = 0
    holders = list(doc.get("scenes") or []) + [doc]
    for h in holders:
        ex = h.get("extras") if isinstance(h, dict) else None
        if isinstance(ex, dict) and SETTINGS_KEY in ex:
            del ex[SETTINGS_KEY]
            removed += 1
            if not ex:
                del h["extras"]
    return removed


def strip_settings_file(path):
    """strip_settings on a .glb or .gltf file, rewritten in place when something was removed (a GLB's
    JSON chunk padded with spaces to 4 bytes, its binary chunk kept byte for byte). Returns the
    number of entries removed."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:4] == b"glTF":
        n = int.from_bytes(data[12:16], "little")
        doc = json.loads(data[20:20 + n])
        rest = data[20 + n:]
        removed = strip_settings(doc)
        if removed:
            js = json.dumps(doc, separators=(",", ":")).encode()
            js += b" " * (-len(js) % 4)
            body = len(js).to_bytes(4, "little") + b"JSON" + js + rest
            data = b"glTF" + (2).to_bytes(4, "little") + (12 + len(body)).to_bytes(4, "little") + body
    else:
        doc = json.loads(data)
        removed = strip_settings(doc)
        if removed:
            data = json.dumps(doc, indent=2).encode()
    if removed:
        with open(path, "wb") as f:
            f.write(data)
    return removed


class PlanError(Exception):
    """A problem the user can fix (shown in the panel)."""


def lua_string(s):
    """A Lua string literal holding exactly the str s (quotes and backslashes escaped)."""
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n").replace("\r", "\\r") + '"'


def lua_bytes(data, width=120):
    """A Lua string literal holding exactly the bytes data: printable ASCII as is, every other byte
    as a 3-digit decimal escape, lines joined by \\z (which skips the line break and every blank
    after it: so a space that starts a line is escaped too)."""
    out, line = [], []
    n = 0
    for b in data:
        if 32 <= b < 127 and b not in (34, 92) and not (b == 32 and not line):
            piece = chr(b)
        else:
            piece = "\\%03d" % b
        line.append(piece)
        n += len(piece)
        if n >= width:
            out.append("".join(line))
            line, n = [], 0
    out.append("".join(line))
    return '"' + "\\z\n".join(out) + '"'


DIRECTIONS = ("THROW", "DRIVE")  # how active objects are directed (domain_script's "direction")
THROW_GAP = 0.5  # s between two objects' throws


def num(x):
    """A number as Lua reads it back exactly."""
    x = float(x)
    if not math.isfinite(x):
        raise PlanError("not a finite number: %r" % x)
    return repr(x)


def vec(v):
    return "{" + ", ".join(num(x) for x in v) + "}"


def steps_for(fps):
    """(dt, substeps): the plan's step is one scene frame, cut into substeps of at most 1/240 s."""
    if not (fps > 0):
        raise PlanError("the scene's frame rate must be > 0")
    dt = 1.0 / fps
    return dt, max(1, min(64, int(math.ceil(dt * PHYSICS_RATE - 1e-9))))


def domain_script(s):
    """The Lua text of the domain for the settings dict s:
      scene_file   name of the .glb (beside the script, or only a label when scene_data is given)
      scene_data   bytes of the .glb to embed (a script without a folder: tplan serve), or None
      objects      [{name, cls, mass, material}] of the marked objects (static / passive / active)
      goal         "INSIDE" | "REACH" | "REST"
      subjects     names the goal is about (INSIDE: must end in the region; REACH: one body)
      region       (min, max) corners of the region box (INSIDE)
      point        (x, y, z) (REACH), radius (m), goal_3d (bool: the point in 3D, else in xy)
      min_time     s: the goal holds no earlier (objects at rest at t = 0 do not count)
      rest_speed   m/s: "at rest" below it (and 10x that in rad/s)
      direction    "THROW" (default: passive direction, each active object thrown once at the region
                   or point, its turn after the one before, then left to physics) | "DRIVE" (it
                   pushes itself sideways all along: robots, vehicles)
      force        DRIVE: fraction of its weight an active object is pushed with at most
      fps, seed, iterations, solutions, ground (bool: a ground plane at z = 0)."""
    objs = s["objects"]
    names = [o["name"] for o in objs]
    moving = [o for o in objs if o["cls"] in ("passive", "active")]
    active = [o for o in objs if o["cls"] == "active"]
    if not moving:
        raise PlanError("mark at least one object passive or active: nothing would move")
    if s.get("ground") and GROUND in names:
        raise PlanError("an object is called %s, the ground plane's name" % GROUND)
    for o in objs:
        if o["cls"] not in CLASSES:
            raise PlanError("%s: class %r is not one of %s" % (o["name"], o["cls"], ", ".join(CLASSES)))
        if o["material"] not in MATERIALS:
            raise PlanError("%s: unknown material %r (known: %s)" % (o["name"], o["material"], ", ".join(MATERIALS)))
        if o["cls"] != "static" and not (o["mass"] > 0):
            raise PlanError("%s: a %s object needs a mass > 0 kg" % (o["name"], o["cls"]))
    goal = s["goal"]
    if goal not in GOALS:
        raise PlanError("unknown goal %r" % goal)
    subjects = list(s.get("subjects") or [])
    mov_names = [o["name"] for o in moving]
    for n in subjects:
        if n not in mov_names:
            raise PlanError("%s: the goal is about it, but it is not marked passive or active" % n)
    if goal == "INSIDE" and not subjects:
        raise PlanError("no object to end inside the region: mark objects passive or active")
    if goal == "REACH" and len(subjects) != 1:
        raise PlanError("choose the body that must reach the point")
    dt, substeps = steps_for(s["fps"])
    L = []
    w = L.append
    w("-- written by the tplan Blender add-on (blender/tplan_blender): goal %s" % goal)
    w('local tp = require "tp"')
    if s.get("scene_data") is not None:
        w("local SCENE = " + lua_bytes(s["scene_data"]))
        w("local bodies = tp.scene(%s, { default = \"skip\", data = SCENE })" % lua_string(s["scene_file"]))
    else:
        w("local bodies = tp.scene(%s, { default = \"skip\" })" % lua_string(s["scene_file"]))
    if s.get("ground"):
        w('table.insert(bodies, 1, tp.plane { name = "%s", material = "default" })' % GROUND)
    w("local MOVING = {" + ", ".join(lua_string(n) for n in mov_names) + "}")
    w("local SUBJECTS = {" + ", ".join(lua_string(n) for n in subjects) + "}")
    w("local MIN_TIME = " + num(s.get("min_time", 0.5)))
    rest = float(s.get("rest_speed", 0.05))
    w("local at_rest = tp.settled { bodies = MOVING, speed = %s, angular = %s }" % (num(rest), num(10 * rest)))
    w("local late = function(st) return st.t >= MIN_TIME end")
    # where the active objects are pushed toward (and the goal)
    target = None
    if goal == "INSIDE":
        lo, hi = s["region"]
        if not all(a < b for a, b in zip(lo, hi)):
            raise PlanError("the region object has no volume")
        target = [(a + b) / 2 for a, b in zip(lo, hi)]
        w("local LO, HI = %s, %s" % (vec(lo), vec(hi)))
        conds = ", ".join("tp.inside { body = %s, min = LO, max = HI }" % lua_string(n) for n in subjects)
        w("local goal = tp.all { %s, at_rest, late }" % conds)
        # quality: how far outside the box the subjects are (0 inside), lower is better
        w("local function quality(st)")
        w("  local d = 0")
        w("  for _, n in ipairs(SUBJECTS) do")
        w("    local p = { st:pos(n) }")
        w("    for k = 1, 3 do d = d + math.max(0, LO[k] - p[k], p[k] - HI[k]) end")
        w("  end")
        w("  return d")
        w("end")
    elif goal == "REACH":
        target = list(s["point"])
        r = float(s.get("radius", 0.05))
        if not r > 0:
            raise PlanError("the radius around the point must be > 0")
        c = target if s.get("goal_3d") else target[:2]
        w("local POINT = " + vec(c))
        w("local goal = tp.all { tp.within { body = %s, center = POINT, radius = %s }, late }"
          % (lua_string(subjects[0]), num(r)))
        w("local quality = tp.distance { body = %s, to = POINT }" % lua_string(subjects[0]))
    else:
        w("local goal = tp.all { at_rest, late }")
        w("local quality = nil")
    # tactics: every active object pushes itself toward the target (or waits); with no active
    # object, one tactic that only waits: the plan is the passive physics until the goal holds
    w("local tactics = {}")
    force = float(s.get("force", 0.8))
    direction = s.get("direction", "THROW")
    if direction not in DIRECTIONS:
        raise PlanError("unknown direction %r (known: %s)" % (direction, ", ".join(DIRECTIONS)))
    if direction == "THROW" and target:
        # passive direction: object k waits k x THROW_GAP s (no force), is thrown once at
        # a point drawn around the target (one release step: tp.skill.throw), then rests: every
        # motion after the release is pure physics, and the planner searches over the throws
        if goal == "INSIDE":
            lo, hi = s["region"]
            aim_lo = [c - 0.25 * (b - a) for c, a, b in zip(target, lo, hi)]
            aim_hi = [c + 0.25 * (b - a) for c, a, b in zip(target, lo, hi)]
            aim_lo[2] = aim_hi[2] = target[2]
            aim = "tp.uniform(%s, %s)" % (vec(aim_lo), vec(aim_hi))
        else:
            aim = "tp.normal(%s, 0.05)" % vec(target)
        shot = (len(active) - 1) * THROW_GAP + 0.9 + 6.0  # s: the shot's longest length
        for k, o in enumerate(active):
            n = lua_string(o["name"])
            skills = ['tp.skill.wait { name = "turn", duration = %s }' % num(k * THROW_GAP),
                      # follow: the throw's segment runs on until everything rests, so the throw
                      # is the decision (two solutions are two throws, not one world twice)
                      'tp.skill.throw { name = "throw", point = %s, flight_time = tp.uniform(0.3, 0.9), '
                      'angular_velocity = tp.uniform({-3, -3, -3}, {3, 3, 3}), follow = true, timeout = %s }'
                      % (aim, num(shot)),
                      # one segment to the shot's end: no decision points after the throw, so the
                      # search branches at the throws (BK-BGT would grow the deepest rests instead)
                      'tp.skill.wait { name = "rest", target = %s, duration = %s, timeout = %s }'
                      % (n, num(shot), num(shot))]
            w("tactics[#tactics + 1] = tp.tactic { name = %s, body = %s, start = \"turn\", skills = { %s }, "
              "transitions = { turn = { throw = 1 }, throw = { rest = 1 }, rest = { rest = 1 } } }"
              % (n, n, ", ".join(skills)))
        active_drive = []
        # the shot's longest length: a world still short of the goal 6 s after the last landing
        # is dropped, so the search goes back to the throws instead of growing one that never settles
        w("local valid = function(st) return st.t <= %s end" % num(shot))
    else:
        active_drive = active
    for o in active_drive:
        F = force * o["mass"] * G
        aim = vec(target[:2]) if target else None
        w("do")
        w("  local F = " + num(F))
        # "wait" is a steer with no force: tp.skill.wait (and brake) hold an active body with the
        # drive controller's yaw law, made for robots on a floor, which spins a tumbling object up
        skills = ['tp.skill.steer { name = "wait", force = 0, duration = tp.uniform(0.1, 0.6) }']
        trans = ""
        if aim:
            skills.append('tp.skill.steer { name = "steer", point = tp.normal(%s, 0.05), force = tp.uniform(0.3 * F, F), '
                          'duration = tp.uniform(0.1, 0.4), kp = 2, kv = 20, max_speed = 1 }' % aim)
            trans = ', transitions = { wait = { wait = 1, steer = 1 }, steer = { wait = 1, steer = 1 } }'
        w("  tactics[#tactics + 1] = tp.tactic { name = %s, body = %s, skills = { %s }%s }"
          % (lua_string(o["name"]), lua_string(o["name"]), ", ".join(skills), trans))
        w("end")
    if not active:
        w('tactics[1] = tp.tactic { name = "tplan_wait", body = MOVING[1], '
          'skills = { tp.skill.wait { name = "wait", duration = 0.25 } } }')
    mats = sorted({o["material"] for o in objs} | {"default"})
    w("return tp.domain {")
    w('  name = "blender",')
    w("  dt = %s, substeps = %d," % (num(dt), substeps))
    w('  solver = "%s",' % ("quickstep" if len(moving) > 24 else "step"))
    # a convex hull dropped into a triangle mesh sinks a little further than boxes on a plane
    w("  max_static_penetration = 0.02, max_body_penetration = 0.02,")
    w("  materials = {")
    for m in mats:
        fr, e = MATERIALS[m]
        w("    tp.material { name = %s, friction = %s, restitution = %s }," % (lua_string(m), num(fr), num(e)))
    w("  },")
    w("  bodies = bodies,")
    w("  tactics = tactics,")
    w("  goal = goal,")
    w("  quality = quality,")
    # an animation shot: a plan short of the goal ends at rest and landed, no shorter than the
    # shot's minimum (and, for throws, no longer than its maximum: docs/lua-api.md#fallbacks)
    w('  fallback = "rest",')
    if direction == "THROW" and target and active:
        w("  shot = { min = MIN_TIME, max = %s }," % num(shot))
        w("  valid = valid,")
    else:
        w("  shot = { min = MIN_TIME },")
    w("  planner = { algorithm = \"bgt\", mu = 1000, max_iters = %d, solutions = %d, seed = %d }," %
      (int(s.get("iterations", 20000)), int(s.get("solutions", 1)), int(s.get("seed", 1))))
    w("}")
    return "\n".join(L) + "\n"


# ------------------------------------------------------------------------------------------------
# Planner runs: poll() never blocks for long, so Blender's UI stays live (a timer calls it).

PROGRESS_RE = re.compile(r"planning:\s+([\d.]+) s\s+(\d+) iterations\s+(\d+) nodes\s+(\d+) solutions")


class Run:
    """state: "running", "done" (plan_path written) or "failed" (error)."""

    def __init__(self):
        self.state = "running"
        self.error = ""
        self.status = ""  # solved | approximate
        self.progress = {"elapsed": 0.0, "iterations": 0, "nodes": 0, "solutions": 0}
        self.started = time.monotonic()
        self.preview = None  # the best world so far ({"steps", "bodies": [{name, origin, trajectory}]}), if any
        self.preview_seq = 0  # previews read so far

    def text(self):
        p = self.progress
        return "%.1f s, %d iterations, %d nodes, %d solutions" % (
            max(p["elapsed"], time.monotonic() - self.started if self.state == "running" else p["elapsed"]),
            p["iterations"], p["nodes"], p["solutions"])


class LocalRun(Run):
    """`tplan plan SCRIPT -o PLAN` in a subprocess. Its progress line is printed only on a terminal,
    so stderr is a pseudo-terminal where the platform has them (else: elapsed time only)."""

    def __init__(self, tplan, script, plan_path, time_limit, preview_path=None):
        super().__init__()
        self.plan_path = plan_path
        self.preview_path = preview_path
        self.preview_mtime = None
        self.buf = b""
        self.master = None
        args = [tplan, "plan", script, "-o", plan_path, "--time-limit", num(time_limit)]
        if preview_path:  # tplan writes the best world so far there while it plans (docs/cli.md)
            if os.path.exists(preview_path):
                os.remove(preview_path)
            args += ["--preview", preview_path]
        cwd = os.path.dirname(script)
        try:
            import pty
            self.master, slave = pty.openpty()
            try:
                self.proc = subprocess.Popen(args, cwd=cwd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                             stderr=slave)
            finally:
                os.close(slave)
        except (ImportError, OSError):
            if self.master is not None:
                os.close(self.master)
                self.master = None
            try:
                self.proc = subprocess.Popen(args, cwd=cwd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                             stderr=subprocess.PIPE)
            except OSError as e:
                raise PlanError("cannot run %s: %s" % (tplan, e))

    def _read(self):
        fd = self.master if self.master is not None else self.proc.stderr.fileno()
        while True:
            r, _, _ = select.select([fd], [], [], 0)
            if not r:
                return
            try:
                chunk = os.read(fd, 65536)
            except OSError:  # the pty's other side closed
                return
            if not chunk:
                return
            self.buf += chunk
            for m in PROGRESS_RE.finditer(self.buf[-4096:].decode("utf-8", "replace")):
                self.progress = {"elapsed": float(m.group(1)), "iterations": int(m.group(2)),
                                 "nodes": int(m.group(3)), "solutions": int(m.group(4))}

    def _read_preview(self):
        """Reads the preview file when tplan has replaced it since the last look (it writes a
        temporary file and renames it, so a file seen is whole)."""
        try:
            m = os.stat(self.preview_path).st_mtime_ns
        except OSError:
            return
        if m == self.preview_mtime:
            return
        try:
            with open(self.preview_path, "rb") as f:
                doc = json.loads(f.read())
        except (OSError, ValueError):
            return
        if doc.get("format") == "tplan-preview":
            self.preview_mtime = m
            self.preview = doc
            self.preview_seq += 1

    def poll(self):
        if self.state != "running":
            return self.state
        self._read()
        if self.preview_path:
            self._read_preview()
        rc = self.proc.poll()
        if rc is None:
            return self.state
        self._read()
        if self.master is not None:
            os.close(self.master)
            self.master = None
        self.progress["elapsed"] = time.monotonic() - self.started
        if rc in (0, 3) and os.path.exists(self.plan_path):
            self.state, self.status = "done", ("solved" if rc == 0 else "approximate")
        else:
            lines = [ln for ln in self.buf.decode("utf-8", "replace").replace("\r", "\n").split("\n")
                     if ln.strip() and "planning:" not in ln]
            self.state, self.error = "failed", (lines[-1].strip() if lines else "tplan exited with status %d" % rc)
        return self.state

    def cancel(self):
        if self.state == "running":
            self.proc.kill()
            self.proc.wait()
            if self.master is not None:
                os.close(self.master)
                self.master = None
            self.state, self.error = "failed", "cancelled"


def service_call(url, token, method, path, body=None, raw=False, timeout=30):
    """One request to `tplan serve` at url (bearer token if any): the JSON answer (bytes when raw);
    PlanError with the server's message for an HTTP error."""
    req = urllib.request.Request(url.rstrip("/") + path, data=body, method=method)
    if body is not None:
        req.add_header("Content-Type", "application/json")
    if token:
        req.add_header("Authorization", "Bearer " + token)
    try:
        with urllib.request.urlopen(req, timeout=timeout) as r:
            data = r.read()
            if r.headers.get("Content-Encoding") == "gzip":
                data = gzip.decompress(data)
    except urllib.error.HTTPError as e:
        try:
            msg = json.loads(e.read())["error"]["message"]
        except (ValueError, KeyError, TypeError):
            msg = str(e)
        if e.code == 413:  # the scene travels inside the script, which the service caps
            msg += " (the scene is inside the script: plan this scene with the local tplan)"
        raise PlanError("%s %s: %d %s" % (method, path.split("?")[0], e.code, msg))
    except (urllib.error.URLError, OSError) as e:
        raise PlanError("%s%s: %s" % (url, path, e))
    return data if raw else json.loads(data)


class ServiceRun(Run):
    """A job of `tplan serve`: POST /v1/jobs {script, time_limit}, then GET /v1/jobs/{id} until it is
    final, then GET /v1/jobs/{id}/plan. The scene travels inside the script (tp.scene's data)."""

    def __init__(self, url, script_text, plan_path, time_limit, token=""):
        super().__init__()
        self.url = url.rstrip("/")
        self.plan_path = plan_path
        self.token = token
        self.last_poll = 0.0
        body = json.dumps({"script": script_text, "time_limit": float(time_limit)}).encode()
        job = self._call("POST", "/v1/jobs", body)
        self.job = job["id"]

    def _call(self, method, path, body=None, raw=False, timeout=30):
        return service_call(self.url, self.token, method, path, body, raw, timeout)

    def poll(self):
        if self.state != "running" or time.monotonic() - self.last_poll < 0.2:
            return self.state
        self.last_poll = time.monotonic()
        try:
            job = self._call("GET", "/v1/jobs/%d" % self.job, timeout=5)  # the UI waits on it
            p = job.get("progress") or {}
            self.progress = {"elapsed": float(p.get("elapsed") or 0), "iterations": int(p.get("iterations") or 0),
                             "nodes": int(p.get("nodes") or 0), "solutions": int(p.get("solutions") or 0)}
            st = job.get("status")
            if st in ("solved", "approximate"):
                data = self._call("GET", "/v1/jobs/%d/plan" % self.job, raw=True)
                with open(self.plan_path, "wb") as f:
                    f.write(data)
                self.state, self.status = "done", st
            elif st not in ("queued", "running"):
                err = job.get("error") or {}
                self.state, self.error = "failed", "job %d %s: %s" % (self.job, st, err.get("message", ""))
        except PlanError as e:
            self.state, self.error = "failed", str(e)
        return self.state

    def cancel(self):
        if self.state == "running":
            try:
                self._call("DELETE", "/v1/jobs/%d" % self.job)
            except PlanError:
                pass
            self.state, self.error = "failed", "cancelled"


# ------------------------------------------------------------------------------------------------
# Plans

def read_plan(path):
    with open(path, "rb") as f:
        plan = json.loads(f.read())
    if plan.get("format") != "tplan-plan":
        raise PlanError("%s: not a tplan plan file" % path)
    return plan


def solutions(plan):
    """[{cost, steps, trajectories: {name: rows}}]: the selected solution first, then the
    alternatives (many worlds) in the plan's order."""
    out = [{"cost": plan["cost"], "steps": plan["steps"],
            "trajectories": {b["name"]: b["trajectory"] for b in plan["bodies"] if "trajectory" in b}}]
    for a in plan.get("alternatives", []):
        out.append({"cost": a["cost"], "steps": a["steps"], "trajectories": a["trajectories"]})
    return out


def browse_local(tplan, plan_path, where="", rank=""):
    """Many-worlds browsing with the local tplan (`tplan worlds PLAN --json`, docs/cli.md): the
    answer {"worlds": [summaries with "match"], "order": [matching worlds, ranked]}; PlanError with
    tplan's one-line message for a bad query ("--where: query: clause 1 (touches): ...")."""
    args = [tplan, "worlds", plan_path, "--json"]
    if where:
        args += ["--where", where]
    if rank:
        args += ["--rank", rank]
    try:
        r = subprocess.run(args, stdin=subprocess.DEVNULL, capture_output=True, timeout=120)
    except (OSError, subprocess.SubprocessError) as e:
        raise PlanError("%s: %s" % (tplan, e))
    if r.returncode != 0:
        lines = r.stderr.decode("utf-8", "replace").strip().splitlines()
        raise PlanError((lines[-1] if lines else "tplan worlds: exit %d" % r.returncode).replace("tplan: error: ", ""))
    return json.loads(r.stdout)


def browse_service(url, token, job, where="", rank=""):
    """The same answer from `tplan serve`'s GET /v1/jobs/{job}/worlds (the same evaluator)."""
    q = urllib.parse.urlencode([(k, v) for k, v in (("where", where), ("rank", rank)) if v])
    return service_call(url, token, "GET", "/v1/jobs/%d/worlds%s" % (int(job), "?" + q if q else ""))


def qmul_vec(q, v):
    """The vector v turned by the unit quaternion q = (w, x, y, z)."""
    w, x, y, z = q
    return (
        (1 - 2 * (y * y + z * z)) * v[0] + 2 * (x * y - w * z) * v[1] + 2 * (x * z + w * y) * v[2],
        2 * (x * y + w * z) * v[0] + (1 - 2 * (x * x + z * z)) * v[1] + 2 * (y * z - w * x) * v[2],
        2 * (x * z - w * y) * v[0] + 2 * (y * z + w * x) * v[1] + (1 - 2 * (x * x + y * y)) * v[2],
    )


def artist_poses(rows, origin):
    """[(location, quaternion)] of the artist's object for trajectory rows: the body's position is
    its centre of mass, the object's origin is `origin` in the body's frame (the plan's mesh.origin).
    Quaternion signs are kept continuous so that interpolating between keys never flips."""
    out, prev = [], None
    for r in rows:
        q = [r[3], r[4], r[5], r[6]]
        if prev is not None and sum(a * b for a, b in zip(q, prev)) < 0:
            q = [-c for c in q]
        prev = q
        o = qmul_vec(q, origin)
        out.append(((r[0] + o[0], r[1] + o[1], r[2] + o[2]), tuple(q)))
    return out


# ------------------------------------------------------------------------------------------------
# Keyframe reduction: the exporter's own reducer (export/src/keys.c, `tplan export --tolerance`,
# docs/export.md), not a second one. tplan writes the reduced glTF; the add-on reads which steps it
# kept per world, body and channel and keys those steps on the artist's objects.

GLTF_FLOAT = 5126  # glTF componentType of float32


def _accessor_floats(doc, blob, index):
    """The float32 values of accessor `index` of a glTF document whose only buffer is `blob`."""
    import struct
    acc = doc["accessors"][index]
    if acc.get("componentType") != GLTF_FLOAT:
        raise PlanError("tplan export: accessor %d is not float32" % index)
    view = doc["bufferViews"][acc["bufferView"]]
    ncomp = {"SCALAR": 1, "VEC2": 2, "VEC3": 3, "VEC4": 4}[acc["type"]]
    start = view.get("byteOffset", 0) + acc.get("byteOffset", 0)
    stride = view.get("byteStride", 4 * ncomp)
    out = []
    for i in range(acc["count"]):
        out.append(struct.unpack_from("<%df" % ncomp, blob, start + i * stride))
    return out


def kept_steps(doc, blob, dt):
    """[{body: {"translation": [step, ...], "rotation": [step, ...]}}] per animation of a glTF
    document written by `tplan export --alternatives` (the chosen world first, then the others in
    the plan's order): the plan steps whose keys the reduction kept (key time / dt, rounded)."""
    out = []
    for anim in doc.get("animations", []):
        per = {}
        for ch in anim["channels"]:
            path = ch["target"].get("path")
            if path not in ("translation", "rotation"):
                continue
            name = doc["nodes"][ch["target"]["node"]]["name"]
            times = _accessor_floats(doc, blob, anim["samplers"][ch["sampler"]]["input"])
            per.setdefault(name, {})[path] = [int(round(t[0] / dt)) for t in times]
        out.append(per)
    return out


def reduce_keys(tplan, plan_path, dt, tolerance, folder):
    """Runs `tplan export PLAN --format gltf --alternatives --tolerance M` into folder and returns
    kept_steps (dt: the plan's step, s) of what it wrote: per solution (the add-on's order: the selected one, then the
    alternatives), per body, the steps to key. Translations stay within M metres of the plan at
    every step, rotations within M / r radians (r: the body's bounding radius): a point on its
    surface moves at most M more (docs/export.md, Keyframe reduction). PlanError with tplan's
    one-line message when it fails."""
    if not (tolerance > 0) or not math.isfinite(tolerance):
        raise PlanError("key tolerance: must be a number of metres > 0 (got %r)" % tolerance)
    out = os.path.join(folder, "keys.gltf")
    args = [tplan, "export", plan_path, "--format", "gltf", "-o", out, "--alternatives", "--tolerance",
            num(tolerance), "-q"]
    try:
        r = subprocess.run(args, stdin=subprocess.DEVNULL, capture_output=True, timeout=600)
    except (OSError, subprocess.SubprocessError) as e:
        raise PlanError("keyframe reduction runs the local tplan (tplan export): %s: %s" % (tplan, e))
    if r.returncode != 0:
        lines = r.stderr.decode("utf-8", "replace").strip().splitlines()
        raise PlanError("tplan export: " + (lines[-1] if lines else "exit %d" % r.returncode).replace("tplan: error: ", ""))
    with open(out, "rb") as f:
        doc = json.loads(f.read())
    with open(os.path.join(folder, doc["buffers"][0]["uri"]), "rb") as f:
        blob = f.read()
    return kept_steps(doc, blob, dt)
