/* SPDX-License-Identifier: GPL-3.0-or-later */
/* A matrix in GPU memory (cgm_csr_device, cgm_solve_device): the layout
 * built on the device equals cgm_bcsr_build's entry for entry (N = 1, B_x
 * 1, 2, 4; double and single; random matrices with empty rows and one long
 * row, Poisson, a bundled matrix, a graph with hubs), and split, the long
 * rows apart, equals the host's split; the solve, with int32 and int64 row
 * offsets, in double, mixed and single precision, reaches the tolerance by
 * the residual recomputed here in long double and takes the iterations the
 * same solve from host memory takes; bad input is refused with cgm_solve's
 * messages, and b = 0 gives x = 0. Skipped (77) without a GPU. */
#include <cuda_runtime_api.h>
#include <stdint.h>
#include <string.h>

#include "cgmodel/solver.h"
#include "kernels/cuda_dev.h"
#include "sparse/bcsr_internal.h"
#include "test_linalg.h"
#include "test_util.h"

static uint64_t rng_state = 4242;

/* A's arrays on GPU 0 (row offsets int64 or int32). */
typedef struct {
  cgm_csr_device d;
  void *rowptr;
  int32_t *colidx;
  double *val;
} dev_csr;

static void upload(const cgm_csr *A, bool rowptr64, dev_csr *out) {
  memset(out, 0, sizeof *out);
  const size_t nr = (size_t)A->nrows + 1, nz = (size_t)(A->nnz > 0 ? A->nnz : 1);
  CHECK(cudaMalloc(&out->rowptr, nr * 8) == cudaSuccess);
  CHECK(cudaMalloc((void **)&out->colidx, nz * 4) == cudaSuccess);
  CHECK(cudaMalloc((void **)&out->val, nz * 8) == cudaSuccess);
  if (rowptr64) {
    cudaMemcpy(out->rowptr, A->rowptr, nr * 8, cudaMemcpyHostToDevice);
  } else {
    int32_t *r32 = malloc(nr * 4);
    for (size_t i = 0; i < nr; i++) r32[i] = (int32_t)A->rowptr[i];
    cudaMemcpy(out->rowptr, r32, nr * 4, cudaMemcpyHostToDevice);
    free(r32);
  }
  cudaMemcpy(out->colidx, A->colidx, (size_t)A->nnz * 4, cudaMemcpyHostToDevice);
  cudaMemcpy(out->val, A->val, (size_t)A->nnz * 8, cudaMemcpyHostToDevice);
  out->d.device = 0;
  out->d.nrows = A->nrows;
  out->d.ncols = A->ncols;
  out->d.nnz = A->nnz;
  out->d.rowptr = out->rowptr;
  out->d.rowptr64 = rowptr64;
  out->d.colidx = out->colidx;
  out->d.val = out->val;
}

static void dev_free(dev_csr *m) {
  cudaFree(m->rowptr);
  cudaFree(m->colidx);
  cudaFree(m->val);
}

/* A symmetric random matrix with empty rows (but a diagonal), one long row
 * and column, values in (0, 1). */
static void random_sym(int32_t n, cgm_csr *A) {
  int64_t cap = (int64_t)n * 12 + 4 * (int64_t)n + 8;
  int32_t *ri = malloc(cap * 4), *ci = malloc(cap * 4);
  double *v = malloc(cap * 8);
  int64_t k = 0;
  for (int32_t i = 0; i < n; i++) {
    ri[k] = i, ci[k] = i, v[k] = 10.0, k++;
    if (i % 7 == 3) continue;
    int len = (int)(splitmix64(&rng_state) % 5);
    for (int m = 0; m < len; m++) {
      int32_t j = (int32_t)(splitmix64(&rng_state) % n);
      double a = unif01(&rng_state);
      ri[k] = i, ci[k] = j, v[k] = a, k++;
      ri[k] = j, ci[k] = i, v[k] = a, k++;
    }
  }
  for (int32_t j = 0; j < n; j += 3) { /* row 1 and column 1: long */
    if (j == 1) continue;
    ri[k] = 1, ci[k] = j, v[k] = 0.01, k++;
    ri[k] = j, ci[k] = 1, v[k] = 0.01, k++;
  }
  cgm_error err = {0};
  CHECK_OK(cgm_csr_from_coo(n, n, k, ri, ci, v, A, NULL, &err));
  free(ri), free(ci), free(v);
}

