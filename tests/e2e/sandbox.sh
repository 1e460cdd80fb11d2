#!/usr/bin/env bash
# The Lua sandbox and its limits: every route out of the sandbox we can think of, as a
# table, and every kind of endless loop or memory growth, at the top level and in each callback.
# A probe is a Lua expression evaluated in the script's top level; the row says what it must
# give. A limit row runs a script that never ends by itself and must stop with exit 2 and the
# one-line "file:line: ... limit ..." message.
# Usage: sandbox.sh TPLAN WORKDIR
set -u
tplan=$1 work=$2/sandbox
rm -rf "$work" && mkdir -p "$work/box/lib" "$work/outside"
. "$(dirname "$0")/lib.sh"

# A domain around a probe: the probe's value goes to stderr as "PROBE=<value>".
domain() { # file, top-level Lua code, goal expression (a function of s)
  cat >"$1" <<EOF
local tp = require "tp"
$2
return tp.domain {
  name = "probe",
  bodies = {
    tp.plane { name = "ground" },
    tp.box { name = "robot", class = "active", size = {0.2, 0.2, 0.2}, mass = 1, pos = {0, 0, 0.1} },
  },
  tactics = { tp.tactic { name = "t", body = "robot", skills = { tp.skill.wait { name = "w", duration = 0.1 } } } },
  goal = ${3:-function(s) return s.t > 0.05 end},
  planner = { max_iters = 50 },
}
EOF
}

echo 'return 42' >"$work/box/lib/fine.lua"
echo 'secret = true' >"$work/outside/secret.lua"
ln -s ../../outside/secret.lua "$work/box/lib/leak.lua"
printf 'P1\n1 1\n1\n' >"$work/outside/img.pbm"
ln -s ../outside/img.pbm "$work/box/img.pbm"

