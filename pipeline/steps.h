/* SPDX-License-Identifier: GPL-3.0-or-later */
/* What the pipeline's steps share that is not public: the record of a solve of a matrix file, and
 * the list of this machine's calibrated devices that the tuner searches. */
#pragma once

#include <stdbool.h>

#include "cgmodel/pipeline.h"

/* cgm_record_solve of the matrix file at path: named by its file name, with its size (0 when it
 * cannot be seen), and known by its content (cgm_cache_report.content_id; 0: unknown); memory: path
 * is a matrix in memory's name, recorded as NAME@CONTENT. f holds the block sizes counted so far: a
 * record computes no more. */
cgm_status pipeline_record_file(cgm_db *db, const char *path, bool memory, uint64_t content_id,
                                const cgm_features *f, const cgm_solve_opts *o,
                                const cgm_solve_result *r, double predicted, int64_t calibration_id,
                                cgm_error *err);

/* Whether a solve's time per iteration is implausible, other work having held it up (why says how):
 * a CPU's that is a whole number of scheduler quanta (CGM_SCHED_QUANTUM_S, to 10 us: its barriers
 * waited out others' time slices), or over CGM_DISTURBED_RATIO times the prediction of a
 * calibration whose timings settled (not flagged "disturbed"). Recorded (cgm_record_solve);
 * validate and the solves' history leave it out. */
#define CGM_SCHED_QUANTUM_S 4e-3
#define CGM_DISTURBED_RATIO 4.0
bool pipeline_solve_disturbed(cgm_db *db, const cgm_solve_opts *o, const cgm_solve_result *r,
                              double predicted, int64_t calibration_id, char *why, size_t n);

/* A calibration and its device (CGM_EINPUT when there is no such calibration). */
cgm_status pipeline_calibration_get(cgm_db *db, int64_t id, cgm_db_calibration *c, cgm_db_device *d,
                                    cgm_error *err);

/* The file name of a path (what follows the last '/'). */
const char *pipeline_file_name(const char *path);

/* A step's note, printf-style: said to fn (NULL: to no one), cut at 2048 bytes. */
CGM_PRINTF(4, 5)
void pipeline_note(cgm_note_fn fn, void *ctx, cgm_note_kind kind, const char *fmt, ...);

/* This machine's calibrated devices (m: cgm_host_match) the tuner may choose among: GPU 0's model
 * when `gpu`, with at most `gpus` GPUs, then the CPU when `cpu`. Fills out[] and, for each, its
 * index in devs; returns how many (0, 1 or 2). */
int pipeline_local_devices(const cgm_tuner_device *devs, cgm_host_devices m, bool gpu, int gpus,
                           bool cpu, cgm_tuner_device out[2], int index[2]);

/* Where no calibration of this CPU ran `threads` threads: "; calibration K of this CPU ran T
 * threads: it serves threads=T" (the newest such), else "". */
void pipeline_cpu_advice(const cgm_host *h, const cgm_tuner_device *devs, int count, int threads,
                         char *out, size_t n);

/* history.c: every device's setup models fitted on its calibration's timed
 * setups and its recorded solves, and the mixed/double iteration ratio
 * (defaults where the records say nothing); the double-precision iteration
 * count of a converged solve of this matrix at tol (0: none recorded). */
void pipeline_learn_history(cgm_db *db, cgm_tuner_device *devs, int ndev);
typedef struct pipeline_known {
  double k;           /* double precision's K to tol; 0: no recorded solve of the matrix */
  bool exact;         /* recorded in double at this tolerance (else scaled: by log(2 / tol) from the
                         nearest tolerance recorded, and from mixed's count by the mixed ratio) */
  double mixed_ratio; /* mixed's K over double's: this very matrix's where both are recorded (each
                         scaled to tol); where mixed alone is, the ratio k was derived by (mixed
                         priced at its own K); 0: neither */
  bool mixed_alone;   /* mixed alone recorded: k is derived, mixed_ratio not measured */
} pipeline_known;
pipeline_known pipeline_known_iterations(cgm_db *db, const cgm_db_matrix *m, double tol);
/* K to tol in precision prec (double or mixed) from a CPU run of Jacobi CG (b = A * ones) of about
 * budget / nnz steps (50 to 3000: budget 0 for the least) on matrices where that is cheap (0: not
 * probed, or no progress); exact when it converges within them (history.c). Mixed precision's count
 * on the CPU is the GPU's within a few percent where single keeps up (both iterate in single and
 * replace the residual in double; docs/model.md): its ratio to double's runs from 1.0 to 3 by
 * matrix, which no one ratio for every matrix predicts. */
