# Sourced by the e2e scripts (and tests/export/export.sh): pass/fail counters, the two ways of
# counting a check, plan comparisons and the closing line. Usage: . "$(dirname "$0")/lib.sh"
pass=0 fail=0
# The environment tplan reads, cleared: a developer's TPLAN_DOMAINS or TPLAN_PROGRESS_EVERY (or a
# LOCPATH) must not change what the checks see; a check that wants one sets it on its command.
unset TPLAN_DOMAINS TPLAN_TRACEBACK TPLAN_PROGRESS_EVERY TPLAN_WEB LOCPATH
check() { # NAME STATUS: counts a condition's result (0 = ok)
  if [ "$2" -eq 0 ]; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: $1"; fi
}
expect() { # NAME COMMAND...: runs the command and counts its exit status (0 = ok)
  local what=$1
  shift
  "$@"
  check "$what" $?
}
# the plan up to stats.timing (the only wall-clock numbers; docs/plan-format.md)
body() { sed '/"timing"/,$d' "$1"; }
same() { cmp -s <(body "$1") <(body "$2"); }
finish() { # [LABEL]: prints the counts; the status is non-zero when a check failed
  echo "${1:+$1: }$pass passed, $fail failed"
  [ "$fail" -eq 0 ]
}
python_with_numpy() { # prints the first python3 that imports numpy, PATH's then Debian's; 1 if none
  local p
  for p in python3 /usr/bin/python3; do
    if "$p" -c "import numpy" > /dev/null 2>&1; then echo "$p"; return 0; fi
  done
  return 1
}
