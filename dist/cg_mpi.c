/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The distributed Jacobi-PCG (Algorithm 2, as the CPU backend runs it in double;
 * solver/cpu/cg_cpu_impl.h): rank 0 checks and cuts the matrix and scatters the row blocks (the
 * reader is already parallel and a scatter is the simplest correct start; each rank reading its own
 * rows is future work, docs/distributed.md), each rank iterates on its rows, on its CPU cores or on
 * its GPU (gpu.h), exchanging the halo before each SpMV, and the dot products are summed by
 * MPI_Allreduce: p . Ap alone, then r . z and r . r in one. */
#include <limits.h>
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cgmodel/dist_mpi.h"
#include "common/grow.h"
#include "common/timer.h"
#include "dist/gpu.h"
#include "dist/local.h"
#include "dist/split.h"
#include "solver/backend.h"

/* What the root decided, for every rank. */
typedef struct {
  int32_t n;   /* rows of A */
  int trivial; /* b = 0: x = 0 */
  int gpu;     /* the ranks iterate on their GPUs */
  double tol;  /* the relative residual to reach (cgm_solve_target) */
} header;

/* The root's matrix as scattered: A, or P A P^T and b, x0 in that order,
 * scaled by 1 / ||b|| (CG is scale invariant; as cgm_solve does). */
typedef struct {
  const cgm_csr *S;
  cgm_csr permuted;
  int32_t *perm; /* new -> old; NULL: the identity */
  double *b, *x, bnorm;
  int32_t *lens; /* row lengths */
} root_data;

static void root_free(root_data *R) {
  cgm_csr_free(&R->permuted);
  CGM_FREE(R->perm, R->b, R->x, R->lens);
  memset(R, 0, sizeof *R);
}

static cgm_status root_prepare(const cgm_csr *A, const double *b, const double *x,
                               const cgm_solve_opts *o, const cgm_dist_opts *d, int size, header *h,
                               int32_t *bounds, root_data *R, cgm_solve_result *res,
                               cgm_error *err) {
  if (!A || !b || !x) return cgm_fail(err, CGM_EINPUT, "the MPI solve needs A, b and x on rank 0");
  if (o->backend == CGM_BACKEND_CUSPARSE)
    return cgm_fail(err, CGM_EINPUT,
                    "the MPI solve runs on backend=cpu or backend=cuda (docs/distributed.md)");
  h->gpu = o->backend == CGM_BACKEND_CUDA;
  if (o->precision != CGM_PREC_DOUBLE)
    return cgm_fail(err, CGM_EINPUT, "the MPI solve runs in double precision only");
  if (o->precond != CGM_PRECOND_JACOBI)
    return cgm_fail(err, CGM_EINPUT,
                    "the MPI solve is preconditioned with Jacobi only (precond=jacobi)");
  if (o->gpus != 1)
    return cgm_fail(err, CGM_EINPUT, "gpus %d: under MPI each rank takes one GPU (mpirun -n G)",
                    o->gpus);
  cgm_status st = cgm_solve_check_input_as(A, b, x, false, res, err);
  if (st) return st;
  if (A->nnz > INT_MAX)
    return cgm_fail(err, CGM_EINPUT,
                    "the matrix has %lld entries: the MPI solve scatters at most %d",
                    (long long)A->nnz, INT_MAX);
  h->n = A->nrows;
  if (size > A->nrows)
    return cgm_fail(err, CGM_EINPUT, "the matrix has %d rows: too few for %d MPI ranks", A->nrows,
                    size);
  R->bnorm = cgm_solve_norm2(b, A->nrows);
  if (R->bnorm == 0.0) {
    h->trivial = 1;
    return CGM_OK;
  }
  h->tol = cgm_solve_target(o, R->bnorm);
  R->S = A;
  if (d->partition == CGM_DIST_METIS) {
    if (!(R->perm = malloc(((size_t)A->nrows + 1) * sizeof *R->perm)))
      return cgm_fail(err, CGM_ERUNTIME, "out of memory");
    if ((st = cgm_dist_split_metis(A, size, bounds, R->perm, err))) return st;
    if ((st = cgm_csr_permute(A, R->perm, &R->permuted, err))) return st;
    R->S = &R->permuted;
  } else if ((st = cgm_dist_split_rows(A, size, bounds, err))) {
    return st;
  }
  const size_t n = (size_t)A->nrows;
  R->b = malloc(n * sizeof *R->b);
  R->x = malloc(n * sizeof *R->x);
  R->lens = malloc(n * sizeof *R->lens);
  if (!R->b || !R->x || !R->lens) return cgm_fail(err, CGM_ERUNTIME, "out of memory");
  for (int32_t i = 0; i < A->nrows; i++) {
    const int32_t src = R->perm ? R->perm[i] : i;
    R->b[i] = b[src] / R->bnorm;
    R->x[i] = x[src] / R->bnorm;
    R->lens[i] = (int32_t)(R->S->rowptr[i + 1] - R->S->rowptr[i]);
  }
  return CGM_OK;
}

