#!/usr/bin/env bash
# Plans a navigation domain (maze: nav_to; crowd: follow_field) for seeds 1..N (or FIRST..LAST when
# the third argument is FIRST-LAST); every seed must be solved (exit 0) and its plan must replay bit
# for bit.
# Usage: nav_domain.sh TPLAN DOMAIN N|FIRST-LAST WORKDIR [TAG PLAN-ARGS...] (e.g. office --set layout=office)
set -u
tplan=$1 domain=$2 seeds=$3 work=$4/nav-$2
case "$seeds" in
  *-*) first=${seeds%-*} last=${seeds#*-} ;;
  *) first=1 last=$seeds ;;
esac
n=$((last - first + 1))
shift 4
if [ $# -gt 0 ]; then
  work=$work-$1
  shift
fi
rm -rf "$work" && mkdir -p "$work"
fail=0
for seed in $(seq "$first" "$last"); do
  out="$work/$seed.plan.json"
  "$tplan" plan "$domain" --seed "$seed" "$@" -q -o "$out"
  rc=$?
  if [ $rc -ne 0 ]; then
    echo "FAIL: $domain seed $seed: tplan plan exited $rc (0 = solved expected)"
    fail=$((fail + 1))
    continue
  fi
  # replay --check at the plan's own limits (the ones the planner held every state to: 5 mm unless
  # the domain's script sets others, as crowd does, visibly)
  if ! "$tplan" replay -q --check "$out"; then
    echo "FAIL: $domain seed $seed: tplan replay --check $out failed"
    fail=$((fail + 1))
  fi
done
echo "$domain $*: $((n - fail)) of $n seeds ($first..$last) solved and replayed"
[ $fail -eq 0 ]
