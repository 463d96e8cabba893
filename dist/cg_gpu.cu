/* SPDX-License-Identifier: GPL-3.0-or-later */
/* One MPI rank's rows on its GPU (gpu.h): CSR with the rank's ghosts past its own rows, the
 * distributed CG's steps as kernels whose sums come back to the host (the ranks add them with
 * MPI_Allreduce: two a step, as on the CPU), and the halo by NCCL's point-to-point calls or packed
 * for the host. Simple kernels: a group of W threads a row, grid-stride loops; the one- process
 * solver's MBR kernels and graphs are not used here. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dist/gpu.h"
#include "kernels/cuda_util.h"
#include "kernels/device_util.cuh"
#include "solver/cuda/vendor_libs.h"

struct cgm_dgpu {
  int dev, W, sms;
  cgm_dgpu_rows m; /* sizes; the pointers below are the GPU's */
  cudaStream_t s;
  int64_t *rowptr;
  int32_t *col, *send_idx;
  double *val, *v[DG_NVEC], *send, *sums, *hsums; /* hsums: pinned, the sums' copy */
  int64_t bytes;
  const cgm_nccl_fns *nccl;
  ncclComm_t comm;
  cgm_status st; /* the first failure, and its message */
  cgm_error err;
};

/* Records the first failure (the call, its line); true when the call
 * failed. Fault injection (common/fault.h) fails a call without making it. */
static bool failed(cgm_dgpu *G, cudaError_t e, const char *what, int line) {
  if (e == cudaSuccess) return false;
  (void)cudaGetLastError();
  if (!G->st)
    G->st = cgm_fail(&G->err, CGM_ERUNTIME, "CUDA error %s (%s) in %s at dist/cg_gpu.cu:%d",
                     cudaGetErrorName(e), cudaGetErrorString(e), what, line);
  return true;
}
#define DG_CHECK(G, call) failed(G, cgm_fault_hit() ? CGM_CUDA_INJECTED : (call), #call, __LINE__)

/* A group of W lanes a row, each lane's first U entries loaded at once (independent loads in
 * flight: short rows are latency-bound otherwise), the rest in a loop; a warp's lanes loop together
 * (the shuffles need every lane), rows past n adding nothing. */
template <int W, int U>
__global__ void spmv_k(int32_t n, const int64_t *rp, const int32_t *col, const double *val,
                       const double *x, double *y, const double *p, double *sum) {
  double acc[1] = {0.0};
  const int lane = threadIdx.x % W, per = 32 / W;
  const int64_t warp = (blockIdx.x * (int64_t)blockDim.x + threadIdx.x) / 32,
                warps = (int64_t)gridDim.x * blockDim.x / 32;
  for (int64_t t0 = warp * per; t0 < n; t0 += warps * per) {
    const int64_t t = t0 + (threadIdx.x % 32) / W, b = t < n ? rp[t] + lane : 0,
                  e = t < n ? rp[t + 1] : 0;
    int32_t c[U];
    double v[U], s = 0.0;
#pragma unroll
    for (int j = 0; j < U; j++) {
      c[j] = b + j * W < e ? __ldg(col + b + j * W) : 0;
      v[j] = b + j * W < e ? __ldg(val + b + j * W) : 0.0;
    }
#pragma unroll
    for (int j = 0; j < U; j++)
      if (b + j * W < e) s += v[j] * __ldg(x + c[j]);
    for (int64_t k = b + U * W; k < e; k += W) s += val[k] * x[col[k]];
    for (int off = W / 2; off > 0; off >>= 1) s += __shfl_xor_sync(0xffffffffu, s, off, W);
    if (lane == 0 && t < n) {
      y[t] = s;
      if (p) acc[0] += p[t] * s;
    }
  }
  cgm::block_sum(acc);
  if (threadIdx.x == 0 && p) atomicAdd(sum, acc[0]);
}

__global__ void resid_k(int32_t n, const double *b, const double *u, const double *dinv, double *r,
                        int swap, double *sum) {
  double acc[2] = {0.0, 0.0};
  CGM_GRID_LOOP(i, n) {
    const double d = b[i] - u[i];
    acc[0] += d * d;
    if (swap) r[i] = d, acc[1] += d * dinv[i] * d;
  }
  cgm::block_sum(acc);
  if (threadIdx.x == 0) atomicAdd(sum, acc[0]), atomicAdd(sum + 1, acc[1]);
}

