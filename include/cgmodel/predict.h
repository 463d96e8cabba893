/* SPDX-License-Identifier: GPL-3.0-or-later */
/* `cgmodel predict`: every configuration of the calibrated devices for one
 * matrix, timed by the model, and the tuner's choice; and the choice
 * `solve --auto` makes among this machine's devices. */
#pragma once

#include <stdbool.h>

#include "cgmodel/pipeline.h"

CGM_BEGIN_DECLS

/* ------------------------------------------- predict (predict.c) --- */

typedef struct cgm_predict_opts {
  const char *matrix;   /* A.mtx */
  const char *kind;     /* the devices: "cpu", "cuda", NULL for every calibrated one */
  cgm_tuner_opts tuner; /* the configurations to time (block, GPUs, precisions, ...) */
  cgm_gpu_opts gpu;     /* the GPU solver's options: a calibration of another CG is warned of */
  double iters_hint;    /* double precision's iteration count K when the user knows it (<= 0:
                           the database's record of this matrix at tuner.tol, else estimated) */
  cgm_cache_opts cache; /* the matrix cache (dir NULL: none; with csr: its content's entry) */
  cgm_note_fn note;     /* warnings (stale calibrations); NULL: none */
  void *note_ctx;
  const cgm_csr *csr;       /* a matrix in memory (bindings): used instead of reading `matrix`,
                               which then only names it; NULL: read the file */
  const char *interconnect; /* the profile of what-ifs past the GPUs measured (cgm_what_if);
                               NULL: the best measured, else CGM_PCIE_HOST */
} cgm_predict_opts;

typedef struct cgm_predict_report {
  cgm_tuner_device *devs; /* the calibrated devices (malloc'ed), the candidates' device index */
  int ndev;
  cgm_features features;
  cgm_mm_info mm;      /* what the reader saw in the file */
  cgm_candidate *cand; /* every configuration, timed (malloc'ed) */
  int ncand;
  int choice;                 /* index in cand of the tuner's choice; -1: nothing to recommend */
  char why[512];              /* the choice and why, or why there is none (cgm_tuner_choose) */
  double iterations;          /* double precision's K the totals use */
  char k_source[16];          /* where K came from: "hint", "database", "probe" or "estimate" */
  bool have_reorder;          /* solve --reorder auto's decision for the choice: */
  cgm_reorder_advice reorder; /* cgm_reorder_decide (not for the cuSPARSE baseline) */
  cgm_cache_report cache;     /* how A was read, and what of it was kept beside its entry: */
  bool check_cached, features_cached, plans_cached; /* its checks passed, features, plans */
} cgm_predict_report;

/* Every configuration of the calibrated devices for one matrix, timed by the model, and the tuner's
 * choice (cgm_tuner_candidates, cgm_tuner_choose). CGM_EINPUT when the database holds no
 * calibration of the devices asked for; a choice of -1 is a result, not an error. Free the report
 * with cgm_predict_report_free, also after an error. */
CGM_API cgm_status cgm_predict(cgm_db *db, const cgm_predict_opts *o, cgm_predict_report *r,
                               cgm_error *err);
CGM_API void cgm_predict_report_free(cgm_predict_report *r);

/* The device a candidate runs on, as predict names it: "cpu", or the GPU's
 * model (cut at 200 characters). */
CGM_API void cgm_candidate_device(const cgm_candidate *c, const cgm_tuner_device *devs, char *out,
                                  size_t n);

/* ------------------------------------------ autotune (autotune.c) --- */

/* What the user fixed of the configuration the tuner chooses. */
typedef struct cgm_autotune_opts {
  bool backend_given; /* backend fixed: cpu keeps the CPU alone, cuda or cusparse the GPU */
  cgm_backend backend;
  bool precision_given; /* precision fixed; else double, mixed and (at loose tolerances)
                           single are candidates */
  cgm_precision precision;
  double tol;        /* the tolerance the solve must meet (<= 0: CGM_DEFAULT_TOL) */
  double iterations; /* double precision's iteration count when known; <= 0: estimated */
  /* Block-Jacobi of a block fixed apart from the layout (the matrix's point
   * block, or given): the same preconditioner, so the same iterations, at
   * every block size N; cuSPARSE (Jacobi only) is then no candidate. */
  bool block_jacobi;
  /* The tuner's plans of A when already counted (cgm_tuner_plans, kept beside the matrix's cache
   * entry): priced, A's pattern not walked again; NULL: counted here. */
  const cgm_tuner_plan *plans;
  int nplans;
} cgm_autotune_opts;

typedef struct cgm_autotune_result {
  bool chosen;          /* false: nothing to run, `why` says why (no calibration of this
                           machine's devices, or no configuration with a prediction) */
  cgm_candidate choice; /* the tuner's choice; its device indexes the devs given */
  char why[512];        /* the choice and why (cgm_tuner_choose), or why none */
} cgm_autotune_result;

/* The tuner's choice among this machine's calibrated devices (cgm_host_match over devs: the CPU and
 * GPU 0's model, with at most the GPUs present), over the halo and p2p exchanges, the cuSPARSE
 * baseline and the precisions allowed. When one is chosen, o's backend, precision, layout (the
 * configuration's B_x), GPU count and exchange are set to it; its other fields (tolerance, threads,
 * GPU options) are left as given. Errors are failures of the tuner itself (memory); no choice is
 * r->chosen false. */
CGM_API cgm_status cgm_autotune(const cgm_csr *A, const cgm_features *f,
                                const cgm_tuner_device *devs, int ndev, const cgm_host *host,
                                const cgm_autotune_opts *c, cgm_solve_opts *o,
                                cgm_autotune_result *r, cgm_error *err);

CGM_END_DECLS
