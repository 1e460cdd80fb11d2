#!/usr/bin/env bash
# Writes the manual pages tplan.1 and tplan-CMD.1 (one per subcommand) into OUT_DIR from the
# program's own --help texts, so that the pages and `tplan CMD --help` never disagree.
# usage: tools/man.sh TPLAN OUT_DIR VERSION      (run by the build: CMake target `man`)
set -euo pipefail
tplan=$1; out=$2; version=$3
mkdir -p "$out"
# the subcommands as `tplan --help` lists them (its command table, cli/main.c)
cmds=$("$tplan" --help | sed -n '/^commands:/,/^$/p' | awk 'NR > 1 && $1 != "help" && NF {print $1}')

# roff-safe text: backslashes doubled, a leading . or ' protected by \&
esc() { sed -e 's/\\/\\e/g' -e "s/^\\([.']\\)/\\\\\\&\\1/"; }

page() { # page NAME SECTION-TITLE SUMMARY HELP-TEXT-FILE
  local name=$1 summary=$2 help=$3 upper
  upper=$(printf '%s' "$name" | tr '[:lower:]' '[:upper:]')
  {
    printf '.TH %s 1 "" "tplan %s" "tplan manual"\n' "$upper" "$version"
    printf '.SH NAME\n%s \\- %s\n' "$name" "$(printf '%s' "$summary" | esc)"
    printf '.SH SYNOPSIS\n.nf\n'
    sed -n 's/^usage: //p' "$help" | head -1 | esc
    printf '.fi\n.SH DESCRIPTION\n.nf\n'
    # everything after the usage line, as the program prints it (a fixed-width layout)
    sed -e '1d' "$help" | esc
    printf '.fi\n.SH "SEE ALSO"\n'
    if [ "$name" = tplan ]; then
      for c in $cmds; do printf '.BR tplan-%s (1),\n' "$c"; done
    else
      printf '.BR tplan (1),\n'
    fi
    printf 'and the documentation in /usr/share/doc/tplan (README.md, docs/*.md).\n'
  } > "$out/$name.1"
}

tmp=$(mktemp); trap 'rm -f "$tmp"' EXIT
"$tplan" --help > "$tmp"
page tplan "physics-based tactics planner (BK-RRT, BK-BGT) for rigid bodies in ODE, scripted in Lua" "$tmp"
# the NAME line of each subcommand: what `tplan --help` lists for it
for c in $cmds; do
  summary=$("$tplan" --help | sed -n "s/^  $c [A-Z]*  *//p; s/^  $c  *//p" | head -1)
  "$tplan" "$c" --help > "$tmp"
  page "tplan-$c" "$summary" "$tmp"
done
