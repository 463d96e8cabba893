/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Preconditioned CG on the CPU (OpenMP) over the BCSR MBR layout, Jacobi or block-Jacobi (z = M^-1
 * r by the inverses of the diagonal blocks), written once for REAL = double and float
 * (cg_cpu_f64.c, cg_cpu_f32.c); dot products in double. The steps are Algorithm 2's fused kernels
 * (docs/model.md): CG1 r = b - A x, z = M^-1 r; SpMV+CG3 u = A v and v . u; CG4 x += t v, r -= t u,
 * r . z and r . r; CG5 v = z + s v. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/grow.h"
#include "common/timer.h"
#include "solver/backend.h"
#include "solver/cpu/cg_cpu.h"

#define CGM_CAT_(a, b) a##b
#define CGM_CAT(a, b) CGM_CAT_(a, b)
#define FN(name) CGM_CAT(name, SFX)

/* One slice, step-major (the blocks of a step are contiguous, Sec. 3.4), with N a compile-time
 * constant so the block products unroll and vectorise; the values' format (cgm_value_set) is the
 * kernel's too: VAL of block q's element (r, c) and column word cq, COL the column in cq. acc holds
 * the slice's by * N row sums. At N = 1 and 4 a block row's sums are kept in registers across its
 * bx blocks and added to acc once (REG): on the 2-core EPYC build machine 0.59-0.70x the time at N
 * = 1 and 0.77-0.83x at N = 4 (bcsstk13-16, msc00726, 1138_bus), but 1.08-1.20x at N = 2 and no
 * change at N = 8, which keep acc. */
#define REG(NB) ((NB) == 1 || (NB) == 4)
#define CGM_SLICE_KERNEL(NB, NAME, VT, VAL, COL)                                                   \
  static void FN(NAME)(const cgm_bcsr *B, const cgm_cpu_vals *V, const REAL *x, int32_t k,         \
                       REAL *acc) {                                                                \
    const int bx = B->p.bx, by = B->p.by;                                                          \
    const int64_t step_blocks = (int64_t)by * bx, base = B->slice_ptr[k];                          \
    const int64_t steps = (B->slice_ptr[k + 1] - base) / step_blocks;                              \
    const VT *val = (const VT *)V->val;                                                            \
    const int32_t *cols = V->ccol ? V->ccol : B->bcol;                                             \
    (void)val;                                                                                     \
    for (int m = 0; m < by * NB; m++) acc[m] = 0;                                                  \
    for (int64_t s = 0; s < steps; s++) {                                                          \
      int64_t q = base + s * step_blocks;                                                          \
      for (int j = 0; j < by; j++) {                                                               \
        REAL sum[NB], *yr = REG(NB) ? sum : acc + j * NB;                                          \
        for (int r = 0; r < NB && REG(NB); r++) sum[r] = 0;                                        \
        for (int kx = 0; kx < bx; kx++, q++) {                                                     \
          const int32_t cq = cols[q];                                                              \
          const REAL *xv = x + (int64_t)(COL)*NB;                                                  \
          for (int r = 0; r < NB; r++) {                                                           \
            REAL t = 0;                                                                            \
            for (int c = 0; c < NB; c++) t += (REAL)(VAL)*xv[c];                                   \
            yr[r] += t;                                                                            \
          }                                                                                        \
        }                                                                                          \
        for (int r = 0; r < NB && REG(NB); r++) acc[j * NB + r] += sum[r];                         \
      }                                                                                            \
    }                                                                                              \
  }
#define CGM_FULL_KERNEL(NB, P, VT) CGM_SLICE_KERNEL(NB, P##NB, VT, val[(q * NB + r) * NB + c], cq)
#define CGM_FULL_KERNELS(P, VT)                                                                    \
  CGM_FULL_KERNEL(1, P, VT)                                                                        \
  CGM_FULL_KERNEL(2, P, VT) CGM_FULL_KERNEL(4, P, VT) CGM_FULL_KERNEL(8, P, VT)
