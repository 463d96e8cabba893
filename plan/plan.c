/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The plan of a configuration (include/cgmodel/plan.h): the cut, each segment's layouts and halo,
 * the exchange and the memory, counted from the matrix's block pattern without building any layout.
 * The CUDA solver builds exactly these segments (solver/cuda/segments.c), which
 * tests/unit/test_plan.c checks for every exchange and GPU count. */
#include "cgmodel/plan.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/grow.h"
#include "plan/partition.h"
#include "plan/scatter.h"
#include "sparse/bcsr_internal.h"

struct cgm_plan_pattern {
  int n;
  int32_t nrows, nb, nbcols;
  int64_t nnz;
  double avg_row; /* scalar entries per row: the layout's B_x */
  int32_t *len;   /* blocks of every block row */
  int64_t *bptr;  /* the block columns of every block row (NULL: not needed) */
  int32_t *bcol;
};

cgm_plan_opts cgm_plan_opts_default(void) {
  cgm_plan_opts o = {.backend = CGM_BACKEND_CPU,
                     .precision = CGM_PREC_DOUBLE,
                     .layout = cgm_bcsr_default_params(1),
                     .gpus = 1,
                     .exchange = CGM_EXCHANGE_HALO, /* the fastest measured (docs/perf.md) */
                     .balance = true};
  o.layout.bx = 0; /* chosen for the matrix (cgm_plan_layout_params) */
  o.layout.by = 0;
  return o;
}

/* The plan p emptied, and the options it needs (a settled solve's: not checked again). */
static cgm_status plan_start(cgm_plan *p, const cgm_plan_opts *o, cgm_error *err) {
  memset(p, 0, sizeof *p);
  if (o->settled) return CGM_OK;
  if ((unsigned)o->backend > CGM_BACKEND_CUSPARSE || (unsigned)o->precision >= CGM_NPRECISIONS ||
      (unsigned)o->exchange >= CGM_NEXCHANGES)
    return cgm_fail(err, CGM_EINPUT, "backend %d, precision %d, exchange %d: not a configuration",
                    (int)o->backend, (int)o->precision, (int)o->exchange);
  cgm_status st = cgm_block_check(o->layout.n, "block", err);
  if (!st && (o->gpus < 1 || o->gpus > CGM_MAX_GPUS))
    st = cgm_fail(err, CGM_EINPUT, "gpus %d: not in 1..%d", o->gpus, CGM_MAX_GPUS);
  if (!st && o->gpus > 1 && o->backend != CGM_BACKEND_CUDA)
    st = cgm_fail(err, CGM_EINPUT, "gpus %d: several GPUs need backend=cuda (backend is %s)",
                  o->gpus, cgm_backend_name(o->backend));
  return st;
}

static cgm_status pattern_make(const cgm_csr *A, int n, bool columns, cgm_plan_pattern **out,
                               cgm_error *err) {
  *out = NULL;
  cgm_plan_pattern *pt = calloc(1, sizeof *pt);
  if (!pt) return cgm_fail(err, CGM_ERUNTIME, "out of memory");
  pt->n = n;
  pt->nrows = A->nrows;
  pt->nnz = A->nnz;
  pt->avg_row = A->nrows > 0 ? (double)A->nnz / A->nrows : 0.0;
  pt->nb = (int32_t)(((int64_t)A->nrows + n - 1) / n);
  pt->nbcols = (int32_t)(((int64_t)A->ncols + n - 1) / n);
  cgm_status st = CGM_OK;
  pt->len = malloc(((size_t)pt->nb + 1) * sizeof *pt->len);
  if (!pt->len) st = cgm_fail(err, CGM_ERUNTIME, "out of memory for %d block rows", pt->nb);
  if (!st && !columns)
    st = cgm_bcsr_row_blocks(A, n, pt->len, err);
  else if (!st)
    st = cgm_block_pattern(A, n, &pt->bptr, &pt->bcol, err);
  for (int32_t b = 0; b < pt->nb && !st && columns; b++)
    pt->len[b] = (int32_t)(pt->bptr[b + 1] - pt->bptr[b]);
  if (st) cgm_plan_pattern_free(pt);
  *out = st ? NULL : pt;
  return st;
}

cgm_status cgm_plan_pattern_make(const cgm_csr *A, int n, cgm_plan_pattern **pt, cgm_error *err) {
  return pattern_make(A, n, true, pt, err);
}

