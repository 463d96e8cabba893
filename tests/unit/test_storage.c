/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The values' storage formats (cgm_value_set) on the CPU: the SpMV over F32
 * and DICT against full values at every block size, on a 3D Poisson matrix
 * (two values and the padding's 0: DICT, F32 exact) and on bcsstk15 (values
 * that are not floats: F32 within 2^-24 of each term, flagged not exact);
 * solves with storage compact: DICT takes full's iterations exactly, F32
 * with reliable updates reaches the tolerance in the true residual within
 * 10% of full's iterations; compact refused beside single precision; the
 * refined model's SpMV bytes at each format, and the format it prices:
 * the one a solve would take. */
#include <math.h>
#include <stdint.h>

#include "cgmodel/model.h"
#include "cgmodel/solver.h"
#include "cgmodel/tuner.h"
#include "solver/cpu/cg_cpu.h"
#include "test_linalg.h"
#include "test_util.h"

static void read_matrix(const char *name, cgm_csr *A) {
  char path[1024];
  cgm_error err;
  snprintf(path, sizeof path, "%s/%s.mtx", CGM_DATA_DIR, name);
  CHECK_OK(cgm_mm_read_csr(path, A, NULL, &err));
}

/* y over B's values in format fmt against y over the full values: exact
 * (bitwise, the same terms in the same order) or within 2^-24 of every
 * term |a_ij x_j|. Returns the largest difference. */
static double spmv_against_full(const cgm_csr *A, int n, cgm_values fmt, bool exact) {
  cgm_bcsr B;
  cgm_error err;
  CHECK_OK(cgm_bcsr_build(A, 0, (A->nrows + n - 1) / n, cgm_bcsr_default_params(n), &B, &err));
  const cgm_value_set s =
      cgm_values_choose(A->val, A->nnz, n, B.nbcols, CGM_STORAGE_COMPACT, CGM_PREC_DOUBLE);
  CHECK_MSG(s.fmt == fmt && s.exact == exact, "N=%d: format %s exact %d, want %s %d", n,
            cgm_values_name(s.fmt), s.exact, cgm_values_name(fmt), exact);
  const int64_t nx = (int64_t)B.nbcols * n, ny = (int64_t)B.nbrows * n;
  const int64_t ne = B.nblocks_padded * n * n;
  double *x = malloc(nx * sizeof *x), *y = malloc(ny * sizeof *y), *yc = malloc(ny * sizeof *yc);
  double *bound = calloc(ny, sizeof *bound);
  float *f = malloc((ne + 1) * sizeof *f);
  int32_t *cc = malloc((B.nblocks_padded + 1) * sizeof *cc);
  uint64_t st = 7;
  for (int64_t i = 0; i < nx; i++) x[i] = i < A->ncols ? unif01(&st) - 0.3 : 0.0;
  for (int64_t q = 0; q < ne; q++) f[q] = (float)B.val[q];
  for (int32_t i = 0; i < A->nrows; i++)
    for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++)
      bound[i] += fabs(A->val[k] * x[A->colidx[k]]);
  const double dot = cgm_cpu_spmv_f64(&B, B.val, x, y, x);
  cgm_cpu_vals V = {&s, f, NULL};
  if (s.fmt == CGM_VALUES_DICT) {
    cgm_values_encode(&B, &s, cc);
    V.val = NULL, V.ccol = cc;
  }
  const double dotc = cgm_cpu_spmv_vals(&B, &V, x, yc, x);
  double worst = 0.0;
  for (int64_t i = 0; i < A->nrows; i++) {
    const double d = fabs(yc[i] - y[i]);
    if (d > worst) worst = d;
    CHECK_MSG(exact ? d == 0.0 : d <= 0x1p-24 * bound[i] * (1 + 1e-9) + 1e-15 * bound[i],
              "N=%d %s row %lld: %.17g against %.17g (bound %.3g)", n, cgm_values_name(fmt),
              (long long)i, yc[i], y[i], bound[i]);
  }
  if (exact) CHECK(dotc == dot);
  free(x), free(y), free(yc), free(bound), free(f), free(cc);
  cgm_bcsr_free(&B);
  return worst;
}

