/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The GPU's stall verdict (solver/backend.h, cgm_reliable_stalled) on
 * synthetic check sequences: in double, refused claims just above the
 * tolerance never end a solve whose true residual is still falling (the P1
 * tetrahedral case: three refused claims ended it at 1.18x the tolerance
 * where plain CG goes on to converge), nor does a residual at the bound
 * u ||A|| ||x||; a truth that has not halved for as many iterations as its
 * best took does. Single and mixed keep the old rule: three refused claims
 * without a halving, or the bound, end it (mixed then hands over to
 * double); so does double once its tolerance lies below what double shows
 * (its claims are then made at the floor). */
#include "solver/backend.h"
#include "test_util.h"

int main(void) {
  /* double: the truth last halved at 1,900; claims refused every 40
   * iterations from 2,000 on, the truth 1.18e-8 falling 3% a check (plain
   * CG halves it every few hundred): never stalled */
  cgm_reliable d = cgm_reliable_start(1.0, 1.1e-16, 8.0, false, false);
  double truth = 2.0e-8;
  CHECK(!cgm_reliable_stalled(&d, false, 1.0e-8, truth, 1.0, 1900));
  CHECK(d.best_iter == 1900);
  truth = 1.18e-8;
  for (int it = 2000; it < 2900; it += 40) {
    CHECK_MSG(!cgm_reliable_stalled(&d, true, 0.99e-8, truth, 1.0, it),
              "double stalled at %d with the truth %.3g still falling", it, truth);
    truth *= 0.97;
  }
  /* within the bound u ||A|| ||x|| (8.8e-16 x 1e8 = 8.8e-8) and not halved: still
   * no stall before the window ends */
  cgm_reliable b = cgm_reliable_start(1.0, 1.1e-16, 8.0, false, false);
  CHECK(!cgm_reliable_stalled(&b, false, 1e-8, 2e-8, 1e8, 1000));
  CHECK(!cgm_reliable_stalled(&b, true, 1e-8, 1.5e-8, 1e8, 1100));
  /* the window: no halving since 1,000 for 1,000 iterations, claims refused */
  CHECK(!cgm_reliable_stalled(&b, true, 1e-8, 1.4e-8, 1e8, 1999));
  CHECK(cgm_reliable_stalled(&b, true, 1e-8, 1.4e-8, 1e8, 2000));
  /* not loose (iterated within 1% of the truth, no claim): no stall */
  cgm_reliable t = cgm_reliable_start(1.0, 1.1e-16, 8.0, false, false);
  CHECK(!cgm_reliable_stalled(&t, false, 1e-3, 1e-3, 1.0, 300));
  CHECK(!cgm_reliable_stalled(&t, false, 0.9e-3, 0.9e-3, 1.0, 900));
  CHECK(cgm_reliable_stalled(&t, false, 0.1e-3, 0.9e-3, 1.0, 900));
  /* mixed/single: three refused claims without halving end it */
  cgm_reliable m = cgm_reliable_start(1.0, 6e-8, 8.0, true, true);
  CHECK(!cgm_reliable_stalled(&m, false, 1e-5, 2e-5, 1e-3, 100));
  CHECK(!cgm_reliable_stalled(&m, true, 0.9e-5, 1.9e-5, 1e-3, 120));
  CHECK(!cgm_reliable_stalled(&m, true, 0.9e-5, 1.8e-5, 1e-3, 140));
  CHECK(cgm_reliable_stalled(&m, true, 0.9e-5, 1.7e-5, 1e-3, 160));
  /* mixed: a truth risen past 1e3 times its best (single diverging, the
   * iterated residual with it) ends it (double takes over); single alone
   * and double go on */
  cgm_reliable v = cgm_reliable_start(1.0, 6e-8, 8.0, true, true);
  CHECK(!cgm_reliable_stalled(&v, false, 1e-2, 1e-2, 1.0, 100));
  CHECK(!cgm_reliable_stalled(&v, false, 5.0, 5.0, 1.0, 200));
  CHECK(cgm_reliable_stalled(&v, false, 20.0, 20.0, 1.0, 300));
  cgm_reliable w = cgm_reliable_start(1.0, 1.1e-16, 8.0, false, false);
  CHECK(!cgm_reliable_stalled(&w, false, 1e-2, 1e-2, 1.0, 100));
  CHECK(!cgm_reliable_stalled(&w, false, 20.0, 20.0, 1.0, 150));
  cgm_reliable sg = cgm_reliable_start(1.0, 6e-8, 8.0, true, false);
  CHECK(!cgm_reliable_stalled(&sg, false, 1e-2, 1e-2, 1.0, 100));
  CHECK(!cgm_reliable_stalled(&sg, false, 20.0, 20.0, 1.0, 150));
  /* double with its claims at the floor: a refused claim within the bound
   * ends it at once */
  cgm_reliable f = cgm_reliable_start(1.0, 1.1e-16, 8.0, true, false);
  CHECK(!cgm_reliable_stalled(&f, false, 1e-8, 2e-8, 1e8, 1000));
  CHECK(cgm_reliable_stalled(&f, true, 1e-9, 1.5e-8, 1e8, 1010));
  TEST_MAIN_END();
}
