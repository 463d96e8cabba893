/* The configuration search (issue: predict, tuner). Shapes are exact: the
 * partition, halos and MBR layouts the solver would build are counted here
 * (without their values), so the model sees each GPU's real segment (x_i,
 * padded e_i) instead of the paper's x/n and e/n. */
#include "cgmodel/tuner.h"
#include "common/grow.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

cgm_tuner_opts cgm_tuner_opts_default(void) {
  cgm_tuner_opts o;
  memset(&o, 0, sizeof o);
  o.precisions = 1u << CGM_PREC_DOUBLE;
  o.exchanges = 1u << CGM_EXCHANGE_HALO;
  o.cusparse = true;
  return o;
}

/* One block size's pattern, computed once and shared by every GPU count and
 * exchange mode: partitions, padded counts (from the block rows' lengths)
 * and halos are then cheap scans. */
typedef struct {
  int n;
  double avg_row; /* scalar entries per row: the layout's B_x (cgm_bcsr_params_for) */
  int64_t rows;
  int32_t nb, nbcols;
  int64_t *bptr;
  int32_t *bcol, *len;
} pattern;

static void pattern_free(pattern *p) {
  free(p->bptr);
  free(p->bcol);
  free(p->len);
  memset(p, 0, sizeof *p);
}

static cgm_status pattern_make(const cgm_csr *A, int n, pattern *p, cgm_error *err) {
  memset(p, 0, sizeof *p);
  p->n = n;
  p->avg_row = A->nrows > 0 ? (double)A->nnz / A->nrows : 0.0;
  p->rows = A->nrows;
  p->nb = (int32_t)(((int64_t)A->nrows + n - 1) / n);
  p->nbcols = (int32_t)(((int64_t)A->ncols + n - 1) / n);
  cgm_status st = cgm_block_pattern(A, n, &p->bptr, &p->bcol, err);
  if (st) return st;
  p->len = malloc(((size_t)p->nb + 1) * sizeof *p->len);
  if (!p->len) {
    pattern_free(p);
    return cgm_fail(err, CGM_ERUNTIME, "out of memory");
  }
  for (int32_t b = 0; b < p->nb; b++) p->len[b] = (int32_t)(p->bptr[b + 1] - p->bptr[b]);
  return CGM_OK;
}

/* The longest walk of one SpMV thread: the longest block row over B_x. */
static int32_t longest_walk(const int32_t *len, int32_t count, int bx) {
  int32_t m = 0;
  for (int32_t i = 0; i < count; i++)
    if (len[i] > m) m = len[i];
  return (m + bx - 1) / bx;
}

/* The walks of those rows, summed. */
static double total_walk(const int32_t *len, int32_t count, int bx) {
  double s = 0.0;
  for (int32_t i = 0; i < count; i++) s += (len[i] + bx - 1) / bx;
  return s;
}

