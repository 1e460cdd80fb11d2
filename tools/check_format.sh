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
# one clang-format for all files (a process per file took half a minute on a busy machine)
out=$("$cf" --dry-run -Werror --style=file "${files[@]}" 2>&1)
rc=$?
bad=$(printf '%s\n' "$out" | grep -oE '^[^:]+\.[ch]:[0-9]+:[0-9]+: error' | cut -d: -f1 | sort -u)
for f in $bad; do
  echo "check_format: $f deviates from .clang-format (fix: tools/check_format.sh --fix)"
done
n=$(printf '%s' "$bad" | grep -c . || true)
if [ "$rc" -ne 0 ] && [ "$n" -eq 0 ]; then # clang-format itself failed
  printf '%s\n' "$out" | head -20
  exit 2
fi
echo "check_format: ${#files[@]} files, $n deviate"
[ "$rc" -eq 0 ]
