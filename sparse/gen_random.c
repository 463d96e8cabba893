/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Random SPD matrices with a chosen row-length distribution: target lengths, a Chung-Lu pattern,
 * hashed symmetric values, a dominant diagonal (docs/cli.md, "How `gen random` builds a matrix").
 * Every draw comes from a stream of (seed, row): the matrix does not depend on the thread count.
 * The CSR is built directly (cgm_csr_from_coo would sum repeated pairs, 16 more bytes an entry). */
#include "cgmodel/sparse.h"
#include "common/grow.h"
#include "common/timer.h"
#include "sparse/rng.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { SALT_TARGET = 1, SALT_PICK, SALT_VALUE, SALT_CAP, SALT_EXTRA, SALT_EXTRA_PICK };

/* Independent stream per (seed, salt, row). */
static inline uint64_t stream(uint64_t seed, uint64_t salt, uint64_t row) {
  uint64_t s = seed ^ (salt * 0xD1B54A32D192ED03ull);
  (void)splitmix64(&s);
  s ^= row * 0xA0761D6478BD642Full;
  (void)splitmix64(&s);
  return s;
}

/* Value of the unordered pair {i, j}, uniform in (-1, 1): k + 0.5 over 2^51
 * minus 1 is exact in double and never 0. */
static inline double pair_value(uint64_t seed, int32_t i, int32_t j) {
  uint64_t lo = (uint64_t)(i < j ? i : j), hi = (uint64_t)(i < j ? j : i);
  uint64_t s = stream(seed, SALT_VALUE, (hi << 32) | lo);
  uint64_t k = splitmix64(&s) >> 12;
  return ((double)k + 0.5) * 0x1p-51 - 1.0;
}

/* Mean of P(L) ~ (L + q)^-alpha on [1, maxlen], weights relative to L = 1
 * (no overflow as q -> -1). Beyond L = 4096, geometric buckets 1% wide keep
 * the bisection cheap for maxlen in the millions. */
static double zm_mean(double q, double alpha, int64_t maxlen) {
  const double l1 = log1p(q);
  double s0 = 0.0, s1 = 0.0;
  int64_t L = 1;
  for (; L <= maxlen && L <= 4096; L++) {
    double w = exp(-alpha * (log((double)L + q) - l1));
    s0 += w;
    s1 += w * (double)L;
  }
  while (L <= maxlen) {
    int64_t hi = L + (int64_t)(0.01 * (double)L);
    if (hi > maxlen) hi = maxlen;
    double cnt = (double)(hi - L + 1), mid = 0.5 * (double)(L + hi);
    double w = exp(-alpha * (log(mid + q) - l1));
    s0 += cnt * w;
    s1 += cnt * w * mid;
    L = hi + 1;
  }
  return s1 / s0;
}

/* CDF table of the power law whose mean is avg; *cdf has maxlen entries. */
static cgm_status powerlaw_cdf(double avg, double alpha, int64_t maxlen, double **cdf,
                               cgm_error *err) {
  /* mean(q) grows from 1 (q -> -1) to (maxlen + 1) / 2 (q -> inf). */
  double lo = -1.0 + 1e-12, hi = 1.0;
  while (zm_mean(hi, alpha, maxlen) < avg) {
    lo = hi;
    hi *= 2.0;
    if (hi > 1e15)
      return cgm_fail(err, CGM_EINPUT,
                      "power law (alpha %g) on [1, %lld] cannot reach mean row length %g", alpha,
                      (long long)maxlen, avg);
  }
  for (int it = 0; it < 200 && hi - lo > 1e-9 * (1.0 + fabs(hi)); it++) {
    double mid = 0.5 * (lo + hi);
    if (zm_mean(mid, alpha, maxlen) < avg)
      lo = mid;
    else
      hi = mid;
  }
  double q = 0.5 * (lo + hi), l1 = log1p(q);
  double *c = malloc((size_t)maxlen * sizeof *c);
  if (!c)
    return cgm_fail(err, CGM_ERUNTIME, "out of memory for a %lld-entry table", (long long)maxlen);
  double s = 0.0;
  for (int64_t L = 1; L <= maxlen; L++) {
    s += exp(-alpha * (log((double)L + q) - l1));
    c[L - 1] = s;
  }
  for (int64_t L = 0; L < maxlen; L++) c[L] /= s;
  c[maxlen - 1] = 1.0;
  *cdf = c;
  return CGM_OK;
}

/* First index k with c[k] > u (u in [0, 1)); c[n - 1] == 1. */
static int64_t upper_bound_d(const double *c, int64_t n, double u) {
  int64_t lo = 0, hi = n - 1;
  while (lo < hi) {
    int64_t mid = lo + (hi - lo) / 2;
    if (c[mid] > u)
      hi = mid;
    else
      lo = mid + 1;
  }
  return lo;
}

