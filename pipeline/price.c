/* SPDX-License-Identifier: GPL-3.0-or-later */
/* One configuration's predicted time per iteration: what a solve, a
 * validation run and --reorder auto's verdict are compared with. */
#include <math.h>

#include "cgmodel/model.h"
#include "pipeline/steps.h"

/* fsec: A's own features, whose sectors of x the plan may take (NULL: they
 * are counted; cgm_predict_config is also given a renumbered A beside the
 * features of the original, whose sizes match but whose sectors do not). */
static cgm_status predict(const cgm_csr *A, const cgm_features *f, const cgm_features *fsec,
                          const cgm_tuner_device *dev, const cgm_solve_opts *o, double *seconds,
                          cgm_plan *plan, bool *planned, cgm_error *err) {
  *seconds = NAN;
  *planned = false;
  /* the curves of the precision the iteration runs in (mixed: single's) */
  const int pr = (int)cgm_precision_iter(o->precision);
  if (!dev->have[pr]) return CGM_OK;
  if (o->backend == CGM_BACKEND_CUSPARSE) {
    *seconds = cgm_refined_cusparse_time(&dev->model[pr], f->nnz, f->x);
    return CGM_OK;
  }
  cgm_status st = cgm_solve_plan_known(A, fsec, o, plan, err);
  if (st) return st;
  *planned = true;
  *seconds = cgm_refined_time(&dev->model[pr], plan);
  return CGM_OK;
}

cgm_status pipeline_predict_plan(const cgm_csr *A, const cgm_features *f,
                                 const cgm_tuner_device *dev, const cgm_solve_opts *o,
                                 double *seconds, cgm_plan *plan, bool *planned, cgm_error *err) {
  return predict(A, f, f, dev, o, seconds, plan, planned, err);
}

cgm_status cgm_predict_config(const cgm_csr *A, const cgm_features *f, const cgm_tuner_device *dev,
                              const cgm_solve_opts *o, double *seconds, cgm_error *err) {
  cgm_plan plan;
  bool planned;
  return predict(A, f, NULL, dev, o, seconds, &plan, &planned, err);
}
