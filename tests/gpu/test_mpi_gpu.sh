#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# cgmodel solve under mpirun on GPUs (docs/distributed.md): 2 and 3 ranks
# sharing one GPU (the halo through the host), and on a machine with two
# or more GPUs 2 ranks owning one each (the halo by NCCL), converge with
# the recomputed residual under the tolerance, within 3 iterations of the
# single-process CPU solve, to the same x (1e-6 relative), with row blocks
# and METIS parts; an unreachable tolerance stops stalled, not broken.
# Skipped (77) without MPI in the build, mpirun on PATH or a GPU.
# shellcheck source-path=SCRIPTDIR source=../e2e/lib.sh
source "$(dirname "$0")/../e2e/lib.sh" "$@"

# shellcheck source=mpi_gpu_setup.sh
source "$(dirname "$0")/mpi_gpu_setup.sh"
mpi() { local n=$1; shift; timeout 120 mpirun -n "$n" --oversubscribe "$CGM" "$@"; }
# check MATRIX NAME EXCHANGE RANKS [ARGS...]: against the single-process CPU solve.
check() {
  local A=$1 name=$2 exch=$3 p=$4
  shift 4
  if [ ! -s "$TMP/$name.x1.json" ]; then
    expect_exit 0 "$CGM" solve "$A" --backend cpu --no-record --json -o "$TMP/$name.x1.mtx"
    cp "$OUT" "$TMP/$name.x1.json"
  fi
  local ref tag
  ref=$(json_get "$TMP/$name.x1.json" iterations)
  tag=$name.$exch.$p$(printf '%s' "$*" | tr -c 'a-z0-9' '_')
  expect_exit 0 mpi "$p" solve "$A" --backend cuda --mpi --no-record --json -o "$TMP/$tag.mtx" "$@"
  json_check "$OUT" \
    "(j['converged'] and j['relative_residual'] <= j['tol'] and abs(j['iterations'] - $ref) <= 3
      and j['mpi']['ranks'] == $p and j['mpi']['exchange'] == '$exch' and 'cuda:' in j['device'])" \
    "$tag: converged on the GPU, recomputed residual <= tol, within 3 iterations of $ref, halo by $exch"
  same_x "$TMP/$name.x1.mtx" "$TMP/$tag.mtx" "$tag"
}

# ranks sharing GPU 0: the halo through the host
export CUDA_VISIBLE_DEVICES=0
check "$TMP/p3.mtx" poisson3d host 2
check "$TMP/p3.mtx" poisson3d host 3
check "$DATA/bcsstk16.mtx" bcsstk16 host 2
"$CGM" version | grep -q METIS && check "$DATA/bcsstk16.mtx" bcsstk16 host 3 --partition metis

# below what double shows: stalled, with x of the least residual, never a breakdown
expect_exit 1 mpi 2 solve "$TMP/p3.mtx" --backend cuda --mpi --no-record --json --tol 1e-300
json_check "$OUT" "j['stalled'] and 'positive definite' not in j['stop_reason'] and \
  j['relative_residual'] < 1e-12" "2 ranks on one GPU, tol 1e-300: stalled near double's floor"

unset CUDA_VISIBLE_DEVICES

if [ "$GPUS" -ge 2 ]; then # one GPU a rank: NCCL, unless exchange=host
  check "$TMP/p3.mtx" poisson3d nccl 2
  check "$DATA/bcsstk16.mtx" bcsstk16 nccl 2
  check "$TMP/p3.mtx" poisson3d host 2 --exchange host
else
  echo "one GPU: the NCCL halo between ranks on distinct GPUs not tested"
fi
finish
