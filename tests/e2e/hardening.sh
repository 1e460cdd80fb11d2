#!/usr/bin/env bash
# Regression tests for the fuzzing and abuse campaign of the hostile-input audit (values that aborted ODE,
# messages without a position) and the callback audit of the callback audit (an error in any Lua callback
# kind is "file:line: message", exit 2; never a silent NaN or a 0-step plan). Each case is a
# small domain written here; the expected exit status and message fragment are in the table.
# Usage: hardening.sh TPLAN WORKDIR
set -u
tplan=$1 work=$2/hardening
rm -rf "$work" && mkdir -p "$work"
. "$(dirname "$0")/lib.sh"
# make_domain's pieces come from these variables: none may come in from the caller's environment
unset BODY TOP SKILL GOAL EXTRA TRANS

# A one-robot domain; $1 = file, then named pieces (defaults in braces).
#   BODY: extra fields of the robot; TOP: code before tp.domain; SKILL: the robot's skill;
#   GOAL, EXTRA: goal and extra tp.domain fields; TRANS: the tactic's transitions.
make_domain() {
  local skill=${SKILL:-} goal=${GOAL:-}
  [ -n "$skill" ] || skill='tp.skill.wait { name = "w", duration = 0.1 }'
  [ -n "$goal" ] || goal='function(s) return s.t > 0.3 end'
  cat >"$1" <<EOF
local tp = require "tp"
${TOP:-}
return tp.domain {
  name = "hard",
  bodies = {
    tp.plane { name = "ground" },
    tp.box { name = "robot", class = "active", size = {0.2, 0.2, 0.2}, mass = 1, pos = {0, 0, 0.1}${BODY:+, $BODY} },
  },
  tactics = { tp.tactic { name = "t", body = "robot",
    skills = { $skill, tp.skill.wait { name = "w2", duration = 0.05 } }
    ${TRANS:+, transitions = $TRANS} } },
  goal = $goal,
  ${EXTRA:-}
  planner = { max_iters = 300 },
}
EOF
}