# probe | expected value (grep -E on "PROBE=<value>")
probes=(
  'package|^PROBE=nil$'
  'io or os or debug|^PROBE=nil$'
  'dofile or loadfile|^PROBE=nil$'
  'rawget(_G, "package") or rawget(_ENV, "io")|^PROBE=nil$'
  'string.dump|^PROBE=nil$'
  '("").dump|^PROBE=nil$'
  'getmetatable("")|^PROBE=locked$'
  'getmetatable(tp.uniform(0, 1))|^PROBE=locked$'
  'getmetatable(tp.box { name = "b", size = {1, 1, 1}, mass = 1 })|^PROBE=locked$'
  'select(2, pcall(setmetatable, tp.uniform(0, 1), {}))|table expected'
  'select(2, pcall(require, "os"))|module .os. not found'
  'select(2, pcall(require, "io"))|module .io. not found'
  'select(2, pcall(require, "debug"))|module .debug. not found'
  'select(2, pcall(require, "../outside/secret"))|not a module name'
  'select(2, pcall(require, "/etc/passwd"))|not a module name'
  'select(2, pcall(require, "leak"))|outside the script.s folder'
  'require "fine"|^PROBE=42$'
  'require "tp" == tp|^PROBE=true$'
  'select(2, load(string.char(27) .. "Lua"))|attempt to load a binary chunk'
  'select(2, pcall(collectgarbage, "stop"))|invalid option'
  'select(2, pcall(setmetatable, {}, {__gc = function() end}))|__gc metamethods are not allowed'
  'select(2, pcall(math.random))|math.random is disabled'
  'coroutine.wrap(function() return rawget(_G, "os") end)()|^PROBE=nil$'
  'select(2, pcall(tp.pattern, {image = "/etc/shadow", count = 1, pitch = 0.1}))|must be a path inside the script.s folder'
  'select(2, pcall(tp.pattern, {image = "../outside/img.pbm", count = 1, pitch = 0.1}))|must be a path inside the script.s folder'
  'select(2, pcall(tp.pattern, {image = "img.pbm", count = 1, pitch = 0.1}))|outside the script.s folder'
  'select(2, pcall(tp.nav.track, "../x"))|not a track name'
  'warn|^PROBE=nil$'
)
for row in "${probes[@]}"; do
  expr=${row%|*} want=${row##*|}
  domain "$work/box/probe.lua" "print('PROBE=' .. tostring($expr))"
  "$tplan" plan "$work/box/probe.lua" --no-out -q >/dev/null 2>"$work/err.txt"
  grep -Eq -- "$want" "$work/err.txt"
  r=$?  # before the message: its $(...) would reset $?
  check "probe '$expr': expected /$want/, got: $(head -c 300 "$work/err.txt")" $r
done

# A script submitted as text has no folder: see tests/lua (tpCreateScript with source).

# Limits: a script that never ends or grows without bound stops with exit 2 and one line
# "file:line: ... limit ..." (the instruction-count hook, the capped allocator). Every way to
# catch the limit error (pcall, xpcall, coroutines) re-raises it.
loop='while true do end'
grow='local t = {} for i = 1, 1e12 do t[i] = i end'
# name | top-level code | goal | extra options | message
limits=(
  "top loop|$loop||--load-time-limit 0.5|probe.lua:2: time limit exceeded (the script's top level ran longer than 0.5 s"
  "pcall loop|while true do pcall(function() $loop end) end||--load-time-limit 0.5|time limit exceeded"
  "xpcall loop|while true do xpcall(function() $loop end, function(m) return m end) end||--load-time-limit 0.5|time limit exceeded"
  "coroutine loop|local co = coroutine.create(function() $loop end) while true do coroutine.resume(co) end||--load-time-limit 0.5|time limit exceeded"
  "wrap loop|while true do pcall(coroutine.wrap(function() $loop end)) end||--load-time-limit 0.5|time limit exceeded"
  "goal loop||function(s) $loop end|--call-time-limit 0.5|probe.lua:10: time limit exceeded (one callback ran longer than 0.5 s"
  "goal loop, run limit||function(s) $loop end|--time-limit 0.5|time limit exceeded (--time-limit 0.5 s"
  "goal pcall loop||function(s) while true do pcall(function() $loop end) end end|--call-time-limit 0.5|time limit exceeded"
  "long C call (tp.nav.drive, ~0.5 s of CPU)|local t = tp.nav.move_tree() tp.nav.drive(t, { walls = { {-5, -6, 1e6, -6}, {-5, 6, 1e6, 6}, {-5, -6, -5, 6} }, goal = {1e6, 0}, finish = {9e5, -6, 9e5, 6} }, { depth = 6, max_time = 1e6, togo_cell = 0 })||--load-time-limit 0.05|probe.lua:2: time limit exceeded"
  "top memory|$grow||--memory-limit 64|probe.lua:2: memory limit of 64 MB exceeded"
  "C memory held by Lua (nav grids)|local g = {} for i = 1, 100 do g[i] = tp.nav.grid { origin = {0, 0}, cell = 0.1, size = {4000, 4000} } end||--memory-limit 64|probe.lua:2: memory limit of 64 MB exceeded"
  "C memory held by Lua (nav spaces)|local g = {} for i = 1, 100 do g[i] = tp.nav.space(1024) end||--memory-limit 64|probe.lua:2: memory limit of 64 MB exceeded"
  "pcall memory|while true do pcall(function() $grow end) end||--memory-limit 64|memory limit of 64 MB exceeded"
  "string.rep memory|local s = string.rep('x', 1e9)||--memory-limit 64|memory limit of 64 MB exceeded"
  "goal memory||function(s) $grow end|--memory-limit 64|memory limit of 64 MB exceeded"
)
for row in "${limits[@]}"; do
  IFS='|' read -r name code goal opts msg <<<"$row"
  domain "$work/box/probe.lua" "$code" "$goal"
  # shellcheck disable=SC2086
  "$tplan" plan "$work/box/probe.lua" --no-out -q $opts >/dev/null 2>"$work/err.txt"
  rc=$?
  check "limit '$name': exit $rc, expected 2" $([ $rc -eq 2 ]; echo $?)
  grep -qF -- "$msg" "$work/err.txt"
  r=$?  # before the message: its $(...) would reset $?
  check "limit '$name': expected '$msg', got: $(head -c 300 "$work/err.txt")" $r
  check "limit '$name': one line on stderr" $([ "$(wc -l <"$work/err.txt")" -eq 1 ]; echo $?)
  grep -q "^$work/box/probe.lua:" "$work/err.txt"
  r=$?
  check "limit '$name': the message starts with the script's path: $(head -c 300 "$work/err.txt")" $r
done

finish