/* First index k with c[k + 1] > r, c the n + 1 prefix sums (c[0] = 0). */
static int32_t upper_bound_i(const int64_t *c, int32_t n, int64_t r) {
  int32_t lo = 0, hi = n - 1;
  while (lo < hi) {
    int32_t mid = lo + (hi - lo) / 2;
    if (c[mid + 1] > r)
      hi = mid;
    else
      lo = mid + 1;
  }
  return lo;
}

/* Position of column j in sorted row [b, e) of col, -1 if absent. */
static int64_t find_col(const int32_t *col, int64_t b, int64_t e, int32_t j) {
  const int32_t *p = bsearch(&j, col + b, (size_t)(e - b), sizeof j, cgm_cmp_i32);
  return p ? p - col : -1;
}

/* x / 2 rounded up or down at random (x odd), so the expectation is x / 2. */
static inline int64_t half_round(int64_t x, uint64_t *s) {
  return x / 2 + ((x & 1) && (splitmix64(s) >> 63));
}

/* Symmetric pattern without the diagonal: row i is col[ptr[i] ..
 * ptr[i] + len[i]), sorted, distinct. */
typedef struct {
  int64_t *ptr;
  int32_t *col;
  int32_t *len;
} adj;

static void adj_free(adj *g) {
  CGM_FREE(g->ptr, g->col, g->len);
  memset(g, 0, sizeof *g);
}

/* g = old (if any) plus every pick (i, picks[k]) in both rows i and picks[k], sorted and merged per
 * row. A pair repeated k times in row i is repeated k times in row j too, so merging keeps the
 * pattern symmetric. next is scratch of n entries. Returns 0 when out of memory. */
static int adj_add(int32_t n, const adj *old, const int64_t *pptr, const int32_t *npick,
                   const int32_t *picks, int64_t *next, adj *g) {
  g->ptr = calloc((size_t)n + 1, sizeof *g->ptr);
  g->len = malloc((size_t)n * sizeof *g->len);
  if (!g->ptr || !g->len) return 0;
  for (int32_t i = 0; i < n; i++) {
    g->ptr[i + 1] += npick[i] + (old ? old->len[i] : 0);
    for (int64_t k = pptr[i]; k < pptr[i] + npick[i]; k++) g->ptr[picks[k] + 1]++;
  }
  for (int32_t i = 0; i < n; i++) g->ptr[i + 1] += g->ptr[i];
  if ((uint64_t)g->ptr[n] > SIZE_MAX / sizeof *g->col) return 0;
  g->col = malloc((size_t)(g->ptr[n] > 0 ? g->ptr[n] : 1) * sizeof *g->col);
  if (!g->col) return 0;
  memcpy(next, g->ptr, (size_t)n * sizeof *next);
  if (old)
    for (int32_t i = 0; i < n; i++) {
      memcpy(g->col + next[i], old->col + old->ptr[i], (size_t)old->len[i] * sizeof *g->col);
      next[i] += old->len[i];
    }
  for (int32_t i = 0; i < n; i++)
    for (int64_t k = pptr[i]; k < pptr[i] + npick[i]; k++) {
      int32_t j = picks[k];
      g->col[next[i]++] = j;
      g->col[next[j]++] = i;
    }
#pragma omp parallel for schedule(dynamic, 256)
  for (int32_t i = 0; i < n; i++) {
    int32_t *c = g->col + g->ptr[i];
    int64_t m = g->ptr[i + 1] - g->ptr[i], out = 0;
    qsort(c, (size_t)m, sizeof *c, cgm_cmp_i32);
    for (int64_t k = 0; k < m; k++)
      if (out == 0 || c[out - 1] != c[k]) c[out++] = c[k];
    g->len[i] = (int32_t)out;
  }
  return 1;
}

