"""Claims of the docs that the tree can check (repro docs_stale.sh: README listed 4 of the test
labels and 4 of the tools, architecture.md put navigation in core/ and the CLI in lua/, physics.md
pointed to a "design guide" the repository does not have, CONTRIBUTING named the wrong file of the
service's routes, a domain's message quoted at a line it moved from). Each check reads the tree as it is; a new label, tool or file move that the docs
do not follow fails here.
usage: docs_claims.py SOURCE_DIR BUILD_DIR [CTEST]"""
import glob
import os
import re
import subprocess
import sys

SRC, BUILD = sys.argv[1], sys.argv[2]
CTEST = sys.argv[3] if len(sys.argv) > 3 else "ctest"
DOCS = sorted(glob.glob(os.path.join(SRC, "docs", "*.md"))) + [os.path.join(SRC, f) for f in
                                                               ("README.md", "CONTRIBUTING.md")]
problems = []


def text(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


def rel(path):
    return os.path.relpath(path, SRC)


# 1. every ctest label is in README's "labels:" line
readme = text(os.path.join(SRC, "README.md"))
m = re.search(r"labels: ([a-z0-9, ]+)", readme)
named = set(x.strip() for x in m.group(1).split(",")) if m else set()
out = subprocess.run([CTEST, "--test-dir", BUILD, "--print-labels"], capture_output=True, text=True).stdout
labels = set(line.strip() for line in out.split("All Labels:", 1)[-1].splitlines() if line.startswith("  "))
if not labels:
    problems.append("ctest --print-labels printed no label: %r" % out[-300:])
for lab in sorted(labels - named):
    problems.append("README.md: the test label %s is not in its 'labels:' line" % lab)

# 2. every script of tools/ is named in README's tools/ row
row = next((line for line in readme.splitlines() if line.startswith("| `tools/`")), "")
for name in sorted(os.listdir(os.path.join(SRC, "tools"))):
    if not name.startswith(".") and "`%s`" % name not in row:
        problems.append("README.md: tools/%s is not in the tools/ row" % name)

# 3. no pointer to a document the repository does not have
for path in DOCS:
    for n, line in enumerate(text(path).splitlines(), 1):
        if re.search(r"design guide", line, re.I):
            problems.append("%s:%d: a 'design guide' (the repository has none)" % (rel(path), n))

# 4. every path of the tree that the docs name exists: `folder/file` as is, or in the docs'
# shorthand `folder/name.h` (folder/include/tp/name.h) and `folder/name.c` (folder/src/name.c)
tops = [d for d in os.listdir(SRC) if os.path.isdir(os.path.join(SRC, d)) and not d.startswith(".")
        and not d.startswith("build") and d != "node_modules"]  # build folders are made, not shipped
path_re = re.compile(r"(?<![\w./:-])((?:%s)/[\w.\-/]*\w)" % "|".join(map(re.escape, tops)))
PROSE = {"tactics/skills"}  # "tactics/skills" is a pair of words in the prose


def exists(p):
    folder, _, name = p.partition("/")
    return (os.path.exists(os.path.join(SRC, p)) or
            (name.endswith(".h") and os.path.exists(os.path.join(SRC, folder, "include", "tp", name))) or
            (name.endswith(".c") and os.path.exists(os.path.join(SRC, folder, "src", name))))


for path in DOCS:
    for n, line in enumerate(text(path).splitlines(), 1):
        for m in path_re.finditer(line):
            p = m.group(1).rstrip(".")
            if line[m.end():m.end() + 1] in ("*", "{", "<"):  # a pattern (nav/src/nav_*.c), not a path
                continue
            if p in PROSE or re.search(r"[A-Z]{3,}", p) or "/scripts/addons" in p:  # NAME placeholders, Blender's
                continue
            if not exists(p):
                problems.append("%s:%d: %s does not exist" % (rel(path), n, p))

# 5. where the docs say a piece lives, it lives there
arch = text(os.path.join(SRC, "docs", "architecture.md"))
if re.search(r"Navigation \(core/|Pure computation in core\b", arch):
    problems.append("docs/architecture.md: navigation is in nav/, not core/")
if "tplan CLI)" in arch.split("```")[1]:
    problems.append("docs/architecture.md: the diagram puts the tplan CLI in lua/ (it is cli/)")
contrib = text(os.path.join(SRC, "CONTRIBUTING.md"))
m = re.search(r"Routes are dispatched (?:by `(\w+)\(\)` )?in `([\w/.]+)`", contrib)
if not m or not re.search(r"^(static enum MHD_Result|int) %s\(" % (m.group(1) or "route"),
                         text(os.path.join(SRC, m.group(2))), re.M):
    problems.append("CONTRIBUTING.md: the file it names for the service's routes does not dispatch them")

# 6. every whole-program test script is run: named by a CMakeLists.txt or by another test script
# (e2e_domain_authors was lost from tests/e2e/CMakeLists.txt once and ran nowhere for sessions)
runners = {f: text(f) for f in glob.glob(os.path.join(SRC, "tests", "**", "*"), recursive=True)
           if os.path.isfile(f) and (f.endswith(("CMakeLists.txt", ".sh", ".py")))}
for script in sorted(glob.glob(os.path.join(SRC, "tests", "e2e", "*.sh"))):
    name = os.path.basename(script)
    if not any(name in body for f, body in runners.items() if f != script):
        problems.append("%s is run by no test (add it to tests/e2e/CMakeLists.txt)" % rel(script))

# 7. no issue numbers of a tracker that is not in the repository (the word issue, a space, digits) in any tracked
# file: they say nothing to a reader of the tree. The patches under docs/experiments/ are diffs of an
# earlier tree, kept as they were made (their context lines must match that tree), and the fuzz corpus
# holds files an earlier tree wrote (a plan's embedded script is checked against its recorded hash).
try:
    tracked = subprocess.run(["git", "-C", SRC, "ls-files"], capture_output=True, text=True, check=True).stdout.split()
except (OSError, subprocess.CalledProcessError):
    tracked = []  # not a git checkout (a source tarball): nothing to check
issue_re = re.compile(r"\b[Ii]ssues? [0-9]+\b")
for f in tracked:
    if (f.startswith("docs/experiments/") and f.endswith(".patch")) or f.startswith("tests/fuzz/corpus/"):
        continue
    try:
        body = text(os.path.join(SRC, f))
    except (UnicodeDecodeError, OSError):
        continue
    for n, line in enumerate(body.splitlines(), 1):
        if issue_re.search(line):
            problems.append("%s:%d: an issue number of an outside tracker: %s" % (f, n, line.strip()[:120]))

# 8. a message the docs quote from a shipped domain (`pool.lua:54: ...`) names a line of that script that
# can raise it (an error() or a tp.param): the docs quoted pool.lua:67 for years after the line moved
msg_re = re.compile(r"(?<![\w/])((?:domains/)?(?:lib/)?([\w]+)\.lua):([0-9]+):")
for path in DOCS:
    for n, line in enumerate(text(path).splitlines(), 1):
        for m in msg_re.finditer(line):
            name, at = m.group(2), int(m.group(3))
            script = next((f for f in (os.path.join(SRC, "domains", name + ".lua"),
                                       os.path.join(SRC, "domains", "lib", name + ".lua")) if os.path.exists(f)), None)
            if not script:
                continue  # a user's script of an example, not one of ours
            lines = text(script).splitlines()
            src = lines[at - 1] if at <= len(lines) else ""
            quoted = line[m.end():].lstrip().split("`", 1)[0]  # the message as the docs quote it
            param = re.search(r"tp\.param\(\"(\w+)\"", src)
            raised = re.search(r"\berror\(\"([^\"]{1,12})", src)
            if param:  # the parameter's own refusals: its name, or a choice or range the value missed
                ok = quoted.startswith("...") or "set %s=" % param.group(1) in quoted or \
                    re.search(r"expected one of|must be", quoted)
            elif raised:  # the message the line raises, by its first words
                ok = quoted.startswith("...") or raised.group(1) in quoted
            else:
                ok = False
            if not ok:
                problems.append("%s:%d: %s:%d: that line of %s does not raise '%s'" %
                                (rel(path), n, m.group(1), at, rel(script), quoted[:60]))

for p in problems:
    print("FAIL", p)
print("docs claims: %d problem(s)" % len(problems))
sys.exit(1 if problems else 0)
