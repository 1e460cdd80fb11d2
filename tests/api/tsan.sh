#!/usr/bin/env bash
# libtplan under ThreadSanitizer: a TSan build of the library alone (-DTP_TSAN=ON,
# target libtplan, -O1) made with COMPILER in WORKDIR/build-tsan-COMPILER, and tsan_plans.c (four
# threads loading, planning, replaying and writing plans at once: minigolf and dice, so both the
# lock-free dWorldStep and the locked quickstep run concurrently) must finish with no report.
#
# ODE is not instrumented: its own lock-free cache of geom poses (collision_kernel.cpp, a
# `lock cmpxchg` TSan cannot see) hands memory from one thread to another, which TSan reports as
# races in dxGeom's malloc and free. tsan.supp therefore ignores the interceptors called from
# libode (called_from_lib); every report in tplan's own code, Lua's or cJSON's still fails the test.
#
# Only the libtplan target is built (about 35 s at -j2, 70 s at -j1 from scratch; later runs rebuild
# what changed). TP_TSAN_JOBS sets -j (default 1, so that ctest -j2 keeps its second core). Exits 77
# (ctest: skipped) when COMPILER is not installed (.ci/install-deps installs gcc and clang).
# Usage: tsan.sh SOURCE_DIR WORKDIR COMPILER CMAKE
set -u
src=$1 work=$2 cc=$3 cmake=$4
if ! command -v "$cc" > /dev/null; then
  echo "$cc is not installed: skipped"
  exit 77
fi
build=$work/build-tsan-$cc
mkdir -p "$build"
if [ ! -f "$build/CMakeCache.txt" ]; then
  # the project's flags alone (CFLAGS from the environment are the calling build's); -O1 -g1: the
  # cheapest build whose reports name lines. Warnings are not errors here: -O1 is no build we ship.
  env -u CFLAGS -u LDFLAGS -u CPPFLAGS CC="$cc" "$cmake" -S "$src" -B "$build" -DCMAKE_BUILD_TYPE=None \
    -DCMAKE_C_FLAGS="-O1 -g1" -DTP_TSAN=ON -DTP_WERROR=OFF -DTP_MPI=OFF > "$build/configure.txt" 2>&1 || {
    cat "$build/configure.txt"
    echo "FAIL: configure the $cc TSan build"
    exit 1
  }
fi
start=$SECONDS
env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL "$cmake" --build "$build" -j"${TP_TSAN_JOBS:-1}" --target libtplan \
  > "$build/build.txt" 2>&1 || {
  tail -40 "$build/build.txt"
  echo "FAIL: build libtplan with $cc -fsanitize=thread"
  exit 1
}
"$cc" -std=c17 -O1 -g -fsanitize=thread "$src/tests/api/tsan_plans.c" -I"$src/api/include" -I"$build/include" \
  -L"$build" -ltplan -lpthread -Wl,-rpath,"$build" -o "$build/tsan_plans" || {
  echo "FAIL: build tsan_plans with $cc"
  exit 1
}
echo "$cc TSan libtplan: $((SECONDS - start)) s to build"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
TSAN_OPTIONS="halt_on_error=0 exitcode=66 suppressions=$src/tests/api/tsan.supp" \
  "$build/tsan_plans" "$src/domains" "$out" > "$out/stdout.txt" 2> "$out/stderr.txt"
rc=$?
cat "$out/stdout.txt"
reports=$(grep -c '^WARNING: ThreadSanitizer' "$out/stderr.txt")
if [ "$rc" -ne 0 ] || [ "$reports" -ne 0 ] || grep -q ThreadSanitizer "$out/stderr.txt"; then
  head -120 "$out/stderr.txt"
  echo "FAIL: $cc TSan: exit $rc, $reports reports"
  exit 1
fi
echo "$cc TSan: 4 threads, 0 reports"
