#!/usr/bin/env bash
# Command-line behaviour: bad scripts exit 2 with file:line, corrupt plans are refused with exit 2,
# the same seed gives a byte-identical plan (timing aside), help texts exist, exit codes hold.
# Usage: cli.sh TPLAN SCRIPTS_DIR WORKDIR
set -u
tplan=$1 scripts=$2 work=$3/cli
rm -rf "$work" && mkdir -p "$work"
pass=0 fail=0
check() { # name, condition result (0 = ok)
  if [ "$2" -eq 0 ]; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: $1"; fi
}

# Bad scripts: exit 2 and the message is one line, file:line of the bad statement, no Lua stack
# traceback (TPLAN_TRACEBACK=1 adds it), whether error() or a tp.* function raised it, while
# loading or in a callback during planning, in the script or in a module it requires.
expect_error_in() { # script, file the error is in, line, message fragment
  local s="$scripts/$1" f="$scripts/$2"
  "$tplan" plan "$s" --no-out >"$work/out.txt" 2>"$work/err.txt"
  local rc=$?
  check "$1: exit status $rc, expected 2" $([ $rc -eq 2 ]; echo $?)
  grep -q "^$f:$3: " "$work/err.txt"
  r=$?  # before the message: its $(...) would reset $?
  check "$1: message should start with '$f:$3:' but was: $(head -c 300 "$work/err.txt")" $r
  grep -q -- "$4" "$work/err.txt"
  r=$?  # before the message: its $(...) would reset $?
  check "$1: message should mention '$4': $(head -c 300 "$work/err.txt")" $r
  check "$1: one line on stderr, got: $(head -c 600 "$work/err.txt")" $([ "$(wc -l <"$work/err.txt")" -eq 1 ]; echo $?)
  grep -q "stack traceback" "$work/err.txt"
  check "$1: no stack traceback without TPLAN_TRACEBACK" $([ $? -ne 0 ]; echo $?)
}
expect_error() { expect_error_in "$1" "$1" "$2" "$3"; } # script, line, message fragment
expect_error syntax_error.lua 5 "expected"
expect_error runtime_error.lua 4 "nil"
expect_error unknown_field.lua 6 "mas"
expect_error negative_mass.lua 6 "mass must be > 0"
expect_error bad_track.lua 2 "tp.nav.track: .*no_such.json: cannot open"
expect_error error_call.lua 3 "stop here"
expect_error cond_nested.lua 4 "too late"
expect_error_in cond_error.lua err_helper.lua 4 "unknown body 'no_such_body'"
expect_error_in bad_module.lua bad_module_lib.lua 2 "loading module 'bad_module_lib'"
TPLAN_TRACEBACK=1 "$tplan" plan "$scripts/bad_track.lua" --no-out >/dev/null 2>"$work/err.txt"
check "TPLAN_TRACEBACK=1: exit 2" $([ $? -eq 2 ]; echo $?)
grep -q "^$scripts/bad_track.lua:2: " "$work/err.txt" && grep -q "stack traceback" "$work/err.txt"
check "TPLAN_TRACEBACK=1: the message, then a stack traceback" $?

# Unknown command / option / domain: exit 2.
"$tplan" frobnicate >/dev/null 2>&1; check "unknown command exit 2" $([ $? -eq 2 ]; echo $?)
"$tplan" plan minigolf --bogus 1 >/dev/null 2>&1; check "unknown option exit 2" $([ $? -eq 2 ]; echo $?)
"$tplan" plan no_such_domain >/dev/null 2>&1; check "unknown domain exit 2" $([ $? -eq 2 ]; echo $?)
"$tplan" plan minigolf --mu -3 >/dev/null 2>&1; check "negative mu exit 2" $([ $? -eq 2 ]; echo $?)
# a track name that is not a file next to the script, or tries to leave tracks/: exit 2, file:line
for t in no_such_track ../minigolf; do
  "$tplan" plan racing --set "track=$t" --no-out >/dev/null 2>"$work/err.txt"
  check "racing track=$t exit 2" $([ $? -eq 2 ]; echo $?)
  grep -q "racing.lua:[0-9]*: tp.nav.track" "$work/err.txt"; check "racing track=$t names racing.lua:line" $?
  check "racing track=$t: one line on stderr" $([ "$(wc -l <"$work/err.txt")" -eq 1 ]; echo $?)
