/* Predictions: one configuration's time per iteration (what a solve or a
 * validation run is compared with). */
#include <math.h>

#include "cgmodel/pipeline.h"

cgm_status cgm_predict_config(const cgm_csr *A, const cgm_features *f, const cgm_tuner_device *dev,
                              const cgm_solve_opts *o, double *seconds, cgm_error *err) {
  *seconds = NAN;
  const int pr = o->precision;
  if (!dev->have[pr]) return CGM_OK;
  if (o->backend == CGM_BACKEND_CUSPARSE) {
    *seconds = cgm_refined_cusparse_time(&dev->model[pr], f->nnz, f->x);
    return CGM_OK;
  }
  cgm_plan plan;
  cgm_status st = cgm_solve_plan(A, o, &plan, err);
  if (st) return st;
  *seconds = cgm_refined_time(&dev->model[pr], &plan);
  return CGM_OK;
}
