/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The vendor libraries' tables (vendor_libs.h). Each is opened by the soname of the file the build
 * compiled against (CGM_*_SONAME, read from the file at configure time: cmake/soname.cmake), so a
 * run resolves the same major version the headers describe. */
#include "solver/cuda/vendor_libs.h"

#include <stdbool.h>
#include <stdio.h>

#include "cgmodel/solver.h"
#include "solver/cuda/dynlib.h"

/* the exported name after the headers' macros: cublasDdot is cublasDdot_v2 */
#define CGM_SYMNAME_(f) #f
#define CGM_SYMNAME(f) CGM_SYMNAME_(f)

static cgm_cusparse_fns cusparse_fns;
static cgm_cublas_fns cublas_fns;
static cgm_nccl_fns nccl_fns;

#define CUSPARSE_SYM(f) {CGM_SYMNAME(f), &cusparse_fns.f},
#define CUBLAS_SYM(f) {CGM_SYMNAME(f), &cublas_fns.f},
#define NCCL_SYM(f) {CGM_SYMNAME(f), &nccl_fns.f},
static const cgm_dynsym cusparse_syms[] = {CGM_CUSPARSE_FNS(CUSPARSE_SYM)};
static const cgm_dynsym cublas_syms[] = {CGM_CUBLAS_FNS(CUBLAS_SYM)};
static const cgm_dynsym nccl_syms[] = {CGM_NCCL_FNS(NCCL_SYM)};

static cgm_dynlib cusparse_lib =
    CGM_DYNLIB_INIT(CGM_CUSPARSE_SONAME, "the cusparse backend", cusparse_syms);
static cgm_dynlib cublas_lib =
    CGM_DYNLIB_INIT(CGM_CUBLAS_SONAME, "the cusparse backend", cublas_syms);
static cgm_dynlib nccl_lib = CGM_DYNLIB_INIT(CGM_NCCL_SONAME, "the nccl exchange", nccl_syms);

/* cgm_cusparse_load, cgm_cublas_load, cgm_nccl_load (vendor_libs.h) */
#define CGM_LOADER(name)                                                                           \
  cgm_status cgm_##name##_load(const cgm_##name##_fns **fns, cgm_error *err) {                     \
    cgm_status st = cgm_dynlib_load(&name##_lib, err);                                             \
    *fns = st == CGM_OK ? &name##_fns : NULL;                                                      \
    return st;                                                                                     \
  }
CGM_LOADER(cusparse)
CGM_LOADER(cublas)
CGM_LOADER(nccl)

bool cgm_nccl_available(char *why, size_t n) {
  const cgm_nccl_fns *f;
  cgm_error e = {0};
  const bool ok = cgm_nccl_load(&f, &e) == CGM_OK;
  if (why && n) snprintf(why, n, "%s", ok ? "" : e.msg);
  return ok;
}
