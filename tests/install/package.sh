#!/usr/bin/env bash
# The Debian packages (make package, docs/install.md): libtplan0, libtplan-dev, tplan-data, tplan,
# python3-tplan and (a build with TP_MPI) tplan-mpi, built by CPack from the build tree into a temporary folder; their fields, Depends
# (an install order exists), contents (the library only in libtplan0, headers only in -dev, no file
# in two packages), licence and hardening checked; lintian (no errors, no unjustified warning); all
# unpacked in install order with dpkg-deb -x into one root and used from there:
# the library and its development files in the multiarch folder usr/lib/<triplet>, with pkg-config
# and CMake files that point there; tplan without Open MPI, tplan-mpi with it;
# the packaged tplan plans and replays a shipped domain, serves its web page (three.js included)
# and health, and the packaged systemd unit passes systemd-analyze verify.
# usage: package.sh BUILD_DIR SOURCE_DIR
set -u
build=$(cd "$1" && pwd) src=$(cd "$2" && pwd)
. "$src/tests/e2e/lib.sh"
tmp=$(mktemp -d)
server=""
cleanup() { [ -n "$server" ] && kill "$server" 2> /dev/null; wait 2> /dev/null; rm -rf "$tmp"; }
trap cleanup EXIT
version=$(sed -n 's/^project(tplan VERSION \([0-9.]*\).*/\1/p' "$src/CMakeLists.txt")

# no Maintainer, no package: cpack stops and says how to set it (TP_DEB_MAINTAINER has no default)
if ! grep -q '^set(CPACK_PACKAGE_CONTACT "[^"]' "$build/CPackConfig.cmake"; then
  cpack -G DEB --config "$build/CPackConfig.cmake" -B "$tmp/nomaint" > "$tmp/nomaint.log" 2>&1
  rc=$?
  [ $rc -ne 0 ] && grep -q 'TP_DEB_MAINTAINER' "$tmp/nomaint.log" && ! ls "$tmp/nomaint"/*.deb > /dev/null 2>&1
  check "no Maintainer configured: cpack refuses (exit $rc) and names TP_DEB_MAINTAINER" $?
fi
maint="tplan test <test@tplan.invalid>"
cpack -G DEB --config "$build/CPackConfig.cmake" -B "$tmp/pkg" -D "CPACK_PACKAGE_CONTACT=$maint" > "$tmp/cpack.log" 2>&1
rc=$?
check "cpack -G DEB" $rc
if [ $rc -ne 0 ]; then # every later check reads the packages: say why there are none, and stop
  echo "cpack's output (the last 40 lines; CPack's own logs are under $build/_CPack_Packages):"
  tail -40 "$tmp/cpack.log"
  exit 1
fi
# the packages in install order: each one's Depends on the others are earlier in the list
pkgs="libtplan0 tplan-data libtplan-dev python3-tplan tplan"
mpi=""
if grep -q '^TP_MPI:BOOL=ON' "$build/CMakeCache.txt"; then pkgs="$pkgs tplan-mpi" mpi=1; fi
triplet=$(dpkg-architecture -qDEB_HOST_MULTIARCH)
declare -A deb arch=([tplan-data]=all [python3-tplan]=all)
for p in $pkgs; do
  deb[$p]=$tmp/pkg/${p}_${version}_${arch[$p]:-amd64}.deb
  [ -f "${deb[$p]}" ]; check "$(basename "${deb[$p]}")" $?
  dpkg-deb -c "${deb[$p]}" | awk '{print $6}' | sed 's|^\./|/|; s|/$||' | grep -v '^/\?$' > "$tmp/$p.files"
  [ "$(dpkg-deb -f "${deb[$p]}" Maintainer)" = "$maint" ] && [ "$(dpkg-deb -f "${deb[$p]}" Priority)" = optional ] &&
    [ -n "$(dpkg-deb -f "${deb[$p]}" Description)" ]
  check "$p: Maintainer, Priority optional, Description" $?
done
section() { [ "$(dpkg-deb -f "${deb[$1]}" Section)" = "$2" ]; check "$1: Section $2" $?; }
section libtplan0 libs; section libtplan-dev libdevel; section tplan-data science; section tplan science
section python3-tplan python
dep() { dpkg-deb -f "${deb[$1]}" Depends | tr ',' '\n' | sed 's/^ *//'; }
seen=""
for p in $pkgs; do
  bad=""
  for d in $(dep "$p" | awk '{print $1}'); do
    case " $pkgs " in *" $d "*) case " $seen " in *" $d "*) ;; *) bad="$bad $d" ;; esac ;; esac
  done
  [ -z "$bad" ]; check "$p: its Depends on the other packages come earlier in the install order${bad:+ (not:$bad)}" $?
  seen="$seen $p"
