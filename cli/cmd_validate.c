/* cgmodel validate LIST_OR_DIR: predicted against measured for every matrix
 * and configuration of this machine (the paper's Table 6), and the tuner's
 * regret. Every measurement is stored beside its prediction. */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cgmodel/pipeline.h"
#include "cli/args.h"
#include "cli/commands.h"
#include "cli/env.h"
#include "cli/dbopen.h"
#include "cli/output.h"
#include "common/timer.h"
#include "common/grow.h"

static const char help[] =
    "usage: cgmodel validate LIST_OR_DIR [--gpus G] [--backend cpu|cuda|cusparse|all]\n"
    "                        [--precision single|double|both] [--iters K] [--repeat R]\n"
    "                        [--csv FILE] [--db FILE] [--json]\n"
    "For every SPD matrix (*.mtx of a directory, or one path per line of a list file) and every\n"
    "configuration of this machine's calibrated devices: predict (refined and paper models),\n"
    "run K iterations R times (default 3; the median time counts) and compare. Reports per\n"
    "block size and GPU count the average relative error and its variance (Table 6), the median\n"
    "and 90th percentile, and the tuner's regret (measured time of its choice over the best\n"
    "measured).\n";

typedef struct {
  char matrix[128];
  cgm_backend backend;
  cgm_precision precision;
  int block, gpus;
  double pred, pred_paper, meas;
} row;

typedef struct {
  row *v;
  int n, cap;
} rows;

static int push(rows *r, const row *x) {
  row *nv = cgm_grow(r->v, r->n, &r->cap, sizeof *nv, 256);
  if (!nv) return 1;
  r->v = nv;
  r->v[r->n++] = *x;
  return 0;
}

