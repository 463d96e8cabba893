/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The input checks (solver/backend.h, cgm_check): every check's refusal
 * has its own status and message (rows and columns from 1, the diagonal's
 * marking the result refused even without an error to fill), and cgm_solve
 * refuses each bad input with exactly the message of its check
 * (cgm_solve_device's side is tests/gpu/test_device_input). */
#include "cgmodel/sparse.h"
#include "solver/backend.h"
#include "test_util.h"

/* cgm_solve's message for A, b (ones but b[0] = b0) and x = 0 equals check
 * c's at (i, j, v), with the same status. */
static void host_says(const char *what, const cgm_csr *A, double b0, cgm_precision p, cgm_check c,
                      int32_t i, int32_t j, double v) {
  double *b = malloc(sizeof(double) * (size_t)(A->nrows + 1));
  double *x = calloc((size_t)A->nrows + 1, sizeof *x);
  for (int32_t k = 0; k < A->nrows; k++) b[k] = k == 0 ? b0 : 1.0;
  cgm_solve_opts o = cgm_solve_opts_default();
  o.precision = p;
  cgm_solve_result r;
  cgm_error got = {0}, want = {0};
  const cgm_status st = cgm_solve(A, b, x, &o, &r, &got);
  const cgm_status sw = cgm_check_refuse(c, i, j, v, NULL, &want);
  CHECK_MSG(st == sw && !strcmp(got.msg, want.msg), "%s: status %d '%s', want %d '%s'", what, st,
            got.msg, sw, want.msg);
  free(b);
  free(x);
}

int main(void) {
  /* each check: its status, and a message of its own */
  char msgs[CGM_CHECK_RANGE + 1][CGM_ERRMSG_MAX];
  for (int c = 0; c <= CGM_CHECK_RANGE; c++) {
    cgm_error e = {0};
    const cgm_status st =
        cgm_check_refuse((cgm_check)c, 2, 4, c == CGM_CHECK_RANGE ? 1e300 : NAN, NULL, &e);
    CHECK(st == (c == CGM_CHECK_DIAGONAL ? CGM_ENOCONV : CGM_EINPUT) && e.msg[0]);
    snprintf(msgs[c], sizeof msgs[c], "%s", e.msg);
    for (int k = 0; k < c; k++) CHECK_MSG(strcmp(msgs[k], msgs[c]), "checks %d and %d", k, c);
  }
  CHECK(strstr(msgs[CGM_CHECK_SQUARE], "matrix is 2 x 4") &&
        strstr(msgs[CGM_CHECK_RHS], "entry 3"));
  CHECK(strstr(msgs[CGM_CHECK_FINITE], "(3, 5)") && strstr(msgs[CGM_CHECK_RANGE], "beyond"));
  cgm_error e = {0};
  cgm_check_refuse(CGM_CHECK_RANGE, 0, 0, 1e-300, NULL, &e);
  CHECK(strstr(e.msg, "below single precision's range (smallest"));
  /* the diagonal marks the result refused, its stop reason the message */
  cgm_solve_result r;
  memset(&r, 0, sizeof r);
  CHECK(cgm_check_refuse(CGM_CHECK_DIAGONAL, 6, 6, 0.0, &r, NULL) == CGM_ENOCONV);
  CHECK(r.refused && strstr(r.stop_reason, "diagonal entry (7, 7) is missing or 0"));
  CHECK(cgm_check_float(1e39) && cgm_check_float(-1e-46) && !cgm_check_float(0.0) &&
        !cgm_check_float(3.0e38) && !cgm_check_float(1.2e-38));

  /* cgm_solve says the same, check by check */
  cgm_error err = {0};
  cgm_csr A;
  const int32_t ri[] = {0, 0, 1, 1, 1, 2, 2}, ci[] = {0, 1, 0, 1, 2, 1, 2};
  double v[] = {4, -1, -1, 4, -1, -1, 4};
  CHECK_OK(cgm_csr_from_coo(3, 3, 7, ri, ci, v, &A, NULL, &err));
  host_says("NaN in b", &A, NAN, CGM_PREC_DOUBLE, CGM_CHECK_RHS, 0, 0, NAN);
  A.val[4] = INFINITY; /* (1, 2) */
  host_says("Inf in A", &A, 1.0, CGM_PREC_DOUBLE, CGM_CHECK_FINITE, 1, 2, INFINITY);
  A.val[4] = -2;
  host_says("unsymmetric", &A, 1.0, CGM_PREC_DOUBLE, CGM_CHECK_SYMMETRIC, 0, 0, 0);
  A.val[4] = -1;
  A.val[3] = -4;
  host_says("negative diagonal", &A, 1.0, CGM_PREC_DOUBLE, CGM_CHECK_DIAGONAL, 1, 1, -4);
  A.val[3] = 4;
  A.val[1] = A.val[2] = -1e-50;
  host_says("below float", &A, 1.0, CGM_PREC_SINGLE, CGM_CHECK_RANGE, 0, 1, -1e-50);
  cgm_csr_free(&A);
  TEST_MAIN_END();
}