done
dep libtplan-dev | grep -qx "libtplan0 (= $version)"; check "libtplan-dev Depends libtplan0 (= $version)" $?
dep python3-tplan | grep -qx "libtplan0 (= $version)" && dep python3-tplan | grep -qx python3-numpy
check "python3-tplan Depends libtplan0 (= $version), python3-numpy" $?
echo "libtplan0 Depends: $(dpkg-deb -f "${deb[libtplan0]}" Depends)"
echo "tplan Depends: $(dpkg-deb -f "${deb[tplan]}" Depends)"
case "$(dpkg-deb -f "${deb[libtplan0]}" Depends)" in *libode8*liblua5.4-0* | *liblua5.4-0*libode8*) true ;; *) false ;; esac
check "libtplan0: dependencies from shlibdeps (libode8, liblua5.4-0)" $?
# a library user's machine gets no viewer, MPI, service or PostgreSQL libraries
! dpkg-deb -f "${deb[libtplan0]}" Depends | grep -Eq 'libglfw|libgl1|openmpi|libpq|microhttpd|sqlite'
check "libtplan0: no GLFW, GL, Open MPI, libpq, libmicrohttpd, SQLite in its Depends" $?
# the program tplan starts without Open MPI: no MPI in its Depends (tplan-mpi has it)
! dep tplan | grep -Eq 'openmpi|libmpi'; check "tplan: no Open MPI in its Depends" $?
if [ -n "$mpi" ]; then
  dep tplan-mpi | grep -qx "tplan (= $version)" && dep tplan-mpi | grep -q '^libopenmpi'
  check "tplan-mpi Depends tplan (= $version) and Open MPI: $(dpkg-deb -f "${deb[tplan-mpi]}" Depends | head -c 200)" $?
  grep -qx /usr/bin/tplan-mpi "$tmp/tplan-mpi.files" && ! grep -q '^/usr/bin/tplan$' "$tmp/tplan-mpi.files" &&
    ! grep -q 'tplan-mpi' "$tmp/tplan.files"
  check "/usr/bin/tplan-mpi in tplan-mpi only, /usr/bin/tplan not in it" $?
fi
# multiarch: the library and the development files under usr/lib/<triplet>, Multi-Arch: same
for p in libtplan0 libtplan-dev; do
  [ "$(dpkg-deb -f "${deb[$p]}" Multi-Arch)" = same ] && ! grep -q '^/usr/lib/libtplan' "$tmp/$p.files" &&
    grep -q "^/usr/lib/$triplet/libtplan\.so" "$tmp/$p.files"
  check "$p: Multi-Arch: same, libtplan.so* in /usr/lib/$triplet, nothing in /usr/lib itself" $?
done
# the program is linked statically against tplan's own code: it needs no libtplan0
! dep tplan | grep -q '^libtplan'; check "tplan (statically linked) does not depend on libtplan0" $?
! grep -q 'libtplan\.so' "$tmp/tplan.files"; check "tplan ships no libtplan.so" $?

