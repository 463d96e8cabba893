/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Symmetric permutations of a matrix: the reverse Cuthill-McKee ordering (the solver's --reorder
 * rcm), shuffles of a numbering (the locality sweep of the calibration: the same mesh, the same
 * bytes, x read from farther apart) and applying a permutation. A permutation here is always
 * perm[new] = old. */
#include <stdlib.h>
#include <string.h>

#include "cgmodel/sparse.h"
#include "common/grow.h"
#include "sparse/mm_internal.h"
#include "common/par.h"
#include "sparse/rng.h"

cgm_status cgm_csr_permute(const cgm_csr *A, const int32_t *perm, cgm_csr *B, cgm_error *err) {
  memset(B, 0, sizeof *B);
  if (A->nrows != A->ncols)
    return cgm_fail(err, CGM_EINPUT, "a symmetric permutation needs a square matrix (%d x %d)",
                    A->nrows, A->ncols);
  const int32_t n = A->nrows;
  int32_t *inv = malloc(((size_t)n + 1) * sizeof *inv);
  if (!inv) return cgm_fail(err, CGM_ERUNTIME, "out of memory permuting %d rows", n);
  for (int32_t i = 0; i < n; i++) inv[i] = -1;
  for (int32_t i = 0; i < n; i++) {
    if (perm[i] < 0 || perm[i] >= n || inv[perm[i]] >= 0) {
      free(inv);
      return cgm_fail(err, CGM_EINPUT,
                      "entry %d of the permutation (%d) repeats or is out of range", i, perm[i]);
    }
    inv[perm[i]] = i;
  }
  cgm_status st = cgm_csr_alloc(B, n, n, A->nnz, err);
  if (st) {
    free(inv);
    return st;
  }
  for (int32_t i = 0; i < n; i++)
    B->rowptr[i + 1] = B->rowptr[i] + (A->rowptr[perm[i] + 1] - A->rowptr[perm[i]]);
#pragma omp parallel for schedule(dynamic, 256) if (A->nnz >= CGM_PAR_MIN_NNZ)
  for (int32_t i = 0; i < n; i++) {
    const int64_t b = B->rowptr[i], len = B->rowptr[i + 1] - b, a = A->rowptr[perm[i]];
    int32_t *c = B->colidx + b;
    double *v = B->val + b;
    for (int64_t k = 0; k < len; k++) c[k] = inv[A->colidx[a + k]], v[k] = A->val[a + k];
    /* insertion by the new column: rows are short, and a numbering that
     * keeps neighbours near leaves them almost sorted */
    mm_sort_pairs(c, v, 1, len);
  }
  free(inv);
  return CGM_OK;
}

void cgm_perm_shuffle(int32_t n, int32_t window, uint64_t seed, int32_t *perm) {
  for (int32_t i = 0; i < n; i++) perm[i] = i;
  if (window <= 1) return;
  uint64_t s = seed;
  for (int32_t w0 = 0; w0 < n; w0 += window) {
    const int32_t len = n - w0 < window ? n - w0 : window;
    for (int32_t i = len - 1; i > 0; i--) { /* Fisher-Yates inside the window */
      const int32_t j = (int32_t)(splitmix64(&s) % (uint64_t)(i + 1));
      const int32_t t = perm[w0 + i];
      perm[w0 + i] = perm[w0 + j];
      perm[w0 + j] = t;
    }
  }
}

void cgm_csr_spread(const cgm_csr *A, const int32_t *to, int64_t *max, double *mean) {
  int64_t bw = 0;
  double sum = 0.0;
  /* every core: a warm solve's reordering decision reads it (49M entries) */
#pragma omp parallel for schedule(static) reduction(max : bw) reduction(+ : sum) if (A->nnz >= CGM_PAR_MIN_NNZ)
  for (int32_t i = 0; i < A->nrows; i++)
    for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++) {
      const int64_t j = A->colidx[k], d = to ? (int64_t)to[j] - to[i] : j - i;
      bw = d > bw ? d : -d > bw ? -d : bw;
      sum += (double)(d < 0 ? -d : d);
    }
  if (max) *max = bw;
  if (mean) *mean = A->nnz > 0 ? sum / (double)A->nnz : 0.0;
}

/* Breadth-first search from root over the nodes neither placed nor reached by this search (seen[v]
 * == stamp), neighbours in increasing degree (Cuthill-McKee). Appends the nodes to order from *len
 * on; returns the number of levels and in *last_start the position of the last level's first node.
 * key is scratch of the longest row. */
