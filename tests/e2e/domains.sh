#!/usr/bin/env bash
# Plans a built-in domain with one planner for the given seeds; every seed must be solved (plans
# are deterministic, so a seed that solved once always solves; the first seed is planned twice
# and both plan files must be identical apart from timing), every plan must pass
# `tplan replay --all` bit for bit, and the domain's constraint is re-checked independently on the
# recorded trajectory of the selected solution:
#   stripes  pool: no striped ball (s9..s13) moved more than 1 mm in the plane
#   foes     soccer: the robot's centre stays >= 0.18 m (one robot width) from every adversary's
#            centre, a necessary condition for never touching them; and the ball never passes
#            through an adversary: at every recorded step the 3D signed distance from the ball's
#            centre to each adversary's box (its size from the plan, turned by the yaw of its
#            quaternion) is >= 0, and it is not below 0.015 m (an overlap of more than ~6.5 mm for
#            the 2.15 cm ball) at two consecutive steps -- a bounce separates within one step, a
#            ball sliding through a box overlaps it over several (fails on soccer plans made with
#            --set substeps=1, where fast shots slip through the defenders' corners)
# Usage: domains.sh TPLAN WORKDIR DOMAIN PLANNER "SEEDS" CHECK [--set NAME=VALUE ...]
set -u
tplan=$1 work=$2 domain=$3 planner=$4 seeds=$5 check=$6
shift 6
tag=$(echo "$domain-$planner-$*" | tr -c 'a-zA-Z0-9_.-' '_')
if [ ${#tag} -gt 80 ]; then # long --set values (pool layouts): a prefix and a checksum of the rest
  tag=${tag:0:60}-$(echo "$*" | cksum | cut -d' ' -f1)
fi
work=$work/$tag
rm -rf "$work" && mkdir -p "$work"
fail=0

# the constraints read from the plan's recorded trajectories (plan_checks.py parses the JSON)
checks="$(dirname "$0")/plan_checks.py"
stripes_moved() { python3 "$checks" stripes "$1" "$2"; }
foes_closest() { python3 "$checks" foes "$1"; }
ball_through() { python3 "$checks" through "$1"; }

for seed in $seeds; do
  out="$work/$seed.plan.json"
  "$tplan" plan "$domain" --planner "$planner" --seed "$seed" -q -o "$out" "$@"
  rc=$?
  if [ $rc -ne 0 ]; then
    echo "FAIL: $domain $planner seed $seed $*: tplan plan exited $rc (expected a solution)"
    fail=$((fail + 1))
    continue
  fi
  if [ "$seed" = "${seeds%% *}" ]; then # determinism: the first seed again, byte for byte
    "$tplan" plan "$domain" --planner "$planner" --seed "$seed" -q -o "$out.again" "$@"
    if ! cmp -s <(grep -v '"timing"' "$out") <(grep -v '"timing"' "$out.again"); then
      echo "FAIL: $domain $planner seed $seed: a second run wrote a different plan"
      fail=$((fail + 1))
    fi
  fi
  # --check at the plan's own limits (the domain's max_static_penetration and
  # max_body_penetration, 5 mm unless the script says otherwise): the planner held every state to
  # them, and the replay must find the same (one truth about contact)
  if ! "$tplan" replay -q --all --check "$out"; then
    echo "FAIL: $domain $planner seed $seed: tplan replay --all --check $out failed"
    fail=$((fail + 1))
  fi
  case $check in
  stripes)
    read -r who moved <<<"$(stripes_moved "$out" '^s(9|1[0-3])$')"
    if ! awk -v m="$moved" 'BEGIN { exit !(m <= 0.001) }'; then
      echo "FAIL: $domain seed $seed: striped ball $who moved $moved m"
      fail=$((fail + 1))
    fi
    ;;
  foes)
    closest=$(foes_closest "$out")
    if ! awk -v d="$closest" 'BEGIN { exit !(d >= 0.18) }'; then
      echo "FAIL: $domain seed $seed: robot within $closest m of an adversary"
      fail=$((fail + 1))
    fi
    read -r what foe step sd <<<"$(ball_through "$out")"
    if [ "$what" = ball ]; then
      echo "FAIL: $domain seed $seed: the ball goes through $foe at step $step (signed distance $sd m)"
      fail=$((fail + 1))
    fi
    ;;
  none) ;;
  *)
    echo "FAIL: unknown check '$check'"
    fail=$((fail + 1))
    ;;
  esac
done
echo "$domain $planner $*: seeds $seeds: $fail failure(s)"
[ $fail -eq 0 ]
