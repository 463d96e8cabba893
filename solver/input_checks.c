/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The input checks' messages (backend.h, cgm_check); rows count from 1. */
#include "solver/backend.h"

#include <stdio.h>

cgm_status cgm_check_refuse(cgm_check c, int32_t i, int32_t j, double v, cgm_solve_result *res,
                            cgm_error *err) {
  cgm_error e = {0};
  const bool over = fabs(v) > FLT_MAX;
  switch (c) {
  case CGM_CHECK_SQUARE:
    return cgm_fail(err, CGM_EINPUT, "matrix is %d x %d: CG needs a square matrix", i, j);
  case CGM_CHECK_EMPTY:
    return cgm_fail(err, CGM_EINPUT, "matrix is empty (0 x 0)");
  case CGM_CHECK_RHS:
    return cgm_fail(err, CGM_EINPUT, "right-hand side entry %d is %g: NaN/Inf is not allowed",
                    i + 1, v);
  case CGM_CHECK_GUESS:
    return cgm_fail(err, CGM_EINPUT, "initial guess entry %d is %g", i + 1, v);
  case CGM_CHECK_FINITE:
    return cgm_fail(err, CGM_EINPUT, "matrix entry (%d, %d) is %g: NaN/Inf is not allowed", i + 1,
                    j + 1, v);
  case CGM_CHECK_SYMMETRIC:
    return cgm_fail(err, CGM_EINPUT,
                    "matrix is not symmetric: CG needs a symmetric positive definite matrix");
  case CGM_CHECK_DIAGONAL:
    cgm_fail(&e, CGM_ENOCONV, "matrix is not positive definite: diagonal entry (%d, %d) is %s%.6g",
             i + 1, i + 1, v == 0.0 ? "missing or " : "", v);
    if (res) {
      res->refused = true;
      snprintf(res->stop_reason, sizeof res->stop_reason, "%.511s", e.msg);
    }
    if (err) *err = e;
    return CGM_ENOCONV;
  case CGM_CHECK_RANGE:
    return cgm_fail(err, CGM_EINPUT,
                    "matrix entry (%d, %d) = %.17g is %s single precision's range (%s %g): use "
                    "precision=double",
                    i + 1, j + 1, v, over ? "beyond" : "below", over ? "largest" : "smallest",
                    over ? (double)FLT_MAX : (double)FLT_TRUE_MIN);
  }
  return cgm_fail(err, CGM_ERUNTIME, "unknown input check %d", (int)c);
}