# name | variables (KEY=VALUE;...) | extra options | expected exit | message (grep -F), "" = any
cases=(
  "angvel 1e150|BODY=angvel = {1e150, 0, 0}||2|hard.lua:7: body \"robot\": angvel[0] = 1e+150 is outside +-100000 rad/s"
  "vel 1e307|BODY=vel = {0, 1e307, 0}||2|vel[1] = 1e+307 is outside"
  "pos -1e308|BODY=pos = {0, 0, -1e308}||2|pos[2] = -1e+308 is outside"
  "mass 1e-300|BODY=mass = 1e-300||2|mass = 1e-300 is outside"
  "max_force 1e300|BODY=max_force = 1e300||2|max_force and max_torque must be <="
  "custom torque 1e308|SKILL=tp.skill.custom { name = \"c\", run = function(ctx) ctx:torque(\"robot\", 1e308, 0, 0) return true end }||2|the skills gave body 'robot' a torque x component of 1e+308"
  "huge finite force: invalid nodes, no abort|BODY=mass = 1e-6, size = {1e-6, 1e-6, 1e-6}, pos = {0, 0, 5e-7};SKILL=tp.skill.custom { name = \"c\", run = function(ctx) ctx:force(\"robot\", 1e11, 0, 0) ctx:torque(\"robot\", 1e11, 0, 0) return false end };GOAL=function(s) return false end|--max-iters 50|3|"
  "quality raises|EXTRA=quality = function(s) error(\"boom in quality\") end,;GOAL=function(s) return false end||2|hard.lua:13: boom in quality"
  "quality returns a boolean|EXTRA=quality = function(s) return true end,;GOAL=function(s) return false end||2|hard.lua:13: metric function must return a number, got boolean"
  "goal raises|GOAL=function(s) error(\"boom in goal\") end||2|hard.lua:12: boom in goal"
  "goal returns a number|GOAL=function(s) return 1 end||2|condition function must return a boolean, got number"
  "valid raises|EXTRA=valid = function(s) error(\"boom in valid\") end,||2|hard.lua:13: boom in valid"
  "solution metric raises|EXTRA=solution_metric = function(path) error(\"boom in metric\") end,||2|hard.lua:13: boom in metric"
  "solution metric returns nil|EXTRA=solution_metric = function(path) end,||2|metric function must return a number, got nil"
  "transition row raises|TRANS={ w = function(s) error(\"boom in row\") end }||2|hard.lua:11: boom in row"
  "transition row value not a number|TRANS={ w = function(s) return { w2 = print } end }||2|probability of 'w2' must be a number, got function"
  "custom skill raises|SKILL=tp.skill.custom { name = \"c\", run = function(ctx) error(\"boom in skill\") end }||2|hard.lua:10: boom in skill"
  "custom skill returns a string|SKILL=tp.skill.custom { name = \"c\", run = function(ctx) return \"x\" end }||2|custom skill must return true (busy) or false/nil (done), got string"
  "error(nil)|TOP=error(nil)||2|hard.lua:2: error(nil) raised"
  "error in C (table.sort)|TOP=table.sort({1, \"a\", 2})||2|hard.lua:2: attempt to compare"
  "yield in a goal|GOAL=function(s) coroutine.yield(1) return true end||2|hard.lua:12: attempt to yield from outside a coroutine"
)
for row in "${cases[@]}"; do
  IFS='|' read -r name vars opts want msg <<<"$row"
  (
    IFS=';'
    for kv in $vars; do export "${kv%%=*}=${kv#*=}"; done
    make_domain "$work/hard.lua"
  )
  # shellcheck disable=SC2086
  "$tplan" plan "$work/hard.lua" --no-out -q $opts >"$work/out.txt" 2>"$work/err.txt"
  rc=$?
  check "$name: exit $rc, expected $want ($(head -c 300 "$work/err.txt"))" $([ $rc -eq "$want" ]; echo $?)
  if [ -n "$msg" ]; then
    grep -qF -- "$msg" "$work/err.txt"
    r=$?
    check "$name: expected '$msg', got: $(head -c 300 "$work/err.txt")" $r
    check "$name: one line on stderr" $([ "$(wc -l <"$work/err.txt")" -eq 1 ]; echo $?)
  fi
done

# --set values beyond a parameter's declared range are refused at the tp.param line (they used to
# abort ODE or build a 4-billion-entry table)
for row in "dice|grid_z=1e308|expected a number in [0, 1000]" "racing|hmax=4294967296|expected an integer in [1, 16]" \
           "dice|count=1e9|expected an integer in [1, 100000]" "pool|mode=bogus|expected one of chain, single" \
           "pool|target=cue|expected one of yellow, blue, red"; do
  IFS='|' read -r dom set msg <<<"$row"
  "$tplan" plan "$dom" --set "$set" --no-out -q >/dev/null 2>"$work/err.txt"
  rc=$?
  check "$dom --set $set: exit $rc, expected 2" $([ $rc -eq 2 ]; echo $?)
  grep -qF -- "$msg" "$work/err.txt"
  r=$?
  check "$dom --set $set: expected '$msg', got: $(head -c 300 "$work/err.txt")" $r
done

# a string parameter's choices: a bad declaration is refused at its line
for row in 'tp.param("m", "a", { choices = { "b" } })|the default '"'"'a'"'"' is not one of its choices' \
           'tp.param("m", "a", { choices = {} })|choices must list 1 to 64 strings' \
           'tp.param("m", "a", { choices = { "a", 3 } })|choices[2] must be a string' \
           'tp.param("m", "a", { min = 1 })|unknown field'; do
  IFS='|' read -r line msg <<<"$row"
  printf 'local tp = require "tp"\n%s\nreturn nil\n' "$line" > "$work/choices.lua"
  "$tplan" plan "$work/choices.lua" --no-out -q >/dev/null 2>"$work/err.txt"
  grep -qF -- "choices.lua:2:" "$work/err.txt" && grep -qF -- "$msg" "$work/err.txt"
  r=$?
  check "$line: expected '$msg' at line 2, got: $(head -c 300 "$work/err.txt")" $r
done

