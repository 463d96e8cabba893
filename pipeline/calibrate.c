/* SPDX-License-Identifier: GPL-3.0-or-later */
/* cgmodel calibrate: sweeps -> Eq. 3 fits -> database.
 *
 * Groups of samples (kernel, variant, precision, block) get an average and a
 * maximum fit (Table 3). The SpMV gets two more groups: "all" (dense-block and
 * realistic matrices together) and "mesh" (those of them on Poisson grids,
 * blocked or not: short rows of local columns), the size-to-throughput curve
 * the refined model falls back on: its byte count reads x once, as a mesh's
 * local columns do; scattered columns, power-law rows and the 41-81-entry
 * rows of elasticity run slower than any bandwidth curve over bytes says,
 * which the row-walk and band curves model (docs/model.md). Whole
 * multi-GPU iterations ("mgpu") become exchange samples ("xfer"): the
 * iteration time minus what the single-GPU curves predict for the slowest
 * segment, over the bytes the mode moves. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "cgmodel/cgmodel.h"
#include "cgmodel/pipeline.h"
#include "common/timer.h"
#include "microbench/microbench.h"
#include "pipeline/curves.h"
#include "pipeline/json.h"
#include "common/parse.h"
#include "pipeline/steps.h"

/* The pseudo-variant MESH groups the SpMV samples of Poisson grids,
 * whichever variant (dense-block or real) measured them, as the iteration
 * curve "iter"/"mesh" does. Elasticity's long rows are walk-bound at mid
 * sizes (2-2.5x below Poisson at the same bytes for N >= 2 on an H100) and
 * stay in "real" and "all": with them the 2x2 fp64 fit was R^2 0.970. */
static const char MESH[] = "\001mesh";

static bool on_mesh(const cgm_sample *a) {
  return pipeline_on_mesh(a->source);
}

static bool same_group(const cgm_sample *a, const char *kernel, const char *variant, int prec,
                       int block) {
  if (strcmp(a->kernel, kernel) || a->precision != prec || a->block != block) return false;
  if (variant == MESH) return on_mesh(a);
  return !variant || !strcmp(a->variant, variant);
}

static int by_m(const void *a, const void *b) {
  double x = ((const double *)a)[0], y = ((const double *)b)[0];
  return (x > y) - (x < y);
}

static void report_failure(cgm_calibration_report *rep, int ri, const char *kernel,
                           const char *variant, int prec, int block, int kind, const char *why) {
  rep->cal[ri].fits_failed++;
  char *buf = rep->cal[ri].failed;
  const size_t cap = sizeof rep->cal[ri].failed, l = strlen(buf);
  if (l >= 3 && !strcmp(buf + l - 3, "...")) return; /* already full */
  int w = snprintf(buf + l, cap - l, "%s%s/%s/%s/%d/%s (%s)", l ? "; " : "", kernel, variant,
                   cgm_precision_name((cgm_precision)prec), block, cgm_fit_kind_name(kind), why);
  if (w < 0 || (size_t)w >= cap - l) /* cut: end with a mark, on the last whole item */
    snprintf(buf + l, cap - l, "%s", l ? "; ..." : "...");
}

/* Fits one group (variant NULL: any): avg, max and rel fits, and where the
 * curve falls past its peak, rel over the sizes up to it and rel-hi past it. */
