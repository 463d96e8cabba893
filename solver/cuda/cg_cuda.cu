/* Jacobi-PCG on 1..G GPUs of one node with our kernels, alpha and beta kept
 * on the devices. Two iterations (kernels.h):
 *   cgg      (default) the single-reduction CG of Chronopoulos and Gear:
 *            SpMV w = A u with u . w, carrying r . u and r . r, then one
 *            update kernel; one reduction (across GPUs: one flag wait) and
 *            two kernels an iteration, 12 vector passes
 *   classic  the paper's Algorithm 2 fused: SpMV+CG3, CG4(+CG2), CG5; two
 *            reductions and three kernels, 13 vector passes
 *            (CGMODEL_CG=classic; always in the host-staged mode)
 *
 * The matrix is split into segments of consecutive block rows with similar
 * block counts (Sec. 4.1), each sorted on its own GPU. What the SpMV reads
 * from other GPUs is assembled by one of four exchange modes:
 *   nccl  the whole vector by ncclAllGather over equal chunks (segments
 *         padded to the longest, block columns remapped to chunk
 *         positions); scalars by ncclAllReduce
 *   p2p   the whole vector by peer stores from a copy kernel (a peer
 *         memcpy cannot be captured in a graph); every GPU writes its
 *         partial sums into every GPU's state, which adds them in order
 *   halo  only the entries each segment reads, packed straight into the
 *         peers' vectors on a second stream while the interior rows (those
 *         that read nothing foreign) are multiplied; scalars as p2p
 *   host  the paper's way: vector and partial sums through host memory
 *         (x n elements a iteration, Eq. 9), host-driven, no graph
 * Except for host, K iterations of all GPUs are captured in one CUDA graph
 * and the host looks at the state once per graph while the next graph runs
 * (CGMODEL_GRAPHS=0: the same batch enqueued anew each time).
 * Cross-device dependencies: with p2p and halo, flags in device memory that
 * the kernels raise and spin on (cgm_sync in kernels.h; graph edges between
 * devices cost ~15 us each on 4 x H200, CGMODEL_SYNC=events brings them
 * back for comparison); with nccl, its collectives. Two refinements, each
 * with a switch that turns it off (CGMODEL_LATE=0, CGMODEL_LL=0):
 *   - halo: the pack's last block waits for the peers' packs, so the
 *     boundary SpMV, which follows the own pack, starts without a wait;
 *   - cgg: the SpMV sums go to every GPU as ll words (data and tick in one
 *     8-byte store, cgm_cg_state.ll), which cgg polls: no system-scope
 *     fence on either side (2.6 against 1.3 us one way on 4 x H200).
 * One GPU is the same code with nothing to exchange. */
#include <math.h>
#include <nccl.h>
#include <pthread.h>
#include <stdio.h>
#include <time.h>
#include <stdlib.h>
#include <string.h>

#include "common/timer.h"
#include "solver/backend.h"
#include "solver/cuda/cg_cuda.h"
#include "solver/cuda/cuda_util.h"
#include "solver/cuda/kernels.h"

static size_t elem(cgm_precision p) {
  return p == CGM_PREC_SINGLE ? 4 : 8;
}

typedef enum { MODE_ONE, MODE_NCCL, MODE_P2P, MODE_HALO, MODE_HOST } mode_t_;

typedef struct solver {
  int G, K, n;
  mode_t_ mode;
  cgm_precision prec;
  int32_t bounds[CGM_MAX_GPUS + 1]; /* segment block rows */
  int64_t chunk;                    /* rows per all-gather chunk (nccl) */
  cgm_cuda_dev dev[CGM_MAX_GPUS];
  ncclComm_t comm[CGM_MAX_GPUS];
  int have_comm;
  int nccl_stuck;                   /* ncclCommInitAll never returned: see nccl_init */
  int hung;                         /* a watchdog fired: abort, do not wait, on the way out */
  int pack_recorded;                /* ev_pack was recorded in the current capture */
  int flags;                        /* cross-device sync by flags (cgm_sync), not graph edges */
  int graphs;                       /* batches replayed from CUDA graphs (CGMODEL_GRAPHS != 0) */
  int pdl;                          /* kernels overlap their predecessor's tail (launch.cuh) */
  int cgg;                          /* the single-reduction CG (cgm_launch_cgg), not CG4 + CG5 */
  int late;                         /* halo with flags: the pack waits for the peers' packs */
  int ll;                           /* cgg with flags: the SpMV sums travel as ll words */
  unsigned send_mask[CGM_MAX_GPUS]; /* halo: the devices segment g sends to */
  int64_t exchange_elems;           /* per iteration */
  void *host_v;                     /* pinned: host mode */
  double *host_red;                 /* pinned: host mode partials */
#ifdef CGM_TRACE
  unsigned long long *trace[CGM_MAX_GPUS]; /* trace.cuh */
#endif
} solver;

#ifdef CGM_TRACE
static const size_t kTraceBytes = sizeof(unsigned long long) * CGM_TR_N * (CGM_TRACE_LEN + 1);

/* Appends every device's stamps to $CGMODEL_TRACE_FILE: one line per
 * device and kind, "G g kind count stamp...". Diagnostic builds only. */
static void trace_dump(solver *S) {
  const char *path = getenv("CGMODEL_TRACE_FILE");
  FILE *f = path ? fopen(path, "a") : NULL;
  unsigned long long *h = (unsigned long long *)malloc(kTraceBytes);
  for (int g = 0; f && h && g < S->G; g++) {
    if (!S->trace[g] || cudaSetDevice(S->dev[g].dev) ||
        cudaMemcpy(h, S->trace[g], kTraceBytes, cudaMemcpyDeviceToHost))
      continue;
    for (int k = 0; k < CGM_TR_N; k++) {
      unsigned long long c = h[k], first = c > CGM_TRACE_LEN ? c - CGM_TRACE_LEN : 0;
      fprintf(f, "%d %d %d %llu", S->G, g, k, c);
      for (unsigned long long i = first; i < c; i++)
        fprintf(f, " %llu", h[CGM_TR_N + k * CGM_TRACE_LEN + i % CGM_TRACE_LEN]);
      fputc('\n', f);
    }
  }
  free(h);
  if (f) fclose(f);
}
#endif

/* ------------------------------------------------------------- setup --- */

/* Peer access stays enabled for the process's life: remembered here so a
 * second solve does not call again into "already enabled" (an API error
 * compute-sanitizer reports). Solves run one at a time (DESIGN.md). */
static bool peer_on[CGM_MAX_GPUS][CGM_MAX_GPUS];

static cgm_status enable_peers(int G, cgm_error *err) {
  for (int g = 0; g < G; g++) {
    CGM_CUDA_TRY(err, cudaSetDevice(g));
    for (int k = 0; k < G; k++) {
      if (k == g) continue;
      int ok = 0;
      CGM_CUDA_TRY(err, cudaDeviceCanAccessPeer(&ok, g, k));
      if (!ok)
        return cgm_fail(err, CGM_EINPUT,
                        "peer access is unavailable between GPU %d and GPU %d: use --exchange "
                        "nccl or --exchange host",
                        g, k);
      if (peer_on[g][k]) continue;
      cudaError_t e = cudaDeviceEnablePeerAccess(k, 0);
      if (e == cudaErrorPeerAccessAlreadyEnabled) /* by someone else in this process */
        (void)cudaGetLastError();
      else
        CGM_CUDA_TRY(err, e);
      peer_on[g][k] = true;
    }
  }
  return CGM_OK;
}

/* Host-side layouts of one segment: the whole segment (global columns), or
 * with a halo its interior and boundary rows over [own | halo] columns. */
typedef struct seg_host {
  cgm_bcsr A, B;
  cgm_halo h;
  int64_t v_len, v_off;
  int32_t halo_start; /* halo: its first block column in the local vector */
} seg_host;

static void seg_free(seg_host *s) {
  cgm_bcsr_free(&s->A);
  cgm_bcsr_free(&s->B);
  cgm_halo_free(&s->h);
}

