/* SPDX-License-Identifier: GPL-3.0-or-later */
/* `cgmodel calibrate`: the sweeps of every device, the fits of Eq. 3 and
 * their record in the database; and a stored calibration fitted anew. */
#pragma once

#include <stdbool.h>

#include "cgmodel/pipeline.h"

CGM_BEGIN_DECLS

typedef struct cgm_calibrate_opts {
  char devices[128]; /* "cpu", "cuda:all", "cuda:0,1", "cpu,cuda:all" */
  bool quick;
  unsigned precisions; /* bit (1 << cgm_precision) */
  int threads;         /* CPU threads (<= 0: default) */
  bool strict;         /* refuse disturbed timings (store nothing) instead of flagging them */
  double cpu_share;    /* the CPU's share read just before (cgm_calibrate_cpu_share); <= 0: read */
  cgm_progress_fn progress;
  cgm_gpu_opts gpu; /* how the GPU sweeps run our solver (recorded with the calibration) */
  void *progress_ctx;
} cgm_calibrate_opts;

#define CGM_MAX_CALIBRATED 9
/* A CPU whose threads get less than this share of their CPUs' time is busy (other work runs on
 * them: two busy loops beside a 2-thread calibration on 2 cores leave it about 0.5). */
#define CGM_BUSY_SHARE 0.75
/* A GPU whose sweeps had less than this share of it over all their replays was shared (quiet ones
 * read 1.00, beside another process 0.47-0.86 on one H200: docs/calibration.md). */
#define CGM_GPU_SHARED_BELOW 0.95
/* That share for a team of `threads` (<= 0: OpenMP's default), pinned as the CPU's sweeps run, over
 * 50 ms (cgm_calibrate reads it the same way before a CPU's sweeps). */
CGM_API double cgm_calibrate_cpu_share(int threads);
/* A GPU calibration names 20 stages on several GPUs (setup, the kernel
 * sweeps, cuSPARSE, whole iterations, the fits and the coefficients'
 * sweeps, store): room to spare, since a stage past it goes unreported. */
#define CGM_MAX_STAGES 32

typedef struct cgm_stage_time {
  char name[16];
  double seconds;
} cgm_stage_time;

typedef struct cgm_calibration_report {
  int count;
  struct {
    int64_t id;
    char device[32]; /* "cpu", "cuda:0" */
    char model[256];
    int gpus;
    int samples, fits, fits_failed;
    int unsettled;     /* samples whose timings never settled (microbench/settle.c) */
    char warning[512]; /* the timings were disturbed (stored, flagged; with strict: refused) */
    double seconds;
    char failed[512]; /* the fits that did not converge */
    /* The coefficients its own sweeps fitted (cgm_coef_families), per
     * precision and, those of a block size, per block size. */
    cgm_db_coef coef[2 * (3 + 3 * CGM_NBLOCKSIZES)];
    int ncoef;
    /* Where the seconds went, in order: "setup" (the device's start: the CUDA context), each
     * sweep's stage (load, cg4, spmv, iter, ...), "fits" and "store". */
    int nstages;
    cgm_stage_time stage[CGM_MAX_STAGES];
    double cpu_share; /* a CPU's: the share of their CPUs' time its threads had at the start
                         (cgm_mb_cpu_share; 0 for a GPU); under CGM_BUSY_SHARE a quick
                         calibration leaves out what the model can do without (warning says) */
    double gpu_share; /* a GPU's: the least share of its time its kernels had, at the start and
                         as each sweep started (another process's take turns); 0 for a CPU */
  } cal[CGM_MAX_CALIBRATED];
} cgm_calibration_report;

/* The devices a --devices list names, checked against this machine: "cpu",
 * "cuda:all" (GPU 0, the multi-GPU sweeps over every GPU), "cuda:K" (one
 * GPU), "cuda:0,1,..,K-1" (the first K GPUs), comma-separated. CGM_EINPUT naming the bad item. */
typedef struct cgm_calibrate_plan_t {
  int count;
  char device[CGM_MAX_CALIBRATED][32];
  int gpus[CGM_MAX_CALIBRATED];
} cgm_calibrate_plan_t;
CGM_API cgm_status cgm_calibrate_plan(const char *devices, cgm_calibrate_plan_t *plan,
                                      cgm_error *err);

/* Calibrates every device of the list (cgm_calibrate_plan): runs the sweeps, fits Eq. 3 to every
 * kernel (avg, max, and the model's relative curve, rel and rel-hi: cgm_fit_curve), and stores the
 * samples and every fit, converged or flagged not, in one transaction at the end (an interrupted
 * run stores nothing). Disturbed timings (cgm_check_cpu_timings, or over a tenth of the samples
 * unsettled) are stored with the calibration flagged "disturbed" and a warning in the report;
 * o->strict refuses them (CGM_ERUNTIME, nothing stored). */
CGM_API cgm_status cgm_calibrate(cgm_db *db, const cgm_calibrate_opts *o,
                                 cgm_calibration_report *rep, cgm_error *err);

/* The coefficients' families: the CGM_DB_COEF_* name (one ending in '_' is a block size's), the key
 * calibrate --json gives it, the label and scale calibrate prints it with. */
typedef struct cgm_coef_family {
  const char *name, *key, *label;
  double scale;
} cgm_coef_family;
#define CGM_COEF_FAMILIES 6
CGM_API extern const cgm_coef_family cgm_coef_families[CGM_COEF_FAMILIES];
/* Whether coefficient c is of the family named: the block size's text
 * ("4"), "" for the family's own name, NULL for another family. */
CGM_API const char *cgm_coef_of(const cgm_db_coef *c, const char *family);

/* Fits a stored calibration anew from its samples (after a change to the
 * fits, without measuring again) and replaces its fits in one transaction.
 * rep->cal[0] tells the device, sample and fit counts, failed fits. */
CGM_API cgm_status cgm_refit(cgm_db *db, int64_t cal_id, cgm_calibration_report *rep,
                             cgm_error *err);

/* CPU timings that other processes disturbed: an OpenMP barrier waiting for a preempted thread
 * costs a scheduler time slice (milliseconds) whatever the size, so the smallest CG4 takes about as
 * long as the largest. Such a calibration would mislead predictions: CGM_ERUNTIME with what was
 * seen. CGM_OK with fewer than 8 CG4 samples of a precision. The CG4 samples of a precision come by
 * size, as the CPU's sweep gives them. */
CGM_API cgm_status cgm_check_cpu_timings(const cgm_sample *v, int count, cgm_error *err);

CGM_END_DECLS