static cgm_status fit_group(const cgm_sample_vec *sv, const char *kernel, const char *variant,
                            const char *store_variant, int prec, int block, cgm_db_fit *fits,
                            int *nfits, int max_fits, cgm_calibration_report *rep, int ri) {
  int cnt = 0;
  for (int i = 0; i < sv->n; i++) cnt += same_group(&sv->v[i], kernel, variant, prec, block);
  if (cnt < 4 || *nfits + 4 > max_fits) return CGM_OK;
  double *pts = malloc(sizeof(double) * 2 * cnt), *m = malloc(sizeof(double) * cnt),
         *b = malloc(sizeof(double) * cnt);
  if (!pts || !m || !b) {
    free(pts), free(m), free(b);
    return CGM_ERUNTIME;
  }
  int k = 0;
  for (int i = 0; i < sv->n; i++)
    if (same_group(&sv->v[i], kernel, variant, prec, block)) {
      pts[2 * k] = sv->v[i].m;
      pts[2 * k + 1] = cgm_sample_gbps(&sv->v[i]);
      k++;
    }
  qsort(pts, (size_t)cnt, 2 * sizeof(double), by_m);
  /* A lone dip, a sample at under a third of the rates on both sides of it
   * (its twin included: the same grid as "real" and as P (x) 1 x 1), is a
   * run some other work disturbed, not the curve: a CPU's quick SpMV at
   * N = 1 measured once at a fifth of its twin's rate, and the fit through
   * it fell 10x under the small sizes. Matrices of one size differ by up
   * to 2x (docs/model.md), never 3x on both sides. */
  int kept = 0;
  for (int i = 0; i < cnt; i++) { /* m[] marks the dips (it is filled again below) */
    const double r = pts[2 * i + 1];
    m[i] = i > 0 && i + 1 < cnt && 3.0 * r < pts[2 * i - 1] && 3.0 * r < pts[2 * i + 3];
  }
  for (int i = 0; i < cnt; i++)
    if (m[i] == 0.0) pts[2 * kept] = pts[2 * i], pts[2 * kept + 1] = pts[2 * i + 1], kept++;
  cnt = kept;
  /* avg and max: Eq. 3 over every sample (Table 3); rel: the model's curve,
   * piecewise where it needs (cgm_fit_curve), stored as rel and rel-hi. */
  cgm_curve_fit cf;
  bool have_curve = false;
  for (int kind = 0; kind < 4; kind++) {
    for (int i = 0; i < cnt; i++) m[i] = pts[2 * i], b[i] = pts[2 * i + 1];
    cgm_fit f;
    cgm_error e = {0};
    cgm_status st = CGM_OK;
    if (kind < CGM_FIT_REL)
      st = cgm_fit_sigmoid(m, b, cnt, (cgm_fit_kind)kind, &f, &e);
    else if (kind == CGM_FIT_REL) {
      st = cgm_fit_curve(m, b, cnt, &cf, &e);
      have_curve = !st;
      if (!st) f = cf.lo;
    } else {
      if (!have_curve || !cf.have_hi) continue;
      f = cf.hi;
    }
    if (st) { /* degenerate data: reported, not stored */
      report_failure(rep, ri, kernel, store_variant, prec, block, kind, e.msg);
      continue;
    }
    cgm_db_fit *o = &fits[*nfits];
    memset(o, 0, sizeof *o);
    snprintf(o->kernel, sizeof o->kernel, "%s", kernel);
    snprintf(o->variant, sizeof o->variant, "%s", store_variant);
    o->precision = prec;
    o->block = block;
    o->kind = kind;
    o->mu = f.p.mu;
    o->sigma = f.p.sigma;
    o->nu = f.p.nu;
    o->se_mu = f.se_mu;
    o->se_sigma = f.se_sigma;
    o->se_nu = f.se_nu;
    o->r2 = f.r2;
    o->rms = f.rms;
    o->n = f.n;
    o->converged = f.converged;
    /* The pieces of a piecewise curve cover their sizes; the others all. */
    o->m_lo = kind == CGM_FIT_REL_HI ? cf.split : NAN;
    o->m_hi = kind == CGM_FIT_REL && cf.have_hi ? f.m_hi : NAN;
    snprintf(o->message, sizeof o->message, "%s", f.message);
    if (!f.converged) report_failure(rep, ri, kernel, store_variant, prec, block, kind, f.message);
    (*nfits)++; /* stored with its converged flag: the model skips it */
  }
  free(pts);
  free(m);
  free(b);
  return CGM_OK;
}

/* The single-GPU curves of the fits just made, for the overhead of mgpu. */
static void model_from_fits(const cgm_db_fit *fits, int nfits, int prec, cgm_device_model *m) {
  memset(m, 0, sizeof *m);
  m->width = prec == CGM_PREC_SINGLE ? 4 : 8;
  for (int i = 0; i < nfits; i++) {
    const cgm_db_fit *f = &fits[i];
    if (f->precision != prec || !f->converged ||
        (f->kind != CGM_FIT_REL && f->kind != CGM_FIT_REL_HI))
      continue;
    cgm_regime *hi;
    bool *have;
    int slot;
    cgm_sigmoid *c = pipeline_kernel_curve(m, f, &hi, &have, &slot);
    if (!c) continue;
    cgm_sigmoid s = {f->mu, f->sigma, f->nu};
    if (f->kind == CGM_FIT_REL_HI) {
      *hi = (cgm_regime){s, f->m_lo, f->m_lo > 0};
      continue;
    }
    *c = s;
    if (have) *have = true;
  }
  m->have_vec = m->cg4.nu > 0 && m->cg5.nu > 0;
}

/* mgpu samples -> xfer samples (overhead over exchange bytes; curves.h). */
cgm_status pipeline_derive_xfer(cgm_sample_vec *sv, const cgm_db_fit *fits, int nfits,
                                const cgm_gpu_opts *gpu, cgm_error *err) {
  int n0 = sv->n;
  for (int i = 0; i < n0; i++) {
    cgm_sample s = sv->v[i];
    if (strcmp(s.kernel, "mgpu") != 0) continue;
    int dim = 0, k = 0;
    cgm_exchange ex;
    if (sscanf(s.source, "poisson%dd:%d", &dim, &k) != 2 || (dim != 2 && dim != 3) ||
        !cgm_exchange_parse(s.variant, &ex))
      continue;
    cgm_device_model m;
    model_from_fits(fits, nfits, s.precision, &m);
    cgm_csr A;
    cgm_status st = cgm_gen_poisson(dim, k, &A, err);
    if (st) return st;
    /* The plan the sweep's solve ran (its gpu options: the cut), one
     * segment at a time through the one-GPU curves. */
    cgm_plan_opts po = cgm_plan_opts_default();
    po.backend = CGM_BACKEND_CUDA;
    po.precision = (cgm_precision)s.precision;
    po.gpus = s.block;
    po.exchange = ex;
    po.balance = gpu->balance;
    cgm_plan plan;
    st = cgm_plan_make(&A, &po, &plan, err);
    cgm_csr_free(&A);
    if (st) return st;
    double worst = 0;
    for (int g = 0; g < s.block; g++) {
      const cgm_segment_shape seg = cgm_refined_shape(&plan, g);
      double t = cgm_refined_segment_time(&m, 1, &seg);
      if (isfinite(t) && t > worst) worst = t;
    }
    /* What the exchange and the cross-GPU synchronisation cost; never below
     * 5% of the iteration (the compute estimate has its own error). */
    double over = s.seconds - worst;
    if (over < 0.05 * s.seconds) over = 0.05 * s.seconds;
    const double w = m.width;
    cgm_sample x = s;
    snprintf(x.kernel, sizeof x.kernel, "xfer");
    x.bytes = s.bytes > w ? s.bytes : w;
    x.m = x.bytes / w;
    x.seconds = over;
    if (cgm_sample_vec_push(sv, &x)) return cgm_fail(err, CGM_ERUNTIME, "out of memory");
  }
  return CGM_OK;
}

