/* SPDX-License-Identifier: GPL-3.0-or-later */
#define _DEFAULT_SOURCE /* M_LN2 */
/* The refined model (docs/model.md): Eqs. 4 and 9 with every term Eq. 5 over the bytes it really
 * moves (each GPU's padded layout and rows), or one curve over a whole iteration's bytes where
 * calibrated, bounded below by the longest row's walk; several GPUs add their exchange's curve. */
#include <math.h>

#include "cgmodel/model.h"

double cgm_spmv_bytes(int64_t blocks_padded, int64_t slots, int64_t nslices, int n, int64_t rows,
                      int width) {
  return (double)blocks_padded * ((double)n * n * width + 4.0) + 4.0 * (double)slots +
         8.0 * (double)(nslices + 1) + 2.0 * (double)rows * width;
}

double cgm_iter_bytes(double spmv_bytes, int64_t rows, int width) {
  return spmv_bytes + (double)(CGM_CG4_PASSES + CGM_CG5_PASSES) * (double)rows * width;
}

double cgm_row_elements(int32_t max_row, int n) {
  return (double)max_row * n * n;
}

double cgm_cusparse_bytes(int64_t nnz, int64_t x, int width) {
  return (double)nnz * (width + 4.0) + 4.0 * (double)(x + 1) + 21.0 * (double)x * width;
}

/* Eq. 5, made monotone: with sigma ln 2 < 1 it has a minimum at log2 m* =
 * mu - sigma ln E, E = sigma ln 2 / (1 - sigma ln 2), under which it says
 * less data takes longer; T(max(m, m*)) is the latency floor. */
static double t_floor(const cgm_sigmoid *s, double m, double width) {
  const double k = s->sigma * M_LN2;
  if (k < 1.0 && k > 0.0) {
    double mstar = exp2(s->mu - s->sigma * log(k / (1.0 - k)));
    if (m < mstar) m = mstar;
  }
  return cgm_sigmoid_time(s, m, width);
}

/* Eq. 5 over bytes: T = bytes / B(bytes / width). */
static double t_bytes(const cgm_sigmoid *s, double bytes, double width) {
  return bytes > 0 ? t_floor(s, bytes / width, width) : 0.0;
}

/* A curve with its optional second regime past split_m, or its samples' interpolation. */
static double t_curve(const cgm_sigmoid *s, const cgm_regime *r, double bytes, double width) {
  if (!(bytes > 0)) return 0.0;
  double m = bytes / width;
  if (r && r->pts.n > 0) return cgm_points_time(&r->pts, m);
  if (r && r->have && m > r->split_m) return cgm_sigmoid_time(&r->hi, m, width);
  return t_floor(s, m, width);
}

double cgm_x_extra_bytes(double coef, const cgm_segment_shape *s, int width) {
  const double extra = s->x_sector_bytes - (double)s->rows * width;
  return s->x_sector_bytes > 0 && extra > 0 && coef > 0 ? coef * extra : 0.0;
}

