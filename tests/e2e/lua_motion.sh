#!/usr/bin/env bash
# tp.motion: a foreign body moved by a Lua function of t (the ride on a tp.motion lift
# is in motion.sh).
#  1. Functions computing exactly what tp.linear, tp.oscillate and tp.rotate compute give the same
#     plan file, byte for byte (but the overrides), on two seeds; a 1e-9 m nudge changes it.
#  2. The error table: every mistake in or about the function is "file:line: message", exit 2,
#     one line, whether it happens while the script loads (t = 0) or during planning, also inside
#     a custom skill that reads the body; a nearly unit quaternion is normalised.
# Usage: lua_motion.sh TPLAN SCRIPTS_DIR WORKDIR
set -u
tplan=$1 scripts=$2 work=$3/lua_motion
rm -rf "$work" && mkdir -p "$work"
. "$(dirname "$0")/lib.sh"
body() { sed -e '/"overrides"/d' -e '/"timing"/,$d' "$1"; } # the plan file but overrides and timing

# 1. Same motion, same plan.
for seed in 1 2; do
  "$tplan" plan "$scripts/motion_function.lua" --seed $seed -q -o "$work/builtin$seed.json"
  check "seed $seed: built-in motions solved" $?
  "$tplan" plan "$scripts/motion_function.lua" --seed $seed --set fn=true -q -o "$work/fn$seed.json"
  check "seed $seed: tp.motion solved" $?
  cmp -s <(body "$work/builtin$seed.json") <(body "$work/fn$seed.json")
  check "seed $seed: tp.motion gives the built-in motions' plan byte for byte" $?
  "$tplan" replay -q "$work/fn$seed.json"
  check "seed $seed: the tp.motion plan replays bit for bit" $?
done
"$tplan" plan "$scripts/motion_function.lua" --seed 1 --set fn=true --set nudge=1e-9 -q -o "$work/nudged.json"
check "nudged: solved" $?
cmp -s <(body "$work/builtin1.json") <(body "$work/nudged.json")
check "a 1e-9 m nudge of the slider's function changes the plan (the comparison can fail)" $([ $? -ne 0 ]; echo $?)
python3 - "$work/fn1.json" <<'PY'
import json, sys
bodies = {b["name"]: b for b in json.load(open(sys.argv[1]))["bodies"]}
crate, slider, spinner = (bodies[n]["trajectory"] for n in ("crate", "slider", "spinner"))
assert crate[-1][0] - crate[0][0] > 2, "the crate was not shoved"
assert abs(slider[60][7] - 0.6) == 0 and abs(spinner[60][12] - 2) == 0, "velocities not the returned ones"
assert spinner[30][3] != spinner[0][3], "the spinner did not turn"
PY
check "the tp.motion bodies moved the crate, with the velocities they returned" $?