static void test_spmv(void) {
  cgm_csr P, K;
  cgm_error err;
  CHECK_OK(cgm_gen_poisson3d(11, &P, &err)); /* 1331 rows: padding at every N > 1 */
  read_matrix("bcsstk15", &K);
  for (int bi = 0; bi < CGM_NBLOCKSIZES; bi++) {
    const int n = cgm_block_sizes[bi];
    (void)spmv_against_full(&P, n, n == 1 ? CGM_VALUES_DICT : CGM_VALUES_F32, true);
    CHECK(spmv_against_full(&K, n, CGM_VALUES_F32, false) > 0.0); /* it does round */
  }
  /* auto: full where compact would not be exact, and below
   * CGM_COMPACT_MIN_BYTES (a cache holds the values); full in single */
  cgm_value_set s = cgm_values_choose(K.val, K.nnz, 1, K.ncols, CGM_STORAGE_AUTO, CGM_PREC_DOUBLE);
  CHECK(s.fmt == CGM_VALUES_FULL && s.exact);
  s = cgm_values_choose(P.val, P.nnz, 1, P.ncols, CGM_STORAGE_COMPACT, CGM_PREC_SINGLE);
  CHECK(s.fmt == CGM_VALUES_FULL);
  s = cgm_values_choose(P.val, P.nnz, 1, P.ncols, CGM_STORAGE_AUTO, CGM_PREC_DOUBLE);
  CHECK(s.fmt == CGM_VALUES_FULL);
  const int64_t big = (int64_t)(CGM_COMPACT_MIN_BYTES / 12) + 1; /* P's values over and over */
  double *bv = malloc((size_t)big * sizeof *bv);
  CHECK(bv != NULL);
  for (int64_t k = 0; bv && k < big; k++) bv[k] = P.val[k % P.nnz];
  s = cgm_values_choose(bv, big, 1, P.ncols, CGM_STORAGE_AUTO, CGM_PREC_DOUBLE);
  CHECK(s.fmt == CGM_VALUES_DICT && s.ndict == 3 && s.shift == 11);
  s = cgm_values_choose(bv, big - 2, 1, P.ncols, CGM_STORAGE_AUTO, CGM_PREC_DOUBLE);
  CHECK(s.fmt == CGM_VALUES_FULL);
  for (int64_t k = 0; bv && k < big; k++) bv[k] = K.val[k % K.nnz]; /* past the bound, not floats */
  s = cgm_values_choose(bv, big, 1, K.ncols, CGM_STORAGE_AUTO, CGM_PREC_DOUBLE);
  CHECK(s.fmt == CGM_VALUES_FULL && s.exact);
  s = cgm_values_choose(bv, big, 1, K.ncols, CGM_STORAGE_COMPACT, CGM_PREC_DOUBLE);
  CHECK(s.fmt == CGM_VALUES_F32 && !s.exact);
  for (int64_t k = 0; bv && k < big; k++) bv[k] = (double)(k % 20); /* 20 values over the threads */
  s = cgm_values_choose(bv, big, 1, K.ncols, CGM_STORAGE_AUTO, CGM_PREC_DOUBLE);
  CHECK(s.fmt == CGM_VALUES_F32 && s.exact);
  for (int64_t k = 0; bv && k < big; k++) bv[k] = (double)(k % 15) + (k == big / 2 ? NAN : 0.0);
  s = cgm_values_choose(bv, big, 1, K.ncols, CGM_STORAGE_COMPACT, CGM_PREC_DOUBLE);
  CHECK(s.fmt != CGM_VALUES_DICT); /* a NaN has no code */
  for (int64_t k = 0; bv && k < big; k++) bv[k] = (double)(k % 15);
  s = cgm_values_choose(bv, big, 1, K.ncols, CGM_STORAGE_AUTO, CGM_PREC_DOUBLE);
  CHECK(s.fmt == CGM_VALUES_DICT && s.ndict == 15); /* 0, the padding's, among them */
  free(bv);
  s = cgm_values_choose(P.val, P.nnz, 1, P.ncols, CGM_STORAGE_COMPACT, CGM_PREC_DOUBLE);
  CHECK(s.fmt == CGM_VALUES_DICT && s.ndict == 3 && s.shift == 11);
  /* codes that do not fit beside the column: 2^29 columns leave 2 bits */
  s = cgm_values_choose(P.val, P.nnz, 1, 1 << 29, CGM_STORAGE_COMPACT, CGM_PREC_DOUBLE);
  CHECK(s.fmt == CGM_VALUES_DICT && s.shift == 29);
  s = cgm_values_choose(P.val, P.nnz, 1, (1 << 29) + 1, CGM_STORAGE_COMPACT, CGM_PREC_DOUBLE);
  CHECK(s.fmt == CGM_VALUES_F32 && s.exact);
  cgm_csr_free(&P);
  cgm_csr_free(&K);
}