/* This rank's vectors; x and v hold the ghosts past the own rows. With a
 * GPU (g) they live there, the host's b and x serve the true residual
 * (long-double sums) and v's ghosts the host-staged halo. */
typedef struct {
  cgm_dgpu *g;
  bool nccl; /* the halo by NCCL (distinct GPUs), else through the host */
  double *b, *x, *r, *v, *u, *dinv;
  double *best;  /* x of the least true residual checked (a stall returns it) */
  double *times; /* of the first ntimed iterations */
  int ntimed;
} vectors;

static void vectors_free(vectors *V) {
  cgm_dgpu_close(V->g);
  CGM_FREE(V->b, V->x, V->r, V->v, V->u, V->dinv, V->times, V->best);
  memset(V, 0, sizeof *V);
}

/* Vector id's halo on the GPU. */
static void gpu_halo(cgm_dist_local *L, vectors *V, int id) {
  if (V->nccl) {
    cgm_dgpu_halo_nccl(V->g, id, L->nrecv, L->recv_rank, L->recv_off, L->nsend, L->send_rank,
                       L->send_off);
    return;
  }
  cgm_dgpu_pack(V->g, id, L->sendbuf);
  cgm_dist_exchange_post(L, V->v + L->n);
  cgm_dist_exchange_finish(L);
  cgm_dgpu_ghosts(V->g, id, V->v + L->n);
}

/* The true residual b - A x: sums[0] gets its r . r over all ranks; when
 * swap, it replaces the iterated residual r and sums[1] gets r . D^-1 r
 * (reliable updates, backend.h; else r is left as it is). */
static void truth(cgm_dist_local *L, vectors *V, bool swap, double sums[2]) {
  double loc[2] = {0.0, 0.0};
  if (V->g) {
    gpu_halo(L, V, DG_X);
    cgm_dgpu_spmv(V->g, DG_X, DG_U, -1);
    cgm_dgpu_resid(V->g, swap, loc);
    MPI_Allreduce(loc, sums, 2, MPI_DOUBLE, MPI_SUM, L->comm);
    return;
  }
  cgm_dist_spmv(L, V->x, V->u, NULL);
  double rr = 0.0, rz = 0.0;
#pragma omp parallel for schedule(static) reduction(+ : rr, rz)
  for (int32_t i = 0; i < L->n; i++) {
    const double ri = V->b[i] - V->u[i];
    rr += ri * ri;
    if (swap) {
      V->r[i] = ri;
      rz += ri * V->dinv[i] * ri;
    }
  }
  loc[0] = rr, loc[1] = rz;
  MPI_Allreduce(loc, sums, 2, MPI_DOUBLE, MPI_SUM, L->comm);
}

/* ||b - A x|| over all ranks, summed as the driver's (cgm_residual_ssq). */
static double true_residual(cgm_dist_local *L, vectors *V) {
  if (V->g) cgm_dgpu_download(V->g, DG_X, V->x);
  cgm_dist_exchange_start(L, V->x);
  cgm_dist_exchange_finish(L);
  double loc = (double)cgm_residual_ssq(L->n, L->rowptr, L->col, L->val, V->b, V->x, 1.0),
         all = 0.0;
  MPI_Allreduce(&loc, &all, 1, MPI_DOUBLE, MPI_SUM, L->comm);
  return sqrt(all);
}