CGM_FULL_KERNELS(slice_n, REAL)
typedef void (*FN(slice_fn))(const cgm_bcsr *, const cgm_cpu_vals *, const REAL *, int32_t, REAL *);
#ifdef CGM_CPU_COMPACT /* double arithmetic over float values, or over a dictionary (N = 1) */
CGM_FULL_KERNELS(slice_f, float)
CGM_SLICE_KERNEL(1, slice_d1, REAL, V->s->dict[(uint32_t)cq >> V->s->shift],
                 cq &((1 << V->s->shift) - 1))
#define CGM_COMPACT_SLICES                                                                         \
  {FN(slice_f1), FN(slice_f2), FN(slice_f4), FN(slice_f8)}, {                                      \
    FN(slice_d1)                                                                                   \
  }
#else
#define CGM_COMPACT_SLICES                                                                         \
  { NULL }
#endif
static const FN(slice_fn) FN(slices)[3][4] = {
    {FN(slice_n1), FN(slice_n2), FN(slice_n4), FN(slice_n8)}, CGM_COMPACT_SLICES};
#undef CGM_COMPACT_SLICES
#undef CGM_FULL_KERNELS
#undef CGM_FULL_KERNEL
#undef CGM_SLICE_KERNEL

/* y = A x over the slices, and p . y when given: chunks of 16 slices to the team on demand; fewer
 * where slices are heavy (over 2048 values: long rows at N >= 2), 4 a thread (16 made 16 cores
 * 1.5-2x slower there; light slices split ran 1.3-2.6x slower on 2 cores). p . y by chunk, or by
 * slice where heavy, then in order: the same value on any team and load (perf.md). */
#define CGM_VEC_TEAM(np) cgm_cpu_team(np) /* one team for every kernel of a solve */

/* Slices k0 .. k1 - 1: y for their rows, their shares of p . y summed and
 * returned, and each one's in part[k] when part is given. */
static double FN(spmv_chunk)(const cgm_bcsr *B, const cgm_cpu_vals *V, const REAL *x, REAL *y,
                             const REAL *p, int32_t k0, int32_t k1, double *part) {
  const int n = B->p.n, by = B->p.by;
  const FN(slice_fn) slice = FN(slices)[V->s ? V->s->fmt : 0][cgm_block_index(n)];
  double all = 0.0;
  for (int32_t k = k0; k < k1; k++) {
    REAL acc[1024]; /* by * n <= 1024: cgm_bcsr_params_check */
    double dot = 0.0;
    slice(B, V, x, k, acc);
    for (int j = 0; j < by; j++) {
      int32_t b = B->brow[(int64_t)k * by + j];
      if (b < 0) continue;
      for (int r = 0; r < n; r++) {
        int64_t i = (int64_t)b * n + r;
        y[i] = acc[j * n + r];
        if (p) dot += (double)p[i] * (double)acc[j * n + r];
      }
    }
    if (part) part[k] = dot;
    all += dot;
  }
  return all;
}

static double FN(spmv_vals)(const cgm_bcsr *B, const cgm_cpu_vals *V, const REAL *x, REAL *y,
                            const REAL *p) {
  const int team = cgm_cpu_team((int64_t)B->nbrows * B->p.n);
  const int32_t ns = B->nslices;
  const bool heavy = (double)B->nblocks_padded * B->p.n * B->p.n > 2048.0 * ns;
  const int32_t len = !heavy || ns >= 64 * team ? 16 : ns >= 8 * team ? ns / (4 * team) : 1;
  const int64_t nch = ((int64_t)ns + len - 1) / len, nsum = heavy ? ns : nch;
  double *part = p ? malloc((size_t)(nsum > 0 ? nsum : 1) * sizeof *part) : NULL;
  if (p && !part) /* no room for the sums: one pass in order */
    return FN(spmv_chunk)(B, V, x, y, p, 0, ns, NULL);
#pragma omp parallel for schedule(dynamic, 1) num_threads(team)
  for (int64_t c = 0; c < nch; c++) {
    const int64_t k1 = (c + 1) * len < ns ? (c + 1) * len : ns;
    const double d =
        FN(spmv_chunk)(B, V, x, y, p, (int32_t)(c * len), (int32_t)k1, heavy ? part : NULL);
    if (part && !heavy) part[c] = d;
  }
  double dot = 0.0;
  for (int64_t k = 0; part && k < nsum; k++) dot += part[k];
  free(part);
  return dot;
}