cgm_segment_shape cgm_refined_shape(const cgm_plan *p, int g) {
  const cgm_plan_segment *s = &p->seg[g];
  const int n = p->o.layout.n, bx = p->o.layout.bx > 0 ? p->o.layout.bx : 1;
  const int w = cgm_precision_width(p->o.precision);
  cgm_segment_shape sh = {.rows = s->rows, .bx = bx, .f32 = p->o.values == CGM_VALUES_F32};
  sh.x_sector_bytes = 32.0 * (double)s->x_sectors[w == 8 ? 0 : 1];
  sh.row_scatter = s->row_scatter[w == 8 ? 0 : 1];
  sh.warp_share = s->warp_share[w == 8 ? 0 : 1];
  sh.long_sector_bytes = 32.0 * (double)s->long_x_sectors[w == 8 ? 0 : 1];
  int64_t brows = 0, walk = 0;
  for (int k = 0; k < s->nparts; k++) {
    const cgm_plan_layout *L = &s->part[k];
    if (L->brows == 0) continue;
    /* each layout's blocks, result rows and slice offsets; the gathered
     * vector and the result once for the segment (below) */
    const int by = L->long_rows ? 1 : p->o.layout.by, lbx = L->long_rows ? 1 : bx;
    sh.spmv_bytes +=
        cgm_spmv_bytes(L->blocks_padded, (int64_t)L->nslices * by, L->nslices, n, 0, w) -
        (L->long_rows ? 0.0
                      : (double)L->blocks_padded *
                            (n * n * w - cgm_values_block_bytes(p->o.values, n, p->o.precision)));
    /* the walks of every layout add: the interior and boundary launches run in turn, and the long
     * rows' kernel beside the short rows' priced power-law graphs 17% fast with the longer walk
     * alone, 11% with the sum (two H200 validations, 2026-11-28) */
    sh.max_row += (L->max_row + lbx - 1) / lbx;
    const int S = by * lbx * n * CGM_SPMV_SPLIT(w, n, lbx),
              spb = S < CGM_SPMV_THREADS ? CGM_SPMV_THREADS / S : 1;
    sh.long_rows |= L->long_rows;
    if (!L->long_rows) sh.spmv_blocks += (L->nslices + spb - 1) / spb; /* spmv.cu's grid */
    brows += L->brows;
    walk += L->walk;
  }
  sh.spmv_bytes += 2.0 * (double)s->rows * w;
  sh.mean_row = brows > 0 ? (double)walk / (double)brows : 0.0;
  return sh;
}

/* A curve at its foot (cgm_device_model). Under the smallest size timed: a CPU's time there scaled
 * by the bytes, a GPU's (floor) that time itself. Over it, the fit corrected by the foot's
 * measured-to-fitted ratio, fading out over two octaves, never under the foot's time. */
static double t_foot(const cgm_sigmoid *s, const cgm_regime *r, double bytes, double width,
                     const cgm_foot *f, bool floor) {
  const double m = bytes / width;
  if (!(f->m > 0 && f->t > 0 && m > 0)) return t_curve(s, r, bytes, width);
  if (m <= f->m) return floor ? f->t : f->t * (m / f->m);
  double t = t_curve(s, r, bytes, width);
  const double fade = log2(m / f->m) / 2.0, at = t_curve(s, r, f->m * width, width);
  /* a fit over the foot comes down to it; a GPU's under it is raised */
  if (fade < 1.0 && (floor ? at > 0 : at > f->t)) t *= pow(f->t / at, 1.0 - fade);
  return t > f->t ? t : f->t;
}

/* An iteration as the sum of its kernels' curves. */
static double t_kernels(const cgm_device_model *m, int bi, double spmv, double rows) {
  const double w = m->width;
  return t_foot(&m->spmv[bi], &m->spmv_hi[bi], spmv, w, &m->spmv_foot[bi], false) +
         t_foot(&m->cg4, &m->cg4_hi, CGM_CG4_PASSES * rows * w, w, &m->cg4_foot, false) +
         t_foot(&m->cg5, &m->cg5_hi, CGM_CG5_PASSES * rows * w, w, &m->cg5_foot, false);
}

/* What a CPU's iteration of `rows` rows (q transactions) takes beyond its kernels' sum, by the
 * grids timed (rows in P->r) of its team's side (one thread, no fork and no barrier; or more): the
 * solver's steps and vectors, which grow with the rows, not the SpMV's bytes. Linear in log rows
 * between two grids, the smallest's under it (fixed), per row past the largest. NAN: no rows; or
 * under the second grid's rows and over the smallest's bytes, which the grids' line in bytes prices
 * (the kernels' feet there scale their fixed costs away with the bytes: docs/model.md). */