# A controlled box whose max_force is below its floor friction cannot move: warned at load time,
# one line naming the body and both forces. max_force 40 N (above 39.24 N): no warning.
for mf in 30:1 40:0; do
  BODY="max_force = ${mf%%:*}, size = {0.4, 0.4, 0.2}, mass = 4" EXTRA='materials = { tp.material { name = "rubber", friction = 1.0 } },' \
    make_domain "$work/stuck.lua"
  "$tplan" plan "$work/stuck.lua" --no-out --max-iters 10 >/dev/null 2>"$work/err.txt"
  n=$(grep -c "warning: $work/stuck.lua:[0-9]*: body 'robot' cannot slide: max_force ${mf%%:*} N is not above its friction on 'ground' (mu 1 x 4 kg x 9.81 m/s^2 = 39.24 N)" "$work/err.txt")
  check "max_force ${mf%%:*}: ${mf#*:} warning(s) expected, got $n: $(head -c 300 "$work/err.txt")" $([ "$n" -eq "${mf#*:}" ]; echo $?)
done

# Control characters never reach the terminal: a body name with an escape sequence is refused
# (names reach terminals, files and web pages), and a script's error text is printed with its
# control characters as \xNN (an ESC in either once recoloured the user's terminal).
printf 'local tp = require "tp"\nreturn tp.domain { name = "esc", bodies = { tp.plane { name = "g" },\n  tp.box { name = "ro\\27[31mbot", class = "active", size = {0.2, 0.2, 0.2}, mass = 1, pos = {0, 0, 0.1} } },\n  tactics = {}, goal = function(s) return true end }\n' > "$work/esc.lua"
"$tplan" plan "$work/esc.lua" --no-out -q >/dev/null 2>"$work/err.txt"
rc=$?
grep -qF -- "name has a control character (byte 0x1b at offset 2)" "$work/err.txt" && [ $rc -eq 2 ]
check "a body name with ESC: exit 2 (got $rc) and the byte named: $(head -c 300 "$work/err.txt" | cat -v)" $?
# the same for a tactic's, a skill's and the domain's name
for row in 'TRANS_NAME|t\\27x|tactic #1: name has a control character (byte 0x1b at offset 1)' \
           'SKILL_NAME|w\\tx|skill #1: name has a control character (byte 0x09 at offset 1)' \
           'DOMAIN_NAME|h\\127|domain: name has a control character (byte 0x7f at offset 1)'; do
  IFS='|' read -r what name msg <<<"$row"
  tname=t sname=w dname=hard
  case $what in TRANS_NAME) tname=$name ;; SKILL_NAME) sname=$name ;; DOMAIN_NAME) dname=$name ;; esac
  printf 'local tp = require "tp"\nreturn tp.domain { name = "%s", bodies = { tp.plane { name = "g" },\n  tp.box { name = "robot", class = "active", size = {0.2, 0.2, 0.2}, mass = 1, pos = {0, 0, 0.1} } },\n  tactics = { tp.tactic { name = "%s", body = "robot", skills = { tp.skill.wait { name = "%s", duration = 0.1 } } } },\n  goal = function(s) return s.t > 0.2 end }\n' "$dname" "$tname" "$sname" > "$work/esc3.lua"
  "$tplan" plan "$work/esc3.lua" --no-out -q >/dev/null 2>"$work/err.txt"
  rc=$?
  grep -qF -- "$msg" "$work/err.txt" && [ $rc -eq 2 ]
  check "$what with a control character: exit 2 (got $rc), '$msg': $(head -c 300 "$work/err.txt" | cat -v)" $?
done
printf 'local tp = require "tp"\nerror("red \\27[31m text \\7 bell")\n' > "$work/esc2.lua"
"$tplan" plan "$work/esc2.lua" --no-out -q >/dev/null 2>"$work/err.txt"
rc=$?
grep -qF -- 'red \x1b[31m text \x07 bell' "$work/err.txt" && ! grep -q "$(printf '\033')" "$work/err.txt" && [ $rc -eq 2 ]
check "a script error with ESC and BEL: written as \\xNN, exit 2 (got $rc): $(head -c 300 "$work/err.txt" | cat -v)" $?

finish
