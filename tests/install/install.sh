#!/usr/bin/env bash
# Installs tplan into a temporary prefix (cmake --install) and uses the installed copy only:
# the program from another folder (domains and web page found in PREFIX/share/tplan), the man
# pages, `import tplan` from the prefix, libtplan's exported symbols, and the two examples built against it -- pool_ai with
# pkg-config, minigolf_csv with find_package(tplan CONFIG) -- whose output must agree with the
# program's plans of the same domains and seeds (docs/install.md, docs/embedding.md).
# usage: install.sh BUILD_DIR SOURCE_DIR
set -u
build=$(cd "$1" && pwd) src=$(cd "$2" && pwd)
. "$src/tests/e2e/lib.sh"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
P=$tmp/prefix
version=$(sed -n 's/^project(tplan VERSION \([0-9.]*\).*/\1/p' "$src/CMakeLists.txt")

cmake --install "$build" --prefix "$P" > "$tmp/install.log" 2>&1
check "cmake --install" $?
libdir=$(dirname "$(find "$P" -name 'libtplan.so' | head -1)")
for f in bin/tplan include/tplan/tplan.h include/tplan/version.h share/tplan/domains/minigolf.lua \
         share/tplan/domains/lib/pool_table.lua share/tplan/web/index.html share/tplan/blender/tplan_blender/core.py \
         share/tplan/web/node_modules/three/build/three.module.js share/man/man1/tplan.1 \
         share/man/man1/tplan-plan.1 share/man/man1/tplan-serve.1 share/doc/tplan/CHANGELOG.md; do
  [ -e "$P/$f" ]; check "installed $f" $?
done
# the docs keep the source tree's layout, so their relative links hold where they are installed
python3 "$src/tests/install/doc_links.py" "$P/share/doc/tplan" > "$tmp/links.txt"
check "installed docs: $(tail -1 "$tmp/links.txt")" $?
grep '^broken' "$tmp/links.txt" | head -10
# tplan-mpi (a build with TP_MPI) beside tplan, which links no MPI
if grep -q '^TP_MPI:BOOL=ON' "$build/CMakeCache.txt"; then
  [ -x "$P/bin/tplan-mpi" ] && ! readelf -d "$P/bin/tplan" | grep -q libmpi
  check "installed bin/tplan-mpi; bin/tplan NEEDs no libmpi" $?
fi
[ -e "$libdir/pkgconfig/tplan.pc" ] && [ -e "$libdir/cmake/tplan/tplanConfig.cmake" ]
check "pkg-config and CMake package files" $?

# the installed program, from a folder that is not the source tree
mkdir -p "$tmp/elsewhere" && cd "$tmp/elsewhere"
[ "$("$P/bin/tplan" --version)" = "tplan $version" ]; check "tplan --version is project(VERSION)" $?
"$P/bin/tplan" plan minigolf -q -o golf.json > /dev/null 2>&1; check "installed tplan plans minigolf by name" $?
grep -q '"file": "minigolf.lua"' golf.json && ! grep -q "$P" golf.json
check "the plan names the domain by its file name, no install path" $?
"$P/bin/tplan" replay golf.json -q; check "installed tplan replays its plan" $?
"$P/bin/tplan" domains | grep -q "^  pool "; check "tplan domains lists the installed domains" $?
if command -v man > /dev/null; then
  MANPATH=$P/share/man man -P cat tplan-plan 2>/dev/null | grep -q -- "--max-iters"
  check "man tplan-plan" $?
fi

# the Python binding installed beside the library (docs/python.md): from another folder, with
# only the prefix's package on its path, it loads the prefix's libtplan and finds its domains
# (skipped without a python3 that has numpy: PATH's, then Debian's)
py=$(python_with_numpy)
if [ -n "$py" ]; then
  env -u TPLAN_LIBRARY -u TPLAN_DOMAINS PYTHONPATH="$P/lib/python3/dist-packages" "$py" -c '
import os, sys
import tplan, tplan._lib as L
assert L.found_by == "prefix", L.found_by
assert tplan.library_path().startswith(os.path.realpath(sys.argv[1])), tplan.library_path()
assert tplan.load("minigolf").plan(seed=1, max_iters=20).trajectory.shape[1:] == (11, 13)' "$P"
  check "import tplan from PREFIX/lib/python3/dist-packages uses the prefix's libtplan and domains" $?
