/* solve --reorder auto, and predict's line about it: reverse Cuthill-McKee
 * is computed and timed on the host, both numberings are predicted with the
 * configuration's device model, and the tuner weighs the cost against K
 * iterations (cgm_tuner_reorder). Without a locality term in the
 * calibration both numberings predict alike and nothing is reordered. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cgmodel/pipeline.h"
#include "common/timer.h"

cgm_status cgm_reorder_decide(const cgm_csr *A, const cgm_features *f, const cgm_tuner_device *dev,
                              const cgm_solve_opts *o, double iterations, cgm_reorder_advice *a,
                              cgm_error *err) {
  memset(a, 0, sizeof *a);
  a->t_iter_none = a->t_iter_rcm = NAN;
  const double t0 = cgm_now();
  int32_t *perm = malloc(((size_t)A->nrows + 1) * sizeof *perm);
  cgm_csr B;
  memset(&B, 0, sizeof B);
  cgm_status st = perm ? cgm_rcm(A, perm, err) : cgm_fail(err, CGM_ERUNTIME, "out of memory");
  if (!st) st = cgm_csr_permute(A, perm, &B, err);
  a->cost_s = cgm_now() - t0;
  cgm_solve_opts po = *o;
  po.reorder = CGM_REORDER_NONE;
  if (!st) st = cgm_predict_config(A, f, dev, &po, &a->t_iter_none, err);
  if (!st) st = cgm_predict_config(&B, f, dev, &po, &a->t_iter_rcm, err);
  if (!st) {
    a->bandwidth_none = cgm_csr_bandwidth(A);
    a->bandwidth_rcm = cgm_csr_bandwidth(&B);
    a->iterations =
        iterations > 0 ? iterations : cgm_iterations_estimate(A->nrows, cgm_solve_tol(o));
    cgm_tuner_reorder(a);
  }
  cgm_csr_free(&B);
  free(perm);
  return st;
}
