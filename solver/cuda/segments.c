/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Host-side set-up of the CUDA solver's segments (segments.h). */
#include "solver/cuda/segments.h"

#include <stdlib.h>
#include <string.h>

#include "sparse/bcsr_internal.h"

void cgm_seg_free(cgm_seg_host *s) {
  cgm_bcsr_free(&s->A);
  cgm_bcsr_free(&s->B);
  cgm_bcsr_free(&s->C);
  cgm_halo_free(&s->h);
}

/* The block rows of list[0..count) (from base on; len[b - base]: their lengths) of at most
 * CGM_LONG_ROW blocks, kept in order at its front; returns how many. */
static int32_t keep_short(const int32_t *len, int32_t base, int32_t *list, int32_t count) {
  int32_t k = 0;
  for (int32_t i = 0; i < count; i++)
    if (len[list[i] - base] <= CGM_LONG_ROW) list[k++] = list[i];
  return k;
}

/* The block rows of list[0..count) (len[b - base]: their lengths) that
 * stay in the MBR layout, kept at its front (*nshort of them); the long
 * ones into the layout C, a block row a slice (B_x = B_y = 1). */
static cgm_status split_long(const cgm_csr *A, const int32_t *len, int32_t *list, int32_t count,
                             int32_t base, int n, int32_t *nshort, cgm_bcsr *C, cgm_error *err) {
  int32_t *lng = malloc(((size_t)count + 1) * sizeof *lng);
  if (!lng) return cgm_fail(err, CGM_ERUNTIME, "out of host memory");
  int32_t nl = 0;
  for (int32_t i = 0; i < count; i++)
    if (len[list[i] - base] > CGM_LONG_ROW) lng[nl++] = list[i];
  *nshort = keep_short(len, base, list, count);
  const cgm_bcsr_params one = {n, 1, 1};
  cgm_status st = nl > 0 ? cgm_bcsr_build_rows(A, lng, nl, base, one, C, err) : CGM_OK;
  free(lng);
  return st;
}

/* The lengths in blocks of block rows [b0, b1), into a new *len. */
static cgm_status row_lengths(const cgm_csr *A, int n, int32_t b0, int32_t b1, int32_t **len,
                              cgm_error *err) {
  int32_t *l = malloc(((size_t)(b1 - b0) + 1) * sizeof *l);
  if (!l) return cgm_fail(err, CGM_ERUNTIME, "out of host memory");
  if (n == 1) {
    for (int32_t i = b0; i < b1; i++) l[i - b0] = A->rowptr[i + 1] - A->rowptr[i];
  } else {
#pragma omp parallel for schedule(dynamic, 256)
    for (int32_t b = b0; b < b1; b++) l[b - b0] = cgm_block_row_columns(A, b, n, NULL);
  }
  *len = l;
  return CGM_OK;
}

/* The long block rows of [b0, b1) apart into s->C; without the halo the others into the MBR layout
 * s->A, with it the halo's interior and boundary lists keep the others alone. */
static cgm_status build_long_split(const cgm_csr *A, int32_t b0, int32_t b1, cgm_bcsr_params lp,
                                   cgm_seg_host *s, bool halo, cgm_error *err) {
  int32_t *len = NULL, *rows = NULL, ns = 0;
  cgm_status st = row_lengths(A, lp.n, b0, b1, &len, err);
  if (!st && !(rows = malloc(((size_t)(b1 - b0) + 1) * sizeof *rows))) /* the own, in order */
    st = cgm_fail(err, CGM_ERUNTIME, "out of host memory");
  for (int32_t i = b0; !st && i < b1; i++) rows[i - b0] = i;
  if (!st) st = split_long(A, len, rows, b1 - b0, b0, lp.n, &ns, &s->C, err);
  if (!st && halo) {
    s->h.ninterior = keep_short(len, b0, s->h.interior, s->h.ninterior);
    s->h.nboundary = keep_short(len, b0, s->h.boundary, s->h.nboundary);
  } else if (!st) {
    st = cgm_bcsr_build_rows(A, rows, ns, b0, lp, &s->A, err);
  }
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
  const bool long_rows = cgm_plan_long_part(&p->seg[g]) != NULL;
  if (G == 1 || p->o.exchange != CGM_EXCHANGE_HALO) { /* the whole vector */
    s->v_len = (int64_t)p->nb * n;
    s->v_off = (int64_t)b0 * n;
    return G == 1 && long_rows ? build_long_split(A, b0, b1, lp, s, false, err)
                               : cgm_bcsr_build(A, b0, b1, lp, &s->A, err);
  }
  cgm_status st = cgm_halo_build(A, n, p->bounds, G, g, &s->h, err);
  if (!st && long_rows) st = build_long_split(A, b0, b1, lp, s, true, err);
  if (!st) st = cgm_bcsr_build_rows(A, s->h.interior, s->h.ninterior, b0, lp, &s->A, err);
  if (!st) st = cgm_bcsr_build_rows(A, s->h.boundary, s->h.nboundary, b0, lp, &s->B, err);
  if (st) return st;
  /* The halo starts past the own rows padded to 16 bytes: the vector kernels (CG1, CG5, cgg) write
   * v in 16-byte packs, and the last segment's rows need not fill its last pack; a halo right
   * behind them would be overwritten while the peers deliver it. n divides the padded length. */
  s->halo_start = (int32_t)(cgm_vec_len((int64_t)(b1 - b0) * n) / n);
  cgm_halo_remap(&s->h, s->halo_start, &s->A);
  cgm_halo_remap(&s->h, s->halo_start, &s->B);
  cgm_halo_remap(&s->h, s->halo_start, &s->C);
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