__global__ void update_k(int32_t n, double t, double *x, double *r, const double *v,
                         const double *u, const double *dinv, double *sum) {
  double acc[2] = {0.0, 0.0};
  CGM_GRID_LOOP(i, n) {
    x[i] += t * v[i];
    const double ri = r[i] - t * u[i];
    r[i] = ri;
    acc[0] += ri * dinv[i] * ri;
    acc[1] += ri * ri;
  }
  cgm::block_sum(acc);
  if (threadIdx.x == 0) atomicAdd(sum, acc[0]), atomicAdd(sum + 1, acc[1]);
}

__global__ void direction_k(int32_t n, double a, double s, double *v, const double *r,
                            const double *dinv) {
  CGM_GRID_LOOP(i, n) v[i] = a * (dinv[i] * r[i]) + (s != 0.0 ? s * v[i] : 0.0);
}

__global__ void dot_k(int32_t n, const double *a, const double *b, double *sum) {
  double acc[1] = {0.0};
  CGM_GRID_LOOP(i, n) acc[0] += a[i] * b[i];
  cgm::block_sum(acc);
  if (threadIdx.x == 0) atomicAdd(sum, acc[0]);
}

__global__ void pack_k(int32_t m, const int32_t *idx, const double *v, double *out) {
  CGM_GRID_LOOP(k, m) out[k] = v[idx[k]];
}

static unsigned blocks(const cgm_dgpu *G, int64_t threads) {
  const int64_t b = (threads + 255) / 256, cap = (int64_t)G->sms * 8;
  return (unsigned)(b < 1 ? 1 : (b > cap ? cap : b));
}

/* bytes from the GPU's src to the host's dst, waited for (nothing after a failure). */
static void to_host(cgm_dgpu *G, void *dst, const void *src, size_t bytes) {
  if (!G->st && !DG_CHECK(G, cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToHost, G->s)))
    DG_CHECK(G, cudaStreamSynchronize(G->s));
}

/* The sums of the kernel just launched on the stream (NaN after a failure). */
static void sums(cgm_dgpu *G, double *out, int k) {
  if (!G->st && !DG_CHECK(G, cudaGetLastError())) to_host(G, G->hsums, G->sums, 2 * sizeof *out);
  for (int i = 0; i < k; i++) out[i] = G->st ? NAN : G->hsums[i];
}

static bool zero_sums(cgm_dgpu *G) {
  return !G->st && !DG_CHECK(G, cudaMemsetAsync(G->sums, 0, 2 * sizeof(double), G->s));
}

/* A device array of n entries of size w, from host (NULL: left). */
static bool upload(cgm_dgpu *G, void **d, const void *h, int64_t n, size_t w) {
  G->bytes += (n + 1) * (int64_t)w;
  return !DG_CHECK(G, cudaMalloc(d, (size_t)(n + 1) * w)) &&
         !(h && DG_CHECK(G, cudaMemcpy(*d, h, (size_t)n * w, cudaMemcpyHostToDevice)));
}

cgm_status cgm_dgpu_open(cgm_dgpu **out, int device, const cgm_dgpu_rows *M, const double *b,
                         const double *x, const double *dinv, char *name, size_t len,
                         cgm_error *err) {
  cgm_dgpu *G = (cgm_dgpu *)calloc(1, sizeof *G);
  if (!(*out = G)) return cgm_fail(err, CGM_ERUNTIME, "out of memory");
  G->dev = device;
  G->m = *M;
  const int64_t n = M->n, ng = M->n + M->nghost, nnz = M->rowptr[M->n];
  /* lanes a row by the mean row: on one H200, Poisson 128^3 (7) 61 us with 2 lanes against 71
   * with 1 and 133 with 8; bcsstk16 (59) 5.6 us with 32 against 8.5 with 8 */
  G->W = nnz > 24 * n ? 32 : (nnz > 10 * n ? 4 : 2);
  cudaDeviceProp p;
  if (!DG_CHECK(G, cudaSetDevice(device)) && !DG_CHECK(G, cudaGetDeviceProperties(&p, device))) {
    G->sms = p.multiProcessorCount;
    snprintf(name, len, "cuda:%d (%s)", device, p.name);
  }
  if (!G->st && !DG_CHECK(G, cudaStreamCreateWithFlags(&G->s, cudaStreamNonBlocking)) &&
      upload(G, (void **)&G->rowptr, M->rowptr, n + 1, sizeof(int64_t)) &&
      upload(G, (void **)&G->col, M->col, nnz, sizeof(int32_t)) &&
      upload(G, (void **)&G->val, M->val, nnz, sizeof(double)) &&
      upload(G, (void **)&G->send_idx, M->send_idx, M->nsend, sizeof(int32_t)) &&
      upload(G, (void **)&G->send, NULL, M->nsend, sizeof(double)) &&
      upload(G, (void **)&G->sums, NULL, 2, sizeof(double)) &&
      !DG_CHECK(G, cudaMallocHost((void **)&G->hsums, 2 * sizeof(double))))
    for (int k = 0; k < DG_NVEC && !G->st; k++) {
      const double *h = k == DG_B ? b : k == DG_X ? x : k == DG_DINV ? dinv : NULL;
      if (upload(G, (void **)&G->v[k], h, k == DG_X || k == DG_V ? ng : n, sizeof(double)) && !h)
        DG_CHECK(G, cudaMemset(G->v[k], 0, (size_t)(k == DG_V ? ng + 1 : n + 1) * 8));
    }
  /* the copies and fills above ran on the legacy stream, which G->s does not wait for */
  if (!G->st) DG_CHECK(G, cudaDeviceSynchronize());
  return cgm_dgpu_error(G, err);
}

