/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Starting and ending MPI for a program that runs under mpirun. */
#include <mpi.h>

#include "cgmodel/dist.h"

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