/* A pass as a GPU runs it (kernels/device_layout.cu values_found), on the host; fail: it fails. */
typedef struct {
  const double *val;
  int64_t nnz;
  int calls, fail;
} host_pass;
static int pass_on_host(void *ctx, const cgm_value_set *s, double *outside) {
  host_pass *h = ctx;
  int found = 0;
  h->calls++;
  for (int64_t k = 0; k < h->nnz; k++) {
    bool in = s->fmt != CGM_VALUES_DICT;
    for (int i = 0; i < s->ndict && !in; i++) in = s->dict[i] == h->val[k];
    if (!in) *outside = h->val[k], found |= CGM_VALUES_OUTSIDE;
    found |= (double)(float)h->val[k] == h->val[k] ? 0 : CGM_VALUES_NOT_F32;
    found |= CGM_FLOAT_NEAR(h->val[k]) ? 0 : CGM_VALUES_FAR;
  }
  return h->fail ? -1 : found;
}

/* cgm_values_choose_by with a pass as the GPU makes it gives what cgm_values_choose's passes on
 * every core give: the same format, exactness and dictionary (as a set), on values of every kind
 * (a stencil's, a value the sample misses, integers past the dictionary's room, values that are
 * not floats, a NaN, values past float's range or below its normal range); no pass where the
 * sample rules both formats out (but compact's, which needs the range); a failed pass says so. */
static void test_choose_by(void) {
  const int64_t big = (int64_t)(CGM_COMPACT_MIN_BYTES / 12) + 1;
  double *v = malloc((size_t)big * sizeof *v);
  CHECK(v != NULL);
  if (!v) return;
  for (int kind = 0; kind < 9; kind++) {
    for (int64_t k = 0; k < big; k++)
      v[k] = kind == 7   ? 1e50 / (double)(k + 3)    /* past float's range */
             : kind == 8 ? 1e-40 / (double)(k + 3)   /* below its normal range */
             : kind == 0 ? (k % 7 == 0 ? 6.0 : -1.0) /* a stencil */
             : kind == 1 ? (k % 7 == 0         ? 6.0
                            : k == big / 3 + 6 ? 2.5
                                               : -1.0)                         /* one unsampled */
             : kind == 2 ? (double)(k % 20)                                    /* past the room */
             : kind == 3 ? 1.0 / (double)(k + 3)                               /* not floats */
             : kind == 4 ? (double)(k % 15) + (k == big / 2 + 100 ? NAN : 0.0) /* a NaN */
             : kind == 5 ? (k % 5 ? 1.0 : 0.1)                                 /* few, not floats */
                         : (double)(k % 15) + (k == big - 1 ? 0.1 : 0.0);      /* one not a float */
    for (int st = 0; st < 3; st++) {
      const cgm_storage storage = st == 0   ? CGM_STORAGE_AUTO
                                  : st == 1 ? CGM_STORAGE_COMPACT
                                            : CGM_STORAGE_FULL;
      const cgm_value_set a = cgm_values_choose(v, big, 1, 4096, storage, CGM_PREC_DOUBLE);
      host_pass h = {v, big, 0, 0};
      cgm_value_set b;
      CHECK(cgm_values_choose_by(&b, v, big, 1, 4096, storage, CGM_PREC_DOUBLE, pass_on_host, &h));
      CHECK(a.fmt == b.fmt && a.exact == b.exact && a.ndict == b.ndict && a.shift == b.shift);
      for (int i = 0; i < a.ndict; i++) {
        bool in = false;
        for (int j = 0; j < b.ndict; j++) in = in || a.dict[i] == b.dict[j];
        CHECK(in);
      }
      /* none where full is asked or the sample rules both out (but compact: the range), two
       * where it misses one value */
      const bool none = st == 2 || (st == 0 && (kind == 3 || kind >= 7));
      CHECK(h.calls == (none ? 0 : kind == 1 || kind == 6 ? 2 : 1));
      if (kind == 1 && st < 2) CHECK(b.fmt == CGM_VALUES_DICT && b.ndict == 4);
      /* compact rounds to floats only where they stay near the values */
      if (st == 1 && kind >= 7) CHECK(b.fmt == CGM_VALUES_FULL && b.exact);
      if (st == 1 && kind == 3) CHECK(b.fmt == CGM_VALUES_F32 && !b.exact);
    }
  }
  host_pass h = {v, big, 0, 1};
  cgm_value_set b;
  CHECK(!cgm_values_choose_by(&b, v, big, 1, 4096, CGM_STORAGE_COMPACT, CGM_PREC_DOUBLE,
                              pass_on_host, &h));
  CHECK(b.fmt == CGM_VALUES_FULL && b.exact);
  free(v);
}

