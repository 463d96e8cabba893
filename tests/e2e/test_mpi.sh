#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# cgmodel solve under mpirun (docs/distributed.md): on 1 to 4 ranks, with
# contiguous row blocks and (when built) METIS parts, the distributed CG
# takes within a few iterations of the single-process CPU solve, its
# recomputed residual meets the tolerance, the solution gathered on rank 0
# (renumbered back after METIS) equals the single-process one, and the halo
# volume of the row blocks of a 2D Poisson matrix is the exact count. More
# ranks than rows and a bad file end every rank with one message and no
# hang. Skipped (77) without MPI in the build or mpirun on PATH.
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "$0")/lib.sh" "$@"

"$CGM" version | grep -q MPI || { echo "test_mpi: skipped: no MPI in this build"; exit 77; }
command -v mpirun >/dev/null || { echo "test_mpi: skipped: no mpirun"; exit 77; }
METIS=0
"$CGM" version | grep -q METIS && METIS=1

# Open MPI refuses root without these (CI containers run as root); one
# thread a rank, since up to 4 ranks share 2 cores.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_NUM_THREADS=1
# One machine: shared memory alone (UCX's start doubles the time of a run).
export OMPI_MCA_btl=self,vader OMPI_MCA_btl_vader_single_copy_mechanism=none OMPI_MCA_pml=ob1
# The sanitized tree: Open MPI leaks by design, from libraries without frame
# pointers and plugins unloaded before the report (so suppressions cannot
# name them). LeakSanitizer reports without failing the run, and
# own_leaks fails on a leak whose stack passes through cgmodel's code.
export LSAN_OPTIONS="${LSAN_OPTIONS:+$LSAN_OPTIONS:}exitcode=0"
own_leaks() {
  if awk '/leak of/ { leak = 1; next } leak && /^ *$/ { leak = 0 }
          leak && / in (cgm_|cli_|cmd_|pipeline_|main )/ { found = 1 } END { exit !found }' "$ERR"; then
    fail "$1: a leak in cgmodel's code"
    show_last
  else pass; fi
}
# A rank that waits for ever fails the test instead of hanging it.
mpi() { local n=$1; shift; timeout 60 mpirun -n "$n" --oversubscribe "$CGM" "$@"; }

"$CGM" gen poisson2d --n 30 -o "$TMP/p2.mtx" >/dev/null 2>&1 # 900 rows, 5-point
"$CGM" gen poisson3d --n 8 -o "$TMP/p3.mtx" >/dev/null 2>&1  # 512 rows, 7-point

# check MATRIX NAME PARTITION RANKS...: against the single-process solve.
check() {
  local A=$1 name=$2 part=$3
  shift 3
  expect_exit 0 "$CGM" solve "$A" --backend cpu --no-record --json -o "$TMP/$name.x1.mtx"
  local ref
  ref=$(json_get "$OUT" iterations)
  for p in "$@"; do
    local tag=$name.$part.$p
    expect_exit 0 mpi "$p" solve "$A" --backend cpu --mpi --partition "$part" --no-record --json \
      -o "$TMP/$tag.mtx"
    own_leaks "$tag"
    cp "$OUT" "$TMP/$tag.json"
    json_check "$TMP/$tag.json" \
      "(j['converged'] and j['relative_residual'] <= j['tol'] and abs(j['iterations'] - $ref) <= 3
        and j['mpi']['ranks'] == $p and j['mpi']['partition'] == '$part'
        and (j['mpi']['halo_entries'] > 0) == ($p > 1))" \
      "$tag: converged, recomputed residual <= tol, iterations within 3 of $ref; ranks,
       partition, and a halo exactly when there are several ranks"
    same_x "$TMP/$name.x1.mtx" "$TMP/$tag.mtx" "$tag"
  done
}

PARTS=rows
[ $METIS -eq 1 ] && PARTS="rows metis"
for part in $PARTS; do
  check "$TMP/p2.mtx" poisson2d "$part" 1 2 3 4
  check "$TMP/p3.mtx" poisson3d "$part" 3
  check "$DATA/bcsstk05.mtx" bcsstk05 "$part" 2 4
  check "$DATA/494_bus.mtx" 494_bus "$part" 3
done

# Row blocks of the 30 x 30 grid (equal rows, all cuts between grid lines
# at P = 2, 3): each cut makes each side receive one grid line, 30 entries.
for p in 2 3; do
  json_check "$TMP/poisson2d.rows.$p.json" "j['mpi']['halo_entries'] == 2 * 30 * ($p - 1)" \
    "poisson2d on $p ranks: the halo of row blocks is one grid line each side of a cut"
done
# one JSON object on stdout: rank 0 alone prints
json_check "$TMP/poisson2d.rows.4.json" "j['mpi']['rows_min'] >= 1" "one report, from rank 0"

