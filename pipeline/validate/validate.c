/* SPDX-License-Identifier: GPL-3.0-or-later */
/* validate: predicted against measured for every matrix and configuration of this machine (the
 * paper's Table 6), every run recorded beside its prediction, and the tuner's regret: what its
 * choice among the measured configurations costs against the best measured. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cgmodel/pipeline.h"
#include "cgmodel/validate.h"
#include "common/grow.h"
#include "common/timer.h"
#include "pipeline/steps.h"

typedef struct {
  const cgm_validate_opts *o;
  cgm_validate_report *r;
  int rows_cap, matrices_cap;
  const cgm_tuner_device *devs;
  cgm_host_devices m;
  int maxg; /* GPUs tried for cuda */
} validation;

/* A note of the validation (o its options), printf-style. */
#define note(o, ...) pipeline_note((o)->note, (o)->ctx, __VA_ARGS__)

void cgm_validate_report_free(cgm_validate_report *r) {
  CGM_FREE(r->rows, r->groups, r->matrices);
  memset(r, 0, sizeof *r);
}

static bool wants(const cgm_validate_opts *o, cgm_backend b) {
  return o->backends & (1u << b);
}

/* The calibrated device that runs a backend here; NULL when none. */
static const cgm_tuner_device *device_of(const validation *v, int be) {
  if (!wants(v->o, (cgm_backend)be)) return NULL;
  const int d = be == CGM_BACKEND_CPU ? v->m.cpu : v->m.gpu;
  return d >= 0 ? &v->devs[d] : NULL;
}

/* Runs one configuration `repeat` times. CGM_OK with *res holding the last
 * run and the least time; a refused configuration returns its error. */
static cgm_status measure(const validation *v, const cgm_csr *A, const double *b, double *x,
                          const cgm_solve_opts *o, cgm_solve_result *res, cgm_error *e) {
  double least = INFINITY;
  cgm_status st = CGM_OK;
  /* The least of R solves, as the calibration's low quantiles: other work only adds time (a
   * run 2-3x slow on a busy host), noise of the measurement, not error of the model. */
  const bool total = v->o->total_tol > 0;
  for (int k = 0; k < v->o->repeat && (st == CGM_OK || st == CGM_ENOCONV); k++) {
    memset(x, 0, sizeof(double) * A->nrows);
    st = cgm_solve(A, b, x, o, res, e);
    least = fmin(least, total ? res->time_setup_s + res->time_solve_s : res->time_per_iter_s);
    if (total ? st != CGM_OK : res->iterations < v->o->iters)
      break; /* skipped by the caller: no need to repeat */
  }
  if (st != CGM_OK && st != CGM_ENOCONV) return st;
  res->time_per_iter_s = least; /* stored with the last run's record */
  return CGM_OK;
}