/* v = a D^-1 r + s v on the rank's rows (s = 0: v is not read). */
static void direction(vectors *V, int32_t n, double a, double s) {
  if (V->g) return cgm_dgpu_direction(V->g, a, s);
#pragma omp parallel for schedule(static)
  for (int32_t i = 0; i < n; i++) V->v[i] = a * (V->dinv[i] * V->r[i]) + (s ? s * V->v[i] : 0.0);
}

/* x of the least true residual kept (best = x), or taken back. */
static void keep(vectors *V, int32_t n, bool back) {
  if (V->g) return cgm_dgpu_copy(V->g, back ? DG_X : DG_BEST, back ? DG_BEST : DG_X);
  memcpy(back ? V->x : V->best, back ? V->best : V->x, (size_t)n * sizeof *V->x);
}

/* CG4: x += t v, r -= t u; loc = (r . D^-1 r, r . r) of the rank's rows. */
static void update(vectors *V, int32_t n, double t, double loc[2]) {
  if (V->g) return cgm_dgpu_update(V->g, t, loc);
  double a = 0.0, c = 0.0;
#pragma omp parallel for schedule(static) reduction(+ : a, c)
  for (int32_t i = 0; i < n; i++) {
    V->x[i] += t * V->v[i];
    const double ri = V->r[i] - t * V->u[i];
    V->r[i] = ri;
    a += ri * V->dinv[i] * ri;
    c += ri * ri;
  }
  loc[0] = a, loc[1] = c;
}

/* u = A v and the rank's part of v . u. */
static double spmv_dot(cgm_dist_local *L, vectors *V) {
  if (!V->g) return cgm_dist_spmv(L, V->v, V->u, V->v);
  gpu_halo(L, V, DG_V);
  return cgm_dgpu_spmv(V->g, DG_V, DG_U, DG_V);
}