/* A device-built layout against the host's, entry for entry. */
static void compare_one(const char *what, const cgm_dev_matrix *dm, const cgm_bcsr *H, int bx,
                        cgm_precision prec) {
  const cgm_dev_layout *L = &dm->L;
  CHECK_MSG(
      L->nslices == H->nslices && L->nblocks_padded == H->nblocks_padded && L->nbrows == H->nbrows,
      "%s B_x %d: %d slices, %lld padded, %d rows (host %d, %lld, %d)", what, bx, L->nslices,
      (long long)L->nblocks_padded, L->nbrows, H->nslices, (long long)H->nblocks_padded, H->nbrows);
  if (L->nslices != H->nslices || L->nblocks_padded != H->nblocks_padded) return;
  const int64_t np = H->nblocks_padded, ns = (int64_t)H->nslices * H->p.by;
  int64_t *sp = malloc(((size_t)H->nslices + 1) * 8);
  int32_t *bc = malloc((size_t)(np + 1) * 4), *br = malloc((size_t)(ns + 1) * 4);
  double *v = malloc((size_t)(np + 1) * 8);
  float *vf = malloc((size_t)(np + 1) * 4);
  cudaMemcpy(sp, L->slice_ptr, ((size_t)H->nslices + 1) * 8, cudaMemcpyDeviceToHost);
  cudaMemcpy(bc, L->bcol, (size_t)np * 4, cudaMemcpyDeviceToHost);
  cudaMemcpy(br, L->brow, (size_t)ns * 4, cudaMemcpyDeviceToHost);
  if (prec == CGM_PREC_DOUBLE)
    cudaMemcpy(v, L->val, (size_t)np * 8, cudaMemcpyDeviceToHost);
  else
    cudaMemcpy(vf, L->val, (size_t)np * 4, cudaMemcpyDeviceToHost);
  int64_t bad = -1;
  for (int32_t k = 0; k <= H->nslices && bad < 0; k++)
    if (sp[k] != H->slice_ptr[k]) bad = k;
  CHECK_MSG(bad < 0, "%s B_x %d: slice_ptr differs at %lld", what, bx, (long long)bad);
  for (int64_t q = 0; q < ns && bad < 0; q++)
    if (br[q] != H->brow[q]) bad = q;
  CHECK_MSG(bad < 0, "%s B_x %d: brow differs at %lld", what, bx, (long long)bad);
  for (int64_t q = 0; q < np && bad < 0; q++) {
    const bool same_val = prec == CGM_PREC_DOUBLE ? v[q] == H->val[q] : vf[q] == (float)H->val[q];
    if (bc[q] != H->bcol[q] || !same_val) bad = q;
  }
  CHECK_MSG(bad < 0, "%s B_x %d %s: block %lld differs (col %d vs %d)", what, bx,
            cgm_precision_name(prec), (long long)bad, bad >= 0 ? bc[bad] : 0,
            bad >= 0 ? H->bcol[bad] : 0);
  free(sp), free(bc), free(br), free(v), free(vf);
}

/* The layouts built on the device against the host's: the whole matrix
 * (cgm_bcsr_build), and split, the rows of at most CGM_LONG_ROW entries
 * and the longer ones a row a slice (cgm_bcsr_build_rows, as the solver's
 * segments); *nlong: the long rows' count. */
