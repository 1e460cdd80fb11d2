#!/usr/bin/env bash
# One hostile script of tests/e2e/limits/ ("limits no script escapes"): planned, and
# replayed from a plan file that carries it (a stranger's plan: its sources[0] rewritten and
# rehashed, as anyone can), it must stop at its time limit with exit 2 and the one line
# "CASE.lua:LINE: time limit exceeded (...)" naming the limit: the load limit, or the call limit
# when the case's header says "Expected: the call limit". Each run is bounded by `timeout` (a case
# that escapes its limit fails here instead of holding the machine); nothing waits for time.
# Usage: limits.sh TPLAN CASE.lua WORKDIR
set -u
tplan=$1 case=$2 name=$(basename "$2" .lua) work=$3/limits_$(basename "$2" .lua)
here=$(dirname "$0")
rm -rf "$work" && mkdir -p "$work"
. "$here/lib.sh"
limits=(--load-time-limit 0.5 --call-time-limit 0.5)
if grep -q '^-- .*Expected: the call limit' "$case"; then
  # the load limit out of the way: a slow, loaded start (ASan) must not end the run at its top level
  # before the callback that should meet its own limit runs
  limits=(--load-time-limit 60 --call-time-limit 0.5)
  want="one callback ran longer than 0.5 s: --call-time-limit)"
else
  want="the script's top level ran longer than 0.5 s: --load-time-limit)"
fi
cp "$case" "$work/$name.lua"

# run NAME EXPECTED-PATH COMMAND...: exit 2, one line "PATH:LINE: time limit exceeded (WANT"
run() {
  local what=$1 path=$2
  shift 2
  timeout -k 5 60 "$@" >"$work/out.txt" 2>"$work/err.txt"
  local rc=$?
  check "$what: exit $rc, expected 2 (124/137: it escaped the limit), stderr: $(head -c 300 "$work/err.txt")" \
    $([ $rc -eq 2 ]; echo $?)
  grep -qE "^$path:[0-9]+: time limit exceeded \(" "$work/err.txt"
  local r=$?
  check "$what: expected '$path:LINE: time limit exceeded (', got: $(head -c 300 "$work/err.txt")" $r
  grep -qF -- "$want" "$work/err.txt"
  r=$?
  check "$what: expected the limit named ('$want'), got: $(head -c 300 "$work/err.txt")" $r
  check "$what: one line on stderr" $([ "$(wc -l <"$work/err.txt")" -eq 1 ]; echo $?)
}

run "plan $name" "$work/$name.lua" "$tplan" plan "$work/$name.lua" --no-out -q "${limits[@]}"

# the same script in a plan file: plan the well-behaved domain, put the case in its place
cp "$here/limits/base.lua" "$work/$name.base.lua"
expect "plan the base domain" "$tplan" plan "$work/$name.base.lua" -o "$work/base.plan.json" -q
python3 "$here/swap_script.py" "$work/base.plan.json" "$work/$name.lua" "$work/hostile.plan.json"
check "hostile plan written" $?
embedded=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["sources"][0]["path"])' "$work/hostile.plan.json")
run "replay $name" "$embedded" "$tplan" replay "$work/hostile.plan.json" -q "${limits[@]}"
finish "$name"