static cgm_solve_result solve(const cgm_csr *A, cgm_storage storage, cgm_precision prec,
                              cgm_status want, char *msg) {
  cgm_solve_opts o = cgm_solve_opts_default();
  o.storage = storage;
  o.precision = prec;
  cgm_solve_result r;
  cgm_error err = {0};
  double res;
  CHECK_MSG(test_solve_known(A, &o, &r, &err, &res) == want, "storage %s: %s",
            cgm_storage_name(storage), err.msg);
  if (msg) snprintf(msg, 512, "%s", err.msg);
  if (want == CGM_OK) /* the true residual, recomputed here */
    CHECK_MSG(res <= cgm_solve_tol(&o), "storage %s: residual %.3g", cgm_storage_name(storage),
              res);
  return r;
}

static void test_solves(void) {
  cgm_csr P, K;
  cgm_error err;
  CHECK_OK(cgm_gen_poisson3d(20, &P, &err));
  read_matrix("bcsstk15", &K);
  const cgm_solve_result pf = solve(&P, CGM_STORAGE_FULL, CGM_PREC_DOUBLE, CGM_OK, NULL);
  const cgm_solve_result pc = solve(&P, CGM_STORAGE_COMPACT, CGM_PREC_DOUBLE, CGM_OK, NULL);
  CHECK(pf.storage == CGM_VALUES_FULL && pc.storage == CGM_VALUES_DICT && pc.storage_exact);
  CHECK_MSG(pc.iterations == pf.iterations, "dict %d iterations, full %d", pc.iterations,
            pf.iterations);
  CHECK(pc.value_bytes == 0 && pc.index_bytes == pf.index_bytes &&
        pf.value_bytes == 2 * pf.index_bytes && pc.iter_bytes == pf.iter_bytes - pf.value_bytes);
  const cgm_solve_result kf = solve(&K, CGM_STORAGE_FULL, CGM_PREC_DOUBLE, CGM_OK, NULL);
  const cgm_solve_result ka = solve(&K, CGM_STORAGE_AUTO, CGM_PREC_DOUBLE, CGM_OK, NULL);
  const cgm_solve_result kc = solve(&K, CGM_STORAGE_COMPACT, CGM_PREC_DOUBLE, CGM_OK, NULL);
  CHECK(ka.storage == CGM_VALUES_FULL && ka.iterations == kf.iterations);
  CHECK(kc.storage == CGM_VALUES_F32 && !kc.storage_exact && kc.value_bytes * 2 == kf.value_bytes);
  CHECK_MSG(kc.iterations <= 1.1 * kf.iterations, "f32 %d iterations, full %d", kc.iterations,
            kf.iterations);
  char msg[512];
  solve(&P, CGM_STORAGE_COMPACT, CGM_PREC_SINGLE, CGM_EINPUT, msg);
  CHECK_MSG(strstr(msg, "storage compact") && strstr(msg, "single"), "%s", msg);
  const cgm_solve_result ps = solve(&P, CGM_STORAGE_AUTO, CGM_PREC_MIXED, CGM_OK, NULL);
  CHECK(ps.storage == CGM_VALUES_FULL);
  /* values floats cannot hold: compact keeps them full (as floats they were infinite: NaN) */
  for (int64_t k = 0; k < K.nnz; k++) K.val[k] *= 1e50;
  const cgm_solve_result kb = solve(&K, CGM_STORAGE_COMPACT, CGM_PREC_DOUBLE, CGM_OK, NULL);
  CHECK(kb.storage == CGM_VALUES_FULL && kb.iterations == kf.iterations);
  /* Stiffness jumping by 1e8: rounded to floats the matrix is indefinite and CG on them diverges;
   * the solve goes on with full values and meets the tolerance (solve() recomputes it). */
  cgm_csr M;
  CHECK_OK(cgm_gen_mesh3d_coef(500, 8, CGM_NUMBERING_SORTED, 1, 1e8, &M, &err));
  double *ones = malloc(M.nrows * sizeof *ones), *b = malloc(M.nrows * sizeof *b);
  double *x = calloc(M.nrows, sizeof *x);
  for (int32_t i = 0; i < M.nrows; i++) ones[i] = 1.0;
  cgm_csr_spmv(&M, ones, b);
  cgm_solve_opts o = cgm_solve_opts_default();
  o.storage = CGM_STORAGE_COMPACT;
  o.tol = 1e-3;
  cgm_solve_result mc;
  CHECK_OK(cgm_solve(&M, b, x, &o, &mc, &err));
  const double res = test_residual(&M, b, x);
  CHECK_MSG(mc.fallback_iterations > 0 && mc.storage == CGM_VALUES_FULL && mc.converged &&
                res <= 1e-3,
            "compact on a 1e8 contrast: %d iterations on floats, then %s, residual %.3g",
            mc.fallback_iterations, cgm_values_name(mc.storage), res);
  free(ones), free(b), free(x);
  cgm_csr_free(&M);
  cgm_csr_free(&P);
  cgm_csr_free(&K);
}

