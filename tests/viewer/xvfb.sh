#!/usr/bin/env bash
# Runs a command on a private X server (xvfb-run, Mesa software rendering). Exit 77 (ctest: skipped)
# only when xvfb-run is not installed; otherwise the command's own exit status (kept in a file, so
# that a failure of xvfb-run's own clean-up cannot be mistaken for the command's status).
if ! command -v xvfb-run >/dev/null 2>&1; then
  echo "xvfb-run not found (install the xvfb package: .ci/install-deps): test skipped"
  exit 77
fi
status=$(mktemp)
trap 'rm -f "$status"' EXIT
xvfb-run -a -s "-screen 0 1280x1024x24" bash -c '"$@"; echo $? >"$0"' "$status" "$@"
xrc=$?
rc=$(cat "$status")
if [ -z "$rc" ]; then
  echo "xvfb-run failed (exit $xrc) before the command finished"
  exit 1
fi
exit "$rc"
