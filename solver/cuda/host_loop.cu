/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The paper's host-driven loop (gpu_solver.h). */
#include <math.h>
#include <stdlib.h>

#include "common/timer.h"
#include "solver/cuda/gpu_solver.h"

cgm_status gs_host_loop(gpu_solver *S, const cgm_problem *pb, cgm_solve_result *res,
                        cgm_cg_state *fin, cgm_error *err) {
  int ntimed = pb->maxiter < CGM_MAX_TIMED ? pb->maxiter : CGM_MAX_TIMED, it = 0;
  double *times = (double *)malloc(((size_t)ntimed + 1) * sizeof *times);
  cgm_status st = CGM_OK;
  double t0 = cgm_now(), tprev = t0;
  if (!times) return cgm_fail(err, CGM_ERUNTIME, "out of host memory");
  for (;;) {
    const int slot = it % 2, prev = 1 - slot;
    /* the launches of the graphs' iteration (no flags, no PDL: plain launches), the sums and the
     * vector through the host in between */
    CGM_CUDA_GOTO(st, err, out, gs_spmv(S, slot));
    CGM_CUDA_GOTO(st, err, out, gs_host_reduce(S, slot, 0, 1));
    CGM_CUDA_GOTO(st, err, out, gs_cg4(S, slot, prev));
    CGM_CUDA_GOTO(st, err, out, gs_host_reduce(S, slot, 1, 2));
    CGM_CUDA_GOTO(st, err, out, gs_cg5(S, slot, prev));
    CGM_CUDA_GOTO(st, err, out, gs_host_exchange(S));
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
    if (pb->opts.monitor) { /* the callback's time is no iteration's */
      cgm_monitor_report(&pb->opts, &S->mon_last, fin->iter, sqrt(fin->rr_last) / pb->bnorm, false,
                         gs_monitor_x, S);
      tprev = cgm_now();
    }
    if (fin->done) break;
  }
  res->time_solve_s = cgm_now() - t0;
  {
    int nt = it < ntimed ? it : ntimed;
    res->time_per_iter_s =
        cgm_median_low(times + (nt > 1), nt - (nt > 1), &res->time_per_iter_low_s);
  }
out:
  free(times);
  return st;
}
