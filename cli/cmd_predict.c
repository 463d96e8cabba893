/* SPDX-License-Identifier: GPL-3.0-or-later */
/* cgmodel predict A.mtx: every configuration of the calibrated devices,
 * timed by the model, and the recommendation. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cgmodel/pipeline.h"
#include "cgmodel/predict.h"
#include "cli/args.h"
#include "cli/cacheopts.h"
#include "cli/commands.h"
#include "cli/dbopen.h"
#include "cli/env.h"
#include "cli/output.h"

static const char help[] =
    "usage: cgmodel predict A.mtx [options]\n"
    "Predicts the time of every configuration (block size x GPU count x precision x\n"
    "backend) of the calibrated devices, marks those that do not fit in GPU memory, and\n"
    "recommends the fastest (ties go to fewer GPUs). A.mtx '-': standard input.\n"
    "  --gpus G               at most G GPUs (default: every GPU of the calibrated device)\n"
    "  --block N|auto         block size 1, 2, 4 or 8 (default auto: every block size)\n"
    "  --precision P[,P...]   double, single, mixed, or both (default: every one calibrated)\n"
    "  --tol T                the tolerance the solve must meet (default 1e-8): it decides the\n"
    "                         iteration count and whether single precision is offered\n"
    "  --iters-hint K         double precision's iteration count to --tol, when known\n"
    "                         (default: the database's record of this matrix, else estimated)\n"
    "  --exchange E           halo | p2p | host | nccl | all, on several GPUs (default halo,\n"
    "                         the solver's)\n"
    "  --model M              refined | paper (default refined; paper: the paper's Eqs. 4-9)\n"
    "  --devices D            cpu | cuda | all (default all calibrated devices)\n"
    "  --no-cusparse          leave out the cuSPARSE baseline (default: included)\n"
    "  --db FILE              the database (default: $CGMODEL_DB, else the user's data\n"
    "                         directory)\n"
    "  --json                 one JSON object on stdout\n" CLI_CACHE_HELP
    "Exit codes: 0 a recommendation, 1 nothing to recommend, 2 bad input (also a matrix a\n"
    "solve would refuse), 3 runtime failure.\n";

int cmd_predict(int argc, char **argv) {
  cli_args a;
  cli_args_init(&a, argc - 1, argv + 1);
  cgm_tuner_opts to = cgm_tuner_opts_default();
  /* every precision, as solve --auto */
  to.precisions = (1u << CGM_PREC_DOUBLE) | (1u << CGM_PREC_SINGLE) | (1u << CGM_PREC_MIXED);
  double iters_hint = 0, d;
  const char *db_path = NULL, *kind = NULL;
  int json = 0;
  int64_t v;
  cli_cache cache;
  cli_cache_init(&cache);
  while (cli_next(&a)) {
    if (cli_flag(&a, "--help") || cli_flag(&a, "-h")) {
      fputs(help, stdout);
      return 0;
    } else if (cli_flag(&a, "--json"))
      json = 1;
    else if (cli_flag(&a, "--no-cusparse"))
      to.cusparse = false;
    else if (cli_opt(&a, "--db"))
      db_path = a.value;
    else if (cli_int(&a, "--gpus", 1, CGM_MAX_GPUS, &v))
      to.max_gpus = (int)v;
    else if (cli_opt(&a, "--block")) {
      if (!strcmp(a.value, "auto"))
        to.block = 0;
      else if (!strcmp(a.value, "1") || !strcmp(a.value, "2") || !strcmp(a.value, "4") ||
               !strcmp(a.value, "8"))
        to.block = atoi(a.value);
      else
        return cli_error("predict", 2, "--block: '%s' is not 1, 2, 4, 8 or auto", a.value);
    } else if (cli_opt(&a, "--precision")) {
      if (!cli_precisions(a.value, true, &to.precisions))
        return cli_error("predict", 2,
                         "--precision: '%s' is not a list of double, single, mixed (or both)",
                         a.value);
    } else if (cli_double(&a, "--tol", 1e-300, 1.0, &d)) {
      to.tol = d;
    } else if (cli_double(&a, "--iters-hint", 1.0, 1e9, &d)) {
      iters_hint = d;
    } else if (cli_opt(&a, "--exchange")) {
      cgm_exchange e;
      if (!strcmp(a.value, "all"))
        to.exchanges = 0xf;
      else if (cgm_exchange_parse(a.value, &e))
        to.exchanges = 1u << e;
      else
        return cli_error("predict", 2, "--exchange: '%s' is not halo, p2p, host, nccl or all",
                         a.value);
    } else if (cli_opt(&a, "--model")) {
      if (!strcmp(a.value, "paper"))
        to.paper = true;
      else if (strcmp(a.value, "refined"))
        return cli_error("predict", 2, "--model: '%s' is not refined or paper", a.value);
    } else if (cli_opt(&a, "--devices")) {
      if (!strcmp(a.value, "cpu") || !strcmp(a.value, "cuda"))
        kind = a.value;
      else if (strcmp(a.value, "all"))
        return cli_error("predict", 2, "--devices: '%s' is not cpu, cuda or all", a.value);
    } else if (!cli_cache_arg(&a, &cache))
      cli_unknown(&a);
  }
  if (cli_failed(&a)) return cli_error("predict", 2, "%s", a.error);
  if (a.npositional != 1) return cli_error("predict", 2, "expected one matrix file\n%s", help);
  cgm_predict_opts po;
  memset(&po, 0, sizeof po);
  po.matrix = cli_input_path(a.positional[0]);
  po.kind = kind;
  po.tuner = to;
  po.iters_hint = iters_hint;
  po.cache = cli_cache_opts(&cache);
  po.note = cli_note;
  static char cmd[] = "predict";
  po.note_ctx = cmd;
  if (cli_parse_only) return 0;
  cgm_db *db;
  int rc = cli_db_open("predict", db_path, false, &db);
  if (rc) return rc;
  char emsg[256];
  if (cli_env_gpu_opts(&po.gpu, emsg, sizeof emsg)) {
    cgm_db_close(db);
    return cli_error("predict", 2, "%s", emsg);
  }
  cgm_error err = {0};
  cgm_predict_report r;
  if (cgm_predict(db, &po, &r, &err)) {
    rc = cli_report("predict", &err);
  } else if (json) {
    rc = cli_print_json(cgm_predict_json(&po, &r));
  } else {
    const cgm_features *f = &r.features;
    printf("matrix      %s: x = %d, nnz = %lld, rows %d..%d (avg %.1f)\n", po.matrix, f->x,
           (long long)f->nnz, f->row_min, f->row_max, f->row_avg);
    if (r.choice >= 0) {
      printf("recommended %s\n", r.why);
      if (r.have_reorder && r.reorder.rcm_computed)
        printf("reorder     %s; bandwidth %lld, %lld after RCM\n", r.reorder.why,
               (long long)r.reorder.bandwidth_none, (long long)r.reorder.bandwidth_rcm);
      else if (r.have_reorder)
        printf("reorder     %s; bandwidth %lld\n", r.reorder.why,
               (long long)r.reorder.bandwidth_none);
      printf("\n");
    } else
      printf("recommended none (%s)\n\n", r.why);
    printf("iterations  %.0f in double precision to tol %.3g (%s)\n\n", r.iterations,
           to.tol > 0 ? to.tol : 1e-8,
           !strcmp(r.k_source, "estimate")
               ? "estimated from the size: give --iters-hint K, or solve once"
           : !strcmp(r.k_source, "probe")    ? "extrapolated from 50 CPU iterations"
           : !strcmp(r.k_source, "database") ? "a recorded solve of this matrix"
                                             : "--iters-hint");
    printf("%-34s %-8s %-6s %2s %4s %-5s %11s %8s %7s %9s %9s %9s %s\n", "device", "backend",
           "prec", "N", "GPUs", "xchg", "us/iter", "GFLOPS", "speedup", "memory", "setup s",
           "total s", "");
    for (int i = 0; i < r.ncand; i++) {
      const cgm_candidate *k = &r.cand[i];
      char device[256];
      cgm_candidate_device(k, r.devs, device, sizeof device);
      printf("%-34.34s %-8s %-6s %2d %4d %-5s %11.2f %8.2f %7.2f %8.2fG %9.3f %9.3f %s%s\n", device,
             cgm_backend_name(k->backend), cgm_precision_name(k->precision), k->block, k->gpus,
             k->gpus > 1 ? cgm_exchange_name(k->exchange) : "-", 1e6 * k->time_per_iter_s,
             k->gflops_raw, isfinite(k->speedup) ? k->speedup : 1.0, k->memory_bytes / 1073741824.0,
             k->setup_s, k->total_s, k->fits ? "" : "DOES NOT FIT",
             i == r.choice ? " <- choice" : "");
    }
  }
  /* Nothing to recommend: the table (or JSON) stands, and exit 1 says so
   * (as a solve that did not converge: a result, but a negative one). */
  if (r.choice < 0 && !rc) rc = cli_error("predict", 1, "%s", r.why);
  cgm_predict_report_free(&r);
  cgm_db_close(db);
  return rc;
}
