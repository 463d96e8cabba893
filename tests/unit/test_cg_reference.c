/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The CPU solve never gives up on a tolerance that plain CG reaches: on
 * every bundled SPD matrix (29, none skipped; the reference capped at 6000
 * iterations), with two seeded random right-hand sides, the reference CG
 * of test_reference_cg.h runs to 1e-8, 1e-10 and 1e-12; for each it
 * reaches, the CPU solve in double on 1 and 2 threads, given twice the
 * reference's iterations, must converge with a residual recomputed here
 * (long double) that meets the tolerance. About 20 s of CPU time. */
#include <stdint.h>

#include "cgmodel/solver.h"
#include "test_reference_cg.h"
#include "test_util.h"

int main(void) {
  const ref_config cfg[] = {{CGM_BACKEND_CPU, CGM_PREC_DOUBLE, 1, 2},
                            {CGM_BACKEND_CPU, CGM_PREC_DOUBLE, 2, 2}};
  ref_check_all(cfg, 2);
  TEST_MAIN_END();
}
