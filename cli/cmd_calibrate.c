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
    {"--strict", "strict", CLI_TRUE, 0, 0, 0, "refuse disturbed timings: exit 3, nothing stored"},
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
    /* the coefficients, a line per family and precision */
    for (int k = 0; k < CGM_COEF_FAMILIES; k++)
      for (int p = 0; p < 2; p++) {
        int any = 0;
        for (int q = 0; q < rep->cal[i].ncoef; q++) {
          const cgm_db_coef *c = &rep->cal[i].coef[q];
          const char *tail = cgm_coef_of(c, cgm_coef_families[k].name);
          if (c->precision != p || !tail) continue;
          if (!any++)
            printf("  %s (%s):", cgm_coef_families[k].label, cgm_precision_name((cgm_precision)p));
          printf(*tail ? " N=%s %.3g" : "%s %.3g", tail, cgm_coef_families[k].scale * c->value);
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
  bool cpu = false;
  for (int i = 0; i < plan.count; i++) cpu |= !strcmp(plan.device[i], "cpu");
  /* a busy CPU: threads that spin milliseconds at a barrier take turns with the other work, each
   * barrier a scheduler slice; calibrated by a program started again spinning less. A GPU's
   * calibration always: its host's threads only make matrices, and one other process's spinning
   * thread on 16 cores made its set-up stages 3-9 times slower */
  if (!o.strict && cli_env_spin_default() &&
      (!cpu || (o.cpu_share = cgm_calibrate_cpu_share(o.threads)) < CGM_BUSY_SHARE))
    cli_env_restart_bounded(); /* where it returns, the share read serves the calibration */
  cgm_db *db;
  int rc = cli_db_open("calibrate", db_path, true, &db);
  if (rc) return rc;
  o.progress = cli_progress;
  cgm_calibration_report rep;
  cgm_status st = cgm_calibrate(db, &o, &rep, &err);
  cli_progress_end();
  for (int i = 0; i < rep.count; i++)
    if (rep.cal[i].warning[0]) cli_note("calibrate", CGM_NOTE_WARNING, rep.cal[i].warning);
  if (st) {
    rc = cli_report("calibrate", &err);
  } else if (cli_true(p->local, "json")) {
    cJSON *j = cgm_calibration_report_json(&rep, cgm_db_path(db));
    char wait[96];
    cJSON_AddStringToObject(j, "openmp_wait", cli_env_openmp_wait_said(wait, sizeof wait));
    rc = cli_print_json(j);
  } else {
    char name[4096];
    printf("database %s\n", cli_escape(cgm_db_path(db), name, sizeof name));
    print_calibrations(&rep);
    printf("see %s with:", rep.count > 1 ? "them" : "it");
    for (int i = 0; i < rep.count; i++)
      printf("%s cgmodel db show %lld%s%s", i ? ";" : "", (long long)rep.cal[i].id,
             db_path ? " --db " : "", db_path ? cli_escape(db_path, name, sizeof name) : "");
    printf("\n");
  }
  cgm_db_close(db);
  return rc;
}

const cli_command cli_calibrate = {
    "calibrate", "",   NULL, "microbenchmarks of this machine's devices, Eq. 3 fits",
    opts,        NULL, body, NULL};
