/* The steps that connect the components (DESIGN.md's pipeline): calibrate
 * (microbench -> fits -> db), the device models a prediction uses (db ->
 * model), and the record of every solve beside its prediction. Sequencing
 * only: the logic lives in the components. */
#ifndef CGMODEL_PIPELINE_H
#define CGMODEL_PIPELINE_H

#include <stdbool.h>

#include "cgmodel/db.h"
#include "cgmodel/export.h"
#include "cgmodel/solver.h"
#include "cgmodel/tuner.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Called between measurements: the stage and the fraction of the run done. */
typedef void (*cgm_progress_fn)(void *ctx, const char *stage, double done);

typedef struct cgm_calibrate_opts {
  char devices[128]; /* "cpu", "cuda:all", "cuda:0,1", "cpu,cuda:all" */
  bool quick;
  unsigned precisions; /* bit (1 << cgm_precision) */
  int threads;         /* CPU threads (<= 0: default) */
  cgm_progress_fn progress;
  cgm_gpu_opts gpu; /* how the GPU sweeps run our solver (recorded with the calibration) */
  void *progress_ctx;
} cgm_calibrate_opts;

#define CGM_MAX_CALIBRATED 9
#define CGM_MAX_STAGES 16

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
    double seconds;
    char failed[512]; /* the fits that did not converge */
    /* Where the seconds went, in order: "setup" (the device's start: the
     * CUDA context), each sweep's stage (load, cg4, spmv, iter, ...), "fits"
     * and "store". */
    int nstages;
    cgm_stage_time stage[CGM_MAX_STAGES];
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

/* Calibrates every device of the list (cgm_calibrate_plan): runs the
 * sweeps, fits Eq. 3 to every kernel (avg, max, and the model's relative
 * curve, rel and rel-hi: cgm_fit_curve), and stores the samples and every
 * fit, converged or flagged not, in one transaction at the end (an
 * interrupted run stores nothing; disturbed CPU timings are refused:
 * cgm_check_cpu_timings). */
CGM_API cgm_status cgm_calibrate(cgm_db *db, const cgm_calibrate_opts *o,
                                 cgm_calibration_report *rep, cgm_error *err);

/* Fits a stored calibration anew from its samples (after a change to the
 * fits, without measuring again) and replaces its fits in one transaction.
 * rep->cal[0] tells the device, sample and fit counts, failed fits. */
CGM_API cgm_status cgm_refit(cgm_db *db, int64_t cal_id, cgm_calibration_report *rep,
                             cgm_error *err);

/* CPU timings that other processes disturbed: an OpenMP barrier waiting for
 * a preempted thread costs a scheduler time slice (milliseconds) whatever
 * the size, so the smallest CG4 takes about as long as the largest. Such a
 * calibration would mislead every prediction: CGM_ERUNTIME with what was
 * seen (calibrate then stores nothing). CGM_OK with fewer than 8 CG4
 * samples of a precision. */
CGM_API cgm_status cgm_check_cpu_timings(const cgm_sample *v, int count, cgm_error *err);

/* The hardware this process runs on, as database device records: the CPU
 * and every CUDA device. */
CGM_API cgm_status cgm_describe_cpu(cgm_db_device *d, int threads, cgm_error *err);
CGM_API cgm_status cgm_describe_cuda(int dev, cgm_db_device *d, cgm_error *err);

/* The newest complete calibration of every device in the database, as the
 * tuner's devices (kind "cpu", "cuda" or NULL for both). *devs is malloc'ed;
 * *count may be 0. */
CGM_API cgm_status cgm_load_devices(cgm_db *db, const char *kind, cgm_tuner_device **devs,
                                    int *count, cgm_error *err);
/* The same with the curves of one fit kind (cgm_fit_kind): CGM_FIT_REL is
 * cgm_load_devices (with its fallbacks to avg and max fits); any other kind
 * takes only that kind's converged fits (the maps draw the maximum fits). */
CGM_API cgm_status cgm_load_devices_kind(cgm_db *db, const char *kind, int fit_kind,
                                         cgm_tuner_device **devs, int *count, cgm_error *err);
/* One calibration (complete or not) as a tuner device, with its fits of
 * kind `fit_kind`. CGM_EINPUT when there is no such calibration. */
CGM_API cgm_status cgm_load_calibration(cgm_db *db, int64_t cal_id, int fit_kind,
                                        cgm_tuner_device *dev, cgm_error *err);
/* The calibrated device matching this machine's CPU or CUDA device `dev`
 * (by model); -1 when none. */
CGM_API int cgm_find_device(const cgm_tuner_device *devs, int count, bool cpu, const char *model);
/* The CG whose iterations a GPU calibration timed, from its options JSON:
 * "cgg" or "classic" ("classic" when not recorded: calibrated before the
 * single-reduction CG became the default); "" for a CPU calibration. */
CGM_API void cgm_calibration_cg(const char *options_json, bool is_cpu, char *out, size_t n);
/* True, with a warning in msg, when a GPU device's calibration timed another
 * CG than the one the solver runs with these options: its predictions
 * are then off by that CG's difference (docs/perf.md). */
CGM_API bool cgm_calibration_cg_stale(const cgm_tuner_device *d, const cgm_gpu_opts *gpu, char *msg,
                                      size_t n);

/* Predicted time per iteration of one configuration (NaN if the calibration
 * lacks a curve). */
CGM_API cgm_status cgm_predict_config(const cgm_csr *A, const cgm_features *f,
                                      const cgm_tuner_device *dev, const cgm_solve_opts *o,
                                      double *seconds, cgm_error *err);

/* Stores a solve and its prediction (NaN: none). */
CGM_API cgm_status cgm_record_solve(cgm_db *db, const char *matrix_name, const char *path,
                                    int64_t file_bytes, const cgm_features *f,
                                    const cgm_solve_opts *o, const cgm_solve_result *r,
                                    double predicted, int64_t calibration_id, cgm_error *err);

#ifdef __cplusplus
}
#endif
#endif
