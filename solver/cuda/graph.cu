/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Batches of K iterations captured in CUDA graphs and the host's loop over
 * them, with the watchdogs that keep a solve from hanging (gpu_solver.h). */
#include <limits.h>
#include <math.h>
#include <time.h>

#include "common/grow.h"
#include "common/timer.h"
#include "solver/cuda/gpu_solver.h"

/* cudaEventSynchronize with a deadline: cudaErrorTimeout when it passes. */
cudaError_t gs_event_wait(cudaEvent_t ev, double timeout_s) {
  double end = cgm_now() + timeout_s;
  for (;;) {
    cudaError_t e = cudaEventQuery(ev);
    if (e != cudaErrorNotReady) return e;
    if (cgm_now() > end) return cudaErrorTimeout;
    struct timespec ts = {0, 20000}; /* 20 us */
    nanosleep(&ts, NULL);
  }
}

/* K iterations of every device, enqueued on the streams; device 0's stream
 * leads, the others fork from and join into it. Ends with device 0's state
 * copied to host_state[gi] and device 0 current. */
static cudaError_t enqueue_batch(gpu_solver *S, int gi) {
  cgm_cuda_dev *d0 = &S->dev[0];
  S->pack_recorded = 0;
  cudaError_t e = cudaSetDevice(d0->dev);
  if (e == cudaSuccess) e = cudaEventRecord(d0->ev_fork, d0->stream);
  for (int g = 0; g < S->G && e == cudaSuccess; g++) {
    e = cudaSetDevice(S->dev[g].dev);
    if (e == cudaSuccess && g > 0) e = cudaStreamWaitEvent(S->dev[g].stream, d0->ev_fork, 0);
    if (e == cudaSuccess && S->pol.mode == MODE_HALO)
      e = cudaStreamWaitEvent(S->dev[g].comm, d0->ev_fork, 0);
  }
  for (int i = 0; i < S->pol.K && e == cudaSuccess; i++) e = gs_iteration(S, i);
  /* Join: comm streams into their device stream, every device into 0. */
  for (int g = 0; g < S->G && e == cudaSuccess; g++) {
    cgm_cuda_dev *d = &S->dev[g];
    e = cudaSetDevice(d->dev);
    if (e == cudaSuccess && S->pol.mode == MODE_HALO) {
      e = cudaEventRecord(d->ev_pack, d->comm);
      if (e == cudaSuccess) e = cudaStreamWaitEvent(d->stream, d->ev_pack, 0);
    }
    /* Everything of this batch on the device is done: the next ticks (and
     * the single-reduction CG's iteration count). */
    if (e == cudaSuccess && (S->pol.flags || S->pol.cgg)) e = cgm_launch_epoch(d->state, d->stream);
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
 * buffer), unless graphs are off (compute-sanitizer's racecheck cannot
 * follow graphs spanning devices): then every batch is enqueued anew. */
cgm_status gs_capture(gpu_solver *S, cgm_error *err) {
  cgm_cuda_dev *d0 = &S->dev[0];
  if (!S->pol.graphs) return CGM_OK;
  for (int gi = 0; gi < 2; gi++) {
    cudaGraph_t graph = NULL;
    CGM_CUDA_TRY(err, cudaSetDevice(d0->dev));
    /* Thread-local: NCCL's own threads make CUDA calls while we capture. */
    CGM_CUDA_TRY(err, cudaStreamBeginCapture(d0->stream, cudaStreamCaptureModeThreadLocal));
    cudaError_t e = enqueue_batch(S, gi);
    cudaSetDevice(d0->dev);
    cudaError_t e2 = cudaStreamEndCapture(d0->stream, &graph); /* always: leaves capture mode */
    if (e == cudaSuccess) e = e2;
    if (e == cudaSuccess) e = cudaGraphInstantiate(&d0->graph_exec[gi], graph, 0);
    if (graph) cudaGraphDestroy(graph);
    CGM_CUDA_TRY(err, e);
  }
  return CGM_OK;
}

/* Batch b queued on device 0's stream (graph b % 2, or enqueued anew), between ev[3 + b % 3] at its
 * start and ev[b % 3] at its end (gs_graph_loop). */
static cudaError_t queue_batch(gpu_solver *S, int b) {
  cgm_cuda_dev *d = &S->dev[0];
  cudaError_t e = cudaEventRecord(d->ev[3 + b % 3], d->stream);
  if (e == cudaSuccess)
    e = S->pol.graphs ? cudaGraphLaunch(d->graph_exec[b % 2], d->stream) : enqueue_batch(S, b % 2);
  return e == cudaSuccess ? cudaEventRecord(d->ev[b % 3], d->stream) : e;
}

/* The host's part of the reliable updates (one GPU, backend.h): the true
 * residual replaces the iterated one between two graphs. */
typedef struct reliable {
  bool on, reduced;
  bool watch; /* double's floor watch (not in a fixed count) */
  double thr; /* tol ||b|| */
  double ref; /* the true residual at the last replacement */
  int last;   /* its iteration */
  cgm_reliable stall;
  cgm_floor_watch floor; /* double, before any claim */
  bool claim_at_floor;   /* the device's threshold raised to the floor */
  double claim_thr;      /* its value, (u ||A|| ||x||)^2 */
} reliable;

/* Double precision's floor watch (backend.h): a probe is due. */
static bool floor_due(const reliable *R, const cgm_cg_state *hs) {
  return R->watch && R->last == 0 && hs->done == CGM_RUN && sqrt(hs->rr_last) <= R->floor.next;
}

/* The probe after the stream's work; *stop set when the solve ends at its floor, S->final the state
 * to report. The host sees the residual a graph or two late, when a dip to the floor may be over:
 * so where the tolerance is below what double shows (thr <= u ||D x||) the device's threshold is
 * raised to the floor, and the claim it makes there is checked as any. */
static cgm_status floor_step(gpu_solver *S, reliable *R, const cgm_cg_state *hs, bool *stop,
                             cgm_error *err) {
  double rt, xn, dxn;
  cgm_status st = gs_probe(S, &rt, &xn, &dxn, err);
  if (st) return st;
  *stop = cgm_floor_reached(&R->floor, sqrt(hs->rr_last), rt, xn, dxn, R->thr);
  if (*stop) {
    S->final = *hs;
    S->final.rr_last = rt * rt;
    S->final.done = CGM_RUN_STALLED;
    return CGM_OK;
  }
  const double floor = R->floor.unit * xn;
  if (R->thr <= CGM_DOUBLE_ROUNDOFF * dxn && floor > R->thr && rt <= R->floor.bnorm &&
      !R->claim_at_floor) {
    R->claim_at_floor = true;
    R->stall.bounded = true; /* a claim there is the floor: the bound decides */
    R->claim_thr = floor * floor;
    cgm_cuda_dev *d = &S->dev[0];
    CGM_CUDA_TRY(err, cudaMemcpyAsync(&d->state->thr, &R->claim_thr, sizeof R->claim_thr,
                                      cudaMemcpyHostToDevice, d->stream));
    CGM_CUDA_TRY(err, cudaStreamSynchronize(d->stream));
  }
  return CGM_OK;
}

static bool reliable_due(const reliable *R, const cgm_cg_state *hs) {
  if (!R->on) return false;
  if (hs->done == CGM_RUN_CONVERGED) return true;
  /* double: after a refused claim (R->last > 0), as the CPU's */
  if (hs->done != CGM_RUN || (!R->reduced && R->last == 0)) return false;
  return sqrt(hs->rr_last) <= CGM_RELIABLE_DELTA * R->ref ||
         hs->iter - R->last >= cgm_reliable_window(hs->iter);
}

/* Replaces the residual after the stream's work; *stop set when the solve
 * ends here (converged, or stalled), with S->final the state to report. */
static cgm_status reliable_step(gpu_solver *S, reliable *R, const cgm_cg_state *hs, bool *stop,
                                cgm_error *err) {
  const bool claimed = hs->done == CGM_RUN_CONVERGED;
  double rt, xn;
  cgm_status st = gs_replace(S, claimed, &rt, &xn, err);
  if (st) return st;
  S->final = *hs;
  S->final.rr_last = rt * rt;
  *stop = true;
  if (rt <= R->thr) {
    S->final.done = CGM_RUN_CONVERGED;
  } else if (cgm_reliable_stalled(&R->stall, claimed, sqrt(hs->rr_last), rt, xn, hs->iter)) {
    S->final.done = CGM_RUN_STALLED;
  } else {
    *stop = false;
    R->ref = rt;
    R->last = hs->iter;
  }
  return CGM_OK;
}

/* The graph loop: graph g+1 is queued before the host waits for graph g. Graph g copies device 0's
 * state into host_state[g % 2] and is followed by event ev[g % 3]; its time is ev[(g - 1) % 3] ->
 * ev[g % 3], and its own, without the wait for a host held up, from ev[3 + g % 3] before it. A
 * replacement waits for the graph in flight (none is queued behind it), runs, and the next graph's
 * time starts after it. A monitor that keeps x has each graph queued only after it read the one
 * before (x is then that graph's). */
cgm_status gs_graph_loop(gpu_solver *S, const cgm_problem *pb, cgm_solve_result *res,
                         const cgm_cg_state **fin, cgm_error *err) {
  cgm_cuda_dev *d = &S->dev[0];
  const int K = S->pol.K;
  /* A claim the true residual refutes stops its graph early, and the graph queued behind it runs no
   * iteration: at least one iteration every two graphs (the device stops at maxiter), so 2 maxiter
   * + 3 bound them; their times' array grows as they come. */
  const int nbatch_max = pb->maxiter < (INT_MAX - 3) / 2 ? 2 * pb->maxiter + 3 : INT_MAX;
  struct {
    double s, own, t0, t1; /* its time from the one before, and from its start; when (watched) */
    int active;            /* iterations it ran */
  } *times = NULL, t = {0, 0, 0, 0, 0};
  /* opts.share_watch: each graph's own time less another process's turns inside it */
  cgm_share_watch w = {};
  int cap = 0;
  cgm_status st = CGM_OK;
  int nb = 0, last_iter = 0;
  bool pending = false, queued = false;
  reliable R = {S->pol.reliable != 0,
                S->pol.reduced != 0,
                S->pol.floor_watch != 0,
                pb->tol * pb->bnorm,
                S->rt0,
                0,
                cgm_reliable_start(S->rt0, cgm_residual_roundoff(pb->opts.precision), pb->anorm,
                                   S->pol.reduced != 0, pb->opts.precision == CGM_PREC_MIXED),
                cgm_floor_watch_start(S->rt0, pb->anorm, pb->bnorm)};
  const bool keep_x = pb->opts.monitor && pb->opts.monitor_x;
  double t_start = cgm_now();
  CGM_CUDA_GOTO(st, err, out, cudaSetDevice(d->dev));
  CGM_CUDA_GOTO(st, err, out, cudaEventRecord(d->ev[2], d->stream));
  if (pb->opts.share_watch) CGM_CUDA_GOTO(st, err, out, cgm_share_watch_begin(&w, d->stream));
  CGM_CUDA_GOTO(st, err, out, queue_batch(S, 0));
  for (int g = 0;; g++) {
    queued = false;
    if (g + 1 < nbatch_max && !pending && !keep_x) {
      CGM_CUDA_GOTO(st, err, out, queue_batch(S, g + 1));
      queued = true;
    }
    {
      cudaError_t we = S->G > 1 ? gs_event_wait(d->ev[g % 3], S->pol.host_timeout_s)
                                : cudaEventSynchronize(d->ev[g % 3]);
      if (we == cudaErrorTimeout) {
        st = cgm_fail(err, CGM_ERUNTIME,
                      "the %d GPUs made no progress for %.0f s (%s exchange); the solve was "
                      "abandoned: use exchange=halo",
                      S->G, S->pol.host_timeout_s, cgm_exchange_name(pb->opts.exchange));
        S->hung = 1;
        goto out;
      }
      CGM_CUDA_GOTO(st, err, out, we);
    }
    float ms = 0;
    CGM_CUDA_GOTO(st, err, out, cudaEventElapsedTime(&ms, d->ev[(g + 2) % 3], d->ev[g % 3]));
    t.s = ms * 1e-3;
    CGM_CUDA_GOTO(st, err, out, cudaEventElapsedTime(&ms, d->ev[3 + g % 3], d->ev[g % 3]));
    t.own = ms * 1e-3;
    if (w.s) {
      CGM_CUDA_GOTO(st, err, out, cudaEventElapsedTime(&ms, w.origin, d->ev[3 + g % 3]));
      t.t0 = ms * 1e-3, t.t1 = t.t0 + t.own;
      CGM_CUDA_GOTO(st, err, out, cgm_share_watch_feed(&w));
    }
    const cgm_cg_state *hs = d->host_state[g % 2];
    t.active = hs->iter - last_iter;
    last_iter = hs->iter;
    if (!cgm_push(&times, &nb, &cap, &t, sizeof t, pb->maxiter / K + 3)) {
      st = cgm_fail(err, CGM_ERUNTIME, "out of host memory");
      goto out;
    }
    /* host_state is read here anyway: the monitor costs no synchronisation */
    cgm_monitor_report(&pb->opts, &S->mon_last, hs->iter, sqrt(hs->rr_last) / pb->bnorm, false,
                       gs_monitor_x, S);
    const bool ended = hs->done != CGM_RUN && hs->done != CGM_RUN_CONVERGED;
    if (!ended && (pending || reliable_due(&R, hs) || floor_due(&R, hs))) {
      if (queued) { /* after the graph in flight, with nothing queued behind it */
        pending = true;
        continue;
      }
      pending = false;
      bool stop = false, replaced = false;
      /* a claim or a replacement due first; else the probe (hs may have
       * moved on from the state that made it due) */
      if (reliable_due(&R, hs)) {
        if ((st = reliable_step(S, &R, hs, &stop, err))) goto out;
        replaced = true; /* S->final: hs with the true residual */
      } else if (hs->done == CGM_RUN && R.watch && R.last == 0) {
        if ((st = floor_step(S, &R, hs, &stop, err))) goto out;
      }
      if (!stop && g + 1 >= nbatch_max) { /* no graph left to run: as at maxiter */
        if (!replaced) S->final = *hs;
        S->final.done = CGM_RUN_MAXITER;
        stop = true;
      }
      if (stop) {
        *fin = &S->final;
        break;
      }
    } else if (hs->done || g + 1 >= nbatch_max) {
      *fin = hs;
      break;
    } else if (queued) {
      continue;
    }
    /* nothing queued: the next graph, whose time starts here */
    CGM_CUDA_GOTO(st, err, out, cudaEventRecord(d->ev[g % 3], d->stream));
    if (g + 1 < nbatch_max) CGM_CUDA_GOTO(st, err, out, queue_batch(S, g + 1));
  }
  CGM_CUDA_GOTO(st, err, out, cudaStreamSynchronize(d->stream));
  res->time_solve_s = cgm_now() - t_start;
  if (w.s) CGM_CUDA_GOTO(st, err, out, cgm_share_watch_pause(&w, &res->gpu_share));
  for (int b = 0; w.h && b < nb; b++)
    times[b].own -= cgm_share_watch_gaps(&w, times[b].t0, times[b].t1);
  {
    /* Median over full graphs after the first (warm-up), per iteration; the low decile of their own
     * times (from their starts). */
    double *tt = (double *)malloc(2 * ((size_t)nb + 1) * sizeof *tt), *to = tt ? tt + nb + 1 : NULL;
    int nt = 0, isum = 0;
    double tsum = 0.0;
    for (int b = 0; b < nb; b++) {
      tsum += times[b].s;
      isum += times[b].active;
      if (b > 0 && times[b].active == K && tt) tt[nt] = times[b].s / K, to[nt++] = times[b].own / K;
    }
    res->time_per_iter_s = isum > 0 ? tsum / isum : 0.0;
    res->time_per_iter_low_s = res->time_per_iter_s;
    if (nt > 0)
      res->time_per_iter_s = cgm_median(tt, nt), cgm_median_low(to, nt, &res->time_per_iter_low_s);
    free(tt);
  }
out:
  cgm_share_watch_free(&w);
  free(times);
  return st;
}
