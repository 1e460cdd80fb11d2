#!/usr/bin/env bash
# Every shipped domain's seed-1 plan, and the 400 dice at their real size, pinned (the house audit;
# the model is Box2D's test_determinism.c): tools/plan_digests.sh BUILD 1 must print exactly
# tests/plan_digests.txt. A change that moves a plan fails here. When the change is meant to move
# it, say which plans and why in the commit, and refresh the file from a Release build:
#   bash tools/plan_digests.sh build 1 > tests/plan_digests.txt
# The digests are those of any build (GCC or clang, Release, -march=native: e2e_compilers replays
# them across compilers), without the timing block.
# usage: tests/plan_digests.sh BUILD_DIR SOURCE_DIR
set -u
build=$(cd "$1" && pwd) src=$(cd "$2" && pwd)
cd "$src" || exit 1
got=$(bash tools/plan_digests.sh "$build" 1)
if diff <(printf '%s\n' "$got") tests/plan_digests.txt > /dev/null; then
  echo "plan digests: $(printf '%s\n' "$got" | wc -l) plans as pinned in tests/plan_digests.txt"
  exit 0
fi
echo "FAIL: plans differ from tests/plan_digests.txt (< this build, > pinned):"
diff <(printf '%s\n' "$got") tests/plan_digests.txt
echo "If the change is meant to move these plans: bash tools/plan_digests.sh build 1 > tests/plan_digests.txt"
exit 1
