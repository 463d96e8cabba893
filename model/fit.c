/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Fitting Eq. 3 to throughput samples with GSL's nonlinear least squares (trust region,
 * Levenberg-Marquardt), as the paper does (Sec. 5.1, ref. 33). The solver works on u = log2 m and
 * on q = (mu, ln sigma, ln nu), so that every iterate has sigma > 0 and nu > 0; standard errors are
 * reported for (mu, sigma, nu) from the Jacobian in those parameters. docs/model.md describes the
 * procedure (starts, avg vs max fit, checks). */
#include "cgmodel/model.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <threads.h>

#include <gsl/gsl_blas.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_matrix.h>
#include <gsl/gsl_multifit_nlinear.h>
#include <gsl/gsl_vector.h>

#include "common/timer.h" /* cgm_cmp_double */

enum {
  FIT_MAXITER = 500,
  FIT_P = 3, /* mu, sigma, nu */
};
static const double FIT_XTOL = 1e-10, FIT_GTOL = 1e-10, FIT_FTOL = 0.0;
static const double BIN_WIDTH = 0.5; /* in log2 m, for the max fit and the mu0 guess */
static const double SIGMA_STARTS[] = {0.5, 1.0, 2.0, 4.0};
/* ln sigma and ln nu stay in [-LOG_CLAMP, LOG_CLAMP] inside the model so a
 * wild trial step cannot overflow exp() (GSL aborts an iteration whose f is
 * an error; a clamped, flat f only makes the step be rejected). */
static const double LOG_CLAMP = 40.0;

static once_flag gsl_once = ONCE_FLAG_INIT;
/* GSL's default handler calls abort(); the library must return errors instead. */
static void gsl_quiet(void) {
  gsl_set_error_handler_off();
}

typedef struct {
  const double *u; /* log2 m, sorted ascending */
  const double *b; /* GB/s */
  size_t n;
  bool relative; /* residuals relative to the sample: (B - b) / b */
} fit_data;

static double clampd(double v, double lo, double hi) {
  return v < lo ? lo : v > hi ? hi : v;
}

static void unpack(const gsl_vector *q, double *mu, double *sigma, double *nu) {
  *mu = gsl_vector_get(q, 0);
  *sigma = exp(clampd(gsl_vector_get(q, 1), -LOG_CLAMP, LOG_CLAMP));
  *nu = exp(clampd(gsl_vector_get(q, 2), -LOG_CLAMP, LOG_CLAMP));
}

/* Residuals r_i = B(u_i) - b_i with Eq. 3 in log2 m. */
static int model_f(const gsl_vector *q, void *params, gsl_vector *r) {
  const fit_data *d = params;
  double mu, sigma, nu;
  unpack(q, &mu, &sigma, &nu);
  for (size_t i = 0; i < d->n; i++) {
    double ri = nu * cgm_logistic((d->u[i] - mu) / sigma) - d->b[i];
    gsl_vector_set(r, i, d->relative ? ri / d->b[i] : ri);
  }
  return GSL_SUCCESS;
}

/* With z = (u - mu)/sigma, g = logistic(z), g' = g (1 - g):
 *   dB/dmu = -nu g' / sigma, dB/d(ln sigma) = -nu g' z, dB/d(ln nu) = nu g. */
static int model_df(const gsl_vector *q, void *params, gsl_matrix *J) {
  const fit_data *d = params;
  double mu, sigma, nu;
  unpack(q, &mu, &sigma, &nu);
  for (size_t i = 0; i < d->n; i++) {
    double z = (d->u[i] - mu) / sigma;
    double g = cgm_logistic(z), gp = g * cgm_logistic(-z);
    double wt = d->relative ? 1.0 / d->b[i] : 1.0;
    gsl_matrix_set(J, i, 0, -wt * nu * gp / sigma);
    gsl_matrix_set(J, i, 1, -wt * nu * gp * z);
    gsl_matrix_set(J, i, 2, wt * nu * g);
  }
  return GSL_SUCCESS;
}

