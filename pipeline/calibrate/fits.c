/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Eq. 3 fitted to every kernel's samples (fits.h). */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/grow.h"
#include "common/timer.h"
#include "microbench/microbench.h"
#include "pipeline/calibrate/fits.h"
#include "pipeline/curves.h"
#include "pipeline/steps.h"

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

/* More data never takes less time, nor over 16x the time per byte of less (leaving the caches costs
 * a CPU 3-5x). Against the samples of its kernel's group (the SpMV's on meshes, 2x apart at most at
 * one size), a timing over 3x that of one with as much data or more, of a millisecond and more over
 * half that of one with 16x the data, or over 16x that of one with less data scaled up to its own,
 * was set by other work throughout, however stable: unsettled. Seen on a 2-core VM: a 9 us SpMV at
 * 5.9 ms (its scheduler slice) every time; iterations of 256 rows to 64^3 all a slice, or of 32^3
 * to 64^3 84-251 ms (predictions off 60-210x); a quick SpMV at a fifth of its twin's rate, whose
 * fit fell 10x under the small sizes. */
void calibrate_mark_impossible(cgm_sample_vec *sv) {
  static const char *const timed[] = {"cg4", "cg5", "red", "load", "spmv", "iter", "cusparse"};
  for (int i = 0; i < sv->n; i++)
    for (int k = 0; k < 7; k++) {
      cgm_sample *s = &sv->v[i], *t = sv->v;
      /* the SpMV on meshes alone: other matrices of one size run up to 100x
       * apart on a GPU (power-law rows) */
      const bool spmv = !strcmp(s->kernel, "spmv"), mesh = pipeline_on_mesh(s->source);
      const char *var = spmv ? "mesh" : s->variant;
      for (int j = 0; j < sv->n && !strcmp(s->kernel, timed[k]) && (mesh || !spmv); j++)
        if (pipeline_in_group(&t[j], s->kernel, var, s->precision, s->block) &&
            ((t[j].m >= s->m && 3 * t[j].seconds < s->seconds) ||
             (t[j].m >= 16 * s->m && s->seconds >= 1e-3 && t[j].seconds < 2 * s->seconds) ||
             (t[j].m <= s->m && s->seconds > 16 * t[j].seconds * s->m / t[j].m)))
          s->unsettled = true;
    }
}

/* Fits one group (pipeline_in_group): avg, max and rel fits, and where the curve falls past its
 * peak, rel over the sizes up to it and rel-hi past it; where rel fails, an interp row (the
 * samples' interpolation serves). Samples whose timings never settled are left out while 4 or more
 * of the group's did. */
static cgm_status fit_group(const cgm_sample_vec *sv, const char *kernel, const char *variant,
                            int prec, int block, cgm_db_fit *fits, int *nfits, int max_fits,
                            cgm_calibration_report *rep, int ri) {
  int cnt = 0, settled = 0;
  for (int i = 0; i < sv->n; i++)
    if (pipeline_in_group(&sv->v[i], kernel, variant, prec, block))
      cnt++, settled += !sv->v[i].unsettled;
  if (cnt < 4 || *nfits + 5 > max_fits) return CGM_OK;
  double *pts = malloc(sizeof(double) * 2 * cnt), *m = malloc(sizeof(double) * cnt),
         *b = malloc(sizeof(double) * cnt);
  if (!pts || !m || !b) {
    free(pts), free(m), free(b);
    return CGM_ERUNTIME;
  }
  int k = 0;
  for (int i = 0; i < sv->n; i++)
    if (pipeline_in_group(&sv->v[i], kernel, variant, prec, block) &&
        (settled < 4 || !sv->v[i].unsettled)) {
      pts[2 * k] = sv->v[i].m;
      pts[2 * k + 1] = cgm_sample_gbps(&sv->v[i]);
      k++;
    }
  cnt = k;
  qsort(pts, (size_t)cnt, 2 * sizeof(double), cgm_cmp_double); /* by m */
  /* avg and max: Eq. 3 over every sample (Table 3); rel: the model's curve,
   * piecewise where it needs (cgm_fit_curve), stored as rel and rel-hi. */
  cgm_curve_fit cf;
  bool have_curve = false;
  for (int kind = 0; kind <= CGM_FIT_INTERP; kind++) {
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
    } else if (kind == CGM_FIT_REL_HI) {
      if (!have_curve || !cf.have_hi) continue;
      f = cf.hi;
    } else { /* the interpolation's row: no parameters, the range and count */
      if (!have_curve || !cf.interp) continue;
      f = (cgm_fit){.p = {NAN, NAN, NAN}, .n = cnt, .m_lo = m[0], .m_hi = m[cnt - 1]};
      snprintf(f.message, sizeof f.message, "the samples' interpolation (the rel row says why)");
    }
    if (st) { /* degenerate data: reported, not stored */
      report_failure(rep, ri, kernel, variant, prec, block, kind, e.msg);
      continue;
    }
    cgm_db_fit *o = &fits[*nfits];
    memset(o, 0, sizeof *o);
    snprintf(o->kernel, sizeof o->kernel, "%s", kernel);
    snprintf(o->variant, sizeof o->variant, "%s", variant);
    o->precision = prec, o->block = block, o->kind = kind, o->n = f.n;
    o->mu = f.p.mu, o->sigma = f.p.sigma, o->nu = f.p.nu;
    o->se_mu = f.se_mu, o->se_sigma = f.se_sigma, o->se_nu = f.se_nu;
    o->r2 = f.r2, o->rms = f.rms, o->converged = f.converged;
    /* The pieces of a piecewise curve cover their sizes; the others all. */
    o->m_lo = kind == CGM_FIT_REL_HI ? cf.split : kind == CGM_FIT_INTERP ? f.m_lo : NAN;
    o->m_hi = (kind == CGM_FIT_REL && cf.have_hi) || kind == CGM_FIT_INTERP ? f.m_hi : NAN;
    snprintf(o->message, sizeof o->message, "%s", f.message);
    if (!f.converged && kind != CGM_FIT_INTERP)
      report_failure(rep, ri, kernel, variant, prec, block, kind, f.message);
    (*nfits)++; /* stored with its converged flag: the model skips it */
  }
  CGM_FREE(pts, m, b);
  return CGM_OK;
}

