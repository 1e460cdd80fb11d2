#!/usr/bin/env bash
# Keyboard and mouse input of `tplan view`, driven by xdotool on the X server of xvfb.sh: keys go
# to the window (XSendEvent), the mouse through XTEST; `--print-state` reports the result when
# Escape closes the window. Nothing here depends on timing, however busy the machine (each drive
# stops the viewer while it sends the input, the worst case of a loaded machine):
# - input starts once the window is viewable (xdotool --sync --onlyvisible waits for that event),
#   so pointer events reach it instead of the root window;
# - the X server queues the events in the order sent and the viewer handles them in that order,
#   taking a click's position from the motion events before it (never from a live query of the
#   pointer, which later motion may already have moved);
# - playback runs on wall time, so every drive that checks a step pauses with Left/Right (which
#   always pause) rather than space (which restarts a plan that has already played to its end).
# Usage (under xvfb.sh): input.sh TPLAN DOMAIN WORKDIR
set -u
tplan=$1 domain=$2 work=$3/input
rm -rf "$work" && mkdir -p "$work"
command -v xdotool >/dev/null || { echo "FAIL: xdotool is not installed (.ci/install-deps installs it)"; exit 1; }
pass=0 fail=0
check() { # name, condition result (0 = ok)
  if [ "$2" -eq 0 ]; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: $1"; fi
}
"$tplan" plan "$domain" --planner rrt --seed 1 --solutions 2 --max-iters 200000 -q -o "$work/many.json" \
  --tree "$work/many.tree" || { echo "FAIL: planning"; exit 1; }

# Runs the viewer (640x360), sends the xdotool commands given as arguments (WID is replaced by the
# window id), closes it with Escape and prints the state line.
drive() {
  "$tplan" view "$work/many.json" --tree "$work/many.tree" --size 640x360 --print-state >"$work/out.txt" 2>&1 &
  local pid=$! wid
  wid=$(timeout 120 xdotool search --sync --onlyvisible --name "tplan view") || { kill "$pid"; return 1; }
  wid=${wid%%$'\n'*}
  # The worst case of a busy machine, every time: the viewer is stopped while the input is sent and
  # finds it all queued when it resumes.
  kill -STOP "$pid"
  for cmd in "$@"; do
    eval "xdotool ${cmd//WID/$wid}" >/dev/null 2>&1
  done
  xdotool key --window "$wid" Escape >/dev/null 2>&1
  kill -CONT "$pid"
  wait "$pid"
  local rc=$?
  grep "^state:" "$work/out.txt"
  return $rc
}
field() { # state line, name -> the value after the name
  echo "$1" | awk -v k="$2" '{ for (i = 1; i < NF; ++i) if ($i == k) { print $(i + 1); exit } }'
}

# Keys: pause, first step, three steps on, tree off, faster, next world, contacts, overlay, help,
# navigation grid and vehicle-tree layers off.
s=$(drive "key --window WID space Home Right Right Right t bracketright n k o h g v")
check "keys: viewer exit 0" $?
echo "keys -> $s"
check "space pauses" $([ "$(field "$s" playing)" = 0 ]; echo $?)
check "Home then 3 x Right: step 3" $([ "$(field "$s" step)" = 3 ]; echo $?)
check "T: tree off" $([ "$(field "$s" tree)" = 0 ]; echo $?)
check "]: speed 2" $([ "$(field "$s" speed)" = 2 ]; echo $?)
check "N: world 2" $([ "$(field "$s" world)" = 2 ]; echo $?)
check "K: contacts on" $([ "$(field "$s" contacts)" = 1 ]; echo $?)
check "O: overlay off" $([ "$(field "$s" overlay)" = 0 ]; echo $?)
check "H: help on" $([ "$(field "$s" help)" = 1 ]; echo $?)
check "G, V: nav layers 63 - 1 - 32 = 30" $([ "$(field "$s" nav)" = 30 ]; echo $?)
s=$(drive "key --window WID space End Left Left Down bracketleft bracketleft l")
echo "keys 2 -> $s"
steps=$(awk '/"steps"/ { gsub(/[^0-9]/, ""); print; exit }' "$work/many.json")
check "End, 2 x Left, Down: step $steps - 12" $([ "$(field "$s" step)" = $((steps - 12)) ]; echo $?)
check "[ [: speed 0.25" $([ "$(field "$s" speed)" = 0.25 ]; echo $?)
check "L: trails off" $([ "$(field "$s" trails)" = 0 ]; echo $?)

# Mouse: pause (Left); click the timeline in the middle (x 328 of 640: the bar runs from 16 to 624),
# move away at once (the click must seek where it happened, not where the pointer is when the viewer
# gets to it); zoom in with the wheel. (Drags are not checked: xdotool's motion events during a drag
# reach GLFW unreliably, so orbit and pan are only tested by hand.)
s0=$(drive "key --window WID Left")
s=$(drive "key --window WID Left" "mousemove --window WID 328 339" "click 1" "mousemove --window WID 300 150" \
          "click 4" "click 4")
check "mouse: viewer exit 0" $?
echo "mouse -> $s"
expect=$(awk -v n="$steps" 'BEGIN { printf "%d", (328 - 16) / 608 * n }')
got=$(field "$s" step)
check "timeline click at the middle: step $got, about $expect" $([ $((got - expect)) -le 2 ] && [ $((expect - got)) -le 2 ]; echo $?)
dist() { echo "$1" | awk '{ for (i = 1; i < NF; ++i) if ($i == "camera") print $(i + 3) }'; }
d0=$(dist "$s0") d1=$(dist "$s")
check "wheel zooms in ($d0 -> $d1)" $(awk -v a="$d0" -v b="$d1" 'BEGIN { exit !(b < a) }'; echo $?)
# C resets the camera to the fitted one
s=$(drive "mousemove --window WID 300 150" "click 4" "click 4" "click 4" "key --window WID c")
check "C resets the camera ($(dist "$s") vs $d0)" $([ "$(echo "$s" | sed 's/.*camera//')" = "$(echo "$s0" | sed 's/.*camera//')" ]; echo $?)

echo "input: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
