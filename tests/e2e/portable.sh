#!/usr/bin/env bash
# Portable plans: a plan embeds its script and every file the script read
# (a module from lib/, a track, a binary image), so that `tplan replay` works after the plan is
# moved to another folder and the domain's folder is renamed away; a file edited inside the plan is
# refused with a reason; no absolute path gets into plans, exports or messages; plans written before
# (no "sources") still replay from their recorded path; a built-in domain's plan, and its messages,
# never show the install path; and -o / --tree cannot overwrite a file the script read (the repro
# plan_out_overwrites_module.sh).
# Usage: portable.sh TPLAN DOMAINS_DIR WORKDIR
set -u
tplan=$(realpath "$1") domains=$2 work=$3/portable
rm -rf "$work" && mkdir -p "$work"
work=$(cd "$work" && pwd) # absolute: the path that must not leak
. "$(dirname "$0")/lib.sh"

src="$work/src"
mkdir -p "$src/lib" "$src/tracks" "$work/elsewhere" "$work/cwd"
cp "$domains/lib/walls.lua" "$src/lib/"
cp "$domains/tracks/straight.json" "$src/tracks/"
printf 'P5\n3 2\n255\n\000\377\000\377\000\377' >"$src/mark.pgm" # binary: embedded as base64
cat >"$src/dom.lua" <<'LUA'
-- reads a module, a track and an image: all three must travel with the plan
local tp = require "tp"
local walls = require "walls"               -- lib/walls.lua
local track = tp.nav.track("straight")      -- tracks/straight.json
local cells = tp.pattern { image = "mark.pgm", count = 3, pitch = 0.5 }
local gx = 1 + #track.walls / 10 + #cells / 10 -- the files decide the goal
return tp.domain {
  name = "portable",
  bodies = {
    tp.plane { name = "floor" },
    walls.slab("post", 3, 3.2, 2, 2.2, 0, 0.3),
    tp.box { name = "robot", class = "active", size = { 0.2, 0.2, 0.1 }, mass = 1, pos = { 0, 0, 0.05 },
             max_force = tp.param("max_force", 20), planar = true },
  },
  tactics = { tp.tactic { name = "t", body = "robot",
    skills = { tp.skill.drive_to { name = "go", point = tp.uniform({ gx - 0.5, -0.5 }, { gx + 0.5, 0.5 }) } } } },
  goal = tp.within { body = "robot", center = { gx, 0 }, radius = 0.2 },
  quality = tp.distance { body = "robot", to = { gx, 0 } },
  planner = { max_iters = 3000 },
}
LUA

# plan by the absolute path, with an override; the plan holds no absolute path
"$tplan" plan "$src/dom.lua" --seed 2 --set max_force=25 -q -o "$work/p.json" --tree "$work/p.tree"
rc=$?
check "plan: exit $rc, expected 0 or 3" $([ $rc -eq 0 ] || [ $rc -eq 3 ]; echo $?)
check "the plan holds no absolute path ($work)" $(! grep -q "$work" "$work/p.json"; echo $?)
python3 - "$work/p.json" <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))
got = [(s["path"], "text" in s, "base64" in s) for s in p["sources"]]
want = [("dom.lua", True, False), ("lib/walls.lua", True, False), ("tracks/straight.json", True, False),
        ("mark.pgm", False, True)]
ok = p["domain"]["file"] == "dom.lua" and got == want
sys.exit(0 if ok else print("domain:", p["domain"], "sources:", got) or 1)
PY
check "domain.file and the embedded sources (script, module, track, image)" $?

# the same domain in another folder, planned by a relative path from elsewhere: the same bytes
cp -r "$src" "$work/src_copy"
(cd "$work/cwd" && "$tplan" plan ../src_copy/dom.lua --seed 2 --set max_force=25 -q -o "$work/p2.json")
check "the same plan from another folder and path" $(same "$work/p.json" "$work/p2.json"; echo $?)

# move the plan away, rename the domain's folder away, replay from elsewhere: bit for bit
cp "$work/p.json" "$work/elsewhere/moved.json"
mv "$src" "$work/src_gone"
(cd "$work/cwd" && "$tplan" replay ../elsewhere/moved.json --all --check) >"$work/replay.txt" 2>&1
rc=$?
check "replay of the moved plan, source folder gone: exit $rc, expected 0: $(tail -n 3 "$work/replay.txt")" \
  $([ $rc -eq 0 ]; echo $?)
check "replay says bit for bit" $(grep -q "replayed bit for bit" "$work/replay.txt"; echo $?)
check "replay output holds no absolute path" $(! grep -q "$src" "$work/replay.txt"; echo $?)

# the embedded files win over files on the disk: a broken dom.lua and lib/walls.lua beside the plan
# and in the working folder change nothing
mkdir -p "$work/elsewhere/lib" "$work/cwd/lib"
for d in "$work/elsewhere" "$work/cwd"; do
  echo 'error("the disk was read")' >"$d/dom.lua"
  echo 'error("the disk was read")' >"$d/lib/walls.lua"
done
(cd "$work/cwd" && "$tplan" replay ../elsewhere/moved.json -q)
check "replay ignores same-named files on the disk: exit $?" $?
# a plan whose sources lack a file the script reads: refused, naming the file relative to the folder
python3 - "$work/elsewhere/moved.json" "$work/elsewhere/nomodule.json" <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))
p["sources"] = [s for s in p["sources"] if s["path"] != "lib/walls.lua"]
json.dump(p, open(sys.argv[2], "w"))
PY
"$tplan" replay "$work/elsewhere/nomodule.json" -q 2>"$work/nomodule.txt"
rc=$?
check "a module missing from the sources: exit $rc, expected 2: $(cat "$work/nomodule.txt")" $([ $rc -eq 2 ]; echo $?)
check "a module missing from the sources: says which"   $(grep -q "module 'walls' not found (looked for lib/walls.lua and walls.lua among the files recorded in the plan)" \
    "$work/nomodule.txt"; echo $?)

