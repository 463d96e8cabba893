/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Matrix features the model reads (paper Sec. 5.6, Tables 4 and 5): x, e_N,
 * d_N, row-length statistics, and the exact padded element count of the MBR
 * layout (what the paper's estimate leaves out, Sec. 5.6 and 8). */
#include "cgmodel/sparse.h"
#include "sparse/bcsr_internal.h"

#include <math.h>
#include <string.h>

cgm_status cgm_features_compute(const cgm_csr *A, const cgm_bcsr_params *layouts, cgm_features *f,
                                cgm_error *err) {
  return cgm_features_compute_blocks(A, layouts, (1u << CGM_NBLOCKSIZES) - 1, f, err);
}

cgm_status cgm_features_compute_blocks(const cgm_csr *A, const cgm_bcsr_params *layouts,
                                       unsigned blocks, cgm_features *f, cgm_error *err) {
  memset(f, 0, sizeof *f);
  if (A->nrows != A->ncols)
    return cgm_fail(err, CGM_EINPUT, "matrix is %d x %d, not square", A->nrows, A->ncols);
  f->x = A->nrows;
  f->nnz = A->nnz;
  int32_t rmin = A->nrows > 0 ? INT32_MAX : 0, rmax = 0, empty = 0, bad = INT32_MAX;
  double sum = 0.0, sum2 = 0.0;
#pragma omp parallel for reduction(min : rmin, bad) reduction(max : rmax) reduction(+ : sum, sum2, empty) if (A->nnz >= CGM_PAR_MIN_NNZ)
  for (int32_t i = 0; i < A->nrows; i++) {
    int64_t len = A->rowptr[i + 1] - A->rowptr[i];
    if (len < rmin) rmin = (int32_t)len;
    if (len > rmax) rmax = (int32_t)len;
    if (len == 0) empty++;
    sum += (double)len;
    sum2 += (double)len * (double)len;
    if (!(cgm_csr_diagonal_at(A, i) > 0.0) && i < bad) bad = i;
  }
  f->row_min = rmin;
  f->row_max = rmax;
  f->empty_rows = empty;
  if (A->nrows > 0) {
    f->row_avg = sum / A->nrows;
    double var = sum2 / A->nrows - f->row_avg * f->row_avg;
    f->row_cv = f->row_avg > 0 ? sqrt(var > 0 ? var : 0) / f->row_avg : 0.0;
  }
  f->positive_diagonal = bad == INT32_MAX;
  f->first_bad_diagonal = bad == INT32_MAX ? -1 : bad;
  f->symmetric = cgm_csr_is_symmetric(A);
  f->value_class = cgm_values_class(A->val, A->nnz, A->ncols);

  for (int b = 0; b < CGM_NBLOCKSIZES; b++) {
    if (!(blocks & (1u << b))) continue; /* left out: n stays 0 */
    cgm_block_features *bf = &f->block[b];
    int n = cgm_block_sizes[b];
    bf->n = n;
    cgm_bcsr_params p = layouts ? layouts[b] : cgm_bcsr_default_params(n);
    /* counts and locality from one block pattern */
    cgm_status st = cgm_x_locality(A, p, bf, err);
    if (st) return st;
    bf->elements = bf->blocks * n * n;
    bf->padded_elements = bf->padded_blocks * n * n;
    bf->density = bf->elements > 0 ? (double)A->nnz / (double)bf->elements : 0.0;
  }
  return CGM_OK;
}
