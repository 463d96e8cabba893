/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The colour bars' tics: for every range a map can have, at least 4 tics,
 * inside the range, increasing, with distinct labels as printed (%.*g at
 * plot_tic_digits, 3 for every range but the narrowest);
 * and on a speed-up's bar (from 1/r to r) a tic either side of 1, which
 * the ranges of r from about 1.43 to 2 lacked (0.6 .. 1 and nothing above). */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "plots/plot_internal.h"
#include "test_util.h"

static void check_range(double lo, double hi, bool split) {
  double v[PLOT_MAX_TICS];
  const int n = plot_log_tics(lo, hi, split, v);
  CHECK_MSG(n >= 4 && n <= PLOT_MAX_TICS, "[%g, %g]: %d tics", lo, hi, n);
  const int d = plot_tic_digits(v, n);
  CHECK_MSG(d == 3 || hi / lo < 1.5, "[%g, %g]: %d digits", lo, hi, d);
  bool below = false, above = false;
  for (int i = 0; i < n; i++) {
    CHECK_MSG(v[i] >= lo * (1 - 1e-6) && v[i] <= hi * (1 + 1e-6), "[%g, %g]: tic %g outside", lo,
              hi, v[i]);
    if (i > 0) {
      char a[32], b[32];
      snprintf(a, sizeof a, "%.*g", d, v[i - 1]);
      snprintf(b, sizeof b, "%.*g", d, v[i]);
      CHECK_MSG(v[i] > v[i - 1] && strcmp(a, b) != 0, "[%g, %g]: tics %s, %s", lo, hi, a, b);
    }
    below |= v[i] < 1 - 1e-9;
    above |= v[i] > 1 + 1e-9;
  }
  if (split) CHECK_MSG(below && above, "[%g, %g]: no tic on one side of 1", lo, hi);
}

int main(void) {
  /* the speed-up bars: r from its least (1.25) to its cap (100) */
  for (double r = 1.25; r <= 100.0; r *= 1.01) check_range(1 / r, r, true);
  check_range(1 / 1.8, 1.8, true); /* the 2-GPU map of a 4 x H200 node */
  /* the GFLOPS bars: narrow to ten decades and more */
  for (double lo = 1e-3; lo < 1e3; lo *= 3.7)
    for (double span = 1.01; span < 1e12; span *= 2.9) check_range(lo, lo * span, false);
  TEST_MAIN_END();
}
