/* SPDX-License-Identifier: GPL-3.0-or-later */
/* cgmodel validate LIST_OR_DIR: predicted against measured for every matrix
 * and configuration of this machine (the paper's Table 6), and the tuner's
 * regret. Every measurement is stored beside its prediction. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cgmodel/pipeline.h"
#include "cgmodel/validate.h"
#include "cli/args.h"
#include "cli/commands.h"
#include "cli/dbopen.h"
#include "cli/env.h"
#include "cli/outcheck.h"
#include "cli/output.h"
#include "common/outfile.h"

static const char help[] =
    "usage: cgmodel validate LIST_OR_DIR [--gpus G] [--backend cpu|cuda|cusparse|all]\n"
    "                        [--precision P[,P...]|both] [--iters K] [--repeat R]\n"
    "                        [--total TOL] [--include-disturbed] [--csv FILE] [--db FILE]\n"
    "                        [--json]\n"
    "For every SPD matrix (*.mtx of a directory, or one path per line of a list file) and every\n"
    "configuration of this machine's calibrated devices: predict (refined and paper models),\n"
    "run K iterations R times (default 3; the median time counts) and compare. Reports per\n"
    "block size and GPU count the average relative error and its variance (Table 6), the median\n"
    "and 90th percentile, and the tuner's regret (measured time of its choice over the best\n"
    "measured). --total TOL: every run solves to TOL (precisions double and mixed by default)\n"
    "and the times compared are setup + solve, the tuner's predicted total against the\n"
    "measured one. Runs other work held up are recorded as disturbed and left out of the\n"
    "errors and the regret (--include-disturbed: counted).\n";

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
    printf("%-8s %-6s %2d %4d %5d %9.1f%% %+9.1f%% %10.4f %9.1f%% %9.1f%% %11.1f%% %+11.1f%%\n",
           cgm_backend_name(g->backend), cgm_precision_name(g->precision), g->block, g->gpus,
           g->count, 100 * g->avg_rel_error, 100 * g->mean_signed_error, g->variance,
           100 * g->median_rel_error, 100 * g->p90_rel_error, 100 * g->paper_avg_rel_error,
           100 * g->paper_mean_signed_error);
  }
  printf("tuner: choice within 5%% of the best measured on %d of %d matrices (within 10%% on %d); "
         "mean regret %.3f, worst %.3f\n",
         r->within_5, r->regret_count, r->within_10, r->mean_regret, r->max_regret);
  if (r->disturbed)
    printf("disturbed: %d runs held up by other work (notes above)\n", r->disturbed);
}

int cmd_validate(int argc, char **argv) {
  cli_args a;
  cli_args_init(&a, argc - 1, argv + 1);
  const char *db_path = NULL, *csv = NULL, *backends = "all";
  int json = 0, maxg = 0, iters = 100, repeat = 3;
  bool include_disturbed = false;
  unsigned precisions = 0;
  const char *precision_arg = NULL;
  double total = 0, d;
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
    else if (cli_flag(&a, "--include-disturbed"))
      include_disturbed = true;
    else if (cli_double(&a, "--total", 1e-300, 1.0, &d))
      total = d;
    else if (cli_opt(&a, "--precision"))
      precision_arg = a.value;
    else
      cli_unknown(&a);
  }
  if (cli_failed(&a)) return cli_error("validate", 2, "%s", a.error);
  /* mixed precision is timed only as a whole solve (--total) */
  if (!precision_arg)
    precisions =
        total > 0 ? (1u << CGM_PREC_DOUBLE) | (1u << CGM_PREC_MIXED) : 1u << CGM_PREC_DOUBLE;
  else if (!cli_precisions(precision_arg, total > 0, &precisions))
    return cli_error("validate", 2, "--precision: '%s' is not a list of single, double%s (or both)",
                     precision_arg, total > 0 ? ", mixed" : "");
  cgm_validate_opts o;
  memset(&o, 0, sizeof o);
  cgm_backend b;
  if (!strcmp(backends, "all"))
    o.backends = (1u << CGM_BACKEND_CPU) | (1u << CGM_BACKEND_CUDA) | (1u << CGM_BACKEND_CUSPARSE);
  else if (cgm_backend_parse(backends, &b))
    o.backends = 1u << b;
  else
    return cli_error("validate", 2, "--backend: '%s' is not cpu, cuda, cusparse or all", backends);
  if (a.npositional != 1)
    return cli_error("validate", 2, "expected a directory or list file\n%s", help);
  o.source = a.positional[0];
  if (cli_parse_only) return 0;
  o.precisions = precisions;
  o.max_gpus = maxg;
  o.iters = iters;
  o.total_tol = total;
  o.repeat = repeat;
  o.include_disturbed = include_disturbed;
  o.progress = json ? NULL : cli_progress_count;
  o.note = cli_note;
  static char cmd[] = "validate";
  o.ctx = cmd;
  char **mats = NULL;
  cgm_error err = {0};
  if (cgm_matrix_paths(a.positional[0], &mats, &o.nmatrices, &err))
    return cli_report("validate", &err);
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
  cgm_validate_report r;
  memset(&r, 0, sizeof r);
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