static cgm_status fit_all(cgm_sample_vec *sv, unsigned precisions, const cgm_gpu_opts *gpu,
                          cgm_db_fit **out, int *nfits, cgm_calibration_report *rep, int ri,
                          cgm_error *err) {
  const int max_fits = 1024;
  cgm_db_fit *fits = calloc(max_fits, sizeof *fits);
  if (!fits) return cgm_fail(err, CGM_ERUNTIME, "out of memory");
  *nfits = 0;
  const char *vec[] = {"cg4", "cg5", "red", "cusparse"};
  for (int p = 0; p < 2; p++) {
    if (!(precisions & (1u << p))) continue;
    for (int v = 0; v < 4; v++) fit_group(sv, vec[v], "", "", p, 0, fits, nfits, max_fits, rep, ri);
    for (int nv = 1; nv <= 8; nv *= 2) {
      fit_group(sv, "load", "fixed", "fixed", p, nv, fits, nfits, max_fits, rep, ri);
      fit_group(sv, "load", "variable", "variable", p, nv, fits, nfits, max_fits, rep, ri);
    }
    for (int b = 0; b < CGM_NBLOCKSIZES; b++) {
      int n = cgm_block_sizes[b];
      fit_group(sv, "spmv", "dense", "dense", p, n, fits, nfits, max_fits, rep, ri);
      fit_group(sv, "spmv", "real", "real", p, n, fits, nfits, max_fits, rep, ri);
      fit_group(sv, "spmv", NULL, "all", p, n, fits, nfits, max_fits, rep, ri);
      fit_group(sv, "spmv", MESH, "mesh", p, n, fits, nfits, max_fits, rep, ri);
      fit_group(sv, "iter", "mesh", "mesh", p, n, fits, nfits, max_fits, rep, ri);
      fit_group(sv, "iter", "row", "row", p, n, fits, nfits, max_fits, rep, ri);
      fit_group(sv, "iter", "band", "band", p, n, fits, nfits, max_fits, rep, ri);
    }
  }
  cgm_status st = pipeline_derive_xfer(sv, fits, *nfits, gpu, err);
  if (st) {
    free(fits);
    return st;
  }
  for (int p = 0; p < 2; p++)
    for (int ex = 0; ex < 4; ex++)
      for (int G = 2; G <= 8; G++)
        fit_group(sv, "xfer", cgm_exchange_name((cgm_exchange)ex),
                  cgm_exchange_name((cgm_exchange)ex), p, G, fits, nfits, max_fits, rep, ri);
  *out = fits;
  return CGM_OK;
}

/* The sweeps' sink and progress, with a clock of the stages (the report's
 * "where the time went"). The sweeps report after each measurement, so the
 * time since the previous report is the named stage's. */
typedef struct {
  cgm_sample_vec *sv;
  const cgm_calibrate_opts *o;
  cgm_calibration_report *rep;
  int ri;
  double since;
} stage_clock;

static void stage_mark(stage_clock *c, const char *stage) {
  double now = cgm_now();
  cgm_stage_time *t = c->rep->cal[c->ri].stage;
  int *n = &c->rep->cal[c->ri].nstages, k = 0;
  while (k < *n && strcmp(t[k].name, stage)) k++;
  if (k == *n && k < CGM_MAX_STAGES) {
    snprintf(t[k].name, sizeof t[k].name, "%s", stage);
    t[k].seconds = 0;
    (*n)++;
  }
  if (k < *n) t[k].seconds += now - c->since;
  c->since = now;
}

static int clock_sink(void *ctx, const cgm_sample *s) {
  return cgm_sample_vec_push(((stage_clock *)ctx)->sv, s);
}

static void clock_progress(void *ctx, const char *stage, double done) {
  stage_clock *c = ctx;
  stage_mark(c, stage);
  if (c->o->progress) c->o->progress(c->o->progress_ctx, stage, done);
}

/* The test of cgm_check_cpu_timings: the median time of the 3 smallest CG4
 * sizes against the 3 largest (undisturbed, a ratio near m_small / m_large,
 * under 1e-2; disturbed, near 1). */