/* Every configuration of one matrix: predicted, measured, recorded. */
static cgm_status run_matrix(validation *v, cgm_db *db, const char *path, const cgm_csr *A,
                             const cgm_features *f, const double *b, double *x) {
  const cgm_validate_opts *O = v->o;
  cgm_validate_report *R = v->r;
  const char *name = pipeline_file_name(path);
  int short_noted = 0;
  const bool total = O->total_tol > 0;
  for (int pr = 0; pr < (total ? 3 : 2); pr++) {
    if (!(O->precisions & (1u << pr))) continue;
    for (int be = 0; be < 3; be++) {
      const cgm_tuner_device *dv = device_of(v, be);
      if (!dv) continue;
      const int gmax = be == CGM_BACKEND_CUDA ? v->maxg : 1;
      for (int bi = 0; bi < CGM_NBLOCKSIZES; bi++) {
        if (be == CGM_BACKEND_CUSPARSE && bi > 0) continue;
        for (int G = 1; G <= gmax; G++) {
          cgm_solve_opts o = cgm_solve_opts_default();
          o.gpu = O->gpu;
          o.backend = (cgm_backend)be;
          o.precision = (cgm_precision)pr;
          o.layout = cgm_plan_layout_params(A, cgm_block_sizes[bi], G);
          o.gpus = G;
          o.maxiter = total ? 0 : O->iters;
          o.tol = total ? O->total_tol : 1e-300;
          o.fixed_count = !total;
          o.threads = dv->threads; /* a CPU as calibrated (0: a GPU) */
          cgm_validate_row row = {.backend = o.backend,
                                  .precision = o.precision,
                                  .block = o.layout.n,
                                  .gpus = be == CGM_BACKEND_CPU ? 0 : G};
          snprintf(row.matrix, sizeof row.matrix, "%s", name);
          cgm_error e = {0};
          if (pr == CGM_PREC_MIXED && be == CGM_BACKEND_CUSPARSE) continue;
          /* no curve of the precision it iterates in: nothing to compare */
          if (!dv->have[cgm_precision_iter((cgm_precision)pr)]) continue;
          if (cgm_predict_config(A, f, dv, &o, &row.predicted_s, &e))
            continue;                       /* too few block rows */
          if (total) row.predicted_s = NAN; /* the tuner's total, filled in by tune_matrix */
          row.predicted_paper_s =
              total || be == CGM_BACKEND_CUSPARSE
                  ? NAN
                  : cgm_paper_device_time(&dv->paper[pr], row.block, f->x,
                                          (double)f->block[bi].elements, G, true);
          cgm_solve_result res;
          if (measure(v, A, b, x, &o, &res, &e)) continue; /* refused */
          /* A solve that stopped before K iterations (a diagonal matrix: exact after one) was timed
           * over a partial batch and its warm-up: no steady state to compare with. */
          if (total && !res.converged) {
            note(O, CGM_NOTE_INFO, "%s (%s, %s, N = %d): did not reach %g: %s", name,
                 cgm_backend_name(o.backend), cgm_precision_name(o.precision), o.layout.n,
                 O->total_tol, res.stop_reason);
            continue;
          }
          if (!total && res.iterations < O->iters) {
            if (!short_noted++)
              note(O, CGM_NOTE_INFO,
                   "skipped %s (%s, N = %d): stopped after %d of %d iterations (%s); too few to "
                   "time",
                   name, cgm_backend_name(o.backend), o.layout.n, res.iterations, O->iters,
                   res.stop_reason[0] ? res.stop_reason : "converged");
            continue;
          }
          row.measured_s = res.time_per_iter_s;
          if (total) row.iters_measured = res.iterations;
          char why[256];
          row.disturbed = !total && pipeline_solve_disturbed(db, &o, &res, row.predicted_s,
                                                             dv->calibration_id, why, sizeof why);
          if (row.disturbed && ++R->disturbed)
            note(O, CGM_NOTE_INFO, "%s (%s, %s, N = %d): %s", name, cgm_backend_name(o.backend),
                 cgm_precision_name(o.precision), o.layout.n, why);
          if (!cgm_push(&R->rows, &R->nrows, &v->rows_cap, &row, sizeof row, 256))
            return CGM_ERUNTIME;
          cgm_error e2 = {0};
          pipeline_record_file(db, path, false, 0, f, &o, &res, row.predicted_s, dv->calibration_id,
                               &e2);
        }
      }
    }
  }
  return CGM_OK;
}

/* The measured row of a candidate's configuration among rows [first, end). */
static int row_of(const cgm_validate_report *R, int first, const cgm_candidate *c) {
  for (int i = first; i < R->nrows; i++) {
    const cgm_validate_row *w = &R->rows[i];
    if (w->backend == c->backend && w->precision == c->precision && w->block == c->block &&
        w->gpus == c->gpus)
      return i;
  }
  return -1;
}

/* The iteration counts of one matrix (its rows from `first`): the error of the first row of double
 * and of mixed precision that has both counts, and of their ratio. */
static void k_errors(const cgm_validate_report *R, int first, cgm_validate_matrix *vm) {
  double pred[2] = {0, 0}, meas[2] = {0, 0};
  for (int i = first; i < R->nrows; i++) {
    const cgm_validate_row *w = &R->rows[i];
    const int p = w->precision == CGM_PREC_DOUBLE ? 0 : w->precision == CGM_PREC_MIXED ? 1 : -1;
    if (p < 0 || meas[p] > 0 || !(w->iters_predicted > 0) || !(w->iters_measured > 0)) continue;
    pred[p] = w->iters_predicted, meas[p] = w->iters_measured;
  }
  for (int p = 0; p < 2; p++) vm->k_error[p] = meas[p] > 0 ? fabs(pred[p] / meas[p] - 1) : NAN;
  vm->ratio_error =
      meas[0] > 0 && meas[1] > 0 ? fabs((pred[1] / pred[0]) / (meas[1] / meas[0]) - 1) : NAN;
}

