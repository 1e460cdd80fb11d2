#!/usr/bin/env bash
# The binding installs offline with Debian's tooling (docs/python.md, Install): pip from the
# repository's python/ with no build isolation and no index, into a folder of the build tree
# (--target: no root, no venv); the installed copy then imports, finds libtplan by TPLAN_LIBRARY
# and plans. Skipped (77) without pip or setuptools.
# usage: install.sh PYTHON SOURCE_DIR WORK_DIR     (TPLAN_LIBRARY, TPLAN_DOMAINS set by ctest)
set -euo pipefail
py=$1 src=$2 work=$3
{ "$py" -c "import setuptools" && "$py" -m pip --version; } > /dev/null 2>&1 || { echo "no pip or setuptools for $py: skipped"; exit 77; }
rm -rf "$work" && mkdir -p "$work"
cp -r "$src/python" "$work/src" # pip builds in the source folder: keep the repository clean
rm -rf "$work/src/build" "$work/src/"*.egg-info
"$py" -m pip install -q --no-build-isolation --no-index --no-deps --no-compile --disable-pip-version-check \
    --target "$work/site" "$work/src"
cd "$work"
PYTHONPATH="$work/site" "$py" - "$work/site" << 'PY'
import os, sys
import tplan
assert os.path.dirname(tplan.__file__) == os.path.join(sys.argv[1], "tplan"), tplan.__file__
r = tplan.load("minigolf").plan(seed=1, max_iters=20)
assert r.trajectory.shape[1:] == (11, 13)
print("installed", tplan.__file__, "libtplan", tplan.version(), r)
PY