cgm_status cgm_check_cpu_timings(const cgm_sample *v, int count, cgm_error *err) {
  for (int p = 0; p < 2; p++) {
    double m[256], t[256];
    int n = 0;
    for (int i = 0; i < count && n < 256; i++)
      if (!strcmp(v[i].kernel, "cg4") && v[i].precision == p)
        m[n] = v[i].m, t[n] = v[i].seconds, n++;
    if (n < 8) continue;
    for (int i = 1; i < n; i++) /* by m (insertion: n is small) */
      for (int j = i; j > 0 && m[j - 1] > m[j]; j--) {
        double a = m[j], b = t[j];
        m[j] = m[j - 1], t[j] = t[j - 1], m[j - 1] = a, t[j - 1] = b;
      }
    double lo[3] = {t[0], t[1], t[2]}, hi[3] = {t[n - 3], t[n - 2], t[n - 1]};
    double ts = cgm_median(lo, 3), tl = cgm_median(hi, 3);
    if (ts > 0.1 * tl) {
      char load[64] = "";
      FILE *f = fopen("/proc/loadavg", "r");
      double l1;
      if (f) {
        if (fscanf(f, "%lf", &l1) == 1) snprintf(load, sizeof load, " (load average %.2f)", l1);
        fclose(f);
      }
      return cgm_fail(
          err, CGM_ERUNTIME,
          "CPU timings disturbed: CG4 on %.0f elements took %.3g ms, %.0f%% of the %.3g ms "
          "on %.0f elements, where the time should grow with the size: other processes "
          "compete for the cores%s. Nothing was stored; calibrate the CPU on an idle "
          "machine, or with --threads below the idle cores",
          m[1], 1e3 * ts, 100 * ts / tl, 1e3 * tl, m[n - 2], load);
    }
  }
  return CGM_OK;
}

/* The solver options of a GPU coefficient sweep (scatter, band load,
 * gather): our kernels on the calibrated GPU, the calibration's options. */
static cgm_solve_opts gpu_sweep_opts(const cgm_calibrate_opts *o) {
  cgm_solve_opts base = cgm_solve_opts_default();
  base.backend = CGM_BACKEND_CUDA;
  base.gpu = o->gpu;
  return base;
}

/* Appends a fitted coefficient (its name, precision, value, rms and the
 * samples it was fitted on) to the calibration's list. */
static void coef_push(cgm_db_coef *coef, int *ncoef, const char *name, int p, double value,
                      double rms, int n) {
  cgm_db_coef *q = &coef[(*ncoef)++];
  memset(q, 0, sizeof *q);
  snprintf(q->name, sizeof q->name, "%s", name);
  q->precision = p;
  q->value = value;
  q->rms = rms;
  q->n = n;
}

/* The locality sweep on the device and the coefficient of each precision,
 * fitted with the curves just made (docs/model.md, "x locality"). A
 * precision whose curves cannot time the sweep's iterations gets none. */
static cgm_status fit_locality(const cgm_calibrate_opts *o, const char *device,
                               const cgm_db_fit *fits, int nfits, cgm_db_coef *coef, int *ncoef,
                               cgm_calibration_report *rep, int ri, cgm_error *err) {
  *ncoef = 0;
  cgm_solve_opts base = cgm_solve_opts_default();
  const bool cpu = strcmp(device, "cpu") == 0;
  base.backend = cpu ? CGM_BACKEND_CPU : CGM_BACKEND_CUDA;
  base.threads = cpu ? o->threads : 0;
  base.gpu = o->gpu;
  cgm_locality_sample *s = NULL;
  int n = 0;
  cgm_status st = cgm_mb_locality_sweep(&base, o->precisions, o->quick, &s, &n, err);
  if (st) return st;
  int *blocks = malloc(((size_t)n + 1) * sizeof *blocks),
      *group = malloc(((size_t)n + 1) * sizeof *group);
  cgm_segment_shape *shapes = malloc(((size_t)n + 1) * sizeof *shapes);
  double *secs = malloc(((size_t)n + 1) * sizeof *secs);
  if (!blocks || !group || !shapes || !secs) st = cgm_fail(err, CGM_ERUNTIME, "out of memory");
  for (int p = 0; p < 2 && !st; p++) {
    if (!(o->precisions & (1u << p))) continue;
    cgm_device_model m;
    model_from_fits(fits, nfits, p, &m);
    int k = 0;
    for (int i = 0; i < n; i++)
      if (s[i].precision == p && isfinite(cgm_refined_segment_time(&m, s[i].block, &s[i].shape))) {
        blocks[k] = s[i].block;
        group[k] = s[i].group;
        shapes[k] = s[i].shape;
        secs[k++] = s[i].seconds;
      }
    double c, rms;
    cgm_error e = {0};
    if (cgm_fit_x_coef(&m, blocks, group, shapes, secs, k, &c, &rms, &e) == CGM_OK) {
      coef_push(coef, ncoef, CGM_DB_COEF_X_SECTOR, p, c, rms, k);
      rep->cal[ri].x_coef[p] = c;
      rep->cal[ri].have_x_coef[p] = true;
    }
  }
  free(blocks);
  free(group);
  free(shapes);
  free(secs);
  free(s);
  return st;
}

