#!/usr/bin/env bash
# The Blender add-on (blender/tplan_blender, docs/blender.md) in Debian's Blender:
#   addon.sh TPLAN WORKDIR         headless, against a real `tplan serve` that addon_test.py starts:
#                                  a scene built in Blender is marked, planned through the service and
#                                  locally, keyed and read back against the plan within 1e-5 m; then
#                                  the add-on's zip installs and enables as a user installs it
#   addon.sh TPLAN WORKDIR --gui   with a window under Xvfb (gui_test.py): the modal Plan operator,
#                                  tplan's progress in the panel, Esc cancels, the panel draws
#   addon.sh TPLAN WORKDIR --bowl  headless (bowl_test.py): the bowl shot driven through the panel like
#                                  a user, in at most 20 actions, keyed with reduced keys
#   addon.sh TPLAN WORKDIR --joints  headless (joints_test.py): a plan's joints drawn as empties that
#                                  follow their bodies' keys
# Exits 77 (ctest: skipped) when blender (or, for --gui, xvfb-run) is not installed
# (.ci/install-deps installs both).
set -u
tplan=$1 gui=${3:-} work=$2/blender_addon
case "$gui" in --gui) work=${work}_gui ;; --bowl) work=${work}_bowl ;; --joints) work=${work}_joints ;; esac
here=$(cd "$(dirname "$0")" && pwd)
addon=$here/../../blender
if ! command -v blender > /dev/null; then
  echo "blender is not installed: skipped"
  exit 77
fi
rm -rf "$work" && mkdir -p "$work"
if [ "$gui" = --gui ]; then
  if ! command -v xvfb-run > /dev/null; then
    echo "xvfb-run is not installed: skipped"
    exit 77
  fi
  HOME="$work" xvfb-run -a -s "-screen 0 1280x800x24" blender --factory-startup --enable-event-simulate \
    --python "$here/gui_test.py" -- "$tplan" "$work" "$addon" > "$work/blender.log" 2>&1
  python3 - "$work" <<'PY'
import json, sys
try:
    r = json.load(open(sys.argv[1] + "/gui_result.json"))
except (OSError, ValueError) as e:
    print("FAIL: no result from gui_test.py (%s); log: %s/blender.log" % (e, sys.argv[1]))
    sys.exit(1)
tb = "Traceback" in open(sys.argv[1] + "/blender.log", errors="replace").read()
for p in r["problems"] + (["a Python traceback in the log"] if tb else []):
    print("FAIL:", p)
print("blender_addon_gui: statuses %s, panel drawn %d times: %s" % (r["statuses"], r["draws"],
      "ok" if r["ok"] and not tb else "FAILED"))
sys.exit(0 if r["ok"] and not tb else 1)
PY
  exit $?
fi
if [ "$gui" = --joints ]; then
  HOME="$work" blender -b --factory-startup --python-exit-code 1 --python "$here/joints_test.py" -- \
    "$tplan" "$work" "$addon" > "$work/blender.log" 2>&1
  rc=$?
  grep -E "^(FAIL|blender_joints)" "$work/blender.log"
  [ $rc -eq 0 ] || { echo "FAIL: the joints (log: $work/blender.log)"; exit 1; }
  exit 0
fi
if [ "$gui" = --bowl ]; then
  HOME="$work" blender -b --factory-startup --python-exit-code 1 --python "$here/bowl_test.py" -- \
    "$tplan" "$work" "$addon" > "$work/blender.log" 2>&1
  rc=$?
  grep -E "^(FAIL|bowl_shot|  action)" "$work/blender.log"
  [ $rc -eq 0 ] || { echo "FAIL: the bowl shot (log: $work/blender.log)"; exit 1; }
  exit 0
fi
# HOME inside the work folder: Blender writes its user config (and installed add-ons) there
HOME="$work" blender -b --factory-startup --python-exit-code 1 --python "$here/addon_test.py" -- \
  "$tplan" "$work" "$addon" > "$work/blender.log" 2>&1
rc=$?
grep -E "^(FAIL|blender_addon|service plan|local plan)" "$work/blender.log"
[ $rc -eq 0 ] || { echo "FAIL: blender add-on test (log: $work/blender.log)"; exit 1; }
(cd "$addon" && python3 -m zipfile -c "$work/tplan_blender.zip" tplan_blender) || exit 1
HOME="$work" blender -b --factory-startup --python-exit-code 1 --python "$here/install_test.py" -- \
  "$work/tplan_blender.zip" > "$work/install.log" 2>&1
rc=$?
grep -E "^(FAIL|blender_addon)" "$work/install.log"
[ $rc -eq 0 ] || { echo "FAIL: install from the zip (log: $work/install.log)"; exit 1; }
