#!/usr/bin/env bash
# Do the unit tests bite? Each mutant below breaks one rule of the service (the scheduler's deadline
# arithmetic, request parsing, the store's state machine) in a copy of the tree; the unit test named
# beside it must then fail. The unmutated copy's tests must pass first. Prints one line per mutant
# and exits 1 when a mutant survives (its test still passes), 2 on a usage or build error.
#
# The copy is built without -Werror (a mutant may leave a parameter unused).
# Usage: tools/mutants.sh [WORKDIR]    (default /tmp/tplan-mutants; about 2 minutes on 2 cores)
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
work=${1:-/tmp/tplan-mutants}
jobs=${JOBS:-2}

# file ~ the exact text ~ what it becomes ~ the unit test that must fail ~ the rule
mutants=(
  "service/src/sched.c~    if (!sync) {~    if (true) {~test_sched_policy~a synchronous job plans past its deadline (its time limit ignores answer_by)"
  "service/src/sched.c~    return deadline - fmin(reserve, 0.5 * wait);~    return deadline;~test_sched_policy~a synchronous job's search keeps no reserve for its answer"
  "service/src/sched.c~    return started + limit + SVC_HARD_GRACE + 0.1 * limit;~    return started + limit;~test_sched_policy~a worker is killed the moment its time limit ends (no grace)"
  "api/src/run_fields.c~    if (f->svc_bound != TP_RUNF_BOUND_NONE && bounds[f->svc_bound] < hi) {~    if (false) {~test_run_fields~a request's field is not held to the server's bound (--max-time)"
  "service/src/reqcheck.c~(len == 3 && p[0] == 0xED && p[1] >= 0xA0)~(false)~test_reqcheck~request bodies may carry UTF-16 surrogates"
  "service/src/job_validate.c~    if (c->to == SVC_RUNNING && c->from != SVC_QUEUED) {~    if (false) {~test_job_validate~the store's state machine lets a job that is not queued start"
  "service/src/job_validate.c~    if ((c->to == SVC_SOLVED || c->to == SVC_APPROXIMATE) && c->from != SVC_RUNNING) {~    if (false) {~test_job_validate~the store's state machine lets a plan come from a job that did not run"
)

rm -rf "$work" && mkdir -p "$work/src" || exit 2
(cd "$root" && git ls-files -z --cached --others --exclude-standard | xargs -0 cp --parents -t "$work/src") || { echo "mutants: cannot copy the tree" >&2; exit 2; }
cmake -S "$work/src" -B "$work/build" -DCMAKE_BUILD_TYPE=Release -DTP_WERROR=OFF >"$work/configure.log" 2>&1 ||
  { echo "mutants: configure failed ($work/configure.log)" >&2; exit 2; }
tests=$(printf '%s\n' "${mutants[@]}" | cut -d'~' -f4 | sort -u)

build_and_run() { # test: 0 if it builds and passes
  cmake --build "$work/build" --target "$1" -j"$jobs" >"$work/build.log" 2>&1 || return 2
  "$work/build/tests/$(case $1 in test_run_fields) echo api ;; *) echo service ;; esac)/$1" >"$work/test.log" 2>&1
}

for t in $tests; do
  build_and_run "$t"
  rc=$?
  [ $rc -eq 2 ] && { echo "mutants: $t does not build ($work/build.log)" >&2; exit 2; }
  [ $rc -eq 0 ] || { echo "mutants: $t fails without a mutant ($work/test.log)" >&2; exit 2; }
done

survived=0 n=0
for row in "${mutants[@]}"; do
  IFS='~' read -r file from to test rule <<<"$row"
  n=$((n + 1))
  cp "$root/$file" "$work/src/$file"
  python3 - "$work/src/$file" "$from" "$to" <<'PY' || { echo "mutants: mutant $n: its text is not in $file" >&2; exit 2; }
import sys
path, a, b = sys.argv[1:4]
s = open(path).read()
if s.count(a) != 1:
    sys.exit(1)
open(path, "w").write(s.replace(a, b))
PY
  build_and_run "$test"
  rc=$?
  cp "$root/$file" "$work/src/$file"
  if [ $rc -eq 2 ]; then
    echo "mutants: mutant $n does not build ($work/build.log)" >&2
    exit 2
  elif [ $rc -eq 0 ]; then
    echo "SURVIVED  $n  $test  $file: $rule"
    survived=$((survived + 1))
  else
    echo "caught    $n  $test  $file: $rule"
  fi
done
# the copy as it was again (the last mutant's file restored above)
echo "mutants: $((n - survived)) of $n caught"
[ $survived -eq 0 ]
