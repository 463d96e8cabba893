/* SPDX-License-Identifier: GPL-3.0-or-later */
/* What a calibration fits to its samples (calibrate.c runs them in order):
 *   fits.c   Eq. 3 to every kernel's groups of samples (avg, max and the model's relative curves),
 *            and the exchange samples derived from whole multi-GPU iterations
 *   coefs.c  the coefficients measured by sweeps of their own: x locality, the row scatter, the
 *            gather rate, the band load
 * calibrate_fit_all records what did not converge in rep->cal[ri]. */
#pragma once

#include "cgmodel/calibrate.h"
#include "cgmodel/sample.h"

/* What a calibration fitted: its fits, and their samples (the points of its interpolations). */
typedef struct calibrate_fits {
  const cgm_db_fit *v;
  int n;
  const cgm_sample_vec *sv;
} calibrate_fits;

/* Marks unsettled the timings more data cannot explain (fits.c). */
void calibrate_mark_impossible(cgm_sample_vec *sv);
/* Every fit of the samples sv (malloc'ed into *out, *nfits of them), after
 * calibrate_mark_impossible. */
cgm_status calibrate_fit_all(cgm_sample_vec *sv, unsigned precisions, const cgm_gpu_opts *gpu,
                             cgm_db_fit **out, int *nfits, cgm_calibration_report *rep, int ri,
                             cgm_error *err);
/* The device model of precision prec that the fits give. */
void calibrate_model_from_fits(const calibrate_fits *F, int prec, cgm_device_model *m);

/* The coefficients, each pushed onto coef[*ncoef]. */
cgm_status calibrate_fit_locality(const cgm_calibrate_opts *o, const char *device,
                                  const calibrate_fits *F, cgm_db_coef *coef, int *ncoef,
                                  cgm_error *err);
cgm_status calibrate_fit_scatter(const cgm_calibrate_opts *o, const calibrate_fits *F,
                                 cgm_db_coef *coef, int *ncoef, cgm_error *err);
cgm_status calibrate_fit_band_load(const cgm_calibrate_opts *o, const calibrate_fits *F,
                                   cgm_db_coef *coef, int *ncoef, cgm_error *err);
cgm_status calibrate_fit_gather(const cgm_calibrate_opts *o, const char *device,
                                const calibrate_fits *F, cgm_db_coef *coef, int *ncoef,
                                cgm_error *err);
