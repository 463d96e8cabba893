/* SPDX-License-Identifier: GPL-3.0-or-later */
/* cgmodel devices [--db FILE] [--json]: this machine's devices, how its GPUs
 * reach each other, and each device's newest calibration. */
#include <stdio.h>
#include <string.h>

#include "cgmodel/pipeline.h"
#include "cgmodel/devices.h"
#include "cli/args.h"
#include "cli/commands.h"
#include "cli/dbopen.h"
#include "cli/env.h"
#include "cli/output.h"

static const char help[] =
    "usage: cgmodel devices [--db FILE] [--json]\n"
    "Prints this machine's CPU and GPUs (name, memory, SMs), the peer access between\n"
    "the GPUs, whether this build has NCCL and MPI, and for each device its newest\n"
    "calibration in the database: when, by which cgmodel, whether this build should\n"
    "calibrate it anew, and the command that does.\n"
    "  --db FILE              the database to look in (default: as every command)\n"
    "  --json                 one JSON object on stdout\n";

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
  if (!r->database[0])
    printf("database    none\n");
  else if (r->database_error[0])
    printf("database    %s: %s\n", r->database, r->database_error);
  else
    printf("database    %s%s\n", r->database, r->database_present ? "" : " (does not exist)");
  printf("\ncpu         %s, %d cores, %d threads (OpenMP), %.1f GiB\n", r->cpu_model, r->cores,
         r->threads, r->host_memory / 1073741824.0);
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

int cmd_devices(int argc, char **argv) {
  cli_args a;
  cli_args_init(&a, argc - 1, argv + 1);
  const char *db = NULL;
  int json = 0;
  while (cli_next(&a)) {
    if (cli_flag(&a, "--help") || cli_flag(&a, "-h")) {
      fputs(help, stdout);
      return 0;
    } else if (cli_flag(&a, "--json"))
      json = 1;
    else if (cli_opt(&a, "--db"))
      db = a.value;
    else
      cli_unknown(&a);
  }
  if (cli_failed(&a)) return cli_error("devices", 2, "%s", a.error);
  if (a.npositional)
    return cli_error("devices", 2, "unexpected argument '%s'\n%s", a.positional[0], help);
  char emsg[256];
  cgm_gpu_opts gpu;
  if (cli_env_gpu_opts(&gpu, emsg, sizeof emsg)) return cli_error("devices", 2, "%s", emsg);
  char buf[1024];
  const char *path = cli_db_path(db, buf, sizeof buf);
  cgm_error err = {0};
  cgm_devices_report r;
  if (cgm_devices(path && *path ? path : NULL, cli_env_db_readonly() ? CGM_DB_READONLY : 0, &gpu,
                  &r, &err))
    return cli_report("devices", &err);
  if (json) return cli_print_json(cgm_devices_json(&r));
  char db_opt[1100] = "";
  if (db) snprintf(db_opt, sizeof db_opt, " --db %s", db);
  print_human(&r, db_opt);
  return 0;
}
