#!/usr/bin/env bash
# The command's hard deadline (cli/watchdog.c, docs/cli.md "Exit status"): `plan`, `replay` of a plan
# carrying a script that never ends (a stranger's plan), and `plan --jobs` stop at --hard-deadline
# with exit 4 and one line, whatever the script's own limits say. (The other trigger, a script
# running 10 s + 10 % past an armed limit in a call the limit cannot interrupt, is test_cli's
# test_watchdog: no script we know of escapes its limit any more, see limits.sh.) Each run is
# bounded by `timeout`; nothing waits for time.
# Usage: hard_deadline.sh TPLAN WORKDIR
set -u
tplan=$1 work=$2/hard_deadline
here=$(dirname "$0")
rm -rf "$work" && mkdir -p "$work"
. "$here/lib.sh"

# run NAME LABEL COMMAND...: exit 4, one line "tplan: error: LABEL: still running ... (--hard-deadline 0.5)"
run() {
  local what=$1 label=$2
  shift 2
  timeout -k 5 60 "$@" >"$work/out.txt" 2>"$work/err.txt"
  local rc=$?
  check "$what: exit $rc, expected 4, stderr: $(head -c 300 "$work/err.txt")" $([ $rc -eq 4 ]; echo $?)
  grep -qE "^tplan: error: $label: still running [0-9.]+ s after the start: stopped at the hard deadline \(--hard-deadline 0.5\)$" \
    "$work/err.txt"
  local r=$?
  check "$what: the hard deadline's line, got: $(head -c 300 "$work/err.txt")" $r
  check "$what: one line on stderr" $([ "$(wc -l <"$work/err.txt")" -eq 1 ]; echo $?)
}

# a script whose top level loops, with a load limit the run never reaches
sed 's/^local tp = require "tp"$/local tp = require "tp"\nwhile true do end/' "$here/limits/base.lua" >"$work/loop.lua"
run "plan" "$work/loop.lua" "$tplan" plan "$work/loop.lua" --no-out -q --load-time-limit 60 --hard-deadline 0.5
run "plan --jobs 2" "$work/loop.lua" "$tplan" plan "$work/loop.lua" --no-out -q --jobs 2 --load-time-limit 60 --hard-deadline 0.5
# the well-behaved domain is unaffected by a deadline it does not reach
cp "$here/limits/base.lua" "$work/base.lua"
expect "plan within its hard deadline" "$tplan" plan "$work/base.lua" -o "$work/base.plan.json" -q --hard-deadline 600
expect "replay within its hard deadline" "$tplan" replay "$work/base.plan.json" -q --hard-deadline 600
# the loop embedded in the plan, replayed with the default 10 s load limit
python3 "$here/swap_script.py" "$work/base.plan.json" "$work/loop.lua" "$work/loop.plan.json"
run "replay" "$work/loop.plan.json" "$tplan" replay "$work/loop.plan.json" -q --hard-deadline 0.5
timeout 60 "$tplan" replay "$work/loop.plan.json" --hard-deadline x >/dev/null 2>"$work/err.txt"
rc=$?
check "a bad --hard-deadline: exit $rc, expected 2" $([ $rc -eq 2 ]; echo $?)
grep -qF -- "--hard-deadline expects a number >= 0 (got 'x')" "$work/err.txt"
check "a bad --hard-deadline: its message, got: $(head -c 300 "$work/err.txt")" $?
finish
