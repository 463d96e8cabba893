/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The distributed CG's options and report, free of MPI types so that every
 * build has them (the solve is in cgmodel/dist_mpi.h; docs/distributed.md). */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "cgmodel/export.h"
#include "cgmodel/status.h"

CGM_BEGIN_DECLS

/* Which rows each rank owns. */
typedef enum {
  CGM_DIST_ROWS = 0,  /* contiguous row blocks of similar nonzero counts (the paper's cut) */
  CGM_DIST_METIS = 1, /* METIS_PartGraphKway parts of the matrix graph, rows renumbered by part */
} cgm_dist_partition;

CGM_API const char *cgm_dist_partition_name(cgm_dist_partition p);
/* "rows" or "metis"; false when unknown. */
CGM_API bool cgm_dist_partition_parse(const char *s, cgm_dist_partition *p);

typedef struct cgm_dist_opts {
  cgm_dist_partition partition;
} cgm_dist_opts;

/* Default: contiguous row blocks. */
CGM_API cgm_dist_opts cgm_dist_opts_default(void);

/* What the distributed solve built (the same on every rank). */
typedef struct cgm_dist_info {
  int ranks;                    /* MPI processes (0: not a distributed solve) */
  cgm_dist_partition partition; /* as run */
  int32_t rows_min, rows_max;   /* rows owned by the smallest and the largest rank */
  int64_t halo_entries;         /* entries all ranks receive per exchange (one an iteration) */
  int64_t halo_max;             /* the most one rank receives */
  int neighbours_max;           /* the most ranks one rank receives from */
  char exchange[8];             /* the halo's path: "mpi" (CPU), "nccl" or "host" (GPUs) */
} cgm_dist_info;

/* Whether this library was built with MPI and with METIS. */
CGM_API bool cgm_have_mpi_build(void);
CGM_API bool cgm_have_metis_build(void);

/* MPI_Init_thread (funneled) and this process's rank and the ranks in MPI_COMM_WORLD; CGM_ERUNTIME
 * without MPI or when it fails to start. cgm_dist_finalize ends MPI if it was started. */
CGM_API cgm_status cgm_dist_init(int *argc, char ***argv, int *rank, int *size, cgm_error *err);
CGM_API void cgm_dist_finalize(void);
/* Every rank of MPI_COMM_WORLD agrees, before any other collective call, on how its start went: st
 * (with err's message) and a fingerprint of the options it was given. A rank that failed makes
 * every rank return its error (the first failing rank's message); ranks given different options all
 * return CGM_EINPUT saying so. CGM_OK where all agree (and without MPI: st as given). */
CGM_API cgm_status cgm_dist_agree_start(cgm_status st, uint64_t fingerprint, cgm_error *err);

CGM_END_DECLS
