/* SPDX-License-Identifier: GPL-3.0-or-later */
/* cgmodel validate LIST_OR_DIR: predicted against measured for every matrix
 * and configuration of this machine (the paper's Table 6), and the tuner's
 * regret. Every measurement is stored beside its prediction. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>

#include "cgmodel/pipeline.h"
#include "cgmodel/validate.h"
#include "cli/commands.h"
#include "cli/dbopen.h"
#include "cli/env.h"
#include "cli/outcheck.h"
#include "cli/output.h"
#include "common/outfile.h"
#include "pipeline/request.h"

static const cli_opt opts[] = {
    {"--gpus", "gpus", CLI_INT, 0, "G", "every GPU calibrated", "the most GPUs of cuda", 1,
     CGM_MAX_GPUS},
    {"--backend", "backend", CLI_CHOICE, "cpu|cuda|cusparse|all", 0, "all", "the backends run"},
    {"--precision", "precision", CLI_LIST, "double|single|mixed|both", "P[,P...]", "double",
     "single, double (with --total mixed), or both"},
    {"--iters", "iters", CLI_INT, 0, "K", "100", "iterations a run", 10, 100000},
    {"--repeat", "repeat", CLI_INT, 0, "R", "3", "runs a configuration: the least counts", 1, 99},
    {"--total", "total", CLI_REAL, 0, "TOL", 0, "solve to TOL, compare setup + solve", 1e-300, 1},
    {"--include-disturbed", "include_disturbed", CLI_TRUE, 0, 0, 0,
     "count the runs other work held up in the errors and the regret"},
    {"--csv", "csv", CLI_PATH, 0, "FILE", 0, "also write every run"},
    CLI_DB,
    CLI_JSON,
    {0}};

/* --csv FILE: every run. */
static int write_csv(const char *path, const cgm_validate_report *r) {
  cgm_outfile of;
  cgm_error err = {0};
  if (cgm_outfile_open(&of, path, &err)) return cli_report("validate", &err);
  FILE *f = cgm_outfile_stream(&of);
  if (!f) {
    cgm_outfile_abort(&of);
    return cli_error("validate", 3, "cannot write %s: out of memory", path);
  }
  fprintf(f, "matrix,backend,precision,block,gpus,predicted_s,predicted_paper_s,measured_s,rel_"
             "error,rel_error_paper,signed_error,signed_error_paper\n");
  for (int i = 0; i < r->nrows; i++) {
    const cgm_validate_row *w = &r->rows[i];
    const double e = (w->predicted_s - w->measured_s) / w->measured_s,
                 ep = (w->predicted_paper_s - w->measured_s) / w->measured_s;
    fprintf(f, "%s,%s,%s,%d,%d,%.9g,%.9g,%.9g,%.6f,%.6f,%.6f,%.6f\n", w->matrix,
            cgm_backend_name(w->backend), cgm_precision_name(w->precision), w->block, w->gpus,
            w->predicted_s, w->predicted_paper_s, w->measured_s, fabs(e), fabs(ep), e, ep);
  }
  if (cgm_outfile_commit(&of, true, &err)) return cli_report("validate", &err);
  return 0;
}

static void print_table(const cgm_validate_report *r) {
  printf("%-8s %-6s %2s %4s %5s %10s %10s %10s %10s %10s %12s %12s\n", "backend", "prec", "N",
         "GPUs", "count", "avg err", "bias", "variance", "median", "p90", "paper avg",
         "paper bias");
  for (int i = 0; i < r->ngroups; i++) {
    const cgm_validate_group *g = &r->groups[i];
    char paper[2][16] = {"-", "-"}; /* the paper's model prices no such configuration */
    if (isfinite(g->paper_avg_rel_error))
      snprintf(paper[0], 16, "%.1f%%", 100 * g->paper_avg_rel_error),
          snprintf(paper[1], 16, "%+.1f%%", 100 * g->paper_mean_signed_error);
    printf("%-8s %-6s %2d %4d %5d %9.1f%% %+9.1f%% %10.4f %9.1f%% %9.1f%% %12s %12s\n",
           cgm_backend_name(g->backend), cgm_precision_name(g->precision), g->block, g->gpus,
           g->count, 100 * g->avg_rel_error, 100 * g->mean_signed_error, g->variance,
           100 * g->median_rel_error, 100 * g->p90_rel_error, paper[0], paper[1]);
  }
  printf("tuner: choice within 5%% of the best measured on %d of %d matrices (within 10%% on %d); "
         "mean regret %.3f, worst %.3f\n",
         r->within_5, r->regret_count, r->within_10, r->mean_regret, r->max_regret);
  const char *names[2] = {"double", "mixed"};
  for (int p = 0; p < 2; p++) /* --total: the iteration counts, predicted as for a new matrix */
    if (isfinite(r->k_mean_error[p]))
      printf("iterations (%s): predicted within %.1f%% on average, median %.1f%%, worst %.1f%%\n",
             names[p], 100 * r->k_mean_error[p], 100 * r->k_median_error[p],
             100 * r->k_max_error[p]);
  if (isfinite(r->ratio_mean_error))
    printf("iterations, mixed over double: within %.1f%% on average, worst %.1f%%\n",
           100 * r->ratio_mean_error, 100 * r->ratio_max_error);
  if (r->k_counted) /* a count the probe ran to the tolerance is exact: say how many were */
    printf("iterations: %d of %d matrices small enough for the probe to run them to the "
           "tolerance (as --auto does), the others extrapolated or estimated\n",
           r->k_probed, r->k_counted);
  if (r->disturbed)
    printf("disturbed: %d runs held up by other work (notes above)\n", r->disturbed);
}

