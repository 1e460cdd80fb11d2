#!/usr/bin/env bash
# Bit for bit across compilers (docs/physics.md#across-compilers-and-builds): the
# same source built by the other compiler (clang when this build is GCC's, GCC when it is clang's),
# Release, with -march=native when the CPU has FMA (the case that broke: clang 14 contracted a*b+c
# into FMA, GCC's SLP vectorizer emitted vfmaddsub), must make the same plans as this build, byte
# for byte up to stats.timing, and each build must replay the other's plans bit for bit: minigolf,
# the 400 dice (an initial state the script computes), pool and soccer, seed 1. Neither program
# may hold an FMA instruction.
#
# The other build is also the minimal one (docs/install.md#build-options): configured as on a
# machine with only ODE, Lua 5.4, cJSON and qhull -- pkg-config sees their four .pc files alone
# (PKG_CONFIG_LIBDIR) and CMake finds no MPI -- with no option given, so every optional part must
# default to off there: the viewer, the service, tplan-mpi, the PostgreSQL store, the tests. Its
# tplan and libtplan link none of GLFW, GL, stb, libmicrohttpd, SQLite, zlib, MPI, libpq (readelf
# -d), and the missing commands are refused by name (exit 2, one line).
#
# Only the tplan and libtplan targets of the other build are built, once, in WORKDIR/build-<compiler>;
# later runs rebuild what changed (about 4 min at -j1 from scratch; TP_COMPILERS_JOBS sets -j, default
# 1, so that ctest -j2 keeps its second core). Exits 77 (ctest: skipped) when the other compiler is not
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
# the minimal machine's pkg-config: the four .pc files of what every build needs (none Requires another)
pc=$work/pkgconfig
mkdir -p "$pc"
for m in ode lua5.4 libcjson qhull_r; do
  f=$(pkg-config --variable=pcfiledir "$m")/$m.pc
  expect "pkg-config finds $m ($f)" test -f "$f"
  ln -sf "$f" "$pc/$m.pc"
done
# (a tree configured before it was the minimal one, with the optional parts on, is made anew)
if [ -f "$build/CMakeCache.txt" ] && ! grep -qx 'TP_SERVICE:BOOL=OFF' "$build/CMakeCache.txt"; then
  rm -rf "$build"
fi
# (configured on every run, a few seconds: what it finds is always the minimal machine's)
# CFLAGS from the environment would reach the other build only: it gets the project's flags alone
env -u CFLAGS -u LDFLAGS -u CPPFLAGS -u PKG_CONFIG_PATH PKG_CONFIG_LIBDIR="$pc" CC="$other" "$cmake" -S "$src" \
  -B "$build" -DCMAKE_BUILD_TYPE=Release -DCMAKE_C_FLAGS="$flags" -DCMAKE_DISABLE_FIND_PACKAGE_MPI=ON \
  > "$work/configure.txt" 2>&1 || {
  cat "$work/configure.txt"
  echo "FAIL: configure the $other build with only ODE, Lua 5.4, cJSON and qhull"
  exit 1
}
for opt in TP_VIEWER TP_SERVICE TP_MPI TP_TESTS; do
  expect "the minimal build: $opt defaults to OFF" grep -qx "$opt:BOOL=OFF" "$build/CMakeCache.txt"
done
expect "the minimal build: no PostgreSQL store" grep -q 'tplan PostgreSQL store: OFF' "$work/configure.txt"
start=$SECONDS
# (not make test's jobserver: under `make test` the build takes its -j alone)
env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL "$cmake" --build "$build" -j"${TP_COMPILERS_JOBS:-1}" --target tplan libtplan \
  > "$work/build.txt" 2>&1 || {
  tail -40 "$work/build.txt"
  echo "FAIL: build tplan and libtplan with $other"
  exit 1
}
echo "$other build ($flags${flags:+ }Release, minimal, tplan and libtplan only): $((SECONDS - start)) s"
them=$build/tplan

# what the minimal program and library link: ODE and Lua, and none of the optional parts' libraries
for bin in "$them" "$build/libtplan.so"; do
  readelf -d "$bin" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' > "$work/needed.txt"
  expect "$(basename "$bin") of the minimal build NEEDs libode and liblua5.4 ($(tr '\n' ' ' < "$work/needed.txt"))" \
    bash -c "grep -q '^libode' '$work/needed.txt' && grep -q '^liblua5.4' '$work/needed.txt'"
  expect "$(basename "$bin") of the minimal build NEEDs no glfw, GL, stb, microhttpd, sqlite, zlib, mpi, pq" \
    bash -c "! grep -Eiq 'glfw|libgl|stb|microhttpd|sqlite|libz\.|mpi|libpq' '$work/needed.txt'"
done
refused() { # name, message fragment, command...
  local name=$1 frag=$2
  shift 2
  "$@" > "$work/out.txt" 2> "$work/err.txt"
  local rc=$?
  expect "minimal build: $name exits $rc (2), one line: $(head -c 300 "$work/err.txt")" \
    bash -c "[ $rc -eq 2 ] && [ \$(wc -l < '$work/err.txt') -eq 1 ] && grep -qF -- '$frag' '$work/err.txt'"
}
refused "view" "tplan view: this tplan was built without the viewer (TP_VIEWER=OFF)" "$them" view x.plan.json
refused "render" "tplan render: this tplan was built without the viewer (TP_VIEWER=OFF)" "$them" render x.plan.json --out f
refused "plan --view" "plan --view: this tplan was built without the viewer (TP_VIEWER=OFF)" "$them" plan minigolf --view
refused "serve" "tplan serve: this tplan was built without the service (TP_SERVICE=OFF)" "$them" serve --port 0
refused "worker" "tplan worker: this tplan was built without the service (TP_SERVICE=OFF)" "$them" worker
refused "plan --mpi" "--mpi: this tplan was built without MPI" "$them" plan minigolf --mpi --no-out
"$them" --help > "$work/help.txt"
expect "minimal build: tplan --help lists view, render and serve as not in this build" \
  bash -c "sed -n '/^not in this build/,/^\$/p' '$work/help.txt' | grep -c 'built without' | grep -qx 3 &&
           ! sed -n '/^commands:/,/^\$/p' '$work/help.txt' | grep -Eq '^  (view|render|serve) '"

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