/* The tuner on one matrix: cgm_tuner_choose over the candidates of the
 * configurations measured (rows [first, nrows)), as solve --auto would
 * choose among them, and its regret against the best measured. */
static cgm_status tune_matrix(validation *v, const cgm_csr *A, const cgm_features *f, int first,
                              cgm_error *err) {
  cgm_validate_report *R = v->r;
  const cgm_validate_opts *O = v->o;
  cgm_validate_matrix vm = {.choice = -1, .best = -1, .regret = NAN};
  snprintf(vm.matrix, sizeof vm.matrix, "%s", R->rows[first].matrix);
  cgm_tuner_device local[2];
  int index[2];
  const int nl = pipeline_local_devices(
      v->devs, v->m, wants(O, CGM_BACKEND_CUDA) || wants(O, CGM_BACKEND_CUSPARSE), v->maxg,
      wants(O, CGM_BACKEND_CPU), local, index);
  cgm_tuner_opts to = cgm_tuner_opts_default();
  to.precisions = O->precisions;
  to.exchanges = 1u << cgm_solve_opts_default().exchange; /* what the runs used */
  to.cusparse = wants(O, CGM_BACKEND_CUSPARSE);
  to.max_gpus = v->maxg;
  if (O->total_tol > 0) {
    to.tol = O->total_tol;
    /* as solve --auto on a new matrix: exact where the probe's run reached the tolerance */
    pipeline_probe h;
    const bool ran = pipeline_probe_run(A, to.tol, PIPELINE_PROBE_BUDGET, CGM_PREC_DOUBLE, &h);
    to.iterations = ran ? pipeline_probe_k(&h, to.tol) : 0;
    for (int i = 0; ran && i < h.n; i++) vm.k_probed |= h.r[i] > 0 && h.r[i] <= to.tol;
    free(h.r);
    to.precisions = O->precisions | (1u << CGM_PREC_MIXED);
    const double km =
        to.iterations > 0
            ? pipeline_probe_iterations(A, to.tol, PIPELINE_PROBE_BUDGET, CGM_PREC_MIXED)
            : 0;
    for (int i = 0; i < nl && km > 0; i++)
      local[i].mixed_ratio = km / to.iterations; /* probed: the default margin */
  }
  cgm_candidate *c = NULL;
  int nc = 0;
  cgm_status st = cgm_tuner_candidates(A, f, local, nl, &to, &c, &nc, err);
  if (st) return st;
  /* Only what was measured: a configuration refused or skipped above has
   * no measured time to regret. */
  int nk = 0;
  for (int i = 0; i < nc; i++) {
    const int r = row_of(R, first, &c[i]);
    if (r < 0 || (R->rows[r].disturbed && !O->include_disturbed)) continue;
    if (O->total_tol > 0) {
      R->rows[r].predicted_s = c[i].total_s;
      R->rows[r].iters_predicted = c[i].iterations;
    } else /* the rows time iterations alone: choose as they measure (setup is --total's) */
      c[i].total_s = c[i].time_per_iter_s;
    c[nk++] = c[i];
  }
  /* The best measured among what the tuner may choose: single precision is offered only where it
   * reaches the tolerance (1e-8 by default: not), so a faster single run is no choice it missed. */
  for (int i = 0; i < nk; i++) {
    if (!c[i].fits || !isfinite(c[i].time_per_iter_s)) continue;
    const int r = row_of(R, first, &c[i]);
    if (vm.best < 0 || R->rows[r].measured_s < R->rows[vm.best].measured_s) vm.best = r;
  }
  k_errors(R, first, &vm);
  const int best = cgm_tuner_choose(c, nk, local, NULL, 0);
  if (best >= 0 && vm.best >= 0) {
    vm.choice = row_of(R, first, &c[best]);
    vm.regret = R->rows[vm.choice].measured_s / R->rows[vm.best].measured_s;
  }
  free(c);
  return cgm_push(&R->matrices, &R->nmatrices, &v->matrices_cap, &vm, sizeof vm, 16)
             ? CGM_OK
             : cgm_fail(err, CGM_ERUNTIME, "out of memory");
}