static void compare_layout(const char *what, const cgm_csr *A, int bx, cgm_precision prec,
                           bool rowptr64, int32_t *nlong) {
  cgm_bcsr_params p = {1, bx, 0};
  cgm_error err = {0};
  CHECK_OK(cgm_bcsr_params_check(&p, &err));
  int32_t *rows = malloc(((size_t)A->nrows + 1) * sizeof *rows), ns = 0, nl = 0;
  for (int32_t i = 0; i < A->nrows; i++)
    if (A->rowptr[i + 1] - A->rowptr[i] <= CGM_LONG_ROW) rows[ns++] = i;
  for (int32_t i = 0; i < A->nrows; i++)
    if (A->rowptr[i + 1] - A->rowptr[i] > CGM_LONG_ROW) rows[ns + nl++] = i;
  *nlong = nl;
  const cgm_bcsr_params one = {1, 1, 1};
  cgm_bcsr H, S, Lg;
  CHECK_OK(cgm_bcsr_build(A, 0, A->nrows, p, &H, &err));
  CHECK_OK(cgm_bcsr_build_rows(A, rows, ns, 0, p, &S, &err));
  CHECK_OK(cgm_bcsr_build_rows(A, rows + ns, nl, 0, one, &Lg, &err));
  dev_csr M;
  upload(A, rowptr64, &M);
  for (int split = 0; split < 2; split++) {
    cgm_cuda_dev d;
    memset(&d, 0, sizeof d);
    d.dev = -1;
    CHECK_OK(cgm_cuda_dev_init(&d, 0, prec, A->nrows, A->nrows, &err));
    cgm_status st = cgm_cuda_matrix_from_device(&d, &M.d, p, &d.A, split ? &d.C : NULL, &err);
    CHECK_MSG(st == CGM_OK, "%s: %s", what, err.msg);
    if (st == CGM_OK && !split) compare_one(what, &d.A, &H, bx, prec);
    if (st == CGM_OK && split) {
      char w2[160];
      snprintf(w2, sizeof w2, "%s (short rows)", what);
      compare_one(w2, &d.A, &S, bx, prec);
      snprintf(w2, sizeof w2, "%s (long rows)", what);
      CHECK_MSG(d.C.present == (nl > 0) && (nl == 0 || d.C.L.long_rows), "%s: present %d, %d rows",
                w2, d.C.present, nl);
      if (nl > 0) compare_one(w2, &d.C, &Lg, bx, prec);
      int32_t huge = 0; /* the rows read by a block each, longest first */
      for (int32_t k = 0; k < Lg.nslices; k++)
        huge += Lg.slice_ptr[k + 1] - Lg.slice_ptr[k] > CGM_HUGE_ROW;
      CHECK_MSG(nl == 0 || d.C.L.nhuge == huge, "%s: %d huge rows, host %d", w2, d.C.L.nhuge, huge);
    }
    cgm_cuda_dev_free(&d);
  }
  dev_free(&M);
  cgm_bcsr_free(&H);
  cgm_bcsr_free(&S);
  cgm_bcsr_free(&Lg);
  free(rows);
}

/* Solves A x = b from GPU memory and from host memory; checks the
 * recomputed residual and that both take the same iterations. */
static void solve_both(const char *what, const cgm_csr *A, cgm_precision prec, double tol,
                       bool rowptr64) {
  const int32_t n = A->nrows;
  double *xs = malloc((size_t)n * 8), *b = malloc((size_t)n * 8), *x = calloc((size_t)n, 8);
  for (int32_t i = 0; i < n; i++) xs[i] = 1.0 + 0.5 * sin(0.1 * i);
  cgm_csr_spmv(A, xs, b);
  cgm_solve_opts o = cgm_solve_opts_default();
  o.backend = CGM_BACKEND_CUDA;
  o.precision = prec;
  o.tol = tol;
  o.layout = cgm_bcsr_default_params(1);
  o.reorder = CGM_REORDER_NONE;
  cgm_solve_result rh, rd;
  cgm_error err = {0};
  const cgm_status sh = cgm_solve(A, b, x, &o, &rh, &err);
  CHECK_MSG(sh == CGM_OK, "%s host %s: %s", what, cgm_precision_name(prec), err.msg);
  dev_csr M;
  upload(A, rowptr64, &M);
  double *db = NULL, *dx = NULL;
  CHECK(cudaMalloc((void **)&db, (size_t)n * 8) == cudaSuccess);
  CHECK(cudaMalloc((void **)&dx, (size_t)n * 8) == cudaSuccess);
  cudaMemcpy(db, b, (size_t)n * 8, cudaMemcpyHostToDevice);
  cudaMemset(dx, 0, (size_t)n * 8);
  const cgm_status sd = cgm_solve_device(&M.d, db, dx, &o, &rd, &err);
  CHECK_MSG(sd == CGM_OK, "%s device %s: status %d: %s", what, cgm_precision_name(prec), sd,
            err.msg);
  cudaMemcpy(x, dx, (size_t)n * 8, cudaMemcpyDeviceToHost);
  const double rel = test_residual(A, b, x);
  CHECK_MSG(rel <= tol && rd.converged, "%s device %s: recomputed residual %.3g (tol %.3g)", what,
            cgm_precision_name(prec), rel, tol);
  CHECK_MSG(fabs(rd.relative_residual - rel) <= 1e-3 * rel + 1e-300,
            "%s: the device's residual %.6g, recomputed here %.6g", what, rd.relative_residual,
            rel);
  /* the same layout and vectors: the same iteration, but for ||b|| (summed
   * in another order), whose last bit can move a replacement near the
   * floor by an iteration or two */
  const int slack = 2 + rh.iterations / 50;
  CHECK_MSG(abs(rd.iterations - rh.iterations) <= slack, "%s %s: %d iterations, host memory %d",
            what, cgm_precision_name(prec), rd.iterations, rh.iterations);
  fprintf(stderr, "%s %s (rowptr %d-bit): %d iterations (host memory %d), residual %.3g\n", what,
          cgm_precision_name(prec), rowptr64 ? 64 : 32, rd.iterations, rh.iterations, rel);
  /* again, the iterate kept in host memory at each check (monitor_x): the
   * last is x, the reported residual the iterated one (in double the
   * single-reduction CG's of the iteration before: test_cuda_cg) */
  double *mx = malloc((size_t)n * 8), *last = malloc((size_t)n * 8), *x0 = calloc((size_t)n, 8);
  test_iterates it = {A, b, x0, mx, last, 0, 0, 0, 0.0, 0.0};
  o.monitor = test_keep_iterate, o.monitor_ctx = &it, o.monitor_x = mx;
  cudaMemset(dx, 0, (size_t)n * 8);
  CHECK_OK(cgm_solve_device(&M.d, db, dx, &o, &rd, &err));
  cudaMemcpy(x, dx, (size_t)n * 8, cudaMemcpyDeviceToHost);
  CHECK_MSG(it.calls >= 2 && it.rising && it.iteration == rd.iterations &&
                !memcmp(last, x, (size_t)n * 8) && test_residual(A, b, x) <= tol &&
                it.worst < (prec == CGM_PREC_DOUBLE ? 1.0 : 0.5),
            "%s device %s, x kept: %d calls, the last at %d of %d, x_k %s x, residual gap %g", what,
            cgm_precision_name(prec), it.calls, it.iteration, rd.iterations,
            memcmp(last, x, (size_t)n * 8) ? "is not" : "is", it.worst);
  free(mx), free(last), free(x0);
  cudaFree(db), cudaFree(dx);
  dev_free(&M);
  free(xs), free(b), free(x);
}

