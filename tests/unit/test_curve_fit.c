/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The model's piecewise relative curves (cgm_fit_curve) on synthetic data
 * of known shape: a GPU's sigmoid (one piece, its parameters recovered), a
 * CPU's rise, cache peak and fall (two pieces, the split and the memory
 * level recovered), a rise whose plateau is never sampled (a power law,
 * capped at the largest sample), degenerate input; and the refusal of CPU
 * timings disturbed by other processes (cgm_check_cpu_timings). */
#include <stdint.h>

#include "cgmodel/model.h"
#include "cgmodel/pipeline.h"
#include "cgmodel/calibrate.h"
#include "test_linalg.h"
#include "test_util.h"

static uint64_t seed = 12345;

/* multiplicative noise of +-amp (uniform) */
static double noisy(double v, double amp) {
  return v * (1.0 + amp * (2.0 * test_urand(&seed) - 1.0));
}

/* The curve as the model evaluates it: hi from split on, lo below. */
static double curve_at(const cgm_curve_fit *c, double m) {
  return c->have_hi && m >= c->split ? cgm_sigmoid_eval(&c->hi.p, m)
                                     : cgm_sigmoid_eval(&c->lo.p, m);
}

static void test_gpu_sigmoid(void) {
  const cgm_sigmoid truth = {18.0, 1.5, 3000.0};
  double m[60], b[60];
  int n = 0;
  for (double u = 10; u <= 28; u += 0.5, n++)
    m[n] = exp2(u), b[n] = noisy(cgm_sigmoid_eval(&truth, m[n]), 0.02);
  cgm_curve_fit c;
  cgm_error e = {0};
  CHECK_OK(cgm_fit_curve(m, b, n, &c, &e));
  CHECK_MSG(c.lo.converged, "%s", c.lo.message);
  CHECK_MSG(!c.have_hi, "a sigmoid has no second piece (split %g)", c.split);
  CHECK_NEAR(c.lo.p.mu, truth.mu, 0.02);
  CHECK_NEAR(c.lo.p.sigma, truth.sigma, 0.05);
  CHECK_NEAR(c.lo.p.nu, truth.nu, 0.03);
}

/* Rises to 40 GB/s in cache, falls to 15 past 2^22 (a CPU). */
static double cpu_truth(double m) {
  const cgm_sigmoid rise = {13.0, 1.2, 40.0};
  return m < exp2(22) ? cgm_sigmoid_eval(&rise, m) : 15.0;
}

static void test_cpu_cache_peak(void) {
  double m[80], b[80];
  int n = 0;
  for (double u = 10; u <= 26; u += 0.25, n++) m[n] = exp2(u), b[n] = noisy(cpu_truth(m[n]), 0.03);
  /* any order */
  for (int i = 0; i < n / 2; i += 3) {
    double t = m[i], s = b[i];
    m[i] = m[n - 1 - i], b[i] = b[n - 1 - i], m[n - 1 - i] = t, b[n - 1 - i] = s;
  }
  cgm_curve_fit c;
  cgm_error e = {0};
  CHECK_OK(cgm_fit_curve(m, b, n, &c, &e));
  CHECK_MSG(c.have_hi && c.split >= exp2(21.5) && c.split <= exp2(22.5), "split %g (want 2^22)",
            c.split);
  CHECK_MSG(c.lo.converged && c.hi.converged, "%s / %s", c.lo.message, c.hi.message);
  /* the memory level past the peak, and every sample within the noise */
  CHECK_NEAR(curve_at(&c, exp2(25)), 15.0, 0.04);
  int bad = 0;
  for (int i = 0; i < n; i++) bad += fabs(curve_at(&c, m[i]) / cpu_truth(m[i]) - 1.0) > 0.06;
  CHECK_MSG(bad <= 2, "%d of %d samples off the curve by more than 6%%", bad, n);
  /* The avg fit, one sigmoid, cannot: it misses the fall by far. */
  cgm_fit avg;
  CHECK_OK(cgm_fit_sigmoid(m, b, n, CGM_FIT_AVG, &avg, &e));
  CHECK(!avg.converged || fabs(cgm_sigmoid_eval(&avg.p, exp2(25)) / 15.0 - 1.0) > 0.2);
}