void cgm_plan_pattern_free(cgm_plan_pattern *pt) {
  if (!pt) return;
  CGM_FREE(pt->len, pt->bptr, pt->bcol, pt);
}

/* The counts of the layout of the block rows among len[0..count) of at most
 * limit blocks, on every core (7M block rows at Poisson 192^3). */
static cgm_status layout_counts(const int32_t *len, int32_t count, const cgm_bcsr_params *p,
                                int32_t limit, cgm_plan_layout *L, cgm_error *err) {
  memset(L, 0, sizeof *L);
  int64_t blocks = 0, walk = 0;
  int32_t brows = 0, max_row = 0;
#pragma omp parallel for schedule(static) reduction(+ : blocks, walk, brows) reduction(max : max_row)
  for (int32_t i = 0; i < count; i++) {
    if (len[i] > limit) continue;
    brows++, blocks += len[i], walk += (len[i] + p->bx - 1) / p->bx;
    if (len[i] > max_row) max_row = len[i];
  }
  L->brows = brows, L->blocks = blocks, L->walk = walk, L->max_row = max_row;
  L->nslices = (brows + p->by - 1) / p->by;
  L->blocks_padded = cgm_bcsr_padded_count(len, count, *p, limit);
  if (L->blocks_padded < 0) return cgm_fail(err, CGM_ERUNTIME, "out of memory counting blocks");
  return CGM_OK;
}

/* Whether plans of o put long block rows in a layout of their own
 * (cgm_plan_layout.long_rows): our kernels on one GPU, and on several with
 * the halo exchange, whose long rows' kernel runs once the halo is in. */
static bool splits_long_rows(const cgm_plan_opts *o) {
  return o->backend == CGM_BACKEND_CUDA && (o->gpus == 1 || o->exchange == CGM_EXCHANGE_HALO);
}

/* The layout of the block rows among len[0..count) longer than
 * CGM_LONG_ROW blocks (cgm_plan_layout.long_rows): a block row a slice,
 * its walk the steps of the threads that read it. */
static void long_part(const int32_t *len, int32_t count, int n, cgm_plan_layout *L) {
  memset(L, 0, sizeof *L);
  L->long_rows = 1;
  for (int32_t i = 0; i < count; i++) {
    if (len[i] <= CGM_LONG_ROW) continue;
    const int32_t steps = cgm_long_row_steps(len[i], n);
    L->brows++;
    L->blocks += len[i];
    L->walk += steps;
    if (steps > L->max_row) L->max_row = steps;
  }
  L->nslices = L->brows;
  L->blocks_padded = L->blocks;
}

/* One GPU: block rows longer than CGM_LONG_ROW blocks in a layout of their own (part[1],
 * long_rows), the others in the MBR layout (part[0]); nothing to split: part[0] alone. */
static cgm_status split_long_rows(const int32_t *len, int32_t count, const cgm_bcsr_params *p,
                                  cgm_plan_segment *s, cgm_error *err) {
  s->nparts = 1;
  cgm_status st = layout_counts(len, count, p, CGM_LONG_ROW, &s->part[0], err);
  if (st || s->part[0].brows == count) return st;
  long_part(len, count, p->n, &s->part[1]);
  s->nparts = 2;
  return CGM_OK;
}

/* The long block rows' sectors of x (cgm_plan_segment.long_x_sectors): the distinct ones of each
 * block row of [b0, b1) longer than CGM_LONG_ROW blocks, its block columns from the pattern, else
 * from A (a plan made without the columns: only those rows are walked). */
static cgm_status long_sectors(const cgm_plan_pattern *pt, const cgm_csr *A, int32_t b0, int32_t b1,
                               int64_t out[CGM_NSECTOR_WIDTHS], cgm_error *err) {
  int32_t *buf = NULL;
  for (int32_t b = b0; b < b1; b++) {
    if (pt->len[b] <= CGM_LONG_ROW) continue;
    if (pt->bptr) {
      plan_row_sectors(pt->bcol + pt->bptr[b], pt->len[b], pt->n, out);
      continue;
    }
    if (!buf && !(buf = malloc(((size_t)pt->nbcols + 1) * sizeof *buf)))
      return cgm_fail(err, CGM_ERUNTIME, "out of memory counting sectors of x");
    plan_row_sectors(buf, cgm_block_row_columns(A, b, pt->n, buf), pt->n, out);
  }
  free(buf);
  return CGM_OK;
}

