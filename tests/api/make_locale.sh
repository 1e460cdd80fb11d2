#!/usr/bin/env bash
# Builds the comma-decimal test locale (comma_locale.def) for test_host.c: localedef into a folder
# beside OUT, renamed into place, so that OUT is a whole locale or absent. Never fails (the build
# must not need the Debian package locales, which only the tests do): test_host then fails,
# naming the package. Usage: make_locale.sh LOCALEDEF DEF OUT
localedef=$1 def=$2 out=$3
rm -rf "$out.tmp"
mkdir -p "$(dirname "$out")"
if "$localedef" -f UTF-8 -i "$def" "$out.tmp" > "$out.log" 2>&1; then
  rm -rf "$out" && mv "$out.tmp" "$out"
else
  rm -rf "$out.tmp"
  echo "warning: no test locale $(basename "$out") (the Debian package locales: .ci/install-deps); see $out.log"
fi
exit 0
