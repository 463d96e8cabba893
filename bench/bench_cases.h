/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Test problems shared by the benchmarks: generator specs or files. */
#ifndef CGM_BENCH_CASES_H
#define CGM_BENCH_CASES_H

#include "cgmodel/sparse.h"

/* CASE: poisson3d:N | poisson2d:N | elasticity3d:N | random:N | kronB:M | PATH.mtx
 * (kronB:M: Poisson M^3 (x) (J + I), every B x B block dense) */
cgm_status bench_load_case(const char *spec, cgm_csr *A, cgm_error *err);
/* The last path component of a spec. */
const char *bench_case_name(const char *spec);

#endif
