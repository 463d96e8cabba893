/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The exchanges between devices (gpu_solver.h): the vector the next SpMV
 * reads (p2p stores, NCCL's all-gather, the halo pack) and the reductions'
 * sums (events, NCCL's all-reduce, or through the host). */
#include "solver/cuda/gpu_solver.h"

/* Every device waits for the latest `which` event of all others. */
static cudaError_t all_to_all(gpu_solver *S, cudaEvent_t cgm_cuda_dev::*which) {
  if (S->G == 1 || S->pol.flags) return cudaSuccess;
  cudaError_t e = cgm_each_device(
      S->dev, S->G, [&](int, cgm_cuda_dev *d) { return cudaEventRecord(d->*which, d->stream); });
  if (e) return e;
  return cgm_each_device(S->dev, S->G, [&](int k, cgm_cuda_dev *d) {
    cudaError_t ek = cudaSuccess;
    for (int g = 0; g < S->G && ek == cudaSuccess; g++)
      if (g != k) ek = cudaStreamWaitEvent(d->stream, S->dev[g].*which, 0);
    return ek;
  });
}

/* One NCCL group of call(g) for every device g; the group closed after a failed call too. */
template <typename F> static cudaError_t nccl_group(gpu_solver *S, F call) {
  if (S->nccl->ncclGroupStart() != ncclSuccess) return cudaErrorUnknown;
  for (int g = 0; g < S->G; g++)
    if (call(g) != ncclSuccess) {
      S->nccl->ncclGroupEnd();
      return cudaErrorUnknown;
    }
  return S->nccl->ncclGroupEnd() == ncclSuccess ? cudaSuccess : cudaErrorUnknown;
}

cudaError_t gs_reduce(gpu_solver *S, int slot, int which, int count,
                      cudaEvent_t cgm_cuda_dev::*ev) {
  if (S->pol.mode != MODE_NCCL) return all_to_all(S, ev);
  return nccl_group(S, [&](int g) {
    cgm_cg_state *st = S->dev[g].state;
    return S->nccl->ncclAllReduce(&st->local[slot].pq + which, &st->slot[0][slot].pq + which, count,
                                  ncclFloat64, ncclSum, S->comm[g], S->dev[g].stream);
  });
}

/* The vector's exchange after CG5 or cgg at `slot` (after CG1: -1). */
cudaError_t gs_exchange(gpu_solver *S, int slot) {
  const size_t w = (size_t)cgm_precision_width(S->prec);
  if (S->pol.mode == MODE_P2P) {
    cudaError_t e = cgm_each_device(S->dev, S->G, [&](int g, cgm_cuda_dev *d) {
      void *dst[CGM_MAX_GPUS];
      int nd = 0;
      for (int k = 0; k < S->G; k++)
        if (k != g) dst[nd++] = (char *)S->dev[k].v + d->v_off * w;
      cgm_sync y = gs_sync_for(S, g, 0, 0, 0, gs_all_mask(S) & ~(1u << g), CGM_FLAG_VEC, slot + 2);
      return cgm_launch_scatter((char *)d->v + d->v_off * w, cgm_vec_len(d->rows) * (int64_t)w, dst,
                                nd, d->state, &y, cgm_cuda_red(d, 4), d->sms, d->stream);
    });
    return e ? e : all_to_all(S, &cgm_cuda_dev::ev_c);
  }
  if (S->pol.mode == MODE_NCCL) {
    ncclDataType_t t = S->prec == CGM_PREC_SINGLE ? ncclFloat32 : ncclFloat64;
    return nccl_group(S, [&](int g) {
      char *v = (char *)S->dev[g].v; /* in place: the own chunk is at g * chunk */
      return S->nccl->ncclAllGather(v + S->chunk * g * w, v, (size_t)S->chunk, t, S->comm[g],
                                    S->dev[g].stream);
    });
  }
  if (S->pol.mode == MODE_HALO) { /* pack on the comm stream, after the own CG5 or cgg */
    cudaError_t e = cgm_each_device(S->dev, S->G, [&](int g, cgm_cuda_dev *d) {
      cgm_sync y = gs_sync_for(S, g, 0, 0, 0, S->send_mask[g] | gs_own_pack_flag(S, g),
                               CGM_FLAG_VEC, slot + 2);
      if (S->pol.late) { /* the pack ends once the peers' packs are in here too */
        y.wait_mask = gs_recv_mask(S, g);
        y.wait_kind = CGM_FLAG_VEC;
        y.wait_off = slot + 2;
      }
      cudaError_t ed = cudaEventRecord(d->ev_fork, d->stream);
      if (ed == cudaSuccess) ed = cudaStreamWaitEvent(d->comm, d->ev_fork, 0);
      if (ed == cudaSuccess)
        ed = cgm_launch_pack(S->prec, d->v, &d->pack, d->state, &y, cgm_cuda_red(d, 4), d->sms,
                             d->comm);
      if (ed == cudaSuccess) ed = cudaEventRecord(d->ev_pack, d->comm);
      return ed;
    });
    if (e) return e;
    S->pack_recorded = 1;
  }
  return cudaSuccess;
}

/* The paper's host-driven loop (Algorithm 2 with Algorithm 1's reductions):
 * partial sums and the vector go through pinned host memory. */
cudaError_t gs_host_reduce(gpu_solver *S, int slot, int which, int count) {
  cudaError_t e = cgm_each_device(S->dev, S->G, [&](int g, cgm_cuda_dev *d) {
    return cudaMemcpyAsync(S->host_red + 3 * g, &d->state->local[slot].pq + which,
                           sizeof(double) * count, cudaMemcpyDeviceToHost, d->stream);
  });
  for (int g = 0; g < S->G && e == cudaSuccess; g++) /* SyncGPUs() */
    e = cudaStreamSynchronize(S->dev[g].stream);
  if (e) return e;
  double tot[3] = {0, 0, 0};
  for (int g = 0; g < S->G; g++)
    for (int c = 0; c < count; c++) tot[c] += S->host_red[3 * g + c];
  return cgm_each_device(S->dev, S->G, [&](int, cgm_cuda_dev *d) {
    cudaError_t ed = cudaMemcpyAsync(&d->state->slot[0][slot].pq + which, tot,
                                     sizeof(double) * count, cudaMemcpyHostToDevice, d->stream);
    if (ed == cudaSuccess) ed = cudaStreamSynchronize(d->stream); /* tot is on the stack */
    return ed;
  });
}

cudaError_t gs_host_exchange(gpu_solver *S) {
  const size_t w = (size_t)cgm_precision_width(S->prec);
  /* v_host,i <- v_i */
  cudaError_t e = cgm_each_device(S->dev, S->G, [&](int, cgm_cuda_dev *d) {
    return cudaMemcpyAsync((char *)S->host_v + d->v_off * w, (char *)d->v + d->v_off * w,
                           (size_t)d->rows * w, cudaMemcpyDeviceToHost, d->stream);
  });
  for (int g = 0; g < S->G && e == cudaSuccess; g++) /* SyncGPUs() */
    e = cudaStreamSynchronize(S->dev[g].stream);
  if (e) return e;
  /* v <- v_host,j, j != i */
  return cgm_each_device(S->dev, S->G, [&](int g, cgm_cuda_dev *d) {
    cudaError_t ed = cudaSuccess;
    for (int j = 0; j < S->G && ed == cudaSuccess; j++) {
      if (j == g) continue;
      const cgm_cuda_dev *dj = &S->dev[j];
      ed = cudaMemcpyAsync((char *)d->v + dj->v_off * w, (char *)S->host_v + dj->v_off * w,
                           (size_t)dj->rows * w, cudaMemcpyHostToDevice, d->stream);
    }
    return ed;
  });
}
