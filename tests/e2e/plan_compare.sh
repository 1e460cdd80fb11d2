# Sourced by parallel.sh and mpi.sh: the pass/fail counters and plan comparisons.
pass=0 fail=0
check() { # name, condition result (0 = ok)
  if [ "$2" -eq 0 ]; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: $1"; fi
}
# the plan up to stats.timing (the only wall-clock numbers; docs/plan-format.md)
body() { sed '/"timing"/,$d' "$1"; }
same() { cmp -s <(body "$1") <(body "$2"); }
