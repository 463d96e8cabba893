/* SPDX-License-Identifier: GPL-3.0-or-later */
/* A solve's options settled once, at the entry point (cgm_solve, cgm_solve_device, cgm_run_solve):
 * every default filled in and every field checked, alone and against the others, with messages that
 * name the request's keys (cgmodel/options.h). The layers below take what this returns as given. */
#include <math.h>

#include "cgmodel/solver.h"

/* An integer field within [lo, hi]. */
static cgm_status in_range(const char *key, int v, int lo, int hi, cgm_error *err) {
  if (v >= lo && v <= hi) return CGM_OK;
  return cgm_fail(err, CGM_EINPUT, "%s %d: not in %d..%d", key, v, lo, hi);
}

/* The choices, each a known value. */
static cgm_status check_choices(const cgm_solve_opts *o, cgm_error *err) {
  if ((unsigned)o->backend > CGM_BACKEND_CUSPARSE)
    return cgm_fail(err, CGM_EINPUT, "backend %d: not cpu, cuda or cusparse", (int)o->backend);
  if ((unsigned)o->precision >= CGM_NPRECISIONS)
    return cgm_fail(err, CGM_EINPUT, "precision %d: not double, single or mixed",
                    (int)o->precision);
  if ((unsigned)o->exchange >= CGM_NEXCHANGES)
    return cgm_fail(err, CGM_EINPUT, "exchange %d: not nccl, p2p, host or halo", (int)o->exchange);
  if ((unsigned)o->reorder > CGM_REORDER_RCM)
    return cgm_fail(err, CGM_EINPUT, "reorder %d: not auto, none or rcm", (int)o->reorder);
  if ((unsigned)o->precond > CGM_PRECOND_BLOCK)
    return cgm_fail(err, CGM_EINPUT, "precond %d: not jacobi or block", (int)o->precond);
  if ((unsigned)o->storage > CGM_STORAGE_COMPACT)
    return cgm_fail(err, CGM_EINPUT, "storage %d: not auto, full or compact", (int)o->storage);
  if ((unsigned)o->gpu.cg > CGM_CG_CLASSIC)
    return cgm_fail(err, CGM_EINPUT, "cg %d: not cgg or classic", (int)o->gpu.cg);
  return CGM_OK;
}

/* The numbers, each in its range (0: the default, where there is one). */
static cgm_status check_numbers(const cgm_solve_opts *o, cgm_error *err) {
  /* (the block size is checked with the layout: cgm_bcsr_params_check) */
  cgm_status st = in_range("bx", o->layout.bx, 0, CGM_BX_MAX, err);
  if (!st) st = in_range("gpus", o->gpus, 1, CGM_MAX_GPUS, err);
  if (!st) st = in_range("maxiter", o->maxiter, 0, CGM_MAXITER_MAX, err);
  if (!st) st = in_range("check_every", o->check_every, 0, CGM_CHECK_EVERY_MAX, err);
  if (!st) st = in_range("threads", o->threads, 0, CGM_THREADS_MAX, err);
  if (!st) st = in_range("precond_block", o->precond_block, 0, CGM_BJACOBI_MAX_BLOCK, err);
  if (st) return st;
  /* NaN compares false: refused, never taken for the default */
  if (!(o->tol >= 0.0 && o->tol <= 1.0))
    return cgm_fail(err, CGM_EINPUT,
                    "tol %g: the relative residual to reach is a number in (0, 1] (0: %g)", o->tol,
                    CGM_DEFAULT_TOL);
  if (!(o->atol >= 0.0 && o->atol < INFINITY))
    return cgm_fail(err, CGM_EINPUT, "atol %g: a finite number >= 0 (0: none)", o->atol);
  return CGM_OK;
}

/* The fields against each other: what the backend runs. */
static cgm_status check_combinations(const cgm_solve_opts *o, cgm_error *err) {
  if (o->gpus > 1 && o->backend != CGM_BACKEND_CUDA)
    return cgm_fail(err, CGM_EINPUT, "gpus %d: several GPUs need backend=cuda (backend is %s)",
                    o->gpus, cgm_backend_name(o->backend));
  if (o->precision == CGM_PREC_MIXED && o->backend == CGM_BACKEND_CUSPARSE)
    return cgm_fail(err, CGM_EINPUT,
                    "precision mixed runs our kernels: use backend=cuda or backend=cpu with it");
  if (o->precision == CGM_PREC_MIXED && o->gpus > 1)
    return cgm_fail(err, CGM_EINPUT,
                    "precision mixed runs on one GPU (gpus=1) or the CPU; on %d GPUs use "
                    "precision=double",
                    o->gpus);
  if (o->storage == CGM_STORAGE_COMPACT &&
      (o->precision != CGM_PREC_DOUBLE || o->backend == CGM_BACKEND_CUSPARSE))
    return cgm_fail(err, CGM_EINPUT,
                    "storage compact stores the values apart from double arithmetic on our "
                    "kernels (precision is %s, backend %s): use storage=auto or full",
                    cgm_precision_name(o->precision), cgm_backend_name(o->backend));
  if (o->precond_block > 0 && o->precond != CGM_PRECOND_BLOCK)
    return cgm_fail(err, CGM_EINPUT,
                    "precond_block %d is block-Jacobi's block size: with precond=block only "
                    "(precond is %s)",
                    o->precond_block, o->precond == CGM_PRECOND_JACOBI ? "jacobi" : "not block");
  if (o->precond == CGM_PRECOND_BLOCK && o->backend == CGM_BACKEND_CUSPARSE)
    return cgm_fail(err, CGM_EINPUT,
                    "precond block: the cusparse backend has Jacobi preconditioning only; "
                    "block-Jacobi runs on backend=cpu and backend=cuda");
  return CGM_OK;
}

cgm_status cgm_solve_opts_settle(cgm_solve_opts *o, const cgm_csr *A, cgm_error *err) {
  cgm_status st = check_choices(o, err);
  if (!st) st = check_numbers(o, err);
  if (!st) st = check_combinations(o, err);
  if (st) return st;
  if (A) cgm_plan_layout_resolve(&o->layout, A, o->gpus);
  if ((st = cgm_bcsr_params_check(&o->layout, err))) return st;
  if (o->tol == 0.0) o->tol = CGM_DEFAULT_TOL;
  if (o->maxiter == 0 && A) o->maxiter = cgm_solve_maxiter(o, A->nrows);
  o->settled = A != NULL;
  return CGM_OK;
}

double cgm_solve_tol(const cgm_solve_opts *o) {
  return o->tol > 0 ? o->tol : CGM_DEFAULT_TOL;
}

double cgm_solve_target(const cgm_solve_opts *o, double bnorm) {
  const double tol = cgm_solve_tol(o);
  return o->atol > 0 && bnorm > 0 ? fmax(tol, o->atol / bnorm) : tol;
}

int cgm_solve_maxiter(const cgm_solve_opts *o, int32_t dimension) {
  if (o->maxiter > 0) return o->maxiter;
  int64_t m = 10 * (int64_t)dimension;
  if (m < 1000) m = 1000;
  return m > 100000000 ? 100000000 : (int)m;
}
