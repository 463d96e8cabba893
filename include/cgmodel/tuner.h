/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The search over configurations: every block size x GPU count x precision x backend (and exchange
 * mode on several GPUs) of the calibrated devices, each timed by the model on its plan and checked
 * against device memory; the fastest wins, ties go to fewer GPUs. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cgmodel/export.h"
#include "cgmodel/model.h"
#include "cgmodel/plan.h"
#include "cgmodel/sparse.h"

CGM_BEGIN_DECLS

/* A calibrated device as the tuner sees it. */
typedef struct cgm_tuner_device {
  char name[256]; /* "cpu (AMD EPYC ...)" or "NVIDIA H200" */
  bool is_cpu;
  int gpus;          /* GPUs of this model in the calibrated node */
  int threads;       /* CPU: the OpenMP threads its calibration ran (its solves must too) */
  int64_t mem_bytes; /* per GPU (0: unknown, assume it fits) */
  int64_t calibration_id;
  char cg[16];               /* GPU: the CG its whole-iteration curves timed (cgm_calibration_cg) */
  bool have[2];              /* per precision */
  cgm_device_model model[2]; /* per precision: the refined model's curves */
  cgm_device_model paper[2]; /* the paper's model: its avg fits (Sec. 6.2), else max, else rel */
  cgm_setup_model setup;     /* layout build + upload (fitted on its setups, or the default) */
  cgm_setup_model setup_dev; /* the setups whose layout the GPU builds (cgm_plan_layout_on_device);
                                samples = 0: `setup` stands for it */
  double start_s;            /* a GPU's start (driver, context) as calibrated; 0: the CPU, none */
  double mixed_ratio;        /* mixed precision's iterations over double's (<= 0: 1.2) */
  bool mixed_measured;       /* mixed_ratio is this matrix's own, from solves recorded in both
                                precisions (or its most hopeful, for a run to measure it): mixed
                                leads by CGM_MIXED_MARGIN_MEASURED */
  uint64_t fingerprint;      /* of the calibration's fits and coefficients as loaded: a verdict
                                kept from them is stale once a refit changes them */
  char interconnect[272];    /* the profile its exchanges are priced by: its calibration's own
                                (cgm_db_calibration.interconnect), or a what-if's; "" none */
  int what_if_from;          /* its candidates on this many GPUs or more are what-ifs (0: none) */
} cgm_tuner_device;

typedef struct cgm_candidate {
  int device; /* index into the device list */
  cgm_backend backend;
  cgm_precision precision;
  int block, gpus;
  cgm_exchange exchange;  /* several GPUs only */
  double time_per_iter_s; /* NaN when the calibration lacks a curve */
  double gflops_raw;      /* Eq. 7: (2 e_N + 15 x) / T */
  double gflops_real;     /* Eq. 8: (2 nnz + 15 x) / T */
  double speedup;         /* over 1 GPU, same device, block, precision */
  double exchange_bytes;  /* per iteration */
  int64_t memory_bytes;   /* per GPU (host memory for the CPU) */
  bool fits;
  double setup_s;    /* predicted setup: layout build and upload */
  double iterations; /* K for this precision (mixed: double's K times the mixed ratio) */
  double total_s;    /* setup_s + iterations * time_per_iter_s: what the choice minimises */
  bool what_if;      /* on more GPUs than are here or than its calibration measured together
                        (cgm_tuner_what_if) */
  cgm_values values; /* the values' storage priced: what a solve of it takes (cgm_values_pick) */
} cgm_candidate;

typedef struct cgm_tuner_opts {
  int max_gpus;        /* <= 0: every GPU of the device */
  int block;           /* 0: every block size */
  unsigned precisions; /* bit (1 << cgm_precision) */
  unsigned exchanges;  /* bit (1 << cgm_exchange) considered on several GPUs */
  bool cusparse;       /* the cuSPARSE baseline as a candidate */
  bool paper;          /* time by the paper's Eqs. 4-9 instead of the refined model */
  double tol;          /* the tolerance to meet (<= 0: CGM_DEFAULT_TOL); single precision is offered
                          below CGM_SINGLE_MIN_TOL only when it alone is asked for */
  double iterations;   /* double precision's iteration count K (<= 0: cgm_iterations_estimate) */
  cgm_storage storage; /* the values' storage asked (default auto), priced as a solve takes it */
} cgm_tuner_opts;

/* Below this tolerance single precision is not offered: its true residual
 * stalls near 1e-5..1e-6 (docs/accuracy.md); mixed precision reaches it. */
#define CGM_SINGLE_MIN_TOL 1e-4
/* Mixed precision on a GPU replaces its residual about once every this many iterations (a tenfold
 * fall at the rates measured): one double SpMV each. A CPU's are priced by their own schedule. */
#define CGM_MIXED_REPLACE_EVERY 40.0

CGM_API cgm_tuner_opts cgm_tuner_opts_default(void);
/* The most GPUs o prices on these devices (their GPUs, what-ifs included, at most o->max_gpus). */
CGM_API int cgm_tuner_max_gpus(const cgm_tuner_device *devs, int ndev, const cgm_tuner_opts *o);