/* Relative errors of a group: average, variance, median, 90th percentile. */
static void stats(double *e, int n, double *avg, double *var, double *med, double *p90) {
  double s = 0, s2 = 0;
  for (int i = 0; i < n; i++) s += e[i], s2 += e[i] * e[i];
  *avg = n ? s / n : NAN;
  *var = n ? s2 / n - *avg * *avg : NAN;
  if (*var < 0) *var = 0;
  *med = cgm_median(e, n); /* sorts */
  *p90 = n ? e[(int)ceil(0.9 * n) - 1 < 0 ? 0 : (int)ceil(0.9 * n) - 1] : NAN;
}

/* Groups: backend x precision x block x GPUs, in order of appearance; the
 * rows other work held up left out unless include. */
static cgm_status group(cgm_validate_report *R, bool include, cgm_error *err) {
  /* [0] the refined model's errors, [1] the paper's */
  double *e[2] = {malloc(sizeof(double) * (R->nrows + 1)), malloc(sizeof(double) * (R->nrows + 1))};
  bool *done = calloc((size_t)R->nrows + 1, 1);
  R->groups = malloc(sizeof *R->groups * (R->nrows + 1));
  cgm_status st = CGM_OK;
  if (!e[0] || !e[1] || !done || !R->groups) st = cgm_fail(err, CGM_ERUNTIME, "out of memory");
  for (int i = 0; i < R->nrows && !st; i++) {
    if (done[i]) continue;
    const cgm_validate_row *p = &R->rows[i];
    int k[2] = {0, 0};
    double s[2] = {0, 0}; /* signed: the bias the absolute errors hide */
    for (int j = i; j < R->nrows; j++) {
      const cgm_validate_row *q = &R->rows[j];
      if (q->backend != p->backend || q->precision != p->precision || q->block != p->block ||
          q->gpus != p->gpus)
        continue;
      done[j] = true;
      if (q->disturbed && !include) continue;
      const double m = q->measured_s,
                   rel[2] = {(q->predicted_s - m) / m, (q->predicted_paper_s - m) / m};
      for (int t = 0; t < 2; t++)
        if (isfinite(rel[t])) s[t] += rel[t], e[t][k[t]++] = fabs(rel[t]);
    }
    cgm_validate_group *g = &R->groups[R->ngroups++];
    *g = (cgm_validate_group){.backend = p->backend,
                              .precision = p->precision,
                              .block = p->block,
                              .gpus = p->gpus,
                              .count = k[0],
                              .paper_count = k[1]};
    stats(e[0], k[0], &g->avg_rel_error, &g->variance, &g->median_rel_error, &g->p90_rel_error);
    g->mean_signed_error = k[0] ? s[0] / k[0] : NAN;
    g->paper_mean_signed_error = k[1] ? s[1] / k[1] : NAN;
    double pvar, pmed, pp90; /* the average NaN where no paper prediction was */
    stats(e[1], k[1], &g->paper_avg_rel_error, &pvar, &pmed, &pp90);
  }
  CGM_FREE(e[0], e[1], done);
  return st;
}

/* The regret over the matrices where the tuner chose. */
static void regret(cgm_validate_report *R) {
  double sum = 0;
  for (int i = 0; i < R->nmatrices; i++) {
    const double g = R->matrices[i].regret;
    if (R->matrices[i].choice < 0) continue;
    R->regret_count++;
    sum += g;
    if (g > R->max_regret) R->max_regret = g;
    if (g <= 1.05) R->within_5++;
    if (g <= 1.10) R->within_10++;
  }
  R->mean_regret = R->regret_count ? sum / R->regret_count : NAN;
  /* the iteration counts' errors (total time only) */
  double *e = malloc(sizeof(double) * ((size_t)R->nmatrices + 1));
  for (int p = 0; p < 3; p++) {
    int n = 0;
    double s = 0, worst = NAN;
    for (int i = 0; e && i < R->nmatrices; i++) {
      const double x = p < 2 ? R->matrices[i].k_error[p] : R->matrices[i].ratio_error;
      if (!isfinite(x)) continue;
      if (p == 0) R->k_counted++, R->k_probed += R->matrices[i].k_probed;
      e[n++] = x, s += x;
      if (!(x <= worst)) worst = x;
    }
    const double mean = n ? s / n : NAN;
    if (p == 2) {
      R->ratio_mean_error = mean, R->ratio_max_error = worst;
    } else {
      R->k_mean_error[p] = mean, R->k_max_error[p] = worst;
      R->k_median_error[p] = n ? cgm_median(e, n) : NAN;
    }
  }
  free(e);
}

