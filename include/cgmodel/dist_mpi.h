/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The distributed Jacobi-preconditioned CG over MPI: one process per rank, each with its block of
 * rows, a point-to-point halo exchange of the vector entries it reads from others, and
 * MPI_Allreduce for the dot products (docs/distributed.md). Only a build with MPI compiles and
 * installs this header. */
#pragma once

#include <mpi.h>

#include "cgmodel/dist.h"
#include "cgmodel/solver.h"

CGM_BEGIN_DECLS

/* Solves A x = b on the ranks of comm, collectively with the same o and d. Rank 0 passes A, b and x
 * (guess in, solution out), the others NULL. The root checks the input as cgm_solve does, cuts the
 * rows (d->partition) and scatters them; a refusal is agreed, so every rank returns it and nothing
 * hangs. CPU, double, CSR rows. res and info are filled on every rank; the tolerance is on the true
 * residual. Returns as cgm_solve. */
CGM_API cgm_status cgm_solve_mpi(const cgm_csr *A_on_root, const double *b_on_root,
                                 double *x_on_root, const cgm_solve_opts *o, const cgm_dist_opts *d,
                                 cgm_solve_result *res, cgm_dist_info *info, MPI_Comm comm,
                                 cgm_error *err);

/* Collective: every rank returns the status (and message) of the lowest rank whose st is not
 * CGM_OK, else CGM_OK. Call it before collective work that a failed rank would not join. */
CGM_API cgm_status cgm_dist_agree(cgm_status st, cgm_error *err, MPI_Comm comm);

CGM_END_DECLS