static int32_t bfs(const cgm_csr *A, const int32_t *deg, const unsigned char *placed, int32_t root,
                   int32_t *seen, int32_t stamp, int32_t *order, int32_t *len, int64_t *key,
                   int32_t *last_start) {
  int32_t head = *len, levels = 0;
  order[(*len)++] = root;
  seen[root] = stamp;
  while (head < *len) {
    const int32_t end = *len;
    *last_start = head;
    levels++;
    for (; head < end; head++) {
      const int32_t u = order[head];
      int32_t nk = 0;
      for (int64_t k = A->rowptr[u]; k < A->rowptr[u + 1]; k++) {
        const int32_t v = A->colidx[k];
        if (seen[v] == stamp || placed[v]) continue;
        seen[v] = stamp;
        key[nk++] = ((int64_t)deg[v] << 32) | (uint32_t)v;
      }
      for (int32_t a = 1; a < nk; a++) { /* insertion sort: rows are short */
        const int64_t t = key[a];
        int32_t b = a;
        while (b > 0 && key[b - 1] > t) {
          key[b] = key[b - 1];
          b--;
        }
        key[b] = t;
      }
      for (int32_t a = 0; a < nk; a++) order[(*len)++] = (int32_t)(key[a] & 0xffffffff);
    }
  }
  return levels;
}

cgm_status cgm_rcm(const cgm_csr *A, int32_t *perm, cgm_error *err) {
  if (A->nrows != A->ncols)
    return cgm_fail(err, CGM_EINPUT, "RCM needs a square matrix (%d x %d)", A->nrows, A->ncols);
  const int32_t n = A->nrows;
  int32_t maxdeg = 0;
  int32_t *deg = malloc(((size_t)n + 1) * sizeof *deg);
  int32_t *seen = calloc((size_t)n + 1, sizeof *seen);
  int32_t *tmp = malloc(((size_t)n + 1) * sizeof *tmp);
  unsigned char *placed = calloc((size_t)n + 1, 1);
  int64_t *key = NULL;
  if (deg && seen && tmp && placed) {
    for (int32_t i = 0; i < n; i++) {
      deg[i] = (int32_t)(A->rowptr[i + 1] - A->rowptr[i]);
      if (deg[i] > maxdeg) maxdeg = deg[i];
    }
    key = malloc(((size_t)maxdeg + 1) * sizeof *key);
  }
  cgm_status st = CGM_OK;
  if (!deg || !seen || !tmp || !placed || !key)
    st = cgm_fail(err, CGM_ERUNTIME, "out of memory ordering %d rows", n);
  int32_t done = 0, stamp = 0;
  for (int32_t start = 0; start < n && !st; start++) {
    if (placed[start]) continue;
    /* the component of start, and its node of least degree */
    int32_t len = 0, ls = 0;
    (void)bfs(A, deg, placed, start, seen, ++stamp, tmp, &len, key, &ls);
    int32_t root = start;
    for (int32_t a = 0; a < len; a++)
      if (deg[tmp[a]] < deg[root]) root = tmp[a];
    /* a pseudo-peripheral node (George and Liu): from the root, move to a node of least degree in
     * the last level while that lengthens the search; a few steps suffice on meshes */
    int32_t levels = 0, prev = root;
    for (int it = 0; it < 16; it++) {
      len = 0;
      const int32_t lv = bfs(A, deg, placed, root, seen, ++stamp, tmp, &len, key, &ls);
      if (lv <= levels) { /* no longer: the previous one */
        root = prev;
        break;
      }
      levels = lv;
      prev = root;
      int32_t cand = tmp[ls];
      for (int32_t a = ls; a < len; a++)
        if (deg[tmp[a]] < deg[cand]) cand = tmp[a];
      if (cand == root) break;
      root = cand;
    }
    /* Cuthill-McKee from it, straight into perm */
    const int32_t from = done;
    (void)bfs(A, deg, placed, root, seen, ++stamp, perm, &done, key, &ls);
    for (int32_t a = from; a < done; a++) placed[perm[a]] = 1;
  }
  if (!st) /* reversed */
    for (int32_t a = 0, b = n - 1; a < b; a++, b--) {
      const int32_t t = perm[a];
      perm[a] = perm[b];
      perm[b] = t;
    }
  CGM_FREE(deg, seen, tmp, placed, key);
  return st;
}