/* B = 5 (m / 2^10)^0.2: the plateau is never reached. */
static void test_power_law(void) {
  double m[40], b[40];
  int n = 0;
  for (double u = 10; u <= 20; u += 0.5, n++)
    m[n] = exp2(u), b[n] = noisy(5.0 * pow(m[n] / 1024.0, 0.2), 0.01);
  cgm_curve_fit c;
  cgm_error e = {0};
  CHECK_OK(cgm_fit_curve(m, b, n, &c, &e));
  CHECK_MSG(c.lo.converged, "%s", c.lo.message);
  for (double u = 10; u <= 20; u += 1)
    CHECK_NEAR(curve_at(&c, exp2(u)), 5.0 * pow(exp2(u) / 1024.0, 0.2), 0.03);
  if (!strncmp(c.lo.message, "power law", 9)) {
    /* capped: past the largest sample, the value there */
    CHECK_MSG(c.have_hi && c.split == exp2(20), "split %g", c.split);
    CHECK_NEAR(curve_at(&c, exp2(30)), curve_at(&c, exp2(20)), 1e-9);
  } else {
    /* Eq. 3 converged on it: then it saturates by itself */
    CHECK(!c.have_hi && cgm_sigmoid_eval(&c.lo.p, exp2(40)) < 1e3);
  }
}

/* An exchange whose time is its latency (15 us whatever the bytes: B ~ m,
 * the plateau never sampled): Eq. 3 does not converge, the curve is B ~ m
 * and gives back the time, past the largest sample too (a constant B
 * there). */
static void test_latency_bound(void) {
  double m[16], b[16];
  int n = 0;
  for (double u = 8; u <= 15.5; u += 0.5, n++)
    m[n] = exp2(u), b[n] = 8.0 * m[n] / noisy(15e-6, 0.02) * 1e-9;
  cgm_curve_fit c;
  cgm_error e = {0};
  CHECK_OK(cgm_fit_curve(m, b, n, &c, &e));
  CHECK_MSG(c.lo.converged, "%s", c.lo.message);
  for (double u = 8; u <= 15.5; u += 1)
    CHECK_NEAR(8.0 * exp2(u) / (curve_at(&c, exp2(u)) * 1e9), 15e-6, 0.05 * 15e-6);
  CHECK(curve_at(&c, exp2(20)) <= curve_at(&c, exp2(15.5)) * 1.0001);
}

static void test_degenerate(void) {
  double m[] = {1e3, 2e3, 4e3, 8e3}, b[] = {1, 2, -3, 4};
  cgm_curve_fit c;
  cgm_error e = {0};
  CHECK(cgm_fit_curve(m, b, 3, &c, &e) == CGM_EINPUT && strstr(e.msg, "at least 4"));
  CHECK(cgm_fit_curve(m, b, 4, &c, &e) == CGM_EINPUT && strstr(e.msg, "not positive"));
  b[2] = NAN;
  CHECK(cgm_fit_curve(m, b, 4, &c, &e) == CGM_EINPUT);
}

/* CG4 samples, m = 2^12 .. 2^24, taking 2 us + m / 2e9 s (undisturbed), or
 * 8 ms whatever the size (OpenMP threads preempted by other processes). */
static void test_disturbed_timings(void) {
  cgm_sample s[13];
  for (int disturbed = 0; disturbed < 2; disturbed++) {
    for (int i = 0; i < 13; i++) {
      memset(&s[i], 0, sizeof s[i]);
      snprintf(s[i].kernel, sizeof s[i].kernel, "cg4");
      s[i].precision = CGM_PREC_DOUBLE;
      s[i].m = exp2(12 + i);
      s[i].bytes = 8 * s[i].m;
      s[i].seconds = disturbed ? noisy(8e-3, 0.01) : 2e-6 + s[i].m / 2e9;
    }
    cgm_error e = {0};
    cgm_status st = cgm_check_cpu_timings(s, 13, &e);
    if (disturbed)
      CHECK_MSG(st == CGM_ERUNTIME && strstr(e.msg, "disturbed"), "%d %s", st, e.msg);
    else
      CHECK_MSG(st == CGM_OK, "%s", e.msg);
    /* too few samples to tell: accepted */
    CHECK(cgm_check_cpu_timings(s, 7, &e) == CGM_OK);
  }
}

int main(void) {
  test_gpu_sigmoid();
  test_cpu_cache_peak();
  test_power_law();
  test_latency_bound();
  test_degenerate();
  test_disturbed_timings();
  TEST_MAIN_END();
}