# exports hold no absolute path either
for fmt in glb gltf csv; do
  out="$work/elsewhere/x.$fmt"
  [ $fmt = csv ] && out="$work/elsewhere/csv"
  "$tplan" export "$work/elsewhere/moved.json" --format $fmt -o "$out" -q
  check "export $fmt: exit $?" $?
  check "export $fmt holds no absolute path" $(! grep -rqa "$work" "$out"* ; echo $?)
done

# an embedded file edited in the plan: refused, with the reason, naming no absolute path
tamper() { # FROM TO OUT: the plan with the first FROM replaced by TO
  python3 -c "import sys; t=open(sys.argv[1]).read(); open(sys.argv[4],'w').write(t.replace(sys.argv[2], sys.argv[3], 1))" \
    "$work/elsewhere/moved.json" "$1" "$2" "$3"
}
tamper 'local gx = 1 +' 'local gx = 2 +' "$work/elsewhere/t_script.json"
tamper 'function walls.slab' 'function walls.slob' "$work/elsewhere/t_module.json"
for t in script module; do
  "$tplan" replay "$work/elsewhere/t_$t.json" >"$work/t_$t.txt" 2>&1
  rc=$?
  check "tampered $t: exit $rc, expected 2: $(head -c 300 "$work/t_$t.txt")" $([ $rc -eq 2 ]; echo $?)
  check "tampered $t: the reason" $(grep -q "was changed after planning" "$work/t_$t.txt"; echo $?)
  check "tampered $t: no path of the source folder in the message" $(! grep -q "$src" "$work/t_$t.txt"; echo $?)
done
# an override the script refuses (overrides are not embedded files): named relative to the script
tamper '"max_force":25' '"max_force":"x"' "$work/elsewhere/t_override.json"
"$tplan" replay "$work/elsewhere/t_override.json" >"$work/t_override.txt" 2>&1
rc=$?
check "bad override: exit $rc, expected 2: $(cat "$work/t_override.txt")" $([ $rc -eq 2 ]; echo $?)
check "bad override: names dom.lua:LINE, no absolute path" \
  $(grep -q "overrides.max_force: dom.lua:[0-9]*:" "$work/t_override.txt" && ! grep -q "$src" "$work/t_override.txt"; echo $?)

# a plan of the old kind (no sources, the path as given): replays from that path, and says why not
# when the path is gone
mv "$work/src_gone" "$src"
python3 - "$work/p.json" "$work/old.json" "$src/dom.lua" <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))
del p["sources"]
p["domain"]["file"] = sys.argv[3]
json.dump(p, open(sys.argv[2], "w"))
PY
"$tplan" replay "$work/old.json" -q
check "old plan (no sources): replays from its recorded path: exit $?" $?
mv "$src" "$work/src_gone"
"$tplan" replay "$work/old.json" -q 2>"$work/old.txt"
rc=$?
check "old plan, script gone: exit $rc, expected 2" $([ $rc -eq 2 ]; echo $?)
check "old plan, script gone: says so: $(cat "$work/old.txt")" $(grep -q "not found (use --domain FILE)" "$work/old.txt"; echo $?)
"$tplan" replay "$work/old.json" -q --domain "$work/src_gone/dom.lua"
check "old plan: --domain FILE replays: exit $?" $?
mv "$work/src_gone" "$src"

# a built-in domain: plan, messages and summary show the script's name, not the install path
inst=$(cd "$domains" && pwd)
"$tplan" plan maze --seed 1 --max-iters 2000 -o "$work/maze.json" >"$work/maze.txt" 2>&1
rc=$?
check "built-in maze: exit $rc" $([ $rc -eq 0 ] || [ $rc -eq 3 ]; echo $?)
check "built-in maze: plan and summary without $inst" \
  $(! grep -q "$inst" "$work/maze.json" "$work/maze.txt"; echo $?)
"$tplan" plan pool --set mode=zzz --no-out -q 2>"$work/pool.txt"
rc=$?
check "built-in pool, bad --set: exit $rc, expected 2" $([ $rc -eq 2 ]; echo $?)
check "built-in pool, bad --set: names pool.lua:LINE, not the install path: $(cat "$work/pool.txt")" \
  $(grep -q "^pool.lua:[0-9]*: " "$work/pool.txt" && ! grep -q "$inst" "$work/pool.txt"; echo $?)
(cd "$work/cwd" && TPLAN_DOMAINS=/nonexistent "$tplan" replay "$work/maze.json" -q)
check "built-in maze: replays with no domains folder at all: exit $?" $?

# -o / --tree equal to a file the script read: refused before planning (the module is kept)
cp "$src/lib/walls.lua" "$work/walls.keep"
"$tplan" plan "$src/dom.lua" -o "$src/lib/walls.lua" --max-iters 10 -q 2>"$work/over.txt"
rc=$?
check "-o onto a module: exit $rc, expected 2: $(cat "$work/over.txt")" $([ $rc -eq 2 ]; echo $?)
check "-o onto a module: refusing to overwrite an input" $(grep -q "refusing to overwrite an input" "$work/over.txt"; echo $?)
check "-o onto a module: the module is unchanged" $(cmp -s "$src/lib/walls.lua" "$work/walls.keep"; echo $?)
"$tplan" plan "$src/dom.lua" --tree "$src/tracks/straight.json" --no-out --max-iters 10 -q 2>/dev/null
rc=$?
check "--tree onto a track: exit $rc, expected 2" $([ $rc -eq 2 ]; echo $?)

finish "portable"
