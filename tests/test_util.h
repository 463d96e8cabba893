/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Minimal test harness: CHECK macros that report file:line and count
 * failures; main returns the failure count so CTest sees non-zero. */
#ifndef CGM_TEST_UTIL_H
#define CGM_TEST_UTIL_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int cgm_test_failures = 0;

#define CHECK(cond)                                                                                \
  do {                                                                                             \
    if (!(cond)) {                                                                                 \
      fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond);                     \
      cgm_test_failures++;                                                                         \
    }                                                                                              \
  } while (0)

#define CHECK_MSG(cond, ...)                                                                       \
  do {                                                                                             \
    if (!(cond)) {                                                                                 \
      fprintf(stderr, "%s:%d: CHECK failed: %s: ", __FILE__, __LINE__, #cond);                     \
      fprintf(stderr, __VA_ARGS__);                                                                \
      fputc('\n', stderr);                                                                         \
      cgm_test_failures++;                                                                         \
    }                                                                                              \
  } while (0)

/* |a - b| <= tol * max(1, |b|) */
#define CHECK_NEAR(a, b, tol)                                                                      \
  do {                                                                                             \
    double _a = (double)(a), _b = (double)(b), _t = (double)(tol);                                 \
    double _s = fabs(_b) > 1.0 ? fabs(_b) : 1.0;                                                   \
    if (!(fabs(_a - _b) <= _t * _s)) {                                                             \
      fprintf(stderr, "%s:%d: CHECK_NEAR failed: %s = %.17g, %s = %.17g, tol %g\n", __FILE__,      \
              __LINE__, #a, _a, #b, _b, _t);                                                       \
      cgm_test_failures++;                                                                         \
    }                                                                                              \
  } while (0)

/* Calls a cgm_status function and fails the test with its message. */
#define CHECK_OK(call)                                                                             \
  do {                                                                                             \
    cgm_error _e = {0};                                                                            \
    (void)_e;                                                                                      \
    cgm_status _st = (call);                                                                       \
    if (_st != CGM_OK) {                                                                           \
      fprintf(stderr, "%s:%d: %s returned %d\n", __FILE__, __LINE__, #call, (int)_st);             \
      cgm_test_failures++;                                                                         \
    }                                                                                              \
  } while (0)

#define TEST_MAIN_END()                                                                            \
  do {                                                                                             \
    if (cgm_test_failures) fprintf(stderr, "%d check(s) failed\n", cgm_test_failures);             \
    return cgm_test_failures ? 1 : 0;                                                              \
  } while (0)

/* Directory of the bundled matrices (set by CMake). */
#ifndef CGM_DATA_DIR
#define CGM_DATA_DIR "data/matrices"
#endif
/* Directory of hand-made test inputs (tests/data). */
#ifndef CGM_TESTDATA_DIR
#define CGM_TESTDATA_DIR "tests/data"
#endif

/* 77 exit code tells CTest the test was skipped (SKIP_RETURN_CODE). */
#define CGM_TEST_SKIP 77

/* A sanitized build (ASan + UBSan, scripts/test.sh) runs the tests for memory safety at several
 * times their cost: a loop that repeats one code path over many random or bundled inputs takes one
 * in CGM_TEST_STRIDE there. The plain build runs them all; the fuzz harnesses cover the parsers
 * under the sanitizers. */
#ifdef CGM_TEST_SANITIZED
#define CGM_TEST_STRIDE 4
#else
#define CGM_TEST_STRIDE 1
#endif

#endif