/* The row-scatter sweep on a GPU and the coefficient of each block size and
 * precision, fitted with the row curves just made (docs/model.md, "The walk
 * of a scattered row"), appended to coef. A block size whose row curve is
 * missing gets none. */
static cgm_status fit_scatter(const cgm_calibrate_opts *o, const char *device,
                              const cgm_db_fit *fits, int nfits, cgm_db_coef *coef, int *ncoef,
                              cgm_calibration_report *rep, int ri, cgm_error *err) {
  const cgm_solve_opts base = gpu_sweep_opts(o);
  cgm_locality_sample *s = NULL;
  int n = 0;
  cgm_status st = cgm_mb_scatter_sweep(&base, o->precisions, o->quick, &s, &n, err);
  if (st) return st;
  cgm_segment_shape *shapes = malloc(((size_t)n + 1) * sizeof *shapes);
  double *secs = malloc(((size_t)n + 1) * sizeof *secs);
  if (!shapes || !secs) st = cgm_fail(err, CGM_ERUNTIME, "out of memory");
  for (int p = 0; p < 2 && !st; p++) {
    if (!(o->precisions & (1u << p))) continue;
    cgm_device_model m;
    model_from_fits(fits, nfits, p, &m);
    /* the arrows' term first (the in-order walk below it), then the
     * bands' with it */
    for (int band = 0; band < 2; band++)
      for (int b = 0; b < CGM_NBLOCKSIZES; b++) {
        const int bn = cgm_block_sizes[b];
        int k = 0;
        for (int i = 0; i < n; i++)
          if (s[i].precision == p && s[i].block == bn && s[i].group == band) {
            shapes[k] = s[i].shape;
            secs[k++] = s[i].seconds;
          }
        double c;
        cgm_error e = {0};
        if (cgm_fit_scatter_coef(&m, bn, band, shapes, secs, k, &c, &e) != CGM_OK) continue;
        char name[32];
        snprintf(name, sizeof name, "%s%d",
                 band ? CGM_DB_COEF_BAND_SCATTER : CGM_DB_COEF_ROW_SCATTER, bn);
        coef_push(coef, ncoef, name, p, c, NAN, k);
        (band ? m.band_scatter_coef : m.scatter_coef)[b] = c;
        (band ? m.have_band_scatter_coef : m.have_scatter_coef)[b] = true;
        (band ? rep->cal[ri].band_scatter_coef : rep->cal[ri].scatter_coef)[p][b] = c;
        (band ? rep->cal[ri].have_band_scatter_coef : rep->cal[ri].have_scatter_coef)[p][b] = true;
      }
  }
  free(shapes);
  free(secs);
  free(s);
  return st;
}

/* The model of precision p from the fits and the coefficients fitted so
 * far (the locality term, the row-scatter terms, the gather rate), as a
 * tuner device will load it. */
static void model_with_coefs(const cgm_db_fit *fits, int nfits, int p, const cgm_db_coef *coef,
                             int ncoef, cgm_device_model *m) {
  model_from_fits(fits, nfits, p, m);
  for (int c = 0; c < ncoef; c++) {
    const cgm_db_coef *q = &coef[c];
    if (q->precision != p) continue;
    if (!strcmp(q->name, CGM_DB_COEF_X_SECTOR)) m->x_coef = q->value, m->have_x_coef = true;
    if (!strcmp(q->name, CGM_DB_COEF_GATHER)) m->gather_bw = q->value, m->have_gather_bw = true;
    if (!strcmp(q->name, CGM_DB_COEF_GATHER_SMALL))
      m->gather_bw_small = q->value, m->have_gather_small = true;
    for (int b = 0; b < CGM_NBLOCKSIZES; b++) {
      char row[32], band[32];
      snprintf(row, sizeof row, "%s%d", CGM_DB_COEF_ROW_SCATTER, cgm_block_sizes[b]);
      snprintf(band, sizeof band, "%s%d", CGM_DB_COEF_BAND_SCATTER, cgm_block_sizes[b]);
      if (!strcmp(q->name, row)) m->scatter_coef[b] = q->value, m->have_scatter_coef[b] = true;
      if (!strcmp(q->name, band))
        m->band_scatter_coef[b] = q->value, m->have_band_scatter_coef[b] = true;
    }
  }
}

/* The band-load sweep on a GPU and the fraction of each block size and
 * precision, fitted with the curves and coefficients just made
 * (docs/model.md, "The walk under load"), appended to coef. A block size
 * without a band curve gets none. */