typedef struct {
  double mu, sigma, nu;
  double se_mu, se_sigma, se_nu;
  double chi2;
  int iterations;
  int gsl_status;
  bool ok;          /* GSL converged and the curve passed physical() */
  char reason[100]; /* why not ok */
} fit_run;

static void run_lm(gsl_multifit_nlinear_workspace *w, gsl_multifit_nlinear_fdf *fdf, double mu0,
                   double sigma0, double nu0, fit_run *run) {
  double q0[FIT_P] = {mu0, log(sigma0), log(nu0)};
  gsl_vector_view v0 = gsl_vector_view_array(q0, FIT_P);
  memset(run, 0, sizeof *run);
  int st = gsl_multifit_nlinear_init(&v0.vector, fdf, w), info = 0;
  if (st == GSL_SUCCESS)
    st = gsl_multifit_nlinear_driver(FIT_MAXITER, FIT_XTOL, FIT_GTOL, FIT_FTOL, NULL, NULL, &info,
                                     w);
  run->gsl_status = st;
  run->iterations = (int)gsl_multifit_nlinear_niter(w);
  unpack(gsl_multifit_nlinear_position(w), &run->mu, &run->sigma, &run->nu);
  double fn = gsl_blas_dnrm2(gsl_multifit_nlinear_residual(w));
  run->chi2 = isfinite(fn) ? fn * fn : INFINITY;
  if (st != GSL_SUCCESS)
    snprintf(run->reason, sizeof run->reason, "GSL: %s after %d iterations", gsl_strerror(st),
             run->iterations);
}

bool cgm_fit_bounded(const cgm_sigmoid *p, double m_lo, double m_hi, double bmax, char *why,
                     size_t n) {
  const double u_lo = log2(m_lo), u_hi = log2(m_hi), span = fmax(u_hi - u_lo, 1.0);
  if (!isfinite(p->mu) || !isfinite(p->sigma) || !isfinite(p->nu))
    snprintf(why, n, "non-finite parameters");
  else if (p->sigma < 1e-3)
    snprintf(why, n, "sigma = %.3g: a step, not a sigmoid", p->sigma);
  else if (p->sigma > 10.0 * span)
    snprintf(why, n, "sigma = %.3g: the rise is much wider than the data (%.3g in log2 m)",
             p->sigma, u_hi - u_lo);
  else if (!(p->nu > 0) || p->nu > CGM_FIT_NU_BOUND * bmax)
    snprintf(why, n,
             "nu = %.4g GB/s: over %gx the fastest sample (%.4g), the plateau is not sampled",
             p->nu, CGM_FIT_NU_BOUND, bmax);
  else if (p->mu < u_lo - 10.0 || p->mu > u_hi + 10.0)
    snprintf(why, n, "mu = %.4g: over 10 doublings outside the data (log2 m in [%.4g, %.4g])",
             p->mu, u_lo, u_hi);
  else
    return true;
  return false;
}

/* A converged minimum can still be a curve the data do not determine (the solver ran off to a
 * limit, or the samples see only part of the sigmoid): reject those, and those out of bounds.
 * u_lo..u_hi is the data's range in log2 m and bmax the largest sample. The standard errors must
 * already be in r. */
static bool physical(fit_run *r, double u_lo, double u_hi, double bmax) {
  double span = u_hi - u_lo;
  const cgm_sigmoid p = {r->mu, r->sigma, r->nu};
  if (!isfinite(r->chi2))
    snprintf(r->reason, sizeof r->reason, "non-finite residuals");
  else if (!cgm_fit_bounded(&p, exp2(u_lo), exp2(u_hi), bmax, r->reason, sizeof r->reason))
    return false;
  else if (!(r->se_mu < fmax(span, 1.0)) || !(r->se_sigma < r->sigma) || !(r->se_nu < r->nu))
    snprintf(r->reason, sizeof r->reason,
             "not determined by the data: se mu %.3g, sigma %.3g, nu %.3g", r->se_mu, r->se_sigma,
             r->se_nu);
  else if (r->chi2 > 0.0 && (r->se_mu == 0.0 || r->se_sigma == 0.0 || r->se_nu == 0.0))
    snprintf(r->reason, sizeof r->reason, "singular Jacobian: a parameter has no effect");
  else
    return true;
  return false;
}