/* The iteration (b scaled to ||b|| = 1). */
static cgm_status iterate(cgm_dist_local *L, vectors *V, double tol, int maxiter, bool watch,
                          cgm_solve_result *res) {
  const int32_t n = L->n;
  double sums[2];
  truth(L, V, true, sums); /* CG1 */
  double rr = sums[0], rz = sums[1];
  direction(V, n, 1.0, 0.0);
  const double t_start = cgm_now();
  double t_prev = t_start, relres = sqrt(rr);
  int it = 0;
  cgm_watch rel = cgm_watch_start(relres, false); /* as the CPU backend's, in double */
  keep(V, n, false);
  cgm_status st = relres <= tol ? CGM_OK : CGM_ENOCONV;
  bool stalled = false;
  if (!isfinite(rr + rz)) /* a rank's GPU failed (its sums NaN): every rank stops here */
    snprintf(res->stop_reason, sizeof res->stop_reason, "NaN or Inf in the residual at CG1");
  bool hit_cap = false; /* the loop ended by the cap alone */
  while (st != CGM_OK && !stalled && isfinite(rr + rz) && !(hit_cap = it >= maxiter)) {
    /* SpMV + CG3, p . Ap summed over the ranks */
    double vu_loc = spmv_dot(L, V), vu = 0.0;
    MPI_Allreduce(&vu_loc, &vu, 1, MPI_DOUBLE, MPI_SUM, L->comm);
    if (cgm_cg_breakdown(res, it, vu)) break;
    const double t = rz / vu;
    /* CG4, with r . z and r . r in one allreduce */
    double loc[2], dots[2];
    update(V, n, t, loc);
    MPI_Allreduce(loc, dots, 2, MPI_DOUBLE, MPI_SUM, L->comm);
    double rz_new = dots[0];
    rr = dots[1];
    it++;
    relres = sqrt(rr);
    if (!isfinite(relres) || !isfinite(rz_new)) {
      snprintf(res->stop_reason, sizeof res->stop_reason,
               "NaN or Inf in the residual at iteration %d", it);
      break;
    }
    const bool claim = relres <= tol;
    bool restart = false;
    if (claim || (watch && cgm_watch_due(&rel, relres, it))) {
      const double iterated = relres;
      bool swap = rel.reduced || claim || rel.replacing;
      truth(L, V, swap, sums);
      double rt = sqrt(sums[0]);
      if (!isfinite(rt + sums[1])) {
        snprintf(res->stop_reason, sizeof res->stop_reason,
                 "NaN or Inf in the true residual at iteration %d", it);
        break;
      }
      restart = claim || (!swap && cgm_watch_loose(false, iterated, rt));
      if (!swap && restart) { /* rounding shows: from now on it replaces */
        truth(L, V, true, sums);
        swap = true;
      }
      if (swap) rz_new = sums[1], relres = rt;
      if (rt <= tol) rt = true_residual(L, V); /* a stop rests on long-double sums */
      if (rt <= tol) {
        st = CGM_OK;
        relres = rt;
      } else if (rt < rel.least) {
        keep(V, n, false);
      }
      if (st != CGM_OK && cgm_watch_check(&rel, claim, iterated, rt, relres, it)) {
        stalled = res->stalled = true;
      } else if (st != CGM_OK && swap && !restart) {
        /* p -= (r . p / r . z) z: the replaced r meets p as CG's own would */
        double rv_loc = 0.0, rv = 0.0;
        if (V->g) rv_loc = cgm_dgpu_dot(V->g, DG_R, DG_V);
        for (int32_t i = 0; i < n && !V->g; i++) rv_loc += V->r[i] * V->v[i];
        MPI_Allreduce(&rv_loc, &rv, 1, MPI_DOUBLE, MPI_SUM, L->comm);
        direction(V, n, -rv / rz_new, 1.0);
      }
    }
    if (st != CGM_OK && !stalled) { /* CG5; after a refused claim a new direction, as the CPU's */
      const double s = restart ? 0.0 : rz_new / rz;
      rz = rz_new;
      direction(V, n, 1.0, s);
    }
    const double now = cgm_now();
    if (it <= V->ntimed) V->times[it - 1] = now - t_prev;
    t_prev = now;
  }
  res->time_solve_s = cgm_now() - t_start;
  /* a stall, a breakdown, the cap once rounding shows: x of the least true residual if the last's
   * is worse; the cap before: the last (the CPU's rule) */
  if (st != CGM_OK && (stalled || watch)) {
    double last = true_residual(L, V);
    if (stalled || !((hit_cap && !rel.replacing && isfinite(last)) || last <= rel.least))
      keep(V, n, true), last = true_residual(L, V);
    relres = last;
  }
  cgm_cg_result_close(res, st, it, relres, maxiter, tol, CGM_PREC_DOUBLE, V->times, V->ntimed);
  return st;
}

/* Rank 0's arrays, scattered: row lengths, then the rows, b and x0. Every rank returns its share
 * (rowptr, col, val taken over by the local build). Collective; the status is agreed. */