static int body(const cli_parsed *p) {
  const cJSON *req = p->req;
  const char *db_path = cli_str(req, "db", NULL), *csv = cli_str(req, "csv", NULL);
  const char *backends = cli_str(req, "backend", "all"),
             *precision = cli_str(req, "precision", NULL);
  const bool json = cli_true(p->local, "json");
  cgm_validate_opts o = {.total_tol = cli_num(req, "total", 0),
                         .max_gpus = (int)cli_num(req, "gpus", 0),
                         .iters = (int)cli_num(req, "iters", 100),
                         .repeat = (int)cli_num(req, "repeat", 3),
                         .include_disturbed = cli_true(req, "include_disturbed")};
  /* mixed precision is timed only as a whole solve (--total) */
  o.precisions =
      o.total_tol > 0 ? (1u << CGM_PREC_DOUBLE) | (1u << CGM_PREC_MIXED) : 1u << CGM_PREC_DOUBLE;
  if (precision && !cgm_precisions_parse(precision, o.total_tol > 0, &o.precisions))
    return cli_error("validate", 2, "--precision: '%s' is not a list of single, double%s (or both)",
                     precision, o.total_tol > 0 ? ", mixed" : "");
  cgm_backend b;
  o.backends = (1u << CGM_BACKEND_CPU) | (1u << CGM_BACKEND_CUDA) | (1u << CGM_BACKEND_CUSPARSE);
  if (cgm_backend_parse(backends, &b)) o.backends = 1u << b;
  if (p->npos != 1)
    return cli_error("validate", 2, "expected a directory or list file (cgmodel validate --help)");
  o.source = p->pos[0];
  if (cli_parse_only) return 0;
  o.progress = json ? NULL : cli_progress_count;
  o.note = cli_note;
  static char cmd[] = "validate";
  o.ctx = cmd;
  char **mats = NULL;
  cgm_error err = {0};
  if (cgm_matrix_paths(o.source, &mats, &o.nmatrices, &err)) return cli_report("validate", &err);
  o.matrices = mats;
  /* --csv must not replace the database, the list or any of its matrices */
  char dbbuf[1024];
  cli_input fixed[] = {{"the database", cli_db_path(db_path, dbbuf, sizeof dbbuf)},
                       {"the matrix list", o.source}};
  int rc = cli_refuse_alias("validate", "--csv", csv, NULL, fixed, 2);
  for (int i = 0; !rc && i < o.nmatrices; i++) {
    const cli_input m = {"the matrix", mats[i]};
    rc = cli_refuse_alias("validate", "--csv", csv, NULL, &m, 1);
  }
  if (rc) {
    cgm_matrix_paths_free(mats, o.nmatrices);
    return rc;
  }
  cgm_db *db = NULL;
  cgm_validate_report r = {0};
  char emsg[256];
  rc = cli_db_open("validate", db_path, false, &db);
  if (!rc && cli_env_gpu_opts(&o.gpu, emsg, sizeof emsg)) rc = cli_error("validate", 2, "%s", emsg);
  if (!rc) {
    cgm_status st = cgm_validate(db, &o, &r, &err);
    cli_progress_end();
    if (st)
      rc = cli_report("validate", &err);
    else if (csv)
      rc = write_csv(csv, &r);
  }
  if (!rc) {
    if (json)
      rc = cli_print_json(cgm_validate_json(&r));
    else
      print_table(&r);
  }
  cgm_validate_report_free(&r);
  cgm_matrix_paths_free(mats, o.nmatrices);
  if (db) cgm_db_close(db);
  return rc;
}

const cli_command cli_validate = {
    "validate", "LIST_OR_DIR",
    NULL,       "predicted against measured over a set of matrices, and the tuner's regret",
    opts,       NULL,
    body,       NULL};
