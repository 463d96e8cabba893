/* SPDX-License-Identifier: GPL-3.0-or-later */
/* cgmodel devices [--db FILE] [--json]: this machine's devices, how its GPUs
 * reach each other, and each device's newest calibration. */
#include <stdio.h>

#include "cgmodel/devices.h"
#include "cli/commands.h"
#include "cli/dbopen.h"
#include "cli/env.h"
#include "cli/output.h"

static const cli_opt opts[] = {CLI_DB, CLI_JSON, {0}};

static void print_calibration(const cgm_devices_calibration *c, const char *db_opt) {
  if (c->found && !c->exact)
    printf("  calibration %lld of %d thread%s: serves solve --threads %d (--auto runs it)\n",
           (long long)c->id, c->threads, c->threads == 1 ? "" : "s", c->threads);
  if (c->found && c->interpolated)
    printf("  %d curves interpolated, no fit in bounds (cgmodel db show %lld)\n", c->interpolated,
           (long long)c->id);
  if (!c->found)
    printf("  calibration none: %s%s\n", c->refresh, db_opt);
  else if (c->stale)
    printf("  calibration %lld, %s, cgmodel %s: STALE (%s): %s%s\n", (long long)c->id, c->created,
           c->tool_version, c->stale_why, c->refresh, db_opt);
  else
    printf("  calibration %lld, %s, cgmodel %s: current (refresh: %s%s)\n", (long long)c->id,
           c->created, c->tool_version, c->refresh, db_opt);
}

static void print_human(const cgm_devices_report *r, const char *db_opt) {
  printf("cgmodel %s (%s)\n", r->version, r->cuda_build ? "CUDA backend" : "CPU-only build");
  printf("nccl        %s\n", r->nccl ? "available (opened on first use)" : r->nccl_note);
  printf("mpi         %s\n", !r->mpi ? "not built"
                             : r->metis
                                 ? "built in (mpirun -n P cgmodel solve; partitions rows, metis)"
                                 : "built in (mpirun -n P cgmodel solve; partition rows)");
  char db[4096];
  cli_escape(r->database, db, sizeof db);
  if (!r->database[0])
    printf("database    none\n");
  else if (r->database_error[0])
    printf("database    %s: %s\n", db, r->database_error);
  else
    printf("database    %s%s\n", db, r->database_present ? "" : " (does not exist)");
  char wait[96];
  printf("\ncpu         %s, %d core%s, %d thread%s (OpenMP, %s), %.1f GiB\n", r->cpu_model,
         r->cores, r->cores == 1 ? "" : "s", r->threads, r->threads == 1 ? "" : "s",
         cli_env_openmp_wait_said(wait, sizeof wait), r->host_memory / 1073741824.0);
  print_calibration(&r->cpu_cal, db_opt);
  if (r->gpus_present == 0) {
    printf("\ngpus        none%s\n", r->cuda_build ? "" : " (this build has no CUDA backend)");
    return;
  }
  printf("\ngpus        %d present%s\n", r->gpus_present,
         r->gpus < r->gpus_present ? " (the first ones described)" : "");
  for (int g = 0; g < r->gpus; g++) {
    printf("cuda:%-6d  %s, %.1f GiB, %d SMs, compute capability %d.%d\n", g, r->gpu[g].name,
           r->gpu[g].memory_bytes / 1073741824.0, r->gpu[g].sms, r->gpu[g].cc_major,
           r->gpu[g].cc_minor);
    print_calibration(&r->gpu[g].cal, db_opt);
  }
  if (r->gpus > 1) {
    printf("\npeer access (row reads column's memory; p2p and halo need it):\n     ");
    for (int k = 0; k < r->gpus; k++) printf(" %3d", k);
    printf("\n");
    for (int g = 0; g < r->gpus; g++) {
      printf("  %2d ", g);
      for (int k = 0; k < r->gpus; k++) printf(" %3s", g == k ? "-" : r->peer[g][k] ? "yes" : "no");
      printf("\n");
    }
  }
}

static int body(const cli_parsed *p) {
  if (p->npos) return cli_error("devices", 2, "unexpected argument '%s'", p->pos[0]);
  char emsg[256];
  cgm_gpu_opts gpu;
  if (cli_env_gpu_opts(&gpu, emsg, sizeof emsg)) return cli_error("devices", 2, "%s", emsg);
  if (cli_parse_only) return 0;
  const char *db = cli_str(p->req, "db", NULL);
  char buf[1024];
  const char *path = cli_db_path(db, buf, sizeof buf);
  cgm_error err = {0};
  cgm_devices_report r;
  if (cgm_devices(path && *path ? path : NULL, cli_env_db_readonly() ? CGM_DB_READONLY : 0, &gpu,
                  &r, &err))
    return cli_report("devices", &err);
  if (cli_true(p->local, "json")) return cli_print_json(cgm_devices_json(&r));
  char db_opt[4200] = "", name[4096];
  if (db) snprintf(db_opt, sizeof db_opt, " --db %s", cli_escape(db, name, sizeof name));
  print_human(&r, db_opt);
  return 0;
}

const cli_command cli_devices = {
    "devices", "",   NULL, "this machine's CPU, GPUs, NCCL, MPI and their calibrations",
    opts,      NULL, body, NULL};