done

# Help for every command.
for c in "" plan replay domains view render; do
  "$tplan" $c --help >"$work/help.txt" 2>&1
  check "tplan $c --help exit 0" $?
  grep -q "usage: tplan" "$work/help.txt"; check "tplan $c --help prints usage" $?
done
"$tplan" domains >"$work/domains.txt"; check "tplan domains exit 0" $?
grep -q "minigolf" "$work/domains.txt"; check "tplan domains lists minigolf" $?

# Determinism: the same seed and flags give byte-identical plan files apart from stats.timing.
"$tplan" plan minigolf --seed 7 -q -o "$work/a.json"; rc=$?; check "plan a exit 0 or 3 ($rc)" $([ $rc -eq 0 ] || [ $rc -eq 3 ]; echo $?)
"$tplan" plan minigolf --seed 7 -q -o "$work/b.json"; rc=$?; check "plan b exit 0 or 3 ($rc)" $([ $rc -eq 0 ] || [ $rc -eq 3 ]; echo $?)
strip() { sed '/"timing"/,/}/d' "$1"; }
cmp -s <(strip "$work/a.json") <(strip "$work/b.json"); check "same seed gives identical plans" $?
grep -q '"timing"' "$work/a.json"; check "plan has stats.timing" $?
"$tplan" plan minigolf --seed 8 -q -o "$work/c.json"
cmp -s <(strip "$work/a.json") <(strip "$work/c.json"); check "another seed gives another plan" $([ $? -ne 0 ]; echo $?)

# Approximate: with 5 iterations nothing is solved: exit 3, status approximate, still replayable.
"$tplan" plan minigolf --max-iters 5 -q -o "$work/approx.json"
check "approximate exit 3" $([ $? -eq 3 ]; echo $?)
grep -q '"status": *"approximate"' "$work/approx.json"; check "approximate status recorded" $?
"$tplan" replay -q "$work/approx.json"; check "approximate plan replays" $?

# Many-worlds: --solutions 3 records 3 worlds; all replay.
"$tplan" plan minigolf --planner rrt --seed 2 --solutions 3 --max-iters 300000 -q -o "$work/many.json"
check "solutions 3 exit 0" $?
grep -q '"alternatives": \[\]' "$work/many.json"; check "many-worlds: alternatives recorded" $([ $? -ne 0 ]; echo $?)
"$tplan" replay -q --all "$work/many.json"; check "every world replays" $?

# Replay catches a tampered trajectory (exit 1) and refuses corrupt files (exit 2).
# Tamper with one recorded control of the robot (the 3rd row): replay must report a mismatch.
awk 'BEGIN { body = ""; row = -1 }
     /"name": "robot"/ { body = "robot" }
     /"name": "/ && !/"name": "robot"/ { if (row < 0) body = "" }
     body == "robot" && /"controls": \[/ { row = 0; print; next }
     row >= 0 && /^ *\[/ { row++; if (row == 3) { sub(/\[[^]]*\]/, "[1, 1, 0, 0, 0, 1]"); row = -2; body = "" } }
     { print }' "$work/a.json" >"$work/tampered.json"
cmp -s "$work/a.json" "$work/tampered.json"; check "tampering changed the file" $([ $? -ne 0 ]; echo $?)
"$tplan" replay "$work/tampered.json" >/dev/null 2>"$work/err.txt"
check "tampered plan: replay exit 1" $([ $? -eq 1 ]; echo $?)
grep -q "step" "$work/err.txt"; check "tampered plan: names the differing step" $?
head -c 2000 "$work/a.json" >"$work/truncated.json"
"$tplan" replay "$work/truncated.json" >/dev/null 2>"$work/err.txt"
check "truncated plan: exit 2" $([ $? -eq 2 ]; echo $?)
sed 's/"version": 1/"version": 9/' "$work/a.json" >"$work/v9.json"
"$tplan" replay "$work/v9.json" >/dev/null 2>"$work/err.txt"
check "wrong version: exit 2" $([ $? -eq 2 ]; echo $?)
grep -q "version" "$work/err.txt"; check "wrong version: message names the version" $?
"$tplan" replay "$work/does-not-exist.json" >/dev/null 2>&1
check "missing plan: exit 2" $([ $? -eq 2 ]; echo $?)

echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