double FN(cgm_cpu_spmv)(const cgm_bcsr *B, const REAL *val, const REAL *x, REAL *y, const REAL *p) {
  const cgm_cpu_vals V = {NULL, val, NULL};
  return FN(spmv_vals)(B, &V, x, y, p);
}
#ifdef CGM_CPU_COMPACT
double cgm_cpu_spmv_vals(const cgm_bcsr *B, const cgm_cpu_vals *V, const double *x, double *y,
                         const double *p) {
  return FN(spmv_vals)(B, V, x, y, p);
}
#endif

double FN(cgm_cpu_cg4)(int64_t np, REAL t, REAL *x, REAL *r, const REAL *v, const REAL *u,
                       const REAL *dinv, double *rr_out) {
  double rz = 0.0, rr = 0.0;
#pragma omp parallel for schedule(static) reduction(+ : rz, rr) num_threads(CGM_VEC_TEAM(np))
  for (int64_t i = 0; i < np; i++) {
    x[i] += t * v[i];
    REAL ri = r[i] - t * u[i];
    r[i] = ri;
    rz += (double)ri * (double)(dinv[i] * ri);
    rr += (double)ri * (double)ri;
  }
  *rr_out = rr;
  return rz;
}

void FN(cgm_cpu_cg5)(int64_t np, REAL s, REAL *v, const REAL *r, const REAL *dinv) {
#pragma omp parallel for schedule(static) num_threads(CGM_VEC_TEAM(np))
  for (int64_t i = 0; i < np; i++) v[i] = dinv[i] * r[i] + s * v[i];
}

/* Block-Jacobi: y = a x for one n x n block a (row-major). Called with n
 * a constant in each branch below, so that it unrolls. */
static inline void FN(bmv)(int n, const REAL *a, const REAL *x, REAL *y) {
  for (int i = 0; i < n; i++) {
    REAL t = 0;
    for (int c = 0; c < n; c++) t += a[i * n + c] * x[c];
    y[i] = t;
  }
}

/* CG4 with block-Jacobi: per block row k (rows [k n, k n + n)), x += t v,
 * r -= t u, then z = inv_k r of the updated rows; returns r . z, stores
 * r . r. One thread owns a whole block row: z needs the block's every r. */
static double FN(cg4_blk)(int team, int n, int64_t nb, REAL t, REAL *x, REAL *r, const REAL *v,
                          const REAL *u, const REAL *binv, double *rr_out) {
  double rz = 0.0, rr = 0.0;
#pragma omp parallel for schedule(static) reduction(+ : rz, rr) num_threads(team)
  for (int64_t k = 0; k < nb; k++) {
    REAL rk[CGM_BJACOBI_MAX_BLOCK], zk[CGM_BJACOBI_MAX_BLOCK];
    const int64_t i0 = k * n;
    for (int e = 0; e < n; e++) {
      x[i0 + e] += t * v[i0 + e];
      rk[e] = r[i0 + e] - t * u[i0 + e];
      r[i0 + e] = rk[e];
      rr += (double)rk[e] * (double)rk[e];
    }
    const REAL *a = binv + k * n * n;
    if (n == 1)
      FN(bmv)(1, a, rk, zk);
    else if (n == 2)
      FN(bmv)(2, a, rk, zk);
    else if (n == 4)
      FN(bmv)(4, a, rk, zk);
    else
      FN(bmv)(n, a, rk, zk);
    for (int e = 0; e < n; e++) rz += (double)rk[e] * (double)zk[e];
  }
  *rr_out = rr;
  return rz;
}

/* z = M^-1 r (z = r allowed: each block row is read whole before it is
 * written), then v = z + s v when v is non-NULL (CG5), else z alone (CG1, a
 * direction restarted). Returns r . z (of r as it was on entry). */