/* The shapes of (gpus, mode) from a pattern. */
static cgm_status shapes(const pattern *pt, int gpus, cgm_exchange mode, cgm_tuner_segment *seg,
                         int64_t *exchange_elems, cgm_error *err) {
  const int n = pt->n;
  int32_t bounds[CGM_MAX_PARTS + 1];
  const cgm_bcsr_params p = cgm_bcsr_params_choose(n, pt->avg_row, (pt->rows + gpus - 1) / gpus);
  cgm_status st = cgm_partition_lengths(pt->len, pt->nb, gpus, cgm_partition_align(n), bounds, err);
  if (st) return st;
  int64_t halo_total = 0, rows_total = (int64_t)bounds[gpus] * n;
  int32_t *sub = NULL;
  unsigned char *bnd = NULL;
  if (gpus > 1 && mode == CGM_EXCHANGE_HALO) {
    sub = malloc(((size_t)pt->nb + 1) * sizeof *sub);
    bnd = malloc((size_t)pt->nb + 1);
    if (!sub || !bnd) {
      free(sub);
      free(bnd);
      return cgm_fail(err, CGM_ERUNTIME, "out of memory");
    }
  }
  for (int g = 0; g < gpus && !st; g++) {
    const int32_t b0 = bounds[g], b1 = bounds[g + 1], nrow = b1 - b0;
    cgm_tuner_segment *s = &seg[g];
    memset(s, 0, sizeof *s);
    s->rows = (int64_t)nrow * n;
    s->max_row = longest_walk(pt->len + b0, nrow, p.bx);
    /* over all its rows: with the halo, the interior's and the boundary's together */
    s->mean_row = nrow > 0 ? total_walk(pt->len + b0, nrow, p.bx) / nrow : 0.0;
    if (gpus == 1 || mode != CGM_EXCHANGE_HALO) {
      s->blocks_padded = cgm_bcsr_padded_count(pt->len + b0, nrow, p);
      s->nslices = (nrow + p.by - 1) / p.by;
      s->slots = s->nslices * p.by;
      s->halo_rows = gpus == 1 ? 0 : rows_total - s->rows; /* the whole vector beside */
      continue;
    }
    /* Interior and boundary rows, each its own layout. */
    int32_t nhalo = 0;
    if ((st = cgm_halo_sizes(pt->bptr, pt->bcol, pt->nbcols, bounds, gpus, g, &nhalo, bnd, err)))
      break;
    int32_t ni = 0, nbd = 0;
    for (int32_t b = 0; b < nrow; b++)
      if (!bnd[b]) sub[ni++] = pt->len[b0 + b];
    for (int32_t b = 0; b < nrow; b++)
      if (bnd[b]) sub[ni + nbd++] = pt->len[b0 + b];
    int64_t pa = cgm_bcsr_padded_count(sub, ni, p), pb = cgm_bcsr_padded_count(sub + ni, nbd, p);
    int32_t sa = (ni + p.by - 1) / p.by, sb = (nbd + p.by - 1) / p.by;
    s->blocks_padded = pa + pb;
    /* The interior and the boundary rows are two SpMV launches, one after
     * the other: their longest rows are walked in turn. */
    s->max_row = longest_walk(sub, ni, p.bx) + longest_walk(sub + ni, nbd, p.bx);
    s->nslices = sa + sb + (sa && sb ? 1 : 0); /* two layouts: one more offset */
    s->slots = (int64_t)(sa + sb) * p.by;
    s->halo_rows = (int64_t)nhalo * n;
    halo_total += s->halo_rows;
  }
  free(sub);
  free(bnd);
  if (st) return st;
  *exchange_elems =
      cgm_exchange_elements(mode, gpus, rows_total, cgm_chunk_rows(bounds, gpus, n), halo_total);
  return CGM_OK;
}

cgm_status cgm_tuner_shapes(const cgm_csr *A, int n, int gpus, cgm_exchange mode,
                            cgm_tuner_segment *seg, int64_t *exchange_elems, cgm_error *err) {
  pattern pt;
  cgm_status st = pattern_make(A, n, &pt, err);
  if (st) return st;
  st = shapes(&pt, gpus, mode, seg, exchange_elems, err);
  pattern_free(&pt);
  return st;
}

cgm_segment_shape cgm_tuner_segment_shape(const cgm_tuner_segment *s, int n, int width) {
  cgm_segment_shape m = {s->rows,
                         cgm_spmv_bytes(s->blocks_padded, s->slots, s->nslices, n, s->rows, width),
                         s->max_row, s->mean_row};
  return m;
}

/* Adds one candidate. */
static cgm_status push(cgm_candidate **v, int *n, int *cap, const cgm_candidate *c,
                       cgm_error *err) {
  cgm_candidate *nv = cgm_grow(*v, *n, cap, sizeof *nv, 64);
  if (!nv) return cgm_fail(err, CGM_ERUNTIME, "out of memory listing configurations");
  *v = nv;
  (*v)[(*n)++] = *c;
  return CGM_OK;
}

static double flops(double e, double x) {
  return 2.0 * e + 15.0 * x;
} /* Eq. 6 and 8 */

