/* SPDX-License-Identifier: GPL-3.0-or-later */
/* One CG iteration on every device (gpu_solver.h): the SpMV (interior and
 * boundary rows with the halo exchange), then the single-reduction CG's
 * update, or Algorithm 2's CG4 and CG5; the exchange follows the update. */
#include "solver/cuda/gpu_solver.h"

/* Where device g's reduction results go, and how many partials a consumer
 * adds: every device's state (p2p, halo), the own total (one GPU), or the
 * own local partial that NCCL or the host reduces. */
static void outputs(const gpu_solver *S, int g, int slot, int which, cgm_out *o) {
  o->n = 0;
  o->carry = NULL;
  if (S->pol.mode == MODE_P2P || S->pol.mode == MODE_HALO) {
    for (int k = 0; k < S->G; k++) o->p[o->n++] = &S->dev[k].state->slot[g][slot].pq + which;
  } else if (S->pol.mode == MODE_ONE) {
    o->p[o->n++] = &S->dev[g].state->slot[0][slot].pq + which;
  } else {
    o->p[o->n++] = &S->dev[g].state->local[slot].pq + which;
  }
}

static int nparts(const gpu_solver *S) {
  return S->pol.mode == MODE_P2P || S->pol.mode == MODE_HALO ? S->G : 1;
}

cudaError_t gs_spmv(gpu_solver *S, int slot) {
  for (int g = 0; g < S->G; g++) {
    cgm_cuda_dev *d = &S->dev[g];
    cudaError_t e = cudaSetDevice(d->dev);
    if (e) return e;
    cgm_out out = {};
    outputs(S, g, slot, 0, &out);
    /* cgg's r . u and r . r partials ride with u . A u; with the ll words
     * no PQ flag: cgg waits for the words themselves. */
    if (S->pol.cgg) out.carry = &d->state->local[slot].rz;
    if (S->pol.ll) {
      for (int k = 0; k < S->G; k++) out.p[k] = (double *)S->dev[k].state->ll[g];
      out.ll = S->G;
      out.n = 0;
    }
    void *v_own = (char *)d->v + d->v_off * (size_t)cgm_precision_width(S->prec);
    /* The sum p . A p goes to every device, with the PQ flag. */
    if (S->pol.mode != MODE_HALO) {
      cgm_sync y = gs_sync_for(S, g, gs_all_mask(S) & ~(1u << g), CGM_FLAG_VEC, slot + 1,
                               gs_all_mask(S), CGM_FLAG_PQ, slot + 1);
      if (S->pol.ll) y.nraise = 0;
      /* One GPU with long rows (cgm_plan_long_part): their kernel first,
       * its sum handed to the MBR kernel's, which finishes it. */
      const double *add = NULL;
      if (d->C.present) {
        cgm_out tmp = {};
        tmp.p[0] = d->dot_tmp;
        tmp.n = 1;
        cgm_sync yl = y;
        yl.nraise = 0;
        e = cgm_launch_spmv(&d->C.L, S->prec, d->v, d->u, v_own, &tmp, NULL,
                            cgm_cuda_red(d, CGM_RED_LONG), d->state, &yl, d->sms, d->stream);
        add = d->dot_tmp;
      }
      if (e == cudaSuccess) {
        y.beside = add && y.overlap; /* beside the long rows, waiting only for their sum */
        e = cgm_launch_spmv(&d->A.L, S->prec, d->v, d->u, v_own, &out, add, cgm_cuda_red(d, 0),
                            d->state, &y, d->sms, d->stream);
      }
    } else {
      /* Interior rows first, then the boundary rows once every halo has
       * arrived, the long rows' kernel just before and beside them. The last
       * launch finishes the sum (an empty segment still delivers its zero). */
      const bool last_is_a = d->A.present && !d->B.present && !d->C.present;
      cgm_out tmp = {};
      tmp.p[0] = d->dot_tmp;
      tmp.n = 1;
      cgm_sync ya =
          gs_sync_for(S, g, 0, 0, 0, last_is_a ? gs_all_mask(S) : 0u, CGM_FLAG_PQ, slot + 1);
      /* No PDL into the interior SpMV: scheduled early, its grid would hold
       * the SMs the pack on the other stream needs. */
      ya.overlap = 0;
      if (S->pol.ll) ya.nraise = 0;
      /* late: the own pack's last block waits for the peers' packs and the
       * boundary SpMV follows the own pack by an event, so nothing spins at
       * its start (3-4 us saved; docs/perf.md, "Where the 20 us went"). */
      cgm_sync yb = gs_sync_for(S, g, S->pol.late ? 0u : gs_recv_mask(S, g), CGM_FLAG_VEC, slot + 1,
                                gs_all_mask(S), CGM_FLAG_PQ, slot + 1);
      /* Without late its blocks spin on the peers' packs and the own pack (one block per SM left
       * free for it), so no later kernel takes the SMs from a pack still pending here. */
      yb.leave = yb.wait_mask ? 1 : 0;
      if (yb.wait_mask) yb.wait_mask |= gs_own_pack_flag(S, g);
      if (S->pol.ll) yb.nraise = 0;
      if (e == cudaSuccess && d->A.present)
        e = cgm_launch_spmv(&d->A.L, S->prec, d->v, d->u, v_own, last_is_a ? &out : &tmp, NULL,
                            cgm_cuda_red(d, 0), d->state, &ya, d->sms, d->stream);
      /* Events where there are no flags, and for the long rows' kernel, which cannot wait on flags
       * (a graph's first iteration reads halos delivered before it started). */
      const bool events = !S->pol.flags || (d->C.present && !S->pol.late);
      const unsigned recv = S->pack_recorded && events ? gs_recv_mask(S, g) : 0u;
      for (int j = 0; j < S->G && e == cudaSuccess; j++)
        if ((recv >> j) & 1u) e = cudaStreamWaitEvent(d->stream, S->dev[j].ev_pack, 0);
      if (e == cudaSuccess && S->pol.late && S->pack_recorded)
        e = cudaStreamWaitEvent(d->stream, d->ev_pack, 0);
      /* The long rows: the interior's sum added to theirs, handed on to the
       * boundary launch beside them. */
      const double *add = d->A.present ? d->dot_tmp : NULL;
      if (e == cudaSuccess && d->C.present) {
        cgm_out tc = {};
        tc.p[0] = d->dot_tmp + 6;
        tc.n = 1;
        cgm_sync yc = gs_sync_for(S, g, 0, 0, 0, 0, 0, 0);
        e = cgm_launch_spmv(&d->C.L, S->prec, d->v, d->u, v_own, &tc, add,
                            cgm_cuda_red(d, CGM_RED_LONG), d->state, &yc, d->sms, d->stream);
        add = d->dot_tmp + 6;
        yb.beside = yb.overlap;
      }
      if (e == cudaSuccess && (d->B.present || d->C.present || (S->pol.flags && !d->A.present)))
        e = cgm_launch_spmv(&d->B.L, S->prec, d->v, d->u, v_own, &out, add, cgm_cuda_red(d, 3),
                            d->state, &yb, d->sms, d->stream);
    }
    if (e) return e;
  }
  return cudaSuccess;
}

