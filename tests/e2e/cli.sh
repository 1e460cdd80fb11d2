#!/usr/bin/env bash
# Command-line behaviour: bad scripts exit 2 with file:line, corrupt plans are refused with exit 2,
# the same seed gives a byte-identical plan (timing aside), help texts exist, exit codes hold.
# Usage: cli.sh TPLAN SCRIPTS_DIR WORKDIR
set -u
tplan=$1 scripts=$2 work=$3/cli
rm -rf "$work" && mkdir -p "$work"
. "$(dirname "$0")/lib.sh"

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

# A build without the viewer (TP_VIEWER=OFF) lists view and render apart and refuses them by name
# (exit 2, one line) before reading any option: vfrag gives the message expected of a view command.
viewer=1 vcmds="view render"
if "$tplan" --help | grep -q '^  view PLAN .*built without the viewer'; then viewer=0 vcmds=""; fi
vfrag() { if [ $viewer -eq 1 ]; then echo "$1"; else echo "built without the viewer (TP_VIEWER=OFF)"; fi; }

# Help for every command.
for c in "" plan replay domains $vcmds; do
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
grep -q "was the domain changed, or the plan made by a different build (compiler or flags)?" "$work/err.txt"
check "tampered plan: names a changed domain and a different build as causes" $?
head -c 2000 "$work/a.json" >"$work/truncated.json"
"$tplan" replay "$work/truncated.json" >/dev/null 2>"$work/err.txt"
check "truncated plan: exit 2" $([ $? -eq 2 ]; echo $?)
sed 's/"version": 1/"version": 9/' "$work/a.json" >"$work/v9.json"
"$tplan" replay "$work/v9.json" >/dev/null 2>"$work/err.txt"
check "wrong version: exit 2" $([ $? -eq 2 ]; echo $?)
grep -q "version" "$work/err.txt"; check "wrong version: message names the version" $?
"$tplan" replay "$work/does-not-exist.json" >/dev/null 2>&1
check "missing plan: exit 2" $([ $? -eq 2 ]; echo $?)

# Bad option values: exit 2 and exactly one line on stderr naming the option.
expect_refused() { # name, message fragment, command...
  local name=$1 frag=$2
  shift 2
  "$@" >"$work/out.txt" 2>"$work/err.txt"
  local rc=$?
  check "$name: exit $rc, expected 2" $([ $rc -eq 2 ]; echo $?)
  check "$name: one line on stderr, got: $(head -c 600 "$work/err.txt")" $([ "$(wc -l <"$work/err.txt")" -eq 1 ]; echo $?)
  grep -q -- "$frag" "$work/err.txt"
  check "$name: message should mention '$frag': $(head -c 300 "$work/err.txt")" $?
}
expect_refused "--solutions 2000000" "--solutions" "$tplan" plan minigolf --solutions 2000000 --no-out
expect_refused "--seed x" "--seed" "$tplan" plan minigolf --seed x --no-out
expect_refused "--seed 4294967296" "--seed" "$tplan" plan minigolf --seed 4294967296 --no-out
expect_refused "--seed ' 5'" "--seed" "$tplan" plan minigolf --seed " 5" --no-out
expect_refused "--seed '5 '" "--seed" "$tplan" plan minigolf --seed "5 " --no-out
expect_refused "--seed=' 5'" "--seed" "$tplan" plan minigolf "--seed= 5" --no-out
expect_refused "--mu nan" "--mu" "$tplan" plan minigolf --mu nan --no-out
expect_refused "--mu -3" "--mu" "$tplan" plan minigolf --mu -3 --no-out
expect_refused "--time-limit inf" "--time-limit" "$tplan" plan minigolf --time-limit inf --no-out
expect_refused "--max-iters 0" "--max-iters" "$tplan" plan minigolf --max-iters 0 --no-out
expect_refused "--memory-limit=8" "--memory-limit" "$tplan" plan minigolf --memory-limit=8 --no-out
expect_refused "--load-time-limit nan" "--load-time-limit" "$tplan" plan minigolf --load-time-limit nan --no-out
expect_refused "bench --call-time-limit=0" "--call-time-limit" "$tplan" bench --call-time-limit=0
expect_refused "--seeds 0" "--seeds" "$tplan" bench --seeds 0
expect_refused "--seeds=x" "--seeds" "$tplan" bench --seeds=x
expect_refused "view --world 0" "$(vfrag --world)" "$tplan" view "$work/a.json" --world 0
expect_refused "view --world=x" "$(vfrag --world)" "$tplan" view "$work/a.json" --world=x
expect_refused "view --quit-after 0" "$(vfrag --quit-after)" "$tplan" view "$work/a.json" --quit-after 0
expect_refused "view --quit-after=-1" "$(vfrag --quit-after)" "$tplan" view "$work/a.json" --quit-after=-1
expect_refused "render --fps 0" "$(vfrag --fps)" "$tplan" render "$work/a.json" --out "$work/frames" --fps 0
expect_refused "--view-quit-after 0" "$(vfrag --view-quit-after)" "$tplan" plan minigolf --view --view-quit-after 0
expect_refused "unknown option" "--bogus" "$tplan" plan minigolf --bogus 1
expect_refused "abbreviated option" "--sol" "$tplan" plan minigolf --sol 3 --no-out
expect_refused "missing value" "--seed" "$tplan" plan minigolf --no-out --seed
expect_refused "value to a flag" "--no-out" "$tplan" plan minigolf --no-out=yes
# A value with a newline is echoed escaped, on one line.
expect_refused "--set without = and a newline" 'a\\nb' "$tplan" plan minigolf --no-out --set "a
b"
expect_refused "--set value with a newline" 'mode=x\\ny' "$tplan" plan pool --no-out --set "mode=x
y"
expect_refused "--seed with a newline" '5\\n' "$tplan" plan minigolf --no-out --seed "5
"