# ---- the stall test is the single process's (solver/backend.h): a tolerance
# below what double precision shows stops stalled, never as a breakdown
# (tol 1e-300 once ended in "p'Ap = 0, not positive definite"), within 2x
# the single process's iterations (tol 1e-16 once took 14,645 where one
# process stopped at 102); one that plain CG reaches (bcsstk03, a random b,
# 1e-10: about 190 iterations) converges
expect_exit 1 "$CGM" solve "$TMP/p3.mtx" --backend cpu --no-record --json --tol 1e-16
one=$(json_get "$OUT" iterations)
for tol in 1e-16 1e-300; do
  expect_exit 1 mpi 2 solve "$TMP/p3.mtx" --backend cpu --mpi --no-record --json --tol $tol
  json_check "$OUT" "j['stalled'] and 'positive definite' not in j['stop_reason'] and \
    abs(float(j['stop_reason'].split('stopped falling at ')[1].split()[0]) / \
    j['relative_residual'] - 1) < 0.006 and j['iterations'] <= 2 * $one + 100" \
    "2 ranks, tol $tol: stalled after $one iterations on one process or up to 2x"
done
python3 -c "
import random
random.seed(1)
print('%%MatrixMarket matrix array real general'); print(112, 1)
for i in range(112): print(repr(random.uniform(-1, 1)))" >"$TMP/b03.mtx"
expect_exit 0 mpi 2 solve "$DATA/bcsstk03.mtx" --rhs "$TMP/b03.mtx" --backend cpu --mpi \
  --no-record --json --tol 1e-10
json_check "$OUT" "j['converged'] and j['relative_residual'] <= 1e-10" \
  "2 ranks, bcsstk03 with a random b at 1e-10 converges"

# ---- failures: every rank ends, rank 0 says why, once
"$CGM" gen poisson2d --n 1 -o "$TMP/one.mtx" >/dev/null 2>&1
expect_exit 2 mpi 3 solve "$TMP/one.mtx" --backend cpu --no-record
last_stderr_contains "too few for 3 MPI ranks"
assert_eq "$(grep -c 'cgmodel solve: error' "$ERR")" 1 "more ranks than rows: one message"
own_leaks "more ranks than rows"
printf 'not a matrix\n' >"$TMP/bad.mtx"
expect_exit 2 mpi 3 solve "$TMP/bad.mtx" --backend cpu --no-record
last_stderr_contains "$TMP/bad.mtx:1:"
assert_eq "$(grep -c 'cgmodel solve: error' "$ERR")" 1 "a bad file on rank 0: one message"
own_leaks "a bad file"
printf '%%%%MatrixMarket matrix coordinate real symmetric\n3 3 3\n1 1 2\n2 2 -1\n3 3 2\n' >"$TMP/neg.mtx"
expect_exit 1 mpi 2 solve "$TMP/neg.mtx" --backend cpu --no-record
last_stderr_contains "diagonal entry (2, 2) is -1"
assert_eq "$(grep -c 'cgmodel solve: error' "$ERR")" 1 "not positive definite: one message"
own_leaks "not positive definite"
expect_exit 2 mpi 2 solve "$TMP/p2.mtx" --backend cpu --precision single --no-record
last_stderr_contains "double precision only"
own_leaks "single precision refused"
# --backend cuda where no rank has a GPU (this machine): every rank ends, one message
if ! "$CGM" devices 2>/dev/null | grep -q 'cuda:0'; then
  if "$CGM" version | grep -q CUDA; then code=3 why="MPI rank 0 sees no GPU"; else
    code=2 why="this build of cgmodel has no CUDA"
  fi
  expect_fail $code "$why" mpi 2 solve "$TMP/p2.mtx" --backend cuda --no-record
  assert_eq "$(grep -c 'cgmodel solve: error' "$ERR")" 1 "--backend cuda, no GPU: one message"
  own_leaks "--backend cuda without a GPU"
fi
expect_exit 2 mpi 2 solve "$TMP/p2.mtx" --backend cpu --precond block --no-record
last_stderr_contains "Jacobi only"
own_leaks "block-Jacobi refused"
# A rank that fails its own parse, or runs another command, or is given
# other options: every rank ends (within the timeout: none waits in a
# collective for it) and rank 0 says why, once.
mpmd() { timeout 60 mpirun --oversubscribe "$@"; }
expect_exit 2 mpmd -n 1 "$CGM" solve "$TMP/p2.mtx" --backend cpu --no-record : \
  -n 1 "$CGM" solve "$TMP/p2.mtx" --backend cpu --no-record --tol abc
last_stderr_contains "'abc' is not a number"
assert_eq "$(grep -c 'cgmodel solve: error' "$ERR")" 1 "a bad option on rank 1: one message"
expect_exit 2 mpmd -n 1 "$CGM" solve "$TMP/p2.mtx" --backend cpu --no-record --tol abc : \
  -n 1 "$CGM" solve "$TMP/p2.mtx" --backend cpu --no-record
last_stderr_contains "'abc' is not a number"
expect_exit 2 mpmd -n 1 "$CGM" solve "$TMP/p2.mtx" --backend cpu --no-record : \
  -n 1 "$CGM" info "$TMP/p2.mtx"
last_stderr_contains "info does not run under MPI"
expect_exit 2 mpmd -n 1 "$CGM" solve "$TMP/p2.mtx" --backend cpu --no-record --tol 1e-6 : \
  -n 1 "$CGM" solve "$TMP/p2.mtx" --backend cpu --no-record --maxiter 5
last_stderr_contains "given different options"
own_leaks "ranks that disagree"
# --partition without an MPI solve
expect_fail 2 "--partition is for an MPI solve" "$CGM" solve "$TMP/p2.mtx" --backend cpu --partition rows

finish