/* log2 m where the bin means of b (bins of BIN_WIDTH, u sorted) first reach
 * level, interpolated between bins and clamped to the data's range. The bin
 * means smooth out noise that would make single samples cross early. */
static double half_point(const double *u, const double *b, size_t n, double level) {
  double prev_u = u[0], prev_b = 0.0;
  bool have_prev = false;
  size_t i = 0;
  while (i < n) {
    double key = floor(u[i] / BIN_WIDTH), su = 0.0, sb = 0.0;
    size_t k = 0;
    for (; i < n && floor(u[i] / BIN_WIDTH) == key; i++, k++) su += u[i], sb += b[i];
    double mu_bin = su / (double)k, mb = sb / (double)k;
    if (mb >= level) {
      if (!have_prev || mb == prev_b) return mu_bin;
      return prev_u + (level - prev_b) / (mb - prev_b) * (mu_bin - prev_u);
    }
    prev_u = mu_bin, prev_b = mb, have_prev = true;
  }
  return u[n - 1];
}

/* Standard errors of (mu, sigma, nu): (J^T J)^-1 with J the Jacobian in
 * those parameters, scaled by the residual variance chi^2 / (n - 3). */
static void std_errors(const fit_data *d, fit_run *r, gsl_matrix *J, gsl_matrix *C) {
  double q[FIT_P] = {r->mu, log(r->sigma), log(r->nu)};
  gsl_vector_view qv = gsl_vector_view_array(q, FIT_P);
  model_df(&qv.vector, (void *)d, J);
  for (size_t i = 0; i < d->n; i++) { /* chain rule back from ln sigma, ln nu */
    gsl_matrix_set(J, i, 1, gsl_matrix_get(J, i, 1) / r->sigma);
    gsl_matrix_set(J, i, 2, gsl_matrix_get(J, i, 2) / r->nu);
  }
  double s2 = r->chi2 / (double)(d->n - FIT_P);
  r->se_mu = r->se_sigma = r->se_nu = NAN;
  if (isfinite(s2) && gsl_multifit_nlinear_covar(J, 0.0, C) == GSL_SUCCESS) {
    r->se_mu = sqrt(s2 * gsl_matrix_get(C, 0, 0));
    r->se_sigma = sqrt(s2 * gsl_matrix_get(C, 1, 1));
    r->se_nu = sqrt(s2 * gsl_matrix_get(C, 2, 2));
  }
}

/* Multi-start LM on (u, b), u sorted ascending, n >= 4 with >= 3 distinct u. Keeps the converged
 * run with the smallest chi^2; if none converged, the run with the smallest chi^2 and ok = false.
 * CGM_ERUNTIME if GSL cannot allocate. */
