/* SPDX-License-Identifier: GPL-3.0-or-later */
/* cgmodel calibrate: measure this machine's devices and store the fits. */
#include <stdio.h>
#include <string.h>

#include "cgmodel/pipeline.h"
#include "cgmodel/calibrate.h"
#include "cli/args.h"
#include "cli/commands.h"
#include "cli/env.h"
#include "cli/dbopen.h"
#include "cli/output.h"

static const char help[] =
    "usage: cgmodel calibrate [--devices cpu|cuda:all|cuda:0,1|cpu,cuda:all] [--quick]\n"
    "                         [--precision single|double|both] [--threads T] [--strict]\n"
    "                         [--db FILE] [--json]\n"
    "Runs the microbenchmarks (the solver's own kernels over sizes and block sizes, plain loads,\n"
    "the cuSPARSE baseline and, on several GPUs, every exchange mode), fits Eq. 3 to each, and\n"
    "stores samples and fits in the database. Default devices: the CPU and every GPU. Disturbed\n"
    "timings are stored flagged, with a warning (--strict: refused, exit 3, nothing stored).\n";

int cmd_calibrate(int argc, char **argv) {
  cli_args a;
  cli_args_init(&a, argc - 1, argv + 1);
  cgm_calibrate_opts o;
  memset(&o, 0, sizeof o);
  o.precisions = 3;
  const char *db_path = NULL;
  int json = 0;
  int64_t v;
  snprintf(o.devices, sizeof o.devices, "%s", cgm_cuda_device_count() > 0 ? "cpu,cuda:all" : "cpu");
  while (cli_next(&a)) {
    if (cli_flag(&a, "--help") || cli_flag(&a, "-h")) {
      fputs(help, stdout);
      return 0;
    } else if (cli_flag(&a, "--quick"))
      o.quick = true;
    else if (cli_flag(&a, "--json"))
      json = 1;
    else if (cli_flag(&a, "--strict"))
      o.strict = true;
    else if (cli_opt(&a, "--db"))
      db_path = a.value;
    else if (cli_opt(&a, "--devices")) {
      if (strlen(a.value) >= sizeof o.devices) /* never cut: the rest would be dropped */
        return cli_error("calibrate", 2, "--devices: the list is longer than %zu characters",
                         sizeof o.devices - 1);
      snprintf(o.devices, sizeof o.devices, "%s", a.value);
    } else if (cli_opt(&a, "--precision")) {
      if (!cli_precisions(a.value, false, &o.precisions))
        return cli_error("calibrate", 2, "--precision: '%s' is not single, double or both",
                         a.value);
    } else if (cli_int(&a, "--threads", 1, 4096, &v))
      o.threads = (int)v;
    else
      cli_unknown(&a);
  }
  if (cli_failed(&a)) return cli_error("calibrate", 2, "%s", a.error);
  char emsg[256];
  if (cli_env_gpu_opts(&o.gpu, emsg, sizeof emsg)) return cli_error("calibrate", 2, "%s", emsg);
  if (a.npositional)
    return cli_error("calibrate", 2, "unexpected argument '%s'\n%s", a.positional[0], help);
  cgm_error err = {0};
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
  for (int i = 0; i < rep.count; i++)
    if (rep.cal[i].warning[0]) cli_note("calibrate", CGM_NOTE_WARNING, rep.cal[i].warning);
  if (st) {
    cgm_db_close(db);
    return cli_report("calibrate", &err);
  }
  if (json) {
    cJSON *j = cgm_calibration_report_json(&rep, cgm_db_path(db));
    cgm_db_close(db);
    return cli_print_json(j);
  }
  printf("database %s\n", cgm_db_path(db));
  for (int i = 0; i < rep.count; i++) {
    printf("calibration %lld: %s (%s%s), %d samples, %d fits (%d did not converge), %.1f s\n",
           (long long)rep.cal[i].id, rep.cal[i].device, rep.cal[i].model,
           rep.cal[i].gpus > 1 ? ", several GPUs" : "", rep.cal[i].samples, rep.cal[i].fits,
           rep.cal[i].fits_failed, rep.cal[i].seconds);
    if (rep.cal[i].failed[0]) printf("  not converged: %s\n", rep.cal[i].failed);
    /* the coefficients, a line per family and precision */
    for (int k = 0; k < CGM_COEF_FAMILIES; k++)
      for (int p = 0; p < 2; p++) {
        int any = 0;
        for (int q = 0; q < rep.cal[i].ncoef; q++) {
          const cgm_db_coef *c = &rep.cal[i].coef[q];
          const char *tail = cgm_coef_of(c, cgm_coef_families[k].name);
          if (c->precision != p || !tail) continue;
          if (!any++)
            printf("  %s (%s):", cgm_coef_families[k].label, cgm_precision_name((cgm_precision)p));
          printf(*tail ? " N=%s %.3g" : "%s %.3g", tail, cgm_coef_families[k].scale * c->value);
        }
        if (any) printf("\n");
      }
    printf("  time:");
    for (int k = 0; k < rep.cal[i].nstages; k++)
      printf("%s %s %.1f s", k ? "," : "", rep.cal[i].stage[k].name, rep.cal[i].stage[k].seconds);
    printf("\n");
  }
  printf("see them with: cgmodel db show ID\n");
  cgm_db_close(db);
  return 0;
}