static cgm_status seg_build(const cgm_csr *A, const solver *S, cgm_bcsr_params p, int g,
                            seg_host *s, cgm_error *err) {
  memset(s, 0, sizeof *s);
  const int32_t b0 = S->bounds[g], b1 = S->bounds[g + 1];
  const int64_t nb_all = ((int64_t)A->nrows + p.n - 1) / p.n;
  if (S->mode == MODE_NCCL) { /* equal chunks for the all-gather */
    cgm_status st = cgm_bcsr_build(A, b0, b1, p, &s->A, err);
    if (st) return st;
    cgm_chunk_remap(&s->A, S->bounds, S->G, (int32_t)(S->chunk / p.n));
    s->v_len = S->chunk * S->G;
    s->v_off = S->chunk * g;
    return CGM_OK;
  }
  if (S->mode != MODE_HALO) {
    s->v_len = nb_all * p.n;
    s->v_off = (int64_t)b0 * p.n;
    return cgm_bcsr_build(A, b0, b1, p, &s->A, err);
  }
  cgm_status st = cgm_halo_build(A, p.n, S->bounds, S->G, g, &s->h, err);
  if (!st) st = cgm_bcsr_build_rows(A, s->h.interior, s->h.ninterior, b0, p, &s->A, err);
  if (!st) st = cgm_bcsr_build_rows(A, s->h.boundary, s->h.nboundary, b0, p, &s->B, err);
  if (st) return st;
  /* The halo starts past the own rows padded to 16 bytes: the vector
   * kernels (CG1, CG5, cgg) write v in 16-byte packs, and the last segment's rows
   * need not fill its last pack; a halo right behind them would be
   * overwritten while the peers deliver it. n divides the padded length. */
  s->halo_start = (int32_t)(cgm_cuda_vec_len((int64_t)(b1 - b0) * p.n) / p.n);
  cgm_halo_remap(&s->h, s->halo_start, &s->A);
  cgm_halo_remap(&s->h, s->halo_start, &s->B);
  s->v_len = ((int64_t)s->halo_start + s->h.nhalo) * p.n;
  s->v_off = 0;
  return CGM_OK;
}

static int64_t seg_bytes(const seg_host *s, int64_t rows, cgm_precision prec) {
  int64_t halo = s->v_len - rows;
  int64_t b =
      cgm_footprint_bytes(cgm_cuda_vec_len(rows), s->A.nblocks_padded,
                          (int64_t)s->A.nslices * s->A.p.by, s->A.p.n, prec, halo > 0 ? halo : 0);
  if (s->B.nbrows)
    b += s->B.nblocks_padded * (s->B.p.n * s->B.p.n * (int64_t)elem(prec) + 4) +
         (int64_t)s->B.nslices * s->B.p.by * 4 + ((int64_t)s->B.nslices + 1) * 8;
  return b + (int64_t)s->h.nhalo * s->A.p.n * 4; /* send lists */
}

/* Send lists of the halo mode: segment j sends to k the entries of k's halo
 * it owns, packed straight into k's vector after k's own rows. */
static cgm_status setup_halo_sends(solver *S, const seg_host *seg, cgm_error *err) {
  const int n = S->n;
  for (int j = 0; j < S->G; j++) {
    cgm_cuda_dev *d = &S->dev[j];
    int64_t total = 0;
    for (int k = 0; k < S->G; k++)
      total += (int64_t)(seg[k].h.owner[j + 1] - seg[k].h.owner[j]) * n;
    int32_t *idx = (int32_t *)malloc(sizeof(int32_t) * (size_t)(total > 0 ? total : 1));
    if (!idx) return cgm_fail(err, CGM_ERUNTIME, "out of host memory");
    memset(&d->pack, 0, sizeof d->pack);
    int64_t e = 0;
    int nd = 0;
    for (int k = 0; k < S->G; k++) {
      const cgm_halo *h = &seg[k].h;
      int32_t c0 = h->owner[j], c1 = h->owner[j + 1];
      if (c1 == c0) continue;
      d->pack.off[nd] = e;
      for (int32_t c = c0; c < c1; c++)
        for (int t = 0; t < n; t++) idx[e++] = (h->cols[c] - S->bounds[j]) * n + t;
      const cgm_cuda_dev *dk = &S->dev[k];
      d->pack.dst[nd] = (char *)dk->v + ((int64_t)seg[k].halo_start + c0) * n * elem(S->prec);
      S->send_mask[j] |= 1u << k;
      nd++;
    }
    d->pack.off[nd] = e;
    d->pack.ndst = nd;
    S->exchange_elems += e;
    cudaError_t ce = cudaSetDevice(d->dev);
    if (ce == cudaSuccess)
      ce = cudaMalloc((void **)&d->send_idx, sizeof(int32_t) * (size_t)(e > 0 ? e : 1));
    if (ce == cudaSuccess) {
      d->bytes += sizeof(int32_t) * (e > 0 ? e : 1);
      ce = cudaMemcpyAsync(d->send_idx, idx, sizeof(int32_t) * (size_t)e, cudaMemcpyHostToDevice,
                           d->stream);
    }
    if (ce == cudaSuccess) ce = cudaStreamSynchronize(d->stream);
    free(idx);
    CGM_CUDA_TRY(err, ce);
    d->pack.idx = d->send_idx;
  }
  return CGM_OK;
}

/* --------------------------------------------------------- iteration --- */

/* Where device g's reduction results go, and how many partials a consumer
 * adds: every device's state (p2p, halo), the own total (one GPU), or the
 * own local partial that NCCL or the host reduces. */
static void outputs(const solver *S, int g, int slot, int which, cgm_out *o) {
  o->n = 0;
  o->carry = NULL;
  if (S->mode == MODE_P2P || S->mode == MODE_HALO) {
    for (int k = 0; k < S->G; k++) o->p[o->n++] = &S->dev[k].state->slot[g][slot].pq + which;
  } else if (S->mode == MODE_ONE) {
    o->p[o->n++] = &S->dev[g].state->slot[0][slot].pq + which;
  } else {
    o->p[o->n++] = &S->dev[g].state->local[slot].pq + which;
  }
}

static int nparts(const solver *S) {
  return S->mode == MODE_P2P || S->mode == MODE_HALO ? S->G : 1;
}

/* Flags (cgm_sync): device g waits for the `wait_kind` flags of the
 * devices in wait_mask to reach tick(wait_off), and raises its own
 * `raise_kind` flag in the states of raise_mask to tick(raise_off). */
static cgm_sync sync_for(const solver *S, int g, unsigned wait_mask, int wait_kind, int wait_off,
                         unsigned raise_mask, int raise_kind, int raise_off) {
  cgm_sync y;
  memset(&y, 0, sizeof y);
  y.overlap = S->pdl;
  if (!S->flags) return y;
  y.wait_mask = wait_mask;
  y.wait_kind = wait_kind;
  y.wait_off = wait_off;
  y.raise_off = raise_off;
  for (int k = 0; k < S->G; k++)
    if ((raise_mask >> k) & 1u) y.raise[y.nraise++] = &S->dev[k].state->flag[raise_kind][g];
  return y;
}

static unsigned all_mask(const solver *S) {
  return (1u << S->G) - 1u;
}

/* The devices whose halo packs write into device g's vector. */
static unsigned recv_mask(const solver *S, int g) {
  unsigned m = 0;
  for (int j = 0; j < S->G; j++)
    if ((S->send_mask[j] >> g) & 1u) m |= 1u << j;
  return m;
}

/* Halo with flags: device g's pack also raises g's own flag, which g's
 * boundary SpMV waits for (spmv_all). Not with S->late: there the boundary
 * SpMV follows the own pack by an event and waits for no flag. */
static unsigned own_pack_flag(const solver *S, int g) {
  return S->flags && !S->late && S->send_mask[g] ? 1u << g : 0u;
}

/* Every device waits for the latest `which` event of all others. */
static cudaError_t all_to_all(solver *S, cudaEvent_t cgm_cuda_dev::*which) {
  if (S->G == 1 || S->flags) return cudaSuccess;
  for (int g = 0; g < S->G; g++) {
    cudaError_t e = cudaSetDevice(S->dev[g].dev);
    if (e == cudaSuccess) e = cudaEventRecord(S->dev[g].*which, S->dev[g].stream);
    if (e) return e;
  }
  for (int k = 0; k < S->G; k++) {
    cudaError_t e = cudaSetDevice(S->dev[k].dev);
    for (int g = 0; g < S->G && e == cudaSuccess; g++)
      if (g != k) e = cudaStreamWaitEvent(S->dev[k].stream, S->dev[g].*which, 0);
    if (e) return e;
  }
  return cudaSuccess;
}

static cudaError_t nccl_allreduce(solver *S, int slot, int which, int count) {
  ncclDataType_t t = ncclFloat64;
  if (ncclGroupStart() != ncclSuccess) return cudaErrorUnknown;
  for (int g = 0; g < S->G; g++) {
    cgm_cg_state *st = S->dev[g].state;
    if (ncclAllReduce(&st->local[slot].pq + which, &st->slot[0][slot].pq + which, count, t, ncclSum,
                      S->comm[g], S->dev[g].stream) != ncclSuccess) {
      ncclGroupEnd();
      return cudaErrorUnknown;
    }
  }
  return ncclGroupEnd() == ncclSuccess ? cudaSuccess : cudaErrorUnknown;
}