static cgm_status fit_points(const double *u, const double *b, size_t n, bool relative,
                             fit_run *best, cgm_error *err) {
  memset(best, 0, sizeof *best);
  fit_data d = {u, b, n, relative};
  gsl_multifit_nlinear_fdf fdf = {
      .f = model_f, .df = model_df, .fvv = NULL, .n = n, .p = FIT_P, .params = &d};
  gsl_multifit_nlinear_parameters fp = gsl_multifit_nlinear_default_parameters();
  fp.trs = gsl_multifit_nlinear_trs_lm;
  gsl_multifit_nlinear_workspace *w =
      gsl_multifit_nlinear_alloc(gsl_multifit_nlinear_trust, &fp, n, FIT_P);
  gsl_matrix *J = gsl_matrix_alloc(n, FIT_P), *C = gsl_matrix_alloc(FIT_P, FIT_P);
  const cgm_status st =
      w && J && C ? CGM_OK : cgm_fail(err, CGM_ERUNTIME, "fit: out of memory for %zu samples", n);

  double bmax = 0.0;
  for (size_t i = 0; i < n; i++) bmax = fmax(bmax, b[i]);
  double nu0 = 1.02 * bmax; /* just above the highest sample: the plateau */
  double mu_starts[2] = {half_point(u, b, n, nu0 / 2.0), 0.5 * (u[0] + u[n - 1])};
  int n_mu = fabs(mu_starts[0] - mu_starts[1]) < 0.25 ? 1 : 2;

  bool have = false;
  for (int a = 0; a < n_mu && !st; a++)
    for (size_t s = 0; s < sizeof SIGMA_STARTS / sizeof SIGMA_STARTS[0]; s++) {
      fit_run r;
      run_lm(w, &fdf, mu_starts[a], SIGMA_STARTS[s], nu0, &r);
      std_errors(&d, &r, J, C);
      if (r.gsl_status == GSL_SUCCESS) r.ok = physical(&r, u[0], u[n - 1], bmax);
      /* A converged run beats any unconverged one; then the smaller chi^2. */
      bool better = !have || (r.ok && !best->ok) || (r.ok == best->ok && r.chi2 < best->chi2);
      if (better) *best = r, have = true;
    }
  gsl_multifit_nlinear_free(w); /* each of GSL's frees takes NULL */
  gsl_matrix_free(J);
  gsl_matrix_free(C);
  return st;
}

/* rms and R^2 = 1 - SS_res / SS_tot of the curve s on (u, b). R^2 is NaN
 * when every b is equal (SS_tot = 0: nothing to explain). */
static void goodness(const cgm_sigmoid *s, const double *u, const double *b, size_t n, double *rms,
                     double *r2) {
  double mean = 0.0, ss_res = 0.0, ss_tot = 0.0;
  for (size_t i = 0; i < n; i++) mean += b[i];
  mean /= (double)n;
  for (size_t i = 0; i < n; i++) {
    double r = cgm_sigmoid_eval(s, exp2(u[i])) - b[i];
    ss_res += r * r;
    ss_tot += (b[i] - mean) * (b[i] - mean);
  }
  *rms = sqrt(ss_res / (double)n);
  *r2 = ss_tot > 0.0 ? 1.0 - ss_res / ss_tot : NAN;
}

typedef struct {
  double u, b; /* u first: cgm_cmp_double orders the samples by it */
} sample;

