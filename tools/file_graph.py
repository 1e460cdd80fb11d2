#!/usr/bin/env python3
"""File-level dependency graph of one C folder, and its cycles.

An edge a.c -> b.c means a.c includes a header of b.c's (a.c -> b.h when b.h is in the folder) or
uses a function or variable that b.c defines (one declared in a shared header is attributed to the .c
file that defines it, so one header declaring the functions of six files does not hide a cycle
between them). Prints the edges, then every strongly connected component of more than one file
(a cycle), then a summary line.

usage: tools/file_graph.py DIR [DIR ...]   (e.g. tools/file_graph.py skills/src)
       tools/file_graph.py --known FILE DIR [DIR ...]
            the ctest file_cycles: only the summary lines; exit 1 when a folder has a cycle that
            FILE does not list (a new one) or FILE lists one the folder no longer has (remove
            it: the list only shrinks). FILE: lines "DIR: a.c b.c ...", # comments.
"""
import os
import re
import sys

DEF = re.compile(r"^(?!static\b|typedef\b)[A-Za-z_][\w \t\*]*?\b([A-Za-z_]\w*)\(", re.M)
DATA = re.compile(r"^(?!static\b|typedef\b|extern\b)[A-Za-z_][\w \t\*]*?\b([A-Za-z_]\w*)\s*(?:\[[^\]]*\])?\s*=", re.M)
INC = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
IDENT = re.compile(r"\b[A-Za-z_]\w*\b")
COMMENT = re.compile(r"/\*.*?\*/|//[^\n]*", re.S)
STRING = re.compile(r'"(?:\\.|[^"\\])*"')


def strip(text):
    return STRING.sub('""', COMMENT.sub(" ", text))


def main(dirs, quiet=False):
    files = {}
    for d in dirs:
        for name in sorted(os.listdir(d)):
            if name.endswith((".c", ".h")):
                with open(os.path.join(d, name), encoding="utf-8") as fh:
                    files[name] = fh.read()
    defined = {}  # function name -> .c file defining it (not static, at column 0)
    for name, text in files.items():
        if not name.endswith(".c"):
            continue
        body = strip(text)
        for m in DEF.finditer(body):
            # a definition: the parameter list's closing parenthesis is followed by '{'
            depth, i = 0, m.end() - 1
            while i < len(body):
                depth += {"(": 1, ")": -1}.get(body[i], 0)
                if depth == 0:
                    break
                i += 1
            if body[i + 1 :].lstrip().startswith("{"):
                defined[m.group(1)] = name
        for m in DATA.finditer(body):  # data with external linkage (a descriptor row)
            defined[m.group(1)] = name
    edges = {n: set() for n in files}
    for name, text in files.items():
        for inc in INC.findall(text):
            base = os.path.basename(inc)
            if base in files and base != name:
                edges[name].add(base)
        if name.endswith(".c"):
            used = set(IDENT.findall(strip(text)))
            for ident in used:
                owner = defined.get(ident)
                if owner and owner != name:
                    edges[name].add(owner)
    # headers are no nodes of their own: a.c -> x.h -> ... only says a.c reads x.h's declarations
    # (attributed above); keep a header node only when it defines something (static inline)
    for a in sorted(edges):
        if edges[a] and not quiet:
            print(f"{a} -> {', '.join(sorted(edges[a]))}")
    cfiles = {a: {b for b in e if b.endswith(".c")} for a, e in edges.items() if a.endswith(".c")}
    sccs = tarjan(cfiles)
    cycles = [sorted(s) for s in sccs if len(s) > 1]
    for c in cycles:
        print(f"cycle ({len(c)} files): {' '.join(c)}")
    n = sum(len(e) for e in cfiles.values())
    print(f"{len(cfiles)} .c files, {n} edges between them, {len(cycles)} file-level cycle(s)")
    return cycles


def check_known(known_path, dirs):
    known = {}
    with open(known_path, encoding="utf-8") as f:
        for line in f:
            line = line.split("#", 1)[0].strip()
            if line:
                d, files = line.split(":", 1)
                known.setdefault(d.strip().rstrip("/"), []).append(sorted(files.split()))
    bad = 0
    for d in dirs:
        key = d.rstrip("/")
        print(f"{key}: ", end="")
        cycles = main([d], quiet=True)
        listed = known.get(key, [])
        for c in cycles:
            if c not in listed:
                print(f"NEW file-level cycle in {key}: {' '.join(c)} (break it; see {known_path})")
                bad += 1
        for c in listed:
            if c not in cycles:
                print(f"{known_path}: {key}: {' '.join(c)} is no cycle any more: remove the line")
                bad += 1
    return 1 if bad else 0

def tarjan(g):
    index, low, stack, on, out, counter = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(g.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = set()
            while True:
                w = stack.pop()
                on.discard(w)
                comp.add(w)
                if w == v:
                    break
            out.append(comp)

    for v in sorted(g):
        if v not in index:
            visit(v)
    return out


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    if sys.argv[1] == "--known":
        if len(sys.argv) < 4:
            sys.exit(__doc__)
        sys.exit(check_known(sys.argv[2], sys.argv[3:]))
    main(sys.argv[1:])
