#!/usr/bin/env bash
# Soccer with the man-marking defence (--set defense=mark): a direct shot is blocked, so a plan
# must work the ball first. Runs domains.sh (every seed solved, the first planned twice and
# byte-identical, `tplan replay --all` bit for bit, the robot never within one robot width of an
# adversary, the ball never through one), then checks each selected solution's skill sequence
# (tactic "attacker"): its last ball skill is a dribble, minikick, minichip or lob (a chip over the
# marker), or a flat kick with one of those before it -- never a plain "go to the ball, shoot".
# Usage: soccer_mark.sh TPLAN DOMAINS_SH WORKDIR PLANNER "SEEDS"
set -u
tplan=$1 domains_sh=$2 work=$3 planner=$4 seeds=$5
fail=0
if ! bash "$domains_sh" "$tplan" "$work" soccer "$planner" "$seeds" foes --set defense=mark; then
  fail=$((fail + 1))
fi
tag=$(echo "soccer-$planner---set defense=mark" | tr -c 'a-zA-Z0-9_.-' '_')

# the attacker's skill segments in order, one name per line (consecutive equal steps merged)
segments() {
  awk '
    /"name": "attacker"/ { match($0, /"skills": \[[^]]*\]/); s = substr($0, RSTART + 11, RLENGTH - 12)
                           gsub(/[" ]/, "", s); n = split(s, names, ","); want = 1; next }
    want && /"active": \[/ { a = $0; sub(/.*"active": \[/, "", a); sub(/\].*/, "", a); gsub(/ /, "", a)
                             k = split(a, act, ","); prev = -1
                             for (i = 1; i <= k; i++) if (act[i] != prev) { print names[act[i] + 1]; prev = act[i] }
                             exit }
  ' "$1"
}

for seed in $seeds; do
  out="$work/$tag/$seed.plan.json"
  [ -f "$out" ] || { echo "FAIL: seed $seed: no plan $out"; fail=$((fail + 1)); continue; }
  seq=$(segments "$out" | tr '\n' ' ')
  # the last ball skill scores (or the ball rolls in after it): a flat kick there must follow a
  # dribble/minikick/minichip/lob; any of those there is itself the worked finish (the lob and the
  # minichip fly over the marker)
  verdict=$(echo "$seq" | awk '{
    worked = 0; last = ""
    for (i = 1; i <= NF; i++) {
      if ($i == "go_to_ball") continue
      if (last != "" && last != "kick") worked = 1
      last = $i
    }
    if (last == "") print "no ball skill"
    else if (last == "kick" && !worked) print "a flat shot without a dribble, minikick, minichip or lob before it"
    else print "ok"
  }')
  echo "soccer mark $planner seed $seed: $seq-> $verdict"
  if [ "$verdict" != ok ]; then
    echo "FAIL: soccer mark $planner seed $seed: $verdict"
    fail=$((fail + 1))
  fi
done
echo "soccer mark $planner: seeds $seeds: $fail failure(s)"
[ $fail -eq 0 ]
