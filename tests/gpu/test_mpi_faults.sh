#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# The MPI solve on GPUs when a GPU fails (docs/distributed.md): rank 1's
# K-th checked CUDA call fails (CGMODEL_FAULT_CUDA, common/fault.h), in the
# set-up or in the iteration, with the halo through the host (2 ranks on
# one GPU) and, on a machine with two GPUs, by NCCL. Every rank ends within
# the time limit (none waits in a collective or in NCCL for the failed one),
# exit 3 with one message naming the CUDA call. Skipped (77) without MPI in
# the build, mpirun on PATH or a GPU.
# shellcheck source-path=SCRIPTDIR source=../e2e/lib.sh
source "$(dirname "$0")/../e2e/lib.sh" "$@"

# shellcheck source=mpi_gpu_setup.sh
source "$(dirname "$0")/mpi_gpu_setup.sh"

# faults EXCH: calls in the set-up and in the iteration, each ending every rank with one message
# (or, past the calls made, converging).
faults() {
  local exch=$1 failed=0 inloop=0
  for k in 1 4 9 16 25 40 60 90; do
    run_cmd timeout 90 mpirun -n 1 "$CGM" solve "$TMP/p3.mtx" --backend cuda --mpi --no-record : \
      -n 1 env CGMODEL_FAULT_CUDA=$k "$CGM" solve "$TMP/p3.mtx" --backend cuda --mpi --no-record
    if [ "$RC" -eq 0 ]; then pass; continue; fi
    if [ "$RC" -eq 124 ]; then fail "$exch, fault at call $k: the ranks hung"; continue; fi
    assert_eq "$RC:$(grep -c 'cgmodel solve: error' "$ERR")" "3:1" "$exch, fault at call $k: exit 3, one message"
    last_stderr_contains "CUDA error"
    failed=$((failed + 1))
    grep -qE 'cudaMalloc|cudaMemcpy\(|cudaMemset\(|cudaSetDevice|cudaGetDeviceProp|cudaStreamCreate|cudaDeviceSync' \
      "$ERR" || inloop=$((inloop + 1))
  done
  assert_py "$failed >= 3 and $inloop >= 1" "$exch: faults in the set-up and in the iteration ($failed, $inloop)"
}
export CUDA_VISIBLE_DEVICES=0 # 2 ranks on one GPU: the host halo
faults host
unset CUDA_VISIBLE_DEVICES
if [ "$GPUS" -ge 2 ]; then faults nccl; else echo "one GPU: the NCCL halo's faults not tested"; fi
finish
