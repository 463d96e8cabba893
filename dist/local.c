/* SPDX-License-Identifier: GPL-3.0-or-later */
/* One rank's rows with their halo: the ghost entries it reads, grouped by the rank that owns them,
 * and what it sends to whom, built by each rank from its own rows (the plan's halo is per GPU
 * segment of block rows, bounded by CGM_MAX_GPUS): an all-to-all of counts, then the index lists
 * point to point. */
#include <stdlib.h>
#include <string.h>

#include "cgmodel/dist_mpi.h"
#include "common/grow.h"
#include "common/timer.h"
#include "dist/local.h"

enum { TAG_LIST = 71, TAG_HALO = 72 };

/* The rank owning global row c: the last k with bounds[k] <= c (a rank
 * with no rows shares its bound with the next). */
static int owner(const int32_t *bounds, int size, int32_t c) {
  int lo = 0, hi = size - 1;
  while (lo < hi) {
    int mid = lo + (hi - lo + 1) / 2;
    if (bounds[mid] <= c)
      lo = mid;
    else
      hi = mid - 1;
  }
  return lo;
}

/* The ghosts (sorted, unique) and the local column numbers. */
static cgm_status find_ghosts(cgm_dist_local *L, cgm_error *err) {
  const int64_t nnz = L->rowptr[L->n];
  const int32_t lo = L->row0, hi = L->row0 + L->n;
  int64_t m = 0;
  for (int64_t k = 0; k < nnz; k++) m += L->col[k] < lo || L->col[k] >= hi;
  if (m > INT32_MAX) return cgm_fail(err, CGM_EINPUT, "a rank reads over 2^31 foreign entries");
  L->ghost = malloc(((size_t)m + 1) * sizeof *L->ghost);
  if (!L->ghost)
    return cgm_fail(err, CGM_ERUNTIME, "out of memory for %lld halo entries", (long long)m);
  m = 0;
  for (int64_t k = 0; k < nnz; k++)
    if (L->col[k] < lo || L->col[k] >= hi) L->ghost[m++] = L->col[k];
  qsort(L->ghost, (size_t)m, sizeof *L->ghost, cgm_cmp_i32);
  int32_t u = 0;
  for (int64_t k = 0; k < m; k++)
    if (u == 0 || L->ghost[u - 1] != L->ghost[k]) L->ghost[u++] = L->ghost[k];
  L->nghost = u;
#pragma omp parallel for schedule(static)
  for (int64_t k = 0; k < nnz; k++) {
    const int32_t c = L->col[k];
    const int32_t *g =
        c >= lo && c < hi ? NULL : bsearch(&c, L->ghost, (size_t)u, sizeof c, cgm_cmp_i32);
    L->col[k] = g ? L->n + (int32_t)(g - L->ghost) : c - lo;
  }
  /* interior rows read only own entries */
  L->interior = malloc(((size_t)L->n + 1) * sizeof *L->interior);
  L->boundary = malloc(((size_t)L->n + 1) * sizeof *L->boundary);
  if (!L->interior || !L->boundary) return cgm_fail(err, CGM_ERUNTIME, "out of memory");
  for (int32_t i = 0; i < L->n; i++) {
    bool bnd = false;
    for (int64_t k = L->rowptr[i]; k < L->rowptr[i + 1] && !bnd; k++) bnd = L->col[k] >= L->n;
    if (bnd)
      L->boundary[L->nboundary++] = i;
    else
      L->interior[L->ninterior++] = i;
  }
  return CGM_OK;
}

/* The ranks with a count (*m of them) and their pieces' offsets: one
 * contiguous piece per rank; false when out of memory. */
static bool peers(const int *count, int size, int *m, int **rank, int32_t **off) {
  for (int r = 0; r < size; r++) *m += count[r] > 0;
  *rank = malloc(((size_t)*m + 1) * sizeof **rank);
  *off = malloc(((size_t)*m + 2) * sizeof **off);
  if (!*rank || !*off) return false;
  int k = 0;
  (*off)[0] = 0;
  for (int r = 0; r < size; r++)
    if (count[r] > 0) {
      (*rank)[k] = r;
      (*off)[k + 1] = (*off)[k] + count[r];
      k++;
    }
  return true;
}

/* The sends, from what the others need (give[r]); allocations only. */
static cgm_status plan_sends(cgm_dist_local *L, int size, const int *give, cgm_error *err) {
  const bool ok = peers(give, size, &L->nsend, &L->send_rank, &L->send_off);
  const size_t total = ok ? (size_t)L->send_off[L->nsend] : 0;
  L->send_idx = malloc((total + 1) * sizeof *L->send_idx);
  L->sendbuf = malloc((total + 1) * sizeof *L->sendbuf);
  L->req = malloc(((size_t)L->nsend + L->nrecv + 1) * sizeof *L->req);
  if (!ok || !L->send_idx || !L->sendbuf || !L->req)
    return cgm_fail(err, CGM_ERUNTIME, "out of memory for the halo's send lists");
  return CGM_OK;
}