# 2. Errors. A domain whose lift moves by the function `fn` written at line 3 of the script;
# RUN is the crate's skill (default: wait).
make_domain() { # file, function body (one line), skill
  local skill=${3:-}
  [ -n "$skill" ] || skill='tp.skill.wait { name = "w", duration = 0.2 }'
  cat >"$1" <<EOF
local tp = require "tp"
local lift
local fn = function(t) $2 end
lift = tp.motion(fn)
return tp.domain {
  name = "motion_error",
  bodies = {
    tp.plane { name = "floor" },
    tp.box { name = "lift", class = "foreign", size = {1, 1, 0.1}, motion = lift },
    tp.box { name = "crate", class = "active", size = {0.3, 0.3, 0.3}, mass = 2, pos = {0, 0, 0.25} },
  },
  tactics = { tp.tactic { name = "t", body = "crate", skills = { $skill } } },
  goal = function(s) return s.t > 1 end,
  planner = { max_iters = 200 },
}
EOF
}
ok='return {0, 0, 0.05}, {1, 0, 0, 0}'
# name | function body | skill | exit | line | message fragment
cases=(
  "error at load|error('no lift here')||2|3|no lift here"
  "error while planning|if t > 0.5 then error('too late') end $ok||2|3|too late"
  "nothing returned|return||2|3|tp.motion function: pos (result 1): expected a vector of 3 numbers, got nil"
  "pos not a table|return 1, {1, 0, 0, 0}||2|3|pos (result 1): expected a vector of 3 numbers, got number"
  "pos of 2 numbers|return {0, 0}, {1, 0, 0, 0}||2|3|pos (result 1): expected a vector of 3 numbers"
  "pos of a string|return {0, 0, 'up'}, {1, 0, 0, 0}||2|3|pos (result 1)\\[3\\]: expected a number, got string"
  "quat missing|return {0, 0, 0.05}||2|3|quat (result 2): expected a vector of 4 numbers, got nil"
  "pos nan|return {0, 0, 0/0}, {1, 0, 0, 0}||2|3|pos (result 1)\\[3\\] must be finite"
  "pos inf during planning|return {0, 0, t > 0.3 and math.huge or 0.05}, {1, 0, 0, 0}||2|3|pos (result 1)\\[3\\] must be finite"
  "quat nan|return {0, 0, 0.05}, {0/0, 0, 0, 0}||2|3|quat (result 2)\\[1\\] must be finite"
  "quat not unit|return {0, 0, 0.05}, {1, 0, 0, 1}||2|3|quat must be a unit quaternion {w, x, y, z} (length 1.41421)"
  "quat zero|return {0, 0, 0.05}, {0, 0, 0, 0}||2|3|quat must be a unit quaternion"
  "linvel without angvel|return {0, 0, 0.05}, {1, 0, 0, 0}, {0, 0, 0}||2|3|return both linvel and angvel, or neither (got table, nil)"
  "angvel of a string|return {0, 0, 0.05}, {1, 0, 0, 0}, {0, 0, 0}, 'spin'||2|3|angvel (result 4): expected a vector of 3 numbers, got string"
  "linvel huge|return {0, 0, 0.05}, {1, 0, 0, 0}, {0, 0, 1e6}, {0, 0, 0}||2|3|out of range"
  "pos beyond the world|return {0, 0, 1e7}, {1, 0, 0, 0}||2|3|out of range"
  "a jump (finite differences)|return {0, 0, t > 0.5 and 1e3 or 0.05}, {1, 0, 0, 0}||2|3|finite differences: a jump in the pose"
  "custom skill reads a failing lift|if t > 0.3 then error('lift broke') end $ok|tp.skill.custom { name = 'c', run = function(ctx) local x, y, z = ctx.state:pos('lift'); ctx.v[1] = z; return false end }|2|3|lift broke"
)
for c in "${cases[@]}"; do
  IFS='|' read -r name fnbody skill rc_want line frag <<<"$c"
  f="$work/err.lua"
  make_domain "$f" "$fnbody" "$skill"
  "$tplan" plan "$f" --no-out >/dev/null 2>"$work/err.txt"
  rc=$?
  check "$name: exit $rc, expected $rc_want ($(head -c 300 "$work/err.txt"))" $([ $rc -eq "$rc_want" ]; echo $?)
  grep -q "^$f:$line: " "$work/err.txt"
  r=$? # before the message: its $(...) would reset $?
  check "$name: message should start with '$f:$line:' but was: $(head -c 300 "$work/err.txt")" $r
  grep -q -- "$frag" "$work/err.txt"
  r=$?
  check "$name: message should mention '$frag': $(head -c 300 "$work/err.txt")" $r
  check "$name: one line on stderr" $([ "$(wc -l <"$work/err.txt")" -eq 1 ]; echo $?)
done
# Not a function: the tp.motion line.
cat >"$work/notfn.lua" <<'EOF'
local tp = require "tp"
local m = tp.motion(42)
EOF
"$tplan" plan "$work/notfn.lua" --no-out 2>"$work/err.txt" >/dev/null
check "tp.motion(42): exit 2" $([ $? -eq 2 ]; echo $?)
grep -q "^$work/notfn.lua:2: tp.motion: expected a function of t" "$work/err.txt"
r=$?
check "tp.motion(42): file:line and message: $(cat "$work/err.txt")" $r
# Accepted: a quaternion off unit length by rounding (normalised), and a custom skill reading the
# lift through its ctx while the lift's function runs inside that call (nested callbacks: ctx
# stays valid after the function returned).
make_domain "$work/near.lua" 'return {0, 0, 0.05}, {1 + 1e-6, 0, 0, 0}'
"$tplan" plan "$work/near.lua" --seed 1 -q -o "$work/near.json"
check "a quaternion of length 1 + 1e-6 is normalised: solved" $?
python3 -c "import json,sys; b={x['name']:x for x in json.load(open(sys.argv[1]))['bodies']}; assert b['lift']['trajectory'][5][3] == 1.0" "$work/near.json"
check "the normalised quaternion is recorded as (1, 0, 0, 0)" $?
make_domain "$work/nested.lua" "$ok" "tp.skill.custom { name = 'c', run = function(ctx) local x, y, z = ctx.state:pos('lift'); ctx.v[1] = z; ctx:force('crate', 0, 0, 0); return ctx.state:pos('crate') > 1 end }"
"$tplan" plan "$work/nested.lua" --seed 1 -q -o "$work/nested.json"
check "a custom skill reads the tp.motion body and keeps using ctx: solved" $?
"$tplan" replay -q "$work/nested.json"
check "nested: replay" $?

finish