static double FN(apply_blk)(int team, int n, int64_t nb, const REAL *binv, const REAL *r, REAL *z,
                            REAL s, REAL *v) {
  double rz = 0.0;
#pragma omp parallel for schedule(static) reduction(+ : rz) num_threads(team)
  for (int64_t k = 0; k < nb; k++) {
    REAL rk[CGM_BJACOBI_MAX_BLOCK], zk[CGM_BJACOBI_MAX_BLOCK];
    const int64_t i0 = k * n;
    for (int e = 0; e < n; e++) rk[e] = r[i0 + e];
    FN(bmv)(n, binv + k * n * n, rk, zk);
    for (int e = 0; e < n; e++) {
      rz += (double)rk[e] * (double)zk[e];
      if (v)
        v[i0 + e] = zk[e] + s * v[i0 + e];
      else
        z[i0 + e] = zk[e];
    }
  }
  return rz;
}

/* The preconditioner: Jacobi (binv NULL) or block-Jacobi (nb inverses). */
typedef struct {
  const REAL *dinv;
  const REAL *binv;
  int n;
  int64_t nb;
  int team; /* the solve's (cgm_cpu_team of its rows): its blocks may pad them further */
} FN(precond);

/* z = M^-1 r; returns r . z. */
static double FN(pc_apply)(const FN(precond) * pc, int64_t np, const REAL *r, REAL *z) {
  if (pc->binv) return FN(apply_blk)(pc->team, pc->n, pc->nb, pc->binv, r, z, 0, NULL);
  double rz = 0.0;
#pragma omp parallel for schedule(static) reduction(+ : rz) num_threads(CGM_VEC_TEAM(np))
  for (int64_t i = 0; i < np; i++) {
    z[i] = pc->dinv[i] * r[i];
    rz += (double)r[i] * (double)z[i];
  }
  return rz;
}

/* The true residual b - A x in the residual's precision (mixed: double,
 * x folded into x_hi first) replaced into r (reliable updates). Returns
 * ||b - A x||^2; *rz, *rr: r . M^-1 r and r . r of the new r. */
typedef struct {
  const cgm_bcsr *B;
  const cgm_cpu_vals *V; /* the true residual's values: the iteration's where they are exact */
  const double *b;       /* right-hand side, padded */
  const REAL *b_it;      /* the same in REAL */
  double *x_hi, *tmp;    /* mixed: the solution and A x_hi in double */
  int64_t np;
  bool mixed;
} FN(truth);

static double FN(replace)(const FN(truth) * t, REAL *x, REAL *r, REAL *u, const FN(precond) * pc,
                          double *rz, double *rr) {
  const REAL *dinv = pc->dinv; /* Jacobi; block-Jacobi's r . M^-1 r comes after the loop */
  const bool blk = pc->binv != NULL;
  const int64_t np = t->np;
  double rt = 0.0, z = 0.0, q = 0.0;
  if (t->mixed) {
#pragma omp parallel for schedule(static) num_threads(CGM_VEC_TEAM(np))
    for (int64_t i = 0; i < np; i++) {
      t->x_hi[i] += (double)x[i];
      x[i] = 0;
    }
    cgm_cpu_spmv_f64(t->B, t->B->val, t->x_hi, t->tmp, NULL);
#pragma omp parallel for schedule(static) reduction(+ : rt, z, q) num_threads(CGM_VEC_TEAM(np))
    for (int64_t i = 0; i < np; i++) {
      const double ri = t->b[i] - t->tmp[i];
      rt += ri * ri;
      r[i] = (REAL)ri;
      if (!blk) z += (double)r[i] * (double)(dinv[i] * r[i]);
      q += (double)r[i] * (double)r[i];
    }
  } else {
    FN(spmv_vals)(t->B, t->V, x, u, NULL);
#pragma omp parallel for schedule(static) reduction(+ : rt, z) num_threads(CGM_VEC_TEAM(np))
    for (int64_t i = 0; i < np; i++) {
      const REAL ri = t->b_it[i] - u[i];
      rt += (double)ri * (double)ri;
      r[i] = ri;
      if (!blk) z += (double)ri * (double)(dinv[i] * ri);
    }
  }
  if (blk) /* u is free: the next SpMV overwrites it */
    z = FN(apply_blk)(pc->team, pc->n, pc->nb, pc->binv, r, u, 0, NULL);
  *rz = z;
  *rr = t->mixed ? q : rt; /* r . r of r as stored */
  return rt;
}

/* The true residual ||b - A x|| without replacing anything (double's
 * checks before a claim): A x goes into u, free between iterations. */