/* The whole-vector or halo exchange after CG5 or cgg at `slot` (and once after CG1,
 * slot -1). */
static cudaError_t exchange(solver *S, int slot) {
  const size_t w = elem(S->prec);
  const int n = S->n;
  if (S->mode == MODE_P2P) {
    for (int g = 0; g < S->G; g++) {
      cgm_cuda_dev *d = &S->dev[g];
      void *dst[CGM_MAX_GPUS];
      int nd = 0;
      for (int k = 0; k < S->G; k++)
        if (k != g) dst[nd++] = (char *)S->dev[k].v + d->v_off * w;
      cgm_sync y = sync_for(S, g, 0, 0, 0, all_mask(S) & ~(1u << g), CGM_FLAG_VEC, slot + 2);
      cudaError_t e = cudaSetDevice(d->dev);
      if (e == cudaSuccess)
        e = cgm_launch_scatter((char *)d->v + d->v_off * w, cgm_cuda_vec_len(d->rows) * (int64_t)w,
                               dst, nd, d->state, &y, cgm_cuda_red(d, 4), d->sms, d->stream);
      if (e) return e;
    }
    return all_to_all(S, &cgm_cuda_dev::ev_c);
  }
  if (S->mode == MODE_NCCL) {
    ncclDataType_t t = S->prec == CGM_PREC_SINGLE ? ncclFloat32 : ncclFloat64;
    if (ncclGroupStart() != ncclSuccess) return cudaErrorUnknown;
    for (int g = 0; g < S->G; g++) { /* in place: the own chunk is at g * chunk */
      char *v = (char *)S->dev[g].v;
      if (ncclAllGather(v + S->chunk * g * w, v, (size_t)S->chunk, t, S->comm[g],
                        S->dev[g].stream) != ncclSuccess) {
        ncclGroupEnd();
        return cudaErrorUnknown;
      }
    }
    return ncclGroupEnd() == ncclSuccess ? cudaSuccess : cudaErrorUnknown;
  }
  (void)n;
  if (S->mode == MODE_HALO) { /* pack on the comm stream, after the own CG5 or cgg */
    for (int g = 0; g < S->G; g++) {
      cgm_cuda_dev *d = &S->dev[g];
      cgm_sync y =
          sync_for(S, g, 0, 0, 0, S->send_mask[g] | own_pack_flag(S, g), CGM_FLAG_VEC, slot + 2);
      if (S->late) { /* the pack ends once the peers' packs are in here too */
        y.wait_mask = recv_mask(S, g);
        y.wait_kind = CGM_FLAG_VEC;
        y.wait_off = slot + 2;
      }
      cudaError_t e = cudaSetDevice(d->dev);
      if (e == cudaSuccess) e = cudaEventRecord(d->ev_fork, d->stream);
      if (e == cudaSuccess) e = cudaStreamWaitEvent(d->comm, d->ev_fork, 0);
      if (e == cudaSuccess)
        e = cgm_launch_pack(S->prec, d->v, &d->pack, d->state, &y, cgm_cuda_red(d, 4), d->sms,
                            d->comm);
      if (e == cudaSuccess) e = cudaEventRecord(d->ev_pack, d->comm);
      if (e) return e;
    }
    S->pack_recorded = 1;
  }
  return cudaSuccess;
}

/* SpMV + CG3 on every device, the reduction of p . A p (cgg: u . A u, with
 * the carried r . u and r . r). */
static cudaError_t spmv_all(solver *S, int slot) {
  for (int g = 0; g < S->G; g++) {
    cgm_cuda_dev *d = &S->dev[g];
    cudaError_t e = cudaSetDevice(d->dev);
    if (e) return e;
    cgm_out out = {};
    outputs(S, g, slot, 0, &out);
    /* The single-reduction CG's r . u and r . r partials (its update's, or
     * CG1's) ride with u . A u. */
    if (S->cgg) out.carry = &d->state->local[slot].rz;
    /* With the ll words the sums need no PQ flag (no system-scope fence on
     * either side): cgg waits for the words themselves. */
    if (S->ll) {
      for (int k = 0; k < S->G; k++) out.p[k] = (double *)S->dev[k].state->ll[g];
      out.ll = S->G;
      out.n = 0;
    }
    void *v_own = (char *)d->v + d->v_off * elem(S->prec);
    /* The sum p . A p goes to every device, with the PQ flag. */
    if (S->mode != MODE_HALO) {
      cgm_sync y = sync_for(S, g, all_mask(S) & ~(1u << g), CGM_FLAG_VEC, slot + 1, all_mask(S),
                            CGM_FLAG_PQ, slot + 1);
      if (S->ll) y.nraise = 0;
      e = cgm_launch_spmv(&d->A.L, S->prec, d->v, d->u, v_own, &out, NULL, cgm_cuda_red(d, 0),
                          d->state, &y, d->sms, d->stream);
    } else {
      /* Interior rows first (no foreign data), then the boundary rows once
       * every neighbour's halo has arrived. The boundary launch finishes
       * the sum; without boundary rows the interior one does, and a segment
       * with neither still launches (one block) to deliver its zero. */
      const bool last_is_a = d->A.present && !d->B.present;
      cgm_out tmp = {};
      tmp.p[0] = d->dot_tmp;
      tmp.n = 1;
      cgm_sync ya = sync_for(S, g, 0, 0, 0, last_is_a ? all_mask(S) : 0u, CGM_FLAG_PQ, slot + 1);
      /* No PDL into the interior SpMV: scheduled early, its full grid would
       * hold the SMs when the pack (after CG5 or cgg, on the other stream) becomes
       * ready, and the pack would wait for the whole interior SpMV. */
      ya.overlap = 0;
      if (S->ll) ya.nraise = 0;
      /* S->late: the own pack's last block waits for the peers' packs
       * (exchange), and the boundary SpMV follows the own pack (the event
       * below): no wait at its start (it cost 3-4 us there, a system-scope
       * fence and a poll per block), and nothing resident spins while a
       * pack needs SMs. The pack's wait is over long before the interior
       * SpMV is (docs/perf.md, tenth session). */
      cgm_sync yb = sync_for(S, g, S->late ? 0u : recv_mask(S, g), CGM_FLAG_VEC, slot + 1,
                             all_mask(S), CGM_FLAG_PQ, slot + 1);
      /* Without S->late (CGMODEL_LATE=0): its blocks spin until the peers'
       * packs arrive, and the peers spin on ours: one block per SM stays free
       * for the own pack. It also waits for the own pack, so CG4's blocks
       * (full occupancy, spinning on the peers' sums, let in by PDL once this
       * wait is over) never take the SMs from a pack still pending here. */
      yb.leave = yb.wait_mask ? 1 : 0;
      if (yb.wait_mask) yb.wait_mask |= own_pack_flag(S, g);
      if (S->ll) yb.nraise = 0;
      if (e == cudaSuccess && d->A.present)
        e = cgm_launch_spmv(&d->A.L, S->prec, d->v, d->u, v_own, last_is_a ? &out : &tmp, NULL,
                            cgm_cuda_red(d, 0), d->state, &ya, d->sms, d->stream);
      /* The first iteration of a graph reads halos that an earlier graph
       * (or the set-up) delivered before this graph could start. */
      for (int j = 0; j < S->G && e == cudaSuccess && S->pack_recorded && !S->flags; j++) {
        const cgm_cuda_dev *dj = &S->dev[j];
        for (int k = 0; k < dj->pack.ndst; k++)
          if (dj->pack.dst[k] >= d->v &&
              (char *)dj->pack.dst[k] < (char *)d->v + d->v_len * elem(S->prec))
            e = cudaStreamWaitEvent(d->stream, dj->ev_pack, 0);
      }
      if (e == cudaSuccess && S->late && S->pack_recorded)
        e = cudaStreamWaitEvent(d->stream, d->ev_pack, 0);
      if (e == cudaSuccess && (d->B.present || (S->flags && !d->A.present)))
        e = cgm_launch_spmv(&d->B.L, S->prec, d->v, d->u, v_own, &out,
                            d->A.present ? d->dot_tmp : NULL, cgm_cuda_red(d, 3), d->state, &yb,
                            d->sms, d->stream);
    }
    if (e) return e;
  }
  if (S->mode == MODE_NCCL) return nccl_allreduce(S, slot, 0, S->cgg ? 3 : 1);
  return all_to_all(S, &cgm_cuda_dev::ev_a);
}