/* The sectors of x one layout of `count` block rows (global numbers in
 * rows, ascending) reads at both widths, added to out. */
static cgm_status part_sectors(const cgm_plan_pattern *pt, const int32_t *rows, int32_t count,
                               const cgm_bcsr_params *p, int64_t *out, cgm_error *err) {
  if (!pt->bptr || count == 0) return CGM_OK;
  int32_t *len = malloc(((size_t)count + 1) * sizeof *len);
  int32_t *order = malloc(((size_t)count + 1) * sizeof *order);
  cgm_status st = CGM_OK;
  if (!len || !order) st = cgm_fail(err, CGM_ERUNTIME, "out of memory counting sectors of x");
  for (int32_t i = 0; i < count && !st; i++) len[i] = pt->len[rows[i]];
  if (!st) st = cgm_bcsr_sort_rows(len, count, order, err);
  int64_t k[CGM_NSECTOR_WIDTHS];
  if (!st && cgm_layout_x_sectors(pt->bptr, pt->bcol, pt->nbcols, rows, order, count, p->bx, p->by,
                                  pt->n, k) != 0)
    st = cgm_fail(err, CGM_ERUNTIME, "out of memory counting sectors of x");
  for (int w = 0; w < CGM_NSECTOR_WIDTHS && !st; w++) out[w] += k[w];
  CGM_FREE(len, order);
  return st;
}

/* The vector the SpMV of a segment gathers from, as the CUDA solver lays it
 * out: the own rows alone (one GPU) or the whole vector, equal chunks for
 * NCCL's all-gather, or [own rows | padding | halo] with the halo. */
static int64_t gathered_len(const cgm_plan *p, const cgm_plan_segment *s) {
  const int n = p->o.layout.n;
  if (p->nseg > 1 && p->o.exchange == CGM_EXCHANGE_NCCL) return p->chunk_rows * p->nseg;
  if (p->nseg > 1 && p->o.exchange == CGM_EXCHANGE_HALO)
    return cgm_vec_len(s->rows) + (int64_t)s->nhalo * n;
  return (int64_t)p->nb * n;
}

/* The halo segments: their layouts, halos and sends. */
static cgm_status halo_segments(const cgm_plan_pattern *pt, cgm_plan *p, cgm_error *err) {
  const int G = p->nseg;
  int32_t *sub = malloc(((size_t)pt->nb + 1) * sizeof *sub);
  unsigned char *bnd = malloc((size_t)pt->nb + 1);
  cgm_status st = CGM_OK;
  if (!sub || !bnd) st = cgm_fail(err, CGM_ERUNTIME, "out of memory");
  for (int g = 0; g < G && !st; g++) {
    cgm_plan_segment *s = &p->seg[g];
    const int32_t nrow = s->b1 - s->b0;
    int32_t from[CGM_MAX_GPUS];
    st = cgm_halo_sizes(pt->bptr, pt->bcol, pt->nbcols, p->bounds, G, g, &s->nhalo, from, bnd, err);
    if (st) break;
    /* interior and boundary block rows, the long ones (on our kernels) in
     * a third layout, whichever side they are on */
    const bool split = splits_long_rows(&p->o);
    const int32_t *len = pt->len + s->b0;
    int32_t ni = 0, nbd = 0, nlong = 0;
    for (int32_t b = 0; b < nrow; b++)
      if (split && len[b] > CGM_LONG_ROW)
        nlong++;
      else if (!bnd[b])
        sub[ni++] = len[b];
    for (int32_t b = 0; b < nrow; b++)
      if (bnd[b] && !(split && len[b] > CGM_LONG_ROW)) sub[ni + nbd++] = len[b];
    s->nparts = 2;
    st = layout_counts(sub, ni, &p->o.layout, INT32_MAX, &s->part[0], err);
    if (!st) st = layout_counts(sub + ni, nbd, &p->o.layout, INT32_MAX, &s->part[1], err);
    if (!st && nlong > 0) {
      long_part(len, nrow, p->o.layout.n, &s->part[2]);
      s->nparts = 3;
      st = long_sectors(pt, NULL, s->b0, s->b1, s->long_x_sectors, err);
    }
    /* the same lists by row number, for the sectors of x each layout reads */
    for (int k = 0, i = 0; k < 2 && !st; k++, i = 0) {
      for (int32_t b = 0; b < nrow; b++)
        if ((bnd[b] != 0) == (k == 1)) sub[i++] = s->b0 + b;
      st = part_sectors(pt, sub, i, &p->o.layout, s->x_sectors, err);
    }
    s->halo_rows = (int64_t)s->nhalo * p->o.layout.n;
    p->exchange_elems += s->halo_rows;
    for (int j = 0; j < G; j++) p->seg[j].sends += (int64_t)from[j] * p->o.layout.n;
  }
  CGM_FREE(sub, bnd);
  return st;
}

