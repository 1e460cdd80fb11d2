#!/usr/bin/env bash
# Domain authors' reports, from their reproductions:
# - the warning that a controlled body cannot slide (max_force not above its floor friction) comes
#   before planning (before the summary), also under -q, as "file:line:" of the body, once per run
#   (also with --jobs and in bench), and travels with the plan (stats.warnings);
# - the material "default" can be named whether or not the script defines materials: naming it is
#   the same as naming none, a script's own "default" replaces the built-in one, two are refused.
# Usage: domain_authors.sh TPLAN SCRIPTS_DIR WORKDIR
set -u
tplan=$1 scripts=$2 work=$3/domain-authors
rm -rf "$work" && mkdir -p "$work"
. "$(dirname "$0")/lib.sh"

weak="$scripts/weak_force.lua"
msg="$weak:10: body 'robot' cannot slide: max_force 2 N is not above its friction on 'floor' (mu 0.5 x 2 kg x 9.81 m/s^2 = 9.81 N): raise max_force above 9.81 N or lower the friction"

# -q: the warning is still printed, exactly once, and it is all that is printed
"$tplan" plan "$weak" -q --no-out >"$work/out.txt" 2>"$work/err.txt"
rc=$?
check "weak -q: exit $rc, expected 3 (approximate)" $([ $rc -eq 3 ]; echo $?)
check "weak -q: stderr should be the one warning line, got: $(head -c 600 "$work/err.txt")" \
  $([ "$(cat "$work/err.txt")" = "tplan: warning: $msg" ]; echo $?)
check "weak -q: nothing on stdout, got: $(head -c 300 "$work/out.txt")" $([ ! -s "$work/out.txt" ]; echo $?)

# without -q, stdout and stderr into one file: the warning comes before the summary
"$tplan" plan "$weak" -o "$work/weak.plan.json" >"$work/all.txt" 2>&1
check "weak: the first line should be the warning, got: $(head -n 2 "$work/all.txt")" \
  $([ "$(head -n 1 "$work/all.txt")" = "tplan: warning: $msg" ]; echo $?)
check "weak: the summary follows the warning" $([ "$(sed -n 2p "$work/all.txt" | cut -c1-6)" = "domain" ]; echo $?)
check "weak: one warning" $([ "$(grep -c "warning:" "$work/all.txt")" -eq 1 ]; echo $?)

# the plan file carries it (stats.warnings), naming the script relative to its folder (plans hold
# no absolute path); the same seed gives the same bytes
python3 - "$work/weak.plan.json" "${msg#"$scripts/"}" <<'PY'
import json, sys
w = json.load(open(sys.argv[1]))["stats"].get("warnings")
sys.exit(0 if w == [sys.argv[2]] else print("stats.warnings:", w) or 1)
PY
check "weak: stats.warnings of the plan file" $?
"$tplan" plan "$weak" -q -o "$work/weak2.plan.json" 2>/dev/null
check "weak: the same plan bytes twice" $(same "$work/weak.plan.json" "$work/weak2.plan.json"; echo $?)

# --jobs 2 and bench (2 seeds): still one warning
"$tplan" plan "$weak" -q --no-out --jobs 2 >/dev/null 2>"$work/err.txt"
check "weak --jobs 2: one warning, got: $(cat "$work/err.txt")" $([ "$(grep -c "^tplan: warning: $weak:10: " "$work/err.txt")" -eq 1 ]; echo $?)
"$tplan" bench --domains "$weak" --planners bgt --seeds 2 -q >/dev/null 2>"$work/err.txt"
check "weak bench: one warning, got: $(cat "$work/err.txt")" $([ "$(grep -c "^tplan: warning: $weak:10: " "$work/err.txt")" -eq 1 ]; echo $?)

# strong enough: no warning, no stats.warnings
"$tplan" plan "$weak" --set max_force=20 -q -o "$work/strong.plan.json" >/dev/null 2>"$work/err.txt"
check "max_force 20: no warning, got: $(cat "$work/err.txt")" $([ ! -s "$work/err.txt" ]; echo $?)
check "max_force 20: no stats.warnings" $(grep -q '"warnings"' "$work/strong.plan.json"; [ $? -ne 0 ]; echo $?)

