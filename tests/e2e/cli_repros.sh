#!/usr/bin/env bash
# Defects found by attacking the CLI as a hostile user would, each a check:
# - a scene of 100,000 bodies: the duplicate-name check was quadratic inside one C call (50,000
#   bodies took 26.6 s past --time-limit 2, where no limit could see it); now a hash set, and a
#   duplicate among them is still found and named;
# - the time limit is read at every iteration once iterations are slow (it used to be read every
#   16, each over a second with 100,000 bodies).
# - tplan plan -o / --tree naming a module the script required (plan_out_overwrites_module.sh)
#   replaced the module with the plan; refused now, exit 2, the module untouched;
# - tplan export's glTF buffer (x.gltf -> x.bin) and CSV tables (states.csv) are outputs too: a
#   plan named like one of them was overwritten (export_sidecar_overwrites_input.sh);
# - materials are capped at 1,024 (every pair has a surface: 10,000 materials made a table of 100 M).
# `timeout` only guards against a hang; no check depends on how long anything takes.
# Usage: cli_repros.sh TPLAN WORKDIR
set -u
tplan=$(realpath "$1") work=$2/cli_repros
rm -rf "$work" && mkdir -p "$work"
. "$(dirname "$0")/lib.sh"
asan=""
grep -q -a __asan_init "$tplan" && asan=1

cat >"$work/many.lua" <<'LUA'
local tp = require "tp"
local n = tp.param("n", 100000)
local dup = tp.param("dup", false)
local b = { tp.plane { name = "g" },
            tp.box { name = "robot", class = "active", size = {1,1,1}, mass = 1, pos = {0,0,0.5} } }