static double iter_over(const cgm_device_model *m, int bi, double rows, double q) {
  const cgm_iter_points *P = &m->cpu_iter[bi];
  double r[CGM_ITER_POINTS], o[CGM_ITER_POINTS];
  double lo[2] = {INFINITY, INFINITY}; /* of every grid, the least rows and the second least */
  int n = 0;                           /* the grids of its side */
  const bool one = rows < 2 * CGM_CPU_TEAM_ROWS; /* 494 rows priced toward 512's team of 2: 2.5x */
  for (int i = 0; i < P->n; i++) { /* by rows: a 2D grid may have more than a 3D one */
    if (!(P->r[i] > 0)) continue;
    lo[1] = fmin(lo[1], fmax(lo[0], P->r[i])), lo[0] = fmin(lo[0], P->r[i]);
    if ((P->r[i] < 2 * CGM_CPU_TEAM_ROWS) != one) continue;
    const double spmv = (P->m[i] - (CGM_CG4_PASSES + CGM_CG5_PASSES) * P->r[i]) * m->width;
    int k = n++;
    for (; k > 0 && r[k - 1] > P->r[i]; k--) r[k] = r[k - 1], o[k] = o[k - 1];
    r[k] = P->r[i];
    o[k] = P->t[i] - t_kernels(m, bi, spmv, P->r[i]);
  }
  if (n == 0 || (isfinite(lo[1]) && rows < lo[1] && q > P->m[0])) return NAN;
  if (rows <= r[0]) return o[0];
  for (int k = 1; k < n; k++)
    if (rows <= r[k])
      return o[k - 1] + (o[k] - o[k - 1]) * log(rows / r[k - 1]) / log(r[k] / r[k - 1]);
  return o[n - 1] * rows / r[n - 1];
}

/* One thread's iteration (N = 1, under 2 CGM_CPU_TEAM_ROWS rows: no fork, no barrier) past the
 * smallest grid of one thread, by those grids alone: a straight line in its transactions q between
 * two, the last two's rate past the largest. The SpMV curve over such bytes is of two threads'
 * sweeps, and a matrix of long rows went by the line of every grid, toward the 512-row grid's team
 * of two: bcsstk06 (420 rows of 19) 13.0 us against 7.8 measured (docs/accuracy.md). NAN under the
 * smallest (its fixed costs: iter_over) or with fewer than two such grids. */
static double one_thread_line(const cgm_iter_points *P, double q) {
  double lq[2] = {0, 0}, lt[2] = {0, 0}; /* the two grids around q, or the last two */
  int n = 0;
  for (int i = 0; i < P->n && !(n >= 2 && q <= lq[1]); i++) { /* by transactions, ascending */
    if (!(P->r[i] > 0) || P->r[i] >= 2 * CGM_CPU_TEAM_ROWS) continue;
    if (n++ == 0 && q <= P->m[i]) return NAN;
    lq[0] = lq[1], lt[0] = lt[1], lq[1] = P->m[i], lt[1] = P->t[i];
  }
  return n < 2 ? NAN : lt[0] + (lt[1] - lt[0]) * (q - lq[0]) / (lq[1] - lq[0]);
}

