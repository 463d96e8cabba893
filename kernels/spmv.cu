/* SPDX-License-Identifier: GPL-3.0-or-later */
/* SpMV over the BCSR MBR layout (paper Sec. 3.3-3.7), one kernel family by precision, block size N
 * and B_x. A slice (B_y block rows) is read by S = B_y * B_x * N threads; thread t owns row t % N
 * of block slot t / N. Each step's blocks are contiguous, so a warp reads one coalesced range; the
 * N threads of a block read the same block column and N consecutive entries of x. The B_x partial
 * rows are added with warp shuffles and the result goes to its original row. The grid is one wave
 * looping over slice groups (a few hundred partials for the fused dot, CG3). Rows of 64 bytes (8 x
 * 8 fp64) are split over H = 2 threads: half the registers a step, two steps in flight
 * (docs/perf.md). */
#include <type_traits>

#include "kernels/device_util.cuh"
#include "kernels/kernels.h"
#include "kernels/launch.cuh"

namespace cgm {

constexpr int kSpmvThreads = CGM_SPMV_THREADS;
constexpr int kSpmvBlocksPerSM = CGM_SPMV_BLOCKS_PER_SM; /* register cap of __launch_bounds__ */
static_assert(kSpmvBlocksPerSM >= 2, "cgm_sync.leave keeps one block per SM free for the pack");

/* Steps per loop trip: 8 for rows of at most 8 bytes (a 7-point stencil fits in one trip), fewer
 * for wide rows to stay clear of spills. Steps past the end of a slice are predicated off, so a
 * short slice costs one trip: one round trip for values and columns, one for the gathered x. NE is
 * the elements a thread holds of a row (N / H). */
template <typename T, int NE> __host__ __device__ constexpr int spmv_unroll() {
  constexpr int b = NE * (int)sizeof(T);
  return b <= 8 ? 8 : (b <= 16 ? 4 : (b <= 32 ? 2 : 1));
}

/* V (cgm_values): the values' storage, read by the accessor in the loop
 * below; the arithmetic stays T's. */
template <typename T, int N, int BX, int V>
__global__ void __launch_bounds__(kSpmvThreads, kSpmvBlocksPerSM) /* <= 64 registers */
    spmv_mbr(cgm_dev_layout L, const T *__restrict__ x, T *__restrict__ y,
             const T *__restrict__ p_rows, cgm_out dot_out, const double *dot_add,
             cgm_reduce_buf red, cgm_cg_state *guard, cgm_sync sync) {
  /* Beside the long-row kernel: that kernel let this one start only once its own predecessor had
   * finished (spmv_long), so x and the run's state are final here; only its sum, read last
   * (last_block_sum), needs the wait. One that spins on flags (the halo's boundary rows without the
   * late pack) lets its successor in only once that wait is over (sync_wait), as pdl_begin would.
   */
  if (!sync.beside)
    pdl_begin(sync);
  else if (!sync.wait_mask)
    pdl_trigger();
  const bool want_dot = dot_out.n > 0 || dot_out.ll > 0;
  if (run_stopped(guard, sync)) return;
  if (!sync_wait(guard, sync)) return; /* x's foreign entries have arrived */
  using VT = typename std::conditional<V == CGM_VALUES_F32, float, T>::type;
  const VT *__restrict__ val = static_cast<const VT *>(L.val);
  constexpr int H = CGM_SPMV_SPLIT((int)sizeof(T), N, BX), NE = N / H;
  const int S = L.by * BX * N * H; /* threads per slice */
  const int spb = blockDim.x / S;  /* slices per block */
  const int t = threadIdx.x % S, h = t % H, q = t / (N * H), r = (t / H) % N;
  const bool writer = (q % BX) == 0 && h == 0; /* sub-block 0 writes the row */
  const int64_t ngroups = (L.nslices + spb - 1) / spb;
  constexpr int U = spmv_unroll<T, NE>();
  const int64_t astep = (int64_t)S * NE; /* elements per step */
  const int cstep = S / (N * H);         /* blocks per step */
  double dot = 0.0;
  /* The slice bounds and the destination row of the next group are loaded
   * while the current group runs: a group then starts with its data loads
   * instead of waiting one memory latency for slice_ptr. */
  const int slot_j = q / BX;
  auto header = [&](int64_t g, int64_t &b0, int64_t &b1, int32_t &b) {
    const int64_t sl = g * spb + threadIdx.x / S;
    if (g < ngroups && sl < L.nslices) {
      b0 = L.slice_ptr[sl];
      b1 = L.slice_ptr[sl + 1];
      b = writer ? L.brow[sl * L.by + slot_j] : -1;
    } else {
      b0 = b1 = 0;
      b = -1;
    }
  };
  int64_t nb0, nb1;
  int32_t nbr;
  header(blockIdx.x, nb0, nb1, nbr);
  for (int64_t g = blockIdx.x; g < ngroups; g += gridDim.x) {
    const int64_t slice = g * spb + threadIdx.x / S;
    const bool live = slice < L.nslices;
    const int64_t base = nb0;
    const int steps = (int)((nb1 - nb0) / cstep);
    const int32_t b = nbr;
    header(g + gridDim.x, nb0, nb1, nbr);
    T acc = 0;
    int64_t row = -1;
    T p_own = 0;
    if (live) {
      if (b >= 0) {
        row = (int64_t)b * N + r;
        if (want_dot) p_own = p_rows[row];
      }
      const VT *a = val + base * (N * N) + (int64_t)t * NE;
      const int32_t *c = L.bcol + base + q;
      for (int s = 0; s < steps; s += U) {
        T av[U][NE], xv[U][NE];
        int32_t col[U];
#pragma unroll
        for (int u = 0; u < U; u++) {
          if (s + u < steps) {
            col[u] = __ldcs(c + (int64_t)(s + u) * cstep);
            if constexpr (V == CGM_VALUES_DICT) { /* N = 1: the code picks the value */
              av[u][0] = __ldg(L.dict + ((uint32_t)col[u] >> L.shift));
              col[u] &= (1 << L.shift) - 1;
            } else {
              VT w[NE];
              load_row<VT, NE, true>(a + (int64_t)(s + u) * astep, w);
#pragma unroll
              for (int e = 0; e < NE; e++) av[u][e] = (T)w[e];
            }
          } else {
#pragma unroll
            for (int e = 0; e < NE; e++) av[u][e] = 0;
            col[u] = -1;
          }
        }
#pragma unroll
        for (int u = 0; u < U; u++) {
          if (col[u] >= 0)
            load_row<T, NE, false>(x + (int64_t)col[u] * N + h * NE, xv[u]);
          else
#pragma unroll
            for (int e = 0; e < NE; e++) xv[u][e] = 0;
        }
        /* N = 1: the next group's columns into L2 (32-byte sectors, 2 a thread) while x arrives,
         * so that they wait on L2, not memory. Not its values (in double they evicted x), not at
         * N > 1 (slower there; docs/perf.md, "The next columns in L2") */
        for (int64_t k = 8 * t; N == 1 && s == 0 && k < nb1 - nb0 && k < 16 * S; k += 8 * S)
          asm volatile("prefetch.global.L2 [%0];" ::"l"(L.bcol + nb0 + k));
#pragma unroll
        for (int u = 0; u < U; u++)
#pragma unroll
          for (int e = 0; e < NE; e++) acc += av[u][e] * xv[u][e];
      }
    }
    /* The H halves (adjacent lanes) and the B_x threads (N H lanes apart)
     * hold parts of the same row. */
#pragma unroll
    for (int off = 1; off < H; off <<= 1) acc += __shfl_xor_sync(0xffffffffu, acc, off);
#pragma unroll
    for (int off = N * H; off < N * H * BX; off <<= 1)
      acc += __shfl_xor_sync(0xffffffffu, acc, off);
    if (row >= 0) {
      y[row] = acc;
      if (want_dot) dot += (double)p_own * (double)acc;
    }
  }
  if (want_dot) {
    double v[1] = {dot};
    last_block_sum<1>(v, red, dot_out, dot_add, guard, &sync);
  }
}

/* The grid of kSpmvThreads blocks for a layout of w-byte elements: at most one full wave of the
 * device, looping over slices. */
static int spmv_blocks(const cgm_dev_layout *L, int w, int sms) {
  const int S = L->by * L->bx * L->n * CGM_SPMV_SPLIT(w, L->n, L->bx);
  const int spb = S <= kSpmvThreads ? kSpmvThreads / S : 1;
  int64_t groups = (L->nslices + spb - 1) / spb;
  int64_t wave = (int64_t)sms * kSpmvBlocksPerSM;
  return (int)(groups < wave ? groups : wave);
}

template <typename T, int N, int BX, int V>
static cudaError_t launch(const cgm_dev_layout *L, const void *x, void *y, const void *p,
                          const cgm_out &dot, const double *add, cgm_reduce_buf red,
                          cgm_cg_state *guard, const cgm_sync &sync, int sms, cudaStream_t s) {
  /* A slice wider than a block (a layout cgm_spmv_supported refuses)
   * would leave the kernel no slice per block. */
  if (L->by * BX * N * CGM_SPMV_SPLIT((int)sizeof(T), N, BX) > kSpmvThreads)
    return cudaErrorInvalidValue;
  int blocks = spmv_blocks(L, (int)sizeof(T), sms);
  if (sync.leave > 0 && sync.leave < kSpmvBlocksPerSM &&
      blocks > (kSpmvBlocksPerSM - sync.leave) * sms)
    blocks = (kSpmvBlocksPerSM - sync.leave) * sms;
  if (blocks == 0) {
    if (dot.n == 0 && dot.ll == 0) return cudaSuccess;
    blocks = 1; /* no rows, but the dot (0 + add) and its flags are expected */
  }
  return launch_k(sync.overlap, spmv_mbr<T, N, BX, V>, blocks, kSpmvThreads, s, *L,
                  static_cast<const T *>(x), static_cast<T *>(y), static_cast<const T *>(p), dot,
                  add, red, guard, sync);
}

/* The launch of block size N at B_x bx, or nullptr. */
template <typename T, int N, int V> static decltype(&launch<T, N, 1, V>) pick_bx(int bx) {
  constexpr int B8 = N <= 4 ? 8 : 4; /* B_x 8 only up to N = 4 */
  return bx == 1             ? launch<T, N, 1, V>
         : bx == 2           ? launch<T, N, 2, V>
         : bx == 4           ? launch<T, N, 4, V>
         : bx == 8 && N <= 4 ? launch<T, N, B8, V>
                             : nullptr;
}

/* The launch of L's block size and B_x, or nullptr. */
template <typename T, int V> static decltype(&launch<T, 1, 1, V>) pick(const cgm_dev_layout *L) {
  return L->n == 1   ? pick_bx<T, 1, V>(L->bx)
         : L->n == 2 ? pick_bx<T, 2, V>(L->bx)
         : L->n == 4 ? pick_bx<T, 4, V>(L->bx)
         : L->n == 8 ? pick_bx<T, 8, V>(L->bx)
                     : nullptr;
}

/* Long rows (cgm_dev_layout.long_rows): a slice a block row, whose blocks a warp (or a block)
 * shares, so that a hub of thousands of entries is not walked by one thread. A thread takes one row
 * of a block a step (unit u: block u / N, row u % N), lanes of the same row summing together; the
 * fused dot adds p_row * y_row per row in block order. No flag waits. */
/* One thread's share of a long row: units q, q + stride, ... below q1, in kLongChains independent
 * chains, so that as many random gathers of x wait on L2 at once. */
constexpr int kLongChains = 4;
constexpr int kLongBlocksPerSM = 4; /* the grid's */
/* The register budget: blocks of kSpmvThreads an SM (6: 40 registers a thread, room beside the grid
 * for the MBR kernel; at 8 it spilled, docs/perf.md). */
constexpr int kLongRegBlocks = 6;
/* Unit u's row of its block times x, added to a. */
template <typename T, int N>
__device__ __forceinline__ void unit_add(double &a, const T *__restrict__ val,
                                         const int32_t *__restrict__ bcol, const T *__restrict__ x,
                                         int64_t u) {
  const T *__restrict__ v = val + u * N;
  const T *__restrict__ xc = x + (int64_t)bcol[u / N] * N;
#pragma unroll
  for (int c = 0; c < N; c++) a += (double)v[c] * (double)__ldg(&xc[c]);
}
template <typename T, int N>
__device__ __forceinline__ double
strided_sum(const T *__restrict__ val, const int32_t *__restrict__ bcol, const T *__restrict__ x,
            int64_t q, int64_t q1, int stride) {
  double a[kLongChains];
#pragma unroll
  for (int c = 0; c < kLongChains; c++) a[c] = 0.0;
  for (; q + (kLongChains - 1) * stride < q1; q += kLongChains * stride) {
#pragma unroll
    for (int c = 0; c < kLongChains; c++) unit_add<T, N>(a[c], val, bcol, x, q + c * stride);
  }
  for (; q < q1; q += stride) unit_add<T, N>(a[0], val, bcol, x, q);
  double t = 0.0;
#pragma unroll
  for (int c = 0; c < kLongChains; c++) t += a[c];
  return t;
}

/* The sums of a warp's lanes of equal lane % N: every lane holds its row's. */
template <int N> __device__ __forceinline__ double rows_warp_sum(double v) {
  for (int off = 16; off >= N; off >>= 1) v += __shfl_xor_sync(0xffffffffu, v, off);
  return v;
}

/* The sums of a block's threads of equal threadIdx.x % N: threads r < N hold row r's. */
template <int N> __device__ __forceinline__ double rows_block_sum(double v) {
  __shared__ double sh[kSpmvThreads / 32][N];
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, nwarps = blockDim.x >> 5;
  v = rows_warp_sum<N>(v);
  if (lane < N) sh[warp][lane] = v;
  __syncthreads();
  double t = 0.0;
  if (threadIdx.x < N)
    for (int w = 0; w < nwarps; w++) t += sh[w][threadIdx.x];
  __syncthreads(); /* sh is reused by the next row */
  return t;
}

template <typename T, int N>
__global__ void __launch_bounds__(kSpmvThreads, kLongRegBlocks)
    spmv_long(cgm_dev_layout L, const T *__restrict__ x, T *__restrict__ y,
              const T *__restrict__ p_rows, cgm_out dot_out, const double *dot_add,
              cgm_reduce_buf red, cgm_cg_state *guard, cgm_sync sync) {
  /* wait, then let the MBR kernel start (cgm_sync.beside): it then finds x
   * final and fills the SMs beside this grid */
  pdl_wait();
  pdl_trigger();
  if (run_stopped(guard, sync)) return;
  const T *__restrict__ val = static_cast<const T *>(L.val);
  const bool want_dot = dot_out.n > 0 || dot_out.ll > 0;
  const int lane = threadIdx.x & 31;
  const int64_t nwarps = ((int64_t)gridDim.x * blockDim.x) >> 5;
  double dot = 0.0;
  /* row r (threadIdx.x or lane) of slice k's block row is v, rounded into T (y's and the dot's) */
  auto put = [&](int64_t k, auto r, double v) {
    const int64_t row = (int64_t)L.brow[k] * N + r;
    const T acc = (T)v;
    y[row] = acc;
    if (want_dot) dot += (double)p_rows[row] * (double)acc;
  };
  /* the hubs (sorted first): a block a row */
  for (int64_t k = blockIdx.x; k < L.nhuge; k += gridDim.x) {
    const double v = rows_block_sum<N>(strided_sum<T, N>(
        val, L.bcol, x, L.slice_ptr[k] * N + threadIdx.x, L.slice_ptr[k + 1] * N, blockDim.x));
    if (threadIdx.x < N) put(k, threadIdx.x, v);
  }
  /* the others: a warp a row */
  for (int64_t k = L.nhuge + (((int64_t)blockIdx.x * blockDim.x + threadIdx.x) >> 5); k < L.nslices;
       k += nwarps) {
    const double v = rows_warp_sum<N>(
        strided_sum<T, N>(val, L.bcol, x, L.slice_ptr[k] * N + lane, L.slice_ptr[k + 1] * N, 32));
    if (lane < N) put(k, lane, v);
  }
  if (want_dot) {
    double v[1] = {dot};
    last_block_sum<1>(v, red, dot_out, dot_add, guard, &sync);
  }
}

template <typename T>
static cudaError_t launch_long(const cgm_dev_layout *L, const void *x, void *y, const void *p,
                               const cgm_out &dot, const double *add, cgm_reduce_buf red,
                               cgm_cg_state *guard, const cgm_sync &sync, int blocks,
                               cudaStream_t s) {
  const auto k = L->n == 1   ? spmv_long<T, 1>
                 : L->n == 2 ? spmv_long<T, 2>
                 : L->n == 4 ? spmv_long<T, 4>
                 : L->n == 8 ? spmv_long<T, 8>
                             : nullptr;
  if (!k) return cudaErrorInvalidValue;
  return launch_k(sync.overlap, k, blocks, kSpmvThreads, s, *L, static_cast<const T *>(x),
                  static_cast<T *>(y), static_cast<const T *>(p), dot, add, red, guard, sync);
}

} // namespace cgm