static double FN(probe)(const FN(truth) * t, const REAL *x, REAL *u) {
  FN(spmv_vals)(t->B, t->V, x, u, NULL);
  double rt = 0.0;
#pragma omp parallel for schedule(static) reduction(+ : rt) num_threads(CGM_VEC_TEAM(t->np))
  for (int64_t i = 0; i < t->np; i++) {
    const double ri = (double)t->b_it[i] - (double)u[i];
    rt += ri * ri;
  }
  return sqrt(rt);
}

/* One solve's layout and vectors (FN(release) frees them): np padded rows,
 * block-Jacobi's run on to its last block (nbl blocks of bn), zero there. */
typedef struct {
  cgm_bcsr B;
  REAL *val;            /* the iteration's values: B's own in double, a copy in single */
  cgm_value_set vs;     /* their storage (cgm_values_choose) */
  cgm_cpu_vals V, full; /* as the iteration reads them; B's own */
  void *packed;         /* F32: the values in float; DICT: the coded columns */
  REAL *x, *r, *v, *u, *dinv, *b_it, *binv;
  double *diag, *bpad, *x_hi, *tmp; /* mixed: the solution and A x_hi in double */
  double *x_best; /* the solution of the least true residual checked (a stall returns it) */
  double *times;
  int64_t np, nbl;
  int bn, ntimed;
  bool mixed, reduced, blk;
} FN(solve);

/* The iterate in double (mixed: x_hi + x) into dst: the solution, and the
 * monitor's x (cgm_monitor_report's fill). */
static bool FN(iterate_out)(void *ctx, double *dst) {
  const FN(solve) *C = ctx;
  for (int32_t i = 0; i < C->B.nrows; i++)
    dst[i] = C->mixed ? C->x_hi[i] + (double)C->x[i] : (double)C->x[i];
  return true;
}

/* ||b - A x|| with long-double sums over A as given (cgm_residual_ssq): the
 * residual a stop rests on, without the rounding of the iteration's SpMV. */
static double FN(exact)(const cgm_problem *pb, const double *x) {
  const cgm_csr *A = pb->A;
  return (double)sqrtl(cgm_residual_ssq(A->nrows, A->rowptr, A->colidx, A->val, pb->b, x, 1.0));
}

/* The values in the storage chosen (C->vs): C->V reads them. */
static cgm_status FN(pack)(FN(solve) * C, cgm_error *err) {
  const cgm_bcsr *B = &C->B;
  const int64_t ne = B->nblocks_padded * B->p.n * B->p.n;
  if (C->vs.fmt == CGM_VALUES_FULL) return CGM_OK;
  C->V.s = &C->vs;
  C->packed = malloc((size_t)(ne > 0 ? ne : 1) * 4);
  if (!C->packed) return cgm_fail(err, CGM_ERUNTIME, "out of memory for the packed values");
  if (C->vs.fmt == CGM_VALUES_DICT) {
    cgm_values_encode(B, &C->vs, C->packed);
    C->V.ccol = C->packed;
    return CGM_OK;
  }
  float *f = C->packed;
#pragma omp parallel for schedule(static)
  for (int64_t q = 0; q < ne; q++) f[q] = (float)B->val[q];
  C->V.val = f;
  return CGM_OK;
}