/* cgm_solve_device on A as given must fail with `code` and a message
 * containing `text`; b and x are ones and zeros. */
static void refused(const char *what, const cgm_csr *A, const cgm_solve_opts *o, double b0,
                    cgm_status code, const char *text) {
  const int32_t n = A->nrows;
  dev_csr M;
  upload(A, false, &M);
  double *h = malloc((size_t)(n > 0 ? n : 1) * 8), *db = NULL, *dx = NULL;
  for (int32_t i = 0; i < n; i++) h[i] = i == 0 ? b0 : 1.0;
  cudaMalloc((void **)&db, (size_t)(n > 0 ? n : 1) * 8);
  cudaMalloc((void **)&dx, (size_t)(n > 0 ? n : 1) * 8);
  cudaMemcpy(db, h, (size_t)n * 8, cudaMemcpyHostToDevice);
  cudaMemset(dx, 0, (size_t)(n > 0 ? n : 1) * 8);
  cgm_solve_result r;
  cgm_error err = {0};
  const cgm_status st = cgm_solve_device(&M.d, db, dx, o, &r, &err);
  CHECK_MSG(st == code && strstr(err.msg, text), "%s: status %d (want %d): '%s' (want '%s')", what,
            st, code, err.msg, text);
  cudaFree(db), cudaFree(dx);
  dev_free(&M);
  free(h);
}