/* One matrix: read, checked SPD-like, measured, and the tuner's choice. */
static cgm_status validate_one(validation *v, cgm_db *db, const char *path, cgm_error *err) {
  const cgm_validate_opts *O = v->o;
  cgm_csr A;
  cgm_features f;
  cgm_error e = {0};
  if (cgm_mm_read_csr(path, &A, NULL, &e)) {
    note(O, CGM_NOTE_INFO, "skipped %s", e.msg);
    return CGM_OK;
  }
  /* What a solve would refuse, refused here with its message. */
  if (cgm_solve_check_matrix(&A, &e) || cgm_plan_features(&A, &f, &e)) {
    note(O, CGM_NOTE_INFO, "skipped %s: %s", path, e.msg);
    cgm_csr_free(&A);
    return CGM_OK;
  }
  double *b = malloc(sizeof(double) * A.nrows), *x = malloc(sizeof(double) * A.nrows);
  cgm_status st = CGM_OK;
  if (!b || !x) st = cgm_fail(err, CGM_ERUNTIME, "out of memory");
  const int first = v->r->nrows;
  if (!st) {
    for (int32_t i = 0; i < A.nrows; i++) x[i] = 1.0;
    cgm_csr_spmv(&A, x, b);
    if (run_matrix(v, db, path, &A, &f, b, x)) st = cgm_fail(err, CGM_ERUNTIME, "out of memory");
  }
  if (!st && v->r->nrows > first) st = tune_matrix(v, &A, &f, first, err);
  CGM_FREE(b, x);
  cgm_csr_free(&A);
  return st;
}

cgm_status cgm_validate(cgm_db *db, const cgm_validate_opts *o, cgm_validate_report *r,
                        cgm_error *err) {
  memset(r, 0, sizeof *r);
  r->mean_regret = NAN;
  validation v = {.o = o, .r = r};
  cgm_tuner_device *devs = NULL;
  int ndev = 0;
  cgm_status st = cgm_load_devices(db, NULL, &devs, &ndev, err);
  if (st) return st;
  cgm_host here;
  if (!o->host) cgm_host_describe(&here);
  const cgm_host *host = o->host ? o->host : &here;
  v.devs = devs;
  v.m = cgm_host_match(host, devs, ndev, 0);
  char msg[512];
  if (v.m.gpu >= 0 && wants(o, CGM_BACKEND_CUDA) &&
      cgm_calibration_cg_stale(&devs[v.m.gpu], &o->gpu, msg, sizeof msg))
    note(o, CGM_NOTE_WARNING, "%s", msg);
  if (!device_of(&v, CGM_BACKEND_CPU) && !device_of(&v, CGM_BACKEND_CUDA) &&
      !device_of(&v, CGM_BACKEND_CUSPARSE)) {
    free(devs);
    return cgm_fail(err, CGM_EINPUT,
                    "no calibration of this machine's devices in %s: run 'cgmodel calibrate'",
                    cgm_db_path(db));
  }
  v.maxg = o->max_gpus <= 0 || o->max_gpus > host->gpus ? host->gpus : o->max_gpus;
  if (v.m.gpu >= 0 && v.maxg > devs[v.m.gpu].gpus) v.maxg = devs[v.m.gpu].gpus;
  for (int mi = 0; mi < o->nmatrices && !st; mi++) {
    st = validate_one(&v, db, o->matrices[mi], err);
    if (!st && o->progress) o->progress(o->ctx, mi + 1, o->nmatrices);
  }
  if (!st && r->nrows == 0)
    st = cgm_fail(err, CGM_EINPUT,
                  "nothing was measured: no matrix of %s could be predicted and run "
                  "on the calibrated devices (the notes above say why)",
                  o->source ? o->source : "the list");
  if (!st) st = group(r, o->include_disturbed, err);
  if (!st) regret(r);
  free(devs);
  return st;
}