/* The layout, the vectors from A, b and x0, block-Jacobi's inverses. */
static cgm_status FN(setup)(FN(solve) * C, const cgm_problem *pb, double t0, cgm_solve_result *res,
                            cgm_error *err) {
  const cgm_csr *A = pb->A;
  const bool mixed = C->mixed = pb->opts.precision == CGM_PREC_MIXED;
  const bool reduced = C->reduced = sizeof(REAL) != sizeof(double); /* single or mixed */
  cgm_status st = cgm_bcsr_build(A, 0, (A->nrows + pb->opts.layout.n - 1) / pb->opts.layout.n,
                                 pb->opts.layout, &C->B, err);
  if (st) return st;
  const cgm_bcsr *B = &C->B;
  res->time_layout_s = cgm_now() - t0;
  const int64_t np = C->np = (int64_t)B->nbrows * B->p.n; /* padded length, = nbcols * N */
  /* block-Jacobi: the inverses in REAL (the identity past the matrix); the
   * vectors run on to nbl * bn, zero there (the identity keeps it so) */
  const bool blk = C->blk = pb->opts.precond == CGM_PRECOND_BLOCK;
  const int bn = C->bn = blk ? pb->opts.precond_block : 1;
  const int64_t nbl = C->nbl = (np + bn - 1) / bn, bnn = (int64_t)bn * bn;
  const int64_t nvec = nbl * bn > np ? nbl * bn : np;
  const size_t nv = (size_t)(nvec > 0 ? nvec : 1);
  REAL *x = C->x = calloc(nv, sizeof *x), *r = C->r = calloc(nv, sizeof *r);
  REAL *v = C->v = calloc(nv, sizeof *v), *u = C->u = calloc(nv, sizeof *u);
  REAL *dinv = C->dinv = malloc(nv * sizeof *dinv), *b_it = C->b_it = malloc(nv * sizeof *b_it);
  REAL *binv = C->binv =
      blk ? malloc((size_t)(nbl > 0 ? nbl : 1) * (size_t)bnn * sizeof *binv) : NULL;
  double *diag = C->diag = malloc(nv * sizeof *diag), *bpad = C->bpad = malloc(nv * sizeof *bpad);
  double *x_hi = C->x_hi = mixed ? malloc(nv * sizeof *x_hi) : NULL;
  C->tmp = mixed ? malloc(nv * sizeof *C->tmp) : NULL;
  C->x_best = malloc(((size_t)A->nrows + 1) * sizeof *C->x_best);
  C->ntimed = pb->maxiter < CGM_MAX_TIMED ? pb->maxiter : CGM_MAX_TIMED;
  C->times = malloc(((size_t)C->ntimed + 1) * sizeof *C->times);
  REAL *val = C->val = reduced ? malloc((size_t)(B->nblocks_padded > 0 ? B->nblocks_padded : 1) *
                                        B->p.n * B->p.n * sizeof *val)
                               : (REAL *)(void *)B->val;
  if (!x || !r || !v || !u || !dinv || !b_it || !diag || !bpad || !C->times || !val || !C->x_best ||
      (mixed && (!x_hi || !C->tmp)) || (blk && !binv))
    return cgm_fail(err, CGM_ERUNTIME, "out of memory for the CG vectors (%lld rows)",
                    (long long)np);
  C->vs =
      cgm_values_choose(A->val, A->nnz, B->p.n, B->nbcols, pb->opts.storage, pb->opts.precision);
  C->full = C->V = (cgm_cpu_vals){NULL, val, NULL};
  st = FN(pack)(C, err);
  if (st) return st;
  if (reduced) {
    int64_t ne = B->nblocks_padded * B->p.n * B->p.n;
#pragma omp parallel for schedule(static) num_threads(CGM_VEC_TEAM(np))
    for (int64_t q = 0; q < ne; q++) val[q] = (REAL)B->val[q];
  }
  memcpy(C->x_best, pb->x, (size_t)A->nrows * sizeof *C->x_best);
  cgm_csr_diagonal(A, diag);
#pragma omp parallel for schedule(static) num_threads(CGM_VEC_TEAM(np))
  for (int64_t i = 0; i < np; i++) {
    bool real_row = i < A->nrows;
    dinv[i] = real_row ? (REAL)(1.0 / diag[i]) : (REAL)1; /* padding rows: identity */
    bpad[i] = real_row ? pb->b[i] : 0.0;
    b_it[i] = (REAL)bpad[i];
    if (mixed) { /* the solution in double; the iteration solves for its correction */
      x_hi[i] = real_row ? pb->x[i] : 0.0;
      x[i] = 0;
    } else {
      x[i] = real_row ? (REAL)pb->x[i] : (REAL)0;
    }
  }
  if (!blk) return CGM_OK;
  if (!pb->binv)
    return cgm_fail(err, CGM_ERUNTIME, "block-Jacobi without its inverses (cgm_bjacobi_build)");
  const int64_t nba = cgm_bjacobi_blocks(A->nrows, bn);
#pragma omp parallel for schedule(static) num_threads(CGM_VEC_TEAM(np))
  for (int64_t k = 0; k < nbl; k++)
    for (int64_t e = 0; e < bnn; e++)
      binv[k * bnn + e] = k < nba ? (REAL)pb->binv[k * bnn + e] : (REAL)(e / bn == e % bn ? 1 : 0);
  return CGM_OK;
}

