"""Every relative Markdown link of the installed documentation reaches a file (64 of 214
were broken when docs/ was flattened into DOCDIR and domains/ lived elsewhere).
usage: doc_links.py DOCDIR   (exit 1 listing the broken links, 0 when none)"""
import glob
import os
import re
import sys

root = sys.argv[1]
link = re.compile(r"\]\(([^)#\s]+)(#[^)]*)?\)")
broken, total = [], 0
for md in sorted(glob.glob(os.path.join(root, "**", "*.md"), recursive=True)):
    if os.path.islink(os.path.dirname(md)) or "/domains/" in md[len(root):]:
        continue  # the domains' own notes (through the DOCDIR/domains link) are not the docs
    with open(md, encoding="utf-8") as f:
        text = f.read()
    for m in link.finditer(text):
        target = m.group(1)
        if re.match(r"[a-z]+:", target):
            continue  # http:, https:, mailto:
        total += 1
        if not os.path.exists(os.path.normpath(os.path.join(os.path.dirname(md), target))):
            broken.append(f"{os.path.relpath(md, root)} -> {target}")
for b in broken:
    print("broken link:", b)
print(f"{len(broken)} broken of {total} relative links")
sys.exit(1 if broken or total == 0 else 0)
