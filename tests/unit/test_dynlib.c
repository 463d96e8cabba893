/* SPDX-License-Identifier: GPL-3.0-or-later */
/* solver/cuda/dynlib.h and vendor_libs.h (CUDA builds; no GPU needed):
 * cuSPARSE, cuBLAS and NCCL are not mapped until their first use, then every
 * slot of their tables points into the library of the build's soname; a
 * library or symbol that is missing is an error naming it, the same on every
 * call; threads loading at once all get the table. */
#define _GNU_SOURCE /* dladdr */
#include <dlfcn.h>
#include <pthread.h>
#include <stdbool.h>

#include "solver/cuda/dynlib.h"
#include "solver/cuda/vendor_libs.h"
#include "test_util.h"

/* Whether a file whose name contains `name` is mapped into this process. */
static bool mapped(const char *name) {
  FILE *f = fopen("/proc/self/maps", "r");
  CHECK(f != NULL);
  if (!f) return false;
  char line[4096];
  bool found = false;
  while (!found && fgets(line, sizeof line, f)) found = strstr(line, name) != NULL;
  fclose(f);
  return found;
}

/* Whether fn lies in a library whose file name contains `soname`. */
static bool from(void *fn, const char *soname) {
  Dl_info info;
  return fn && dladdr(fn, &info) && info.dli_fname && strstr(info.dli_fname, soname);
}

static void test_vendor_libs(void) {
  /* linked, they would be mapped before main */
  CHECK(!mapped("libcusparse") && !mapped("libcublas") && !mapped("libnccl"));
  cgm_error err = {0};
  const cgm_cusparse_fns *cs = NULL;
  const cgm_cublas_fns *cb = NULL;
  const cgm_nccl_fns *nc = NULL;
  CHECK_MSG(cgm_cusparse_load(&cs, &err) == CGM_OK, "%s", err.msg);
  CHECK_MSG(cgm_cublas_load(&cb, &err) == CGM_OK, "%s", err.msg);
  CHECK(!mapped("libnccl")); /* one library at a time */
  CHECK_MSG(cgm_nccl_load(&nc, &err) == CGM_OK, "%s", err.msg);
  if (!cs || !cb || !nc) return;
  CHECK(mapped(CGM_CUSPARSE_SONAME) && mapped(CGM_CUBLAS_SONAME) && mapped(CGM_NCCL_SONAME));
#define IN_CUSPARSE(f) CHECK_MSG(from((void *)cs->f, CGM_CUSPARSE_SONAME), "%s", #f);
#define IN_CUBLAS(f) CHECK_MSG(from((void *)cb->f, CGM_CUBLAS_SONAME), "%s", #f);
#define IN_NCCL(f) CHECK_MSG(from((void *)nc->f, CGM_NCCL_SONAME), "%s", #f);
  CGM_CUSPARSE_FNS(IN_CUSPARSE)
  CGM_CUBLAS_FNS(IN_CUBLAS)
  CGM_NCCL_FNS(IN_NCCL)
  /* cublas_v2.h's function, not the legacy cublasDdot of cublas.h */
  Dl_info info;
  CHECK(dladdr((void *)cb->cublasDdot, &info) && info.dli_sname &&
        !strcmp(info.dli_sname, "cublasDdot_v2"));
  /* RTLD_LOCAL: kept out of the global scope */
  CHECK(dlsym(RTLD_DEFAULT, "cublasDdot_v2") == NULL);
  /* callable without a GPU */
  CHECK(strlen(cs->cusparseGetErrorString(CUSPARSE_STATUS_SUCCESS)) > 0);
  CHECK(strlen(nc->ncclGetErrorString(ncclSuccess)) > 0);
  /* later calls give the same table */
  const cgm_cusparse_fns *cs2 = NULL;
  CHECK(cgm_cusparse_load(&cs2, &err) == CGM_OK && cs2 == cs);
}

static double (*cos_fn)(double);
static double (*absent_fn)(double);

static void test_missing(void) {
  static const cgm_dynsym none[] = {{"cos", &cos_fn}};
  static cgm_dynlib absent = CGM_DYNLIB_INIT("libcgm-absent.so.7", "the test", none);
  for (int k = 0; k < 2; k++) { /* the outcome is kept: the same error again */
    cgm_error err = {0};
    CHECK(cgm_dynlib_load(&absent, &err) == CGM_ERUNTIME && err.code == CGM_ERUNTIME);
    CHECK_MSG(strstr(err.msg, "cannot load libcgm-absent.so.7, which the test needs") &&
                  strstr(err.msg, "cannot open shared object file"),
              "%s", err.msg);
  }
  CHECK(cos_fn == NULL);

  static const cgm_dynsym partly[] = {{"cos", &cos_fn}, {"cgm_no_such_function", &absent_fn}};
  static cgm_dynlib libm_partly = CGM_DYNLIB_INIT("libm.so.6", "the test", partly);
  cgm_error err = {0};
  CHECK(cgm_dynlib_load(&libm_partly, &err) == CGM_ERUNTIME);
  CHECK_MSG(strstr(err.msg, "libm.so.6 has no cgm_no_such_function, which the test needs: ") &&
                strstr(err.msg, "undefined symbol"),
            "%s", err.msg);
  CHECK(cgm_dynlib_load(&libm_partly, NULL) == CGM_ERUNTIME); /* err may be NULL */
}

static const cgm_dynsym libm_syms[] = {{"cos", &cos_fn}};
static cgm_dynlib libm = CGM_DYNLIB_INIT("libm.so.6", "the test", libm_syms);

static void *load_libm(void *out) {
  cgm_error err = {0};
  *(cgm_status *)out = cgm_dynlib_load(&libm, &err);
  return NULL;
}

static void test_threads(void) {
  cos_fn = NULL;
  enum { T = 8 };
  pthread_t th[T];
  cgm_status st[T];
  for (int t = 0; t < T; t++) CHECK(pthread_create(&th[t], NULL, load_libm, &st[t]) == 0);
  for (int t = 0; t < T; t++) {
    pthread_join(th[t], NULL);
    CHECK(st[t] == CGM_OK);
  }
  CHECK(cos_fn != NULL && cos_fn(0.0) == 1.0);
}

int main(void) {
  test_vendor_libs();
  test_missing();
  test_threads();
  TEST_MAIN_END();
}