static cgm_status fit_band_load(const cgm_calibrate_opts *o, const cgm_db_fit *fits, int nfits,
                                cgm_db_coef *coef, int *ncoef, cgm_calibration_report *rep, int ri,
                                cgm_error *err) {
  const cgm_solve_opts base = gpu_sweep_opts(o);
  cgm_locality_sample *s = NULL;
  int n = 0;
  cgm_status st = cgm_mb_band_load_sweep(&base, o->precisions, o->quick, &s, &n, err);
  if (st) return st;
  cgm_segment_shape *shapes = malloc(((size_t)n + 1) * sizeof *shapes);
  double *secs = malloc(((size_t)n + 1) * sizeof *secs);
  if (!shapes || !secs) st = cgm_fail(err, CGM_ERUNTIME, "out of memory");
  const int have = *ncoef;
  for (int p = 0; p < 2 && !st; p++) {
    if (!(o->precisions & (1u << p))) continue;
    cgm_device_model m;
    model_with_coefs(fits, nfits, p, coef, have, &m);
    for (int b = 0; b < CGM_NBLOCKSIZES; b++) {
      const int bn = cgm_block_sizes[b];
      int k = 0;
      for (int i = 0; i < n; i++)
        if (s[i].precision == p && s[i].block == bn)
          shapes[k] = s[i].shape, secs[k++] = s[i].seconds;
      double c;
      cgm_error e = {0};
      if (k == 0 || cgm_fit_band_load(&m, bn, shapes, secs, k, &c, &e) != CGM_OK) continue;
      char name[32];
      snprintf(name, sizeof name, "%s%d", CGM_DB_COEF_BAND_LOAD, bn);
      coef_push(coef, ncoef, name, p, c, NAN, k);
      rep->cal[ri].band_load[p][b] = c;
      rep->cal[ri].have_band_load[p][b] = true;
    }
  }
  free(shapes);
  free(secs);
  free(s);
  return st;
}

/* The gather sweep on a GPU and the gather rate of each precision and
 * matrix, fitted with the curves and the locality coefficient just made
 * (docs/model.md, "Gathers of x"), appended to coef. A sample that runs no
 * slower than its bytes say gives none; the smaller matrix's rate is kept
 * only beside the larger one's. */
static cgm_status fit_gather(const cgm_calibrate_opts *o, const cgm_db_fit *fits, int nfits,
                             cgm_db_coef *coef, int *ncoef, cgm_calibration_report *rep, int ri,
                             cgm_error *err) {
  const cgm_solve_opts base = gpu_sweep_opts(o);
  cgm_locality_sample *s = NULL;
  int n = 0;
  cgm_status st = cgm_mb_gather_sweep(&base, o->precisions, o->quick, &s, &n, err);
  if (st) return st;
  const int have = *ncoef;
  for (int p = 0; p < 2; p++) {
    double bw[2] = {0, 0}; /* [0] CGM_GATHER_ROWS, [1] CGM_GATHER_ROWS_SMALL */
    cgm_device_model m;
    model_with_coefs(fits, nfits, p, coef, have, &m);
    for (int i = 0; i < n; i++) {
      if (s[i].precision != p) continue;
      cgm_error e = {0};
      double b;
      if (cgm_fit_gather_bw(&m, &s[i].shape, &s[i].seconds, 1, &b, &e) != CGM_OK) continue;
      bw[s[i].shape.rows < CGM_GATHER_ROWS] = b;
    }
    if (!(bw[0] > 0)) continue;
    coef_push(coef, ncoef, CGM_DB_COEF_GATHER, p, bw[0], NAN, 1);
    rep->cal[ri].gather_bw[p] = bw[0];
    rep->cal[ri].have_gather_bw[p] = true;
    if (!(bw[1] > 0)) continue;
    coef_push(coef, ncoef, CGM_DB_COEF_GATHER_SMALL, p, bw[1], NAN, 1);
    rep->cal[ri].gather_bw_small[p] = bw[1];
    rep->cal[ri].have_gather_small[p] = true;
  }
  free(s);
  return st;
}