double cgm_iter_points_time(const cgm_device_model *m, int bi, double spmv, int64_t rows, int bx) {
  if (bi < 0 || bi >= CGM_NBLOCKSIZES) return NAN;
  const double q = cgm_iter_bytes(spmv, rows, (int)m->width) / m->width;
  if (bi == 0 && rows < 2 * CGM_CPU_TEAM_ROWS) {
    const double t = one_thread_line(&m->cpu_iter[0], q);
    if (t > 0) return t;
  }
  /* The kernels' sum plus what the grids took beyond theirs at as many rows
   * (by the bytes alone, long-row meshes were priced 13-40% fast at N = 2, 4:
   * docs/model.md). The SpMV curve is of grids at B_x = 1: more lanes a row
   * (N = 1, long rows) keep the grids' line over the iteration's bytes. */
  const double o = bx <= 1 && m->cpu_iter[bi].n > 0 ? iter_over(m, bi, (double)rows, q) : NAN;
  const double tk = t_kernels(m, bi, spmv, (double)rows);
  /* never under half the sum: a grid timed fast by chance */
  if (!isnan(o)) return tk + o > 0.5 * tk ? tk + o : 0.5 * tk;
  const cgm_iter_points *P = &m->cpu_iter[bi];
  if (P->n < 1 || !(q > 0)) return tk;
  /* under the smallest size timed: the kernels' sum plus what the iteration there took beyond its
   * kernels (the solver's own steps, fixed a iteration), never over the time there */
  if (q <= P->m[0]) {
    const double s = P->m[0] / q;
    const double over = P->t[0] - t_kernels(m, bi, spmv * s, (double)rows * s);
    const double t = tk + (over > 0 ? over : 0.0);
    return t < P->t[0] ? t : P->t[0];
  }
  /* between two sizes timed: a straight line in log-log */
  if (q <= P->m[P->n - 1]) return cgm_points_time(P, q);
  /* over the largest: the kernels' sum, times the ratio the largest size measured against it (the
   * same shape, scaled to that size), the ratio fading out over two octaves */
  const double top = P->m[P->n - 1], s = top / q, fade = log2(q / top) / 2.0;
  const double at = t_kernels(m, bi, spmv * s, (double)rows * s);
  return fade < 1.0 && at > 0 ? tk * pow(P->t[P->n - 1] / at, 1.0 - fade) : tk;
}

/* An iteration of segment s whose SpMV moves spmv bytes, by its bandwidth curves. */
static double t_stream(const cgm_device_model *m, int bi, double spmv, const cgm_segment_shape *s) {
  const double ib = cgm_iter_bytes(spmv, s->rows, (int)m->width);
  if (s->f32 && m->have_iterc[bi]) /* f32 values, as the solver runs them */
    return t_foot(&m->iterc[bi], &m->iterc_hi[bi], ib, m->width, &m->iterc_foot[bi], true);
  if (m->have_iter[bi]) /* the whole iteration, measured as the solver runs it */
    return t_foot(&m->iter[bi], &m->iter_hi[bi], ib, m->width, &m->iter_foot[bi], true);
  if (m->cpu_iter[bi].n > 0) /* a CPU's iterations, timed through its solver */
    return cgm_iter_points_time(m, bi, spmv, s->rows, s->bx);
  return t_kernels(m, bi, spmv, (double)s->rows);
}

double cgm_gather_rate(const cgm_device_model *m, int64_t rows) {
  if (!m->have_gather_bw || !(m->gather_bw > 0)) return 0.0;
  if (!m->have_gather_small || !(m->gather_bw_small > 0) || rows >= CGM_GATHER_ROWS)
    return m->gather_bw;
  if (m->gather_cached) {
    /* A random gather from r rows misses a cache of R rows' worth in a share 1 - R / r of its
     * reads: the cost a byte a - b / r through both sizes, none where x fits (docs/model.md, "A
     * CPU's gathers"); never over the dearer size's under it. */
    const double c1 = 1.0 / m->gather_bw, c2 = 1.0 / m->gather_bw_small;
    const double c = c1 + (c2 - c1) * (1.0 / (double)rows - 1.0 / CGM_GATHER_ROWS) /
                              (1.0 / CGM_GATHER_ROWS_SMALL - 1.0 / CGM_GATHER_ROWS);
    return c > 0 ? 1.0 / fmin(c, fmax(c1, c2)) : 0.0;
  }
  if (rows <= CGM_GATHER_ROWS_SMALL) return m->gather_bw_small;
  const double f = log((double)rows / CGM_GATHER_ROWS_SMALL) /
                   log((double)CGM_GATHER_ROWS / CGM_GATHER_ROWS_SMALL);
  return m->gather_bw_small * pow(m->gather_bw / m->gather_bw_small, f);
}