/* What-if (docs/model.md): prices the GPU device d on up to `gpus` GPUs (at least its
 * calibration's), the exchange on 2 or more by the profile of prof (a calibration on several GPUs,
 * its curves on more GPUs than it measured those of the most; of one GPU, its host-staged curve for
 * every mode; NULL: the built-in CGM_PCIE_HOST) named `name`, where prof is d itself only beyond
 * the GPUs d measured; present: the GPUs of d's model on this machine. Sets d->what_if_from to the
 * first count beyond both. A CPU is left alone. */
CGM_API void cgm_tuner_what_if(cgm_tuner_device *d, int gpus, int present,
                               const cgm_tuner_device *prof, const char *name);

/* The plan a candidate is timed on, counted from A's block pattern: it depends on the matrix and
 * the configuration alone, not on any calibration, so a caller may keep it (beside the matrix's
 * cache entry) and price it anew against another calibration. */
typedef struct cgm_tuner_plan {
  cgm_plan plan;     /* our CUDA kernels' (block size, GPUs and exchange in plan.o) */
  bool cpu_split;    /* one GPU's plan puts long rows apart; the CPU's, in cpu_plan, does not */
  cgm_plan cpu_plan; /* the CPU's one layout, when cpu_split */
} cgm_tuner_plan;

/* The plans of every block size (or `block` alone; 0: all) on 1..max_gpus
 * GPUs, over the exchanges of `exchanges` on several: the expensive part of
 * the search (one walk of A's pattern a block size). *out is malloc'ed. */
CGM_API cgm_status cgm_tuner_plans(const cgm_csr *A, int max_gpus, int block, unsigned exchanges,
                                   cgm_tuner_plan **out, int *count, cgm_error *err);

/* Every candidate of those plans on the devices, timed by their models
 * (cheap: no pass over the matrix), and the cuSPARSE baseline from f's
 * sizes; *out is malloc'ed. A plan o does not ask for is left out. */
CGM_API cgm_status cgm_tuner_price(const cgm_tuner_plan *plans, int nplans, const cgm_features *f,
                                   const cgm_tuner_device *devs, int ndev, const cgm_tuner_opts *o,
                                   cgm_candidate **out, int *count, cgm_error *err);

/* cgm_tuner_plans, then cgm_tuner_price; *out is malloc'ed. */
CGM_API cgm_status cgm_tuner_candidates(const cgm_csr *A, const cgm_features *f,
                                        const cgm_tuner_device *devs, int ndev,
                                        const cgm_tuner_opts *o, cgm_candidate **out, int *count,
                                        cgm_error *err);

/* Mixed precision is chosen over double only when predicted at least this
 * much faster: the model put it at 0.59-0.99 of double's total where an
 * H100 measured 0.76-3.4 (validate --total 1e-8, 35 matrices). */
#define CGM_MIXED_MARGIN 0.10
/* ... and this much where both its K and double's are the matrix's own runs': what is left is the
 * time per iteration's error, within 10% and mostly shared by the two (one kernel family, one
 * device's curves). */
#define CGM_MIXED_MARGIN_MEASURED 0.03

/* The candidate with the least predicted total time (setup + K iterations) that fits (ties within
 * 1% go to fewer GPUs, then to the CPU); -1 when none. `why` gets one line of explanation. */
CGM_API int cgm_tuner_choose(const cgm_candidate *c, int count, const cgm_tuner_device *devs,
                             char *why, size_t nwhy);

/* solve --reorder auto: whether reverse Cuthill-McKee pays on the predicted
 * total, its cost + K t_iter. */
typedef struct cgm_reorder_advice {
  bool rcm;           /* reorder */
  double t_iter_none; /* predicted s per iteration as numbered (NaN: no prediction) */
  double t_iter_rcm;  /* and in the RCM numbering */
  double cost_s;      /* the reordering, measured on the host */
  double iterations;  /* K: the iterations expected (as the tuner's totals take it) */
  int64_t bandwidth_none, bandwidth_rcm; /* bandwidth_rcm: -1 when RCM was not computed */
  /* The most any numbering could save over K iterations (x read in its
   * least sectors, no row scatter); below the least RCM can cost, RCM is
   * not computed (rcm_computed false, t_iter_rcm NaN). */
  double gain_bound_s;
  bool rcm_computed;
  char why[256];
} cgm_reorder_advice;

/* A floor under RCM's host cost per stored entry: a quarter of the 22 ns
 * measured on 2 cores, so that it never skips an RCM that would pay. */
#define CGM_RCM_FLOOR_S_PER_NNZ 5e-9
#define CGM_RCM_NEARER 0.9 /* RCM weighed only where its mean |i - j| is under this of A's own */

/* Fills a->rcm and a->why from its times: RCM when cost_s + K t_iter_rcm is
 * below K t_iter_none by more than 1% (NaN times: no reordering). */
CGM_API void cgm_tuner_reorder(cgm_reorder_advice *a);

CGM_END_DECLS
