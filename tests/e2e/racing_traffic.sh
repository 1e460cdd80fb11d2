#!/usr/bin/env bash
# Racing traffic follows the road: on the builtin track and on every track file with cars,
# the plan of seed 1 must be solved, and over its whole horizon no traffic car's footprint may touch
# a wall, leave the track's bounding rectangle (the open ends), face away from where it moves or
# overlap another traffic car, and the car never touches a traffic car (plan_checks.py road). Constant-velocity traffic drove through
# the corner walls and off the open end.
# Usage: racing_traffic.sh TPLAN WORKDIR
set -u
tplan=$1 work=$2/racing-traffic
here=$(cd "$(dirname "$0")" && pwd)
rm -rf "$work" && mkdir -p "$work"
fail=0
for track in builtin cornered_cars final straight; do
  out="$work/$track.plan.json"
  "$tplan" plan racing --set track=$track --seed 1 -q -o "$out"
  rc=$?
  if [ $rc -ne 0 ]; then
    echo "FAIL: racing track=$track: tplan plan exited $rc (0 = solved expected)"
    fail=$((fail + 1))
    continue
  fi
  res=$(python3 "$here/plan_checks.py" road "$out" '^traffic_' car)
  echo "racing track=$track: $res"
  case "$res" in ok\ *) ;; *) fail=$((fail + 1)) ;; esac
done
[ $fail -eq 0 ]