/* The single-GPU curves of the fits just made, for the overhead of mgpu. */
void calibrate_model_from_fits(const calibrate_fits *F, int prec, cgm_device_model *m) {
  memset(m, 0, sizeof *m);
  m->width = prec == CGM_PREC_SINGLE ? 4 : 8;
  for (int i = 0; i < F->n; i++) {
    const cgm_db_fit *f = &F->v[i];
    if (f->precision == prec && f->kind == CGM_FIT_INTERP)
      pipeline_place_interp(m, f, F->sv->v, F->sv->n);
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
      *hi = (cgm_regime){.hi = s, .split_m = f->m_lo, .have = f->m_lo > 0};
      continue;
    }
    *c = s;
    *hi = (cgm_regime){0}; /* an interpolation of another group does not apply */
    if (have) *have = true;
  }
  m->have_vec = m->cg4.nu > 0 && m->cg5.nu > 0;
}

/* mgpu samples -> xfer samples (overhead over exchange bytes; curves.h). */
cgm_status pipeline_derive_xfer(cgm_sample_vec *sv, const cgm_db_fit *fits, int nfits,
                                const cgm_gpu_opts *gpu, cgm_error *err) {
  const calibrate_fits F = {fits, nfits, sv};
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
    calibrate_model_from_fits(&F, s.precision, &m);
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

cgm_status calibrate_fit_all(cgm_sample_vec *sv, unsigned precisions, const cgm_gpu_opts *gpu,
                             cgm_db_fit **out, int *nfits, cgm_calibration_report *rep, int ri,
                             cgm_error *err) {
  const int max_fits = 1024;
  cgm_db_fit *fits = calloc(max_fits, sizeof *fits);
  if (!fits) return cgm_fail(err, CGM_ERUNTIME, "out of memory");
  *nfits = 0;
  calibrate_mark_impossible(sv);
  const char *vec[] = {"cg4", "cg5", "red", "cusparse"};
  for (int p = 0; p < 2; p++) {
    if (!(precisions & (1u << p))) continue;
    for (int v = 0; v < 4; v++) fit_group(sv, vec[v], "", p, 0, fits, nfits, max_fits, rep, ri);
    for (int nv = 1; nv <= 8; nv *= 2) {
      fit_group(sv, "load", "fixed", p, nv, fits, nfits, max_fits, rep, ri);
      fit_group(sv, "load", "variable", p, nv, fits, nfits, max_fits, rep, ri);
    }
    for (int b = 0; b < CGM_NBLOCKSIZES; b++) {
      int n = cgm_block_sizes[b];
      /* "mesh": the SpMV samples of Poisson grids, whichever variant (dense-block or real) measured
       * them, as the iteration curve "iter"/"mesh" does. Elasticity's long rows are walk-bound at
       * mid sizes (2-2.5x below Poisson at the same bytes for N >= 2 on an H100) and stay in "real"
       * and "all": with them the 2x2 fp64 fit was R^2 0.970. */
      static const char *const groups[][2] = {{"spmv", "dense"}, {"spmv", "real"}, {"spmv", "all"},
                                              {"spmv", "mesh"},  {"iter", "mesh"}, {"iter", "row"},
                                              {"iter", "band"},  {"iter", "meshc"}};
      for (int g = 0; g < 8; g++)
        fit_group(sv, groups[g][0], groups[g][1], p, n, fits, nfits, max_fits, rep, ri);
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
        fit_group(sv, "xfer", cgm_exchange_name((cgm_exchange)ex), p, G, fits, nfits, max_fits, rep,
                  ri);
  *out = fits;
  return CGM_OK;
}