# --opt=value and --opt value are the same, for every command.
"$tplan" plan minigolf --seed=7 -q --out="$work/eq.json"; rc=$?
check "plan --seed=7 --out=FILE: exit 0 or 3 ($rc)" $([ $rc -eq 0 ] || [ $rc -eq 3 ]; echo $?)
cmp -s <(strip "$work/a.json") <(strip "$work/eq.json"); check "--seed=7 gives the plan of --seed 7" $?
"$tplan" plan minigolf --planner=rrt --max-iters=300 --mu=10 --set=nosuch=1 --no-out -q 2>"$work/err.txt"
grep -q "unknown parameter 'nosuch'" "$work/err.txt"; check "--set=NAME=VALUE reaches the script" $?
"$tplan" plan -q --max-iters 5 --tree "$work/t1.tree" minigolf -o "$work/t1.json"; rc=$?
check "options before and after the domain ($rc)" $([ $rc -eq 3 ]; echo $?)
POSIXLY_CORRECT=1 "$tplan" plan minigolf -q --max-iters 5 --no-out; rc=$?
check "POSIXLY_CORRECT: options after the domain still read ($rc)" $([ $rc -eq 3 ]; echo $?)
"$tplan" replay --domain="$(dirname "$scripts")/../../domains/minigolf.lua" -q "$work/approx.json"
check "replay --domain=FILE" $?
"$tplan" replay -q --all -- "$work/approx.json"; check "replay -- PLAN" $?
"$tplan" bench --domains=minigolf --planners=bgt --seeds=1 --max-iters=2000 -q --out="$work/b.csv" >/dev/null
check "bench --opt=value" $?
"$tplan" bench --domains minigolf --planners bgt --seeds 1 --max-iters 2000 -q -o "$work/b2.csv" >/dev/null
check "bench --opt value" $?
cmp -s <(cut -d, -f1-4,6-8 "$work/b.csv") <(cut -d, -f1-4,6-8 "$work/b2.csv"); check "bench: both forms, same runs" $?

# No output replaces an input or another output (exit 2, nothing written); every output is
# written to a temporary file and renamed, so a failed write leaves the old file whole.
domains_dir="$(dirname "$scripts")/../../domains"
cp "$domains_dir/minigolf.lua" "$work/m.lua"
expect_refused "-o SCRIPT" "domain script" "$tplan" plan "$work/m.lua" -o "$work/m.lua" --max-iters 50
cmp -s "$domains_dir/minigolf.lua" "$work/m.lua"; check "-o SCRIPT: the script is intact" $?
expect_refused "--tree SCRIPT (another spelling)" "domain script" "$tplan" plan "$work/m.lua" --max-iters 50 \
  --tree "$work/../cli/./m.lua"
ln -f "$work/m.lua" "$work/m-link.lua"
expect_refused "-o a hard link of the script" "domain script" "$tplan" plan "$work/m.lua" -o "$work/m-link.lua"
ln -sf m.lua "$work/m-sym.lua"
expect_refused "-o a symlink to the script" "domain script" "$tplan" plan "$work/m.lua" -o "$work/m-sym.lua"
cmp -s "$domains_dir/minigolf.lua" "$work/m.lua"; check "the script is still intact" $?
rm -f "$work/same.json"
expect_refused "-o X --tree X (new file)" "same file" "$tplan" plan minigolf -o "$work/same.json" --tree "$work/same.json"
check "-o X --tree X: nothing written" $([ ! -e "$work/same.json" ]; echo $?)
expect_refused "-o X --tree ./X (new file)" "same file" "$tplan" plan minigolf -o "$work/same.json" \
  --tree "$work/./same.json"
