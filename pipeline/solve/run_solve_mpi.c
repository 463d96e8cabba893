/* SPDX-License-Identifier: GPL-3.0-or-later */
/* cgmodel solve under MPI: rank 0 reads the matrix and the right-hand side and, after the solve,
 * records it; every rank takes part in cgm_solve_mpi. No prediction: the model of several nodes is
 * not done (docs/distributed.md). */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common/timer.h"
#include "pipeline/solve/solve_steps.h"
#include "solver/backend.h"

#ifdef CGM_HAVE_MPI
#include "cgmodel/dist_mpi.h"

/* The record of the solve on rank 0, when the database exists: a failure
 * is a warning, not the solve's. */
static void record(const cgm_run_solve_opts *o, const cgm_csr *A, const cgm_solve_report *r) {
  struct stat sb;
  if (!o->record || !o->db_path || stat(o->db_path, &sb) != 0) return;
  cgm_error e = {0};
  cgm_db *db = NULL;
  cgm_features f;
  cgm_status st = cgm_plan_features_blocks(A, 1u, &f, &e); /* CSR rows: N = 1 alone */
  if (!st) st = cgm_open_database(o->db_path, o->db_readonly ? CGM_DB_READONLY : 0, &db, &e);
  if (!st)
    st = pipeline_record_file(db, o->matrix, o->csr != NULL, 0, &f, &r->opts, &r->result, NAN, 0,
                              &e);
  if (st) solve_note(o, CGM_NOTE_WARNING, "the solve was not recorded: %s", e.msg);
  if (db) cgm_db_close(db);
}

cgm_status pipeline_run_solve_mpi(const cgm_run_solve_opts *o, cgm_solve_report *r,
                                  cgm_error *err) {
  MPI_Comm_rank(MPI_COMM_WORLD, &r->rank);
  const bool root = r->rank == 0;
  const double t0 = cgm_now();
  cgm_csr file; /* the matrix read, unless o->csr gives it (bindings) */
  memset(&file, 0, sizeof file);
  const cgm_csr *A = o->csr ? o->csr : &file;
  double *b = NULL, *x = NULL;
  bool generated = false;
  cgm_status st = CGM_OK;
  if (o->autotune)
    st = cgm_fail(err, CGM_EINPUT, "auto: it chooses for one process: drop it under MPI");
  if (!st && root) {
    cgm_mm_read_opts ro = cgm_mm_read_opts_default();
    ro.square = true; /* CG's: refused at the size line */
    if (!o->csr) st = cgm_mm_read_csr_opts(o->matrix, &ro, &file, NULL, err);
    if (!st && !(x = calloc((size_t)A->nrows + 1, sizeof *x)))
      st = cgm_fail(err, CGM_ERUNTIME, "out of memory");
    if (!st) st = pipeline_right_hand_side(o, A, &b, &generated, err);
    if (!st) st = pipeline_initial_guess(o, A->nrows, x, err);
    r->nrows = A->nrows;
    r->ncols = A->ncols;
    r->nnz = A->nnz;
  }
  r->time_read_s = cgm_now() - t0;
  /* A bad file on rank 0 ends every rank here, with its message. */
  if (!(st = cgm_dist_agree(st, err, MPI_COMM_WORLD))) {
    st = cgm_solve_mpi(root ? A : NULL, b, x, &r->opts, &o->dist, &r->result, &r->dist,
                       MPI_COMM_WORLD, err);
    r->solved = st == CGM_OK || st == CGM_ENOCONV;
  }
  if (r->solved) {
    r->tol = cgm_solve_tol(&r->opts);
    if (root) {
      r->tol = cgm_solve_target(&r->opts, cgm_solve_norm2(b, A->nrows));
      r->maxiter = cgm_solve_maxiter(&r->opts, A->nrows);
      if (generated && A->nrows == A->ncols)
        r->solution_error = pipeline_solution_error(x, A->nrows);
      record(o, A, r);
      r->x = x;
      x = NULL;
    }
  }
  free(b);
  free(x);
  cgm_csr_free(&file);
  return st;
}
#else
cgm_status pipeline_run_solve_mpi(const cgm_run_solve_opts *o, cgm_solve_report *r,
                                  cgm_error *err) {
  return cgm_fail(err, CGM_ERUNTIME, "this build of cgmodel has no MPI (docs/distributed.md)");
}
#endif