double pipeline_probe_iterations(const cgm_csr *A, double tol, double budget, cgm_precision prec);
/* The probe's run itself: the relative residual at each step (r[0 .. n-1],
 * malloc'ed), false when it did not run or said nothing; pipeline_probe_k reads K to any tolerance
 * from it (exact where the run reached it, else extrapolated; 0: no estimate). */
typedef struct {
  double *r;
  int n, cap;
} pipeline_probe;
bool pipeline_probe_run(const cgm_csr *A, double tol, double budget, cgm_precision prec,
                        pipeline_probe *h);
double pipeline_probe_k(const pipeline_probe *h, double tol);
/* K, double precision's iterations to q->tol (iterations.c): the hint (> 0), else recorded solves
 * of the matrix (pipeline_known_iterations: by content, cgm_cache_report.content_id, else by its
 * file's name and size), else the probe's run kept beside q->cache's entry, else a probe run now
 * (q->budget < 0: none; its run is kept); 0 when none knows (the caller estimates). src gets
 * "hint", "database", "probe" or "estimate"; *mx (may be NULL: not asked) mixed's K over double's
 * on this matrix: recorded, else from the probe's run in mixed precision beside double's (kept
 * beside the entry too; ratio 0: unknown, the tuner's default).
 *
 * q->explore (a Jacobi solve that records its run, --auto weighing both precisions): where nothing
 * tells mixed's ratio on this matrix (no record of mixed, no probe), it is priced at its most
 * hopeful, 1, so that the choice runs mixed once and its record tells; where mixed was the slower,
 * the next solve knows it. */
typedef struct pipeline_k_query {
  cgm_db *db; /* NULL: none */
  const cgm_csr *A;
  const char *path;              /* the matrix file (NULL: a matrix in memory) */
  const cgm_cache_report *cache; /* its cache entry (NULL: none) */
  double tol, hint, budget;
  bool explore;
} pipeline_k_query;
/* Where mixed's ratio came from: none (the tuner's default), the ratio mixed alone's record was
 * taken to double's by, the probe's two runs, both precisions' records of this matrix, or explore's
 * most hopeful. The recorded and the hopeful lead by CGM_MIXED_MARGIN_MEASURED. */
typedef enum {
  PIPELINE_RATIO_NONE,
  PIPELINE_RATIO_DERIVED,
  PIPELINE_RATIO_PROBED,
  PIPELINE_RATIO_RECORDED,
  PIPELINE_RATIO_HOPEFUL
} pipeline_ratio_source;
typedef struct pipeline_ratio {
  double ratio; /* mixed's K over double's (0: unknown) */
  pipeline_ratio_source source;
} pipeline_ratio;
/* The ratio given to the tuner's devices where known (ratio 0: their default stands), with the
 * margin it earns: CGM_MIXED_MARGIN_MEASURED for the recorded and the hopeful. */
static inline void pipeline_ratio_give(pipeline_ratio r, cgm_tuner_device *devs, int n) {
  for (int i = 0; r.ratio > 0 && i < n; i++) {
    devs[i].mixed_ratio = r.ratio;
    devs[i].mixed_measured =
        r.source == PIPELINE_RATIO_RECORDED || r.source == PIPELINE_RATIO_HOPEFUL;
  }
}
double pipeline_iterations(const pipeline_k_query *q, char *src, size_t n, pipeline_ratio *mx);

/* What --auto's analysis costs where nothing of it is kept yet: the tuner's plans, one walk of the
 * block pattern per block size, about this long per stored entry (measured: 0.31 s at 14.6M entries
 * and 0.67-0.79 s at 49M on a 16-core H200 node, 2026-11-29). */