for i = 1, n do
  b[#b + 1] = tp.box { name = "s" .. i, class = "static", size = {0.01,0.01,0.01}, pos = {i * 0.03, 5, 0.005} }
end
if dup then b[#b + 1] = tp.box { name = "s17", class = "static", size = {0.01,0.01,0.01}, pos = {0, 9, 0.005} } end
return tp.domain { name = "m", bodies = b,
  tactics = { tp.tactic { name = "t", body = "robot", skills = { tp.skill.wait { name = "w", duration = 0.1 } } } },
  goal = function(s) return s.t > 10 end, planner = { max_iters = 20 } }
LUA
n=100000
[ -n "$asan" ] && n=20000 # the sanitizer build: the same checks on a smaller scene
timeout 600 "$tplan" plan "$work/many.lua" --set n=$n --set dup=true --no-out -q 2>"$work/err.txt"
rc=$?
check "a duplicate among $n bodies: exit $rc, expected 2" $([ $rc -eq 2 ]; echo $?)
grep -q "duplicate name (also body #18)" "$work/err.txt"
check "the duplicate is named with the first body of that name: $(head -c 300 "$work/err.txt")" $?
timeout 600 "$tplan" plan "$work/many.lua" --set n=$n --time-limit 0.5 -o "$work/many.json" >"$work/out.txt" 2>&1
rc=$?
check "$n bodies, --time-limit 0.5: exit $rc, expected 3 (approximate at the limit)" $([ $rc -eq 3 ]; echo $?)
iters=$(awk '/^search/ {print $2}' "$work/out.txt")
# the iterations are slow (seconds each): the limit must stop the run before the 16th
check "$n bodies: the time limit stopped the run after $iters iterations (slow iterations read the clock each time)" \
  $([ -n "$iters" ] && [ "$iters" -lt 16 ]; echo $?)

# materials: every pair has a surface, a table that grows with the square: at most 1,024
cat >"$work/mats.lua" <<'LUA'
local tp = require "tp"
local m = {}
for i = 1, tp.param("m", 1025) do m[i] = tp.material { name = "m" .. i, friction = 0.5 } end
return tp.domain { name = "mats", materials = m,
  bodies = { tp.plane { name = "g" },
             tp.box { name = "robot", class = "active", size = {1,1,1}, mass = 1, pos = {0,0,0.5}, material = "m7" } },
  tactics = { tp.tactic { name = "t", body = "robot", skills = { tp.skill.wait { name = "w", duration = 0.1 } } } },
  goal = function(s) return s.t > 10 end, planner = { max_iters = 5 } }
LUA
timeout 600 "$tplan" plan "$work/mats.lua" --no-out -q 2>"$work/err.txt"
rc=$?
check "1,025 materials: exit $rc, expected 2" $([ $rc -eq 2 ]; echo $?)
grep -q "1025 materials, at most 1024" "$work/err.txt"
check "1,025 materials: the message names the limit: $(head -c 300 "$work/err.txt")" $?
timeout 600 "$tplan" plan "$work/mats.lua" --set m=1024 --no-out -q 2>"$work/err.txt"
rc=$?
check "1,024 materials: exit $rc, expected 0 or 3" $([ $rc -eq 0 ] || [ $rc -eq 3 ]; echo $?)

# outputs that are files the script read
domains=$(cd "$(dirname "$0")/../../domains" && pwd)
mkdir -p "$work/nav" && cp "$domains/navigation.lua" "$work/nav/" && cp -r "$domains/lib" "$work/nav/"
cp "$work/nav/lib/walls.lua" "$work/walls.orig"
for opt in -o --tree; do
  other=--no-out
  [ "$opt" = -o ] && other=-q
  timeout 600 "$tplan" plan "$work/nav/navigation.lua" $opt "$work/nav/lib/walls.lua" --max-iters 100 $other -q \
    2>"$work/err.txt"
  rc=$?
  check "plan $opt lib/walls.lua (a module the script read): exit $rc, expected 2" $([ $rc -eq 2 ]; echo $?)
  grep -q "is a file the script read: refusing to overwrite an input" "$work/err.txt"
  check "plan $opt: the message names the input: $(head -c 300 "$work/err.txt")" $?
  cmp -s "$work/walls.orig" "$work/nav/lib/walls.lua"
  check "plan $opt: the module is untouched" $?
done
timeout 600 "$tplan" plan "$work/nav/navigation.lua" --jobs 2 -o "$work/nav/lib/walls.lua" --max-iters 100 -q \
  2>"$work/err.txt"
rc=$?
check "plan --jobs 2 -o lib/walls.lua: exit $rc, expected 2" $([ $rc -eq 2 ]; echo $?)
cmp -s "$work/walls.orig" "$work/nav/lib/walls.lua"
check "plan --jobs 2: the module is untouched" $?
# export's files beside --out
timeout 600 "$tplan" plan minigolf --max-iters 2000 -o "$work/g.json" -q
mkdir -p "$work/ex" && cp "$work/g.json" "$work/ex/p.bin" && cp "$work/g.json" "$work/ex/states.csv"
(cd "$work/ex" && timeout 600 "$tplan" export p.bin -o p.gltf -q 2>"$work/err.txt")
rc=$?
check "export p.bin -o p.gltf (its buffer is p.bin): exit $rc, expected 2" $([ $rc -eq 2 ]; echo $?)
grep -q "glTF buffer 'p.bin' is the plan 'p.bin': refusing to overwrite an input" "$work/err.txt"
check "export: the message names the buffer: $(head -c 300 "$work/err.txt")" $?
(cd "$work/ex" && timeout 600 "$tplan" export states.csv --format csv -o . -q 2>"$work/err.txt")
rc=$?
check "export states.csv --format csv -o .: exit $rc, expected 2" $([ $rc -eq 2 ]; echo $?)
cmp -s "$work/g.json" "$work/ex/p.bin" && cmp -s "$work/g.json" "$work/ex/states.csv"
check "export: both plans untouched" $?
(cd "$work/ex" && timeout 600 "$tplan" export p.bin -o out.gltf -q)
check "export p.bin -o out.gltf still works (out.bin beside it)" $([ -s "$work/ex/out.bin" ]; echo $?)

finish cli_repros
