/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The relative curve of a kernel as the refined model uses it, piecewise where one Eq. 3 cannot
 * follow the samples (docs/model.md, "Where the CPU differs"): below a throughput peak that falls
 * for good (a CPU's caches), Eq. 3 fitted to relative residuals, else the samples' interpolation;
 * past it, Eq. 3 or a constant. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cgmodel/model.h"
#include "common/timer.h"

/* Per-bin medians of (m, b) pairs sorted by m, bins `width` wide in log2 m:
 * med[k] over samples start[k] .. start[k + 1] - 1. Returns the bin count. */
enum { MAXBINS = 128 };
static int bin_medians(const double *pts, int n, double width, double *med, int *start) {
  int nb = 0;
  const double lo_u = log2(pts[0]);
  for (int i = 0; i < n && nb < MAXBINS;) {
    int j = i;
    double key = floor((log2(pts[2 * i]) - lo_u) / width);
    while (j < n && floor((log2(pts[2 * j]) - lo_u) / width) == key) j++;
    double v[64];
    int k = 0;
    for (int t = i; t < j && k < 64; t++) v[k++] = pts[2 * t + 1];
    med[nb] = cgm_median(v, k);
    start[nb++] = i;
    i = j;
  }
  start[nb] = n;
  return nb;
}

/* Where the throughput falls for good past its peak (a CPU's data leaving
 * its caches): the first m past the last bin whose median is within 80% of
 * the peak's, when at least 3 samples lie past it and 4 before; else 0. */
static double split_point(const double *pts, int n) {
  double med[MAXBINS];
  int start[MAXBINS + 1];
  int nb = bin_medians(pts, n, 0.5, med, start), peak = 0, last = 0;
  for (int k = 1; k < nb; k++)
    if (med[k] > med[peak]) peak = k;
  for (int k = 0; k < nb; k++)
    if (med[k] >= 0.8 * med[peak]) last = k;
  int cut = start[last + 1];
  return cut >= 4 && n - cut >= 3 ? pts[2 * cut] : 0.0;
}

/* A constant throughput as Eq. 3 (mu 9 doublings below the samples, within
 * cgm_fit_bounded: B = nu to 0.01%): the median of the samples, where Eq. 3
 * cannot be fitted (a CPU's curve past its caches). */
static void constant_fit(const double *m, const double *b, int n, const char *why, cgm_fit *f) {
  double *v = malloc(sizeof(double) * (size_t)n);
  double c = 0;
  if (v) {
    memcpy(v, b, sizeof(double) * (size_t)n);
    c = cgm_median(v, n);
    free(v);
  }
  double mean = 0, ss = 0, st = 0;
  for (int i = 0; i < n; i++) mean += b[i] / n;
  for (int i = 0; i < n; i++) ss += (b[i] - c) * (b[i] - c), st += (b[i] - mean) * (b[i] - mean);
  memset(f, 0, sizeof *f);
  f->p = (cgm_sigmoid){log2(m[0]) - 9.0, 1.0, c};
  f->se_mu = f->se_sigma = f->se_nu = NAN;
  f->r2 = st > 0 ? 1.0 - ss / st : NAN;
  f->rms = sqrt(ss / n);
  f->n = n;
  f->m_lo = m[0];
  f->m_hi = m[n - 1];
  f->converged = c > 0;
  snprintf(f->message, sizeof f->message, "constant: the median of %d samples%s%.100s%s", n,
           *why ? " (Eq. 3: " : "", why, *why ? ")" : "");
}

cgm_status cgm_fit_curve(const double *m, const double *b, int n, cgm_curve_fit *out,
                         cgm_error *err) {
  memset(out, 0, sizeof *out);
  if (n < 4)
    return cgm_fail(err, CGM_EINPUT, "degenerate data: %d samples, the fit needs at least 4", n);
  double *pts = malloc(sizeof(double) * 2 * (size_t)n), *mm = malloc(sizeof(double) * (size_t)n),
         *bb = malloc(sizeof(double) * (size_t)n);
  cgm_status st = CGM_OK;
  if (!pts || !mm || !bb) {
    st = cgm_fail(err, CGM_ERUNTIME, "out of memory");
    goto done;
  }
  for (int i = 0; i < n; i++) {
    if (!(m[i] > 0) || !(b[i] > 0) || !isfinite(m[i]) || !isfinite(b[i])) {
      st = cgm_fail(err, CGM_EINPUT,
                    "degenerate data: sample %d (m %g, B %g) is not positive and finite", i, m[i],
                    b[i]);
      goto done;
    }
    pts[2 * i] = m[i], pts[2 * i + 1] = b[i];
  }
  qsort(pts, (size_t)n, 2 * sizeof(double), cgm_cmp_double); /* by m: a pair's first */
  const double split = split_point(pts, n);
  int nlo = n;
  if (split > 0)
    while (nlo > 0 && pts[2 * (nlo - 1)] >= split) nlo--;
  for (int i = 0; i < n; i++) mm[i] = pts[2 * i], bb[i] = pts[2 * i + 1];

  /* Below the split (or everything): Eq. 3, else the samples' interpolation. */
  cgm_error e = {0};
  st = cgm_fit_sigmoid(mm, bb, nlo, CGM_FIT_REL, &out->lo, &e);
  if (st == CGM_ERUNTIME) {
    if (err) *err = e;
    goto done;
  }
  if (st || !out->lo.converged) {
    char why[150];
    snprintf(why, sizeof why, "%.140s", st ? e.msg : out->lo.message);
    snprintf(out->lo.message, sizeof out->lo.message, "the samples' interpolation serves: %.120s",
             why);
    out->lo.converged = false;
    out->interp = true;
    st = CGM_OK;
    goto done;
  }

  if (split > 0) {
    /* Past the split: Eq. 3 with 6 or more samples when it converges, else their median. */
    const int nhi = n - nlo;
    const double *mh = mm + nlo, *bh = bb + nlo;
    out->have_hi = true;
    out->split = split;
    if (nhi < 6 || cgm_fit_sigmoid(mh, bh, nhi, CGM_FIT_REL_HI, &out->hi, &e) != CGM_OK ||
        !out->hi.converged) {
      char why[160] = "";
      if (nhi >= 6) snprintf(why, sizeof why, "%.150s", e.code ? e.msg : out->hi.message);
      constant_fit(mh, bh, nhi, why, &out->hi);
    }
  }
done:
  free(pts), free(mm), free(bb);
  return st;
}

void cgm_curve_points(const double *m, const double *b, int n, double width, cgm_iter_points *P) {
  P->n = 0;
  double *pts = n > 0 ? malloc(sizeof(double) * 2 * (size_t)n) : NULL, med[MAXBINS];
  int start[MAXBINS + 1];
  if (!pts) return;
  for (int i = 0; i < n; i++) pts[2 * i] = m[i], pts[2 * i + 1] = b[i];
  qsort(pts, (size_t)n, 2 * sizeof(double), cgm_cmp_double); /* by m: a pair's first */
  const double span = log2(pts[2 * (n - 1)] / pts[0]);
  const int nb = bin_medians(pts, n, fmax(1.0, span / (CGM_ITER_POINTS - 1)), med, start);
  for (int k = 0; k < nb && P->n < CGM_ITER_POINTS; k++) {
    double lu = 0; /* the bin's centre: the mean of its log2 m */
    for (int i = start[k]; i < start[k + 1]; i++)
      lu += log2(pts[2 * i]) / (start[k + 1] - start[k]);
    const double mk = exp2(lu), t = width * mk / (med[k] * 1e9);
    if (!(t > 0) || !isfinite(t)) continue;
    P->m[P->n] = mk;
    P->t[P->n] = P->n > 0 && t < P->t[P->n - 1] ? P->t[P->n - 1] : t;
    P->n++;
  }
  free(pts);
}

double cgm_points_time(const cgm_iter_points *P, double m) {
  if (P->n < 1) return NAN;
  if (m <= P->m[0]) return P->t[0] * m / P->m[0];
  for (int k = 1; k < P->n; k++)
    if (m <= P->m[k]) {
      const double f = log(m / P->m[k - 1]) / log(P->m[k] / P->m[k - 1]);
      return P->t[k - 1] * pow(P->t[k] / P->t[k - 1], f);
    }
  return P->t[P->n - 1] * m / P->m[P->n - 1];
}
