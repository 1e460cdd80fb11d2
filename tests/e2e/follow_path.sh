#!/usr/bin/env bash
# follow_path replans around a moving body (scripts/follow_path_cart.lua): with follow_path the
# robot gets around the head-on cart without touching it (solved, and the plan replays bit for
# bit); with nav_to (static walls only) the same deterministic tactic drives into it (unsolved,
# exit 3). Usage: follow_path.sh TPLAN SCRIPTS_DIR WORKDIR
set -u
tplan=$1 script=$2/follow_path_cart.lua work=$3/follow_path
rm -rf "$work" && mkdir -p "$work"
fail=0
"$tplan" plan "$script" --set skill=follow_path -q -o "$work/fp.plan.json"
rc=$?
if [ $rc -ne 0 ]; then echo "FAIL: follow_path: tplan plan exited $rc (0 = solved expected)"; fail=1; fi
if [ $rc -eq 0 ] && ! "$tplan" replay -q "$work/fp.plan.json"; then echo "FAIL: follow_path: replay failed"; fail=1; fi
"$tplan" plan "$script" --set skill=nav_to -q -o "$work/nav_to.plan.json"
rc=$?
if [ $rc -ne 3 ]; then echo "FAIL: nav_to: tplan plan exited $rc (3 = unsolved expected: it cannot see the cart)"; fail=1; fi
[ $fail -eq 0 ] && echo "follow_path avoids the moving cart; nav_to does not"
[ $fail -eq 0 ]
