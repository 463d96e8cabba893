/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Calibration's exchange overhead (pipeline_derive_xfer): every mgpu sample
 * of a Poisson grid becomes an xfer sample with the same variant, GPUs,
 * precision and bytes; its time is the iteration minus the slowest GPU's
 * predicted compute, at least 5% of the iteration; without a single-GPU
 * curve for the precision, the whole iteration; other samples are left
 * alone. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cgmodel/cgmodel.h"
#include "pipeline/curves.h"
#include "test_util.h"

static cgm_sample mgpu(const char *source, int prec, double seconds) {
  cgm_sample s;
  memset(&s, 0, sizeof s);
  snprintf(s.kernel, sizeof s.kernel, "mgpu");
  snprintf(s.variant, sizeof s.variant, "halo");
  snprintf(s.source, sizeof s.source, "%s", source);
  s.precision = prec;
  s.block = 2; /* GPUs */
  s.bytes = 65536.0 * (prec == CGM_PREC_SINGLE ? 4 : 8);
  s.m = 65536.0;
  s.seconds = seconds;
  return s;
}

/* The refined model prices a halo at most at its curve's floor plus p2p's
 * time for its bytes: a halo curve fitted where the bytes are microseconds
 * beside the synchronisation (here 5 GB/s) is not extrapolated to a graph's
 * halo of most of its vector. */
static void test_halo_capped(void) {
  cgm_device_model m;
  memset(&m, 0, sizeof m);
  m.width = 8;
  for (int b = 0; b < 4; b++) m.spmv[b] = (cgm_sigmoid){20.0, 1.4, 2600.0}, m.have_spmv[b] = true;
  m.cg4 = (cgm_sigmoid){19.5, 1.4, 2900.0};
  m.cg5 = (cgm_sigmoid){19.0, 1.4, 2900.0};
  m.have_vec = true;
  const cgm_sigmoid halo = {14.0, 1.44, 5.0}, p2p = {17.0, 1.44, 300.0};
  m.xfer[CGM_EXCHANGE_HALO][2] = halo, m.have_xfer[CGM_EXCHANGE_HALO][2] = true;
  cgm_csr A;
  cgm_error err = {0};
  CHECK_OK(cgm_gen_random_spd(200000, 8, CGM_ROWDIST_UNIFORM, 2.5, 100, 1, &A, &err));
  cgm_plan_opts po = cgm_plan_opts_default();
  po.backend = CGM_BACKEND_CUDA;
  po.gpus = 2;
  cgm_plan p;
  CHECK_OK(cgm_plan_make(&A, &po, &p, &err));
  const double b = (double)p.exchange_elems * 8;
  CHECK_MSG(b > 1e6, "a halo of %.0f bytes", b);
  const double alone = cgm_refined_time(&m, &p);
  m.xfer[CGM_EXCHANGE_P2P][2] = p2p, m.have_xfer[CGM_EXCHANGE_P2P][2] = true;
  const double capped = cgm_refined_time(&m, &p);
  const double t_halo = b / (cgm_sigmoid_eval(&halo, b / 8) * 1e9);
  const double t_p2p = b / (cgm_sigmoid_eval(&p2p, b / 8) * 1e9);
  /* the floor (one element's time) is under a microsecond here */
  CHECK_MSG(isfinite(alone) && alone - capped > 0.9 * (t_halo - t_p2p) &&
                alone - capped < t_halo - t_p2p,
            "halo alone %.3g s, capped %.3g s; the curves give %.3g and %.3g s", alone, capped,
            t_halo, t_p2p);
  /* and a halo its curve prices below that stays as it was */
  m.xfer[CGM_EXCHANGE_P2P][2] = (cgm_sigmoid){17.0, 1.44, 1.0};
  CHECK_NEAR(cgm_refined_time(&m, &p), alone, 1e-15);
  cgm_csr_free(&A);
}

int main(void) {
  test_halo_capped();
  cgm_error err = {0};
  /* One converged whole-iteration curve, double precision, N = 1: about
   * 1 TB/s for large iterations. */
  cgm_db_fit fit;
  memset(&fit, 0, sizeof fit);
  snprintf(fit.kernel, sizeof fit.kernel, "iter");
  snprintf(fit.variant, sizeof fit.variant, "mesh");
  fit.precision = CGM_PREC_DOUBLE;
  fit.block = 1;
  fit.kind = CGM_FIT_REL;
  fit.mu = 14.0;
  fit.sigma = 1.5;
  fit.nu = 1000.0;
  fit.converged = 1;
  fit.m_lo = fit.m_hi = NAN;

  cgm_sample_vec sv = {0};
  const cgm_sample in[] = {
      mgpu("poisson3d:16", CGM_PREC_DOUBLE, 1.0),   /* overhead: nearly all of it */
      mgpu("poisson3d:16", CGM_PREC_DOUBLE, 1e-12), /* below the compute: the 5% floor */
      mgpu("poisson2d:64", CGM_PREC_SINGLE, 2e-5),  /* no single-precision curve */
      mgpu("elasticity3d:8", CGM_PREC_DOUBLE, 1.0), /* not a Poisson grid: skipped */
  };
  for (size_t i = 0; i < sizeof in / sizeof *in; i++) CHECK(cgm_sample_vec_push(&sv, &in[i]) == 0);
  cgm_sample other = in[0];
  snprintf(other.kernel, sizeof other.kernel, "iter"); /* not mgpu: skipped */
  CHECK(cgm_sample_vec_push(&sv, &other) == 0);
  const int n0 = sv.n;
  const cgm_gpu_opts gpu = cgm_gpu_opts_default();
  CHECK_OK(pipeline_derive_xfer(&sv, &fit, 1, &gpu, &err));
  CHECK_MSG(sv.n == n0 + 3, "%d xfer samples, expected 3", sv.n - n0);
  for (int i = 0; i < n0; i++) CHECK(!strcmp(sv.v[i].kernel, i < 4 ? "mgpu" : "iter"));
  if (sv.n == n0 + 3) {
    const cgm_sample *a = &sv.v[n0], *b = &sv.v[n0 + 1], *c = &sv.v[n0 + 2];
    for (int k = 0; k < 3; k++) {
      const cgm_sample *x = &sv.v[n0 + k];
      CHECK(!strcmp(x->kernel, "xfer") && !strcmp(x->variant, "halo") && x->block == 2);
      CHECK_NEAR(x->bytes, in[k].bytes, 0);
      CHECK_NEAR(x->m, x->bytes / (x->precision == CGM_PREC_SINGLE ? 4 : 8), 0);
      CHECK(x->precision == in[k].precision);
    }
    /* 16^3 rows take microseconds at ~1 TB/s: the overhead is the second
     * minus a few microseconds, and the compute part is positive. */
    CHECK_MSG(a->seconds < 1.0 && a->seconds > 1.0 - 1e-3, "xfer %.9g s of a 1 s iteration",
              a->seconds);
    CHECK_NEAR(b->seconds, 0.05 * 1e-12, 1e-20);
    CHECK_NEAR(c->seconds, 2e-5, 0);
  }
  free(sv.v);
  TEST_MAIN_END();
}