# "default": nameable without materials (the reproduction), and naming it = naming none
dm="$scripts/default_material.lua"
crate() { # PLAN: steps and the crate's last position
  python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(d['steps'], [b['trajectory'][-1][:3] for b in d['bodies'] if b['name'] == 'crate'])" "$1"
}
for mats in none two own; do
  for floor in default omit; do
    "$tplan" plan "$dm" --set mats=$mats --set floor=$floor -q -o "$work/dm-$mats-$floor.json" 2>"$work/err.txt"
    rc=$?
    check "default_material mats=$mats floor=$floor: exit $rc, expected 0: $(head -c 300 "$work/err.txt")" $([ $rc -eq 0 ]; echo $?)
  done
  check "mats=$mats: floor \"default\" slides the crate as no material does" \
    $([ "$(crate "$work/dm-$mats-default.json")" = "$(crate "$work/dm-$mats-omit.json")" ]; echo $?)
done
# with materials, "default" is the first (ice) unless the script defines its own "default"
"$tplan" plan "$dm" --set mats=two --set floor=rubber -q -o "$work/dm-two-rubber.json"
"$tplan" plan "$dm" --set mats=two --set floor=ice -q -o "$work/dm-two-ice.json"
"$tplan" plan "$dm" --set mats=own --set floor=ice -q -o "$work/dm-own-ice.json"
check "mats=two: \"default\" is ice" $([ "$(crate "$work/dm-two-default.json")" = "$(crate "$work/dm-two-ice.json")" ]; echo $?)
check "mats=two: ice and rubber differ" $([ "$(crate "$work/dm-two-ice.json")" != "$(crate "$work/dm-two-rubber.json")" ]; echo $?)
check "mats=own: the script's \"default\" is not the first material" \
  $([ "$(crate "$work/dm-own-default.json")" != "$(crate "$work/dm-own-ice.json")" ]; echo $?)
# two materials named "default": refused at the second one's line
"$tplan" plan "$dm" --set mats=twice --no-out >/dev/null 2>"$work/err.txt"
rc=$?
check "mats=twice: exit $rc, expected 2" $([ $rc -eq 2 ]; echo $?)
grep -qF "$dm:14: duplicate material name 'default'" "$work/err.txt"
check "mats=twice: message, got: $(head -c 300 "$work/err.txt")" $?
# an unknown name lists the materials and what "default" is
"$tplan" plan "$dm" --set mats=two --set floor=grass --no-out >/dev/null 2>"$work/err.txt"
grep -qF "unknown material 'grass' (materials: ice, rubber; \"default\" is ice)" "$work/err.txt"
check "unknown material: message, got: $(head -c 300 "$work/err.txt")" $?
"$tplan" plan "$dm" --set floor=grass --no-out >/dev/null 2>"$work/err.txt"
grep -qF "unknown material 'grass' (materials: default)" "$work/err.txt"
check "unknown material without materials: message, got: $(head -c 300 "$work/err.txt")" $?

# a turn_to that cannot turn its box in place (max_torque below the corners' friction torque) is
# warned of the same way; nav_to turns it while it drives, and 20 N m is enough: no warning then
turn="$scripts/weak_turn.lua"
tmsg="$turn:12: body 'robot' cannot turn in place: max_torque 5 N m is not above the friction torque of its corners on 'floor' (mu 0.565685 x 8 kg x 9.81 m/s^2 x corner distance 0.180278 m = 8.00342 N m): raise max_torque above 8.00342 N m or lower the friction"
"$tplan" plan "$turn" -q --no-out > /dev/null 2> "$work/turn.txt"
check "weak_turn: the one warning, got: $(head -c 600 "$work/turn.txt")" $([ "$(cat "$work/turn.txt")" = "tplan: warning: $tmsg" ]; echo $?)
"$tplan" plan "$turn" -q --no-out --set skill=nav_to > /dev/null 2> "$work/turn_nav.txt"
check "weak_turn nav_to: no warning, got: $(head -c 300 "$work/turn_nav.txt")" $([ ! -s "$work/turn_nav.txt" ]; echo $?)
"$tplan" plan "$turn" -q --no-out --set max_torque=20 > /dev/null 2> "$work/turn_20.txt"
check "weak_turn 20 N m: no warning, got: $(head -c 300 "$work/turn_20.txt")" $([ ! -s "$work/turn_20.txt" ]; echo $?)

finish "domain authors"
