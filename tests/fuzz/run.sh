#!/usr/bin/env bash
# Runs the libFuzzer targets of a TP_FUZZ=ON build for a bounded time each (docs/fuzzing.md).
# Usage: run.sh FUZZ_BUILD_DIR SECONDS [TARGET...]   (targets: plan tree pnm track mesh lua; default all built)
# Env: TPLAN=path/to/tplan (a normal build) also seeds the plan and tree targets with plans of the
# shipped domains, generated once into FUZZ_BUILD_DIR/seeds. FUZZ_TIMEOUT: s of wall time per input
# (default 30: generous, the machine may be shared); FUZZ_RSS_MB (default 2048).
# Fails (exit 1) on any crash, sanitizer report, broken property, hang (an input slower than
# FUZZ_TIMEOUT) or OOM; the input is saved as FUZZ_BUILD_DIR/artifacts/<target>-crash-... and belongs,
# once fixed, in tests/fuzz/regressions/<target>/. Each clean run adds its executions to
# FUZZ_BUILD_DIR/fuzz-executions.txt (the running totals quoted in docs/fuzzing.md).
set -u
build=$1 seconds=$2
shift 2
src=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$src/../.." && pwd)
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(plan tree pnm track mesh lua)
timeout=${FUZZ_TIMEOUT:-30} rss=${FUZZ_RSS_MB:-2048}
mkdir -p "$build/artifacts" "$build/logs"
totals="$build/fuzz-executions.txt"
touch "$totals"

# Seeds from the shipped domains: a few iterations of each give small plans and trees.
seeds="$build/seeds"
if [ -n "${TPLAN:-}" ] && [ ! -d "$seeds" ]; then
  mkdir -p "$seeds/plan.tmp" "$seeds/tree.tmp"
  for d in minigolf pool maze soccer navigation; do
    "$TPLAN" plan "$d" --max-iters 3 -q -o "$seeds/plan.tmp/$d.json" --tree "$seeds/tree.tmp/$d.tree" >/dev/null 2>&1
  done
  "$TPLAN" plan crowd --set pedestrians=4 --max-iters 3 -q -o "$seeds/plan.tmp/crowd.json" \
    --tree "$seeds/tree.tmp/crowd.tree" >/dev/null 2>&1
  "$TPLAN" plan dice --set count=12 --max-iters 3 -q -o "$seeds/plan.tmp/dice.json" \
    --tree "$seeds/tree.tmp/dice.tree" >/dev/null 2>&1
  mv "$seeds/plan.tmp" "$seeds/plan" && mv "$seeds/tree.tmp" "$seeds/tree"
fi

fail=0
for t in "${targets[@]}"; do
  bin="$build/tests/fuzz/fuzz_$t"
  if [ ! -x "$bin" ]; then
    echo "fuzz_$t: not built, skipped"
    continue
  fi
  corpus="$build/corpus/$t"
  mkdir -p "$corpus"
  dirs=("$corpus" "$src/corpus/$t" "$src/regressions/$t")
  case $t in
    plan) maxlen=32768; [ -d "$seeds/plan" ] && dirs+=("$seeds/plan") ;;
    tree) maxlen=16384; [ -d "$seeds/tree" ] && dirs+=("$seeds/tree") ;;
    track) maxlen=8192; dirs+=("$root/domains/tracks") ;;
    mesh) maxlen=20480 ;;
    lua) maxlen=32768; dirs+=("$root/domains" "$root/tests/lua/scripts" "$root/tests/e2e/scripts") ;;
    *) maxlen=4096 ;;
  esac
  dict=()
  [ -f "$src/$t.dict" ] && dict=(-dict="$src/$t.dict")
  log="$build/logs/fuzz_$t.log"
  # -rss_limit_mb and -malloc_limit_mb turn runaway memory into a reported OOM; -timeout a hang.
  "$bin" -max_total_time="$seconds" -timeout="$timeout" -rss_limit_mb="$rss" -malloc_limit_mb="$rss" \
    -max_len="$maxlen" "${dict[@]}" -print_final_stats=1 -artifact_prefix="$build/artifacts/$t-" "${dirs[@]}" >"$log" 2>&1
  rc=$?
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  units=$(ls "$corpus" | wc -l)
  if [ $rc -ne 0 ] || grep -q "ERROR: libFuzzer\|ERROR: AddressSanitizer\|runtime error:\|FINDING" "$log"; then
    fail=1
    echo "fuzz_$t: FAILED (exit $rc) after ${execs:-?} executions; log $log"
    grep -m3 "ERROR:\|FINDING\|runtime error:\|Test unit written" "$log"
  else
    prev=$(sed -n "s/^fuzz_$t //p" "$totals" | tail -1)
    total=$(( ${prev:-0} + ${execs:-0} ))
    sed -i "/^fuzz_$t /d" "$totals" && echo "fuzz_$t $total" >>"$totals"
    echo "fuzz_$t: clean, ${execs:-0} executions in ${seconds} s (corpus $units inputs; $total executions clean in total)"
  fi
done
exit $fail