double cgm_refined_segment_time(const cgm_device_model *m, int n, const cgm_segment_shape *s) {
  int bi = cgm_block_index(n);
  if (bi < 0 || !(m->have_iter[bi] || (m->have_spmv[bi] && m->have_vec))) return NAN;
  const double w = m->width;
  /* the gathers of x as the slices read them, where the locality term is
   * calibrated: scattered columns move a sector for every few entries */
  const double spmv =
      s->spmv_bytes + (m->have_x_coef ? cgm_x_extra_bytes(m->x_coef, s, (int)w) : 0.0);
  double t = t_stream(m, bi, spmv, s);
  /* Where x is gathered at random (a sector a nonzero), the fetches set the SpMV's time: stream and
   * gathers combined in quadrature over the vectors' time (a 1M-row random matrix on an H100: 137
   * us, the bytes said 85). A mesh's gathers hide under its stream. A CPU's core waits on its
   * misses between its streamed loads: there they add. */
  const double gbw = cgm_gather_rate(m, s->rows);
  if (gbw > 0 && s->x_sector_bytes > 0) {
    const double tv = t_stream(m, bi, 0.0, s), ts = t_stream(m, bi, s->spmv_bytes, s);
    const double tg = m->gather_cached
                          ? ts + s->x_sector_bytes / gbw
                          : tv + hypot(ts > tv ? ts - tv : 0.0, s->x_sector_bytes / gbw);
    if (tg > t) t = tg;
  }
  /* One thread walks the longest block row: its chain of dependent loads is a floor no bandwidth
   * shortens. Alone it walks at the row curve's pace, with every thread walking as long at the band
   * curve's; between, by the segment's walking against the band's (its load). */
  const double L = s->max_row;
  if (L > 0 && (m->have_row[bi] || m->have_band[bi])) {
    const double e = cgm_row_elements(s->max_row, n) * w;
    /* the segment's walking against the band's (its load), and as a share */
    const double load = (double)s->rows * s->mean_row / (CGM_BAND_ROWS * L);
    double f = load > 1.0 ? 1.0 : (load > 0.0 ? load : 0.0);
    /* A warp of scattered walkers walks at the band's pace however few
     * warps walk: by row_scatter^2 x warp_share, where calibrated. */
    const double fs = s->row_scatter * s->row_scatter * s->warp_share;
    if (m->have_scatter_coef[bi] && fs > f) f = fs;
    /* the band never lowers the floor (extrapolated past CGM_LONG_ROW it
     * may fall under the row curve) */
    const double ta = m->have_row[bi] ? t_curve(&m->row[bi], &m->row_hi[bi], e, w) : 0.0;
    const double tb = m->have_band[bi] ? t_curve(&m->band[bi], &m->band_hi[bi], e, w) : 0.0;
    double tr = ta + f * (tb > ta ? tb - ta : 0.0);
    /* More walking than the band's puts more walking warps on each SM:
     * the band-load fraction, by the logarithm of the load. */
    if (m->have_band_load[bi] && m->have_band[bi] && load > 1.0)
      tr += m->band_load[bi] * tb * fmin(log(load) / log((double)CGM_BAND_LOAD_WIDTH), 2.0);
    /* A row that reads x out of order walks slower: the scattered arrows'
     * extra a step by its scatter, towards the scattered bands' by its
     * warp's share (a step waits for all their lines). */
    if (m->have_row[bi] && m->have_scatter_coef[bi] && s->row_scatter > 0) {
      const double ca = m->scatter_coef[bi],
                   cb = m->have_band_scatter_coef[bi] ? m->band_scatter_coef[bi] : ca;
      tr += s->row_scatter * (ca + s->warp_share * (cb - ca)) * L;
    }
    /* The row curve starts at the arrows' own iteration (4096 rows): a
     * shorter iteration walks over its own, the curve's base taken off. */
    const cgm_foot *rf = &m->row_foot[bi];
    if (m->have_row[bi] && rf->m > 0) {
      const double base = t_curve(&m->row[bi], &m->row_hi[bi], rf->m * w, w);
      if (base > t) tr -= base - t;
    }
    /* Past one wave of blocks each walks its slice groups in turn, a group's walk after the last
     * one's stream: the two add as the gathers do (the stream over the vectors' time, the walk over
     * the band's own), not as a maximum; long rows walk in a kernel beside, not queued. P1
     * tetrahedra at N = 2, 4 on an H200: 23-25% fast -> 2-6% (docs/accuracy.md). */
    if (m->sms > 0 && !s->long_rows && s->spmv_blocks > (int64_t)m->sms * CGM_SPMV_BLOCKS_PER_SM) {
      const double tv = t_stream(m, bi, 0.0, s);
      const double tf = t_stream(m, bi, 0.0, &(cgm_segment_shape){.rows = CGM_BAND_ROWS});
      const double tq = tv + hypot(fmax(t - tv, 0.0), fmax(tr - tf, 0.0));
      if (tq > tr) tr = tq;
    }
    if (tr > t) t = tr;
  }
  /* The long rows' gathers wait on the same L2 as the MBR kernel's beside
   * them, so a hub's come after the rest: a second charge at the gather
   * rate (power-law graphs on an H200: 16.1% -> 10.9% average error). */
  if (gbw > 0 && s->long_sector_bytes > 0) t += s->long_sector_bytes / gbw;
  return t;
}

