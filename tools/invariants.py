#!/usr/bin/env python3
"""Invariant checks per 1,000 lines of each product folder (Box2D's B2_ASSERT and
its validate functions are the model).

A check is one TP_ASSERT / TP_INVARIANT / TP_VALIDATE use, or one rule of a validate function:
a `return tpBroken(` line in a file named *validate*.c (each such rule is broken on purpose by a
test: tests/core/test_nav_validate.c, tests/service/test_validate.c). Lines are every line of
the folder's .c and .h files.

usage: tools/invariants.py                       prints the table, folder by folder
       tools/invariants.py --floor 5 FOLDER ...  exit 1 when a named folder is below 5 per 1,000
                                                 (the ctest `invariants`: the folders that reached
                                                 the floor must stay there)
"""
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FOLDERS = ["api", "cli", "core", "export", "lua", "mesh", "nav", "pattern", "physics", "service", "skills",
           "tactics", "viewer"]
MACRO = re.compile(r"\b(TP_ASSERT|TP_INVARIANT|TP_VALIDATE)\s*\(")
RULE = re.compile(r"^\s*return tpBroken\(", re.M)
DEFINE = re.compile(r"^\s*#\s*define\b(?:.*\\\n)*.*$", re.M)  # with its continuation lines
COMMENT = re.compile(r"/\*.*?\*/|//[^\n]*", re.S)


def count(folder):
    lines = checks = 0
    for dirpath, _, names in os.walk(os.path.join(ROOT, folder)):
        for name in sorted(names):
            if not name.endswith((".c", ".h")):
                continue
            with open(os.path.join(dirpath, name), encoding="utf-8") as fh:
                text = fh.read()
            lines += text.count("\n")
            body = DEFINE.sub("", COMMENT.sub(" ", text))  # comments and the macros' definitions are not checks
            checks += len(MACRO.findall(body))
            if "validate" in name and name.endswith(".c"):
                checks += len(RULE.findall(body))
    return lines, checks


def main(argv):
    floor, named = None, []
    if argv[:1] == ["--floor"]:
        floor, named = float(argv[1]), argv[2:]
    bad = []
    for folder in FOLDERS:
        lines, checks = count(folder)
        density = 1000.0 * checks / lines if lines else 0.0
        mark = ""
        if folder in named and density < floor:
            bad.append(folder)
            mark = "  BELOW THE FLOOR"
        print(f"{folder:8s} {lines:6d} lines {checks:4d} checks {density:5.1f} per 1,000{mark}")
    for folder in named:
        if folder not in FOLDERS:
            print(f"invariants.py: unknown folder '{folder}'", file=sys.stderr)
            return 2
    if bad:
        print(f"invariants.py: below {floor:g} checks per 1,000 lines: {', '.join(bad)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