/* The refined model counts the values as the plan says they are stored. */
static void test_model_bytes(void) {
  cgm_csr P;
  cgm_error err;
  CHECK_OK(cgm_gen_poisson3d(10, &P, &err));
  cgm_solve_opts o = cgm_solve_opts_default();
  cgm_plan p;
  CHECK_OK(cgm_solve_plan(&P, &o, &p, &err));
  int64_t blocks = 0;
  for (int k = 0; k < p.seg[0].nparts; k++) blocks += p.seg[0].part[k].blocks_padded;
  const double full = cgm_refined_shape(&p, 0).spmv_bytes;
  p.o.values = CGM_VALUES_DICT;
  const double dict = cgm_refined_shape(&p, 0).spmv_bytes;
  p.o.values = CGM_VALUES_F32;
  const double f32 = cgm_refined_shape(&p, 0).spmv_bytes;
  CHECK_MSG(blocks >= P.nnz && full - dict == 8.0 * blocks && full - f32 == 4.0 * blocks,
            "full %.0f, dict %.0f, f32 %.0f bytes, %lld blocks", full, dict, f32,
            (long long)blocks);
  cgm_csr_free(&P);
}

/* The model prices the format a solve would take: what A's values allow
 * (cgm_values_class), auto's rule by size and precision, --storage full. */
