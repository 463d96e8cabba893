/* SPDX-License-Identifier: GPL-3.0-or-later */
/* One rank's share of the distributed matrix: its rows in CSR with the
 * columns renumbered for the local vector [own rows | ghosts], and the
 * point-to-point halo exchange that fills the ghosts. Internal to dist/. */
#pragma once

#include <mpi.h>

#include "cgmodel/sparse.h"

typedef struct cgm_dist_local {
  int32_t row0, n; /* own rows: global [row0, row0 + n) */
  int32_t nghost;  /* foreign entries read, global indices ghost[] (ascending) */
  int64_t *rowptr; /* n + 1 */
  int32_t *col;    /* own column c -> c - row0; ghost[j] -> n + j */
  double *val;
  int32_t *ghost;
  /* Receives: ghosts [recv_off[k], recv_off[k+1]) from rank recv_rank[k]
   * (one contiguous piece per neighbour). */
  int nrecv;
  int *recv_rank;
  int32_t *recv_off;
  /* Sends: own entries send_idx[send_off[k] .. send_off[k+1]) to send_rank[k]. */
  int nsend;
  int *send_rank;
  int32_t *send_off, *send_idx;
  double *sendbuf;
  MPI_Request *req; /* nrecv + nsend */
  /* rows that read only own entries (multiplied during the exchange), and the rest */
  int32_t ninterior, nboundary;
  int32_t *interior, *boundary;
  MPI_Comm comm;
} cgm_dist_local;

/* Builds the rank's share from its rows (gcol taken over) and every rank's bounds. Collective; a
 * failure is this rank's only: agree on it (cgm_dist_agree) before the next collective call. */
cgm_status cgm_dist_local_build(cgm_dist_local *L, const int32_t *bounds, int rank, int size,
                                int64_t *rowptr, int32_t *gcol, double *val, MPI_Comm comm,
                                cgm_error *err);
void cgm_dist_local_free(cgm_dist_local *L);

/* The halo exchange of v (n + nghost entries): start posts the receives
 * into v's ghosts and sends the packed own entries; finish waits. */
void cgm_dist_exchange_start(cgm_dist_local *L, double *v);
/* The same with sendbuf already packed, the ghosts received into ghosts. */
void cgm_dist_exchange_post(cgm_dist_local *L, double *ghosts);
void cgm_dist_exchange_finish(cgm_dist_local *L);

/* u = A v on the own rows, with the exchange of v overlapped by the
 * interior rows; returns the local part of p . u when p is not NULL. */
double cgm_dist_spmv(cgm_dist_local *L, double *v, double *u, const double *p);