int main(void) {
  if (cgm_cuda_device_count() < 1) return CGM_TEST_SKIP;
  cgm_error err = {0};
  cgm_csr R, P, B, G;
  random_sym(5000, &R);
  CHECK_OK(cgm_gen_poisson3d(24, &P, &err));
  CHECK_OK(cgm_mm_read_csr(CGM_DATA_DIR "/bcsstk15.mtx", &B, NULL, &err));
  /* hubs of up to 5000 entries: long rows, some read by a block each */
  CHECK_OK(cgm_gen_random_spd(20000, 8, CGM_ROWDIST_POWERLAW, 2.0, 5000, 11, &G, &err));
  const struct {
    const char *name;
    const cgm_csr *A;
  } set[] = {{"random", &R}, {"poisson3d 24", &P}, {"bcsstk15", &B}, {"hubs", &G}};
  for (size_t m = 0; m < sizeof set / sizeof *set; m++) {
    int32_t nlong = 0;
    for (int bx = 1; bx <= 4; bx *= 2) {
      compare_layout(set[m].name, set[m].A, bx, CGM_PREC_DOUBLE, bx == 2, &nlong);
      compare_layout(set[m].name, set[m].A, bx, CGM_PREC_SINGLE, bx != 2, &nlong);
    }
    if (set[m].A == &G) CHECK_MSG(nlong > 0, "hubs: %d long rows", nlong);
  }
  solve_both("poisson3d 24", &P, CGM_PREC_DOUBLE, 1e-10, false);
  solve_both("poisson3d 24", &P, CGM_PREC_DOUBLE, 1e-8, true);
  solve_both("poisson3d 24", &P, CGM_PREC_MIXED, 1e-10, false);
  solve_both("poisson3d 24", &P, CGM_PREC_SINGLE, 1e-5, true);
  solve_both("random", &R, CGM_PREC_DOUBLE, 1e-12, true);
  solve_both("bcsstk15", &B, CGM_PREC_DOUBLE, 1e-8, false);
  solve_both("bcsstk15", &B, CGM_PREC_MIXED, 1e-8, false);
  solve_both("hubs", &G, CGM_PREC_DOUBLE, 1e-10, false);
  solve_both("hubs", &G, CGM_PREC_MIXED, 1e-8, true);
  solve_both("hubs", &G, CGM_PREC_SINGLE, 1e-5, false);

  cgm_solve_opts o = cgm_solve_opts_default();
  o.backend = CGM_BACKEND_CUDA;
  o.layout = cgm_bcsr_default_params(1);
  o.reorder = CGM_REORDER_NONE;
  refused("NaN in b", &P, &o, NAN, CGM_EINPUT, "right-hand side entry 1 is nan");
  {
    cgm_csr C;
    CHECK_OK(cgm_gen_poisson2d(6, &C, &err));
    C.val[C.rowptr[4] + 2] = INFINITY; /* row 5's third entry, (5, 6) */
    refused("Inf in A", &C, &o, 1.0, CGM_EINPUT, "matrix entry (5, 6) is inf");
    C.val[C.rowptr[4] + 2] = -0.5; /* its mirror (6, 5) stays -1 */
    refused("unsymmetric", &C, &o, 1.0, CGM_EINPUT, "not symmetric");
    C.val[C.rowptr[4] + 2] = -1.0;
    for (int64_t k = C.rowptr[7]; k < C.rowptr[8]; k++)
      if (C.colidx[k] == 7) C.val[k] = -4.0;
    refused("negative diagonal", &C, &o, 1.0, CGM_ENOCONV,
            "not positive definite: diagonal entry (8, 8) is -4");
    for (int64_t k = C.rowptr[7]; k < C.rowptr[8]; k++)
      if (C.colidx[k] == 7) C.val[k] = 4.0;
    const int32_t c0 = C.colidx[C.rowptr[3]];
    C.colidx[C.rowptr[3]] = C.colidx[C.rowptr[3] + 1];
    refused("unsorted columns", &C, &o, 1.0, CGM_EINPUT, "CSR row 3: columns not sorted");
    C.colidx[C.rowptr[3]] = c0;
    cgm_solve_opts o2 = o;
    o2.layout = cgm_bcsr_default_params(2);
    refused("block 2", &C, &o2, 1.0, CGM_EINPUT, "block size 1");
    o2 = o;
    o2.backend = CGM_BACKEND_CPU;
    refused("cpu backend", &C, &o2, 1.0, CGM_EINPUT, "cuda backend");
    o2 = o;
    o2.precision = CGM_PREC_SINGLE;
    C.val[0] = 1e300;
    refused("beyond float", &C, &o2, 1.0, CGM_EINPUT, "beyond single precision's range");
    cgm_csr_free(&C);
  }
  { /* b = 0: x = 0, converged without an iteration */
    dev_csr M;
    upload(&P, false, &M);
    double *db = NULL, *dx = NULL, one = 1.0, back = -1.0;
    cudaMalloc((void **)&db, (size_t)P.nrows * 8);
    cudaMalloc((void **)&dx, (size_t)P.nrows * 8);
    cudaMemset(db, 0, (size_t)P.nrows * 8);
    cudaMemcpy(dx, &one, 8, cudaMemcpyHostToDevice);
    cgm_solve_result r;
    CHECK_OK(cgm_solve_device(&M.d, db, dx, &o, &r, &err));
    cudaMemcpy(&back, dx, 8, cudaMemcpyDeviceToHost);
    CHECK(r.converged && r.iterations == 0 && back == 0.0);
    cudaFree(db), cudaFree(dx);
    dev_free(&M);
  }
  cgm_csr_free(&R);
  cgm_csr_free(&P);
  cgm_csr_free(&B);
  cgm_csr_free(&G);
  TEST_MAIN_END();
}
