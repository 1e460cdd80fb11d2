#!/usr/bin/env bash
# Bit for bit across compilers (docs/physics.md#across-compilers-and-builds): the
# same source built by the other compiler (clang when this build is GCC's, GCC when it is clang's),
# Release, with -march=native when the CPU has FMA (the case that broke: clang 14 contracted a*b+c
# into FMA, GCC's SLP vectorizer emitted vfmaddsub), must make the same plans as this build, byte
# for byte up to stats.timing, and each build must replay the other's plans bit for bit: minigolf,
# the 400 dice (an initial state the script computes), pool and soccer, seed 1. Neither program
# may hold an FMA instruction.
#
# Only the tplan target of the other build is built, once, in WORKDIR/build-<compiler>; later runs
# rebuild what changed (about 4 min at -j1 from scratch; TP_COMPILERS_JOBS sets -j, default 1, so
# that ctest -j2 keeps its second core). Exits 77 (ctest: skipped) when the other compiler is not
# installed (.ci/install-deps installs clang for the fuzz targets).
# Usage: compilers.sh TPLAN SOURCE_DIR WORKDIR COMPILER_ID CMAKE
set -u
tplan=$1 src=$2 work=$3/compilers id=$4 cmake=$5
. "$(dirname "$0")/lib.sh"

if [ "$id" = GNU ]; then other=clang; else other=gcc; fi
if ! command -v "$other" > /dev/null; then
  echo "$other is not installed: skipped"
  exit 77
fi
flags=
if grep -qw fma /proc/cpuinfo; then flags=-march=native; fi
build=$work/build-$other
mkdir -p "$work"
rm -f "$work"/*.plan.json
if [ ! -f "$build/CMakeCache.txt" ]; then
  # CFLAGS from the environment would reach the other build only: it gets the project's flags alone
  env -u CFLAGS -u LDFLAGS -u CPPFLAGS CC="$other" "$cmake" -S "$src" -B "$build" -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_C_FLAGS="$flags" -DTP_MPI=OFF -DTP_POSTGRESQL=OFF > "$work/configure.txt" 2>&1 || {
    cat "$work/configure.txt"
    echo "FAIL: configure the $other build"
    exit 1
  }
fi
start=$SECONDS
# (not make test's jobserver: under `make test` the build takes its -j alone)
env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL "$cmake" --build "$build" -j"${TP_COMPILERS_JOBS:-1}" --target tplan \
  > "$work/build.txt" 2>&1 || {
  tail -40 "$work/build.txt"
  echo "FAIL: build tplan with $other"
  exit 1
}
echo "$other build ($flags${flags:+ }Release, tplan only): $((SECONDS - start)) s"
them=$build/tplan

# the other build is configured without the optional parts (-DTP_MPI=OFF -DTP_POSTGRESQL=OFF): it
# links neither Open MPI nor libpq, and refuses a PostgreSQL store by name (exit 2)
expect "the $other build links no libpq and no MPI" bash -c "! ldd '$them' | grep -Eq 'libpq|libmpi'"
"$them" serve --port 0 --no-web --data "$work/nopg" --store postgresql://localhost/tplan > "$work/nopg.txt" 2>&1
rc=$?
expect "the $other build refuses --store postgresql:// (exit $rc, expected 2): $(head -c 300 "$work/nopg.txt")" \
  bash -c "[ $rc -eq 2 ] && grep -q 'built without the PostgreSQL store' '$work/nopg.txt'"

# No fused multiply-add in either program (ODE and libm are shared libraries, not in it): this also
# catches a contraction the four plans do not reach, and GCC's vfmaddsub when this build has FMA.
if command -v objdump > /dev/null; then
  for t in "$tplan" "$them"; do
    n=$(objdump -d --no-show-raw-insn "$t" | grep -cE '[[:space:]](v?fn?m(add|sub)|fml[as])')
    expect "$t: $n fused multiply-add instructions (expected 0)" test "$n" -eq 0
  done
fi
for case in "minigolf 1" "dice 1" "pool 1" "soccer 1"; do
  set -- $case
  domain=$1 seed=$2
  mine=$work/$domain.$seed.this.plan.json theirs=$work/$domain.$seed.$other.plan.json
  "$tplan" plan "$domain" --seed "$seed" -q -o "$mine"
  rc=$?
  expect "$domain seed $seed: this build's plan exited $rc (0 solved or 3 approximate)" test $rc -eq 0 -o $rc -eq 3
  "$them" plan "$domain" --seed "$seed" -q -o "$theirs"
  rc=$?
  expect "$domain seed $seed: the $other build's plan exited $rc (0 or 3)" test $rc -eq 0 -o $rc -eq 3
  expect "$domain seed $seed: the $other build replays this build's plan bit for bit" "$them" replay -q "$mine"
  expect "$domain seed $seed: this build replays the $other build's plan bit for bit" "$tplan" replay -q "$theirs"
  expect "$domain seed $seed: both builds made the same plan (up to stats.timing)" same "$mine" "$theirs"
done
finish "compilers ($other $flags)"