static void test_model_format(void) {
  const unsigned NEAR = CGM_CAN_F32_NEAR; /* every value within float's normal range */
  cgm_csr P, K;
  cgm_error err;
  read_matrix("bcsstk15", &K);
  CHECK(cgm_values_class(K.val, K.nnz, K.ncols) == NEAR); /* floats round them */
  const double third[3] = {1.0 / 3.0, 0.25, 3.0}, sixteenths[3] = {1.0 / 16, 0.5, 2.0};
  CHECK(cgm_values_class(third, 3, 10) == (CGM_CAN_DICT | NEAR)); /* few values, 1/3 not a float */
  CHECK(cgm_values_class(sixteenths, 3, 10) == (CGM_CAN_DICT | CGM_CAN_F32 | NEAR));
  double many[40];
  for (int i = 0; i < 40; i++) many[i] = 1.0 + i;
  CHECK(cgm_values_class(many, 40, 10) == (CGM_CAN_F32 | NEAR));
  many[7] = 0.1;
  CHECK(cgm_values_class(many, 40, 10) == NEAR);
  many[9] = 1e39; /* past float's range: compact keeps full values */
  CHECK(cgm_values_class(many, 40, 10) == 0);
  many[9] = 10.0;
  /* sampled: the class of every value where a sample sees them all (Poisson's two, bcsstk15's
   * many), and where fewer than the sample, the whole pass's */
  CHECK(cgm_values_class_sampled(K.val, K.nnz, K.ncols) == NEAR);
  CHECK(cgm_values_class_sampled(many, 40, 10) == NEAR);
  many[7] = 8.0;
  CHECK(cgm_values_class_sampled(many, 40, 10) == (CGM_CAN_F32 | NEAR));
  /* 60^3: 1.5M entries, past CGM_COMPACT_MIN_BYTES */
  CHECK_OK(cgm_gen_poisson3d(60, &P, &err));
  CHECK((double)P.nnz * 12.0 >= CGM_COMPACT_MIN_BYTES);
  CHECK(P.nnz > 1000 * CGM_VALUES_SAMPLE &&
        cgm_values_class_sampled(P.val, P.nnz, P.ncols) ==
            cgm_values_class(P.val, P.nnz, P.ncols) &&
        cgm_values_class(P.val, P.nnz, P.ncols) == (CGM_CAN_DICT | CGM_CAN_F32 | NEAR));
  const struct {
    const cgm_csr *A;
    int n;
    cgm_precision prec;
    cgm_storage storage;
    cgm_values want;
  } c[] = {{&P, 1, CGM_PREC_DOUBLE, CGM_STORAGE_AUTO, CGM_VALUES_DICT},
           {&P, 2, CGM_PREC_DOUBLE, CGM_STORAGE_AUTO, CGM_VALUES_F32},
           {&P, 1, CGM_PREC_DOUBLE, CGM_STORAGE_FULL, CGM_VALUES_FULL},
           {&P, 1, CGM_PREC_SINGLE, CGM_STORAGE_AUTO, CGM_VALUES_FULL},
           {&K, 1, CGM_PREC_DOUBLE, CGM_STORAGE_AUTO, CGM_VALUES_FULL}, /* small, not exact */
           {&K, 1, CGM_PREC_DOUBLE, CGM_STORAGE_COMPACT, CGM_VALUES_F32}};
  for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
    cgm_solve_opts o = cgm_solve_opts_default();
    o.layout = cgm_bcsr_default_params(c[i].n);
    o.precision = c[i].prec;
    o.storage = c[i].storage;
    cgm_plan p;
    CHECK_OK(cgm_solve_plan(c[i].A, &o, &p, &err));
    CHECK_MSG(p.o.values == c[i].want, "case %zu: %s, want %s", i, cgm_values_name(p.o.values),
              cgm_values_name(c[i].want));
    /* the solver's own choice agrees */
    const cgm_value_set v =
        cgm_values_choose(c[i].A->val, c[i].A->nnz, c[i].n, (c[i].A->ncols + c[i].n - 1) / c[i].n,
                          c[i].storage, c[i].prec);
    CHECK_MSG(v.fmt == c[i].want, "case %zu: the solver takes %s", i, cgm_values_name(v.fmt));
  }
  /* inexact values in f32 on one GPU keep a double copy for the reliable
   * updates: the memory counts the floats beside it */
  {
    cgm_solve_opts g = cgm_solve_opts_default();
    g.backend = CGM_BACKEND_CUDA;
    cgm_plan full, compact;
    g.storage = CGM_STORAGE_FULL;
    CHECK_OK(cgm_solve_plan(&K, &g, &full, &err));
    g.storage = CGM_STORAGE_COMPACT;
    CHECK_OK(cgm_solve_plan(&K, &g, &compact, &err));
    int64_t el = 0;
    for (int k = 0; k < compact.seg[0].nparts; k++)
      if (!compact.seg[0].part[k].long_rows) el += compact.seg[0].part[k].blocks_padded;
    CHECK_MSG(
        compact.o.values == CGM_VALUES_F32 && compact.device_bytes - full.device_bytes == 4 * el,
        "%s: %lld bytes against full's %lld, %lld elements", cgm_values_name(compact.o.values),
        (long long)compact.device_bytes, (long long)full.device_bytes, (long long)el);
  }
  /* a model with an f32 iteration curve prices an f32 plan (N = 2) by it,
   * the curves apart by 2x in rate; dict (N = 1) goes by its bytes alone */
  cgm_device_model m = {.width = 8};
  for (int b = 0; b < 2; b++) m.iter[b] = (cgm_sigmoid){18.0, 1.4, 3000.0}, m.have_iter[b] = true;
  cgm_plan pf, pc, pd;
  cgm_solve_opts o = cgm_solve_opts_default();
  o.layout = cgm_bcsr_default_params(2);
  o.storage = CGM_STORAGE_FULL;
  CHECK_OK(cgm_solve_plan(&P, &o, &pf, &err));
  o.storage = CGM_STORAGE_AUTO;
  CHECK_OK(cgm_solve_plan(&P, &o, &pc, &err));
  o.layout = cgm_bcsr_default_params(1);
  CHECK_OK(cgm_solve_plan(&P, &o, &pd, &err));
  CHECK(pc.o.values == CGM_VALUES_F32 && pd.o.values == CGM_VALUES_DICT);
  const double tf = cgm_refined_time(&m, &pf), tc_bytes = cgm_refined_time(&m, &pc),
               td = cgm_refined_time(&m, &pd);
  for (int b = 0; b < 2; b++) m.iterc[b] = (cgm_sigmoid){18.0, 1.4, 1500.0}, m.have_iterc[b] = true;
  const double tc = cgm_refined_time(&m, &pc);
  CHECK_MSG(tc_bytes < tf && tc > 1.9 * tc_bytes && tc < 2.1 * tc_bytes &&
                cgm_refined_time(&m, &pf) == tf && cgm_refined_time(&m, &pd) == td,
            "full %.3g s; f32 by the full curve %.3g s, by its own %.3g s", tf, tc_bytes, tc);
  /* the tuner's plans carry the class: its double candidates price dict */
  cgm_tuner_plan *tp;
  int count;
  CHECK_OK(cgm_tuner_plans(&P, 1, 1, 1u << CGM_EXCHANGE_HALO, &tp, &count, &err));
  CHECK(count == 1 && tp[0].plan.o.values == CGM_VALUES_DICT);
  cgm_plan_set_precision(&tp[0].plan, CGM_PREC_SINGLE);
  CHECK(tp[0].plan.o.values == CGM_VALUES_FULL);
  /* its candidates say so, and a storage asked is priced as asked */
  cgm_tuner_device d = {.name = "test GPU", .gpus = 1};
  d.model[0] = m, d.have[0] = true;
  cgm_features sizes = {.x = P.nrows, .nnz = P.nnz};
  cgm_tuner_opts to = cgm_tuner_opts_default();
  to.cusparse = false;
  double t[2] = {0, 0};
  for (int k = 0; k < 2; k++) {
    to.storage = k ? CGM_STORAGE_FULL : CGM_STORAGE_AUTO;
    cgm_candidate *c = NULL;
    int nc = 0;
    CHECK_OK(cgm_tuner_price(tp, count, &sizes, &d, 1, &to, &c, &nc, &err));
    CHECK_MSG(nc == 1 && c[0].values == (k ? CGM_VALUES_FULL : CGM_VALUES_DICT),
              "%d candidates, the first in %s", nc, nc ? cgm_values_name(c[0].values) : "-");
    if (nc == 1) t[k] = c[0].time_per_iter_s;
    free(c);
  }
  CHECK_MSG(t[0] > 0 && t[1] > 1.1 * t[0], "dict %.3g s, full %.3g s", t[0], t[1]);
  /* mixed precision's replacement SpMV reads the values in double, full
   * whatever the storage asked: its price the same in auto and full */
  d.model[CGM_PREC_SINGLE] = m, d.model[CGM_PREC_SINGLE].width = 4, d.have[CGM_PREC_SINGLE] = true;
  to.precisions = 1u << CGM_PREC_MIXED;
  for (int k = 0; k < 2; k++) {
    to.storage = k ? CGM_STORAGE_FULL : CGM_STORAGE_AUTO;
    cgm_candidate *c = NULL;
    int nc = 0;
    CHECK_OK(cgm_tuner_price(tp, count, &sizes, &d, 1, &to, &c, &nc, &err));
    CHECK(nc == 1 && c[0].precision == CGM_PREC_MIXED && c[0].values == CGM_VALUES_FULL);
    t[k] = nc == 1 ? c[0].time_per_iter_s : NAN;
    free(c);
  }
  CHECK_MSG(t[0] > 0 && t[0] == t[1], "mixed: %.4g s in auto, %.4g s in full", t[0], t[1]);
  free(tp);
  cgm_csr_free(&P);
  cgm_csr_free(&K);
}