static cgm_status scatter(const root_data *R, const int32_t *bounds, int rank, int size,
                          int64_t **rowptr, int32_t **col, double **val, vectors *V, MPI_Comm comm,
                          cgm_error *err) {
  const int32_t n = bounds[rank + 1] - bounds[rank];
  int *cnt = calloc((size_t)size, sizeof *cnt), *dsp = calloc((size_t)size, sizeof *dsp);
  int *ncnt = calloc((size_t)size, sizeof *ncnt), *ndsp = calloc((size_t)size, sizeof *ndsp);
  int32_t *lens = malloc(((size_t)n + 1) * sizeof *lens);
  *rowptr = malloc(((size_t)n + 1) * sizeof **rowptr);
  cgm_status st = cnt && dsp && ncnt && ndsp && lens && *rowptr
                      ? CGM_OK
                      : cgm_fail(err, CGM_ERUNTIME, "out of memory on rank %d", rank);
  if ((st = cgm_dist_agree(st, err, comm))) goto done;
  for (int k = 0; k < size; k++) {
    cnt[k] = bounds[k + 1] - bounds[k];
    dsp[k] = bounds[k];
    if (rank == 0) {
      ncnt[k] = (int)(R->S->rowptr[bounds[k + 1]] - R->S->rowptr[bounds[k]]);
      ndsp[k] = (int)R->S->rowptr[bounds[k]];
    }
  }
  MPI_Scatterv(rank == 0 ? R->lens : NULL, cnt, dsp, MPI_INT32_T, lens, n, MPI_INT32_T, 0, comm);
  (*rowptr)[0] = 0;
  for (int32_t i = 0; i < n; i++) (*rowptr)[i + 1] = (*rowptr)[i] + lens[i];
  const int64_t nnz = (*rowptr)[n];
  *col = malloc(((size_t)nnz + 1) * sizeof **col);
  *val = malloc(((size_t)nnz + 1) * sizeof **val);
  V->b = malloc(((size_t)n + 1) * sizeof *V->b);
  V->x = malloc(((size_t)n + 1) * sizeof *V->x);
  st = *col && *val && V->b && V->x
           ? CGM_OK
           : cgm_fail(err, CGM_ERUNTIME, "out of memory for %lld entries on rank %d",
                      (long long)nnz, rank);
  if ((st = cgm_dist_agree(st, err, comm))) goto done;
  MPI_Scatterv(rank == 0 ? R->S->colidx : NULL, ncnt, ndsp, MPI_INT32_T, *col, (int)nnz,
               MPI_INT32_T, 0, comm);
  MPI_Scatterv(rank == 0 ? R->S->val : NULL, ncnt, ndsp, MPI_DOUBLE, *val, (int)nnz, MPI_DOUBLE, 0,
               comm);
  MPI_Scatterv(rank == 0 ? R->b : NULL, cnt, dsp, MPI_DOUBLE, V->b, n, MPI_DOUBLE, 0, comm);
  MPI_Scatterv(rank == 0 ? R->x : NULL, cnt, dsp, MPI_DOUBLE, V->x, n, MPI_DOUBLE, 0, comm);
done:
  free(cnt), free(dsp), free(ncnt), free(ndsp), free(lens);
  return st;
}

/* The vectors past b and x, and x's room for the ghosts. */
static cgm_status vectors_alloc(vectors *V, const cgm_dist_local *L, int maxiter, cgm_error *err) {
  const size_t n = (size_t)L->n + 1, ng = (size_t)L->n + L->nghost + 1;
  V->ntimed = maxiter < CGM_MAX_TIMED ? maxiter : CGM_MAX_TIMED;
  V->times = malloc(((size_t)V->ntimed + 1) * sizeof *V->times);
  double *x = realloc(V->x, ng * sizeof *x);
  if (x) V->x = x;
  V->r = malloc(n * sizeof *V->r);
  V->v = malloc(ng * sizeof *V->v);
  V->u = malloc(n * sizeof *V->u);
  V->dinv = malloc(n * sizeof *V->dinv);
  V->best = malloc(n * sizeof *V->best);
  if (!x || !V->r || !V->v || !V->u || !V->dinv || !V->times || !V->best)
    return cgm_fail(err, CGM_ERUNTIME, "out of memory for the CG vectors");
  for (int32_t i = 0; i < L->n; i++) {
    double dg = 0.0;
    for (int64_t k = L->rowptr[i]; k < L->rowptr[i + 1]; k++)
      if (L->col[k] == i) dg += L->val[k];
    V->dinv[i] = 1.0 / dg; /* the root checked every diagonal entry > 0 */
  }
  return CGM_OK;
}

/* The rank's GPU: a node's ranks take its GPUs in turn. Where two share
 * one (more ranks than GPUs on a node) the halo goes through the host, as
 * with exchange=host; else by NCCL. Collective; the status is agreed. */
