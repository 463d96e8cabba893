/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The paper's throughput sigmoid (Eq. 3) and the kernel time (Eq. 5). */
#include "cgmodel/model.h"

#include <math.h>

double cgm_logistic(double z) {
  if (z >= 0.0) return 1.0 / (1.0 + exp(-z));
  double ez = exp(z);
  return ez / (1.0 + ez);
}

/* Eq. 3 (m = 0 gives 0, m < 0 NaN). */
double cgm_sigmoid_eval(const cgm_sigmoid *s, double m) {
  return s->nu * cgm_logistic((log2(m) - s->mu) / s->sigma);
}

/* Eq. 5, T = 4m / B, with the element width in place of 4 and B converted
 * from GB/s (1e9 bytes/s). Moving nothing takes no time (the limit of m/B
 * as m -> 0 is 0 for sigma > 1/ln 2 only, so define it). */
double cgm_sigmoid_time(const cgm_sigmoid *s, double m, double width) {
  if (m == 0.0) return 0.0;
  return width * m / (cgm_sigmoid_eval(s, m) * 1e9);
}
