#!/usr/bin/env bash
# Untrusted files: a plan, tree, image or track that is not a regular file (/dev/zero, a FIFO,
# a directory), a plan whose values are beyond the physical ranges (a 1e308 torque aborted the
# process inside ODE on replay), and a plan with a NUL in a body name are refused with exit 2 and
# one line naming the file and the reason. `timeout` only guards against the old hangs (a FIFO
# blocked open() forever); it is generous and no test depends on how long anything takes.
# Usage: hostile_files.sh TPLAN WORKDIR
set -u
tplan=$1 work=$2/hostile_files
rm -rf "$work" && mkdir -p "$work"
. "$(dirname "$0")/lib.sh"
# expect_refusal NAME FRAGMENT COMMAND...: exit 2, one line on stderr containing FRAGMENT.
expect_refusal() {
  local name=$1 want=$2
  shift 2
  # ulimit -v: the old plan reader read /dev/zero until memory ran out (not under ASan, which
  # reserves terabytes of address space for its shadow memory).
  (if [ -z "$asan" ]; then ulimit -v 4000000; fi; timeout 300 "$@") >"$work/out.txt" 2>"$work/err.txt"
  local rc=$? found lines
  check "$name: exit $rc, expected 2 ($(head -c 300 "$work/err.txt"))" $([ $rc -eq 2 ]; echo $?)
  # (the result is kept before the message is built: $(...) in the message would reset $?)
  grep -qF -- "$want" "$work/err.txt"
  found=$?
  check "$name: message should contain '$want': $(head -c 300 "$work/err.txt")" $found
  lines=$(wc -l <"$work/err.txt")
  check "$name: one line on stderr, got $lines" $([ "$lines" -eq 1 ]; echo $?)
}

asan=""
grep -q -a __asan_init "$tplan" && asan=1
mkfifo "$work/fifo"
expect_refusal "replay /dev/zero" "/dev/zero: not a regular file" "$tplan" replay /dev/zero
expect_refusal "replay a FIFO" "$work/fifo: not a regular file" "$tplan" replay "$work/fifo"
expect_refusal "replay a directory" "$work: not a regular file" "$tplan" replay "$work"
# an image that is a FIFO or a directory, and a track file that is a FIFO, next to a script that
# reads them (data files must be inside the script's folder)
mkfifo "$work/fifo.pbm" && mkdir "$work/dir.pbm"
for img in fifo dir; do
  printf 'local tp = require "tp"\nlocal c = tp.pattern { image = "%s.pbm", count = 10, pitch = 0.2 }\n' $img \
    >"$work/image_$img.lua"
  expect_refusal "image $img" "$img.pbm: not a regular file" "$tplan" plan "$work/image_$img.lua" --no-out
done
mkdir -p "$work/tracks" && mkfifo "$work/tracks/t.json"
printf 'local tp = require "tp"\nlocal t = tp.nav.track("t")\n' >"$work/track.lua"
expect_refusal "track a FIFO" "tracks/t.json: not a regular file" "$tplan" plan "$work/track.lua" --no-out

# A plan of minigolf (solved: it has steps), then the robot's first control row made 1e308.
"$tplan" plan minigolf -q -o "$work/a.json"
rc=$?
check "plan minigolf: exit $rc (expected 0 or 3)" $([ $rc -eq 0 ] || [ $rc -eq 3 ]; echo $?)
"$tplan" replay -q "$work/a.json"
check "the untouched plan replays" $?
# the robot's first control row made 1e308 (python3 parses and writes the plan: no layout assumed)
robot=$(python3 - "$work/a.json" "$work/same.json" "$work/torque.json" <<'PY'
import json, sys
plan = json.load(open(sys.argv[1]))
json.dump(plan, open(sys.argv[2], "w"))  # the same plan in python's layout
robot = next(i for i, b in enumerate(plan["bodies"]) if b["name"] == "robot")
plan["bodies"][robot]["controls"][0][5] = 1e308
json.dump(plan, open(sys.argv[3], "w"))
print(robot)
PY
)
"$tplan" replay -q "$work/same.json"
check "the plan rewritten by python3 (another layout) still replays" $?
expect_refusal "replay 1e308 torque" "torque.json: bodies[$robot].controls[0][5]: 1e+308 is outside +-1e+12" \
  "$tplan" replay "$work/torque.json"
# a tree file that is a FIFO or /dev/zero (read before any window opens: no display needed)
# (a build without the viewer, TP_VIEWER=OFF, refuses both commands by name before reading anything)
if "$tplan" --help | grep -q '^  view PLAN .*built without the viewer'; then
  expect_refusal "view --tree a FIFO" "view: this tplan was built without the viewer (TP_VIEWER=OFF)" \
    "$tplan" view "$work/a.json" --tree "$work/fifo"
  expect_refusal "render --tree /dev/zero" "render: this tplan was built without the viewer (TP_VIEWER=OFF)" \
    "$tplan" render "$work/a.json" --tree /dev/zero --out "$work/frames"
else
  expect_refusal "view --tree a FIFO" "fifo: not a regular file" "$tplan" view "$work/a.json" --tree "$work/fifo"
  expect_refusal "render --tree /dev/zero" "/dev/zero: not a regular file" \
    "$tplan" render "$work/a.json" --tree /dev/zero --out "$work/frames"
fi
sed 's/"name": "robot"/"name": "rob\\u0000ot"/; s/"body": "robot"/"body": "rob\\u0000ot"/' "$work/a.json" >"$work/nul.json"
expect_refusal "replay a NUL in a name" "nul.json: invalid JSON: line" "$tplan" replay "$work/nul.json"
grep -qF '\u0000 (NUL) inside a string' "$work/err.txt"
found=$?
check "NUL in a name: the message says why" $found

finish