/* One device: sweeps, fits, one transaction. */
static cgm_status calibrate_one(cgm_db *db, const cgm_calibrate_opts *o, const char *device,
                                int gpus, cgm_calibration_report *rep, cgm_error *err) {
  if (rep->count >= CGM_MAX_CALIBRATED) return cgm_fail(err, CGM_EINPUT, "too many devices");
  int ri = rep->count++;
  snprintf(rep->cal[ri].device, sizeof rep->cal[ri].device, "%s", device);
  rep->cal[ri].gpus = gpus;
  cgm_db_device dev;
  cgm_status st = strcmp(device, "cpu") == 0 ? cgm_describe_cpu(&dev, o->threads, err)
                                             : cgm_describe_cuda(atoi(device + 5), &dev, err);
  if (st) return st;
  snprintf(rep->cal[ri].model, sizeof rep->cal[ri].model, "%s", dev.model);
  double t0 = cgm_now();
  cgm_sample_vec sv = {0};
  cgm_mb_opts mo;
  memset(&mo, 0, sizeof mo);
  snprintf(mo.device, sizeof mo.device, "%s", device);
  mo.gpus = gpus;
  mo.quick = o->quick;
  mo.precisions = o->precisions;
  mo.threads = o->threads;
  mo.gpu = o->gpu;
  stage_clock clk = {&sv, o, rep, ri, t0};
  st = cgm_mb_run(&mo, clock_sink, clock_progress, &clk, err);
  if (!st && !strcmp(device, "cpu")) st = cgm_check_cpu_timings(sv.v, sv.n, err);
  if (!st && o->progress) o->progress(o->progress_ctx, "fits", 1.0);
  cgm_db_fit *fits = NULL;
  int nfits = 0;
  if (!st) st = fit_all(&sv, o->precisions, &o->gpu, &fits, &nfits, rep, ri, err);
  stage_mark(&clk, "fits");
  cgm_db_coef coef[4 + 6 * CGM_NBLOCKSIZES];
  int ncoef = 0;
  if (!st) st = fit_locality(o, device, fits, nfits, coef, &ncoef, rep, ri, err);
  stage_mark(&clk, "locality");
  if (!st && strcmp(device, "cpu")) { /* a CPU's model has no walk */
    st = fit_scatter(o, device, fits, nfits, coef, &ncoef, rep, ri, err);
    stage_mark(&clk, "scatter");
    if (!st) st = fit_gather(o, fits, nfits, coef, &ncoef, rep, ri, err);
    stage_mark(&clk, "gather");
    if (!st) st = fit_band_load(o, fits, nfits, coef, &ncoef, rep, ri, err);
    stage_mark(&clk, "band-load");
  }
  /* Store: device, calibration, samples, fits and coefficients in one
   * transaction. */
  if (!st) st = cgm_db_begin(db, err);
  if (!st) {
    cgm_db_calibration cal;
    memset(&cal, 0, sizeof cal);
    if (!(st = cgm_db_device_get_or_add(db, &dev, err))) {
      cal.device_id = dev.id;
      snprintf(cal.tool_version, sizeof cal.tool_version, "%s", cgm_version());
      cJSON *j = cgm_calibration_options_json(device, gpus, o);
      char *txt = cJSON_PrintUnformatted(j);
      snprintf(cal.options, sizeof cal.options, "%s", txt ? txt : "{}");
      cJSON_free(txt);
      cJSON_Delete(j);
      st = cgm_db_calibration_add(db, &cal, err);
    }
    for (int i = 0; i < sv.n && !st; i++) {
      if (!strcmp(sv.v[i].kernel, "xfer")) continue; /* derived, not measured */
      st = cgm_db_sample_add(db, cal.id, &sv.v[i], err);
    }
    for (int i = 0; i < nfits && !st; i++) st = cgm_db_fit_add(db, cal.id, &fits[i], err);
    for (int i = 0; i < ncoef && !st; i++) st = cgm_db_coef_add(db, cal.id, &coef[i], err);
    double secs = cgm_now() - t0;
    stage_mark(&clk, "store");
    if (!st) st = cgm_db_calibration_finish(db, cal.id, secs, err);
    if (!st)
      st = cgm_db_commit(db, err);
    else
      cgm_db_rollback(db);
    rep->cal[ri].id = cal.id;
    rep->cal[ri].seconds = secs;
    rep->cal[ri].samples = sv.n;
    rep->cal[ri].fits = nfits;
  }
  free(sv.v);
  free(fits);
  return st;
}

static int collect_db(const cgm_db_sample *s, void *ctx) {
  return cgm_sample_vec_push(ctx, s);
}

cgm_status cgm_refit(cgm_db *db, int64_t cal_id, cgm_calibration_report *rep, cgm_error *err) {
  memset(rep, 0, sizeof *rep);
  cgm_db_calibration cal;
  cgm_db_device dev;
  cgm_status st = pipeline_calibration_get(db, cal_id, &cal, &dev, err);
  if (st) return st;
  if (!cal.complete)
    return cgm_fail(err, CGM_EINPUT, "calibration %lld was not completed: nothing to refit",
                    (long long)cal_id);
  rep->count = 1;
  rep->cal[0].id = cal_id;
  snprintf(rep->cal[0].device, sizeof rep->cal[0].device, "%.31s", dev.name);
  snprintf(rep->cal[0].model, sizeof rep->cal[0].model, "%s", dev.model);
  rep->cal[0].gpus = pipeline_calibration_gpus(cal.options);
  cJSON *j = cJSON_Parse(cal.options);
  /* the solver options the sweeps ran with (the defaults where not recorded) */
  cgm_gpu_opts gpu = cgm_gpu_opts_from_json(j ? cJSON_GetObjectItemCaseSensitive(j, "gpu") : NULL);
  cJSON_Delete(j);
  double t0 = cgm_now();
  cgm_sample_vec sv = {0};
  st = cgm_db_samples(db, cal_id, collect_db, &sv, err);
  unsigned precisions = 0;
  for (int i = 0; i < sv.n; i++)
    if (sv.v[i].precision >= 0 && sv.v[i].precision < 2) precisions |= 1u << sv.v[i].precision;
  if (!st && !precisions)
    st = cgm_fail(err, CGM_EINPUT, "calibration %lld holds no samples", (long long)cal_id);
  cgm_db_fit *fits = NULL;
  int nfits = 0;
  if (!st) st = fit_all(&sv, precisions, &gpu, &fits, &nfits, rep, 0, err);
  /* Old fits out, new ones in: one transaction, so a failure keeps the old. */
  if (!st) st = cgm_db_begin(db, err);
  if (!st) {
    st = cgm_db_fits_delete(db, cal_id, err);
    for (int i = 0; i < nfits && !st; i++) st = cgm_db_fit_add(db, cal_id, &fits[i], err);
    if (!st)
      st = cgm_db_commit(db, err);
    else
      cgm_db_rollback(db);
  }
  rep->cal[0].samples = sv.n;
  rep->cal[0].fits = nfits;
  rep->cal[0].seconds = cgm_now() - t0;
  free(sv.v);
  free(fits);
  return st;
}

