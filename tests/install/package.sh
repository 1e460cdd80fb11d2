#!/usr/bin/env bash
# The Debian package (make package, docs/install.md): built by CPack from the build tree into a
# temporary folder, checked by lintian (no errors), unpacked with dpkg-deb -x and used from there:
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

cpack -G DEB --config "$build/CPackConfig.cmake" -B "$tmp/pkg" > "$tmp/cpack.log" 2>&1
check "cpack -G DEB" $?
deb=$tmp/pkg/tplan_${version}_amd64.deb
[ -f "$deb" ]; check "tplan_${version}_amd64.deb" $?
depends=$(dpkg-deb -f "$deb" Depends)
echo "Depends: $depends"
case "$depends" in *libode8*liblua5.4-0* | *liblua5.4-0*libode8*) true ;; *) false ;; esac
check "dependencies from shlibdeps (libode8, liblua5.4-0)" $?
lintian --no-tag-display-limit "$deb" > "$tmp/lintian.txt" 2>&1
grep -q '^E: ' "$tmp/lintian.txt" && cat "$tmp/lintian.txt"
! grep -q '^E: ' "$tmp/lintian.txt"; check "lintian: no errors ($(grep -c '^W: ' "$tmp/lintian.txt") warnings)" $?
dpkg-deb -c "$deb" > "$tmp/contents.txt"
grep -q ' ./etc/default/tplan$' "$tmp/contents.txt" && dpkg-deb -e "$deb" "$tmp/control" &&
  grep -qx /etc/default/tplan "$tmp/control/conffiles"
check "/etc/default/tplan is a conffile" $?

root=$tmp/root
dpkg-deb -x "$deb" "$root"; check "dpkg-deb -x" $?
mkdir -p "$tmp/work" && cd "$tmp/work"
[ "$("$root/usr/bin/tplan" --version)" = "tplan $version" ]; check "packaged tplan --version" $?
"$root/usr/bin/tplan" plan soccer --seed 1 -q -o soccer.json > /dev/null 2>&1; check "packaged tplan plans soccer" $?
"$root/usr/bin/tplan" replay soccer.json -q; check "packaged tplan replays it bit for bit" $?
[ -f "$root/usr/share/man/man1/tplan-serve.1.gz" ] && [ -f "$root/usr/share/doc/tplan/copyright" ] &&
  [ -f "$root/usr/share/doc/tplan/changelog.gz" ]
check "man pages, copyright, changelog" $?
python3 "$src/tests/install/doc_links.py" "$root/usr/share/doc/tplan" > "$tmp/links.txt"
check "packaged docs: $(tail -1 "$tmp/links.txt") (usr/share/doc/tplan/domains -> $(readlink "$root/usr/share/doc/tplan/domains"))" $?
grep '^broken' "$tmp/links.txt" | head -10

# import tplan as the package installs it (/usr/lib/python3/dist-packages/tplan, Suggests numpy),
# here against the unpacked library (TPLAN_LIBRARY: nothing of it is in the loader's /usr/lib)
grep -q ' ./usr/lib/python3/dist-packages/tplan/__init__.py$' "$tmp/contents.txt" &&
  dpkg-deb -f "$deb" Suggests | grep -q python3-numpy
check "the Python binding is packaged, numpy suggested" $?
py=$(python_with_numpy)
if [ -n "$py" ]; then
  TPLAN_LIBRARY=$(find "$root/usr/lib" -name 'libtplan.so.0' | head -1) TPLAN_DOMAINS=$root/usr/share/tplan/domains \
    PYTHONPATH=$root/usr/lib/python3/dist-packages "$py" -c '
import sys, tplan
assert tplan.__file__.startswith(sys.argv[1]), tplan.__file__
assert tplan.load("minigolf").plan(seed=1, max_iters=20).trajectory.shape[1:] == (11, 13)' "$root"
  check "the packaged tplan module plans" $?
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