expect_refused "-o X --tree X (existing)" "same file" "$tplan" plan minigolf -o "$work/a.json" --tree "$work/a.json"
"$tplan" plan minigolf --max-iters 5 -q -o /dev/null --tree /dev/null; rc=$?
check "devices are never refused: -o /dev/null --tree /dev/null ($rc)" $([ $rc -eq 3 ]; echo $?)
expect_refused "bench --out X --plot X" "same file" "$tplan" bench --out "$work/x.json" --plot "$work/x.json"

cp "$work/m.lua" "$work/m2.json"
expect_refused "bench --out SCRIPT" "domain script" "$tplan" bench --domains "$work/m2.json" --out "$work/m2.json"
expect_refused "render --video PLAN" "$(vfrag "plan file")" "$tplan" render "$work/a.json" --out "$work/frames" --video "$work/a.json"
cp "$work/a.json" "$work/keep.json"
(trap '' XFSZ; ulimit -f 100; "$tplan" plan minigolf --seed 8 -q -o "$work/a.json" 2>"$work/err.txt"); rc=$?
check "a write that fails (file size limit): exit 1 ($rc)" $([ $rc -eq 1 ]; echo $?)
cmp -s "$work/a.json" "$work/keep.json"; check "a failed write leaves the old plan whole" $?
(ulimit -f 100; exec "$tplan" plan minigolf --seed 8 -q -o "$work/a.json" 2>/dev/null); rc=$?
check "a run killed while writing (SIGXFSZ): rc $rc" $([ $rc -gt 128 ]; echo $?)
cmp -s "$work/a.json" "$work/keep.json"; check "a killed run leaves the old plan whole" $?
check "no temporary file left behind: $(ls -A "$work" | grep '\.tmp-' | head -3)" $(ls -A "$work" | grep -q '\.tmp-'; [ $? -ne 0 ]; echo $?)

# Replay: an override of the plan that the script refuses names the plan file and the override.
"$tplan" plan pool --set mode=single --max-iters 20 -q -o "$work/pool1.json"
check "plan pool --set mode=single (the plan the override cases edit)" $([ -s "$work/pool1.json" ]; echo $?)
sed 's/"mode":"single"/"mode":"zzz"/' "$work/pool1.json" >"$work/bad_ov.json"
expect_refused "replay: bad override" "^$work/bad_ov.json: overrides.mode: .*zzz" "$tplan" replay "$work/bad_ov.json"
sed 's/"overrides": {/"overrides": {"nosuch": 3, /' "$work/pool1.json" >"$work/bad_ov2.json"
expect_refused "replay: unknown override" "^$work/bad_ov2.json: overrides.nosuch: " "$tplan" replay "$work/bad_ov2.json"
sed 's/"mode":"single"/"mode":"a\\nb"/' "$work/pool1.json" >"$work/bad_ov4.json"
expect_refused "replay: override with a newline" "^$work/bad_ov4.json: overrides.mode: .*'a\\nb'" "$tplan" replay "$work/bad_ov4.json"
sed 's/"mode":"single"/"mode":[1]/' "$work/pool1.json" >"$work/bad_ov3.json"
expect_refused "replay: override of a bad type" "$work/bad_ov3.json: overrides.mode: " "$tplan" replay "$work/bad_ov3.json"

# progress in a log (stderr not a terminal): a line every TPLAN_PROGRESS_EVERY s of
# planning; none with -q. The run has no time limit (this domain does not solve): the check reads
# its stderr until the first progress line and then stops it, so it waits for the line, not for a
# time (a limit of 1 s could end a slow, loaded run before its first line); timeout bounds it.
rm -f "$work/progress.fifo" && mkfifo "$work/progress.fifo"
TPLAN_PROGRESS_EVERY=0.2 timeout -k 5 120 "$tplan" plan minigolf_random --max-iters 1000000000 --no-out \
  > /dev/null 2> "$work/progress.fifo" &
progress_pid=$!
grep -m1 '^planning: ' < "$work/progress.fifo" > "$work/progress.txt"
kill "$progress_pid" 2> /dev/null
wait "$progress_pid" 2> /dev/null
n=$(grep -c '^planning: [0-9.]* s, [0-9]* iterations, [0-9]* nodes, 0 solutions$' "$work/progress.txt")
check "progress lines in a log ($n: $(head -c 200 "$work/progress.txt"))" "$([ "$n" -eq 1 ] && echo 0 || echo 1)"
TPLAN_PROGRESS_EVERY=0.2 "$tplan" plan minigolf_random --max-iters 1000000000 --time-limit 1 --no-out -q \
  > /dev/null 2> "$work/progress_q.txt"
check "no progress line with -q" "$(grep -q '^planning:' "$work/progress_q.txt" && echo 1 || echo 0)"

finish
