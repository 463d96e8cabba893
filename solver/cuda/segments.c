/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Host-side set-up of the CUDA solver's segments (segments.h). */
#include "solver/cuda/segments.h"

#include <stdlib.h>
#include <string.h>

#include "sparse/bcsr_internal.h"

void cgm_seg_free(cgm_seg_host *s) {
  cgm_bcsr_free(&s->A);
  cgm_bcsr_free(&s->B);
  cgm_halo_free(&s->h);
}

/* One GPU (the plan's long_rows part): block rows of at most
 * CGM_LONG_ROW blocks in the MBR layout (A), the longer ones a block
 * row a slice (B: B_x = B_y = 1, read by the long-row kernel). */
static cgm_status build_long_split(const cgm_csr *A, int32_t b0, int32_t b1, cgm_bcsr_params lp,
                                   cgm_seg_host *s, cgm_error *err) {
  const int32_t nb = (int32_t)(((int64_t)A->nrows + lp.n - 1) / lp.n);
  int32_t *rows = malloc(((size_t)(b1 - b0) + 1) * sizeof *rows);
  int32_t *len = malloc(((size_t)nb + 1) * sizeof *len);
  cgm_status st = CGM_OK;
  if (!rows || !len) st = cgm_fail(err, CGM_ERUNTIME, "out of host memory");
  if (!st && lp.n == 1) /* a row's entries are its blocks */
    for (int32_t i = b0; i < b1; i++) len[i] = A->rowptr[i + 1] - A->rowptr[i];
  else if (!st)
    st = cgm_bcsr_row_blocks(A, lp.n, len, err);
  int32_t ns = 0, nl = 0;
  if (!st) { /* the short block rows from the front, the long from the back */
    for (int32_t i = b0; i < b1; i++)
      if (len[i] <= CGM_LONG_ROW) rows[ns++] = i;
    for (int32_t i = b0; i < b1; i++)
      if (len[i] > CGM_LONG_ROW) rows[ns + nl++] = i;
  }
  const cgm_bcsr_params one = {lp.n, 1, 1};
  if (!st) st = cgm_bcsr_build_rows(A, rows, ns, b0, lp, &s->A, err);
  if (!st) st = cgm_bcsr_build_rows(A, rows + ns, nl, b0, one, &s->B, err);
  free(rows);
  free(len);
  return st;
}

cgm_status cgm_seg_build(const cgm_csr *A, const cgm_plan *p, int g, cgm_seg_host *s,
                         cgm_error *err) {
  memset(s, 0, sizeof *s);
  const cgm_bcsr_params lp = p->o.layout;
  const int n = lp.n, G = p->nseg;
  const int32_t b0 = p->bounds[g], b1 = p->bounds[g + 1];
  if (G > 1 && p->o.exchange == CGM_EXCHANGE_NCCL) { /* equal chunks for the all-gather */
    cgm_status st = cgm_bcsr_build(A, b0, b1, lp, &s->A, err);
    if (st) return st;
    cgm_chunk_remap(&s->A, p->bounds, G, (int32_t)(p->chunk_rows / n));
    s->v_len = p->chunk_rows * G;
    s->v_off = p->chunk_rows * g;
    return CGM_OK;
  }
  if (G == 1 && p->seg[g].nparts == 2 && p->seg[g].part[1].long_rows) {
    s->v_len = (int64_t)p->nb * n;
    s->v_off = (int64_t)b0 * n;
    return build_long_split(A, b0, b1, lp, s, err);
  }
  if (G == 1 || p->o.exchange != CGM_EXCHANGE_HALO) { /* the whole vector */
    s->v_len = (int64_t)p->nb * n;
    s->v_off = (int64_t)b0 * n;
    return cgm_bcsr_build(A, b0, b1, lp, &s->A, err);
  }
  cgm_status st = cgm_halo_build(A, n, p->bounds, G, g, &s->h, err);
  if (!st) st = cgm_bcsr_build_rows(A, s->h.interior, s->h.ninterior, b0, lp, &s->A, err);
  if (!st) st = cgm_bcsr_build_rows(A, s->h.boundary, s->h.nboundary, b0, lp, &s->B, err);
  if (st) return st;
  /* The halo starts past the own rows padded to 16 bytes: the vector
   * kernels (CG1, CG5, cgg) write v in 16-byte packs, and the last
   * segment's rows need not fill its last pack; a halo right behind them
   * would be overwritten while the peers deliver it. n divides the padded
   * length. */
  s->halo_start = (int32_t)(cgm_vec_len((int64_t)(b1 - b0) * n) / n);
  cgm_halo_remap(&s->h, s->halo_start, &s->A);
  cgm_halo_remap(&s->h, s->halo_start, &s->B);
  s->v_len = ((int64_t)s->halo_start + s->h.nhalo) * n;
  s->v_off = 0;
  return CGM_OK;
}

void cgm_seg_sends_free(cgm_seg_sends *s) {
  free(s->idx);
  memset(s, 0, sizeof *s);
}

cgm_status cgm_seg_sends_build(const cgm_plan *p, const cgm_seg_host *seg, int j,
                               cgm_seg_sends *out, cgm_error *err) {
  memset(out, 0, sizeof *out);
  const int n = p->o.layout.n;
  int64_t total = 0;
  for (int k = 0; k < p->nseg; k++)
    total += (int64_t)(seg[k].h.owner[j + 1] - seg[k].h.owner[j]) * n;
  out->idx = malloc(sizeof(int32_t) * (size_t)(total > 0 ? total : 1));
  if (!out->idx) return cgm_fail(err, CGM_ERUNTIME, "out of host memory");
  int64_t e = 0;
  for (int k = 0; k < p->nseg; k++) {
    const cgm_halo *h = &seg[k].h;
    const int32_t c0 = h->owner[j], c1 = h->owner[j + 1];
    if (c1 == c0) continue;
    out->off[out->ndst] = e;
    for (int32_t c = c0; c < c1; c++)
      for (int t = 0; t < n; t++) out->idx[e++] = (h->cols[c] - p->bounds[j]) * n + t;
    out->dst[out->ndst] = k;
    out->dst_at[out->ndst] = ((int64_t)seg[k].halo_start + c0) * n;
    out->ndst++;
  }
  out->off[out->ndst] = e;
  return CGM_OK;
}