# contents: the library only in libtplan0, its link, headers, .pc and CMake files only in -dev,
# the domains only in tplan-data, and no path in two packages (directories aside)
grep -Eq "^/usr/lib/$triplet/libtplan\.so\.0\.[0-9.]+\$" "$tmp/libtplan0.files" &&
  grep -Eq "^/usr/lib/$triplet/libtplan\.so\.0\$" "$tmp/libtplan0.files"
check "libtplan0 has libtplan.so.0 and its SONAME link" $?
grep -E '^/usr/(include|lib/.*\.pc$|lib/(.*/)?cmake/)' "$tmp/libtplan0.files" > "$tmp/bad.txt"
[ ! -s "$tmp/bad.txt" ]; check "libtplan0 has no header, .pc or CMake file" $?
for p in tplan-data tplan python3-tplan ${mpi:+tplan-mpi}; do
  grep -E 'libtplan\.so|^/usr/include' "$tmp/$p.files" > "$tmp/bad.txt"
  [ ! -s "$tmp/bad.txt" ]; check "$p has no libtplan.so* and no header $(head -1 "$tmp/bad.txt")" $?
done
for f in /usr/include/tplan/tplan.h /usr/include/tplan/version.h /usr/lib/$triplet/pkgconfig/tplan.pc \
  /usr/lib/$triplet/cmake/tplan/tplanConfig.cmake; do
  grep -qx "$f" "$tmp/libtplan-dev.files"
  check "libtplan-dev has $f" $?
done
grep -Eq "^/usr/lib/$triplet/libtplan\.so\$" "$tmp/libtplan-dev.files" && ! grep -Eq 'libtplan\.so\.' "$tmp/libtplan-dev.files"
check "libtplan-dev has the libtplan.so link and not the library" $?
grep -q '^/usr/share/tplan/domains/soccer.lua$' "$tmp/tplan-data.files" && ! grep -q '^/usr/share/tplan/domains/' "$tmp/tplan.files"
check "the domains are in tplan-data only" $?
# a path listed twice is a directory both packages create (dpkg shares those); a file or link is not
for p in $pkgs; do dpkg-deb -c "${deb[$p]}"; done | awk '$1 !~ /^d/ {print $6}' | sort | uniq -d > "$tmp/dupfiles.txt"
[ ! -s "$tmp/dupfiles.txt" ]; check "no file in two packages $(head -3 "$tmp/dupfiles.txt" | tr '\n' ' ')" $?
for p in $pkgs; do
  grep -qx "/usr/share/doc/$p/copyright" "$tmp/$p.files" && grep -qx "/usr/share/doc/$p/changelog.gz" "$tmp/$p.files"
  check "$p: usr/share/doc/$p/copyright and changelog.gz" $?
done

lintian --tag-display-limit 0 "${deb[@]}" > "$tmp/lintian.txt" 2>&1
grep -E '^[EW]: ' "$tmp/lintian.txt"
! grep -q '^E: ' "$tmp/lintian.txt"
rc=$? # (kept before the message: its $(grep -c ...) would set $?)
check "lintian: no errors ($(grep -c '^W: ' "$tmp/lintian.txt") warnings)" $rc
# no warning (docs/install.md#lintian): the multiarch libdir ended pkg-config-unavailable-for-cross-compilation
! grep -q '^W: ' "$tmp/lintian.txt"
check "lintian: no warning (docs/install.md)" $?
dpkg-deb -c "${deb[tplan]}" > "$tmp/contents.txt"
grep -q ' ./etc/default/tplan$' "$tmp/contents.txt" && dpkg-deb -e "${deb[tplan]}" "$tmp/control" &&
  grep -qx /etc/default/tplan "$tmp/control/conffiles"
check "/etc/default/tplan is a conffile" $?
dpkg-deb -e "${deb[libtplan0]}" "$tmp/libcontrol" && grep -qx "libtplan 0 libtplan0 (>= $version)" "$tmp/libcontrol/shlibs" &&
  grep -qx 'activate-noawait ldconfig' "$tmp/libcontrol/triggers" && [ ! -e "$tmp/libcontrol/postinst" ]
