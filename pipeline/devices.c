/* SPDX-License-Identifier: GPL-3.0-or-later */
/* cgmodel devices: this machine's CPU and GPUs, how the GPUs reach each other, what this build can
 * use between them (NCCL, MPI), and for each device its newest calibration in the database and
 * whether this build should calibrate it anew. */
#define _POSIX_C_SOURCE 200809L
#include <omp.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cgmodel/dist.h"
#include "cgmodel/pipeline.h"
#include "cgmodel/devices.h"

typedef struct {
  cgm_devices_report *r;
  const cgm_gpu_opts *gpu;
} scan_ctx;

/* The newest complete calibration of a model of this kind (a CPU's at the default threads, else at
 * the newest other count), and whether this build's solver would be mispredicted by it. */
static void match(const cgm_db_calibration *c, const cgm_db_device *d, bool cpu, const char *model,
                  const cgm_gpu_opts *gpu, cgm_devices_calibration *out) {
  const bool exact = !strcmp(d->model, model);
  if ((out->found && (out->exact || !exact)) || !c->complete ||
      strcmp(d->kind, cpu ? "cpu" : "cuda") || !(exact || (cpu && cgm_same_cpu(d->model, model))))
    return;
  memset(out->stale_why, 0, sizeof out->stale_why);
  out->found = true;
  out->exact = exact;
  out->threads = cpu ? d->threads : 0;
  out->id = c->id;
  snprintf(out->created, sizeof out->created, "%s", c->created);
  snprintf(out->tool_version, sizeof out->tool_version, "%s", c->tool_version);
  char cg[16];
  cgm_calibration_cg(c->options, cpu, cg, sizeof cg);
  if (strcmp(c->tool_version, cgm_version()))
    snprintf(out->stale_why, sizeof out->stale_why,
             "made by cgmodel %s, this build is %s: its kernels and fits may differ",
             c->tool_version, cgm_version());
  else if (!cpu && strcmp(cg, cgm_cg_variant_name(gpu->cg)))
    snprintf(out->stale_why, sizeof out->stale_why,
             "timed the %s CG, the solver now runs the %s CG", cg, cgm_cg_variant_name(gpu->cg));
  out->stale = out->stale_why[0] != '\0';
}

static int count_interp(const cgm_db_fit *f, void *ctx) {
  *(int *)ctx += f->kind == CGM_FIT_INTERP;
  return 0;
}

static int scan(const cgm_db_calibration *c, const cgm_db_device *d, void *vctx) {
  scan_ctx *ctx = vctx;
  cgm_devices_report *r = ctx->r;
  match(c, d, true, r->cpu_device, ctx->gpu, &r->cpu_cal);
  for (int g = 0; g < r->gpus; g++) match(c, d, false, r->gpu[g].name, ctx->gpu, &r->gpu[g].cal);
  return 0;
}

cgm_status cgm_devices(const char *db_path, unsigned db_mode, const cgm_gpu_opts *gpu,
                       cgm_devices_report *r, cgm_error *err) {
  memset(r, 0, sizeof *r);
  snprintf(r->version, sizeof r->version, "%s", cgm_version());
  r->cuda_build = cgm_have_cuda_build();
  /* NCCL is opened on first use, not linked: say whether it opens here */
  r->nccl = cgm_nccl_available(r->nccl_note, sizeof r->nccl_note);
  r->mpi = cgm_have_mpi_build();
  r->metis = cgm_have_metis_build();
  cgm_db_device cpu;
  cgm_status st = cgm_describe_cpu(&cpu, 0, err);
  if (st) return st;
  snprintf(r->cpu_device, sizeof r->cpu_device, "%s", cpu.model);
  /* The model without the " (T threads)" that names the calibrated device. */
  snprintf(r->cpu_model, sizeof r->cpu_model, "%s", cpu.model);
  char *paren = strrchr(r->cpu_model, '(');
  if (paren && paren > r->cpu_model) paren[-1] = '\0';
  long cores = sysconf(_SC_NPROCESSORS_ONLN);
  r->cores = cores > 0 ? (int)cores : 0;
  r->threads = omp_get_max_threads();
  r->host_memory = cpu.mem_total;
  snprintf(r->cpu_cal.refresh, sizeof r->cpu_cal.refresh, "cgmodel calibrate --devices cpu");

  r->gpus_present = cgm_cuda_device_count();
  r->gpus = r->gpus_present < CGM_MAX_GPUS ? r->gpus_present : CGM_MAX_GPUS;
  for (int g = 0; g < r->gpus; g++) {
    cgm_device_info info;
    if ((st = cgm_cuda_device_info(g, &info, err))) return st;
    snprintf(r->gpu[g].name, sizeof r->gpu[g].name, "%s", info.name);
    r->gpu[g].memory_bytes = info.mem_total;
    r->gpu[g].sms = info.sms;
    r->gpu[g].cc_major = info.cc_major;
    r->gpu[g].cc_minor = info.cc_minor;
    /* GPU 0's calibration stands for the GPUs of its model (cuda:all);
     * another model is calibrated alone. */
    int first = 0;
    while (first < g && strcmp(r->gpu[first].name, info.name)) first++;
    snprintf(r->gpu[g].cal.refresh, sizeof r->gpu[g].cal.refresh,
             first == 0 ? "cgmodel calibrate --devices cuda:all"
                        : "cgmodel calibrate --devices cuda:%d",
             first);
    for (int k = 0; k < r->gpus; k++)
      if ((st = cgm_cuda_can_access_peer(g, k, &r->peer[g][k], err))) return st;
  }

  /* The calibrations: read only, and only from a database that exists
   * (devices never creates one). */
  if (!db_path) return CGM_OK;
  snprintf(r->database, sizeof r->database, "%s", db_path);
  struct stat sb;
  if (stat(db_path, &sb) != 0) return CGM_OK;
  cgm_db *db;
  cgm_error e = {0};
  if (cgm_open_database(db_path, db_mode & CGM_DB_READONLY, &db, &e)) {
    snprintf(r->database_error, sizeof r->database_error, "%s", e.msg);
    return CGM_OK;
  }
  r->database_present = true;
  scan_ctx ctx = {r, gpu};
  if (cgm_db_calibrations(db, scan, &ctx, &e))
    snprintf(r->database_error, sizeof r->database_error, "%s", e.msg);
  for (int g = -1; g < r->gpus; g++) {
    cgm_devices_calibration *c = g < 0 ? &r->cpu_cal : &r->gpu[g].cal;
    if (c->found) (void)cgm_db_fits(db, c->id, count_interp, &c->interpolated, &e);
  }
  cgm_db_close(db);
  return CGM_OK;
}
