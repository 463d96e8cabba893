/* The locality of the SpMV's reads of x (docs/model.md, "x locality"): the
 * distinct 32-byte sectors of x each slice of the MBR layout reads, summed
 * over the slices. A slice (B_y block rows, B_y B_x N = 32 threads) is one
 * warp of the CUDA kernel (kernels/spmv.cu) and its gathers of x are served
 * by sectors: a slice whose rows read neighbouring columns moves each sector
 * once, one whose columns scatter moves a sector per entry. The byte count
 * of the refined model assumed x is read once; this is what it reads. */
#include <stdlib.h>

#include "sparse/bcsr_internal.h"

#define SECTOR_BYTES 32

/* The sectors of block column c that slice `mark` had not read yet. */
static int read_column(int32_t *stamp, int32_t mark, int32_t c, int n, int width) {
  const int64_t first = (int64_t)c * n * width; /* byte offsets of its N entries */
  const int64_t s0 = first / SECTOR_BYTES, s1 = (first + (int64_t)n * width - 1) / SECTOR_BYTES;
  int k = 0;
  for (int64_t s = s0; s <= s1; s++)
    if (stamp[s] != mark) {
      stamp[s] = mark;
      k++;
    }
  return k;
}

int64_t cgm_layout_x_sectors(const int64_t *bptr, const int32_t *bcol, int32_t nbcols,
                             const int32_t *rows, const int32_t *order, int32_t nb, int bx, int by,
                             int n, int width) {
  if (nb <= 0) return 0;
  if (by < 1) by = 1;
  if (bx < 1) bx = 1;
  const int64_t nsec = ((int64_t)nbcols * n * width + SECTOR_BYTES - 1) / SECTOR_BYTES;
  const int32_t nslices = (nb + by - 1) / by;
  int64_t total = 0;
  int failed = 0;
  /* Slices in parallel, each thread with its own stamps: stamp[s] = 1 + the
   * last slice that read sector s, so no array is ever cleared (a thread's
   * slices are distinct). The sum does not depend on the thread count. At
   * 49M entries this pass ran 4 block sizes x 2 widths on one core: seconds
   * of every solve that computed features. */
#pragma omp parallel reduction(+ : total, failed) if (nslices >= CGM_PAR_MIN)
  {
    int32_t *stamp = calloc((size_t)nsec + 1, sizeof *stamp);
    if (!stamp) failed = 1;
#pragma omp for schedule(dynamic, 1024)
    for (int32_t k = 0; k < nslices; k++) {
      if (!stamp) continue;
      const int32_t mark = k + 1;
      /* the slice's longest row (the first: sorted) sets its steps of B_x */
      const int64_t len0 = bptr[rows[order[k * by]] + 1] - bptr[rows[order[k * by]]];
      const int64_t longest = (len0 + bx - 1) / bx * bx;
      for (int32_t j = k * by; j < nb && j < (k + 1) * by; j++) {
        const int32_t b = rows[order[j]];
        for (int64_t q = bptr[b]; q < bptr[b + 1]; q++)
          total += read_column(stamp, mark, bcol[q], n, width);
        if (bptr[b + 1] - bptr[b] < longest)
          total += read_column(stamp, mark, b, n, width); /* its padding: its diagonal */
      }
      if ((k + 1) * (int64_t)by > nb)
        total += read_column(stamp, mark, 0, n, width); /* padding slots: column 0 */
    }
    free(stamp);
  }
  return failed ? -1 : total;
}

/* The sectors of the whole matrix's layout at both widths and their minimum:
 * every distinct block column's N entries read once, contiguously. */
cgm_status cgm_x_locality(const cgm_csr *A, cgm_bcsr_params p, cgm_block_features *bf,
                          cgm_error *err) {
  cgm_status st = cgm_bcsr_params_check(&p, err);
  if (st) return st;
  const int n = p.n;
  const int32_t nb = (int32_t)(((int64_t)A->nrows + n - 1) / n);
  const int32_t nbcols = (int32_t)(((int64_t)A->ncols + n - 1) / n);
  int64_t *bptr = NULL;
  int32_t *bcol = NULL;
  if ((st = cgm_block_pattern(A, n, &bptr, &bcol, err))) return st;
  int32_t *len = malloc(((size_t)nb + 1) * sizeof *len);
  int32_t *order = malloc(((size_t)nb + 1) * sizeof *order);
  int32_t *rows = malloc(((size_t)nb + 1) * sizeof *rows);
  unsigned char *used = calloc((size_t)nbcols + 1, 1);
  if (!len || !order || !rows || !used)
    st = cgm_fail(err, CGM_ERUNTIME, "out of memory for the x locality of %d block rows", nb);
  for (int32_t b = 0; b < nb && !st; b++) {
    len[b] = (int32_t)(bptr[b + 1] - bptr[b]);
    rows[b] = b;
  }
  if (!st) st = cgm_bcsr_sort_rows(len, nb, order, err);
  int64_t distinct = 0;
  if (!st) {
    for (int64_t q = 0; q < bptr[nb]; q++)
      if (!used[bcol[q]]) {
        used[bcol[q]] = 1;
        distinct++;
      }
  }
  static const int widths[CGM_NSECTOR_WIDTHS] = {8, 4};
  for (int w = 0; w < CGM_NSECTOR_WIDTHS && !st; w++) {
    const int64_t s =
        cgm_layout_x_sectors(bptr, bcol, nbcols, rows, order, nb, p.bx, p.by, n, widths[w]);
    if (s < 0) {
      st = cgm_fail(err, CGM_ERUNTIME, "out of memory counting the sectors of x");
      break;
    }
    bf->x_sectors[w] = s;
    bf->x_sectors_min[w] = (distinct * n * widths[w] + SECTOR_BYTES - 1) / SECTOR_BYTES;
    bf->x_locality[w] = bf->x_sectors_min[w] > 0 ? (double)s / (double)bf->x_sectors_min[w] : 1.0;
  }
  free(len);
  free(order);
  free(rows);
  free(used);
  free(bptr);
  free(bcol);
  return st;
}