#define CGM_AUTO_S_PER_NNZ 20e-9
/* The iteration probe's cost a stored entry and step on the CPU (bcsstk15, 519 steps: 60 ms on 2
 * cores of an AMD EPYC); it runs twice (double, and mixed for the matrix's own ratio). */
#define CGM_PROBE_S_PER_NNZ 1e-9
/* The least fraction of the default's time per iteration any configuration reaches: single values
 * at half the bytes, blocks of N > 1 at a fraction of the index bytes (measured best: 0.5-0.66). */
#define CGM_AUTO_FLOOR 0.35
/* Whether --auto's analysis (cost_s) can pay for itself: the most any configuration could save
 * (*bound_s) against the default def (its setup and k iterations on the uniform plan of A's size,
 * this host's calibrated device) is more than it; true where nothing calibrated says (NaN). With c,
 * the size plan's choice (one GPU): what block sizes N > 1 could save against it, at best 4 bytes
 * an entry (single values, indices / N^2; a dictionary's codes) and single vectors: c's time scaled
 * by those bytes over its own (values, indices, vectors). */
bool pipeline_auto_worth(const cgm_tuner_device *devs, int ndev, const cgm_host *host,
                         const cgm_solve_opts *def, const cgm_csr *A, double k, double cost_s,
                         const cgm_candidate *c, double *bound_s);
/* Whether this CPU's double solve of A in k iterations (*cpu_s: uniform plan, its calibration on
 * `threads`) is shorter than the quickest start a calibrated GPU measured (*start_s, or INFINITY).
 */
bool pipeline_cpu_first(const cgm_tuner_device *devs, int ndev, const cgm_host *host, int threads,
                        const cgm_csr *A, double k, double *cpu_s, double *start_s);

/* The tuner's plans of a matrix, kept beside its cache entry (plans.c): read back when what was
 * kept covers max_gpus and exchanges (cached set), else counted (cgm_tuner_plans) when `count`
 * (else none: plans NULL); pipeline_plans_keep stores counted ones once the entry is written. plans
 * is malloc'ed. */
typedef struct pipeline_plan_set {
  cgm_tuner_plan *plans;
  int count, max_gpus;
  unsigned exchanges;
  bool cached;
} pipeline_plan_set;
cgm_status pipeline_plans(const cgm_csr *A, const cgm_cache_report *cache, int max_gpus,
                          unsigned exchanges, bool count, pipeline_plan_set *set, cgm_error *err);
void pipeline_plans_keep(const cgm_cache_report *cache, const pipeline_plan_set *set);

/* extras.c: whether A's cache entry c says it passed cgm_solve's checks before; A's features of the
 * block sizes `need` asks for (bit i: cgm_block_sizes[i]): those kept beside c (*cached: all of
 * them), the missing ones computed and merged (*computed: something new to keep); and their keeping
 * beside c (the features when new, the checks' mark when checked), once the entry is written. */
bool pipeline_checked(const cgm_cache_report *c);
cgm_status pipeline_features(const cgm_csr *A, unsigned need, const cgm_cache_report *c,
                             cgm_features *f, bool *cached, bool *computed, cgm_error *err);
void pipeline_keep_extras(const cgm_cache_report *c, const cgm_features *f, bool features_new,
                          bool checked);

/* The probe's budget where K decides between devices (--auto, validate --total): 1e8 entries read,
 * about 0.05 s on a 16-core host, what the largest matrix probed took before. */
#define PIPELINE_PROBE_BUDGET 1e8

/* cgm_predict_config keeping the plan it predicted from in *plan (when
 * *planned comes back true: a model and not the cuSPARSE baseline); f must
 * be A's own features: the plan takes its sectors of x from them. */
cgm_status pipeline_predict_plan(const cgm_csr *A, const cgm_features *f,
                                 const cgm_tuner_device *dev, const cgm_solve_opts *o,
                                 double *seconds, cgm_plan *plan, bool *planned, cgm_error *err);

/* The GPU count a calibration measured, from its stored options (1 when not recorded; models.c). */
int pipeline_calibration_gpus(const char *options_json);