check "libtplan0: shlibs, an ldconfig trigger and no maintainer script" $?

root=$tmp/root
for p in $pkgs; do dpkg-deb -x "${deb[$p]}" "$root" || false; done; check "dpkg-deb -x, in install order" $?
# the Debian changelog's date is the source's last commit's (SOURCE_DATE_EPOCH overrides it), not
# the packaging time: the same changelog.gz on every architecture (Multi-Arch: same)
epoch=${SOURCE_DATE_EPOCH:-$(git -C "$src" log -1 --format=%ct 2> /dev/null)}
if [ -n "$epoch" ]; then
  when=$(LC_ALL=C date -u -d "@$epoch" '+%a, %d %b %Y %H:%M:%S +0000')
  zcat "$root/usr/share/doc/libtplan0/changelog.gz" | grep -qF -- "  $when"
  check "libtplan0's changelog is dated $when (the last commit)" $?
fi
grep -q '^Copyright: 2026 the tplan authors$' "$root/usr/share/doc/libtplan0/copyright" &&
  grep -q '^License: Expat$' "$root/usr/share/doc/libtplan0/copyright" && [ ! -e "$root/usr/share/doc/tplan/LICENSE" ] &&
  grep -q 'SPDX-License-Identifier: MIT' "$root/usr/include/tplan/tplan.h"
check "MIT (Expat), the tplan authors: copyright (LICENSE not repeated), the header" $?
# the symbols file (docs/install.md#lintian): the packaged library exports exactly what it lists,
# no symbol more or less (dpkg-gensymbols -c4 fails on either)
mkdir -p "$tmp/gensym/debian" && printf 'Source: tplan\n\nPackage: libtplan0\nArchitecture: any\n' > "$tmp/gensym/debian/control"
[ -s "$tmp/libcontrol/symbols" ] && head -1 "$tmp/libcontrol/symbols" | grep -qx 'libtplan.so.0 libtplan0 #MINVER#' &&
  (cd "$tmp/gensym" && dpkg-gensymbols -v"$version" -plibtplan0 -e"$root$(grep -E 'libtplan\.so\.0\.[0-9.]+$' "$tmp/libtplan0.files")" \
    -I"$tmp/libcontrol/symbols" -O"$tmp/gensym/out" -c4 > "$tmp/gensym/log" 2>&1)
check "libtplan0: a symbols file, equal to the library's exports ($(grep -c '@TPLAN_' "$tmp/libcontrol/symbols" 2>/dev/null) symbols; $(head -c 300 "$tmp/gensym/log" 2>/dev/null))" $?

# hardening (dpkg-buildflags hardening=+all; TP_HARDEN): RELRO + BIND_NOW, PIE, the stack
# protector and FORTIFY's checked calls, read from the packaged binaries
lib=$(grep -E 'libtplan\.so\.0\.[0-9.]+$' "$tmp/libtplan0.files")
for b in /usr/bin/tplan "$lib" ${mpi:+/usr/bin/tplan-mpi}; do
  readelf -d "$root$b" | grep -q 'BIND_NOW' && readelf -lW "$root$b" | grep -q GNU_RELRO &&
    nm -D "$root$b" | grep -q ' __stack_chk_fail' && nm -D "$root$b" | grep -Eq ' __[a-z]+_chk(@|$)'
  check "hardened $b: BIND_NOW, GNU_RELRO, __stack_chk_fail, _chk calls" $?
done
readelf -h "$root/usr/bin/tplan" | grep -q 'DYN (Position-Independent Executable' && readelf -d "$root/usr/bin/tplan" | grep -q 'PIE'
check "tplan is a PIE" $?

