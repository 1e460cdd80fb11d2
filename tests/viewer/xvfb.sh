#!/usr/bin/env bash
# Runs a command on a private X server (xvfb-run, Mesa software rendering). Exit 77 (ctest: skipped)
# only when xvfb-run is not installed; otherwise the command's own exit status.
if ! command -v xvfb-run >/dev/null 2>&1; then
  echo "xvfb-run not found (install the xvfb package: .ci/install-deps): test skipped"
  exit 77
fi
exec xvfb-run -a -s "-screen 0 1280x1024x24" "$@"