/* Elements a whole-vector exchange moves between devices per iteration: the vector to G - 1 others
 * (p2p), G chunks to G - 1 others (nccl), x G through the host (host, Eq. 9). */
static int64_t exchange_elements(cgm_exchange mode, int gpus, int64_t rows_total,
                                 int64_t chunk_rows) {
  if (gpus <= 1) return 0;
  if (mode == CGM_EXCHANGE_P2P) return (int64_t)(gpus - 1) * rows_total;
  if (mode == CGM_EXCHANGE_NCCL) return (int64_t)(gpus - 1) * gpus * chunk_rows;
  return mode == CGM_EXCHANGE_HOST ? (int64_t)gpus * rows_total : 0;
}

/* One segment of every row, without layouts (cuSPARSE's, or the GPU's). */
static void one_segment(cgm_plan *p, const cgm_plan_opts *o, int32_t nrows, int64_t nnz) {
  p->o = *o;
  p->o.features = NULL;
  p->nrows = p->nb = nrows;
  p->nnz = nnz;
  p->nseg = 1;
  p->bounds[1] = p->seg[0].b1 = nrows;
  p->seg[0].rows = p->seg[0].v_len = nrows;
}

static int gcd(int a, int b) {
  return b ? gcd(b, a % b) : a;
}

cgm_status cgm_plan_from_pattern(const cgm_plan_pattern *pt, const cgm_plan_opts *o, cgm_plan *p,
                                 cgm_error *err) {
  cgm_status st = plan_start(p, o, err);
  if (st) return st;
  if (o->layout.n != pt->n)
    return cgm_fail(err, CGM_EINPUT, "a plan at N = %d from the pattern of N = %d", o->layout.n,
                    pt->n);
  p->o = *o;
  const int n = pt->n, G = o->gpus;
  cgm_bcsr_params *lp = &p->o.layout;
  if (lp->bx <= 0) {
    cgm_bcsr_params q = cgm_plan_layout_choose(n, pt->avg_row, ((int64_t)pt->nrows + G - 1) / G);
    lp->bx = q.bx;
    if (lp->by <= 0) lp->by = q.by;
  }
  if ((st = cgm_bcsr_params_check(lp, err))) return st;
  p->nrows = pt->nrows;
  p->nnz = pt->nnz;
  p->nb = pt->nb;
  p->nseg = G;
  int align = cgm_partition_align(n);
  if (o->row_align > 1) { /* segment starts at multiples of both */
    const int rows = align * n, m = o->row_align;
    align = rows / gcd(rows, m) * m / n; /* lcm(rows, m) / n: n divides rows */
  }
  const bool halo = G > 1 && o->exchange == CGM_EXCHANGE_HALO;
  if (halo && !pt->bptr)
    return cgm_fail(err, CGM_EINPUT, "a halo plan needs the block pattern's columns");
  if ((st = cgm_partition_lengths(pt->len, pt->nb, G, align, p->bounds, err))) {
    if (st == CGM_EINPUT) /* say which block size */
      cgm_fail(err, CGM_EINPUT, "the matrix has %d block rows of size %d: too few for %d GPUs",
               pt->nb, n, G);
    return st;
  }
  if (halo && o->balance &&
      (st = cgm_partition_balance(pt->bptr, pt->bcol, pt->len, pt->nb, G, align, CGM_BOUNDARY_EXTRA,
                                  p->bounds, err)))
    return st;
  p->chunk_rows = G > 1 ? cgm_chunk_rows(p->bounds, G, n) : 0;
  for (int g = 0; g < G; g++) {
    cgm_plan_segment *s = &p->seg[g];
    s->b0 = p->bounds[g];
    s->b1 = p->bounds[g + 1];
    s->rows = (int64_t)(s->b1 - s->b0) * n;
    if (halo) continue;
    s->nparts = 1;
    if (splits_long_rows(&p->o))
      st = split_long_rows(pt->len + s->b0, s->b1 - s->b0, lp, s, err);
    else
      st = layout_counts(pt->len + s->b0, s->b1 - s->b0, lp, INT32_MAX, &s->part[0], err);
    if (st) return st;
    if (pt->bptr) {
      int32_t *rows = malloc(((size_t)(s->b1 - s->b0) + 1) * sizeof *rows);
      if (!rows) return cgm_fail(err, CGM_ERUNTIME, "out of memory counting sectors of x");
      for (int32_t b = s->b0; b < s->b1; b++) rows[b - s->b0] = b;
      st = part_sectors(pt, rows, s->b1 - s->b0, lp, s->x_sectors, err);
      free(rows);
      if (!st && cgm_plan_long_part(s))
        st = long_sectors(pt, NULL, s->b0, s->b1, s->long_x_sectors, err);
      if (st) return st;
    }
  }
  if (halo && (st = halo_segments(pt, p, err))) return st;
  for (int g = 0; g < G; g++) {
    cgm_plan_segment *s = &p->seg[g];
    /* the longest block row, and its scatter where the columns are here
     * (cgm_plan_make reads it from the matrix where they are not) */
    s->longest = plan_longest_rows(pt->len, s->b0, s->b1, n, lp->bx,
                                   splits_long_rows(&p->o) ? CGM_LONG_ROW : 0, s->warp_share);
    if (pt->bptr && s->longest >= 0)
      cgm_row_scatter(pt->bcol + pt->bptr[s->longest], pt->len[s->longest], n, s->row_scatter);
    s->v_len = gathered_len(p, s);
    if (!halo) s->halo_rows = G > 1 ? s->v_len - s->rows : 0;
  }
  if (!halo)
    p->exchange_elems = exchange_elements(o->exchange, G, (int64_t)p->bounds[G] * n, p->chunk_rows);
  cgm_plan_set_precision(p, o->precision);
  return CGM_OK;
}

