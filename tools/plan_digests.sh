#!/usr/bin/env bash
# Digest of every shipped domain's plan for seeds 1-5 (dice at count=30, and the 400-dice default
# for the first seed: the flagship at its real size), without the timing
# block (the only wall-clock numbers), the domain file's absolute path (so two checkouts, e.g.
# git worktrees, compare) and the tree's memory_bytes (what the allocator reserved, which changes
# with the tree's chunk sizes, not with the plan). Since the plan-sources audit a plan names its script by file name
# only (the "file" blanking is kept for older builds) and embeds the script and the files it read
# ("sources"): a digest changes with any byte of a domain script or module, comments included, as
# domain.hash always did. A refactor that must keep plans byte-identical
# compares two runs of this:   tools/plan_digests.sh build > before.txt; ...; diff before.txt after.txt
# usage: tools/plan_digests.sh [BUILD_DIR] [SEEDS]   (default: build, "1 2 3 4 5")
set -u
build=${1:-build}; seeds=${2:-1 2 3 4 5}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
for d in $("$build/tplan" domains | awk 'NR>0 && $1 !~ /:$/ {print $1}'); do
  [ -f "domains/$d.lua" ] || continue
  extra=(); [ "$d" = dice ] && extra=(--set count=30)
  for s in $seeds; do
    "$build/tplan" plan "$d" --seed "$s" -q -o "$tmp/p.json" "${extra[@]}" --time-limit 0 >/dev/null 2>&1
    rc=$?
    if [ -f "$tmp/p.json" ]; then h=$(sed -e '/"timing"/,$d' -e 's/"file": "[^"]*"/"file": ""/' -e 's/"memory_bytes": [0-9]*/"memory_bytes": 0/' "$tmp/p.json" | sha256sum | cut -c1-16); else h=none; fi
    echo "$d seed=$s rc=$rc $h"; rm -f "$tmp/p.json"
  done
  if [ "$d" = dice ]; then
    s=${seeds%% *}
    "$build/tplan" plan dice --seed "$s" -q -o "$tmp/p.json" --time-limit 0 >/dev/null 2>&1
    rc=$?
    if [ -f "$tmp/p.json" ]; then h=$(sed -e '/"timing"/,$d' -e 's/"file": "[^"]*"/"file": ""/' -e 's/"memory_bytes": [0-9]*/"memory_bytes": 0/' "$tmp/p.json" | sha256sum | cut -c1-16); else h=none; fi
    echo "dice count=400 seed=$s rc=$rc $h"; rm -f "$tmp/p.json"
  fi
done
