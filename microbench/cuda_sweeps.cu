/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The sweeps of a `cuda:K` device. Kernels are timed the way the solver runs them: R launches
 * captured in a CUDA graph, the low quantile of replays settled after a warm-up replay (settle.c),
 * divided by R (so launch gaps are those of the solver's graphs). The CG kernels and the SpMV are
 * the solver's own launchers; the plain loads (paper Fig. 5) are a kernel of their own here, since
 * the solver has none. The cuSPARSE baseline, our solver's whole iterations (iter_sweeps.c) and
 * multi-GPU iterations are timed through cgm_solve itself. */
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <time.h>

#include "cgmodel/model.h"
#include "common/timer.h"
#include "microbench/sweep_plan.h"
#include "kernels/cuda_dev.h"
#include "kernels/cuda_util.h"
#include "solver/cuda/gpu_solver.h"

namespace {

struct layout_pool;

/* The SpMV sweep's device, one a precision, kept from one matrix to the next and grown when a
 * matrix needs more: a device's set-up and teardown (streams, events, pinned state, a dozen
 * allocations) for each of the hundreds of matrices cost a quick calibration seconds. */
struct spmv_rig {
  cgm_cuda_dev d;      /* d.dev < 0: not made yet */
  int64_t rows, v_len; /* what d was made for */
};

struct run_t {
  mb_run m;
  const cgm_mb_opts *o;
  int dev, prec, sms;
  spmv_rig rig[2];    /* by precision */
  layout_pool *pool;  /* the SpMV sweep's copies of a layout */
  cgm_share_watch sw; /* another process's turns on the GPU, less in each replay */
};

/* One replay of a graph of R launches, timed by events (settle.c's fn):
 * seconds a launch, -1 once a CUDA call failed (err says which). */
struct replay {
  cudaGraphExec_t ge;
  cudaStream_t s;
  cudaEvent_t a, b;
  int R;
  cudaError_t e;
  cgm_share_watch *w;
};

double replay_time(void *ctx, int) {
  replay *p = (replay *)ctx;
  float ms = 0, at = 0;
  if (p->w->h) p->e = cgm_share_watch_feed(p->w);
  if (p->e == cudaSuccess) p->e = cudaEventRecord(p->a, p->s);
  if (p->e == cudaSuccess) p->e = cudaGraphLaunch(p->ge, p->s);
  if (p->e == cudaSuccess) p->e = cudaEventRecord(p->b, p->s);
  if (p->e == cudaSuccess) p->e = cudaEventSynchronize(p->b);
  if (p->e == cudaSuccess) p->e = cudaEventElapsedTime(&ms, p->a, p->b);
  if (p->e == cudaSuccess && p->w->h) p->e = cudaEventElapsedTime(&at, p->w->origin, p->a);
  /* less another process's turns inside it */
  /* the window's end from its start in double: at + ms in float rounds by microseconds once the
   * origin is seconds old, and a gap as long as the window left less than nothing */
  const double gaps = cgm_share_watch_gaps(p->w, at * 1e-3, at * 1e-3 + ms * 1e-3);
  return p->e == cudaSuccess ? (ms * 1e-3 - gaps) / p->R : -1.0;
}

/* Seconds per launch of enqueue(), R launches per graph: the replays settled as the CPU's kernels
 * are (settle.c; another process on the GPU takes its time slices), at least `replays` of them. */
template <typename F>
cgm_status graph_time(run_t *Run, cudaStream_t s, int R, F enqueue, mb_timing *out,
                      cgm_error *err) {
  cudaGraph_t g = nullptr;
  replay rp = {nullptr, s, nullptr, nullptr, R, cudaSuccess, &Run->sw};
  const mb_settle_opts so = {4, 1e-3, 2, Run->o->quick ? 5 : 11, 0.5};
  cgm_status st = CGM_OK;
  CGM_CUDA_GOTO(st, err, out, cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
  {
    cudaError_t e = cudaSuccess;
    for (int i = 0; i < R && e == cudaSuccess; i++) e = enqueue();
    cudaError_t e2 = cudaStreamEndCapture(s, &g);
    CGM_CUDA_GOTO(st, err, out, e);
    CGM_CUDA_GOTO(st, err, out, e2);
  }
  CGM_CUDA_GOTO(st, err, out, cudaGraphInstantiate(&rp.ge, g, 0));
  CGM_CUDA_GOTO(st, err, out, cudaEventCreate(&rp.a));
  CGM_CUDA_GOTO(st, err, out, cudaEventCreate(&rp.b));
  if (mb_settle(replay_time, &rp, 1, &so, out)) { /* a CUDA call failed, or host memory */
    CGM_CUDA_GOTO(st, err, out, rp.e);
    st = cgm_fail(err, CGM_ERUNTIME, "out of host memory");
  }
  /* its kernels stopped between samples: a free or a first load waits for them */
  if (Run->sw.h) CGM_CUDA_GOTO(st, err, out, cgm_share_watch_pause(&Run->sw, Run->o->gpu_share));
out:
  if (rp.ge) cudaGraphExecDestroy(rp.ge);
  if (g) cudaGraphDestroy(g);
  if (rp.a) cudaEventDestroy(rp.a);
  if (rp.b) cudaEventDestroy(rp.b);
  return st;
}

/* The largest Poisson grid of our solver's iteration sweeps: 4M rows, far
 * past a Hopper's 50 MB L2. */
enum { ITER_MAX_GRID = 160 };

/* Launches per graph: enough work to dwarf the replay's own overhead. */
int launches_for(double bytes) {
  return bytes < 1e7 ? 32 : (bytes < 1e8 ? 8 : 2);
}

/* The plain loads of nvec vectors of m elements. A fixed grid loops over them; a variable one (a
 * thread an element) makes one trip of the loop. */
template <typename T>
__global__ void load_vectors(const T *__restrict__ base, int nvec, int64_t m, double *out) {
  double s = 0;
  CGM_GRID_LOOP(i, m) {
    for (int k = 0; k < nvec; k++) s += (double)base[k * m + i];
  }
  if (s == -1.0) out[blockIdx.x] = s; /* never true for our data: keeps the loads alive */
}

template <typename T> __global__ void fill(T *p, int64_t n) {
  CGM_GRID_LOOP(i, n) {
    double f = (double)i * 0.6180339887498949;
    p[i] = (T)(1.0 + 0.25 * (f - floor(f)));
  }
}

template <typename T> cgm_status vector_sweeps(run_t *R, cudaStream_t s, cgm_error *err) {
  mb_range rg = mb_vector_range(true, R->o->quick);
  const int w = sizeof(T);
  const int64_t mmax = (int64_t)1 << rg.hi;
  /* 8 vectors of the largest size: loads use up to 8, CG4 five */
  T *base = nullptr;
  double *sink = nullptr;
  cgm_cg_state *st_dev = nullptr;
  cgm_status st = CGM_OK;
  CGM_CUDA_GOTO(st, err, out, cudaMalloc(&base, sizeof(T) * 8 * mmax));
  CGM_CUDA_GOTO(st, err, out, cudaMalloc(&sink, sizeof(double) * 8192 * 2 + 64));
  CGM_CUDA_GOTO(st, err, out, cudaMalloc(&st_dev, sizeof(cgm_cg_state)));
  fill<T><<<R->sms * 8, 256, 0, s>>>(base, 8 * mmax);
  CGM_CUDA_GOTO(st, err, out, cudaGetLastError());
  {
    /* A state that keeps CG4 and CG5 computing: finite scalars, never done. */
    cgm_cg_state h = {};
    h.slot[0][0] = {1.0, 1.0, 1.0}; /* pq, rz, rr */
    h.slot[0][1].rz = 1.0;
    h.maxiter = INT_MAX;
    CGM_CUDA_GOTO(st, err, out, cudaMemcpyAsync(st_dev, &h, sizeof h, cudaMemcpyHostToDevice, s));
  }
  {
    unsigned *counter = (unsigned *)(sink + 8192 * 2); /* zeroed below */
    CGM_CUDA_GOTO(st, err, out, cudaMemsetAsync(counter, 0, 16, s));
    cgm_reduce_buf red = {sink, counter, 4096};
    const cgm_out o = {{&st_dev->local[0].rz}, 1};
    for (int e = rg.lo; e <= rg.hi && !st; e += rg.step) {
      const int64_t m = (int64_t)1 << e;
      /* Each launch of a graph reads its own set of k vectors while the pool of 8 x 2^hi elements
       * holds R sets: R launches then span far more than the L2, and every size is timed from HBM
       * as the large problems run (one set reused would be timed from the 50 MB L2 at 2^19-2^22
       * elements: CG5 4.7 TB/s there, 3.2 from HBM, a bump no sigmoid of Eq. 3 follows). */
      auto set_of = [&](int k, int64_t &calls) {
        int64_t P = 8 * mmax / ((int64_t)k * m);
        T *b = base + (calls % (P > 0 ? P : 1)) * k * m;
        calls++;
        return b;
      };
      int64_t calls = 0;
      /* R1 launches of `launch` a graph, timed: the sample of kernel */
      auto timed = [&](auto launch, int R1, const char *kernel, const char *variant, int block,
                       double bytes) {
        mb_timing t;
        cgm_sample smp;
        cgm_status ts = graph_time(R, s, R1, launch, &t, err);
        if (ts) return ts;
        mb_sample_timed(&smp, kernel, variant, R->prec, block, bytes, w, &t, "");
        return mb_emit(&R->m, &smp, kernel, err);
      };
      /* paper Fig. 5: n = 1, 2, 4, 8 vectors, fixed and variable grids */
      for (int nvec = 1; nvec <= 8 && !st; nvec *= 2) {
        int R1 = launches_for((double)nvec * m * w);
        auto fixed = [&]() {
          load_vectors<T><<<R->sms * 8, 256, 0, s>>>(set_of(nvec, calls), nvec, m, sink);
          return cudaGetLastError();
        };
        auto variable = [&]() {
          load_vectors<T>
              <<<(unsigned)((m + 255) / 256), 256, 0, s>>>(set_of(nvec, calls), nvec, m, sink);
          return cudaGetLastError();
        };
        if (!(st = timed(fixed, R1, "load", "fixed", nvec, (double)nvec * m * w)))
          st = timed(variable, R1, "load", "variable", nvec, (double)nvec * m * w);
      }
      if (st) break;
      int Rk = launches_for((double)CGM_CG4_PASSES * m * w);
      auto cg4 = [&]() {
        T *v = set_of(5, calls); /* x, r, p, u, D^-1 */
        return cgm_launch_cg4((cgm_precision)R->prec, m, st_dev, 1, 0, 1, v, v + m, v + 2 * m,
                              v + 3 * m, v + 4 * m, NULL, &o, red, NULL, R->sms, s);
      };
      auto cg5 = [&]() {
        T *v = set_of(3, calls); /* p, r, D^-1 */
        return cgm_launch_cg5((cgm_precision)R->prec, m, st_dev, 1, 0, 1, v, v + m, v + 2 * m, NULL,
                              NULL, R->sms, s);
      };
      auto dot = [&]() {
        T *v = set_of(2, calls);
        return cgm_launch_dot((cgm_precision)R->prec, m, v, v + m, sink + 8192, red, R->sms, s);
      };
      if (!(st = timed(cg4, Rk, "cg4", "", 0, (double)CGM_CG4_PASSES * m * w)) &&
          !(st = timed(cg5, Rk, "cg5", "", 0, (double)CGM_CG5_PASSES * m * w)))
        st = timed(dot, Rk, "red", "", 0, 2.0 * m * w);
    }
  }
out:
  cgm_cuda_free_all({base, sink, st_dev});
  return st;
}

/* Copies of a layout on the device, cycled through by the launches of one graph: like the vector
 * sweeps, each launch then reads a matrix the previous ones did not leave in the L2. One copy
 * reused was timed from the 50 MB L2 at mid sizes, a bump between the small and the large matrices
 * that no sigmoid of Eq. 3 follows (mesh SpMV fits at N = 2, 4, 8 in fp64 had R^2 0.96-0.976). Copy
 * 0 is the matrix itself. */
struct layout_pool {
  enum { MAX = 32 };
  cgm_dev_layout L[MAX];
  void *mem = nullptr;
  size_t cap = 0; /* bytes at mem, kept for the next matrix (cudaMalloc and
                     cudaFree of up to 1 GB a matrix) */
  int k = 1;
};

void pool_release(layout_pool *P) {
  if (P->mem) cudaFree(P->mem);
  P->mem = nullptr;
  P->cap = 0;
  P->k = 1;
}

cgm_status pool_setup(layout_pool *P, const cgm_dev_layout *L, int w, int want, cgm_error *err) {
  const size_t vb = (size_t)L->nblocks_padded * L->n * L->n * w;
  const size_t cb = (size_t)L->nblocks_padded * sizeof(int32_t);
  const size_t sb = ((size_t)L->nslices + 1) * sizeof(int64_t);
  const size_t rb = (size_t)L->nslices * L->by * sizeof(int32_t);
  auto up = [](size_t b) { return (b + 255) & ~(size_t)255; };
  const size_t one = up(vb) + up(cb) + up(sb) + up(rb);
  /* At most 1 GB of copies, past the L2 many times over at any size; none
   * where one copy is twice the L2 already. */
  int k = want < layout_pool::MAX ? want : layout_pool::MAX;
  while (k > 1 && (double)(k - 1) * one > 1e9) k--;
  int dev = 0, l2 = 0;
  if (cudaGetDevice(&dev) == cudaSuccess &&
      cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, dev) == cudaSuccess &&
      (double)one > 2.0 * l2)
    k = 1;
  P->L[0] = *L;
  P->k = 1;
  if (k < 2) return CGM_OK;
  cgm_status st = CGM_OK;
  if ((k - 1) * one > P->cap) {
    pool_release(P);
    if (cudaMalloc(&P->mem, (k - 1) * one) != cudaSuccess) {
      (void)cudaGetLastError(); /* no room for copies: time the one matrix */
      P->mem = nullptr;
      return CGM_OK;
    }
    P->cap = (k - 1) * one;
  }
  for (int c = 1; c < k; c++) {
    char *b = (char *)P->mem + (c - 1) * one;
    cgm_dev_layout C = *L;
    CGM_CUDA_GOTO(st, err, out, cudaMemcpy(b, L->val, vb, cudaMemcpyDeviceToDevice));
    C.val = b;
    b += up(vb);
    CGM_CUDA_GOTO(st, err, out, cudaMemcpy(b, L->bcol, cb, cudaMemcpyDeviceToDevice));
    C.bcol = (const int32_t *)b;
    b += up(cb);
    CGM_CUDA_GOTO(st, err, out, cudaMemcpy(b, L->slice_ptr, sb, cudaMemcpyDeviceToDevice));
    C.slice_ptr = (const int64_t *)b;
    b += up(sb);
    if (rb) CGM_CUDA_GOTO(st, err, out, cudaMemcpy(b, L->brow, rb, cudaMemcpyDeviceToDevice));
    C.brow = (const int32_t *)b;
    P->L[c] = C;
  }
  /* A device-to-device cudaMemcpy returns before it is done, and the
   * sweep's stream does not wait for the legacy stream it ran on. */
  CGM_CUDA_GOTO(st, err, out, cudaDeviceSynchronize());
  P->k = k;
out:
  return st;
}

/* The rig of precision p, made (again) when it has never been or is too
 * small for rows own rows and a gathered vector of v_len. */
cgm_status rig_for(run_t *R, int p, int64_t rows, int64_t v_len, cgm_error *err) {
  spmv_rig *g = &R->rig[p];
  if (g->d.dev >= 0 && rows <= g->rows && v_len <= g->v_len) return CGM_OK;
  cgm_cuda_dev_free(&g->d);
  g->rows = g->v_len = 0;
  cgm_status st = cgm_cuda_dev_init(&g->d, R->dev, (cgm_precision)p, rows, v_len, err);
  g->d.sms = R->sms; /* one less: room for the share watch's clock kernel */
  if (st) {
    cgm_cuda_dev_free(&g->d);
    return st;
  }
  g->rows = rows;
  g->v_len = v_len;
  return CGM_OK;
}

void rigs_release(run_t *R) {
  for (int p = 0; p < 2; p++) cgm_cuda_dev_free(&R->rig[p].d);
  if (R->pool) pool_release(R->pool);
}

/* One matrix, every precision asked for: the host-side blocking (the costly
 * part of a sweep over matrices of up to 2^26 elements) is done once. */
cgm_status spmv_one(void *ctx, const cgm_csr *A, int n, const char *variant, const char *source,
                    cgm_error *err) {
  run_t *R = (run_t *)ctx;
  if (!A) { /* skipped: progress only, once per precision as for a sample */
    cgm_status st = CGM_OK;
    for (int p = 0; p < 2 && !st; p++)
      if (R->o->precisions & (1u << p)) st = mb_emit(&R->m, NULL, "spmv", err);
    return st;
  }
  /* Sub-stages for the calibration's clock (pipeline/calibrate.c). */
  mb_report(&R->m, "spmv:make"); /* the generator, in mb_for_each_matrix */
  cgm_bcsr B;
  cgm_status st =
      cgm_bcsr_build(A, 0, (A->nrows + n - 1) / n, cgm_plan_layout_params(A, n, 1), &B, err);
  if (st) return st;
  mb_report(&R->m, "spmv:block");
  int64_t xlen = (int64_t)B.nbcols * n;
  double *x = (double *)malloc(sizeof(double) * (size_t)(xlen + 1));
  if (!x) {
    cgm_bcsr_free(&B);
    return cgm_fail(err, CGM_ERUNTIME, "out of host memory");
  }
  for (int64_t i = 0; i < xlen; i++) x[i] = mb_value(i);
  for (int p = 0; p < 2 && !st; p++) {
    if (!(R->o->precisions & (1u << p))) continue;
    R->prec = p;
    const int w = p == CGM_PREC_SINGLE ? 4 : 8;
    st = rig_for(R, p, (int64_t)B.nbrows * n, xlen, err);
    if (st) break;
    cgm_cuda_dev &d = R->rig[p].d;
    if (!(st = cgm_cuda_matrix_upload(&d, &B, &d.A, err)) &&
        !(st = cgm_cuda_upload_vec(&d, d.v, x, xlen, err))) {
      double bytes = cgm_spmv_bytes(B.nblocks_padded, (int64_t)B.nslices * B.p.by, B.nslices, n,
                                    (int64_t)B.nbrows * n, w);
      const cgm_out o = {{d.dot_tmp}, 1};
      const int nl = launches_for(bytes);
      layout_pool &P = *R->pool;
      int calls = 0;
      auto launch = [&]() {
        return cgm_launch_spmv(&P.L[calls++ % P.k], (cgm_precision)p, d.v, d.u, d.v, &o, NULL,
                               cgm_cuda_red(&d, 0), NULL, NULL, d.sms, d.stream);
      };
      mb_timing t;
      st = pool_setup(&P, &d.A.L, w, nl, err);
      mb_report(&R->m, "spmv:upload"); /* the matrix and its copies (the rig's set-up, when made) */
      if (!st && !(st = graph_time(R, d.stream, nl, launch, &t, err))) {
        cgm_sample smp;
        mb_sample_timed(&smp, "spmv", variant, p, n, bytes, w, &t, source);
        st = mb_emit(&R->m, &smp, "spmv", err);
      }
      P.k = 1; /* the copies are done with (their memory stays for the next matrix) */
    }
    cgm_cuda_matrix_free(&d.A);
    mb_report(&R->m, "spmv:free");
  }
  free(x);
  cgm_bcsr_free(&B);
  return st;
}

/* The 2D floor grid (mb_grid), then 3D grids from 8^3 to 256^3 (quick: every other): from halos of
 * a few hundred bytes, where an exchange is its latency, to 16.8M rows. */
static int grid_sizes(bool quick, mb_grid *k) {
  const int all[] = {8, 12, 16, 24, 32, 48, 64, 96, 128, 160, 192, 224, 256};
  int c = 0;
  k[c++] = mb_grid{MB_FLOOR_GRID_DIM, MB_FLOOR_GRID_N};
  for (int i = 0; i < 13; i += quick ? 2 : 1) k[c++] = mb_grid{3, all[i]};
  return c;
}

/* Iterations of a whole-solve sample: graphs of 32, the first the warm-up,
 * then 3 timed (quick) or 4. */
int solve_iters(const run_t *R) {
  return R->o->quick ? 128 : 160;
}

/* A solve that stopped early (converged to an underflow) timed too few
 * graphs to be a steady state: no sample, as in the iteration sweep. */
bool steady(const run_t *R, const cgm_solve_result *res) {
  return res->iterations >= solve_iters(R) && res->time_per_iter_s > 0;
}

cgm_status solve_sample(run_t *R, const cgm_csr *A, cgm_backend be, int gpus, cgm_exchange ex,
                        cgm_solve_result *res, cgm_error *err) {
  cgm_solve_opts o = cgm_mb_solve_opts();
  o.backend = be;
  o.gpus = gpus;
  o.exchange = ex;
  o.precision = (cgm_precision)R->prec;
  return mb_solve_timed(A, &o, solve_iters(R), res, NULL, err);
}

/* The whole-solve samples (cuSPARSE; on several GPUs every exchange mode) of every grid, each grid
 * made once for both precisions (a 256^3 grid takes the host a second or two), then our solver's
 * whole iterations on one GPU per precision and block size. */
cgm_status iteration_sweeps(run_t *R, cgm_error *err) {
  mb_grid ks[16];
  int nk = grid_sizes(R->o->quick, ks);
  for (int i = 0; i < nk; i++) {
    cgm_csr A;
    char src[64];
    cgm_status st = mb_grid_make(ks[i], &A, src, sizeof src, err);
    if (st) return st;
    for (int p = 0; p < 2 && !st; p++) {
      if (!(R->o->precisions & (1u << p))) continue;
      R->prec = p;
      const int w = p == CGM_PREC_SINGLE ? 4 : 8;
      cgm_solve_result res;
      cgm_sample smp;
      st = solve_sample(R, &A, CGM_BACKEND_CUSPARSE, 1, CGM_EXCHANGE_HALO, &res, err);
      if (!st) {
        mb_sample(&smp, "cusparse", "", p, 0, cgm_cusparse_bytes(A.nnz, A.nrows, w), w,
                  res.time_per_iter_s, src);
        st = mb_emit(&R->m, steady(R, &res) ? &smp : NULL, "cusparse", err);
      }
      /* Several GPUs: every exchange mode. */
      const cgm_exchange modes[] = {CGM_EXCHANGE_HALO, CGM_EXCHANGE_P2P, CGM_EXCHANGE_HOST,
                                    CGM_EXCHANGE_NCCL};
      for (int G = 2; G <= R->o->gpus && G <= CGM_MAX_GPUS && !st; G++)
        for (int mi = 0; mi < 4 && !st; mi++) {
          st = solve_sample(R, &A, CGM_BACKEND_CUDA, G, modes[mi], &res, err);
          if (st) break;
          mb_sample(&smp, "mgpu", cgm_exchange_name(modes[mi]), p, G, (double)res.exchange_bytes, w,
                    res.time_per_iter_s, src);
          st = mb_emit(&R->m, steady(R, &res) ? &smp : NULL, "mgpu", err);
        }
    }
    cgm_csr_free(&A);
    if (st) return st;
  }
  /* Our solver's whole iterations on one GPU, every block size. */
  for (int p = 0; p < 2; p++) {
    if (!(R->o->precisions & (1u << p))) continue;
    R->prec = p;
    cgm_solve_opts o = cgm_mb_solve_opts();
    o.backend = CGM_BACKEND_CUDA;
    o.precision = (cgm_precision)p;
    cgm_status st = mb_iteration_sweeps(&o, R->o->quick, ITER_MAX_GRID, mb_emit, &R->m, err);
    if (st) return st;
  }
  return CGM_OK;
}

/* The exchange of x elements among G = 2..8 GPUs through pinned host memory (Eq. 9), timed on one:
 * the host loop's own calls (host_loop.cu: two reductions, the vector's parts down and up, the
 * state's copy, every stream's synchronisation) with every GPU this one, so the x G elements all of
 * them copy cross its link. x = 2^8..2^22 (quick: every other). */
struct staged {
  gpu_solver S;
  int step;
  cudaError_t e; /* the first failure */
};

int64_t staged_x(const staged *h, int i) {
  return (int64_t)1 << (8 + h->step * (i / 7));
}

double staged_time(void *ctx, int i) {
  staged *h = (staged *)ctx;
  gpu_solver *S = &h->S;
  const int64_t x = staged_x(h, i);
  S->G = 2 + i % 7;
  for (int g = 0; g < S->G; g++) {
    S->dev[g] = S->dev[0];
    S->dev[g].v_off = x * g / S->G;
    S->dev[g].rows = x * (g + 1) / S->G - S->dev[g].v_off;
  }
  const double t0 = cgm_now();
  cudaError_t &e = h->e; /* the state's copy onto the vector's, after its copies up */
  if (!e && !(e = gs_host_reduce(S, 0, 0, 1)) && !(e = gs_host_reduce(S, 0, 1, 2)) &&
      !(e = gs_host_exchange(S)))
    e = cudaMemcpyAsync(S->host_v, S->dev[0].state, sizeof(cgm_cg_state), cudaMemcpyDeviceToHost,
                        S->dev[0].stream);
  for (int g = 0; g < S->G && !e; g++) e = cudaStreamSynchronize(S->dev[g].stream);
  return e ? -1.0 : cgm_now() - t0;
}

/* Samples "xfer"/"host", GPUs G, over the bytes the G GPUs move, as the
 * multi-GPU sweep's exchanges become (pipeline/calibrate/fits.c). */
cgm_status staged_sweep(run_t *R, cudaStream_t s, cgm_error *err) {
  staged h = {};
  h.step = R->o->quick ? 2 : 1;
  const int count = 7 * (14 / h.step + 1);
  const size_t vb = sizeof(double) << 22, all = vb + sizeof(cgm_cg_state);
  mb_timing t[7 * 15];
  cgm_cuda_dev *d = &h.S.dev[0];
  d->dev = R->dev;
  d->stream = s;
  cgm_status st = CGM_OK;
  CGM_CUDA_GOTO(st, err, out, cudaMalloc(&d->v, all));
  d->state = (cgm_cg_state *)((char *)d->v + vb);
  CGM_CUDA_GOTO(st, err, out, cudaMemset(d->v, 0, all));
  CGM_CUDA_GOTO(st, err, out, cudaMallocHost(&h.S.host_v, all));
  CGM_CUDA_GOTO(st, err, out,
                cudaMallocHost((void **)&h.S.host_red, 3 * CGM_MAX_GPUS * sizeof(double)));
  for (int p = 0; p < 2 && !st; p++) {
    if (!(R->o->precisions & (1u << p))) continue;
    h.S.prec = (cgm_precision)p;
    const int w = cgm_precision_width(h.S.prec);
    const mb_settle_opts so = {4, 1e-3, 2, R->o->quick ? 5 : 11, R->o->quick ? 0.5 : 2.0};
    if (mb_settle(staged_time, &h, count, &so, t)) {
      CGM_CUDA_GOTO(st, err, out, h.e);
      st = cgm_fail(err, CGM_ERUNTIME, "out of host memory");
    }
    for (int i = 0; i < count && !st; i++) {
      cgm_sample smp;
      const double bytes = (double)staged_x(&h, i) * (2 + i % 7) * w;
      mb_sample_timed(&smp, "xfer", "host", p, 2 + i % 7, bytes, w, &t[i], "one-gpu");
      st = mb_emit(&R->m, &smp, "xfer", err);
    }
  }
out:
  cudaFree(d->v);
  cudaFreeHost(h.S.host_v);
  cudaFreeHost(h.S.host_red);
  return st;
}

} // namespace

extern "C" double cgm_mb_gpu_share(int dev, double seconds) {
  int was = dev; /* the caller's device, set again after */
  double share = 1.0;
  cgm_share_watch w = {};
  cudaError_t e = cudaGetDevice(&was) == cudaSuccess ? cudaSetDevice(dev) : cudaErrorInvalidDevice;
  if (e == cudaSuccess) e = cgm_share_watch_begin(&w, NULL);
  for (const double end = cgm_now() + seconds; e == cudaSuccess && cgm_now() < end;) {
    struct timespec ts = {0, 1000000}; /* 1 ms: the kernels run 20 */
    nanosleep(&ts, NULL);
    e = cgm_share_watch_feed(&w);
  }
  if (e == cudaSuccess) e = cgm_share_watch_pause(&w, &share);
  if (w.s) cgm_share_watch_free(&w);
  return cudaSetDevice(was) == cudaSuccess && e == cudaSuccess ? share : 1.0; /* 1: unread */
}

extern "C" cgm_status cgm_mb_run_cuda(const cgm_mb_opts *o, cgm_mb_sink sink,
                                      cgm_mb_progress progress, void *ctx, cgm_error *err) {
  run_t R = {};
  R.o = o;
  R.m = mb_run{sink, progress, ctx, 0, 0};
  R.dev = atoi(o->device + 5);
  layout_pool pool;
  R.pool = &pool;
  for (int p = 0; p < 2; p++) R.rig[p].d.dev = -1;
  if (R.dev < 0 || R.dev >= cgm_cuda_device_count())
    return cgm_fail(err, CGM_EINPUT, "%s: no such CUDA device (%d present)", o->device,
                    cgm_cuda_device_count());
  CGM_CUDA_TRY(err, cudaSetDevice(R.dev));
  CGM_CUDA_TRY(err, cudaDeviceGetAttribute(&R.sms, cudaDevAttrMultiProcessorCount, R.dev));
  R.sms -= R.sms > 1; /* the grids of its sweeps leave an SM for the share watch's clock kernel */
  mb_range vr = mb_vector_range(true, o->quick);
  mb_grid ks[16];
  int nk = grid_sizes(o->quick, ks);
  for (int p = 0; p < 2; p++) {
    if (!(o->precisions & (1u << p))) continue;
    R.m.total += ((vr.hi - vr.lo) / vr.step + 1) * (8 + 3);
    R.m.total += CGM_NBLOCKSIZES * mb_matrix_count(true, o->quick);
    R.m.total += nk * (1 + 4 * (o->gpus > 1 ? o->gpus - 1 : 0)) +
                 mb_iteration_count(CGM_BACKEND_CUDA, (cgm_precision)p, o->quick, ITER_MAX_GRID);
    if (o->gpus <= 1) R.m.total += 7 * (o->quick ? 8 : 15); /* staged_sweep */
  }
  cudaStream_t s;
  CGM_CUDA_TRY(err, cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  if (progress) progress(ctx, "setup", 0); /* the context is up */
  cgm_status st = CGM_OK;
  CGM_CUDA_GOTO(st, err, out, cgm_share_watch_begin(&R.sw, NULL));
  for (int p = 0; p < 2 && !st; p++) {
    if (!(o->precisions & (1u << p))) continue;
    R.prec = p;
    st =
        p == CGM_PREC_SINGLE ? vector_sweeps<float>(&R, s, err) : vector_sweeps<double>(&R, s, err);
  }
  if (!st)
    st = mb_for_each_matrix(cgm_block_sizes, CGM_NBLOCKSIZES, true, o->quick, INT_MAX, spmv_one, &R,
                            err);
  rigs_release(&R); /* before the whole solves, which make devices of their own */
  if (!st) st = iteration_sweeps(&R, err);
  if (!st && o->gpus <= 1) st = staged_sweep(&R, s, err); /* no GPUs to exchange among */
out:
  cgm_share_watch_free(&R.sw);
  cudaStreamDestroy(s);
  return st;
}
