/* SPDX-License-Identifier: GPL-3.0-or-later */
/* cgmodel predict A.mtx: every configuration of the calibrated devices,
 * timed by the model, and the recommendation. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cgmodel/predict.h"
#include "cli/commands.h"
#include "cli/dbopen.h"
#include "cli/env.h"
#include "cli/output.h"
#include "pipeline/request.h"

static const cli_opt opts[] = {
    {"--gpus", "gpus", CLI_INT, 0, "G", "every GPU calibrated",
     "at most G GPUs; more than present or calibrated: what-ifs"},
    {"--interconnect", "interconnect", CLI_STRING, 0, "NAME",
     "its own, else this host's newest, else pcie-host",
     "the profile pricing a what-if's exchange"},
    {"--block", "block", CLI_CHOICE, "1|2|4|8|auto", 0, "auto: every one", "the block size"},
    {"--precision", "precision", CLI_LIST, "double|single|mixed|both", "P[,P...]", "all three",
     "double, single, mixed, or both"},
    {"--tol", "tol", CLI_REAL, 0, "T", "1e-8", "the tolerance to meet (it sets K)"},
    {"--iters-hint", "iters_hint", CLI_REAL, 0, "K", 0, "double precision's iterations to --tol"},
    {"--exchange", "exchange", CLI_CHOICE, "halo|p2p|host|nccl|all", 0, "halo", "on several GPUs"},
    {"--model", "model", CLI_CHOICE, "refined|paper", 0, "refined", "paper: Eqs. 4-9"},
    {"--devices", "devices", CLI_CHOICE, "cpu|cuda|all", 0, "all", "the devices timed"},
    {"--no-cusparse", "cusparse", CLI_FALSE, 0, 0, 0, "leave out the cuSPARSE baseline"},
    CLI_DB,
    CLI_JSON,
    CLI_OPTIONS,
    {0}};

static void print_human(const cgm_predict_opts *po, const cgm_predict_report *r) {
  char name[4096];
  cli_escape(po->matrix, name, sizeof name);
  const cgm_features *f = &r->features;
  printf("matrix      %s: x = %d, nnz = %lld, rows %d..%d (avg %.1f)\n", name, f->x,
         (long long)f->nnz, f->row_min, f->row_max, f->row_avg);
  if (r->choice >= 0) {
    printf("recommended %s\n", r->why);
    if (r->have_reorder && r->reorder.rcm_computed)
      printf("reorder     %s; bandwidth %lld, %lld after RCM\n", r->reorder.why,
             (long long)r->reorder.bandwidth_none, (long long)r->reorder.bandwidth_rcm);
    else if (r->have_reorder)
      printf("reorder     %s; bandwidth %lld\n", r->reorder.why,
             (long long)r->reorder.bandwidth_none);
    printf("\n");
  } else
    printf("recommended none (%s)\n\n", r->why);
  printf("iterations  %.0f in double precision to tol %.3g (%s)\n\n", r->iterations,
         po->tuner.tol > 0 ? po->tuner.tol : CGM_DEFAULT_TOL,
         !strcmp(r->k_source, "estimate")
             ? "estimated from the size: give --iters-hint K, or solve once"
         : !strcmp(r->k_source, "probe")    ? "extrapolated from 50 CPU iterations"
         : !strcmp(r->k_source, "database") ? "a recorded solve of this matrix"
                                            : "--iters-hint");
  printf("%-34s %-8s %-6s %2s %4s %-5s %11s %8s %7s %9s %9s %9s %s\n", "device", "backend", "prec",
         "N", "GPUs", "xchg", "us/iter", "GFLOPS", "speedup", "memory", "setup s", "total s", "");
  for (int i = 0; i < r->ncand; i++) {
    const cgm_candidate *k = &r->cand[i];
    char device[256];
    cgm_candidate_device(k, r->devs, device, sizeof device);
    char what_if[300] = "";
    if (k->what_if)
      snprintf(what_if, sizeof what_if, " (what-if%s%.280s)", k->gpus > 1 ? ": " : "",
               k->gpus > 1 ? r->devs[k->device].interconnect : "");
    printf("%-34.34s %-8s %-6s %2d %4d %-5s %11.2f %8.2f %7.2f %8.2fG %9.3f %9.3f %s%s%s\n", device,
           cgm_backend_name(k->backend), cgm_precision_name(k->precision), k->block, k->gpus,
           k->gpus > 1 ? cgm_exchange_name(k->exchange) : "-", 1e6 * k->time_per_iter_s,
           k->gflops_raw, isfinite(k->speedup) ? k->speedup : 1.0, k->memory_bytes / 1073741824.0,
           k->setup_s, k->total_s, k->fits ? "" : "DOES NOT FIT",
           i == r->choice ? " <- choice" : "", what_if);
  }
}

static int body(const cli_parsed *p) {
  cgm_error err = {0};
  cgm_predict_opts po;
  const char *db_path;
  if (cgm_predict_request(p->req, &po, &db_path, &err)) return cli_report("predict", &err);
  if (p->npos != 1)
    return cli_error("predict", 2, "expected one matrix file (cgmodel predict --help)");
  po.matrix = cli_input_path(p->pos[0]);
  char cache[4096], emsg[256];
  if (!po.cache.dir && !cli_true(p->req, "no_cache") && !cli_env_cache_dir(cache, sizeof cache))
    po.cache.dir = cache;
  po.note = cli_note;
  static char cmd[] = "predict";
  po.note_ctx = cmd;
  if (cli_env_gpu_opts(&po.gpu, emsg, sizeof emsg)) return cli_error("predict", 2, "%s", emsg);
  if (cli_parse_only) return 0;
  cgm_db *db;
  int rc = cli_db_open("predict", db_path, CGM_DB_UNCHECKED, &db);
  if (rc) return rc;
  cgm_predict_report r;
  if (cgm_predict(db, &po, &r, &err)) {
    rc = cli_report("predict", &err);
  } else if (cli_true(p->local, "json")) {
    cJSON *j = cgm_predict_json(&po, &r);
    cJSON_AddItemToObject(j, "request", cgm_predict_request_json(&po));
    rc = cli_print_json(j);
  } else {
    print_human(&po, &r);
  }
  /* Nothing to recommend: the table (or JSON) stands, and exit 1 says so
   * (as a solve that did not converge: a result, but a negative one). */
  if (r.choice < 0 && !rc) rc = cli_error("predict", 1, "%s", r.why);
  cgm_predict_report_free(&r);
  cgm_db_close(db);
  return rc;
}

const cli_command cli_predict = {
    "predict", "A.mtx",
    NULL,      "the predicted time per iteration of every configuration, and a recommendation",
    opts,      cli_cache_table,
    body,      NULL};