cgm_status cgm_tuner_candidates(const cgm_csr *A, const cgm_features *f,
                                const cgm_tuner_device *devs, int ndev, const cgm_tuner_opts *o,
                                cgm_candidate **out, int *count, cgm_error *err) {
  *out = NULL;
  *count = 0;
  int cap = 0;
  cgm_status st = CGM_OK;
  int maxg_all = 1;
  for (int d = 0; d < ndev; d++)
    if (!devs[d].is_cpu && devs[d].gpus > maxg_all) maxg_all = devs[d].gpus;
  if (o->max_gpus > 0 && o->max_gpus < maxg_all) maxg_all = o->max_gpus;
  if (maxg_all > CGM_MAX_PARTS) maxg_all = CGM_MAX_PARTS;
  const double x = f->x, nnz = (double)f->nnz;
  for (int bi = 0; bi < CGM_NBLOCKSIZES && !st; bi++) {
    const int n = cgm_block_sizes[bi];
    if (o->block && o->block != n) continue;
    const double e = (double)f->block[bi].elements;
    pattern pt;
    if ((st = pattern_make(A, n, &pt, err))) break;
    for (int G = 1; G <= maxg_all && !st; G++)
      for (int ex = 0; ex < 4 && !st; ex++) {
        if (G == 1 ? ex != CGM_EXCHANGE_HALO : !(o->exchanges & (1u << ex))) continue;
        cgm_tuner_segment sg[CGM_MAX_PARTS];
        int64_t xe = 0;
        cgm_error e2 = {0};
        if (shapes(&pt, G, (cgm_exchange)ex, sg, &xe, &e2))
          continue; /* too few block rows for G segments: not a candidate */
        for (int d = 0; d < ndev && !st; d++) {
          const cgm_tuner_device *dv = &devs[d];
          if (dv->is_cpu ? G > 1 : G > dv->gpus) continue;
          for (int pr = 0; pr < 2 && !st; pr++) {
            if (!(o->precisions & (1u << pr)) || !dv->have[pr]) continue;
            const int w = pr == CGM_PREC_SINGLE ? 4 : 8;
            cgm_segment_shape segs[CGM_MAX_PARTS];
            int64_t mem = 0;
            for (int g = 0; g < G; g++) {
              segs[g] = cgm_tuner_segment_shape(&sg[g], n, w);
              int64_t m = cgm_footprint_bytes((sg[g].rows + 3) / 4 * 4, sg[g].blocks_padded,
                                              sg[g].slots, n, (cgm_precision)pr, sg[g].halo_rows);
              if (m > mem) mem = m;
            }
            cgm_candidate c;
            memset(&c, 0, sizeof c);
            c.device = d;
            c.backend = dv->is_cpu ? CGM_BACKEND_CPU : CGM_BACKEND_CUDA;
            c.precision = (cgm_precision)pr;
            c.block = n;
            c.gpus = dv->is_cpu ? 0 : G;
            c.exchange = (cgm_exchange)ex;
            c.exchange_bytes = (double)xe * w;
            c.time_per_iter_s =
                o->paper
                    ? cgm_paper_device_time(&dv->paper[pr], n, x, e, G, ex != CGM_EXCHANGE_HOST)
                    : cgm_refined_time(&dv->model[pr], n, G, ex, segs, c.exchange_bytes);
            c.gflops_raw = flops(e, x) / c.time_per_iter_s * 1e-9;
            c.gflops_real = flops(nnz, x) / c.time_per_iter_s * 1e-9;
            c.memory_bytes = mem;
            c.fits = dv->is_cpu || dv->mem_bytes <= 0 || mem <= dv->mem_bytes;
            c.speedup = NAN;
            st = push(out, count, &cap, &c, err);
          }
        }
      }
    pattern_free(&pt);
  }
  /* The cuSPARSE baseline: CSR on one GPU, no block size. */
  for (int d = 0; d < ndev && !st && o->cusparse; d++) {
    const cgm_tuner_device *dv = &devs[d];
    if (dv->is_cpu) continue;
    for (int pr = 0; pr < 2 && !st; pr++) {
      if (!(o->precisions & (1u << pr)) || !dv->have[pr] || !dv->model[pr].have_cusparse) continue;
      const int w = pr == CGM_PREC_SINGLE ? 4 : 8;
      cgm_candidate c;
      memset(&c, 0, sizeof c);
      c.device = d;
      c.backend = CGM_BACKEND_CUSPARSE;
      c.precision = (cgm_precision)pr;
      c.block = 1;
      c.gpus = 1;
      c.time_per_iter_s = cgm_refined_cusparse_time(&dv->model[pr], f->nnz, f->x);
      c.gflops_raw = c.gflops_real = flops(nnz, x) / c.time_per_iter_s * 1e-9;
      c.memory_bytes = (int64_t)(nnz * (w + 4) + 4.0 * (x + 1) + 6.0 * x * w);
      c.fits = dv->mem_bytes <= 0 || c.memory_bytes <= dv->mem_bytes;
      c.speedup = 1.0;
      st = push(out, count, &cap, &c, err);
    }
  }
  if (st) {
    free(*out);
    *out = NULL;
    *count = 0;
    return st;
  }
  /* Speed-up over one GPU of the same device, block and precision. */
  for (int i = 0; i < *count; i++) {
    cgm_candidate *c = &(*out)[i];
    if (c->backend != CGM_BACKEND_CUDA) {
      if (c->backend == CGM_BACKEND_CPU) c->speedup = 1.0;
      continue;
    }
    for (int j = 0; j < *count; j++) {
      const cgm_candidate *b = &(*out)[j];
      if (b->backend == CGM_BACKEND_CUDA && b->gpus == 1 && b->device == c->device &&
          b->block == c->block && b->precision == c->precision)
        c->speedup = b->time_per_iter_s / c->time_per_iter_s;
    }
  }
  return CGM_OK;
}