cudaError_t gs_cg4(gpu_solver *S, int slot, int prev) {
  return cgm_each_device(S->dev, S->G, [&](int g, cgm_cuda_dev *d) {
    cgm_out out = {};
    outputs(S, g, slot, 1, &out);
    cgm_sync y = gs_sync_for(S, g, gs_all_mask(S), CGM_FLAG_PQ, slot + 1, gs_all_mask(S),
                             CGM_FLAG_RZ, slot + 1);
    return cgm_launch_cg4(S->prec, d->rows, d->state, nparts(S), slot, prev, d->x, d->r,
                          (char *)d->v + d->v_off * (size_t)cgm_precision_width(S->prec), d->u,
                          d->dinv, &d->bj, &out, cgm_cuda_red(d, 1), &y, d->sms, d->stream);
  });
}

cudaError_t gs_cg5(gpu_solver *S, int slot, int prev) {
  return cgm_each_device(S->dev, S->G, [&](int g, cgm_cuda_dev *d) {
    cgm_sync y = gs_sync_for(S, g, gs_all_mask(S), CGM_FLAG_RZ, slot + 1, 0, 0, 0);
    return cgm_launch_cg5(S->prec, d->rows, d->state, nparts(S), slot, prev,
                          (char *)d->v + d->v_off * (size_t)cgm_precision_width(S->prec), d->r,
                          d->dinv, &d->bj, &y, d->sms, d->stream);
  });
}

/* The single-reduction CG's update on every device, after all SpMV sums (the PQ flags); its own
 * partials of the next r . u and r . r stay local until the next SpMV carries them. */
static cudaError_t cgg_all(gpu_solver *S, int slot, int prev) {
  return cgm_each_device(S->dev, S->G, [&](int g, cgm_cuda_dev *d) {
    cgm_out out = {};
    out.p[0] = &d->state->local[(slot + 1) % S->pol.K].rz;
    out.n = 1;
    cgm_sync y = gs_sync_for(S, g, gs_all_mask(S), CGM_FLAG_PQ, slot + 1, 0, 0, 0);
    y.ll = S->pol.ll;
    return cgm_launch_cgg(S->prec, d->rows, d->state, nparts(S), slot, prev, d->x,
                          (char *)d->v + d->v_off * (size_t)cgm_precision_width(S->prec),
                          d->r /* p */, d->u, d->s, d->dinv, &d->bj, &out, cgm_cuda_red(d, 1), &y,
                          d->sms, d->stream);
  });
}

/* Each reduction's sums travel to every device (gs_reduce) before the kernel that reads them; the
 * vector's exchange follows the update. */
cudaError_t gs_iteration(gpu_solver *S, int slot) {
  const int prev = (slot + S->pol.K - 1) % S->pol.K;
  cudaError_t e = gs_spmv(S, slot);
  if (e == cudaSuccess) e = gs_reduce(S, slot, 0, S->pol.cgg ? 3 : 1, &cgm_cuda_dev::ev_a);
  if (e == cudaSuccess && !S->pol.cgg) e = gs_cg4(S, slot, prev);
  if (e == cudaSuccess && !S->pol.cgg) e = gs_reduce(S, slot, 1, 2, &cgm_cuda_dev::ev_b);
  if (e == cudaSuccess) e = S->pol.cgg ? cgg_all(S, slot, prev) : gs_cg5(S, slot, prev);
  return e == cudaSuccess ? gs_exchange(S, slot) : e;
}