double cgm_refined_time(const cgm_device_model *m, const cgm_plan *p) {
  const int G = p->nseg, n = p->o.layout.n;
  if (G < 1 || G > CGM_MAX_GPUS) return NAN;
  double worst = 0.0;
  for (int g = 0; g < G; g++) {
    const cgm_segment_shape s = cgm_refined_shape(p, g);
    const double t = cgm_refined_segment_time(m, n, &s);
    if (isnan(t)) return NAN;
    if (t > worst) worst = t;
  }
  if (G == 1) return worst;
  const int ex = (int)p->o.exchange;
  if (ex < 0 || ex >= CGM_NEXCHANGES || !m->have_xfer[ex][G]) return NAN;
  /* the exchange's curve includes the cross-GPU synchronisation */
  const double w = m->width;
  double b = (double)p->exchange_elems * w;
  if (b < w) b = w;
  double t = t_bytes(&m->xfer[ex][G], b, w);
  /* A halo's bytes cross the peer links that p2p's whole vectors do, which its sweep times up to
   * 134 MB; the halo sweep's grids reach 1 MB, where the bytes are microseconds beside the
   * synchronisation and its fitted rate is not determined. So a halo costs at most its curve's
   * floor plus p2p's time for its bytes: by its own curve alone a power-law graph's 17.6 MB halo on
   * 2 H200s was priced 190-270 us, measured about 45. */
  if (ex == CGM_EXCHANGE_HALO && m->have_xfer[CGM_EXCHANGE_P2P][G]) {
    const double via =
        t_bytes(&m->xfer[ex][G], w, w) + t_bytes(&m->xfer[CGM_EXCHANGE_P2P][G], b, w);
    if (via < t) t = via;
  }
  return worst + t;
}

double cgm_refined_cusparse_time(const cgm_device_model *m, int64_t nnz, int64_t x) {
  if (!m->have_cusparse) return NAN;
  return t_bytes(&m->cusparse, cgm_cusparse_bytes(nnz, x, (int)m->width), m->width);
}

double cgm_paper_device_time(const cgm_device_model *m, int n, double x, double e, int gpus,
                             bool direct) {
  int bi = cgm_block_index(n);
  if (bi < 0 || !m->have_spmv[bi] || !m->have_vec) return NAN;
  const cgm_sigmoid red = m->have_red ? m->red : m->cg5;
  cgm_paper_params p = {
      .cg2 = red, .cg3 = red, .cg4 = m->cg4, .cg5 = m->cg5, .red = red, .width = m->width};
  for (int b = 0; b < 4; b++) p.spmv[b] = m->spmv[b];
  if (gpus <= 1) return cgm_paper_time(&p, n, x, e);
  int ex = direct ? CGM_EXCHANGE_P2P : CGM_EXCHANGE_HOST;
  if (gpus > CGM_MAX_GPUS || !m->have_xfer[ex][gpus]) return NAN;
  p.idc = m->xfer[ex][gpus];
  return cgm_paper_time_parallel(&p, n, x, e, gpus, direct);
}