static cudaError_t cg4_all(solver *S, int slot, int prev) {
  for (int g = 0; g < S->G; g++) {
    cgm_cuda_dev *d = &S->dev[g];
    cgm_out out = {};
    outputs(S, g, slot, 1, &out);
    cgm_sync y =
        sync_for(S, g, all_mask(S), CGM_FLAG_PQ, slot + 1, all_mask(S), CGM_FLAG_RZ, slot + 1);
    cudaError_t e = cudaSetDevice(d->dev);
    if (e == cudaSuccess)
      e = cgm_launch_cg4(S->prec, d->rows, d->state, nparts(S), slot, prev, d->x, d->r,
                         (char *)d->v + d->v_off * elem(S->prec), d->u, d->dinv, &out,
                         cgm_cuda_red(d, 1), &y, d->sms, d->stream);
    if (e) return e;
  }
  if (S->mode == MODE_NCCL) return nccl_allreduce(S, slot, 1, 2);
  return all_to_all(S, &cgm_cuda_dev::ev_b);
}

static cudaError_t cg5_all(solver *S, int slot, int prev) {
  for (int g = 0; g < S->G; g++) {
    cgm_cuda_dev *d = &S->dev[g];
    cgm_sync y = sync_for(S, g, all_mask(S), CGM_FLAG_RZ, slot + 1, 0, 0, 0);
    cudaError_t e = cudaSetDevice(d->dev);
    if (e == cudaSuccess)
      e = cgm_launch_cg5(S->prec, d->rows, d->state, nparts(S), slot, prev,
                         (char *)d->v + d->v_off * elem(S->prec), d->r, d->dinv, &y, d->sms,
                         d->stream);
    if (e) return e;
  }
  return exchange(S, slot);
}

/* The single-reduction CG's update on every device, after all SpMV sums
 * (the PQ flags); its own partials of the next r . u and r . r stay local
 * until the next SpMV carries them. */
static cudaError_t cgg_all(solver *S, int slot, int prev) {
  for (int g = 0; g < S->G; g++) {
    cgm_cuda_dev *d = &S->dev[g];
    cgm_out out = {};
    out.p[0] = &d->state->local[(slot + 1) % S->K].rz;
    out.n = 1;
    cgm_sync y = sync_for(S, g, all_mask(S), CGM_FLAG_PQ, slot + 1, 0, 0, 0);
    y.ll = S->ll;
    cudaError_t e = cudaSetDevice(d->dev);
    if (e == cudaSuccess)
      e = cgm_launch_cgg(S->prec, d->rows, d->state, nparts(S), slot, prev, d->x,
                         (char *)d->v + d->v_off * elem(S->prec), d->r /* p */, d->u, d->s, d->dinv,
                         &out, cgm_cuda_red(d, 1), &y, d->sms, d->stream);
    if (e) return e;
  }
  return exchange(S, slot);
}

static cudaError_t iteration(solver *S, int slot) {
  const int prev = (slot + S->K - 1) % S->K;
  cudaError_t e = spmv_all(S, slot);
  if (S->cgg) return e == cudaSuccess ? cgg_all(S, slot, prev) : e;
  if (e == cudaSuccess) e = cg4_all(S, slot, prev);
  if (e == cudaSuccess) e = cg5_all(S, slot, prev);
  return e;
}

/* K iterations of every device, enqueued on the streams; device 0's stream
 * leads, the others fork from and join into it. Ends with device 0's state
 * copied to host_state[gi] and device 0 current. */
static cudaError_t enqueue_batch(solver *S, int gi) {
  cgm_cuda_dev *d0 = &S->dev[0];
  S->pack_recorded = 0;
  cudaError_t e = cudaSetDevice(d0->dev);
  if (e == cudaSuccess) e = cudaEventRecord(d0->ev_fork, d0->stream);
  for (int g = 0; g < S->G && e == cudaSuccess; g++) {
    e = cudaSetDevice(S->dev[g].dev);
    if (e == cudaSuccess && g > 0) e = cudaStreamWaitEvent(S->dev[g].stream, d0->ev_fork, 0);
    if (e == cudaSuccess && S->mode == MODE_HALO)
      e = cudaStreamWaitEvent(S->dev[g].comm, d0->ev_fork, 0);
  }
  for (int i = 0; i < S->K && e == cudaSuccess; i++) e = iteration(S, i);
  /* Join: comm streams into their device stream, every device into 0. */
  for (int g = 0; g < S->G && e == cudaSuccess; g++) {
    cgm_cuda_dev *d = &S->dev[g];
    e = cudaSetDevice(d->dev);
    if (e == cudaSuccess && S->mode == MODE_HALO) {
      e = cudaEventRecord(d->ev_pack, d->comm);
      if (e == cudaSuccess) e = cudaStreamWaitEvent(d->stream, d->ev_pack, 0);
    }
    /* Everything of this batch on the device is done: the next ticks (and
     * the single-reduction CG's iteration count). */
    if (e == cudaSuccess && (S->flags || S->cgg)) e = cgm_launch_epoch(d->state, d->stream);
    if (e == cudaSuccess && g > 0) {
      e = cudaEventRecord(d->ev_c, d->stream);
      if (e == cudaSuccess) e = cudaSetDevice(d0->dev);
      if (e == cudaSuccess) e = cudaStreamWaitEvent(d0->stream, d->ev_c, 0);
    }
  }
  if (e == cudaSuccess) e = cudaSetDevice(d0->dev);
  if (e == cudaSuccess)
    e = cudaMemcpyAsync(d0->host_state[gi], d0->state, sizeof(cgm_cg_state), cudaMemcpyDeviceToHost,
                        d0->stream);
  return e;
}

/* The batch captured once in a CUDA graph (two, one per host_state
 * buffer), unless CGMODEL_GRAPHS=0: then every batch is enqueued anew
 * (compute-sanitizer's racecheck cannot follow graphs spanning devices). */
static cgm_status capture(solver *S, cgm_error *err) {
  cgm_cuda_dev *d0 = &S->dev[0];
  if (!S->graphs) return CGM_OK;
  for (int gi = 0; gi < 2; gi++) {
    cudaGraph_t graph;
    CGM_CUDA_TRY(err, cudaSetDevice(d0->dev));
    /* Thread-local: NCCL's own threads make CUDA calls while we capture. */
    CGM_CUDA_TRY(err, cudaStreamBeginCapture(d0->stream, cudaStreamCaptureModeThreadLocal));
    cudaError_t e = enqueue_batch(S, gi);
    cudaSetDevice(d0->dev);
    graph = NULL;
    cudaError_t e2 = cudaStreamEndCapture(d0->stream, &graph); /* always: leaves capture mode */
    if (e == cudaSuccess) e = e2;
    if (e == cudaSuccess) e = cudaGraphInstantiate(&d0->graph_exec[gi], graph, 0);
    if (graph) cudaGraphDestroy(graph);
    CGM_CUDA_TRY(err, e);
  }
  return CGM_OK;
}

static cudaError_t launch_batch(solver *S, int gi) {
  if (!S->graphs) return enqueue_batch(S, gi);
  return cudaGraphLaunch(S->dev[0].graph_exec[gi], S->dev[0].stream);
}

static void stop_reason(const cgm_cg_state *h, double bnorm, double tol, cgm_solve_result *res) {
  switch (h->done) {
  case CGM_RUN_BREAKDOWN:
    snprintf(res->stop_reason, sizeof res->stop_reason,
             "CG breakdown at iteration %d: p'Ap (or r'D^-1 r) = %.3g <= 0, the matrix is not "
             "positive definite",
             h->iter + 1, h->bad);
    break;
  case CGM_RUN_NONFINITE:
    snprintf(res->stop_reason, sizeof res->stop_reason,
             "NaN or Inf in a reduction at iteration %d (value %g)", h->iter + 1, h->bad);
    break;
  case CGM_RUN_TIMEOUT:
    snprintf(res->stop_reason, sizeof res->stop_reason,
             "a GPU waited more than %.3g s for another GPU's data at iteration %d; the solve was "
             "abandoned",
             h->wait_ns * 1e-9, h->iter + 1);
    break;
  case CGM_RUN_MAXITER:
    snprintf(res->stop_reason, sizeof res->stop_reason,
             "maximum of %d iterations reached with relative residual %.3g (target %.3g)",
             h->maxiter, sqrt(h->rr_last) / bnorm, tol);
    break;
  default:
    break;
  }
}

/* ---------------------------------------------------------- watchdogs --- */

/* A solve must not hang: the exchange (NCCL in particular, which hung on the
 * 4 x H200 node) gets CGMODEL_EXCHANGE_TIMEOUT seconds (default 120) without
 * progress before the solve gives up with an error. */
