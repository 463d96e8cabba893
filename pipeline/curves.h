/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Where a stored fit goes in a device model (shared by the loader and by
 * calibrate's own overhead model, so the two read fits the same way). */
#pragma once

#include <stdbool.h>

#include "cgmodel/db.h"
#include "cgmodel/model.h"
#include "cgmodel/sample.h"
#include "cgmodel/solver.h"

/* The loader's slots, one per curve of a precision (its rank of fit kinds):
 * spmv 0-3, cg4 4, cg5 5, red 6, cusparse 7, xfer 8 + 8 exchange + gpus
 * (up to 47), iteration 48-51, row 52-55, band 56-59. */
enum {
  PIPELINE_SLOT_SPMV = 0,
  PIPELINE_SLOT_CG4 = 4,
  PIPELINE_SLOT_CG5 = 5,
  PIPELINE_SLOT_RED = 6,
  PIPELINE_SLOT_CUSPARSE = 7,
  PIPELINE_SLOT_XFER = 8,
  PIPELINE_SLOT_ITER = 48,
  PIPELINE_SLOT_ROW = 52,
  PIPELINE_SLOT_BAND = 56,
  PIPELINE_SLOT_ITERC = 60,
  PIPELINE_SLOTS = 64
};

/* Whether a sample's source is a Poisson grid ("poisson2d:K", "poisson3d:K"): the SpMV samples of
 * the "mesh" curve (pipeline/calibrate.c), and of its foot (pipeline/models.c). */
bool pipeline_on_mesh(const char *source);

/* Whether sample a is of a group: kernel, precision, block and variant,
 * the SpMV's "all" any variant, its "mesh" any on a Poisson grid. */
bool pipeline_in_group(const cgm_sample *a, const char *kernel, const char *variant, int prec,
                       int block);

/* The curve of a spmv ("mesh" or "all" variant), iter ("mesh", "meshc", "row" or "band"), cg4
 * or cg5 fit: its sigmoid, its second regime, its have flag (NULL for cg4
 * and cg5) and its slot. NULL for another kernel. */
cgm_sigmoid *pipeline_kernel_curve(cgm_device_model *m, const cgm_db_fit *f, cgm_regime **hi,
                                   bool **have, int *slot);

/* cgm_db_samples' callback appending to the cgm_sample_vec vec. */
int pipeline_collect_sample(const cgm_db_sample *s, void *vec);

/* Places a calibration's coefficient (cgm_db_coef) in m; a non-finite or
 * negative value, a gather rate of 0, or another name is left out. */
void pipeline_place_coef(cgm_device_model *m, const cgm_db_coef *q);

/* Places the CGM_FIT_INTERP fit f as its curve in m, which then counts as
 * calibrated: cgm_curve_points of its group's samples among v[0..n). */
void pipeline_place_interp(cgm_device_model *m, const cgm_db_fit *f, const cgm_sample *v, int n);

/* Calibration: for every "mgpu" sample of a Poisson grid (source "poisson2d:K" or "poisson3d:K"),
 * an "xfer" sample (same variant, GPUs, precision and bytes, m = bytes / width) whose time is the
 * measured iteration minus the slowest GPU's compute time predicted by the fits (the single-GPU
 * curves), never below 5% of the iteration: what the exchange and the synchronisation cost, on the
 * plan the sweep ran (gpu: its cut). Other samples are left alone. */
cgm_status pipeline_derive_xfer(cgm_sample_vec *sv, const cgm_db_fit *fits, int nfits,
                                const cgm_gpu_opts *gpu, cgm_error *err);