cgm_status cgm_dist_local_build(cgm_dist_local *L, const int32_t *bounds, int rank, int size,
                                int64_t *rowptr, int32_t *gcol, double *val, MPI_Comm comm,
                                cgm_error *err) {
  memset(L, 0, sizeof *L);
  L->comm = comm;
  L->row0 = bounds[rank];
  L->n = bounds[rank + 1] - bounds[rank];
  L->rowptr = rowptr;
  L->col = gcol;
  L->val = val;
  int *need = calloc((size_t)size, sizeof *need), *give = calloc((size_t)size, sizeof *give);
  cgm_status st = need && give ? CGM_OK : cgm_fail(err, CGM_ERUNTIME, "out of memory");
  if (!st) st = find_ghosts(L, err);
  /* The receives: need[r] counts what this rank reads from rank r. */
  for (int32_t j = 0; !st && j < L->nghost; j++) need[owner(bounds, size, L->ghost[j])]++;
  if (!st && !peers(need, size, &L->nrecv, &L->recv_rank, &L->recv_off))
    st = cgm_fail(err, CGM_ERUNTIME, "out of memory");
  if ((st = cgm_dist_agree(st, err, comm))) goto done;
  MPI_Alltoall(need, 1, MPI_INT, give, 1, MPI_INT, comm);
  st = plan_sends(L, size, give, err);
  if ((st = cgm_dist_agree(st, err, comm))) goto done;
  /* The index lists: what this rank reads goes to its owners, what the
   * others read from this rank comes in as send_idx. */
  int q = 0;
  for (int k = 0; k < L->nsend; k++)
    MPI_Irecv(L->send_idx + L->send_off[k], L->send_off[k + 1] - L->send_off[k], MPI_INT32_T,
              L->send_rank[k], TAG_LIST, comm, &L->req[q++]);
  for (int k = 0; k < L->nrecv; k++)
    MPI_Isend(L->ghost + L->recv_off[k], L->recv_off[k + 1] - L->recv_off[k], MPI_INT32_T,
              L->recv_rank[k], TAG_LIST, comm, &L->req[q++]);
  MPI_Waitall(q, L->req, MPI_STATUSES_IGNORE);
  for (int32_t k = 0; k < L->send_off[L->nsend]; k++) {
    const int32_t c = L->send_idx[k] - L->row0;
    if (c < 0 || c >= L->n) {
      st = cgm_fail(err, CGM_ERUNTIME, "rank %d was asked for row %d, which it does not own", rank,
                    L->send_idx[k] + 1);
      break;
    }
    L->send_idx[k] = c;
  }
  st = cgm_dist_agree(st, err, comm);
done:
  CGM_FREE(need, give);
  return st;
}

void cgm_dist_local_free(cgm_dist_local *L) {
  CGM_FREE(L->rowptr, L->col, L->val, L->ghost, L->recv_rank, L->recv_off, L->send_rank,
           L->send_off, L->send_idx, L->sendbuf, L->req, L->interior, L->boundary);
  memset(L, 0, sizeof *L);
}

void cgm_dist_exchange_post(cgm_dist_local *L, double *ghosts) {
  int q = 0;
  for (int k = 0; k < L->nrecv; k++)
    MPI_Irecv(ghosts + L->recv_off[k], L->recv_off[k + 1] - L->recv_off[k], MPI_DOUBLE,
              L->recv_rank[k], TAG_HALO, L->comm, &L->req[q++]);
  for (int k = 0; k < L->nsend; k++)
    MPI_Isend(L->sendbuf + L->send_off[k], L->send_off[k + 1] - L->send_off[k], MPI_DOUBLE,
              L->send_rank[k], TAG_HALO, L->comm, &L->req[q++]);
}

void cgm_dist_exchange_start(cgm_dist_local *L, double *v) {
  const int32_t ns = L->send_off[L->nsend];
  for (int32_t k = 0; k < ns; k++) L->sendbuf[k] = v[L->send_idx[k]];
  cgm_dist_exchange_post(L, v + L->n);
}

void cgm_dist_exchange_finish(cgm_dist_local *L) {
  MPI_Waitall(L->nrecv + L->nsend, L->req, MPI_STATUSES_IGNORE);
}

/* Rows rows[0..m) of u = A v, and their part of p . u. */
static double rows_spmv(const cgm_dist_local *L, const int32_t *rows, int32_t m, const double *v,
                        double *u, const double *p) {
  double dot = 0.0;
#pragma omp parallel for schedule(static) reduction(+ : dot)
  for (int32_t t = 0; t < m; t++) {
    const int32_t i = rows[t];
    double s = 0.0;
    for (int64_t k = L->rowptr[i]; k < L->rowptr[i + 1]; k++) s += L->val[k] * v[L->col[k]];
    u[i] = s;
    if (p) dot += p[i] * s;
  }
  return dot;
}

double cgm_dist_spmv(cgm_dist_local *L, double *v, double *u, const double *p) {
  cgm_dist_exchange_start(L, v);
  double dot = rows_spmv(L, L->interior, L->ninterior, v, u, p);
  cgm_dist_exchange_finish(L);
  return dot + rows_spmv(L, L->boundary, L->nboundary, v, u, p);
}