static double exchange_timeout(void) {
  const char *v = getenv("CGMODEL_EXCHANGE_TIMEOUT");
  double t = v ? atof(v) : 0.0;
  return t > 0 ? t : 120.0;
}

/* The host's deadline for a graph. With flags the devices watch each other
 * (cgm_cg_state.wait_ns, half the exchange timeout) and end the run
 * themselves, which the host reports with the iteration; its own deadline
 * is the last resort. */
static double host_timeout(const solver *S) {
  return exchange_timeout() + (S->flags ? 5.0 : 0.0);
}

/* cudaEventSynchronize with a deadline: cudaErrorTimeout when it passes. */
static cudaError_t event_wait(cudaEvent_t ev, double timeout_s) {
  double end = cgm_now() + timeout_s;
  for (;;) {
    cudaError_t e = cudaEventQuery(ev);
    if (e != cudaErrorNotReady) return e;
    if (cgm_now() > end) return cudaErrorTimeout;
    struct timespec ts = {0, 20000}; /* 20 us */
    nanosleep(&ts, NULL);
  }
}

typedef struct {
  ncclComm_t *comms;
  int G;
  ncclResult_t res;
  volatile int done;
} nccl_init_job;

static void *nccl_init_thread(void *arg) {
  nccl_init_job *j = (nccl_init_job *)arg;
  int devs[CGM_MAX_GPUS];
  for (int g = 0; g < j->G; g++) devs[g] = g;
  j->res = ncclCommInitAll(j->comms, j->G, devs);
  __atomic_store_n(&j->done, 1, __ATOMIC_RELEASE);
  return NULL;
}

/* ncclCommInitAll under the exchange timeout. If it does not return, the
 * thread is left behind (NCCL offers no way to cancel it) and the error says
 * which exchange to use instead. */
static cgm_status nccl_init(solver *S, cgm_error *err) {
  nccl_init_job *j = (nccl_init_job *)calloc(1, sizeof *j);
  if (!j) return cgm_fail(err, CGM_ERUNTIME, "out of host memory");
  j->comms = S->comm;
  j->G = S->G;
  pthread_t th;
  if (pthread_create(&th, NULL, nccl_init_thread, j) != 0) {
    free(j);
    return cgm_fail(err, CGM_ERUNTIME, "cannot start a thread for NCCL's set-up");
  }
  double end = cgm_now() + exchange_timeout();
  while (!__atomic_load_n(&j->done, __ATOMIC_ACQUIRE) && cgm_now() < end) {
    struct timespec ts = {0, 1000000};
    nanosleep(&ts, NULL);
  }
  if (!__atomic_load_n(&j->done, __ATOMIC_ACQUIRE)) {
    /* j and S->comm stay allocated (the thread still writes them), and so
     * do the device buffers: freeing them would synchronise with whatever
     * NCCL left running and hang the caller, which must rather see this
     * error and end the process. */
    pthread_detach(th);
    S->nccl_stuck = 1;
    return cgm_fail(err, CGM_ERUNTIME,
                    "NCCL did not set up its communicators for %d GPUs in %.0f s; use --exchange "
                    "halo (or p2p) instead of nccl",
                    S->G, exchange_timeout());
  }
  pthread_join(th, NULL);
  ncclResult_t r = j->res;
  free(j);
  if (r != ncclSuccess)
    return cgm_fail(err, CGM_ERUNTIME, "NCCL error %s setting up %d GPUs", ncclGetErrorString(r),
                    S->G);
  S->have_comm = 1;
  return CGM_OK;
}

/* The graph loop: graph g+1 is queued before the host waits for graph g.
 * Graph g copies device 0's state into host_state[g % 2] and is followed by
 * event ev[g % 3]; its time is ev[(g - 1) % 3] -> ev[g % 3]. */
static cgm_status graph_loop(solver *S, const cgm_problem *pb, cgm_solve_result *res,
                             const cgm_cg_state **fin, cgm_error *err) {
  cgm_cuda_dev *d = &S->dev[0];
  const int K = S->K;
  int nbatch_max = pb->maxiter / K + 3;
  double *batch = (double *)malloc(((size_t)nbatch_max + 1) * sizeof *batch);
  int *active = (int *)malloc(((size_t)nbatch_max + 1) * sizeof *active);
  cgm_status st = CGM_OK;
  int nb = 0, last_iter = 0;
  double t_start = cgm_now();
  if (!batch || !active) {
    st = cgm_fail(err, CGM_ERUNTIME, "out of host memory");
    goto out;
  }
  CGM_CUDA_GOTO(st, err, out, cudaSetDevice(d->dev));
  CGM_CUDA_GOTO(st, err, out, cudaEventRecord(d->ev[2], d->stream));
  CGM_CUDA_GOTO(st, err, out, launch_batch(S, 0));
  CGM_CUDA_GOTO(st, err, out, cudaEventRecord(d->ev[0], d->stream));
  for (int g = 0;; g++) {
    if (g + 1 < nbatch_max) {
      CGM_CUDA_GOTO(st, err, out, launch_batch(S, (g + 1) % 2));
      CGM_CUDA_GOTO(st, err, out, cudaEventRecord(d->ev[(g + 1) % 3], d->stream));
    }
    {
      cudaError_t we =
          S->G > 1 ? event_wait(d->ev[g % 3], host_timeout(S)) : cudaEventSynchronize(d->ev[g % 3]);
      if (we == cudaErrorTimeout) {
        st = cgm_fail(err, CGM_ERUNTIME,
                      "the %d GPUs made no progress for %.0f s (%s exchange); the solve was "
                      "abandoned: use --exchange halo",
                      S->G, host_timeout(S), cgm_exchange_name(pb->opts.exchange));
        S->hung = 1;
        goto out;
      }
      CGM_CUDA_GOTO(st, err, out, we);
    }
    float ms = 0;
    CGM_CUDA_GOTO(st, err, out, cudaEventElapsedTime(&ms, d->ev[(g + 2) % 3], d->ev[g % 3]));
    const cgm_cg_state *hs = d->host_state[g % 2];
    batch[nb] = ms * 1e-3;
    active[nb] = hs->iter - last_iter;
    last_iter = hs->iter;
    nb++;
    if (hs->done || g + 1 >= nbatch_max) {
      *fin = hs;
      break;
    }
  }
  CGM_CUDA_GOTO(st, err, out, cudaStreamSynchronize(d->stream));
  res->time_solve_s = cgm_now() - t_start;
  {
    /* Median over full graphs after the first (warm-up), per iteration. */
    double *tt = (double *)malloc(((size_t)nb + 1) * sizeof *tt);
    int nt = 0, isum = 0;
    double tsum = 0.0;
    for (int b = 0; b < nb; b++) {
      tsum += batch[b];
      isum += active[b];
      if (b > 0 && active[b] == K && tt) tt[nt++] = batch[b] / K;
    }
    res->time_per_iter_s = nt > 0 ? cgm_median(tt, nt) : (isum > 0 ? tsum / isum : 0.0);
    free(tt);
  }
out:
  free(batch);
  free(active);
  return st;
}

/* The paper's host-driven loop (Algorithm 2 with Algorithm 1's reductions):
 * partial sums and the vector go through pinned host memory. */
static cudaError_t host_reduce(solver *S, int slot, int which, int count) {
  for (int g = 0; g < S->G; g++) {
    cgm_cuda_dev *d = &S->dev[g];
    cudaError_t e = cudaSetDevice(d->dev);
    if (e == cudaSuccess)
      e = cudaMemcpyAsync(S->host_red + 3 * g, &d->state->local[slot].pq + which,
                          sizeof(double) * count, cudaMemcpyDeviceToHost, d->stream);
    if (e) return e;
  }
  for (int g = 0; g < S->G; g++) { /* SyncGPUs() */
    cudaError_t e = cudaStreamSynchronize(S->dev[g].stream);
    if (e) return e;
  }
  double tot[3] = {0, 0, 0};
  for (int g = 0; g < S->G; g++)
    for (int c = 0; c < count; c++) tot[c] += S->host_red[3 * g + c];
  for (int g = 0; g < S->G; g++) {
    cgm_cuda_dev *d = &S->dev[g];
    cudaError_t e = cudaSetDevice(d->dev);
    if (e == cudaSuccess)
      e = cudaMemcpyAsync(&d->state->slot[0][slot].pq + which, tot, sizeof(double) * count,
                          cudaMemcpyHostToDevice, d->stream);
    if (e == cudaSuccess) e = cudaStreamSynchronize(d->stream); /* tot is on the stack */
    if (e) return e;
  }
  return cudaSuccess;
}

