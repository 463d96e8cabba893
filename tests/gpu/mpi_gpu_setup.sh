# SPDX-License-Identifier: GPL-3.0-or-later
# shellcheck shell=bash
# The set-up both MPI GPU tests share (sourced after ../e2e/lib.sh): skip
# (77) without MPI in the build, mpirun on PATH or a GPU; GPUS, the GPUs
# seen; Open MPI as root; $TMP/p3.mtx, Poisson 24^3 (13,824 rows).
"$CGM" version | grep -q MPI || { echo "no MPI in this build: skipped"; exit 77; }
command -v mpirun >/dev/null || { echo "no mpirun: skipped"; exit 77; }
"$CGM" devices 2>/dev/null | grep -q 'cuda:0' || { echo "no GPU: skipped"; exit 77; }
GPUS=$("$CGM" devices 2>/dev/null | grep -c 'cuda:[0-9]')
export GPUS OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_NUM_THREADS=1
"$CGM" gen poisson3d --n 24 -o "$TMP/p3.mtx" >/dev/null 2>&1