cgm_status cgm_calibrate_plan(const char *devices, cgm_calibrate_plan_t *plan, cgm_error *err) {
  memset(plan, 0, sizeof *plan);
  /* Strict (common/parse.h): an empty item, a space, a repeated item or an
   * out-of-range number is an error, never skipped, cut or clamped. */
  enum { MAX_ITEMS = 64 };
  cgm_item it[MAX_ITEMS];
  char why[160];
  const char *list = devices ? devices : "cpu";
  int nit = cgm_parse_list(list, it, MAX_ITEMS, why, sizeof why);
  if (nit < 0) return cgm_fail(err, CGM_EINPUT, "--devices: %s", why);
  const int ndev = cgm_cuda_device_count();
  for (int i = 0; i < nit;) {
    if (it[i].n > 64)
      return cgm_fail(err, CGM_EINPUT, "--devices: '%.64s...' is not a device", it[i].s);
    char tok[80];
    snprintf(tok, sizeof tok, "%.*s", (int)(it[i].n < 64 ? it[i].n : 64), it[i].s);
    if (plan->count == CGM_MAX_CALIBRATED)
      return cgm_fail(err, CGM_EINPUT, "--devices: more than %d devices", CGM_MAX_CALIBRATED);
    char *name = plan->device[plan->count];
    int *gpus = &plan->gpus[plan->count];
    i++;
    if (!strcmp(tok, "cpu")) {
      snprintf(name, 32, "cpu");
      *gpus = 1;
    } else if (!strcmp(tok, "cuda:all") || !strcmp(tok, "cuda")) {
      if (ndev < 1)
        return cgm_fail(err, CGM_EINPUT, "--devices %s: no CUDA device is present%s", tok,
                        cgm_have_cuda_build() ? "" : " (this build has no CUDA backend)");
      /* GPUs of one model share a calibration; the count sizes the
       * multi-GPU sweeps. */
      snprintf(name, 32, "cuda:0");
      *gpus = ndev;
    } else if (!strncmp(tok, "cuda:", 5)) {
      /* "cuda:K": one GPU; "cuda:0,1,2": GPUs 0..K-1 of the node (the
       * multi-GPU sweeps run on the first K; GPU 0 is measured alone). */
      int64_t first, k;
      int count = 1;
      if (!cgm_parse_int(tok + 5, 0, 1023, &first))
        return cgm_fail(err, CGM_EINPUT,
                        "--devices: '%s' is not cuda:K (K a GPU number, 0 or more)", tok);
      while (i < nit && it[i].s[0] >= '0' && it[i].s[0] <= '9') {
        if (it[i].n > 64)
          return cgm_fail(err, CGM_EINPUT, "--devices: '%.64s...' is not a GPU number", it[i].s);
        char num[80];
        snprintf(num, sizeof num, "%.*s", (int)(it[i].n < 64 ? it[i].n : 64), it[i].s);
        if (!cgm_parse_int(num, 0, 1023, &k) || k != first + count)
          return cgm_fail(err, CGM_EINPUT,
                          "--devices: '%s' after cuda:%lld: list consecutive GPUs (cuda:0,1,2)",
                          num, (long long)first);
        count++;
        i++;
      }
      if (first != 0 && count > 1)
        return cgm_fail(err, CGM_EINPUT,
                        "--devices: cuda:%lld,...: several GPUs start at cuda:0 (the "
                        "multi-GPU sweeps use GPUs 0..K-1)",
                        (long long)first);
      if (first + count > ndev)
        return cgm_fail(err, CGM_EINPUT, "--devices: CUDA device %lld does not exist (%d present)",
                        (long long)(first + count - 1), ndev);
      snprintf(name, 32, "cuda:%lld", (long long)first);
      *gpus = count;
    } else {
      return cgm_fail(err, CGM_EINPUT, "--devices: '%s' is not cpu, cuda:all or cuda:0[,1...]",
                      tok);
    }
    for (int k = 0; k < plan->count; k++) /* cuda and cuda:0 are one device */
      if (!strcmp(plan->device[k], name))
        return cgm_fail(err, CGM_EINPUT, "--devices: %s is named twice", name);
    plan->count++;
  }
  return CGM_OK;
}

cgm_status cgm_calibrate(cgm_db *db, const cgm_calibrate_opts *o, cgm_calibration_report *rep,
                         cgm_error *err) {
  memset(rep, 0, sizeof *rep);
  cgm_calibrate_plan_t plan;
  cgm_status st = cgm_calibrate_plan(o->devices, &plan, err);
  for (int i = 0; i < plan.count && !st; i++)
    st = calibrate_one(db, o, plan.device[i], plan.gpus[i], rep, err);
  return st;
}
