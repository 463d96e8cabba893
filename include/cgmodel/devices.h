/* SPDX-License-Identifier: GPL-3.0-or-later */
/* `cgmodel devices`: this machine's devices, peer access, and each one's newest calibration. */
#pragma once

#include <stdbool.h>

#include "cgmodel/pipeline.h"

CGM_BEGIN_DECLS

/* ------------------------------------------- devices (devices.c) --- */

/* A device's newest complete calibration in the database. */
typedef struct cgm_devices_calibration {
  bool found;
  bool exact;       /* of the model itself (a CPU's: at OpenMP's default threads) */
  int threads;      /* a CPU's: the threads it ran (solve --threads; --auto runs them) */
  int interpolated; /* its curves where no fit kept its bounds (CGM_FIT_INTERP) */
  int64_t id;
  char created[32];      /* UTC, ISO 8601 */
  char tool_version[32]; /* the cgmodel that made it */
  bool stale;            /* this build would mispredict with it: stale_why says why */
  char stale_why[256];
  char refresh[96]; /* the command that calibrates the device anew */
} cgm_devices_calibration;

typedef struct cgm_devices_report {
  char version[32];
  bool cuda_build;      /* the CUDA backend is compiled in */
  bool nccl;            /* the nccl exchange's library opens (cgm_nccl_available) */
  char nccl_note[512];  /* why it does not: the loader's message, or a CPU-only build */
  bool mpi;             /* the distributed solve over MPI is compiled in (docs/distributed.md) */
  bool metis;           /* its --partition metis is compiled in */
  char cpu_model[256];  /* as /proc/cpuinfo names it */
  char cpu_device[256]; /* as calibrations name it: with OpenMP's default thread count */
  int cores;            /* online processors */
  int threads;          /* OpenMP's default thread count */
  int64_t host_memory;  /* bytes */
  cgm_devices_calibration cpu_cal;
  int gpus_present; /* CUDA devices present; the first CGM_MAX_GPUS are described */
  int gpus;
  struct {
    char name[256];
    int64_t memory_bytes;
    int sms, cc_major, cc_minor;
    cgm_devices_calibration cal; /* of its model */
  } gpu[CGM_MAX_GPUS];
  bool peer[CGM_MAX_GPUS][CGM_MAX_GPUS]; /* GPU a can access GPU b's memory */
  char database[1024];                   /* the database looked in ("" when none given) */
  bool database_present;                 /* it exists and opened */
  char database_error[CGM_ERRMSG_MAX];   /* why it did not open or read */
} cgm_devices_report;

/* This machine's devices and their calibrations in the database at db_path (NULL: none looked up; a
 * missing or unreadable database is reported, not an error: the hardware is still described),
 * opened with db_mode (cgm_db_open's flags: CGM_DB_READONLY or 0). gpu: the options the solver runs
 * with (a GPU calibration of another CG is stale). */
CGM_API cgm_status cgm_devices(const char *db_path, unsigned db_mode, const cgm_gpu_opts *gpu,
                               cgm_devices_report *r, cgm_error *err);

CGM_END_DECLS
