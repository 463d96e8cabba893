/* The interface between the solve driver (solve.c) and the backends. The
 * driver validates the input, picks tolerances and recomputes the residual;
 * a backend only iterates. */
#ifndef CGM_SOLVER_BACKEND_H
#define CGM_SOLVER_BACKEND_H

#include "cgmodel/solver.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct cgm_problem {
  const cgm_csr *A; /* square, symmetric, finite, positive diagonal */
  const double *b;  /* nrows */
  double *x;        /* nrows: initial guess in, solution out */
  double bnorm;     /* ||b||_2 > 0 */
  double tol;       /* relative residual target */
  int maxiter;
  cgm_solve_opts opts; /* layout parameters already checked and defaulted */
  cgm_plan plan;       /* what to build (cgm_solve_plan) */
} cgm_problem;

/* Each returns CGM_OK (converged), CGM_ENOCONV (maxiter, breakdown) with
 * res->stop_reason set, or an error. res->relative_residual is filled by the
 * driver afterwards. */
cgm_status cgm_cpu_cg_f64(const cgm_problem *pb, cgm_solve_result *res, cgm_error *err);
cgm_status cgm_cpu_cg_f32(const cgm_problem *pb, cgm_solve_result *res, cgm_error *err);
cgm_status cgm_cuda_cg(const cgm_problem *pb, cgm_solve_result *res, cgm_error *err);
cgm_status cgm_cusparse_cg(const cgm_problem *pb, cgm_solve_result *res, cgm_error *err);

/* Iteration times are kept for the first CGM_MAX_TIMED iterations only. */
#define CGM_MAX_TIMED 65536

#ifdef __cplusplus
}
#endif
#endif