fi

# libtplan: a versioned SONAME and only the tplan_* API exported
soname=$(objdump -p "$libdir/libtplan.so" | awk '/SONAME/ {print $2}')
[ "$soname" = "libtplan.so.${version%%.*}" ]; check "SONAME $soname" $?
nm -D --defined-only "$libdir/libtplan.so" | awk '$2 != "A" {sub(/@.*/, "", $3); print $3}' > "$tmp/syms"
others=$(grep -cv '^tplan_' "$tmp/syms")
[ "$others" -eq 0 ]; check "only tplan_* exported ($(wc -l < "$tmp/syms") symbols; others: $others)" $?
grep -q '^tplan_plan$' "$tmp/syms"; check "tplan_plan exported" $?

# the examples, copied out of the source tree and built against the installed copy only
cp -r "$src/examples" "$tmp/examples"
PKG_CONFIG_PATH=$libdir/pkgconfig make -s -C "$tmp/examples/pool_ai" > "$tmp/pool_build.log" 2>&1
check "pool_ai builds with pkg-config" $?
LD_LIBRARY_PATH=$libdir "$tmp/examples/pool_ai/pool_ai" "$P/share/tplan/domains/pool.lua" purple > "$tmp/pool.txt" 2>&1
check "pool_ai finds a shot" $?
cat "$tmp/pool.txt"
"$P/bin/tplan" plan pool --set mode=single --set target=purple --set layout= --seed 1 --time-limit 20 -q \
  -o "$tmp/pool.json" > /dev/null 2>&1
python3 - "$tmp/pool.json" "$tmp/pool.txt" <<'PY'
import json, math, sys
plan = json.load(open(sys.argv[1]))
cue = [b for b in plan["bodies"] if b["name"] == "cue"][0]
dt = plan["dt"]
for i, f in enumerate(cue["controls"]):
    n = math.hypot(f[0], f[1])
    if n > 0:
        want = "shot at t=%.3f s: force %.3f N for %.4f s toward %.1f deg (cue ball speed %.2f m/s)" % (
            i * dt, n, dt, math.degrees(math.atan2(f[1], f[0])), n * dt / 0.17)
        break
got = open(sys.argv[2]).read().splitlines()[0]
if got != want:
    print("pool_ai says:   " + got + "\ntplan plan has: " + want)
    sys.exit(1)
PY
check "pool_ai's shot is tplan plan's shot (same domain, seed, limits)" $?

cmake -S "$tmp/examples/minigolf_csv" -B "$tmp/mg" -DCMAKE_PREFIX_PATH="$P" > "$tmp/mg_build.log" 2>&1 &&
  cmake --build "$tmp/mg" >> "$tmp/mg_build.log" 2>&1
check "minigolf_csv builds with find_package(tplan CONFIG)" $?
LD_LIBRARY_PATH=$libdir "$tmp/mg/minigolf_csv" "$P/share/tplan/domains/minigolf.lua" "$tmp/ball.csv" 2 > "$tmp/mg.txt"
check "minigolf_csv plans and writes its CSV" $?
cat "$tmp/mg.txt"
"$P/bin/tplan" plan minigolf --seed 2 -q -o "$tmp/golf2.json" > /dev/null 2>&1
python3 - "$tmp/golf2.json" "$tmp/ball.csv" <<'PY'
import csv, json, sys
plan = json.load(open(sys.argv[1]))
ball = [b for b in plan["bodies"] if b["name"] == "ball"][0]["trajectory"]
rows = list(csv.DictReader(open(sys.argv[2])))
if len(rows) != len(ball):
    sys.exit("CSV has %d rows, the plan %d states" % (len(rows), len(ball)))
for r, s in zip(rows, ball):
    if any(abs(float(r[k]) - s[i]) > 1e-6 for i, k in enumerate("xyz")):
        sys.exit("row %s differs from the plan's %s" % (r, s[:3]))
PY
check "minigolf_csv's trajectory is tplan plan's (seed 2)" $?
LD_LIBRARY_PATH=$libdir "$tmp/mg/minigolf_csv" /nonexistent.lua "$tmp/x.csv" > /dev/null 2> "$tmp/err.txt"
[ $? -eq 1 ] && grep -q "nonexistent.lua" "$tmp/err.txt"; check "a missing script: exit 1 and a message naming it" $?
finish install