static cudaError_t host_exchange(solver *S) {
  const size_t w = elem(S->prec);
  for (int g = 0; g < S->G; g++) { /* v_host,i <- v_i */
    cgm_cuda_dev *d = &S->dev[g];
    cudaError_t e = cudaSetDevice(d->dev);
    if (e == cudaSuccess)
      e = cudaMemcpyAsync((char *)S->host_v + d->v_off * w, (char *)d->v + d->v_off * w,
                          (size_t)d->rows * w, cudaMemcpyDeviceToHost, d->stream);
    if (e) return e;
  }
  for (int g = 0; g < S->G; g++) { /* SyncGPUs() */
    cudaError_t e = cudaStreamSynchronize(S->dev[g].stream);
    if (e) return e;
  }
  for (int g = 0; g < S->G; g++) { /* v <- v_host,j for j != i */
    cgm_cuda_dev *d = &S->dev[g];
    cudaError_t e = cudaSetDevice(d->dev);
    for (int j = 0; j < S->G && e == cudaSuccess; j++) {
      if (j == g) continue;
      const cgm_cuda_dev *dj = &S->dev[j];
      e = cudaMemcpyAsync((char *)d->v + dj->v_off * w, (char *)S->host_v + dj->v_off * w,
                          (size_t)dj->rows * w, cudaMemcpyHostToDevice, d->stream);
    }
    if (e) return e;
  }
  return cudaSuccess;
}

static cgm_status host_loop(solver *S, const cgm_problem *pb, cgm_solve_result *res,
                            cgm_cg_state *fin, cgm_error *err) {
  const size_t w = elem(S->prec);
  int ntimed = pb->maxiter < CGM_MAX_TIMED ? pb->maxiter : CGM_MAX_TIMED, it = 0;
  double *times = (double *)malloc(((size_t)ntimed + 1) * sizeof *times);
  cgm_status st = CGM_OK;
  double t0 = cgm_now(), tprev = t0;
  if (!times) return cgm_fail(err, CGM_ERUNTIME, "out of host memory");
  for (;;) {
    const int slot = it % 2, prev = 1 - slot;
    for (int g = 0; g < S->G; g++) {
      cgm_cuda_dev *d = &S->dev[g];
      cgm_out o = {};
      outputs(S, g, slot, 0, &o);
      CGM_CUDA_GOTO(st, err, out, cudaSetDevice(d->dev));
      CGM_CUDA_GOTO(st, err, out,
                    cgm_launch_spmv(&d->A.L, S->prec, d->v, d->u, (char *)d->v + d->v_off * w, &o,
                                    NULL, cgm_cuda_red(d, 0), d->state, NULL, d->sms, d->stream));
    }
    CGM_CUDA_GOTO(st, err, out, host_reduce(S, slot, 0, 1));
    for (int g = 0; g < S->G; g++) {
      cgm_cuda_dev *d = &S->dev[g];
      cgm_out o = {};
      outputs(S, g, slot, 1, &o);
      CGM_CUDA_GOTO(st, err, out, cudaSetDevice(d->dev));
      CGM_CUDA_GOTO(st, err, out,
                    cgm_launch_cg4(S->prec, d->rows, d->state, 1, slot, prev, d->x, d->r,
                                   (char *)d->v + d->v_off * w, d->u, d->dinv, &o,
                                   cgm_cuda_red(d, 1), NULL, d->sms, d->stream));
    }
    CGM_CUDA_GOTO(st, err, out, host_reduce(S, slot, 1, 2));
    for (int g = 0; g < S->G; g++) {
      cgm_cuda_dev *d = &S->dev[g];
      CGM_CUDA_GOTO(st, err, out, cudaSetDevice(d->dev));
      CGM_CUDA_GOTO(st, err, out,
                    cgm_launch_cg5(S->prec, d->rows, d->state, 1, slot, prev,
                                   (char *)d->v + d->v_off * w, d->r, d->dinv, NULL, d->sms,
                                   d->stream));
    }
    CGM_CUDA_GOTO(st, err, out, host_exchange(S));
    cgm_cuda_dev *d0 = &S->dev[0];
    CGM_CUDA_GOTO(st, err, out, cudaSetDevice(d0->dev));
    CGM_CUDA_GOTO(st, err, out,
                  cudaMemcpyAsync(fin, d0->state, sizeof *fin, cudaMemcpyDeviceToHost, d0->stream));
    for (int g = 0; g < S->G; g++)
      CGM_CUDA_GOTO(st, err, out, cudaStreamSynchronize(S->dev[g].stream));
    it++;
    double now = cgm_now();
    if (it <= ntimed) times[it - 1] = now - tprev;
    tprev = now;
    if (fin->done) break;
  }
  res->time_solve_s = cgm_now() - t0;
  {
    int nt = it < ntimed ? it : ntimed;
    res->time_per_iter_s = nt > 1 ? cgm_median(times + 1, nt - 1) : (nt ? times[0] : 0.0);
  }
out:
  free(times);
  return st;
}

/* ------------------------------------------------------------ driver --- */

static mode_t_ pick_mode(const cgm_solve_opts *o) {
  if (o->gpus <= 1) return MODE_ONE;
  switch (o->exchange) {
  case CGM_EXCHANGE_P2P:
    return MODE_P2P;
  case CGM_EXCHANGE_HALO:
    return MODE_HALO;
  case CGM_EXCHANGE_HOST:
    return MODE_HOST;
  default:
    return MODE_NCCL;
  }
}

/* CG1 on every device: u = A x0, r = b - u, v = D^-1 r; the partial sums go
 * through the host once, then every state starts identical. */
static cgm_status cg1(solver *S, const cgm_problem *pb, double *rz_rr, cgm_error *err) {
  const size_t w = elem(S->prec);
  double tot[2] = {0, 0}, part[CGM_MAX_GPUS][2];
  for (int g = 0; g < S->G; g++) {
    cgm_cuda_dev *d = &S->dev[g];
    CGM_CUDA_TRY(err, cudaSetDevice(d->dev));
    void *v_own = (char *)d->v + d->v_off * w;
    CGM_CUDA_TRY(err, cgm_launch_spmv(&d->A.L, S->prec, d->v, d->u, v_own, NULL, NULL,
                                      cgm_cuda_red(d, 0), NULL, NULL, d->sms, d->stream));
    if (d->B.present)
      CGM_CUDA_TRY(err, cgm_launch_spmv(&d->B.L, S->prec, d->v, d->u, v_own, NULL, NULL,
                                        cgm_cuda_red(d, 3), NULL, NULL, d->sms, d->stream));
    /* r holds b: r = b - u in place; v_own = D^-1 r. */
    CGM_CUDA_TRY(err, cgm_launch_cg1(S->prec, d->rows, d->r, d->u, d->dinv, d->r, v_own, d->dot_tmp,
                                     cgm_cuda_red(d, 2), d->sms, d->stream));
    CGM_CUDA_TRY(err, cudaMemcpyAsync(part[g], d->dot_tmp, sizeof part[g], cudaMemcpyDeviceToHost,
                                      d->stream));
    /* The single-reduction CG keeps p in r: p = 0 before the first step. */
    if (S->cgg) CGM_CUDA_TRY(err, cudaMemsetAsync(d->r, 0, (size_t)d->np * w, d->stream));
    CGM_CUDA_TRY(err, cudaStreamSynchronize(d->stream));
    tot[0] += part[g][0];
    tot[1] += part[g][1];
  }
  cgm_cg_state h;
  memset(&h, 0, sizeof h);
  h.thr = (pb->tol * pb->bnorm) * (pb->tol * pb->bnorm);
  h.maxiter = pb->maxiter;
  h.K = S->K;
  /* Half the host's watchdog: a device that waits too long for a peer
   * stops the run itself, and the host reports it. */
  {
    double half = exchange_timeout() * 0.5;
    h.wait_ns = (unsigned long long)((half < 1e6 ? half : 1e6) * 1e9); /* <= 11.6 days */
  }
  h.slot[0][S->K - 1].rz = tot[0]; /* the slot before slot 0; other devices' parts stay 0 */
  h.slot[0][S->K - 1].rr = tot[1];
  for (int g = 0; g < S->G; g++) {
    cgm_cuda_dev *d = &S->dev[g];
    /* The single-reduction CG: the first SpMV carries each device's own
     * partials, summed in device order like every later pair. */
    h.local[0].rz = part[g][0];
    h.local[0].rr = part[g][1];
#ifdef CGM_TRACE
    h.trace = NULL;
    if (cudaSetDevice(d->dev) == cudaSuccess &&
        cudaMalloc((void **)&S->trace[g], kTraceBytes) == cudaSuccess &&
        cudaMemset(S->trace[g], 0, kTraceBytes) == cudaSuccess)
      h.trace = S->trace[g];
#endif
    CGM_CUDA_TRY(err, cudaSetDevice(d->dev));
    CGM_CUDA_TRY(err, cudaMemcpyAsync(d->state, &h, sizeof h, cudaMemcpyHostToDevice, d->stream));
    CGM_CUDA_TRY(err, cudaStreamSynchronize(d->stream));
  }
  rz_rr[0] = tot[0];
  rz_rr[1] = tot[1];
  /* The first iteration's SpMV needs the whole new v. */
  if (S->mode == MODE_HOST)
    CGM_CUDA_TRY(err, host_exchange(S));
  else
    CGM_CUDA_TRY(err, exchange(S, -1));
  for (int g = 0; g < S->G; g++) { /* under the watchdog: NCCL may hang here */
    cgm_cuda_dev *d = &S->dev[g];
    CGM_CUDA_TRY(err, cudaSetDevice(d->dev));
    CGM_CUDA_TRY(err, cudaEventRecord(d->ev_a, d->stream));
    if (S->mode == MODE_HALO) CGM_CUDA_TRY(err, cudaEventRecord(d->ev_b, d->comm));
    cudaError_t we = event_wait(d->ev_a, host_timeout(S));
    if (we == cudaSuccess && S->mode == MODE_HALO) we = event_wait(d->ev_b, host_timeout(S));
    if (we == cudaErrorTimeout) {
      S->hung = 1;
      return cgm_fail(err, CGM_ERUNTIME,
                      "the first exchange between %d GPUs made no progress for %.0f s; use "
                      "--exchange halo",
                      S->G, host_timeout(S));
    }
    CGM_CUDA_TRY(err, we);
  }
  return CGM_OK;
}