/* Values that are not exact (bcsstk15's in f32) are what the CUDA solver
 * keeps only on one GPU, where reliable updates replace the residual; on
 * two it runs them full, and the model prices that. */
static void test_model_gpus(void) {
  cgm_csr K;
  cgm_error err;
  read_matrix("bcsstk15", &K);
  for (int g = 1; g <= 2; g++) {
    cgm_solve_opts o = cgm_solve_opts_default();
    o.backend = CGM_BACKEND_CUDA;
    o.gpus = g;
    o.storage = CGM_STORAGE_COMPACT;
    cgm_plan p;
    CHECK_OK(cgm_solve_plan(&K, &o, &p, &err));
    const cgm_values want = g == 1 ? CGM_VALUES_F32 : CGM_VALUES_FULL;
    CHECK_MSG(p.nseg == g && p.o.values == want, "%d GPUs: priced %s, the solver takes %s", g,
              cgm_values_name(p.o.values), cgm_values_name(want));
  }
  cgm_csr_free(&K);
}

/* cgm_values_class with auto's rule (cgm_values_pick) gives what
 * cgm_values_choose takes, for every block size, storage and precision:
 * values that a dictionary holds and are not floats, many floats, a NaN,
 * no values, and a column count so large that fewer than 16 codes fit. */
