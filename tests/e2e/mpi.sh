#!/usr/bin/env bash
# tplan plan/bench --mpi on localhost (docs/parallel.md): `mpirun -np R tplan-mpi plan ... --mpi` gives
# the plan bytes of `--jobs R` (R = 2 and 3, K = 1 and many-worlds, and an unsolved run), and
# `mpirun -np 2 tplan bench ... --mpi` the records of a sequential bench (timing aside).
# The --mpi runs are tplan-mpi's (the program with MPI), the --jobs runs tplan's (without MPI): the
# two programs make the same plans, and tplan refuses --mpi naming tplan-mpi and links no MPI.
# Usage: mpi.sh TPLAN WORKDIR MPIRUN TPLAN_MPI
set -u
tplan=$1 work=$2/mpi mpirun=$3 tplan_mpi=$4
rm -rf "$work" && mkdir -p "$work"
. "$(dirname "$0")/lib.sh"
"$tplan" plan minigolf --mpi --no-out -q > "$work/nompi.txt" 2>&1
rc=$?
check "tplan plan --mpi: exit 2 naming tplan-mpi (got $rc: $(head -c 300 "$work/nompi.txt"))" \
  $([ $rc -eq 2 ] && grep -q 'run tplan-mpi' "$work/nompi.txt"; echo $?)
! ldd "$tplan" | grep -q 'libmpi'; check "tplan links no MPI (tplan-mpi does)" $?
ldd "$tplan_mpi" | grep -q 'libmpi'; check "tplan-mpi links MPI" $?
# a container: root allowed, shared memory + self transports only, no binding to cores
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_btl=self,vader OMPI_MCA_btl_vader_single_copy_mechanism=none OMPI_MCA_rmaps_base_oversubscribe=1
mpi() { # ranks, args...
  local np=$1
  shift
  # a hang (a rank lost) fails here instead of at ctest's timeout
  timeout 300 "$mpirun" --oversubscribe --bind-to none -np "$np" "$tplan_mpi" "$@"
}

row() { # name, expected exit, ranks, plan args...
  local name=$1 want=$2 np=$3
  shift 3
  "$tplan" plan "$@" --jobs "$np" -q -o "$work/$name.jobs.json"
  rc=$?
  check "$name: --jobs $np exit $want (got $rc)" $([ $rc -eq "$want" ]; echo $?)
  mpi "$np" plan "$@" --mpi -q -o "$work/$name.mpi.json" >"$work/$name.mpi.txt" 2>&1
  rc=$?
  # mpirun exits non-zero (and says so) when the ranks do: exit 3 shows as a non-zero status
  if [ "$want" -eq 0 ]; then
    check "$name: mpirun -np $np exit 0 (got $rc; $(head -c 400 "$work/$name.mpi.txt"))" $rc
  else
    check "$name: mpirun -np $np non-zero exit (got $rc)" $([ $rc -ne 0 ]; echo $?)
  fi
  same "$work/$name.jobs.json" "$work/$name.mpi.json"; check "$name: --mpi with $np ranks = --jobs $np" $?
}
row soccer2 0 2 soccer --seed 3
row soccer3 0 3 soccer --seed 5 --planner rrt
row pool3 0 3 pool --seed 1 --solutions 3
row unsolved2 3 2 minigolf_random --seed 1 --max-iters 200
# the summary is printed once, by rank 0
mpi 2 plan soccer --seed 3 --mpi --no-out >"$work/summary.txt" 2>&1
[ "$(grep -c '^workers    2 MPI ranks' "$work/summary.txt")" -eq 1 ]; check "one summary, from rank 0" $?

# a script error on every rank: exit 2 from every rank, the script's message
printf 'error("boom")\n' >"$work/bad.lua"
mpi 2 plan "$work/bad.lua" --mpi -q >"$work/bad.txt" 2>&1
rc=$?
check "script error under --mpi: non-zero exit (got $rc)" $([ $rc -ne 0 ] && [ $rc -ne 124 ]; echo $?)
grep -q 'bad.lua:1: boom' "$work/bad.txt"; check "script error under --mpi: the script's message" $?

# --- bench --------------------------------------------------------------------------------------
args=(--domains minigolf,dice --planners rrt,bgt --seeds 3 --max-iters 300 --set dice:count=10 -q)
"$tplan" bench "${args[@]}" --out "$work/seq.json" >/dev/null 2>&1; check "bench sequential" $?
mpi 2 bench "${args[@]}" --mpi --out "$work/mpi.json" >"$work/bench.txt" 2>&1
check "mpirun -np 2 bench --mpi ($(head -c 400 "$work/bench.txt"))" $?
[ "$(grep -c '^minigolf  *BK-RRT' "$work/bench.txt")" -eq 1 ]; check "bench --mpi: one table, from rank 0" $?
python3 "$(dirname "$0")/same_records.py" "$work/seq.json" "$work/mpi.json" 9
check "bench --mpi: the records of a sequential run, in the same order" $?

finish mpi.sh
