#!/usr/bin/env python3
"""Where the planning time goes, per domain and planner, from `tplan bench --out FILE.json` records.

Prints the shares of the summed planning time of each row's runs: physics (ODE), the skills' own
navigation searches (breakdown.search, part of tactics), the rest of tactics/skills, and the
planner's own work (selection, checks, other), plus physics as a share of everything but the
searches (the state copy into new nodes has its own column). usage: tools/time_shares.py BENCH.json
"""
import json
import sys
from collections import OrderedDict


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    runs = json.load(open(sys.argv[1]))["runs"]
    rows = OrderedDict()
    for r in runs:
        key = (r["domain"], r["planner"])
        acc = rows.setdefault(key, {"n": 0, "time": 0.0, "physics": 0.0, "search": 0.0, "tactics": 0.0, "copy": 0.0,
                                    "planner": 0.0})
        b = r["breakdown"]
        acc["n"] += 1
        acc["time"] += r["time"]
        acc["physics"] += b["physics"]
        acc["search"] += b.get("search", 0.0)
        acc["tactics"] += b["tactics"]
        acc["copy"] += b.get("copy", 0.0)
        acc["planner"] += b["select"] + b["check"] + b["other"]
    print("| domain | planner | runs | time (sum) | physics | nav searches | other tactics/skills | state copy | selection+checks+other | physics without the searches |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for (dom, pl), a in rows.items():
        t = a["time"] if a["time"] > 0 else 1e-12
        rest = t - a["search"]
        print("| %s | %s | %d | %.2f s | %.1f %% | %.1f %% | %.1f %% | %.1f %% | %.1f %% | %.1f %% |" % (
            dom, "BK-BGT" if pl == "bgt" else "BK-RRT", a["n"], a["time"], 100 * a["physics"] / t,
            100 * a["search"] / t, 100 * (a["tactics"] - a["search"]) / t, 100 * a["copy"] / t, 100 * a["planner"] / t,
            100 * a["physics"] / rest if rest > 0 else 0.0))


if __name__ == "__main__":
    main()