extern "C" void cgm_kernels_preload(void) {
  cudaFuncAttributes a;
  (void)cgm_pdl_supported(); /* the vector kernels' module */
  if (cudaFuncGetAttributes(&a, cgm::spmv_mbr<double, 1, 1, CGM_VALUES_FULL>) != cudaSuccess)
    (void)cudaGetLastError();
}

extern "C" cgm_status cgm_spmv_supported(int n, int bx, int by, cgm_precision prec,
                                         cgm_error *err) {
  if (bx != 1 && bx != 2 && bx != 4 && bx != 8)
    return cgm_fail(err, CGM_EINPUT, "the CUDA kernels need B_x in {1, 2, 4, 8} (got %d)", bx);
  if (n * bx > 32)
    return cgm_fail(err, CGM_EINPUT, "the CUDA kernels need N * B_x <= 32 (got %d * %d)", n, bx);
  const int h = CGM_SPMV_SPLIT(cgm_precision_width(prec), n, bx);
  int S = by * bx * n * h;
  if (S > cgm::kSpmvThreads || cgm::kSpmvThreads % S != 0)
    return cgm_fail(err, CGM_EINPUT,
                    "the CUDA kernels need B_y * B_x * N%s to divide %d (got %d * %d * %d%s = %d)",
                    h > 1 ? " * 2" : "", cgm::kSpmvThreads, by, bx, n, h > 1 ? " * 2" : "", S);
  return CGM_OK;
}