static int cmp_str(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Appends path (owned) to v; false, path freed, when memory runs out. */
static bool add_path(char ***v, int *n, int *cap, char *path) {
  char **nv = path ? cgm_grow(*v, *n, cap, sizeof *nv, 64) : NULL;
  if (!nv) {
    free(path);
    return false;
  }
  *v = nv;
  nv[(*n)++] = path;
  return true;
}

/* The matrix paths of a directory (*.mtx, sorted) or a list file; NULL with
 * *n = -1 when memory runs out. */
static char **matrix_list(const char *arg, int *n) {
  struct stat sb;
  char **v = NULL;
  int cap = 0;
  bool ok = true;
  *n = 0;
  if (stat(arg, &sb) != 0) return NULL;
  if (S_ISDIR(sb.st_mode)) {
    DIR *d = opendir(arg);
    struct dirent *e;
    while (ok && d && (e = readdir(d))) {
      size_t l = strlen(e->d_name);
      if (l < 5 || strcmp(e->d_name + l - 4, ".mtx")) continue;
      char *path = malloc(strlen(arg) + l + 2);
      if (path) sprintf(path, "%s/%s", arg, e->d_name);
      ok = add_path(&v, n, &cap, path);
    }
    if (d) closedir(d);
    if (ok) qsort(v, (size_t)*n, sizeof *v, cmp_str);
  } else {
    FILE *f = fopen(arg, "r");
    char line[1024];
    while (ok && f && fgets(line, sizeof line, f)) {
      line[strcspn(line, "\r\n")] = 0;
      if (!line[0] || line[0] == '#') continue;
      ok = add_path(&v, n, &cap, strdup(line));
    }
    if (f) fclose(f);
  }
  if (!ok) {
    for (int i = 0; i < *n; i++) free(v[i]);
    free(v);
    *n = -1;
    return NULL;
  }
  return v;
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

int cmd_validate(int argc, char **argv) {
  cli_args a;
  cli_args_init(&a, argc - 1, argv + 1);
  const char *db_path = NULL, *csv = NULL, *backends = "all";
  int json = 0, maxg = 0, iters = 100, repeat = 3;
  unsigned precisions = 1u << CGM_PREC_DOUBLE;
  int64_t v;
  while (cli_next(&a)) {
    if (cli_flag(&a, "--help") || cli_flag(&a, "-h")) {
      fputs(help, stdout);
      return 0;
    } else if (cli_flag(&a, "--json"))
      json = 1;
    else if (cli_opt(&a, "--db"))
      db_path = a.value;
    else if (cli_opt(&a, "--csv"))
      csv = a.value;
    else if (cli_opt(&a, "--backend"))
      backends = a.value;
    else if (cli_int(&a, "--gpus", 1, CGM_MAX_GPUS, &v))
      maxg = (int)v;
    else if (cli_int(&a, "--iters", 10, 100000, &v))
      iters = (int)v;
    else if (cli_int(&a, "--repeat", 1, 99, &v))
      repeat = (int)v;
    else if (cli_opt(&a, "--precision")) {
      if (!cli_precisions(a.value, &precisions))
        return cli_error("validate", 2, "--precision: '%s' is not single, double or both", a.value);
    } else
      cli_unknown(&a);
  }
  if (cli_failed(&a)) return cli_error("validate", 2, "%s", a.error);
  if (strcmp(backends, "all") && strcmp(backends, "cpu") && strcmp(backends, "cuda") &&
      strcmp(backends, "cusparse"))
    return cli_error("validate", 2, "--backend: '%s' is not cpu, cuda, cusparse or all", backends);
  if (a.npositional != 1)
    return cli_error("validate", 2, "expected a directory or list file\n%s", help);
  int nm = 0;
  char **mats = matrix_list(a.positional[0], &nm);
  if (nm < 0) return cli_error("validate", 3, "out of memory listing the matrices");
  if (!mats || nm == 0) {
    free(mats);
    return cli_error("validate", 2, "%s: no matrices (a directory of .mtx files or a list file)",
                     a.positional[0]);
  }
  cgm_db *db = NULL;
  int rc = cli_db_open("validate", db_path, false, &db);
  cgm_tuner_device *devs = NULL;
  int ndev = 0, cpu = -1, gpu = -1;
  cgm_error err = {0};
  rows R = {0};
  int nregret = 0, within5 = 0;
  double regret_sum = 0, regret_max = 0;
  if (rc) goto out;
  if (cgm_load_devices(db, NULL, &devs, &ndev, &err)) {
    rc = cli_report("validate", &err);
    goto out;
  }
  {
    cgm_db_device d;
    if (!cgm_describe_cpu(&d, 0, &err)) cpu = cgm_find_device(devs, ndev, true, d.model);
    if (cgm_cuda_device_count() > 0 && !cgm_describe_cuda(0, &d, &err))
      gpu = cgm_find_device(devs, ndev, false, d.model);
  }
  bool want_cpu = !strcmp(backends, "all") || !strcmp(backends, "cpu");
  bool want_cuda = !strcmp(backends, "all") || !strcmp(backends, "cuda");
  bool want_cusp = !strcmp(backends, "all") || !strcmp(backends, "cusparse");
  cgm_gpu_opts gpu_opts;
  char emsg[256];
  if (cli_env_gpu_opts(&gpu_opts, emsg, sizeof emsg)) {
    rc = cli_error("validate", 2, "%s", emsg);
    goto out;
  }
  if (want_cuda && gpu >= 0) cli_warn_stale_cg("validate", &devs[gpu], 1, &gpu_opts);
  if ((want_cpu ? cpu : -1) < 0 && (want_cuda || want_cusp ? gpu : -1) < 0) {
    rc = cli_error("validate", 2,
                   "no calibration of this machine's devices in %s: run 'cgmodel calibrate'",
                   cgm_db_path(db));
    goto out;
  }
  if (maxg <= 0 || maxg > cgm_cuda_device_count()) maxg = cgm_cuda_device_count();
  if (gpu >= 0 && maxg > devs[gpu].gpus) maxg = devs[gpu].gpus;
  for (int mi = 0; mi < nm; mi++) {
    cgm_csr A;
    cgm_features f;
    cgm_error e = {0};
    if (cgm_mm_read_csr(mats[mi], &A, NULL, &e)) {
      fprintf(stderr, "cgmodel validate: skipped %s\n", e.msg);
      continue;
    }
    if (cgm_plan_features(&A, &f, &e) || !f.symmetric || !f.positive_diagonal) {
      fprintf(stderr, "cgmodel validate: skipped %s: not symmetric with a positive diagonal\n",
              mats[mi]);
      cgm_csr_free(&A);
      continue;
    }
    const char *name = strrchr(mats[mi], '/') ? strrchr(mats[mi], '/') + 1 : mats[mi];
    double *b = malloc(sizeof(double) * A.nrows), *x = malloc(sizeof(double) * A.nrows);
    if (!b || !x) {
      free(b), free(x);
      cgm_csr_free(&A);
      rc = cli_error("validate", 3, "out of memory");
      goto out;
    }
    for (int32_t i = 0; i < A.nrows; i++) x[i] = 1.0;
    cgm_csr_spmv(&A, x, b);
    int first = R.n, short_noted = 0;
    for (int pr = 0; pr < 2; pr++) {
      if (!(precisions & (1u << pr))) continue;
      for (int be = 0; be < 3; be++) {
        if ((be == CGM_BACKEND_CPU && (!want_cpu || cpu < 0)) ||
            (be == CGM_BACKEND_CUDA && (!want_cuda || gpu < 0)) ||
            (be == CGM_BACKEND_CUSPARSE && (!want_cusp || gpu < 0)))
          continue;
        const cgm_tuner_device *dv = &devs[be == CGM_BACKEND_CPU ? cpu : gpu];
        int gmax = be == CGM_BACKEND_CUDA ? maxg : 1;
        for (int bi = 0; bi < CGM_NBLOCKSIZES; bi++) {
          if (be == CGM_BACKEND_CUSPARSE && bi > 0) continue;
          for (int G = 1; G <= gmax; G++) {
            cgm_solve_opts o = cgm_solve_opts_default();
            o.gpu = gpu_opts;
            o.backend = (cgm_backend)be;
            o.precision = (cgm_precision)pr;
            o.layout = cgm_plan_layout_params(&A, cgm_block_sizes[bi], G);
            o.gpus = G;
            o.maxiter = iters;
            o.tol = 1e-300;
            row r;
            memset(&r, 0, sizeof r);
            snprintf(r.matrix, sizeof r.matrix, "%s", name);
            r.backend = o.backend;
            r.precision = o.precision;
            r.block = o.layout.n;
            r.gpus = be == CGM_BACKEND_CPU ? 0 : G;
            if (cgm_predict_config(&A, &f, dv, &o, &r.pred, &e)) continue; /* too few block rows */
            r.pred_paper = cgm_paper_device_time(&dv->paper[pr], r.block, f.x,
                                                 (double)f.block[bi].elements, G, true);
            if (be == CGM_BACKEND_CUSPARSE) r.pred_paper = NAN;
            /* The median of R solves: one solve now and then runs 2-3x
             * slow (host-bound loops such as cuSPARSE's on a busy host),
             * which is noise of the measurement, not error of the model. */
            cgm_solve_result res;
            double reps[99];
            cgm_status st = CGM_OK;
            int nrep = 0;
            for (int k = 0; k < repeat && (st == CGM_OK || st == CGM_ENOCONV); k++) {
              memset(x, 0, sizeof(double) * A.nrows);
              st = cgm_solve(&A, b, x, &o, &res, &e);
              reps[nrep++] = res.time_per_iter_s;
              if (res.iterations < iters) break; /* skipped below: no need to repeat */
            }
            if (st != CGM_OK && st != CGM_ENOCONV) continue;
            res.time_per_iter_s = cgm_median(reps, nrep); /* stored with the last run's record */
            /* A solve that stopped before K iterations (a diagonal matrix:
             * exact after one) was timed over a partial batch and its
             * warm-up: no steady state to compare with. */
            if (res.iterations < iters) {
              if (!short_noted++)
                fprintf(stderr,
                        "cgmodel validate: skipped %s (%s, N = %d): stopped after %d of %d "
                        "iterations (%s); too few to time\n",
                        name, cgm_backend_name(o.backend), o.layout.n, res.iterations, iters,
                        res.stop_reason[0] ? res.stop_reason : "converged");
              continue;
            }
            r.meas = res.time_per_iter_s;
            if (push(&R, &r)) {
              rc = cli_error("validate", 3, "out of memory");
              break;
            }
            struct stat sb;
            cgm_error e2 = {0};
            cgm_record_solve(db, name, mats[mi], stat(mats[mi], &sb) == 0 ? (int64_t)sb.st_size : 0,
                             &f, &o, &res, r.pred, dv->calibration_id, &e2);
          }
        }
      }
    }
    /* The tuner's regret on this matrix: its choice (smallest prediction)
     * against the best measured configuration. */
    int best_pred = -1, best_meas = -1;
    for (int i = first; i < R.n; i++) {
      if (isfinite(R.v[i].pred) && (best_pred < 0 || R.v[i].pred < R.v[best_pred].pred))
        best_pred = i;
      if (best_meas < 0 || R.v[i].meas < R.v[best_meas].meas) best_meas = i;
    }
    if (best_pred >= 0 && best_meas >= 0) {
      double regret = R.v[best_pred].meas / R.v[best_meas].meas;
      nregret++;
      regret_sum += regret;
      if (regret > regret_max) regret_max = regret;
      if (regret <= 1.05) within5++;
    }
    free(b);
    free(x);
    cgm_csr_free(&A);
    if (!json && cli_stderr_is_tty()) fprintf(stderr, "\r%d/%d matrices", mi + 1, nm);
  }
  if (!json && cli_stderr_is_tty()) fputc('\n', stderr);
  if (R.n == 0) {
    rc = cli_error("validate", 2,
                   "nothing was measured: no matrix of %s could be predicted and run "
                   "on the calibrated devices (the notes above say why)",
                   a.positional[0]);
    goto out;
  }
  if (csv) {
    FILE *f = fopen(csv, "w");
    if (!f) {
      rc = cli_error("validate", 3, "cannot write %s", csv);
      goto out;
    }
    fprintf(f, "matrix,backend,precision,block,gpus,predicted_s,predicted_paper_s,measured_s,rel_"
               "error,rel_error_paper\n");
    for (int i = 0; i < R.n; i++) {
      const row *r = &R.v[i];
      fprintf(f, "%s,%s,%s,%d,%d,%.9g,%.9g,%.9g,%.6f,%.6f\n", r->matrix,
              cgm_backend_name(r->backend), cgm_precision_name(r->precision), r->block, r->gpus,
              r->pred, r->pred_paper, r->meas, fabs(r->pred - r->meas) / r->meas,
              fabs(r->pred_paper - r->meas) / r->meas);
    }
    fclose(f);
  }
  {
    /* Groups: backend x precision x block x GPUs, in order of appearance. */
    cJSON *groups = cJSON_CreateArray();
    double *e1 = malloc(sizeof(double) * (R.n + 1)), *e2 = malloc(sizeof(double) * (R.n + 1));
    bool *done = calloc((size_t)R.n + 1, 1);
    if (!json)
      printf("%-8s %-6s %2s %4s %5s %10s %10s %10s %10s %12s\n", "backend", "prec", "N", "GPUs",
             "count", "avg err", "variance", "median", "p90", "paper avg");
    for (int i = 0; i < R.n && e1 && e2 && done; i++) {
      if (done[i]) continue;
      int k1 = 0, k2 = 0;
      for (int j = i; j < R.n; j++) {
        const row *p = &R.v[i], *q = &R.v[j];
        if (q->backend != p->backend || q->precision != p->precision || q->block != p->block ||
            q->gpus != p->gpus)
          continue;
        done[j] = true;
        if (isfinite(q->pred)) e1[k1++] = fabs(q->pred - q->meas) / q->meas;
        if (isfinite(q->pred_paper)) e2[k2++] = fabs(q->pred_paper - q->meas) / q->meas;
      }
      double avg, var, med, p90, pavg = NAN, pvar, pmed, pp90;
      stats(e1, k1, &avg, &var, &med, &p90);
      if (k2) stats(e2, k2, &pavg, &pvar, &pmed, &pp90);
      const row *p = &R.v[i];
      if (json) {
        cJSON *g = cJSON_CreateObject();
        cJSON_AddStringToObject(g, "backend", cgm_backend_name(p->backend));
        cJSON_AddStringToObject(g, "precision", cgm_precision_name(p->precision));
        cJSON_AddNumberToObject(g, "block", p->block);
        cJSON_AddNumberToObject(g, "gpus", p->gpus);
        cJSON_AddNumberToObject(g, "count", k1);
        cJSON_AddNumberToObject(g, "avg_rel_error", avg);
        cJSON_AddNumberToObject(g, "variance", var);
        cJSON_AddNumberToObject(g, "median_rel_error", med);
        cJSON_AddNumberToObject(g, "p90_rel_error", p90);
        if (k2) cJSON_AddNumberToObject(g, "paper_avg_rel_error", pavg);
        cJSON_AddItemToArray(groups, g);
      } else {
        printf("%-8s %-6s %2d %4d %5d %9.1f%% %10.4f %9.1f%% %9.1f%% %11.1f%%\n",
               cgm_backend_name(p->backend), cgm_precision_name(p->precision), p->block, p->gpus,
               k1, 100 * avg, var, 100 * med, 100 * p90, 100 * pavg);
      }
    }
    free(e1);
    free(e2);
    free(done);
    if (json) {
      cJSON *o = cJSON_CreateObject();
      cJSON_AddNumberToObject(o, "matrices", nregret);
      cJSON_AddNumberToObject(o, "measurements", R.n);
      cJSON_AddItemToObject(o, "groups", groups);
      cJSON *t = cJSON_AddObjectToObject(o, "tuner");
      cJSON_AddNumberToObject(t, "mean_regret", nregret ? regret_sum / nregret : NAN);
      cJSON_AddNumberToObject(t, "max_regret", regret_max);
      cJSON_AddNumberToObject(t, "within_5_percent", nregret ? (double)within5 / nregret : NAN);
      rc = cli_print_json(o);
    } else {
      cJSON_Delete(groups);
      printf(
          "tuner: choice within 5%% of the best measured on %d of %d matrices; mean regret %.3f, "
          "worst %.3f\n",
          within5, nregret, nregret ? regret_sum / nregret : NAN, regret_max);
    }
  }
out:
  for (int i = 0; i < nm; i++) free(mats[i]);
  free(mats);
  free(R.v);
  free(devs);
  if (db) cgm_db_close(db);
  return rc;
}