cgm_status cgm_plan_make(const cgm_csr *A, const cgm_plan_opts *o, cgm_plan *p, cgm_error *err) {
  cgm_status st = plan_start(p, o, err);
  if (st) return st;
  if (o->backend == CGM_BACKEND_CUSPARSE) {
    one_segment(p, o, A->nrows, A->nnz);
    cgm_plan_set_precision(p, o->precision);
    return CGM_OK;
  }
  /* One segment in the layout the features counted: their sectors are the
   * plan's, and the block columns need not be walked. */
  const cgm_block_features *kf = NULL;
  if (o->features && !o->skip_sectors && (o->gpus <= 1 || o->backend != CGM_BACKEND_CUDA) &&
      o->features->x == A->nrows && o->features->nnz == A->nnz)
    for (int i = 0; i < CGM_NBLOCKSIZES; i++)
      if (o->features->block[i].n == o->layout.n) kf = &o->features->block[i];
  cgm_plan_opts oo = *o;
  if (kf) oo.skip_sectors = true;
  /* with the block columns: the halo, and the sectors of x the model reads */
  cgm_plan_pattern *pt;
  const bool halo = o->gpus > 1 && o->exchange == CGM_EXCHANGE_HALO;
  const bool columns = halo || !oo.skip_sectors;
  if ((st = pattern_make(A, o->layout.n, columns, &pt, err))) return st;
  st = cgm_plan_from_pattern(pt, &oo, p, err);
  /* a plan without the columns whose sectors come from the features: the long rows' read from A */
  if (!st && !columns && kf && cgm_plan_long_part(&p->seg[0]))
    st = long_sectors(pt, A, p->seg[0].b0, p->seg[0].b1, p->seg[0].long_x_sectors, err);
  cgm_plan_pattern_free(pt);
  for (int g = 0; g < p->nseg && !st && !columns; g++)
    st = plan_row_scatter_csr(A, o->layout.n, p->seg[g].longest, p->seg[g].row_scatter, err);
  p->o.features = NULL; /* the caller's: not kept in the plan */
  if (st || !kf) return st;
  if (p->nseg == 1 && p->o.layout.bx == kf->bx && p->o.layout.by == kf->by) {
    for (int w = 0; w < CGM_NSECTOR_WIDTHS; w++) p->seg[0].x_sectors[w] = kf->x_sectors[w];
    p->o.skip_sectors = false;
    return CGM_OK;
  }
  oo.features = NULL; /* another layout: counted */
  oo.skip_sectors = false;
  return cgm_plan_make(A, &oo, p, err);
}

