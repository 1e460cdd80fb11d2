"""Checks of a domain's constraint read from a plan file's recorded trajectories (json, not the
writer's layout). Used by domains.sh; prints what the shell compares.
  plan_checks.py stripes PLAN REGEX   -> "<body> <max planar displacement m>" over bodies matching REGEX
  plan_checks.py foes PLAN            -> smallest planar robot-adversary distance (m)
  plan_checks.py through PLAN         -> "ball <foe> <step> <sd>" of the first step where the ball is
                                         inside an adversary's box, or within 0.015 m of it two steps
                                         in a row; "- - - <smallest sd>" when none (sd: signed distance)"""
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


if __name__ == "__main__":
    {"stripes": lambda: stripes(sys.argv[2], sys.argv[3]), "foes": lambda: foes(sys.argv[2]),
     "through": lambda: through(sys.argv[2])}[sys.argv[1]]()
