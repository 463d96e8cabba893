/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The paper's model, Eqs. 4-9, against values computed by hand with the
 * GTX280 parameters: Table 2 (vector kernels), Table 3 max fits (SpMV),
 * Sec. 5.5 (idc mu = 16.7, sigma = 1.4, nu = 10 GB/s) and T_sync = 35 us
 * (Sec. 5.7), width 4 (single precision, as the paper).
 *
 * Each term is Eq. 5, T = 4 m / (B(m) 1e9) with Eq. 3
 * B = nu / (1 + exp(-z)), z = (log2 m - mu) / sigma. The comments give
 * log2 m, z, B (GB/s) and T (s) to the digits shown; the checked values
 * carry 10 significant digits, so they are compared at 1e-8 relative. */
#include "cgmodel/model.h"
#include "test_util.h"

#define CHECK_REL(a, b, rtol)                                                                      \
  do {                                                                                             \
    double _x = (double)(a), _y = (double)(b);                                                     \
    if (!(fabs(_x - _y) <= (rtol)*fabs(_y))) {                                                     \
      fprintf(stderr, "%s:%d: CHECK_REL failed: %s = %.12g, want %.12g (rel %.3g)\n", __FILE__,    \
              __LINE__, #a, _x, _y, fabs(_x - _y) / fabs(_y));                                     \
      cgm_test_failures++;                                                                         \
    }                                                                                              \
  } while (0)

static const double RT = 1e-8;

static cgm_paper_params gtx280(void) {
  cgm_paper_params p = {
      .spmv = {{19, 1.2, 85},
               {19.6, 1.4, 135},
               {19.9, 1.4, 140},
               {20.11, 1.5, 145}}, /* Table 3 max */
      .cg2 = {19, 1.45, 117},      /* Table 2 */
      .cg3 = {19, 1.45, 120},
      .cg4 = {19.3, 1.45, 116},
      .cg5 = {19.2, 1.45, 106},
      .red = {19.7, 1.4, 120},
      .idc = {16.7, 1.4, 10}, /* Sec. 5.5 */
      .t_sync = 35e-6,        /* Sec. 5.7 */
      .width = 4,
  };
  return p;
}

/* Eq. 3 and Eq. 5 on their own. */
static void sigmoid(void) {
  const cgm_sigmoid s = {17.9, 1.5, 119}; /* Fig. 5, fixed grids */
  /* at m = 2^mu, z = 0: B = nu / 2 */
  CHECK_REL(cgm_sigmoid_eval(&s, exp2(17.9)), 59.5, 1e-14);
  /* m = 2^20.9: z = 3/1.5 = 2, B = 119/(1+e^-2) = 119/1.135335283 = 104.8148523 */
  CHECK_REL(cgm_sigmoid_eval(&s, exp2(20.9)), 104.8148523, RT);
  /* m = 2^14.9: z = -2, B = 119/(1+e^2) = 119/8.389056099 = 14.18514772 */
  CHECK_REL(cgm_sigmoid_eval(&s, exp2(14.9)), 14.18514772, RT);
  /* Eq. 5: T = width m / B: 8 bytes x 2^20.9 / 104.8148523e9 = 1.493461632e-4 */
  CHECK_REL(cgm_sigmoid_time(&s, exp2(20.9), 8), 1.493461632e-4, RT);
  CHECK_REL(cgm_sigmoid_time(&s, exp2(20.9), 4), 0.5 * cgm_sigmoid_time(&s, exp2(20.9), 8), 1e-15);
  /* far below and above the rise: no overflow, B -> 0 and nu */
  CHECK(cgm_sigmoid_eval(&s, 1e-300) >= 0 && cgm_sigmoid_eval(&s, 1e-300) < 1e-100);
  CHECK_REL(cgm_sigmoid_eval(&s, 1e300), 119, 1e-15);
  CHECK(cgm_sigmoid_time(&s, 0, 4) == 0);
  CHECK(isnan(cgm_sigmoid_eval(&s, -1)));
}

static void block_index(void) {
  CHECK(cgm_block_index(1) == 0 && cgm_block_index(2) == 1);
  CHECK(cgm_block_index(4) == 2 && cgm_block_index(8) == 3);
  int bad[] = {0, -1, 3, 5, 6, 7, 16, 64};
  for (int i = 0; i < 8; i++) CHECK(cgm_block_index(bad[i]) == -1);
  cgm_paper_params p = gtx280();
  CHECK(isnan(cgm_paper_time(&p, 3, 1e5, 1e6)));
  CHECK(isnan(cgm_paper_gflops(&p, 16, 1e5, 1e6)));
  CHECK(isnan(cgm_paper_time(&p, 4, -1, 1e6)) && isnan(cgm_paper_time(&p, 4, 1e5, NAN)));
  CHECK(isnan(cgm_paper_time_parallel(&p, 4, 1e5, 1e6, 0, false)));
}

/* nd24k-like: x = 72000, e = 28.7e6, N = 2 (the paper's Sec. 6.3 example).
 *   spmv m = 2e = 57.4e6: log2 m = 25.774547, z = (25.774547-19.6)/1.4 = 4.410391,
 *        B = 135/(1+e^-4.410391) = 133.379384, T = 4*57.4e6/133.379384e9 = 1.721405466e-3
 *   cg2  m = 2x = 144000: log2 m = 17.135709, z = (17.135709-19)/1.45 = -1.285718,
 *        B = 117/(1+e^1.285718) = 25.339686, T = 4*144000/25.339686e9 = 2.273114219e-5
 *   cg3  m = 3x = 216000: log2 m = 17.720672, z = -0.882295,
 *        B = 120/(1+e^0.882295) = 35.124283, T = 2.459836690e-5
 *   cg4  m = 9x = 648000: log2 m = 19.305634, z = (19.305634-19.3)/1.45 = 0.003886,
 *        B = 116/(1+e^-0.003886) = 58.112686, T = 4.460299800e-5
 *   cg5  m = 6x = 432000: log2 m = 18.720672, z = -0.330571,
 *        B = 106/(1+e^0.330571) = 44.318775, T = 3.899024723e-5
 *   red  m = x = 72000: log2 m = 16.135709, z = (16.135709-19.7)/1.4 = -2.545922,
 *        B = 120/(1+e^2.545922) = 8.724112, T = 3.301195674e-5
 * Eq. 4: T = 1.721405466e-3 + 2.273114219e-5 + 2.459836690e-5 + 4.460299800e-5
 *          + 3.899024723e-5 + 3 * 3.301195674e-5 = 1.951364091e-3 s
 * Eq. 6: F = 2 * 28.7e6 + 15 * 72000 = 58.48e6
 * Eq. 7: P = 58.48e6 / 1.951364091e-3 / 1e9 = 29.96877942 GFLOPS
 * Eq. 8 with d_2 = 0.84 (Sec. 6.3): F = 2 * 28.7e6 * 0.84 + 1.08e6 = 49.296e6
 * Eq. 9, 2 GPUs, each x/2 = 36000, e/2 = 14.35e6:
 *   spmv m = 28.7e6:  z = (24.774547-19.6)/1.4 = 3.696105, B = 131.730450, T = 8.714765675e-4
 *   cg2  m = 72000:   z = -1.975373, B = 14.252116, T = 2.020752627e-5
 *   cg3  m = 108000:  z = -1.571950, B = 20.632621, T = 2.093771762e-5
 *   cg4  m = 324000:  z = -0.685769, B = 38.857081, T = 3.335299405e-5
 *   cg5  m = 216000:  z = -1.020226, B = 28.088231, T = 3.076021406e-5
 *   red  m = 36000:   z = -3.260208, B = 4.435418,  T = 3.246593636e-5
 *   T(x/2, e/2) = 1.074132829e-3
 *   host-staged: m_idc = 2x = 144000, z = (17.135709-16.7)/1.4 = 0.311221,
 *        B = 10/(1+e^-0.311221) = 5.771832, T_idc = 4*144000/5.771832e9 = 9.979499656e-5
 *   direct: m_idc = x = 72000, z = (16.135709-16.7)/1.4 = -0.403065,
 *        B = 10/(1+e^0.403065) = 4.005762, T_idc = 7.189643085e-5
 *   T_p host = 1.074132829e-3 + 9.979499656e-5 + 4 * 35e-6 = 1.313927825e-3
 *   T_p direct = 1.074132829e-3 + 7.189643085e-5 + 1.4e-4 = 1.286029259e-3 */
static void nd24k(void) {
  cgm_paper_params p = gtx280();
  const double x = 72000, e = 28.7e6;
  CHECK_REL(cgm_sigmoid_time(&p.spmv[1], 2 * e, 4), 1.721405466e-3, RT);
  CHECK_REL(cgm_sigmoid_time(&p.cg2, 2 * x, 4), 2.273114219e-5, RT);
  CHECK_REL(cgm_sigmoid_time(&p.cg3, 3 * x, 4), 2.459836690e-5, RT);
  CHECK_REL(cgm_sigmoid_time(&p.cg4, 9 * x, 4), 4.460299800e-5, RT);
  CHECK_REL(cgm_sigmoid_time(&p.cg5, 6 * x, 4), 3.899024723e-5, RT);
  CHECK_REL(cgm_sigmoid_time(&p.red, x, 4), 3.301195674e-5, RT);
  CHECK_REL(cgm_paper_time(&p, 2, x, e), 1.951364091e-3, RT);
  CHECK(cgm_paper_flops(x, e) == 58.48e6);
  CHECK_REL(cgm_paper_gflops(&p, 2, x, e), 29.96877942, RT);
  CHECK_REL(cgm_paper_flops_real(x, e, 0.84), 49.296e6, 1e-15);
  CHECK_REL(cgm_paper_time(&p, 2, x / 2, e / 2), 1.074132829e-3, RT);
  CHECK_REL(cgm_paper_time_parallel(&p, 2, x, e, 2, false), 1.313927825e-3, RT);
  CHECK_REL(cgm_paper_time_parallel(&p, 2, x, e, 2, true), 1.286029259e-3, RT);
  /* The paper (Sec. 6.3) reads ~42 raw and ~35 real GFLOPS for nd24k on two
   * GPUs off its Fig. 8b map: Eq. 7 gives 58.48e6 / 1.313927825e-3 = 44.51
   * raw and 49.296e6 / 1.313927825e-3 = 37.52 real, within 10% of both. */
  double tp = cgm_paper_time_parallel(&p, 2, x, e, 2, false);
  CHECK_REL(cgm_paper_flops(x, e) / tp / 1e9, 42.0, 0.10);
  CHECK_REL(cgm_paper_flops_real(x, e, 0.84) / tp / 1e9, 35.0, 0.10);
}

/* x = 1e6, e = 5e6, N = 4.
 *   spmv m = 1e7: log2 m = 23.253497, z = (23.253497-19.9)/1.4 = 2.395355,
 *        B = 140/(1+e^-2.395355) = 128.306135, T = 4e7/128.306135e9 = 3.117543829e-4
 *   cg2  m = 2e6: log2 m = 20.931569, z = 1.332116, B = 92.569285, T = 8.642175397e-5
 *   cg3  m = 3e6: log2 m = 21.516531, z = 1.735539, B = 102.014341, T = 1.176305205e-4
 *   cg4  m = 9e6: log2 m = 23.101494, z = 2.621720, B = 108.140583, T = 3.328999979e-4
 *   cg5  m = 6e6: log2 m = 22.516531, z = 2.287263, B = 96.228564, T = 2.494061949e-4
 *   red  m = 1e6: log2 m = 19.931569, z = 0.165406, B = 64.950901, T = 6.158498089e-5
 * Eq. 4: T = 3.117543829e-4 + 8.642175397e-5 + 1.176305205e-4 + 3.328999979e-4
 *          + 2.494061949e-4 + 3 * 6.158498089e-5 = 1.282867793e-3 s
 * Eq. 6: F = 1e7 + 1.5e7 = 2.5e7; Eq. 7: P = 2.5e7 / 1.282867793e-3 / 1e9 = 19.48758878
 * Eq. 8, d_4 = 0.5: F = 5e6 + 1.5e7 = 2e7
 * Eq. 9, 2 GPUs (x/2 = 5e5, e/2 = 2.5e6):
 *   spmv 1.694535486e-4, cg2 5.217081400e-5, cg3 6.756906190e-5, cg4 1.776489586e-4,
 *   cg5 1.361185026e-4, red 4.552186929e-5 (x3): T(x/2, e/2) = 7.395264936e-4
 *   host-staged m_idc = 2e6: z = (20.931569-16.7)/1.4 = 3.022549, B = 9.535825,
 *        T_idc = 8e6/9.535825e9 = 8.389415868e-4 -> T_p = 1.718468080e-3 (a slowdown)
 *   direct m_idc = 1e6: z = 2.308263, B = 9.095591, T_idc = 4.397735168e-4
 *        -> T_p = 7.395264936e-4 + 4.397735168e-4 + 1.4e-4 = 1.319300010e-3 */
static void mid(void) {
  cgm_paper_params p = gtx280();
  const double x = 1e6, e = 5e6;
  CHECK_REL(cgm_sigmoid_time(&p.spmv[2], 2 * e, 4), 3.117543829e-4, RT);
  CHECK_REL(cgm_sigmoid_time(&p.red, x, 4), 6.158498089e-5, RT);
  CHECK_REL(cgm_paper_time(&p, 4, x, e), 1.282867793e-3, RT);
  CHECK(cgm_paper_flops(x, e) == 2.5e7);
  CHECK_REL(cgm_paper_gflops(&p, 4, x, e), 19.48758878, RT);
  CHECK(cgm_paper_flops_real(x, e, 0.5) == 2e7);
  CHECK_REL(cgm_paper_time(&p, 4, x / 2, e / 2), 7.395264936e-4, RT);
  CHECK_REL(cgm_sigmoid_time(&p.idc, 2 * x, 4), 8.389415868e-4, RT);
  CHECK_REL(cgm_paper_time_parallel(&p, 4, x, e, 2, false), 1.718468080e-3, RT);
  CHECK_REL(cgm_paper_time_parallel(&p, 4, x, e, 2, true), 1.319300010e-3, RT);
}

/* A tiny system, x = 1000, e = 5000, N = 1: everything on the foot of the
 * curves, the vector kernels cost as much as the SpMV.
 *   spmv m = 1e4: log2 m = 13.287712, z = (13.287712-19)/1.2 = -4.760240,
 *        B = 85/(1+e^4.760240) = 0.721722, T = 4e4/0.721722e9 = 5.542301711e-5
 *   cg2  m = 2000: z = -5.540838, B = 0.457225, T = 1.749686272e-5
 *   cg3  m = 3000: z = -5.137416, B = 0.700627, T = 1.712752099e-5
 *   cg4  m = 9000: z = -4.251235, B = 1.629396, T = 2.209408270e-5
 *   cg5  m = 6000: z = -4.585692, B = 1.069940, T = 2.243117350e-5
 *   red  m = 1000: z = (9.965784-19.7)/1.4 = -6.953011, B = 0.114581, T = 3.490985404e-5
 * Eq. 4: T = 5.542301711e-5 + 1.749686272e-5 + 1.712752099e-5 + 2.209408270e-5
 *          + 2.243117350e-5 + 3 * 3.490985404e-5 = 2.393022191e-4 s
 * Eq. 6: F = 1e4 + 1.5e4 = 25000; Eq. 7: P = 25000 / 2.393022191e-4 / 1e9 = 0.1044704060
 * Eq. 9, 2 GPUs: T(500, 2500) = 2.488958413e-4 (more than T(1000, 5000):
 *   halving m on the foot more than halves B)
 *   host-staged m_idc = 2000: z = -4.095868, B = 0.163689, T_idc = 4.887319844e-5,
 *        T_p = 2.488958413e-4 + 4.887319844e-5 + 1.4e-4 = 4.377690398e-4
 *   direct m_idc = 1000: z = -4.810154, B = 0.080808, T_idc = 4.950021190e-5,
 *        T_p = 4.383960532e-4: direct is slower here, since T = 4m/B(m) falls
 *        with m where the curve rises faster than m (1/(sigma ln 2) = 1.03 > 1) */
static void tiny(void) {
  cgm_paper_params p = gtx280();
  const double x = 1000, e = 5000;
  CHECK_REL(cgm_sigmoid_time(&p.spmv[0], 2 * e, 4), 5.542301711e-5, RT);
  CHECK_REL(cgm_sigmoid_time(&p.red, x, 4), 3.490985404e-5, RT);
  CHECK_REL(cgm_paper_time(&p, 1, x, e), 2.393022191e-4, RT);
  CHECK(cgm_paper_flops(x, e) == 25000);
  CHECK_REL(cgm_paper_gflops(&p, 1, x, e), 0.1044704060, RT);
  CHECK_REL(cgm_paper_time(&p, 1, x / 2, e / 2), 2.488958413e-4, RT);
  CHECK_REL(cgm_paper_time_parallel(&p, 1, x, e, 2, false), 4.377690398e-4, RT);
  CHECK_REL(cgm_paper_time_parallel(&p, 1, x, e, 2, true), 4.383960532e-4, RT);
}

static void properties(void) {
  cgm_paper_params p = gtx280();
  /* Sec. 5.6: for fixed x, more elements give more GFLOPS once the SpMV
   * dominates. x = 1e5, N = 4: e = 1e6 .. 1e9 gives 10.4, 25.3, 33.6, 34.9 */
  for (int n = 0; n < 4; n++) {
    const int N = 1 << n;
    double prev = 0.0;
    for (double e = 1e6; e <= 1.01e9; e *= 10) {
      double g = cgm_paper_gflops(&p, N, 1e5, e);
      CHECK_MSG(g > prev, "N = %d, e = %g: %g GFLOPS after %g", N, e, g, prev);
      prev = g;
    }
    /* and the limit is 2e / (2 * 4e / (nu 1e9)) = nu / 4 GFLOPS (2 flops per 8 bytes) */
    CHECK_REL(cgm_paper_gflops(&p, N, 1e5, 1e12), p.spmv[n].nu / 4.0, 0.01);
  }
  /* Eq. 9 with one GPU: T plus the exchange of x elements and 4 T_sync,
   * host-staged and direct the same (x * 1 = x). */
  const double xs[3] = {1000, 72000, 1e6}, es[3] = {5000, 28.7e6, 5e6};
  for (int i = 0; i < 3; i++) {
    double t = cgm_paper_time(&p, 4, xs[i], es[i]);
    double want = t + cgm_sigmoid_time(&p.idc, xs[i], 4) + 4 * 35e-6;
    CHECK_REL(cgm_paper_time_parallel(&p, 4, xs[i], es[i], 1, false), want, 1e-15);
    CHECK_REL(cgm_paper_time_parallel(&p, 4, xs[i], es[i], 1, true), want, 1e-15);
  }
  /* host-staged moves x g elements: with 4 GPUs T_idc(4x) */
  double t4 = cgm_paper_time(&p, 8, 2.5e5, 2.5e7) + cgm_sigmoid_time(&p.idc, 4e6, 4) + 1.4e-4;
  CHECK_REL(cgm_paper_time_parallel(&p, 8, 1e6, 1e8, 4, false), t4, 1e-15);
  /* width scales every term: double precision, no sync, is twice the time */
  cgm_paper_params d = p;
  d.width = 8, d.t_sync = 0, p.t_sync = 0;
  CHECK_REL(cgm_paper_time_parallel(&d, 2, 1e6, 1e8, 2, false),
            2 * cgm_paper_time_parallel(&p, 2, 1e6, 1e8, 2, false), 1e-14);
  /* an empty matrix: the SpMV term is 0, the vector terms remain */
  CHECK_REL(cgm_paper_time(&p, 1, 1e6, 0),
            cgm_paper_time(&p, 1, 1e6, 5e6) - cgm_sigmoid_time(&p.spmv[0], 1e7, 4), 1e-12);
  CHECK(cgm_paper_flops_real(1e6, 5e6, 1.0) == cgm_paper_flops(1e6, 5e6));
}

int main(void) {
  sigmoid();
  block_index();
  nd24k();
  mid();
  tiny();
  properties();
  TEST_MAIN_END();
}