extern "C" cudaError_t cgm_launch_spmv(const cgm_dev_layout *L, cgm_precision prec, const void *x,
                                       void *y, const void *p_rows, const cgm_out *dot,
                                       const double *dot_add, cgm_reduce_buf red,
                                       cgm_cg_state *guard, const cgm_sync *sync, int sms,
                                       cudaStream_t s) {
  const cgm_sync sy = sync ? *sync : cgm_sync{};
  const cgm_out d = dot ? *dot : cgm_out{}; /* none: n = 0 */
  if (L->long_rows) {
    if (L->by != 1 || L->bx != 1 || L->fmt != CGM_VALUES_FULL || sy.wait_mask || sy.nraise || d.ll)
      return cudaErrorInvalidValue;
    const int64_t rows_per_block = cgm::kSpmvThreads / 32; /* a warp a row */
    int64_t blocks = (L->nslices + rows_per_block - 1) / rows_per_block;
    if (blocks < L->nhuge) blocks = L->nhuge; /* a block a hub */
    if (blocks > red.capacity) blocks = red.capacity;
    /* the gathers wait on L2: the more warps, the better, but with room left
     * for the MBR kernel that runs beside (cgm_sync.beside) */
    if (blocks > (int64_t)sms * cgm::kLongBlocksPerSM)
      blocks = (int64_t)sms * cgm::kLongBlocksPerSM;
    if (blocks < 1) blocks = 1; /* no rows: the dot (0 + add) is still delivered */
    return (prec == CGM_PREC_SINGLE ? cgm::launch_long<float>
                                    : cgm::launch_long<double>)(L, x, y, p_rows, d, dot_add, red,
                                                                guard, sy, (int)blocks, s);
  }
  /* full values in single precision; dict at block size 1 only (cgm_values_choose) */
  const auto k = prec == CGM_PREC_SINGLE     ? cgm::pick<float, CGM_VALUES_FULL>(L)
                 : L->fmt == CGM_VALUES_F32  ? cgm::pick<double, CGM_VALUES_F32>(L)
                 : L->fmt != CGM_VALUES_DICT ? cgm::pick<double, CGM_VALUES_FULL>(L)
                 : L->n == 1                 ? cgm::pick_bx<double, 1, CGM_VALUES_DICT>(L->bx)
                                             : nullptr;
  return k ? k(L, x, y, p_rows, d, dot_add, red, guard, sy, sms, s) : cudaErrorInvalidValue;
}