/* Uploads D^-1, b (into r), x0 (own rows) and x0 into v (everything the
 * first SpMV reads: the whole vector, or own rows and halo). */
static cgm_status upload_vectors(solver *S, const cgm_problem *pb, const seg_host *seg,
                                 cgm_error *err) {
  const cgm_csr *A = pb->A;
  const int n = S->n;
  const int64_t nglob = (int64_t)S->bounds[S->G] * n;
  /* + the halo layout's gap of up to CGM_VEC_ALIGN entries */
  int64_t blen = (nglob > S->chunk * S->G ? nglob : S->chunk * S->G) + CGM_VEC_ALIGN;
  double *buf = (double *)malloc(sizeof(double) * (size_t)(blen + 1));
  double *diag = (double *)malloc(sizeof(double) * (size_t)(A->nrows + 1));
  cgm_status st = CGM_OK;
  if (!buf || !diag) {
    st = cgm_fail(err, CGM_ERUNTIME, "out of host memory");
    goto out;
  }
  cgm_csr_diagonal(A, diag);
  for (int g = 0; g < S->G && !st; g++) {
    cgm_cuda_dev *d = &S->dev[g];
    const int64_t r0 = (int64_t)S->bounds[g] * n;
    for (int64_t i = 0; i < d->rows; i++) buf[i] = r0 + i < A->nrows ? 1.0 / diag[r0 + i] : 1.0;
    if ((st = cgm_cuda_upload_vec(d, d->dinv, buf, d->rows, 0, err))) break;
    for (int64_t i = 0; i < d->rows; i++) buf[i] = r0 + i < A->nrows ? pb->b[r0 + i] : 0.0;
    if ((st = cgm_cuda_upload_vec(d, d->r, buf, d->rows, 0, err))) break;
    for (int64_t i = 0; i < d->rows; i++) buf[i] = r0 + i < A->nrows ? pb->x[r0 + i] : 0.0;
    if ((st = cgm_cuda_upload_vec(d, d->x, buf, d->rows, 0, err))) break;
    /* v = x0 as the SpMV of CG1 sees it */
    if (S->mode == MODE_HALO) {
      const cgm_halo *h = &seg[g].h;
      int64_t own = (int64_t)seg[g].halo_start * n;
      for (int64_t i = d->rows; i < own; i++) buf[i] = 0.0; /* the gap */
      for (int32_t c = 0; c < h->nhalo; c++)
        for (int t = 0; t < n; t++) {
          int64_t gi = (int64_t)h->cols[c] * n + t;
          buf[own + (int64_t)c * n + t] = gi < A->nrows ? pb->x[gi] : 0.0;
        }
      st = cgm_cuda_upload_vec(d, d->v, buf, own + (int64_t)h->nhalo * n, 0, err);
    } else if (S->mode == MODE_NCCL) { /* chunk j holds segment j's rows */
      for (int j = 0; j < S->G; j++)
        for (int64_t i = 0; i < S->chunk; i++) {
          int64_t gi = (int64_t)S->bounds[j] * n + i;
          bool in = gi < (int64_t)S->bounds[j + 1] * n && gi < A->nrows;
          buf[j * S->chunk + i] = in ? pb->x[gi] : 0.0;
        }
      st = cgm_cuda_upload_vec(d, d->v, buf, S->chunk * S->G, 0, err);
    } else {
      for (int64_t i = 0; i < nglob; i++) buf[i] = i < A->nrows ? pb->x[i] : 0.0;
      st = cgm_cuda_upload_vec(d, d->v, buf, nglob, 0, err);
    }
  }
out:
  free(buf);
  free(diag);
  return st;
}

