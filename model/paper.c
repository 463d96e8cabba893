/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The paper's per-iteration model of CG (Sec. 5.6-5.7, Eqs. 4-9): every kernel is bandwidth bound,
 * so its time is its transfer volume over the Eq. 3 throughput at that volume (Eq. 5). Invalid
 * arguments (a block size other than 1, 2, 4, 8; fewer than 1 GPU; negative sizes) give NaN. */
#define _DEFAULT_SOURCE /* M_LN2 */
#include "cgmodel/model.h"

#include <math.h>

/* Eq. 4 with the transaction counts of Tables 2 and 3: SpMV 2e, CG2 2x,
 * CG3 3x, CG4 9x, CG5 6x, and three reductions of x per iteration. CG1 runs
 * once before the loop and is not part of the time per iteration. */
double cgm_paper_time(const cgm_paper_params *p, int n, double x, double e) {
  int k = cgm_block_index(n);
  if (k < 0 || !(x >= 0.0) || !(e >= 0.0)) return NAN;
  double w = p->width;
  return cgm_sigmoid_time(&p->spmv[k], 2.0 * e, w) + cgm_sigmoid_time(&p->cg2, 2.0 * x, w) +
         cgm_sigmoid_time(&p->cg3, 3.0 * x, w) + cgm_sigmoid_time(&p->cg4, 9.0 * x, w) +
         cgm_sigmoid_time(&p->cg5, 6.0 * x, w) + 3.0 * cgm_sigmoid_time(&p->red, x, w);
}

/* Eq. 6: 2 flops per stored element in the SpMV, and 15x in the vector
 * kernels: CG2..CG5 (1 + 1 + 6 + 4, Table 2) and three reductions (1 each). */
double cgm_paper_flops(double x, double e) {
  return 2.0 * e + 15.0 * x;
}

/* Eq. 8: only the d_N fraction of the stored elements is non-zero. */
double cgm_paper_flops_real(double x, double e, double d) {
  return 2.0 * e * d + 15.0 * x;
}

/* Eq. 7, raw performance (Eq. 6 flops), in GFLOPS. */
double cgm_paper_gflops(const cgm_paper_params *p, int n, double x, double e) {
  return cgm_paper_flops(x, e) / cgm_paper_time(p, n, x, e) / 1e9;
}

/* Eq. 9. The paper splits the data evenly and gives every GPU the same curves, so the max over GPUs
 * is one T(x/g, e/g). Host-staged exchange: each GPU copies its x/g part to the host and the g - 1
 * other parts back, x g elements in all; direct (peer) copies move x. Four synchronisations: the
 * vector update and the three reductions. */
double cgm_paper_time_parallel(const cgm_paper_params *p, int n, double x, double e, int gpus,
                               bool direct) {
  if (gpus < 1) return NAN;
  double g = (double)gpus;
  double m_idc = direct ? x : x * g;
  return cgm_paper_time(p, n, x / g, e / g) + cgm_sigmoid_time(&p->idc, m_idc, p->width) +
         4.0 * p->t_sync;
}

/* Eq. 5 at sigma = 1 / ln 2 is w (m + 2^mu) / nu: the copy at nu plus a
 * latency of w 2^mu / nu, here the 4 synchronisations of Eq. 9. */
cgm_sigmoid cgm_pcie_host_curve(double width) {
  const double nu = CGM_PCIE_HOST_GBPS, sync = 4.0 * CGM_PCIE_HOST_SYNC_S;
  return (cgm_sigmoid){log2(sync * nu * 1e9 / width), 1.0 / M_LN2, nu};
}
