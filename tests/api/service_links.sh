#!/usr/bin/env bash
# The service links only tp_core and tp_rundef (the run definition's encoding), never the api, Lua or
# ODE (repro service_links_api.sh: tp_service linked tp_api for two symbols of run_def.c, and through
# it the sandbox and the physics). Checks the built static libraries' symbols: every symbol that
# libtp_service.a and libtp_rundef.a use and some project library defines is defined by tp_core,
# tp_rundef or tp_service itself; none is Lua's or ODE's.
# usage: service_links.sh NM LIBTP_SERVICE LIBTP_RUNDEF LIBTP_CORE OTHER_PROJECT_LIBS...
set -u
nm=$1 service=$2 rundef=$3 core=$4
shift 4
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
defined() { "$nm" --defined-only -g "$@" 2> /dev/null | awk 'NF == 3 && $2 ~ /[TDBR]/ {print $3}' | sort -u; }
"$nm" -u "$service" "$rundef" | awk 'NF >= 2 {print $NF}' | sort -u > "$work/used"
defined "$service" "$rundef" "$core" > "$work/allowed"
defined "$@" > "$work/others"
fail=0
# used, defined by another project library and not by the allowed ones
leaks=$(comm -12 "$work/used" "$work/others" | comm -23 - "$work/allowed")
if [ -n "$leaks" ]; then
  echo "FAIL: symbols of other project libraries used by the service: $(echo $leaks | head -c 600)"
  fail=1
fi
foreign=$(grep -E '^(lua_|luaL_|luaopen_|dWorld|dBody|dGeom|dJoint|dInitODE|dCloseODE|dSpace)' "$work/used")
if [ -n "$foreign" ]; then
  echo "FAIL: Lua or ODE symbols used by the service: $(echo $foreign | head -c 600)"
  fail=1
fi
n=$(wc -l < "$work/used")
[ $fail -eq 0 ] && echo "service links: $n undefined symbols, none from the api, Lua or ODE"
exit $fail