cgm_status cgm_fit_sigmoid(const double *m, const double *b, int n, cgm_fit_kind kind, cgm_fit *out,
                           cgm_error *err) {
  if (!out) return cgm_fail(err, CGM_EINPUT, "fit: no output");
  memset(out, 0, sizeof *out);
  if (kind != CGM_FIT_AVG && kind != CGM_FIT_MAX && kind != CGM_FIT_REL && kind != CGM_FIT_REL_HI)
    return cgm_fail(err, CGM_EINPUT, "fit: unknown fit kind %d", (int)kind);
  if (n < 4)
    return cgm_fail(err, CGM_EINPUT, "degenerate data: %d samples, the fit needs at least 4", n);
  if (!m || !b) return cgm_fail(err, CGM_EINPUT, "fit: no samples given");
  for (int i = 0; i < n; i++) {
    if (!isfinite(m[i]) || m[i] <= 0.0)
      return cgm_fail(err, CGM_EINPUT,
                      "degenerate data: sample %d has m = %g transactions (must be finite and > 0)",
                      i, m[i]);
    if (!isfinite(b[i]) || b[i] <= 0.0)
      return cgm_fail(err, CGM_EINPUT,
                      "degenerate data: sample %d has b = %g GB/s (must be finite and > 0)", i,
                      b[i]);
  }
  call_once(&gsl_once, gsl_quiet);

  size_t N = (size_t)n;
  sample *smp = malloc(N * sizeof *smp);
  double *u = malloc(N * sizeof *u), *bb = malloc(N * sizeof *bb);
  if (!smp || !u || !bb) {
    free(smp), free(u), free(bb);
    return cgm_fail(err, CGM_ERUNTIME, "fit: out of memory for %d samples", n);
  }
  for (size_t i = 0; i < N; i++) smp[i] = (sample){log2(m[i]), b[i]};
  qsort(smp, N, sizeof *smp, cgm_cmp_double);
  int distinct = 1;
  for (size_t i = 1; i < N; i++) distinct += smp[i].u != smp[i - 1].u;
  cgm_status st = CGM_OK;
  if (distinct < 3) {
    st = cgm_fail(err, CGM_EINPUT,
                  "degenerate data: %d distinct transaction counts, the fit needs at least 3",
                  distinct);
    goto done;
  }

  /* The points the LM fits: all samples (avg), or each bin's maximum (max). */
  size_t nfit = 0;
  if (kind == CGM_FIT_MAX) {
    for (size_t i = 0; i < N;) {
      double key = floor(smp[i].u / BIN_WIDTH);
      size_t top = i;
      for (; i < N && floor(smp[i].u / BIN_WIDTH) == key; i++)
        if (smp[i].b > smp[top].b) top = i;
      u[nfit] = smp[top].u, bb[nfit] = smp[top].b, nfit++;
    }
  }
  bool all_points = kind != CGM_FIT_MAX || nfit < 4;
  if (all_points) { /* too few bins: fit everything, then lift to the top sample */
    for (size_t i = 0; i < N; i++) u[i] = smp[i].u, bb[i] = smp[i].b;
    nfit = N;
  }

  fit_run fr;
  st = fit_points(u, bb, nfit, kind == CGM_FIT_REL || kind == CGM_FIT_REL_HI, &fr, err);
  if (st != CGM_OK) goto done;

  out->p = (cgm_sigmoid){fr.mu, fr.sigma, fr.nu};
  out->m_lo = exp2(smp[0].u);
  out->m_hi = exp2(smp[N - 1].u);
  out->se_mu = fr.se_mu, out->se_sigma = fr.se_sigma, out->se_nu = fr.se_nu;
  out->n = (int)nfit;
  out->iterations = fr.iterations;
  out->converged = fr.ok;
  if (!fr.ok)
    snprintf(out->message, sizeof out->message, "not converged (chi^2 %.4g): %s", fr.chi2,
             fr.reason);
  goodness(&out->p, u, bb, nfit, &out->rms, &out->r2);

  /* Max fit: scale the curve up (nu only: mu and sigma, the shape, stay) until no sample is above
   * it by more than tol, the rms of the fit to the bin maxima (their noise); in the all-points
   * fallback tol = 0, so the curve passes through the sample that is highest relative to it. */
  if (kind == CGM_FIT_MAX && out->converged) {
    /* how far a sample may stay above the lifted curve */
    const double tol = all_points ? 0.0 : out->rms;
    double k = 1.0;
    for (size_t i = 0; i < N; i++)
      k = fmax(k, (smp[i].b - tol) / cgm_sigmoid_eval(&out->p, exp2(smp[i].u)));
    double bmax = 0.0;
    for (size_t i = 0; i < N; i++) bmax = fmax(bmax, smp[i].b);
    if (isfinite(k)) {
      out->p.nu *= k;
      out->se_nu *= k; /* same relative error */
      goodness(&out->p, u, bb, nfit, &out->rms, &out->r2);
      char why[100];
      if (!cgm_fit_bounded(&out->p, out->m_lo, out->m_hi, bmax, why, sizeof why)) {
        out->converged = false;
        snprintf(out->message, sizeof out->message, "max fit lifted out of bounds: %s", why);
      }
    } else { /* a sample where the curve underflows to 0: no finite lift */
      out->converged = false;
      snprintf(out->message, sizeof out->message,
               "max fit: a sample lies where the fitted curve is 0, nu cannot be lifted");
    }
  }

done:
  free(smp), free(u), free(bb);
  return st;
}

const char *cgm_fit_kind_name(int kind) {
  static const char *const names[] = {"avg", "max", "rel", "rel-hi", "interp"};
  return kind >= 0 && kind < 5 ? names[kind] : "?";
}