# the packaged development files find the library where libtplan0 put it: tplan.pc's libdir and
# tplan::tplan's file, both relative to where they are installed, from the unpacked root
[ "$(realpath -m "$(PKG_CONFIG_PATH= PKG_CONFIG_LIBDIR="$root/usr/lib/$triplet/pkgconfig" pkg-config --variable=libdir tplan)")" = \
  "$root/usr/lib/$triplet" ]
check "tplan.pc: libdir is /usr/lib/$triplet" $?
mkdir -p "$tmp/cm" && printf '%s\n' 'cmake_minimum_required(VERSION 3.25)' 'project(probe LANGUAGES NONE)' \
  'find_package(tplan 0.1 CONFIG REQUIRED)' 'get_target_property(loc tplan::tplan IMPORTED_LOCATION_RELEASE)' \
  'message(STATUS "tplan::tplan=${loc}")' > "$tmp/cm/CMakeLists.txt"
cmake -S "$tmp/cm" -B "$tmp/cm/b" -DCMAKE_PREFIX_PATH="$root/usr" -DCMAKE_LIBRARY_ARCHITECTURE="$triplet" > "$tmp/cm.log" 2>&1
grep -qx -- "-- tplan::tplan=$root/usr/lib/$triplet/libtplan.so.$version" "$tmp/cm.log"
check "find_package(tplan CONFIG): tplan::tplan is /usr/lib/$triplet/libtplan.so.$version ($(grep 'tplan::tplan\|Error' "$tmp/cm.log" | head -c 300))" $?

# the program tplan needs no Open MPI (no libmpi NEEDED); tplan-mpi is the same program with --mpi
! readelf -d "$root/usr/bin/tplan" | grep -q 'libmpi'; check "packaged tplan NEEDs no libmpi" $?
mkdir -p "$tmp/work" && cd "$tmp/work"
"$root/usr/bin/tplan" plan minigolf --mpi --no-out -q > mpi.txt 2>&1
rc=$?
[ $rc -eq 2 ] && grep -q 'run tplan-mpi' mpi.txt; check "packaged tplan plan --mpi: exit 2 naming tplan-mpi (got $rc)" $?
if [ -n "$mpi" ]; then
  readelf -d "$root/usr/bin/tplan-mpi" | grep -q 'libmpi' && [ "$("$root/usr/bin/tplan-mpi" --version)" = "tplan $version" ] &&
    [ "$(readlink "$root/usr/share/man/man1/tplan-mpi.1.gz")" = tplan.1.gz ]
  check "packaged tplan-mpi: NEEDs libmpi, --version, man page tplan-mpi(1) -> tplan(1)" $?
  # two ranks on this machine (as tests/e2e/mpi.sh runs them): the packaged domains, the plan of
  # the packaged tplan's --jobs 2
  if command -v mpirun > /dev/null; then
    OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_btl=self,vader \
      OMPI_MCA_btl_vader_single_copy_mechanism=none timeout 300 mpirun --oversubscribe --bind-to none -np 2 \
      "$root/usr/bin/tplan-mpi" plan minigolf --mpi -q -o mpi.plan.json > mpirun.txt 2>&1
    rc=$?
    "$root/usr/bin/tplan" plan minigolf --jobs 2 -q -o jobs.plan.json > /dev/null 2>&1
    [ $rc -eq 0 ] && same mpi.plan.json jobs.plan.json
    check "mpirun -np 2 packaged tplan-mpi plan minigolf --mpi: exit $rc, the plan of tplan --jobs 2 ($(head -c 200 mpirun.txt))" $?
  fi
fi
[ "$("$root/usr/bin/tplan" --version)" = "tplan $version" ]; check "packaged tplan --version" $?
"$root/usr/bin/tplan" plan soccer --seed 1 -q -o soccer.json > /dev/null 2>&1; check "packaged tplan plans soccer" $?
"$root/usr/bin/tplan" replay soccer.json -q; check "packaged tplan replays it bit for bit" $?
[ -f "$root/usr/share/man/man1/tplan-serve.1.gz" ] && [ -f "$root/usr/share/doc/tplan/copyright" ] &&
  [ -f "$root/usr/share/doc/tplan/changelog.gz" ]
