"""Checks of a domain's constraint read from a plan file's recorded trajectories (json, not the
writer's layout). Used by domains.sh; prints what the shell compares.
  plan_checks.py stripes PLAN REGEX   -> "<body> <max planar displacement m>" over bodies matching REGEX
  plan_checks.py foes PLAN            -> smallest planar robot-adversary distance (m)
  plan_checks.py through PLAN         -> "ball <foe> <step> <sd>" of the first step where the ball is
                                         inside an adversary's box, or within 0.015 m of it two steps
                                         in a row; "- - - <smallest sd>" when none (sd: signed distance)
  plan_checks.py road PLAN REGEX [CAR] -> for the scripted bodies matching REGEX (racing traffic): "ok <smallest
                                         gap to a wall m> <largest heading error rad>", or "FAIL <body> <step>
                                         <why>" at the first step where a footprint (the box seen from above)
                                         overlaps a static box, leaves the static boxes' bounding rectangle
                                         (off the track), does not face the way the body moves (> 0.2 rad) or
                                         overlaps another of them, or (with CAR) touches that body's footprint"""
import json
import math
import re
import sys

FOES = ("defender_n", "defender_s", "goalie")


def bodies(path):
    return {b["name"]: b for b in json.load(open(path))["bodies"]}


def stripes(path, pattern):
    worst, who = 0.0, "-"
    for name, b in bodies(path).items():
        if "trajectory" not in b or not re.search(pattern, name):
            continue
        x0, y0 = b["trajectory"][0][0], b["trajectory"][0][1]
        for s in b["trajectory"]:
            d = math.hypot(s[0] - x0, s[1] - y0)
            if d > worst:
                worst, who = d, name
    print("%s %.6f" % (who, worst))


def foes(path):
    bs = bodies(path)
    robot = bs["robot"]["trajectory"]
    best = 1e9
    for f in FOES:
        for r, s in enumerate(bs[f]["trajectory"]):
            best = min(best, math.hypot(robot[r][0] - s[0], robot[r][1] - s[1]))
    print("%.6f" % best)


def signed_distance(ball, box, half):
    """3D signed distance from the ball's centre to a box turned about z (planar adversaries)."""
    yaw = 2 * math.atan2(box[6], box[3])  # quaternion (w, x, y, z) at 3..6
    c, sn = math.cos(yaw), math.sin(yaw)
    dx, dy, dz = ball[0] - box[0], ball[1] - box[1], ball[2] - box[2]
    q = (abs(c * dx + sn * dy) - half[0], abs(-sn * dx + c * dy) - half[1], abs(dz) - half[2])
    outside = math.sqrt(sum(max(v, 0) ** 2 for v in q))
    return outside + min(max(q), 0)


def through(path):
    bs = bodies(path)
    ball = bs["ball"]["trajectory"]
    best = 1e9
    for f in FOES:
        half = [v / 2 for v in bs[f]["size"][:3]]
        prev = 1e9
        for r, s in enumerate(bs[f]["trajectory"]):
            sd = signed_distance(ball[r], s, half)
            best = min(best, sd)
            if sd < 0 or (sd < 0.015 and prev < 0.015):
                print("ball %s %d %.6f" % (f, r, sd))
                return
            prev = sd
    print("- - - %.6f" % best)


def yaw_of(row):
    return 2 * math.atan2(row[6], row[3])  # a box turned about z only: quaternion (w, 0, 0, z)


def corners(cx, cy, yaw, hx, hy):
    c, s = math.cos(yaw), math.sin(yaw)
    return [(cx + c * a - s * b, cy + s * a + c * b) for a, b in ((hx, hy), (-hx, hy), (-hx, -hy), (hx, -hy))]


def gap(p, q):
    """Separating-axis distance of two convex polygons: > 0 separated (a lower bound of the gap),
    <= 0 overlapping."""
    best = -1e9
    for poly in (p, q):
        for i in range(len(poly)):
            (x0, y0), (x1, y1) = poly[i], poly[(i + 1) % len(poly)]
            nx, ny = y1 - y0, x0 - x1
            n = math.hypot(nx, ny)
            nx, ny = nx / n, ny / n
            pa = [x * nx + y * ny for x, y in p]
            qa = [x * nx + y * ny for x, y in q]
            best = max(best, min(qa) - max(pa), min(pa) - max(qa))
    return best


