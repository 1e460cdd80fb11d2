"""A stranger's plan: the plan file PLAN with its domain script (sources[0]) replaced by the text of
SCRIPT and rehashed, as anyone can (FNV-1a 64, docs/plan-format.md), written to OUT.
Usage: python3 swap_script.py PLAN SCRIPT OUT   (tests/e2e/limits.sh, hard_deadline.sh)"""
import json
import sys


def fnv(b):
    h = 0xcbf29ce484222325
    for c in b:
        h = ((h ^ c) * 0x100000001b3) & 0xFFFFFFFFFFFFFFFF
    return "fnv1a64:%016x" % h


plan = json.load(open(sys.argv[1]))
text = open(sys.argv[2]).read()
src = plan["sources"][0]
src["text"], src["hash"] = text, fnv(text.encode())
plan["domain"]["hash"] = src["hash"]
json.dump(plan, open(sys.argv[3], "w"))