cgm_status cgm_plan_device_csr(int32_t nrows, int64_t nnz, const cgm_plan_opts *o, cgm_plan *p,
                               cgm_error *err) {
  cgm_status st = plan_start(p, o, err);
  if (st) return st;
  if (o->backend != CGM_BACKEND_CUDA || o->gpus != 1 || o->layout.n != 1)
    return cgm_fail(err, CGM_EINPUT,
                    "a matrix in GPU memory is planned for the cuda backend on one GPU at block "
                    "size 1");
  if (nrows < 0 || nnz < 0)
    return cgm_fail(err, CGM_EINPUT, "a CSR of %d rows and %lld nonzeros", nrows, (long long)nnz);
  one_segment(p, o, nrows, nnz);
  if ((st = cgm_bcsr_params_check(&p->o.layout, err))) return st;
  p->seg[0].nparts = 1;
  p->seg[0].longest = -1; /* not known here */
  cgm_plan_set_precision(p, o->precision);
  return CGM_OK;
}

cgm_status cgm_plan_uniform(double x, double e, const cgm_plan_opts *o, cgm_plan *p,
                            cgm_error *err) {
  cgm_status st = plan_start(p, o, err);
  if (st) return st;
  const int G = o->gpus, n = o->layout.n;
  const bool halo = G > 1 && o->exchange == CGM_EXCHANGE_HALO;
  if (!(x >= 1 && x < 2e9 && e >= 1))
    return cgm_fail(err, CGM_EINPUT, "a uniform matrix of %g rows and %g elements", x, e);
  p->o = *o;
  p->o.layout = cgm_bcsr_default_params(n); /* rows of even length: B_x = 1 */
  p->nrows = (int32_t)ceil(x);
  p->nnz = (int64_t)ceil(e);
  p->nb = (int32_t)((p->nrows + n - 1) / n);
  p->nseg = G;
  const double rows = x / G;
  const int32_t brows = (int32_t)ceil(rows / n);
  for (int g = 0; g < G; g++) {
    cgm_plan_segment *s = &p->seg[g];
    s->b0 = g * brows;
    s->b1 = (g + 1) * brows;
    s->rows = (int64_t)ceil(rows);
    s->nparts = 1;
    s->part[0].brows = brows;
    s->part[0].blocks = s->part[0].blocks_padded = (int64_t)ceil(e / ((double)n * n) / G);
    s->part[0].nslices = (brows + p->o.layout.by - 1) / p->o.layout.by;
    s->v_len = G > 1 ? p->nrows : s->rows;
    s->halo_rows = s->v_len - s->rows;
    p->bounds[g] = s->b0;
    if (halo) { /* the band: `reach` rows on either side of the diagonal */
      const double reach = fmax(0.0, 0.5 * (e / x - 1)), before = g * rows,
                   after = (G - 1 - g) * rows;
      const int32_t nhalo =
          (int32_t)fmin(ceil((fmin(reach, before) + fmin(reach, after)) / n), ceil((x - rows) / n));
      /* the boundary block rows: those within reach of a neighbour */
      const int32_t bnd =
          (int32_t)fmin((double)brows, (g > 0) * ceil(reach / n) + (g < G - 1) * ceil(reach / n));
      const int64_t blocks = s->part[0].blocks;
      s->nparts = 2;
      s->part[1] = s->part[0];
      s->part[1].brows = bnd;
      s->part[1].blocks = s->part[1].blocks_padded = brows ? blocks * bnd / brows : 0;
      s->part[1].nslices = (bnd + p->o.layout.by - 1) / p->o.layout.by;
      s->part[0].brows = brows - bnd;
      s->part[0].blocks = s->part[0].blocks_padded = blocks - s->part[1].blocks;
      s->part[0].nslices = (s->part[0].brows + p->o.layout.by - 1) / p->o.layout.by;
      s->nhalo = nhalo;
      s->halo_rows = (int64_t)nhalo * n;
      s->v_len = cgm_vec_len(s->rows) + s->halo_rows;
      s->sends = s->halo_rows; /* the band is symmetric: it sends what it receives */
      p->exchange_elems += s->halo_rows;
    }
  }
  p->bounds[G] = G * brows;
  p->chunk_rows = G > 1 ? cgm_vec_len(p->seg[0].rows) : 0;
  if (!halo) p->exchange_elems = exchange_elements(o->exchange, G, p->nrows, p->chunk_rows);
  cgm_plan_set_precision(p, o->precision);
  return CGM_OK;
}