def road(path, pattern, car=None):
    bs = json.load(open(path))["bodies"]
    walls = []
    for b in bs:
        if b["class"] == "static" and b["shape"] == "box":
            p = b["pose"]
            walls.append((b["name"], corners(p[0], p[1], yaw_of(p), b["size"][0] / 2, b["size"][1] / 2)))
    xs = [x for _, c in walls for x, _ in c]
    ys = [y for _, c in walls for _, y in c]
    lo, hi = (min(xs), min(ys)), (max(xs), max(ys))
    smallest, worst_heading, n = 1e9, 0.0, 0
    for b in bs:
        if "trajectory" not in b or not re.search(pattern, b["name"]):
            continue
        n += 1
        tr = b["trajectory"]
        hx, hy = b["size"][0] / 2, b["size"][1] / 2
        for k, row in enumerate(tr):
            foot = corners(row[0], row[1], yaw_of(row), hx, hy)
            for x, y in foot:
                if not (lo[0] <= x <= hi[0] and lo[1] <= y <= hi[1]):
                    print("FAIL %s %d off the track: corner (%.3f, %.3f)" % (b["name"], k, x, y))
                    return
            for name, w in walls:
                g = gap(foot, w)
                if g <= 1e-9:
                    print("FAIL %s %d touches or overlaps %s (gap %.3f m)" % (b["name"], k, name, g))
                    return
                smallest = min(smallest, g)
            if k > 0:
                dx, dy = row[0] - tr[k - 1][0], row[1] - tr[k - 1][1]
                if math.hypot(dx, dy) > 1e-4:
                    e = abs(math.remainder(math.atan2(dy, dx) - yaw_of(row), 2 * math.pi))
                    if e > 0.2:
                        print("FAIL %s %d faces %.3f rad away from its motion" % (b["name"], k, e))
                        return
                    worst_heading = max(worst_heading, e)
    if n == 0:
        print("FAIL no body matches %s" % pattern)
        return
    # no two of them overlap (kinematic bodies pass through each other: it would only show)
    moving = [b for b in bs if "trajectory" in b and re.search(pattern, b["name"])]
    for i, a in enumerate(moving):
        for o in moving[i + 1:]:
            for k, (r, q) in enumerate(zip(a["trajectory"], o["trajectory"])):
                g = gap(corners(r[0], r[1], yaw_of(r), a["size"][0] / 2, a["size"][1] / 2),
                        corners(q[0], q[1], yaw_of(q), o["size"][0] / 2, o["size"][1] / 2))
                if g <= 1e-9:
                    print("FAIL %s %d overlaps %s" % (a["name"], k, o["name"]))
                    return
    # the driven car never touches the traffic
    by = {b["name"]: b for b in bs}
    if car:
        me = by[car]
        for b in bs:
            if "trajectory" not in b or not re.search(pattern, b["name"]):
                continue
            for k, (r, o) in enumerate(zip(me["trajectory"], b["trajectory"])):
                g = gap(corners(r[0], r[1], yaw_of(r), me["size"][0] / 2, me["size"][1] / 2),
                        corners(o[0], o[1], yaw_of(o), b["size"][0] / 2, b["size"][1] / 2))
                if g <= 1e-9:
                    print("FAIL %s %d touches %s" % (b["name"], k, car))
                    return
    print("ok %.6f %.6f" % (smallest, worst_heading))


if __name__ == "__main__":
    {"stripes": lambda: stripes(sys.argv[2], sys.argv[3]), "foes": lambda: foes(sys.argv[2]),
     "through": lambda: through(sys.argv[2]), "road": lambda: road(sys.argv[2], sys.argv[3], sys.argv[4] if len(sys.argv) > 4 else None)}[sys.argv[1]]()
