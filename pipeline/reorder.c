/* SPDX-License-Identifier: GPL-3.0-or-later */
/* solve --reorder auto, and predict's line about it: reverse Cuthill-McKee is computed and timed on
 * the host, both numberings are predicted with the configuration's device model, and the tuner
 * weighs the cost against K iterations (cgm_tuner_reorder). Without a locality term in the
 * calibration both numberings predict alike and nothing is reordered. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cgmodel/model.h"
#include "cgmodel/pipeline.h"
#include "common/timer.h"
#include "pipeline/steps.h"

/* The model's time per iteration as numbered, and with every segment's x read in its least sectors
 * (the features' x locality at the plan's block size and width, its long rows' too) and its longest
 * row reading x in order (row scatter 0: the walk's scatter term is a numbering's too): the most a
 * renumbering could gain. NaN: no model. */
static cgm_status locality_bound(const cgm_csr *A, const cgm_features *f,
                                 const cgm_tuner_device *dev, const cgm_solve_opts *o,
                                 const cgm_plan *given, double *t_none, double *t_ideal,
                                 cgm_error *err) {
  *t_none = *t_ideal = NAN;
  const cgm_precision it = cgm_precision_iter(o->precision);
  if (o->backend == CGM_BACKEND_CUSPARSE) return CGM_OK; /* CSR as it is: nothing to bound */
  cgm_plan plan;
  bool planned = given != NULL;
  cgm_status st = CGM_OK;
  if (given)
    plan = *given;
  else
    st = pipeline_predict_plan(A, f, dev, o, t_none, &plan, &planned, err);
  if (st || !planned) return st;
  const cgm_device_model *m = &dev->model[(int)it];
  *t_none = cgm_refined_time(m, &plan);
  const int w = it == CGM_PREC_DOUBLE ? 0 : 1;
  double loc = 1.0;
  for (int i = 0; i < CGM_NBLOCKSIZES; i++)
    if (f->block[i].n == plan.o.layout.n && f->block[i].x_locality[w] > 1.0)
      loc = f->block[i].x_locality[w];
  for (int g = 0; g < plan.nseg; g++) {
    plan.seg[g].x_sectors[w] = (int64_t)ceil((double)plan.seg[g].x_sectors[w] / loc);
    plan.seg[g].long_x_sectors[w] = (int64_t)ceil((double)plan.seg[g].long_x_sectors[w] / loc);
    plan.seg[g].row_scatter[w] = 0.0;
  }
  *t_ideal = cgm_refined_time(m, &plan);
  return CGM_OK;
}

cgm_status cgm_reorder_decide(const cgm_csr *A, const cgm_features *f, const cgm_tuner_device *dev,
                              const cgm_solve_opts *o, double iterations, const cgm_plan *plan_none,
                              cgm_reorder_advice *a, cgm_error *err) {
  memset(a, 0, sizeof *a);
  a->t_iter_none = a->t_iter_rcm = NAN;
  a->bandwidth_rcm = -1;
  a->iterations = iterations > 0 ? iterations : cgm_iterations_estimate(A->nrows, cgm_solve_tol(o));
  cgm_solve_opts po = *o;
  po.reorder = CGM_REORDER_NONE;
  double t_ideal;
  cgm_status st = locality_bound(A, f, dev, &po, plan_none, &a->t_iter_none, &t_ideal, err);
  if (st) return st;
  double far = 0.0, near = 0.0; /* mean |i - j| as numbered, and after RCM */
  cgm_csr_spread(A, NULL, &a->bandwidth_none, &far);
  a->gain_bound_s = a->iterations * fmax(0.0, a->t_iter_none - t_ideal);
  const double floor_s = CGM_RCM_FLOOR_S_PER_NNZ * (double)A->nnz;
  /* Cheap first: when even the least sectors cannot repay the least RCM costs, neither RCM nor the
   * permuted matrix's plan is computed (at 49M entries they took seconds on a 16-core host). Only
   * for --reorder auto: --reorder rcm wants the prediction of the numbering it runs. */
  if (o->reorder == CGM_REORDER_AUTO && isfinite(a->gain_bound_s) && a->gain_bound_s <= floor_s) {
    snprintf(a->why, sizeof a->why,
             "no reordering: even with x read in its least sectors and in order along its "
             "longest row the model saves at most "
             "%.3g s over %.0f iterations, less than RCM costs (over %.3g s)",
             a->gain_bound_s, a->iterations, floor_s);
    return CGM_OK;
  }
  const double t0 = cgm_now();
  int32_t *perm = malloc(((size_t)A->nrows + 1) * sizeof *perm),
          *to = malloc(((size_t)A->nrows + 1) * sizeof *to);
  cgm_csr B = {0};
  st = perm && to ? cgm_rcm(A, perm, err) : cgm_fail(err, CGM_ERUNTIME, "out of memory");
  if (!st) {
    for (int32_t i = 0; i < A->nrows; i++) to[perm[i]] = i;
    cgm_csr_spread(A, to, &a->bandwidth_rcm, &near);
  }
  /* An RCM that leaves the columns about as far from their rows cannot read x in fewer sectors:
   * neither its matrix nor its plan is made (--reorder auto; a grid in its natural numbering) */
  if (!st && o->reorder == CGM_REORDER_AUTO && near > CGM_RCM_NEARER * far) {
    a->cost_s = cgm_now() - t0;
    snprintf(a->why, sizeof a->why,
             "no reordering: RCM leaves entries %.3g apart (mean), %.3g as numbered", near, far);
  } else if (!st) {
    st = cgm_csr_permute(A, perm, &B, err);
    a->cost_s = cgm_now() - t0;
    if (!st) st = cgm_predict_config(&B, f, dev, &po, &a->t_iter_rcm, err);
    if (!st) a->rcm_computed = true, cgm_tuner_reorder(a);
  }
  cgm_csr_free(&B);
  free(perm), free(to);
  return st;
}
