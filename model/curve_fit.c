/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The relative curve of a kernel as the refined model uses it, piecewise
 * where one Eq. 3 cannot follow the samples (docs/model.md, "Where the CPU
 * differs"): below a throughput peak that falls for good (a CPU's caches),
 * Eq. 3 fitted to relative residuals, else a power law or a constant; past
 * it, Eq. 3 or a constant. */
#define _DEFAULT_SOURCE /* M_LN2 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cgmodel/model.h"
#include "common/timer.h"

static int by_m(const void *a, const void *b) {
  double x = ((const double *)a)[0], y = ((const double *)b)[0];
  return (x > y) - (x < y);
}

/* Per-bin medians of (m, b) pairs sorted by m, bins 0.5 wide in log2 m:
 * med[k] over samples start[k] .. start[k + 1] - 1. Returns the bin count. */
enum { MAXBINS = 128 };
static int bin_medians(const double *pts, int n, double *med, int *start) {
  int nb = 0;
  const double lo_u = log2(pts[0]);
  for (int i = 0; i < n && nb < MAXBINS;) {
    int j = i;
    double key = floor((log2(pts[2 * i]) - lo_u) / 0.5);
    while (j < n && floor((log2(pts[2 * j]) - lo_u) / 0.5) == key) j++;
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
  int nb = bin_medians(pts, n, med, start), peak = 0, last = 0;
  for (int k = 1; k < nb; k++)
    if (med[k] > med[peak]) peak = k;
  for (int k = 0; k < nb; k++)
    if (med[k] >= 0.8 * med[peak]) last = k;
  int cut = start[last + 1];
  return cut >= 4 && n - cut >= 3 ? pts[2 * cut] : 0.0;
}

/* A constant throughput as Eq. 3 (mu far below the samples: B = nu): the
 * median of the samples, where Eq. 3 cannot be fitted (a CPU's curve past its
 * caches, or flat over every size measured). */
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
  f->p = (cgm_sigmoid){log2(m[0]) - 40.0, 1.0, c};
  f->se_mu = f->se_sigma = f->se_nu = NAN;
  f->r2 = st > 0 ? 1.0 - ss / st : NAN;
  f->rms = sqrt(ss / n);
  f->n = n;
  f->m_lo = m[0];
  f->m_hi = m[n - 1];
  f->converged = c > 0;
  snprintf(f->message, sizeof f->message, "constant: the median of %d samples%s%.100s", n,
           *why ? " (Eq. 3: " : "", *why ? why : "");
  if (*why) snprintf(f->message + strlen(f->message), sizeof f->message - strlen(f->message), ")");
}

/* A power law B ~ m^k as Eq. 3 (mu far above the samples, u = log2 m): the
 * least-squares line of ln B over u, for a piece that still rises where Eq. 3's plateau is not
 * sampled (a CPU whose caches end before its throughput saturates; a GPU exchange that moves so
 * few bytes that its time is its latency: B ~ m, k = 1). Flat or falling data (under 2% per
 * doubling) get the constant; a rise steeper than B ~ m (time falling with size: an exchange's
 * overhead derived from whole iterations, noise on a latency) is taken as B ~ m, a constant time
 * (the geometric mean of the samples'): never less time for more data. False for non-finite
 * data. */
static bool power_fit(const double *m, const double *b, int n, const char *why, cgm_fit *f) {
  double su = 0, sy = 0, suu = 0, suy = 0;
  for (int i = 0; i < n; i++) {
    double u = log2(m[i]), y = log(b[i]);
    su += u, sy += y, suu += u * u, suy += u * y;
  }
  double den = n * suu - su * su;
  double c = den > 0 ? (n * suy - su * sy) / den : 0.0; /* d ln B / d log2 m */
  if (!isfinite(c)) return false;
  if (c > M_LN2) c = M_LN2; /* a constant time */
  if (c < 0.02) {
    constant_fit(m, b, n, why, f);
    return true;
  }
  double a = (sy - c * su) / n, umax = log2(m[n - 1]);
  constant_fit(m, b, n, why, f); /* the bookkeeping; the curve below */
  /* Eq. 3 far below its mu: B = nu e^((u - mu) / sigma), so ln B = a + c u
   * gives sigma = 1 / c and ln nu = a + c mu; mu 40 sigma past the largest
   * sample leaves Eq. 3's saturation a factor e^-40 there. */
  f->p.sigma = 1.0 / c;
  f->p.mu = umax + 40.0 * f->p.sigma;
  f->p.nu = exp(a + c * f->p.mu);
  double ss = 0, st = 0, mean = 0;
  for (int i = 0; i < n; i++) mean += b[i] / n;
  for (int i = 0; i < n; i++) {
    double r = b[i] - cgm_sigmoid_eval(&f->p, m[i]);
    ss += r * r, st += (b[i] - mean) * (b[i] - mean);
  }
  f->r2 = st > 0 ? 1.0 - ss / st : NAN;
  f->rms = sqrt(ss / n);
  snprintf(f->message, sizeof f->message, "power law: B ~ m^%.3f over %d samples (Eq. 3: %.100s)",
           c / log(2.0), n, why);
  return true;
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
  qsort(pts, (size_t)n, 2 * sizeof(double), by_m);
  const double split = split_point(pts, n);
  int nlo = n;
  if (split > 0)
    while (nlo > 0 && pts[2 * (nlo - 1)] >= split) nlo--;
  for (int i = 0; i < n; i++) mm[i] = pts[2 * i], bb[i] = pts[2 * i + 1];

  /* Below the split (or everything): Eq. 3, else a power law or constant. */
  cgm_error e = {0};
  st = cgm_fit_sigmoid(mm, bb, nlo, CGM_FIT_REL, &out->lo, &e);
  if (st == CGM_ERUNTIME) {
    if (err) *err = e;
    goto done;
  }
  bool fallback = false;
  if (st || !out->lo.converged) {
    char why[160];
    snprintf(why, sizeof why, "%.150s", st ? e.msg : out->lo.message);
    if (nlo >= 3 && power_fit(mm, bb, nlo, why, &out->lo))
      fallback = true, st = CGM_OK;
    else if (st) {
      if (err) *err = e;
      goto done;
    }
  }

  if (split > 0) {
    /* Past the split: Eq. 3 with 6 or more samples when it converges, else
     * their median. */
    const int nhi = n - nlo;
    const double *mh = mm + nlo, *bh = bb + nlo;
    out->have_hi = true;
    out->split = split;
    if (nhi >= 6 && cgm_fit_sigmoid(mh, bh, nhi, CGM_FIT_REL_HI, &out->hi, &e) == CGM_OK &&
        out->hi.converged) {
      /* Eq. 3 */
    } else {
      char why[160] = "";
      if (nhi >= 6) snprintf(why, sizeof why, "%.150s", e.code ? e.msg : out->hi.message);
      constant_fit(mh, bh, nhi, why, &out->hi);
    }
  } else if (fallback && out->lo.p.mu > log2(mm[n - 1]) + 20 * out->lo.p.sigma) {
    /* A power law stops at the largest size measured: past it, the
     * throughput it reached there (never extrapolated upwards). */
    double top = cgm_sigmoid_eval(&out->lo.p, mm[n - 1]);
    constant_fit(&mm[n - 1], &top, 1, "", &out->hi);
    snprintf(out->hi.message, sizeof out->hi.message,
             "constant: the power law's value at the largest sample");
    out->have_hi = true;
    out->split = mm[n - 1];
  }
done:
  free(pts), free(mm), free(bb);
  return st;
}