cgm_status cgm_cuda_cg(const cgm_problem *pb, cgm_solve_result *res, cgm_error *err) {
  const cgm_csr *A = pb->A;
  const cgm_bcsr_params p = pb->opts.layout;
  cgm_status st = cgm_spmv_supported(p.n, p.bx, p.by, pb->opts.precision, err);
  if (st) return st;
  const int ndev = cgm_cuda_device_count();
  const int G = pb->opts.gpus;
  if (ndev < 1) return cgm_fail(err, CGM_ERUNTIME, "no CUDA device is present");
  if (G > ndev)
    return cgm_fail(err, CGM_EINPUT, "--gpus %d: only %d GPU%s present", G, ndev,
                    ndev == 1 ? " is" : "s are");
  if (G > CGM_MAX_GPUS)
    return cgm_fail(err, CGM_EINPUT, "--gpus %d: at most %d GPUs are supported", G, CGM_MAX_GPUS);
  double t0 = cgm_now();
  solver *S = (solver *)calloc(1, sizeof *S);
  seg_host *seg = (seg_host *)calloc(CGM_MAX_GPUS, sizeof *seg);
  const cgm_cg_state *fin = NULL;
  cgm_cg_state host_fin;
  if (!S || !seg) {
    free(S);
    free(seg);
    return cgm_fail(err, CGM_ERUNTIME, "out of host memory");
  }
  for (int g = 0; g < CGM_MAX_GPUS; g++) S->dev[g].dev = -1;
  S->G = G;
  S->n = p.n;
  S->prec = pb->opts.precision;
  S->mode = pick_mode(&pb->opts);
  S->K = pb->opts.check_every > 0 ? pb->opts.check_every : 32;
  if (S->K > CGM_MAX_SLOTS) S->K = CGM_MAX_SLOTS;
  if (S->K < 2 || S->mode == MODE_HOST) S->K = 2;
  {
    const char *sy = getenv("CGMODEL_SYNC");
    S->flags = (S->mode == MODE_P2P || S->mode == MODE_HALO) && !(sy && !strcmp(sy, "events"));
    const char *gr = getenv("CGMODEL_GRAPHS");
    S->graphs = !(gr && !strcmp(gr, "0"));
    /* Programmatic dependent launch: on one GPU, and on several with the
     * flags (p2p, halo). There a kernel that spins on flags lets its
     * successor in only after its wait (pdl_begin), and the boundary SpMV
     * leaves room for the pack (cgm_sync.leave), so no block scheduled
     * early can hold the SMs that a peer's progress needs. Not with NCCL,
     * the host or graph edges between devices (CGMODEL_SYNC=events). */
    const char *pd = getenv("CGMODEL_PDL");
    S->pdl = (S->mode == MODE_ONE || S->flags) && !(pd && !strcmp(pd, "0"));
    /* The single-reduction CG (cgm_launch_cgg): one all-GPU reduction and
     * one kernel an iteration fewer than CG4 + CG5, and one vector pass
     * fewer, so also faster on one GPU (docs/perf.md, ninth session).
     * CGMODEL_CG=classic brings Algorithm 2's CG4 + CG5 back; the
     * host-staged mode is always the paper's Algorithm 2. */
    const char *cg = cgm_gpu_cg_variant();
    if (!cg) {
      st =
          cgm_fail(err, CGM_EINPUT, "CGMODEL_CG=%s: expected classic or cgg", getenv("CGMODEL_CG"));
      goto out;
    }
    S->cgg = S->mode != MODE_HOST && !strcmp(cg, "cgg");
    const char *lt = getenv("CGMODEL_LATE");
    S->late = S->mode == MODE_HALO && S->flags && !(lt && !strcmp(lt, "0"));
    const char *ll = getenv("CGMODEL_LL");
    S->ll = S->cgg && S->flags && !(ll && !strcmp(ll, "0"));
  }
  /* Segments start at multiples of 4 rows: 16-byte aligned vectors. */
  if ((st = cgm_partition(A, p.n, G, cgm_partition_align(p.n), S->bounds, err))) goto out;
  /* Halo: a boundary row costs more than an interior one (the second SpMV),
   * and a segment between two others has twice the boundary rows. Counting
   * each boundary row 1.7 times evens the GPUs out: on 4 x H200 the middle
   * GPUs of Poisson 256^3 ended their iteration 2.5 us after the outer ones
   * (docs/perf.md, tenth session). CGMODEL_BALANCE=0: the paper's cut. */
  if (S->mode == MODE_HALO && G > 1) {
    const char *bal = getenv("CGMODEL_BALANCE");
    if (!(bal && !strcmp(bal, "0")) &&
        (st = cgm_partition_boundary(A, p.n, G, cgm_partition_align(p.n), 0.7, S->bounds, err)))
      goto out;
  }
  if (S->mode == MODE_P2P || S->mode == MODE_HALO)
    if ((st = enable_peers(G, err))) goto out;
  S->chunk = cgm_chunk_rows(S->bounds, G, p.n);
  /* Build every segment on the host and check that it fits before any
   * device allocation. */
  for (int g = 0; g < G && !st; g++) {
    st = seg_build(A, S, p, g, &seg[g], err);
    if (st) break;
    int64_t avail, total, rows = (int64_t)(S->bounds[g + 1] - S->bounds[g]) * p.n;
    int64_t need = seg_bytes(&seg[g], rows, S->prec);
    if ((st = cgm_cuda_free_bytes(g, &avail, &total, err))) break;
    if (need > avail)
      st = cgm_fail(err, CGM_EINPUT,
                    "the matrix does not fit on GPU %d: this configuration needs %.2f GiB there, "
                    "%.2f GiB are free (%.2f GiB total); use more GPUs, single precision or "
                    "another block size",
                    g, need / 1073741824.0, (avail + (256 << 20)) / 1073741824.0,
                    total / 1073741824.0);
  }
  if (st) goto out;
  for (int g = 0; g < G && !st; g++) {
    cgm_cuda_dev *d = &S->dev[g];
    int64_t rows = (int64_t)(S->bounds[g + 1] - S->bounds[g]) * p.n;
    st = cgm_cuda_dev_init(d, g, S->prec, rows, seg[g].v_len, err);
    if (!st) st = cgm_cuda_matrix_upload(d, &seg[g].A, &d->A, err);
    if (!st && S->mode == MODE_HALO) st = cgm_cuda_matrix_upload(d, &seg[g].B, &d->B, err);
    d->v_off = seg[g].v_off;
  }
  if (st) goto out;
  if (S->mode == MODE_HALO && (st = setup_halo_sends(S, seg, err))) goto out;
  if (S->mode != MODE_HALO) /* the halo's count comes from its send lists */
    S->exchange_elems =
        cgm_exchange_elements(pb->opts.exchange, G, (int64_t)S->bounds[G] * p.n, S->chunk, 0);
  if (S->mode == MODE_HOST) {
    CGM_CUDA_GOTO(st, err, out,
                  cudaMallocHost(&S->host_v, elem(S->prec) * (size_t)S->bounds[G] * p.n));
    CGM_CUDA_GOTO(st, err, out, cudaMallocHost((void **)&S->host_red, sizeof(double) * 3 * G));
  }
  if (S->mode == MODE_NCCL) {
    if ((st = nccl_init(S, err))) goto out;
  }
  for (int g = 0; g < G; g++)
    res->device_bytes = S->dev[g].bytes > res->device_bytes ? S->dev[g].bytes : res->device_bytes;
  if (S->pdl) { /* the kernels must hold the wait: code built for sm_90 or later */
    CGM_CUDA_GOTO(st, err, out, cudaSetDevice(S->dev[0].dev));
    S->pdl = cgm_pdl_supported();
  }
  if ((st = upload_vectors(S, pb, seg, err))) goto out;
  for (int g = 0; g < G; g++) seg_free(&seg[g]); /* the host copies are no longer needed */
  {
    cudaDeviceProp prop;
    CGM_CUDA_GOTO(st, err, out, cudaGetDeviceProperties(&prop, 0));
    if (G > 1)
      snprintf(res->device, sizeof res->device, "%d x %.200s", G, prop.name);
    else
      snprintf(res->device, sizeof res->device, "%.200s", prop.name);
  }
  res->exchange_bytes = S->exchange_elems * (int64_t)elem(S->prec);
  {
    double rzrr[2] = {0.0, 0.0};
    if ((st = cg1(S, pb, rzrr, err))) goto out;
    if (!isfinite(rzrr[0]) || !isfinite(rzrr[1])) {
      snprintf(res->stop_reason, sizeof res->stop_reason, "NaN or Inf in the initial residual");
      st = CGM_ENOCONV;
      goto download;
    }
    if (rzrr[1] <= (pb->tol * pb->bnorm) * (pb->tol * pb->bnorm)) {
      res->converged = true;
      res->solver_residual = sqrt(rzrr[1]) / pb->bnorm;
      goto download;
    }
  }
  res->time_setup_s = cgm_now() - t0;
  if (S->mode == MODE_HOST) {
    st = host_loop(S, pb, res, &host_fin, err);
    fin = &host_fin;
  } else {
    if ((st = capture(S, err))) goto out;
    st = graph_loop(S, pb, res, &fin, err);
  }
#ifdef CGM_TRACE
  trace_dump(S);
#endif
  if (st) goto out;
  res->iterations = fin->iter;
  res->solver_residual = sqrt(fin->rr_last) / pb->bnorm;
  res->converged = fin->done == CGM_RUN_CONVERGED;
  if (fin->done == CGM_RUN_TIMEOUT) {
    stop_reason(fin, pb->bnorm, pb->tol, res);
    st = cgm_fail(err, CGM_ERUNTIME, "%s (%s exchange)", res->stop_reason,
                  cgm_exchange_name(pb->opts.exchange));
    goto out;
  }
  if (!res->converged) {
    stop_reason(fin, pb->bnorm, pb->tol, res);
    st = CGM_ENOCONV;
  }
download:
  for (int g = 0; g < G; g++) {
    cgm_cuda_dev *d = &S->dev[g];
    int64_t r0 = (int64_t)S->bounds[g] * p.n, cnt = d->rows;
    if (r0 + cnt > A->nrows) cnt = A->nrows - r0;
    if (cnt <= 0) continue;
    cgm_status st2 = cgm_cuda_download_vec(d, d->x, pb->x + r0, cnt, err);
    if (st2) {
      st = st2;
      break;
    }
  }
  if (res->time_setup_s == 0.0) res->time_setup_s = cgm_now() - t0;
out:
  for (int g = 0; g < CGM_MAX_GPUS; g++) seg_free(&seg[g]);
  if (S->nccl_stuck) { /* left to the process's end: see nccl_init */
    free(seg);
    return st;
  }
  /* Graphs first: a graph that captured NCCL collectives holds its
   * communicator, and ncclCommDestroy waits for it forever (on the H200
   * nodes: the "NCCL hang" of docs/perf.md). */
  for (int g = 0; g < CGM_MAX_GPUS; g++) cgm_cuda_dev_drop_graphs(&S->dev[g]);
  if (S->have_comm)
    for (int g = 0; g < G; g++) {
      if (S->hung)
        ncclCommAbort(S->comm[g]); /* unblocks NCCL's kernels */
      else
        ncclCommDestroy(S->comm[g]);
    }
  if (S->host_v) cudaFreeHost(S->host_v);
  if (S->host_red) cudaFreeHost(S->host_red);
#ifdef CGM_TRACE
  for (int g = 0; g < CGM_MAX_GPUS; g++)
    if (S->trace[g] && cudaSetDevice(S->dev[g].dev) == cudaSuccess) cudaFree(S->trace[g]);
#endif
  for (int g = 0; g < CGM_MAX_GPUS; g++) cgm_cuda_dev_free(&S->dev[g]);
  free(seg);
  free(S);
  return st;
}