static cgm_status gpu_start(cgm_dist_local *L, vectors *V, const cgm_solve_opts *o, int rank,
                            int size, char *name, size_t len, cgm_error *err) {
  MPI_Comm node;
  int lr = 0, ls = 1, shared, any = 0;
  MPI_Comm_split_type(L->comm, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node);
  MPI_Comm_rank(node, &lr);
  MPI_Comm_size(node, &ls);
  MPI_Comm_free(&node);
  const int ng = cgm_cuda_device_count();
  shared = ls > ng;
  MPI_Allreduce(&shared, &any, 1, MPI_INT, MPI_MAX, L->comm);
  const cgm_dgpu_rows M = {L->n,        L->nghost, L->send_off[L->nsend], L->rowptr, L->col,
                           L->send_idx, L->val};
  cgm_status st =
      ng > 0 || !cgm_have_cuda_build()
          ? cgm_dgpu_open(&V->g, ng > 0 ? lr % ng : 0, &M, V->b, V->x, V->dinv, name, len, err)
          : cgm_fail(err, CGM_ERUNTIME, "MPI rank %d sees no GPU (backend=cuda)", rank);
  if ((st = cgm_dist_agree(st, err, L->comm))) return st;
  V->nccl = !any && o->exchange != CGM_EXCHANGE_HOST && size > 1;
  if (V->nccl) {
    char id[128] = {0}; /* NCCL_UNIQUE_ID_BYTES; NCCL loaded on every rank before any waits in it */
    if ((st = cgm_dist_agree(cgm_dgpu_nccl_id(V->g, id, rank == 0, err), err, L->comm))) return st;
    MPI_Bcast(id, (int)sizeof id, MPI_BYTE, 0, L->comm);
    st = cgm_dist_agree(cgm_dgpu_nccl_open(V->g, id, rank, size, err), err, L->comm);
  }
  return st;
}

/* What the ranks built, summed or maximised over them (the ranks and partition are set). */
static void describe(const cgm_dist_local *L, const vectors *V, const int32_t *bounds, int size,
                     cgm_solve_result *res, cgm_dist_info *info, int threads, const char *gpu) {
  info->rows_min = INT32_MAX;
  for (int k = 0; k < size; k++) {
    const int32_t r = bounds[k + 1] - bounds[k];
    if (r < info->rows_min) info->rows_min = r;
    if (r > info->rows_max) info->rows_max = r;
  }
  const int64_t nnz = L->rowptr[L->n];
  int64_t mine[3] = {L->nghost, L->nrecv,
                     (int64_t)(L->n + 1) * 8 + nnz * 12 + (int64_t)L->nghost * 4 +
                         (int64_t)L->send_off[L->nsend] * 12 +
                         ((int64_t)L->n * 4 + 2 * ((int64_t)L->n + L->nghost)) * 8};
  if (V->g) mine[2] = cgm_dgpu_bytes(V->g);
  int64_t sum = 0, max[3];
  MPI_Allreduce(&mine[0], &sum, 1, MPI_INT64_T, MPI_SUM, L->comm);
  MPI_Allreduce(mine, max, 3, MPI_INT64_T, MPI_MAX, L->comm);
  info->halo_entries = sum;
  info->halo_max = max[0];
  info->neighbours_max = (int)max[1];
  res->exchange_bytes = sum * (int64_t)sizeof(double);
  res->device_bytes = max[2];
  snprintf(info->exchange, sizeof info->exchange, "%s",
           size == 1 ? "none" : (!V->g ? "mpi" : (V->nccl ? "nccl" : "host")));
  if (V->g)
    snprintf(res->device, sizeof res->device, "%s x %d MPI rank%s", gpu, size,
             size == 1 ? "" : "s");
  else
    snprintf(res->device, sizeof res->device, "cpu (%d MPI rank%s x %d thread%s)", size,
             size == 1 ? "" : "s", threads, threads == 1 ? "" : "s");
}

