/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Starting and ending MPI, and the ranks agreeing on an outcome. */
#include <string.h>

#include "cgmodel/dist_mpi.h"

cgm_status cgm_dist_init(int *argc, char ***argv, int *rank, int *size, cgm_error *err) {
  int started = 0, provided = 0;
  *rank = 0;
  *size = 1;
  MPI_Initialized(&started);
  if (!started && MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS)
    return cgm_fail(err, CGM_ERUNTIME, "MPI did not start (MPI_Init_thread failed)");
  MPI_Comm_rank(MPI_COMM_WORLD, rank);
  MPI_Comm_size(MPI_COMM_WORLD, size);
  return CGM_OK;
}

void cgm_dist_finalize(void) {
  int started = 0, ended = 0;
  MPI_Initialized(&started);
  MPI_Finalized(&ended);
  if (started && !ended) MPI_Finalize();
}

cgm_status cgm_dist_agree(cgm_status st, cgm_error *err, MPI_Comm comm) {
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  int mine = st != CGM_OK ? rank : size, first = size;
  MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, comm);
  if (first == size) return CGM_OK;
  struct {
    int code;
    char msg[CGM_ERRMSG_MAX];
  } m = {0};
  if (rank == first) {
    m.code = (int)st;
    if (err) memcpy(m.msg, err->msg, sizeof m.msg);
    m.msg[sizeof m.msg - 1] = '\0';
  }
  MPI_Bcast(&m, (int)sizeof m, MPI_BYTE, first, comm);
  return cgm_fail(err, (cgm_status)m.code, "%s", m.msg);
}

cgm_status cgm_dist_agree_start(cgm_status st, uint64_t fingerprint, cgm_error *err) {
  int started = 0;
  MPI_Initialized(&started);
  if (!started) return st;
  if ((st = cgm_dist_agree(st, err, MPI_COMM_WORLD))) return st;
  uint64_t lo = fingerprint, hi = fingerprint;
  MPI_Allreduce(&fingerprint, &lo, 1, MPI_UINT64_T, MPI_MIN, MPI_COMM_WORLD);
  MPI_Allreduce(&fingerprint, &hi, 1, MPI_UINT64_T, MPI_MAX, MPI_COMM_WORLD);
  if (lo != hi)
    return cgm_fail(err, CGM_EINPUT,
                    "the MPI ranks were given different options: every rank must run the same "
                    "solve (only threads may differ)");
  return CGM_OK;
}
