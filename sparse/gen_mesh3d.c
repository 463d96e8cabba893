/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Random geometric meshes, the unstructured meshes of FEM codes: numbered at random the SpMV reads
 * x from all over (the model's x locality, docs/model.md), numbered cell by cell of a grid
 * neighbours are near. A contrast > 1 makes them ill-conditioned (condition ~ contrast x 1e3). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cgmodel/sparse.h"
#include "common/grow.h"
#include "sparse/rng.h"

static int cmp_i64(const void *a, const void *b) {
  const int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return (x > y) - (x < y);
}

/* The cell of point x in the g x g x g grid of the unit cube: c, and its index. */
static int64_t cell_of(const double *x, int g, int c[3]) {
  for (int a = 0; a < 3; a++) {
    c[a] = (int)(x[a] * g);
    if (c[a] >= g) c[a] = g - 1;
  }
  return ((int64_t)c[2] * g + c[1]) * g + c[0];
}

/* The k nearest of point i among the points sorted by cell (cell_start:
 * g^3 + 1 offsets), searched in growing shells of cells until no unsearched
 * cell can hold a nearer one. nb/d2: k slots, ascending distance. */
static int knn(const double *p, const int32_t *cell_start, int g, int32_t i, int k, int32_t *nb,
               double *d2) {
  const double h = 1.0 / g;
  int c[3], found = 0;
  cell_of(p + 3 * (int64_t)i, g, c);
  for (int r = 0;; r++) {
    for (int z = c[2] - r; z <= c[2] + r; z++)
      for (int y = c[1] - r; y <= c[1] + r; y++)
        for (int x = c[0] - r; x <= c[0] + r; x++) {
          if (x < 0 || y < 0 || z < 0 || x >= g || y >= g || z >= g) continue;
          if (abs(x - c[0]) != r && abs(y - c[1]) != r && abs(z - c[2]) != r) continue; /* shell */
          const int64_t cell = ((int64_t)z * g + y) * g + x;
          for (int32_t j = cell_start[cell]; j < cell_start[cell + 1]; j++) {
            if (j == i) continue;
            double dd = 0;
            for (int a = 0; a < 3; a++)
              dd += (p[3 * j + a] - p[3 * i + a]) * (p[3 * j + a] - p[3 * i + a]);
            if (found == k && dd >= d2[k - 1]) continue;
            int q = found < k ? found++ : k - 1;
            while (q > 0 && d2[q - 1] > dd) {
              d2[q] = d2[q - 1];
              nb[q] = nb[q - 1];
              q--;
            }
            d2[q] = dd;
            nb[q] = j;
          }
        }
    /* every point outside the searched cube is farther than r h */
    if (r >= g || (found == k && d2[k - 1] <= (r * h) * (r * h))) return found;
  }
}

cgm_status cgm_gen_mesh3d(int32_t points, int k, cgm_numbering numbering, uint64_t seed, cgm_csr *A,
                          cgm_error *err) {
  return cgm_gen_mesh3d_coef(points, k, numbering, seed, 1.0, A, err);
}

/* The coefficient of the region (of 4 x 4 x 4) holding point x. */
#define COEF_REGIONS 4
static double coef_at(const double *x, const double *region) {
  int c[3];
  return region[cell_of(x, COEF_REGIONS, c)];
}

cgm_status cgm_gen_mesh3d_coef(int32_t points, int k, cgm_numbering numbering, uint64_t seed,
                               double contrast, cgm_csr *A, cgm_error *err) {
  memset(A, 0, sizeof *A);
  if (!(contrast >= 1.0 && contrast <= 1e15))
    return cgm_fail(err, CGM_EINPUT, "contrast %g: need 1 <= contrast <= 1e15", contrast);
  if (points < 2)
    return cgm_fail(err, CGM_EINPUT, "a mesh needs at least 2 points (got %d)", points);
  if (k < 1 || k > 64 || k >= points)
    return cgm_fail(err, CGM_EINPUT, "k = %d neighbours: need 1 <= k <= 64 and k < %d points", k,
                    points);
  if ((int64_t)points * 3 > INT32_MAX)
    return cgm_fail(err, CGM_EINPUT, "%d points have %lld unknowns: too many", points,
                    (long long)points * 3);
  int g = (int)cbrt(points / 2.0); /* about two points a cell */
  if (g < 1) g = 1;
  const int64_t ncell = (int64_t)g * g * g;
  double *raw = malloc((size_t)points * 3 * sizeof *raw),
         *p = malloc((size_t)points * 3 * sizeof *p);
  int32_t *cell_start = calloc((size_t)ncell + 2, sizeof *cell_start);
  int32_t *cellof = malloc((size_t)points * sizeof *cellof),
          *id = malloc((size_t)points * sizeof *id);
  int64_t *edge = malloc((size_t)points * k * sizeof *edge);
  int32_t nb[64];
  double d2[64];
  int32_t *ri = NULL, *ci = NULL;
  double *v = NULL;
  cgm_status st = CGM_OK;
  if (!raw || !p || !cell_start || !cellof || !id || !edge) {
    st = cgm_fail(err, CGM_ERUNTIME, "out of memory for a mesh of %d points", points);
    goto done;
  }
  uint64_t s = seed;
  for (int32_t i = 0; i < points; i++) {
    int c[3];
    for (int a = 0; a < 3; a++) raw[3 * i + a] = unif01(&s);
    cellof[i] = (int32_t)cell_of(raw + 3 * (int64_t)i, g, c);
    cell_start[cellof[i] + 2]++;
  }
  /* points sorted by cell (counting sort, stable): cell_start[c + 1] runs
   * from the start of cell c to its end, the start of c + 1 */
  for (int64_t c = 2; c <= ncell; c++) cell_start[c] += cell_start[c - 1];
  for (int32_t i = 0; i < points; i++) {
    const int32_t q = cell_start[cellof[i] + 1]++;
    memcpy(p + 3 * (int64_t)q, raw + 3 * (int64_t)i, 3 * sizeof *p);
  }
  /* the numbering: sorted keeps the cell order, random draws one */
  cgm_perm_shuffle(points, numbering == CGM_NUMBERING_RANDOM ? points : 1, seed ^ 0x5eedULL, id);
  int64_t ne = 0;
  for (int32_t i = 0; i < points; i++) {
    const int f = knn(p, cell_start, g, i, k, nb, d2);
    for (int q = 0; q < f; q++) {
      const int32_t a = i < nb[q] ? i : nb[q], b = i < nb[q] ? nb[q] : i;
      edge[ne++] = ((int64_t)a << 32) | b;
    }
  }
  qsort(edge, (size_t)ne, sizeof *edge, cmp_i64);
  int64_t u = 0; /* symmetrised: each pair once */
  for (int64_t e = 0; e < ne; e++)
    if (u == 0 || edge[u - 1] != edge[e]) edge[u++] = edge[e];
  const int64_t n = 36 * u + 3 * (int64_t)points;
  ri = malloc((size_t)n * sizeof *ri);
  ci = malloc((size_t)n * sizeof *ci);
  v = malloc((size_t)n * sizeof *v);
  if (!ri || !ci || !v) {
    st = cgm_fail(err, CGM_ERUNTIME, "out of memory for the %lld edges of a mesh", (long long)u);
    goto done;
  }
  double region[COEF_REGIONS * COEF_REGIONS * COEF_REGIONS];
  uint64_t cs = seed ^ 0xc0efULL;
  for (int r = 0; r < COEF_REGIONS * COEF_REGIONS * COEF_REGIONS; r++)
    region[r] = contrast > 1.0 ? pow(10.0, unif01(&cs) * log10(contrast)) : 1.0;
  int64_t q = 0;
  for (int32_t i = 0; i < points; i++)
    for (int a = 0; a < 3; a++) { /* the shift: positive definite, not only semi */
      ri[q] = ci[q] = 3 * id[i] + a;
      v[q++] = 1e-2;
    }
  for (int64_t e = 0; e < u; e++) {
    const int32_t i = (int32_t)(edge[e] >> 32), j = (int32_t)(edge[e] & 0xffffffff);
    double d[3], len = 0;
    for (int a = 0; a < 3; a++) {
      d[a] = p[3 * j + a] - p[3 * i + a];
      len += d[a] * d[a];
    }
    len = sqrt(len);
    for (int a = 0; a < 3; a++) d[a] = len > 0 ? d[a] / len : (a == 0);
    /* the edge's stiffness: the harmonic mean of its ends' coefficients
     * (the softer side dominates, as springs in series) */
    const double ci_ = coef_at(p + 3 * (int64_t)i, region),
                 cj = coef_at(p + 3 * (int64_t)j, region);
    const double ke = 2.0 * ci_ * cj / (ci_ + cj);
    const int32_t node[2] = {id[i], id[j]};
    for (int x = 0; x < 2; x++)
      for (int y = 0; y < 2; y++)
        for (int a = 0; a < 3; a++)
          for (int b = 0; b < 3; b++) {
            const double kab = ke * (d[a] * d[b] + (a == b ? 0.25 : 0.0));
            ri[q] = 3 * node[x] + a;
            ci[q] = 3 * node[y] + b;
            v[q++] = x == y ? kab : -kab;
          }
  }
  st = cgm_csr_from_coo(3 * points, 3 * points, q, ri, ci, v, A, NULL, err);
done:
  CGM_FREE(raw, p, cell_start, cellof, id, edge, ri, ci, v);
  return st;
}