check "man pages, copyright, changelog" $?
python3 "$src/tests/install/doc_links.py" "$root/usr/share/doc/tplan" > "$tmp/links.txt"
check "packaged docs: $(tail -1 "$tmp/links.txt") (usr/share/doc/tplan/domains -> $(readlink "$root/usr/share/doc/tplan/domains"))" $?
grep '^broken' "$tmp/links.txt" | head -10

# import tplan as python3-tplan installs it (/usr/lib/python3/dist-packages/tplan, Depends numpy),
# here against the unpacked library, found as an installed one is: by the loader (found_by
# "system"), whose multiarch folder /usr/lib/<triplet> LD_LIBRARY_PATH stands in for
grep -qx '/usr/lib/python3/dist-packages/tplan/__init__.py' "$tmp/python3-tplan.files" &&
  ! grep -q '/dist-packages/' "$tmp/tplan.files"
check "the Python binding is in python3-tplan only" $?
py=$(python_with_numpy)
if [ -n "$py" ]; then
  env -u TPLAN_LIBRARY LD_LIBRARY_PATH="$root/usr/lib/$triplet" TPLAN_DOMAINS=$root/usr/share/tplan/domains \
    PYTHONPATH=$root/usr/lib/python3/dist-packages "$py" -c '
import os, sys, tplan, tplan._lib as L
assert tplan.__file__.startswith(sys.argv[1]), tplan.__file__
assert L.found_by == "system", L.found_by
assert os.path.realpath(tplan.library_path()).startswith(sys.argv[1] + "/usr/lib/" + sys.argv[2] + "/"), tplan.library_path()
assert tplan.load("minigolf").plan(seed=1, max_iters=20).trajectory.shape[1:] == (11, 13)' "$root" "$triplet"
  check "the packaged tplan module loads libtplan.so.0 from /usr/lib/$triplet by the loader, and plans" $?
fi

# the service as the unit runs it (its ExecStart options), on a free port
"$root/usr/bin/tplan" serve --data "$tmp/state" --bind 127.0.0.1 --port 0 --workers 1 > "$tmp/serve.out" 2>&1 &
server=$!
for _ in $(seq 1 600); do grep -q "listening on" "$tmp/serve.out" && break; sleep 0.05; done
port=$(sed -n 's/.*listening on http:\/\/127.0.0.1:\([0-9]*\).*/\1/p' "$tmp/serve.out")
[ -n "$port" ]; check "packaged tplan serve starts ($(head -1 "$tmp/serve.out"))" $?
for path in /v1/health / /node_modules/three/build/three.module.js; do
  code=$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port$path")
  [ "$code" = 200 ]; check "GET $path -> $code" $?
done
kill "$server"; wait "$server" 2> /dev/null; server=""

# the unit: systemd-analyze verify it with ExecStart pointing at the unpacked binary (the only
# change) and the packaged man pages on MANPATH (Documentation=man:tplan-serve(1))
unit=$root/lib/systemd/system/tplan.service
[ -f "$unit" ]; check "the systemd unit is packaged" $?
grep -q '^DynamicUser=yes' "$unit" && grep -q '^ProtectSystem=strict' "$unit" && grep -q '^NoNewPrivileges=yes' "$unit"
check "the unit runs as its own user, hardened" $?
sed "s|/usr/bin/tplan|$root/usr/bin/tplan|" "$unit" > "$tmp/tplan.service"
MANPATH=$root/usr/share/man systemd-analyze verify "$tmp/tplan.service" > "$tmp/verify.txt" 2>&1
rc=$?
[ $rc -eq 0 ] || cat "$tmp/verify.txt"
check "systemd-analyze verify tplan.service" $rc
finish package