static void test_class_agrees(void) {
  enum { BIG = 1500000 }; /* past CGM_COMPACT_MIN_BYTES: auto may compact */
  double *v = malloc(BIG * sizeof *v);
  if (!v) return;
  for (int c = 0; c < 8; c++) {
    int32_t ncols = c == 5 ? (1 << 28) + 1 : 5000; /* 2^29 columns: 4 codes a value */
    for (int64_t k = 0; k < BIG; k++)
      v[k] = c == 6   ? 1e50 / (double)(k + 3)                 /* past float's range */
             : c == 7 ? (k % 3 ? 1e50 : -1e49)                 /* a dictionary past it */
             : c == 0 ? (k % 3 ? 1.0 / 3.0 : -0.1)             /* a dictionary, not floats */
             : c == 1 ? (double)(k % 1000)                     /* floats, too many for codes */
             : c == 2 ? (k == BIG / 2 ? NAN : (double)(k % 5)) /* a NaN */
             : c == 5 ? (double)(k % 6)                        /* 6 values, 4 codes */
                      : (double)(k % 4);                       /* 4 floats (c = 4: nnz 0) */
    const int64_t nnz = c == 4 ? 0 : BIG;
    const unsigned cls = cgm_values_class(v, nnz, ncols);
    for (int bi = 0; bi < CGM_NBLOCKSIZES; bi++)
      for (int st = CGM_STORAGE_AUTO; st <= CGM_STORAGE_COMPACT; st++)
        for (int pr = 0; pr < CGM_NPRECISIONS; pr++) {
          const int n = cgm_block_sizes[bi];
          const cgm_values want =
              cgm_values_choose(v, nnz, n, (ncols + n - 1) / n, (cgm_storage)st, (cgm_precision)pr)
                  .fmt;
          const cgm_values got = cgm_values_pick(cls, nnz, n, (cgm_storage)st, (cgm_precision)pr);
          CHECK_MSG(got == want, "values %d N=%d storage %d precision %d: %s, the solver %s", c, n,
                    st, pr, cgm_values_name(got), cgm_values_name(want));
        }
  }
  free(v);
}

int main(void) {
  test_choose_by();
  test_class_agrees();
  test_model_bytes();
  test_model_format();
  test_model_gpus();
  test_spmv();
  test_solves();
  TEST_MAIN_END();
}
