#!/usr/bin/env bash
# The flagship at its real size: the default dice domain, 400 dice spelling "TP"
# (paper Sec. 6.4), seed 1, planned end to end. It must be solved (>= 90 % of the dice resting on
# their cells), replay bit for bit with --check at the plan's own limits (the domain's
# 2 cm, docs/physics.md), start with no two dice overlapping (centres at least a die's diagonal apart)
# and end with every die inside the bucket (its centre within the walls' inner faces, below their
# top). A change that breaks the 400-dice scene cannot land unnoticed: the 30-dice tests did not
# see it go from 20/20 to 17/20. Release build only (about 10 s of planning; `tplan bench` has the
# 20-seed figure). Usage: dice400.sh TPLAN WORKDIR
set -u
tplan=$1 work=$2/dice400
rm -rf "$work" && mkdir -p "$work"
. "$(dirname "$0")/lib.sh"

out="$work/tp.plan.json"
"$tplan" plan dice --seed 1 -o "$out" > "$work/plan.txt"
rc=$?
expect "400 dice, seed 1: plan exited $rc (expected 0, solved)" test $rc -eq 0
expect "400 dice: replay bit for bit, --check at the plan's limits" "$tplan" replay -q --check "$out"
python3 - "$out" <<'PY'
import json, math, sys
d = json.load(open(sys.argv[1]))
dice = [b for b in d["bodies"] if b["name"].startswith("die")]
assert len(dice) == 400, f"{len(dice)} dice, expected 400"
walls = {b["name"]: b for b in d["bodies"] if b["name"].startswith("wall_")}
x0 = walls["wall_w"]["pose"][0] + walls["wall_w"]["size"][0] / 2
x1 = walls["wall_e"]["pose"][0] - walls["wall_e"]["size"][0] / 2
y0 = walls["wall_s"]["pose"][1] + walls["wall_s"]["size"][1] / 2
y1 = walls["wall_n"]["pose"][1] - walls["wall_n"]["size"][1] / 2
top = walls["wall_w"]["pose"][2] + walls["wall_w"]["size"][2] / 2
edge = dice[0]["size"][0]
start = [b["trajectory"][0][:3] for b in dice]
closest = min(math.dist(start[i], start[j]) for i in range(len(start)) for j in range(i + 1, len(start)))
assert closest >= edge * math.sqrt(3), f"two dice start {closest:.4f} m apart, closer than a die's diagonal"
outside = [b["name"] for b in dice
           if not (x0 < b["trajectory"][-1][0] < x1 and y0 < b["trajectory"][-1][1] < y1 and b["trajectory"][-1][2] < top)]
assert not outside, f"{len(outside)} dice end outside the bucket: {outside[:5]}"
print(f"400 dice: closest start {closest:.3f} m apart; all inside the bucket at the end")
PY
check "400 dice: apart at the start, inside the bucket at the end (python3 reads the plan)" $?
frac=$(awk '/^report/ { for (i = 1; i <= NF; i++) if ($i == "on_target") print $(i + 1) }' "$work/plan.txt" | tr -d ,)
expect "400 dice: on_target '$frac' >= 0.9" awk -v f="$frac" 'BEGIN { exit !(f != "" && f >= 0.9) }'
finish "dice400"