int cgm_tuner_choose(const cgm_candidate *c, int count, const cgm_tuner_device *devs, char *why,
                     size_t nwhy) {
  int best = -1;
  for (int i = 0; i < count; i++) {
    if (!c[i].fits || !isfinite(c[i].time_per_iter_s)) continue;
    if (best < 0) {
      best = i;
      continue;
    }
    double tb = c[best].time_per_iter_s, ti = c[i].time_per_iter_s;
    /* Within 1%: fewer GPUs win (the CPU counts as none). */
    if (ti < tb * 0.99 || (ti <= tb * 1.01 && c[i].gpus < c[best].gpus)) best = i;
  }
  if (why && nwhy) {
    if (best < 0) {
      int big = 0, nocurve = 0;
      for (int i = 0; i < count; i++) {
        if (!c[i].fits)
          big++;
        else if (!isfinite(c[i].time_per_iter_s))
          nocurve++;
      }
      if (count == 0)
        snprintf(why, nwhy,
                 "no configuration to run: no calibrated device has curves for the "
                 "precision and backends asked (cgmodel calibrate --precision ...)");
      else
        snprintf(
            why, nwhy,
            "no configuration to run: %d of %d do not fit in memory, %d have no converged curve "
            "in their calibration (cgmodel db show ID lists the fits)",
            big, count, nocurve);
    } else {
      const cgm_candidate *b = &c[best];
      /* The runner-up with a different GPU count tells why this count. */
      int alt = -1;
      for (int i = 0; i < count; i++)
        if (i != best && c[i].fits && isfinite(c[i].time_per_iter_s) && c[i].gpus != b->gpus &&
            (alt < 0 || c[i].time_per_iter_s < c[alt].time_per_iter_s))
          alt = i;
      char target[160];
      if (b->backend == CGM_BACKEND_CPU)
        snprintf(target, sizeof target, "the CPU");
      else if (b->gpus > 1)
        snprintf(target, sizeof target, "%d x %.100s (%s exchange)", b->gpus, devs[b->device].name,
                 cgm_exchange_name(b->exchange));
      else
        snprintf(target, sizeof target, "1 x %.100s", devs[b->device].name);
      char tail[200] = "", who[32];
      if (alt >= 0) {
        if (c[alt].backend == CGM_BACKEND_CPU)
          snprintf(who, sizeof who, "the CPU");
        else
          snprintf(who, sizeof who, "%d GPU%s", c[alt].gpus, c[alt].gpus > 1 ? "s" : "");
        snprintf(tail, sizeof tail, "; the best on %s would take %.3g us (%.2fx)", who,
                 1e6 * c[alt].time_per_iter_s, c[alt].time_per_iter_s / b->time_per_iter_s);
      }
      /* "the CPU, single precision, 8x8 blocks: ...", "1 x H200, cusparse, ..." */
      char backend[40] = "";
      if (b->backend != CGM_BACKEND_CPU)
        snprintf(backend, sizeof backend, "%s, ", cgm_backend_name(b->backend));
      snprintf(why, nwhy, "%s, %s%s precision, %dx%d blocks: %.3g us per iteration predicted%s",
               target, backend, cgm_precision_name(b->precision), b->block, b->block,
               1e6 * b->time_per_iter_s, tail);
    }
  }
  return best;
}