/* The arguments' checks; *capp: the longest row allowed. */
static cgm_status check_args(int32_t n, double avg, cgm_rowdist dist, double alpha, int32_t maxlen,
                             int64_t *capp, cgm_error *err) {
  if (n < 1) return cgm_fail(err, CGM_EINPUT, "random matrix: n must be >= 1 (got %d)", n);
  if (!(avg >= 1.0) || !isfinite(avg))
    return cgm_fail(err, CGM_EINPUT, "random matrix: average row length must be >= 1 (got %g)",
                    avg);
  if (avg > n)
    return cgm_fail(err, CGM_EINPUT,
                    "random matrix: average row length %g exceeds the dimension %d", avg, n);
  if (dist != CGM_ROWDIST_UNIFORM && dist != CGM_ROWDIST_POWERLAW)
    return cgm_fail(err, CGM_EINPUT, "random matrix: unknown row-length distribution %d",
                    (int)dist);
  /* alpha only shapes the power law; the uniform law ignores it. */
  if (dist == CGM_ROWDIST_POWERLAW && (!(alpha > 1.0) || !isfinite(alpha)))
    return cgm_fail(err, CGM_EINPUT, "random matrix: power-law exponent must be > 1 (got %g)",
                    alpha);
  int64_t cap = maxlen;
  if (cap <= 0) cap = (int64_t)fmin((double)n, 1000.0 * avg);
  if (cap > n) cap = n;
  if ((double)cap < avg)
    return cgm_fail(err, CGM_EINPUT,
                    "random matrix: maximum row length %lld is below the average %g",
                    (long long)cap, avg);
  if (dist == CGM_ROWDIST_POWERLAW && !(2.0 * avg - 1.0 < (double)cap))
    return cgm_fail(err, CGM_EINPUT,
                    "random matrix: a power law on [1, %lld] cannot have mean %g "
                    "(needs maximum row length > 2 avg - 1)",
                    (long long)cap, avg);
  *capp = cap;
  return CGM_OK;
}

/* Final CSR: g's off-diagonals not dropped plus the diagonal, in column
 * order (next: n scratch values). */
static cgm_status final_csr(int32_t n, const adj *g, const unsigned char *drop, int64_t *next,
                            uint64_t seed, cgm_csr *A, cgm_error *err) {
  {
    int64_t nnz = 0;
    for (int32_t i = 0; i < n; i++) {
      int64_t keep = g->len[i];
      if (drop)
        for (int64_t k = g->ptr[i]; k < g->ptr[i] + g->len[i]; k++) keep -= drop[k];
      next[i] = keep + 1;
      nnz += keep + 1;
    }
    cgm_status st = cgm_csr_alloc(A, n, n, nnz, err);
    if (st) return st;
    for (int32_t i = 0; i < n; i++) A->rowptr[i + 1] = A->rowptr[i] + next[i];
  }
#pragma omp parallel for schedule(dynamic, 256)
  for (int32_t i = 0; i < n; i++) {
    int64_t p = A->rowptr[i], pd = -1;
    double diag = 1.0;
    for (int64_t k = g->ptr[i]; k < g->ptr[i] + g->len[i]; k++) {
      if (drop && drop[k]) continue;
      int32_t j = g->col[k];
      if (pd < 0 && j > i) pd = p++; /* the diagonal's slot */
      double v = pair_value(seed, i, j);
      A->colidx[p] = j;
      A->val[p] = v;
      diag += fabs(v);
      p++;
    }
    if (pd < 0) pd = p;
    A->colidx[pd] = i;
    A->val[pd] = diag;
  }
  return CGM_OK;
}