void cgm_dgpu_close(cgm_dgpu *G) {
  if (!G) return;
  (void)cudaSetDevice(G->dev);
  if (G->comm) /* after a failure NCCL's peers may still wait: abort, do not drain */
    G->st ? G->nccl->ncclCommAbort(G->comm) : G->nccl->ncclCommDestroy(G->comm);
  void *p[] = {G->rowptr, G->col, G->val, G->send_idx, G->send, G->sums};
  for (size_t k = 0; k < sizeof p / sizeof *p; k++) (void)cudaFree(p[k]);
  for (int k = 0; k < DG_NVEC; k++) (void)cudaFree(G->v[k]);
  if (G->s) (void)cudaStreamDestroy(G->s);
  (void)cudaFreeHost(G->hsums);
  (void)cudaGetLastError();
  free(G);
}

cgm_status cgm_dgpu_error(const cgm_dgpu *G, cgm_error *err) {
  if (G->st && err) *err = G->err;
  return G->st;
}

int64_t cgm_dgpu_bytes(const cgm_dgpu *G) {
  return G->bytes;
}

double cgm_dgpu_spmv(cgm_dgpu *G, int src, int dst, int p) {
  double out = 0.0;
  if (!zero_sums(G)) return NAN;
  const int32_t n = G->m.n;
  const double *pv = p >= 0 ? G->v[p] : NULL;
  const unsigned nb = blocks(G, (int64_t)n * G->W);
  /* the lanes a row (cgm_dgpu_open) and the entries each lane loads at once */
  const auto k = G->W == 32 ? spmv_k<32, 2> : G->W == 4 ? spmv_k<4, 4> : spmv_k<2, 4>;
  k<<<nb, 256, 0, G->s>>>(n, G->rowptr, G->col, G->val, G->v[src], G->v[dst], pv, G->sums);
  sums(G, &out, p >= 0 ? 1 : 0);
  return p >= 0 ? out : (G->st ? NAN : 0.0);
}

void cgm_dgpu_resid(cgm_dgpu *G, bool swap, double out[2]) {
  if (zero_sums(G))
    resid_k<<<blocks(G, G->m.n), 256, 0, G->s>>>(G->m.n, G->v[DG_B], G->v[DG_U], G->v[DG_DINV],
                                                 G->v[DG_R], swap, G->sums);
  sums(G, out, 2);
}

void cgm_dgpu_update(cgm_dgpu *G, double t, double out[2]) {
  double **v = G->v;
  if (zero_sums(G))
    update_k<<<blocks(G, G->m.n), 256, 0, G->s>>>(G->m.n, t, v[DG_X], v[DG_R], v[DG_V], v[DG_U],
                                                  v[DG_DINV], G->sums);
  sums(G, out, 2);
}

void cgm_dgpu_direction(cgm_dgpu *G, double a, double s) {
  if (G->st) return;
  direction_k<<<blocks(G, G->m.n), 256, 0, G->s>>>(G->m.n, a, s, G->v[DG_V], G->v[DG_R],
                                                   G->v[DG_DINV]);
  DG_CHECK(G, cudaGetLastError());
}

