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

# max planar displacement (m) of each body whose name matches $2 over its recorded trajectory
stripes_moved() {
  awk -v pat="$2" '
    /"name": "/ { match($0, /"name": "[^"]*"/); name = substr($0, RSTART + 9, RLENGTH - 10); intraj = 0 }
    /"trajectory": \[/ { intraj = (name ~ pat); first = 1; next }
    intraj && /^ *\[/ {
      gsub(/[][,]/, " "); split($0, v, " ")
      if (first) { x0 = v[1]; y0 = v[2]; first = 0 }
      d = sqrt((v[1] - x0) ^ 2 + (v[2] - y0) ^ 2)
      if (d > worst) { worst = d; who = name }
    }
    intraj && /^ *\]/ { intraj = 0 }
    END { printf "%s %.6f\n", (who == "" ? "-" : who), worst }
  ' "$1"
}

# smallest planar distance (m) between the robot and any adversary over the trajectory
foes_closest() {
  awk '
    /"name": "/ { match($0, /"name": "[^"]*"/); name = substr($0, RSTART + 9, RLENGTH - 10); intraj = 0 }
    /"trajectory": \[/ { intraj = (name == "robot" || name ~ /^(defender_n|defender_s|goalie)$/); row = 0; next }
    intraj && /^ *\[/ { gsub(/[][,]/, " "); split($0, v, " "); X[name, row] = v[1]; Y[name, row] = v[2]; row++; n = row }
    intraj && /^ *\]/ { intraj = 0 }
    END {
      best = 1e9
      for (r = 0; r < n; r++) {
        split("defender_n defender_s goalie", foes, " ")
        for (k = 1; k <= 3; k++) {
          d = sqrt((X["robot", r] - X[foes[k], r]) ^ 2 + (Y["robot", r] - Y[foes[k], r]) ^ 2)
          if (d < best) best = d
        }
      }
      printf "%.6f\n", best
    }
  ' "$1"
}

# "ball foe step sd" of the first step where the ball is inside an adversary's box or within
# 0.015 m of it for the second step in a row ("- - - sd_min" when none); sd = 3D signed distance (m)
# from the ball's centre to the box, the box turned by its yaw (adversaries are planar bodies)
ball_through() {
  awk '
    /"name": "/ { match($0, /"name": "[^"]*"/); name = substr($0, RSTART + 9, RLENGTH - 10); intraj = 0 }
    /"size": \[/ && name ~ /^(defender_n|defender_s|goalie)$/ {
      s = $0; sub(/.*"size": \[/, "", s); split(s, v, /[],]/); HX[name] = v[1] / 2; HY[name] = v[2] / 2; HZ[name] = v[3] / 2
    }
    /"trajectory": \[/ { intraj = (name == "ball" || name ~ /^(defender_n|defender_s|goalie)$/); row = 0; next }
    intraj && /^ *\[/ {
      gsub(/[][,]/, " "); split($0, v, " ")
      X[name, row] = v[1]; Y[name, row] = v[2]; Z[name, row] = v[3]; QW[name, row] = v[4]; QZ[name, row] = v[7]
      row++; n = row
    }
    intraj && /^ *\]/ { intraj = 0 }
    function max(a, b) { return a > b ? a : b }
    function abs(a) { return a < 0 ? -a : a }
    END {
      split("defender_n defender_s goalie", foes, " ")
      best = 1e9
      for (k = 1; k <= 3; k++) {
        f = foes[k]; prev = 1e9
        for (r = 0; r < n; r++) {
          yaw = 2 * atan2(QZ[f, r], QW[f, r]); c = cos(yaw); sn = sin(yaw)
          dx = X["ball", r] - X[f, r]; dy = Y["ball", r] - Y[f, r]; dz = Z["ball", r] - Z[f, r]
          qx = abs(c * dx + sn * dy) - HX[f]; qy = abs(-sn * dx + c * dy) - HY[f]; qz = abs(dz) - HZ[f]
          sd = sqrt(max(qx, 0) ^ 2 + max(qy, 0) ^ 2 + max(qz, 0) ^ 2) + (max(qx, max(qy, qz)) < 0 ? max(qx, max(qy, qz)) : 0)
          if (sd < best) best = sd
          if (sd < 0 || (sd < 0.015 && prev < 0.015)) { printf "ball %s %d %.6f\n", f, r, sd; exit }
          prev = sd
        }
      }
      printf "- - - %.6f\n", best
    }
  ' "$1"
}

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
  # --check: no body deeper in static geometry than the domain's measured figure (docs/domains.md,
  # "Physical truth"): a pocketed pool ball lands on the floor under the table at up to ~4 m/s and
  # sinks about 3 cm for a step; a lobbed soccer ball lands 1 cm deep in the field
  tol=0.01
  [ "$domain" = pool ] && tol=0.05
  [ "$domain" = soccer ] && tol=0.02
  if ! "$tplan" replay -q --all --check --tolerance "$tol" "$out"; then
    echo "FAIL: $domain $planner seed $seed: tplan replay --all --check --tolerance $tol $out failed"
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