cgm_status cgm_solve_mpi(const cgm_csr *A_on_root, const double *b_on_root, double *x_on_root,
                         const cgm_solve_opts *o, const cgm_dist_opts *d, cgm_solve_result *res,
                         cgm_dist_info *info, MPI_Comm comm, cgm_error *err) {
  memset(res, 0, sizeof *res);
  memset(info, 0, sizeof *info);
  const double t0 = cgm_now();
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  if (o->threads > 0) omp_set_num_threads(o->threads);
  const int threads = o->threads > 0 ? o->threads : omp_get_max_threads();
  header h = {0};
  root_data R = {0};
  cgm_dist_local L = {0};
  vectors V = {0};
  int64_t *rowptr = NULL;
  int32_t *col = NULL;
  double *val = NULL, *xall = NULL;
  int32_t *bounds = calloc((size_t)size + 1, sizeof *bounds);
  cgm_status st = bounds ? CGM_OK : cgm_fail(err, CGM_ERUNTIME, "out of memory");
  if (!st && rank == 0)
    st = root_prepare(A_on_root, b_on_root, x_on_root, o, d, size, &h, bounds, &R, res, err);
  /* Every rank learns the root's verdict before any other collective. */
  if ((st = cgm_dist_agree(st, err, comm))) {
    if (st == CGM_ENOCONV) /* refused: a diagonal entry that is not positive */
      snprintf(res->stop_reason, sizeof res->stop_reason, "%.500s",
               err ? err->msg : "the matrix is not positive definite");
    goto done;
  }
  MPI_Bcast(&h, (int)sizeof h, MPI_BYTE, 0, comm);
  MPI_Bcast(bounds, size + 1, MPI_INT32_T, 0, comm);
  info->ranks = res->ranks = size;
  info->partition = d->partition;
  if (h.trivial) { /* b = 0: x = 0 is the exact solution */
    if (rank == 0) memset(x_on_root, 0, (size_t)h.n * sizeof *x_on_root);
    res->converged = true;
    snprintf(res->device, sizeof res->device, "none (b = 0)");
    goto done;
  }
  if ((st = scatter(&R, bounds, rank, size, &rowptr, &col, &val, &V, comm, err))) goto done;
  st = cgm_dist_local_build(&L, bounds, rank, size, rowptr, col, val, comm, err);
  rowptr = NULL, col = NULL, val = NULL; /* L's now */
  if (st) goto done;
  const int maxiter = cgm_solve_maxiter(o, h.n);
  st = vectors_alloc(&V, &L, maxiter, err);
  if ((st = cgm_dist_agree(st, err, comm))) goto done;
  char gpu[sizeof res->device / 2] = "";
  if (h.gpu && (st = gpu_start(&L, &V, o, rank, size, gpu, sizeof gpu, err))) goto done;
  describe(&L, &V, bounds, size, res, info, threads, gpu);
  res->time_setup_s = cgm_now() - t0;

  st = iterate(&L, &V, h.tol, maxiter, !o->fixed_count, res);
  /* Converged means the recomputed residual meets the target. */
  res->relative_residual = true_residual(&L, &V); /* on a GPU: x downloaded */
  if (V.g) { /* a GPU's failure stopped every rank (its sums were NaN): its message */
    const cgm_status gst = cgm_dist_agree(cgm_dgpu_error(V.g, err), err, comm);
    if (gst) {
      st = gst;
      goto done;
    }
  }
  st = cgm_solve_conclude(st, CGM_PREC_DOUBLE, h.tol, err, res); /* as cgm_solve's verdict */
  /* The solution back on the root, in the matrix's own numbering. */
  int *cnt = NULL, *dsp = NULL;
  cgm_status ast = CGM_OK;
  if (rank == 0) {
    cnt = malloc((size_t)size * sizeof *cnt);
    dsp = malloc((size_t)size * sizeof *dsp);
    xall = malloc(((size_t)h.n + 1) * sizeof *xall);
    if (!cnt || !dsp || !xall) ast = cgm_fail(err, CGM_ERUNTIME, "out of memory");
    for (int k = 0; k < size && !ast; k++) cnt[k] = bounds[k + 1] - bounds[k], dsp[k] = bounds[k];
  }
  if (!(ast = cgm_dist_agree(ast, err, comm))) {
    MPI_Gatherv(V.x, L.n, MPI_DOUBLE, xall, cnt, dsp, MPI_DOUBLE, 0, comm);
    if (rank == 0)
      for (int32_t i = 0; i < h.n; i++) x_on_root[R.perm ? R.perm[i] : i] = xall[i] * R.bnorm;
  } else {
    st = ast;
  }
  CGM_FREE(cnt, dsp);
  if (st == CGM_ENOCONV) cgm_fail(err, st, "%s", res->stop_reason);
done:
  CGM_FREE(bounds, rowptr, col, val, xall);
  root_free(&R);
  cgm_dist_local_free(&L);
  vectors_free(&V);
  return st;
}
