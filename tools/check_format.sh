#!/usr/bin/env bash
# Checks every tracked C file against the repository's .clang-format (clang-format 14, Debian 12's),
# or reformats them in place with --fix. Run by ctest as `format` (make test, CI).
# usage: tools/check_format.sh [--fix]
set -u
cd "$(dirname "$0")/.."
cf=$(command -v clang-format-14 || command -v clang-format) || {
  echo "check_format: clang-format is not installed (.ci/install-deps installs it)" >&2
  exit 2
}
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  mapfile -t files < <(git ls-files '*.c' '*.h')
else # a source tree without git: the modules' and tests' C files
  mapfile -t files < <(find core physics skills tactics lua viewer export service tests -name '*.c' -o -name '*.h' | sort)
fi
if [ "${1:-}" = --fix ]; then
  "$cf" -i --style=file "${files[@]}"
  exit $?
fi
bad=0
for f in "${files[@]}"; do
  if ! "$cf" --dry-run -Werror --style=file "$f" >/dev/null 2>&1; then
    echo "check_format: $f deviates from .clang-format (fix: tools/check_format.sh --fix)"
    bad=$((bad + 1))
  fi
done
echo "check_format: ${#files[@]} files, $bad deviate"
[ "$bad" -eq 0 ]