cgm_status cgm_gen_random_spd(int32_t n, double avg, cgm_rowdist dist, double alpha, int32_t maxlen,
                              uint64_t seed, cgm_csr *A, cgm_error *err) {
  memset(A, 0, sizeof *A); /* safe to cgm_csr_free after any failure */
  int64_t cap = 0;
  cgm_status st = check_args(n, avg, dist, alpha, maxlen, &cap, err);
  if (st) return st;
  double *cdf = NULL;
  int32_t *tlen = NULL, *npick = NULL, *picks = NULL;
  int64_t *dsum = NULL, *pptr = NULL, *next = NULL, *idx = NULL;
  unsigned char *drop = NULL;
  adj g1 = {0}, g = {0};
  if (dist == CGM_ROWDIST_POWERLAW && (st = powerlaw_cdf(avg, alpha, cap, &cdf, err))) goto done;

  tlen = malloc((size_t)n * sizeof *tlen);
  npick = malloc((size_t)n * sizeof *npick);
  dsum = malloc(((size_t)n + 1) * sizeof *dsum);
  pptr = malloc(((size_t)n + 1) * sizeof *pptr);
  next = malloc((size_t)n * sizeof *next);
  if (!tlen || !npick || !dsum || !pptr || !next) goto oom;

    /* Targets and the number of partners each row picks. */
#pragma omp parallel for schedule(static)
  for (int32_t i = 0; i < n; i++) {
    uint64_t s = stream(seed, SALT_TARGET, (uint64_t)i);
    int64_t L;
    if (dist == CGM_ROWDIST_UNIFORM)
      L = (int64_t)floor(1.0 + unif01(&s) * (2.0 * avg - 1.0));
    else
      L = upper_bound_d(cdf, cap, unif01(&s)) + 1;
    if (L < 1) L = 1;
    if (L > cap) L = cap;
    tlen[i] = (int32_t)L;
    npick[i] = (int32_t)half_round(L - 1, &s);
  }
  dsum[0] = pptr[0] = 0;
  for (int32_t i = 0; i < n; i++) {
    dsum[i + 1] = dsum[i] + (tlen[i] - 1);
    pptr[i + 1] = pptr[i] + npick[i];
  }
  const int64_t D = dsum[n];
  if (!(picks = malloc((size_t)(pptr[n] > 0 ? pptr[n] : 1) * sizeof *picks))) goto oom;

    /* Phase 1 (Chung-Lu): partners j != i with probability d_j / (D - d_i);
     * drawing from the prefix sums with row i's range cut out keeps it exact. */
#pragma omp parallel for schedule(dynamic, 256)
  for (int32_t i = 0; i < n; i++) {
    int64_t others = D - (tlen[i] - 1);
    if (others <= 0) npick[i] = 0; /* nobody else wants entries */
    uint64_t s = stream(seed, SALT_PICK, (uint64_t)i);
    for (int64_t k = pptr[i]; k < pptr[i] + npick[i]; k++) {
      int64_t r = (int64_t)(unif01(&s) * (double)others);
      if (r >= others) r = others - 1;
      if (r >= dsum[i]) r += tlen[i] - 1;
      picks[k] = upper_bound_i(dsum, n, r);
    }
  }
  if (!adj_add(n, NULL, pptr, npick, picks, next, &g1)) goto oom;
  free(picks);
  picks = NULL;

  /* Phase 2: merged repeats leave rows short of their targets (heavy tails most). Each row picks
   * half as many new partners as it lost to merging, uniformly among all rows (light rows absorb
   * the mirrors): the mean is restored. A row's Poisson shortfall is balanced by longer rows. */
  pptr[0] = 0;
  for (int32_t i = 0; i < n; i++) {
    uint64_t s = stream(seed, SALT_EXTRA, (uint64_t)i);
    int64_t lost = g1.ptr[i + 1] - g1.ptr[i] - g1.len[i];
    npick[i] = n > 1 ? (int32_t)half_round(lost, &s) : 0;
    pptr[i + 1] = pptr[i] + npick[i];
  }
  if (!(picks = malloc((size_t)(pptr[n] > 0 ? pptr[n] : 1) * sizeof *picks))) goto oom;
#pragma omp parallel for schedule(dynamic, 256)
  for (int32_t i = 0; i < n; i++) {
    uint64_t s = stream(seed, SALT_EXTRA_PICK, (uint64_t)i);
    for (int64_t k = pptr[i]; k < pptr[i] + npick[i]; k++) {
      int32_t j = 0;
      for (int tries = 0; tries < 8; tries++) {
        int64_t r = (int64_t)(unif01(&s) * (double)(n - 1));
        j = (int32_t)(r >= n - 1 ? n - 2 : r);
        if (j >= i) j++;
        if (find_col(g1.col, g1.ptr[i], g1.ptr[i] + g1.len[i], j) < 0) break;
      }
      picks[k] = j;
    }
  }
  if (!adj_add(n, &g1, pptr, npick, picks, next, &g)) goto oom;
  adj_free(&g1);
  free(picks);
  picks = NULL;

  /* Hard cap: rows with more than cap - 1 off-diagonals drop random entries
   * and their mirrors. Drops only shorten other rows: one pass settles all.
   * Such rows are rare, so the flags are allocated only when needed. */
  for (int32_t i = 0; i < n && !drop; i++)
    if (g.len[i] > cap - 1) {
      drop = calloc((size_t)(g.ptr[n] > 0 ? g.ptr[n] : 1), 1);
      idx = malloc((size_t)n * sizeof *idx);
      if (!drop || !idx) goto oom;
    }
  for (int32_t i = 0; drop && i < n; i++) {
    int64_t b = g.ptr[i], live = 0;
    for (int64_t k = b; k < b + g.len[i]; k++)
      if (!drop[k]) idx[live++] = k;
    if (live <= cap - 1) continue;
    /* Partial Fisher-Yates: the first `excess` of a random permutation. */
    uint64_t s = stream(seed, SALT_CAP, (uint64_t)i);
    for (int64_t t = 0; t < live - (cap - 1); t++) {
      int64_t r = t + (int64_t)(unif01(&s) * (double)(live - t));
      if (r >= live) r = live - 1;
      int64_t k = idx[r];
      idx[r] = idx[t];
      int32_t j = g.col[k];
      drop[k] = 1;
      drop[find_col(g.col, g.ptr[j], g.ptr[j] + g.len[j], i)] = 1;
    }
  }

  st = final_csr(n, &g, drop, next, seed, A, err);
  goto done;

oom:
  st = cgm_fail(err, CGM_ERUNTIME, "out of memory generating a random %d x %d matrix", n, n);
done:
  CGM_FREE(cdf, tlen, npick, dsum, pptr, picks, next, idx, drop);
  adj_free(&g1);
  adj_free(&g);
  return st;
}
