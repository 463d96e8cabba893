/* SPDX-License-Identifier: GPL-3.0-or-later */
/* cgmodel calibrate: measure this machine's devices and store the fits. */
#include <stdio.h>
#include <string.h>

#include "cgmodel/pipeline.h"
#include "cgmodel/calibrate.h"
#include "cli/commands.h"
#include "cli/env.h"
#include "cli/dbopen.h"
#include "cli/output.h"
#include "pipeline/request.h"

static const cli_opt opts[] = {
    {"--devices", "devices", CLI_LIST, "cpu|cuda:all|cuda", "LIST", "cpu and every GPU",
     "cpu, cuda:all, cuda:K, cuda:0,1,...: the devices"},
    {"--quick", "quick", CLI_TRUE, 0, 0, 0, "fewer sizes and repetitions"},
    {"--precision", "precision", CLI_CHOICE, "single|double|both", 0, "both", "the precisions"},
    {"--threads", "threads", CLI_INT, 0, "T", "OpenMP's", "CPU threads"},
    CLI_DB,
    CLI_JSON,
    CLI_OPTIONS,
    {0}};

/* The report of each calibration: fits and coefficients. */
static void print_calibrations(const cgm_calibration_report *rep) {
  for (int i = 0; i < rep->count; i++) {
    printf("calibration %lld: %s (%s%s), %d samples, %d fits (%d did not converge), %.1f s\n",
           (long long)rep->cal[i].id, rep->cal[i].device, rep->cal[i].model,
           rep->cal[i].gpus > 1 ? ", several GPUs" : "", rep->cal[i].samples, rep->cal[i].fits,
           rep->cal[i].fits_failed, rep->cal[i].seconds);
    if (rep->cal[i].failed[0]) printf("  not converged: %s\n", rep->cal[i].failed);
    for (int p = 0; p < 2; p++)
      if (rep->cal[i].have_x_coef[p])
        printf("  locality coefficient (%s): %.3g\n", cgm_precision_name((cgm_precision)p),
               rep->cal[i].x_coef[p]);
    for (int p = 0; p < 2; p++) {
      bool any = false;
      for (int b = 0; b < CGM_NBLOCKSIZES; b++) {
        if (!rep->cal[i].have_band_load[p][b]) continue;
        if (!any)
          printf("  band load (%s), the wide bands' extra walk:",
                 cgm_precision_name((cgm_precision)p));
        printf(" N=%d %.0f%%", cgm_block_sizes[b], 100 * rep->cal[i].band_load[p][b]);
        any = true;
      }
      if (any) printf("\n");
    }
    for (int p = 0; p < 2; p++)
      if (rep->cal[i].have_gather_bw[p]) {
        printf("  gather rate (%s): %.0f GB/s of x's sectors", cgm_precision_name((cgm_precision)p),
               1e-9 * rep->cal[i].gather_bw[p]);
        if (rep->cal[i].have_gather_small[p])
          printf(", %.0f GB/s at %d rows", 1e-9 * rep->cal[i].gather_bw_small[p],
                 CGM_GATHER_ROWS_SMALL);
        printf("\n");
      }
    for (int p = 0; p < 2; p++) {
      bool any = false;
      for (int b = 0; b < CGM_NBLOCKSIZES; b++) {
        if (!rep->cal[i].have_scatter_coef[p][b]) continue;
        if (!any)
          printf("  row-scatter (%s), us a step alone / in a full warp:",
                 cgm_precision_name((cgm_precision)p));
        printf(" N=%d %.3g", cgm_block_sizes[b], 1e6 * rep->cal[i].scatter_coef[p][b]);
        if (rep->cal[i].have_band_scatter_coef[p][b])
          printf(" / %.3g", 1e6 * rep->cal[i].band_scatter_coef[p][b]);
        any = true;
      }
      if (any) printf("\n");
    }
    printf("  time:");
    for (int k = 0; k < rep->cal[i].nstages; k++)
      printf("%s %s %.1f s", k ? "," : "", rep->cal[i].stage[k].name, rep->cal[i].stage[k].seconds);
    printf("\n");
  }
}

static int body(const cli_parsed *p) {
  cgm_error err = {0};
  cgm_calibrate_opts o;
  const char *db_path;
  if (cgm_calibrate_request(p->req, &o, &db_path, &err)) return cli_report("calibrate", &err);
  char emsg[256];
  if (cli_env_gpu_opts(&o.gpu, emsg, sizeof emsg)) return cli_error("calibrate", 2, "%s", emsg);
  if (p->npos)
    return cli_error("calibrate", 2, "unexpected argument '%s' (cgmodel calibrate --help)",
                     p->pos[0]);
  cgm_calibrate_plan_t plan; /* checked before the database is created */
  if (cgm_calibrate_plan(o.devices, &plan, &err)) return cli_report("calibrate", &err);
  if (cli_parse_only) return 0;
  cgm_db *db;
  int rc = cli_db_open("calibrate", db_path, true, &db);
  if (rc) return rc;
  o.progress = cli_progress;
  cgm_calibration_report rep;
  cgm_status st = cgm_calibrate(db, &o, &rep, &err);
  cli_progress_end();
  if (st) {
    cgm_db_close(db);
    return cli_report("calibrate", &err);
  }
  if (cli_true(p->local, "json")) {
    cJSON *j = cgm_calibration_report_json(&rep, cgm_db_path(db));
    cgm_db_close(db);
    return cli_print_json(j);
  }
  char name[4096];
  printf("database %s\n", cli_escape(cgm_db_path(db), name, sizeof name));
  print_calibrations(&rep);
  printf("see %s with:", rep.count > 1 ? "them" : "it");
  for (int i = 0; i < rep.count; i++)
    printf("%s cgmodel db show %lld%s%s", i ? ";" : "", (long long)rep.cal[i].id,
           db_path ? " --db " : "", db_path ? cli_escape(db_path, name, sizeof name) : "");
  printf("\n");
  cgm_db_close(db);
  return 0;
}

const cli_command cli_calibrate = {
    "calibrate", "",   NULL, "microbenchmarks of this machine's devices, Eq. 3 fits",
    opts,        NULL, body, NULL};