/* CG1 and the iteration; the result, x back in pb->x. */
static cgm_status FN(iterate)(FN(solve) * C, const cgm_problem *pb, cgm_solve_result *res) {
  const cgm_bcsr *B = &C->B;
  REAL *x = C->x, *r = C->r, *v = C->v, *u = C->u, *dinv = C->dinv, *binv = C->binv;
  double *times = C->times, *x_hi = C->x_hi;
  const int64_t np = C->np, nbl = C->nbl;
  const int bn = C->bn, ntimed = C->ntimed;
  const bool mixed = C->mixed, reduced = C->reduced, blk = C->blk, inexact = !C->vs.exact;
  const FN(precond) pc = {dinv, binv, bn, nbl, CGM_VEC_TEAM(np)};
  /* CG1: r = b - A x (the true residual); z = M^-1 r; v = z; rz = r.z */
  const FN(truth)
      truth = {B, inexact ? &C->full : &C->V, C->bpad, C->b_it, x_hi, C->tmp, np, mixed};
  double rz = 0.0, rr = 0.0;
  const double rt0 = sqrt(FN(replace)(&truth, x, r, u, &pc, &rz, &rr));
  (void)FN(pc_apply)(&pc, np, r, v);
  double t_start = cgm_now(), t_prev = t_start;
  int it = 0;
  const double thr = pb->tol * pb->bnorm;
  double relres = sqrt(rr) / pb->bnorm;
  /* Reliable updates and the stall test (backend.h); double's checks
   * before a claim are off in a fixed count (benchmarks). */
  cgm_watch rel = cgm_watch_start(rt0, reduced || inexact);
  const bool watch = reduced || inexact || !pb->opts.fixed_count;
  cgm_status st = rt0 <= thr ? CGM_OK : CGM_ENOCONV;
  bool stalled = false; /* then x_best is returned */
  int last_mon = -1;
  cgm_monitor_report(&pb->opts, &last_mon, 0, relres, false, FN(iterate_out), C);
  bool hit_cap = false; /* the loop ended by the cap alone (not a breakdown, a NaN, a stall) */
  while (st != CGM_OK && !stalled && !(hit_cap = it >= pb->maxiter)) {
    /* SpMV + CG3 */
    double vu = FN(spmv_vals)(B, &C->V, v, u, v);
    if (cgm_cg_breakdown(res, it, vu)) break;
    const REAL t = (REAL)(rz / vu);
    /* CG4 (+ CG2's r.r) */
    double rz_new = blk ? FN(cg4_blk)(pc.team, bn, nbl, t, x, r, v, u, binv, &rr)
                        : FN(cgm_cpu_cg4)(np, t, x, r, v, u, dinv, &rr);
    it++;
    relres = sqrt(rr) / pb->bnorm;
    if (!isfinite(relres) || !isfinite(rz_new)) {
      snprintf(res->stop_reason, sizeof res->stop_reason,
               "NaN or Inf in the residual at iteration %d", it);
      break;
    }
    const double iterated = sqrt(rr);
    const bool claim = iterated <= thr;
    bool restart = false;
    if (claim || (watch && cgm_watch_due(&rel, iterated, it))) {
      bool swap = rel.reduced || claim || rel.replacing;
      double rt =
          swap ? sqrt(FN(replace)(&truth, x, r, u, &pc, &rz_new, &rr)) : FN(probe)(&truth, x, u);
      restart = claim || (!swap && cgm_watch_loose(false, iterated, rt));
      if (!swap && restart) { /* double: rounding shows, from now on it replaces */
        rt = sqrt(FN(replace)(&truth, x, r, u, &pc, &rz_new, &rr));
        swap = true;
      }
      if (swap) relres = sqrt(rr) / pb->bnorm;
      /* a stop rests on the residual recomputed with long-double sums (not
       * in single precision, which stops at what single shows) */
      if (rt <= thr && (!reduced || mixed))
        rt = FN(exact)(pb, mixed ? x_hi : (const double *)(void *)x);
      if (rt <= thr) {
        st = CGM_OK;
        relres = rt / pb->bnorm;
      } else if (claim && !watch) { /* a fixed count ends there, as a GPU's (precision.md) */
        st = CGM_OK, relres = iterated / pb->bnorm;
      } else if (rt < rel.least) {
        (void)FN(iterate_out)(C, C->x_best);
      }
      if (st != CGM_OK && cgm_watch_check(&rel, claim, iterated, rt, sqrt(rr), it)) {
        stalled = res->stalled = true;
      } else if (st != CGM_OK && swap && !restart) {
        /* Restore r . p = 0, which the replaced residual lost, as QUDA's
         * reliable update does: p -= (r . p / r . z) z (z = M^-1 r in u). */
        double rv = 0.0;
#pragma omp parallel for schedule(static) reduction(+ : rv) num_threads(CGM_VEC_TEAM(np))
        for (int64_t i = 0; i < np; i++) rv += (double)r[i] * (double)v[i];
        const REAL c = (REAL)(rv / rz_new);
        (void)FN(pc_apply)(&pc, np, r, u);
#pragma omp parallel for schedule(static) num_threads(CGM_VEC_TEAM(np))
        for (int64_t i = 0; i < np; i++) v[i] -= c * u[i];
      }
    }
    if (st != CGM_OK && !stalled) {
      /* CG5: v = M^-1 r + s v, or a new direction (backend.h) */
      const REAL s = restart ? (REAL)0 : (REAL)(rz_new / rz);
      rz = rz_new;
      if (blk)
        (void)FN(apply_blk)(pc.team, bn, nbl, binv, r, NULL, s, v);
      else
        FN(cgm_cpu_cg5)(np, s, v, r, dinv);
    }
    double now = cgm_now();
    if (it <= ntimed) times[it - 1] = now - t_prev;
    t_prev = now;
    if (pb->opts.monitor) { /* the callback's time is no iteration's */
      cgm_monitor_report(&pb->opts, &last_mon, it, relres, false, FN(iterate_out), C);
      t_prev = cgm_now();
    }
  }
  cgm_monitor_report(&pb->opts, &last_mon, it, relres, true, FN(iterate_out), C);
  res->time_solve_s = cgm_now() - t_start;
  (void)FN(iterate_out)(C, pb->x);
  /* A stall, a breakdown, or the cap once rounding shows: x of the least true residual if the
   * last's is worse. The cap in double before that: the last, CG's own (the least error in A's norm
   * over its Krylov space, as SciPy returns; the least residual may be x0's, and a restart from it
   * never moved). */
  const bool capped = hit_cap && !rel.reduced && !rel.replacing;
  if (st != CGM_OK && (stalled || watch)) {
    double last = FN(exact)(pb, pb->x);
    if (stalled || !((capped && isfinite(last)) || last <= rel.least))
      memcpy(pb->x, C->x_best, (size_t)C->B.nrows * sizeof *pb->x), last = FN(exact)(pb, pb->x);
    relres = last / pb->bnorm;
  }
  cgm_cg_result_close(res, st, it, relres, pb->maxiter, pb->tol, pb->opts.precision, times, ntimed);
  res->device_bytes = pb->plan.device_bytes;
  cgm_storage_report(res, &C->vs, B->p.n, B->nblocks_padded, (int64_t)B->nslices * B->p.by,
                     B->nslices, np, (int)sizeof(REAL));
  return st;
}

static void FN(release)(FN(solve) * C) {
  if (C->reduced) free(C->val);
  free(C->packed);
  CGM_FREE(C->x, C->r, C->v, C->u, C->dinv, C->binv, C->b_it, C->diag, C->bpad, C->x_hi, C->tmp,
           C->times, C->x_best);
  cgm_bcsr_free(&C->B);
}

/* The layout, the vectors, the iteration (each its own step above). */
cgm_status FN(cgm_cpu_cg)(const cgm_problem *pb, cgm_solve_result *res, cgm_error *err) {
  FN(solve) C = {0};
  const double t0 = cgm_now();
  cgm_status st = FN(setup)(&C, pb, t0, res, err);
  if (!st) {
    res->time_setup_s = cgm_now() - t0;
    st = FN(iterate)(&C, pb, res);
  }
  FN(release)(&C);
  return st;
}