double cgm_dgpu_dot(cgm_dgpu *G, int a, int b) {
  double out = NAN;
  if (zero_sums(G)) dot_k<<<blocks(G, G->m.n), 256, 0, G->s>>>(G->m.n, G->v[a], G->v[b], G->sums);
  sums(G, &out, 1);
  return out;
}

void cgm_dgpu_copy(cgm_dgpu *G, int dst, int src) {
  if (!G->st)
    DG_CHECK(G, cudaMemcpyAsync(G->v[dst], G->v[src], (size_t)G->m.n * sizeof(double),
                                cudaMemcpyDeviceToDevice, G->s));
}

void cgm_dgpu_download(cgm_dgpu *G, int id, double *host) {
  to_host(G, host, G->v[id], (size_t)G->m.n * sizeof(double));
}

/* The entries others read, packed into G->send. */
static bool pack(cgm_dgpu *G, int id) {
  if (G->st) return false;
  if (G->m.nsend > 0)
    pack_k<<<blocks(G, G->m.nsend), 256, 0, G->s>>>(G->m.nsend, G->send_idx, G->v[id], G->send);
  return !DG_CHECK(G, cudaGetLastError());
}

void cgm_dgpu_pack(cgm_dgpu *G, int id, double *send) {
  if (pack(G, id)) to_host(G, send, G->send, (size_t)G->m.nsend * 8);
}

void cgm_dgpu_ghosts(cgm_dgpu *G, int id, const double *ghosts) {
  if (!G->st && G->m.nghost > 0)
    DG_CHECK(G, cudaMemcpyAsync(G->v[id] + G->m.n, ghosts, (size_t)G->m.nghost * sizeof(double),
                                cudaMemcpyHostToDevice, G->s));
}

cgm_status cgm_dgpu_nccl_id(cgm_dgpu *G, void *id, bool make, cgm_error *err) {
  cgm_status st = cgm_nccl_load(&G->nccl, err);
  if (st || DG_CHECK(G, cudaSetDevice(G->dev))) return st ? st : cgm_dgpu_error(G, err);
  const ncclResult_t r = make ? G->nccl->ncclGetUniqueId((ncclUniqueId *)id) : ncclSuccess;
  if (r != ncclSuccess)
    st = cgm_fail(err, CGM_ERUNTIME, "NCCL error %s making its unique id",
                  G->nccl->ncclGetErrorString(r));
  return st;
}

cgm_status cgm_dgpu_nccl_open(cgm_dgpu *G, const void *id, int rank, int size, cgm_error *err) {
  ncclUniqueId u;
  memcpy(&u, id, sizeof u);
  const ncclResult_t r = G->nccl->ncclCommInitRank(&G->comm, size, u, rank);
  if (r != ncclSuccess) {
    G->comm = NULL;
    return cgm_fail(err, CGM_ERUNTIME, "NCCL error %s setting up rank %d of %d",
                    G->nccl->ncclGetErrorString(r), rank, size);
  }
  return CGM_OK;
}

void cgm_dgpu_halo_nccl(cgm_dgpu *G, int id, int nrecv, const int *recv_rank,
                        const int32_t *recv_off, int nsend, const int *send_rank,
                        const int32_t *send_off) {
  /* after a failure the peers still wait for this rank's part: it is sent (unpacked), and the
   * NaN sums stop every rank at the next allreduce */
  if (!pack(G, id) && !G->comm) return;
  const cgm_nccl_fns *f = G->nccl;
  ncclResult_t r = f->ncclGroupStart();
  int peer = -1;
  for (int k = 0; k < nrecv && r == ncclSuccess; k++)
    r = f->ncclRecv(G->v[id] + G->m.n + recv_off[k], (size_t)(recv_off[k + 1] - recv_off[k]),
                    ncclFloat64, peer = recv_rank[k], G->comm, G->s);
  for (int k = 0; k < nsend && r == ncclSuccess; k++)
    r = f->ncclSend(G->send + send_off[k], (size_t)(send_off[k + 1] - send_off[k]), ncclFloat64,
                    peer = send_rank[k], G->comm, G->s);
  const ncclResult_t e = f->ncclGroupEnd();
  if (r == ncclSuccess) r = e, peer = -1;
  if (r != ncclSuccess && !G->st)
    G->st = cgm_fail(&G->err, CGM_ERUNTIME, "NCCL error %s in the halo exchange (rank %d)",
                     f->ncclGetErrorString(r), peer);
}
