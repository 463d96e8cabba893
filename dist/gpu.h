/* SPDX-License-Identifier: GPL-3.0-or-later */
/* One MPI rank's rows on its GPU (dist/cg_gpu.cu; without CUDA, gpu_stub.c): the vectors of the
 * distributed CG and the steps of its iteration (cg_mpi.c), each returning the rank's own sums. A
 * failing CUDA call is kept (cgm_dgpu_error) and every later sum is NaN, so the ranks' next
 * allreduce stops them all at once; none waits for a rank that failed. Internal to dist/; plain C,
 * no MPI (the halo's messages are local.c's). */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cgmodel/status.h"

CGM_BEGIN_DECLS

/* The rank's vectors: own rows, and for X and V the ghosts past them. */
enum { DG_B, DG_X, DG_R, DG_V, DG_U, DG_DINV, DG_BEST, DG_NVEC };

/* The rank's rows as local.h builds them (columns [own | ghosts]) and what
 * it sends: own entries send_idx[0 .. nsend). */
typedef struct cgm_dgpu_rows {
  int32_t n, nghost, nsend;
  const int64_t *rowptr;
  const int32_t *col, *send_idx;
  const double *val;
} cgm_dgpu_rows;

typedef struct cgm_dgpu cgm_dgpu;

/* The rows, b, x0 and D^-1 on GPU `device`, its name in name[0..len). */
cgm_status cgm_dgpu_open(cgm_dgpu **G, int device, const cgm_dgpu_rows *M, const double *b,
                         const double *x, const double *dinv, char *name, size_t len,
                         cgm_error *err);
void cgm_dgpu_close(cgm_dgpu *G);
/* The first failure (CGM_OK: none), its message in err. */
cgm_status cgm_dgpu_error(const cgm_dgpu *G, cgm_error *err);
/* Bytes of GPU memory the rank holds. */
int64_t cgm_dgpu_bytes(const cgm_dgpu *G);

/* dst = A src (src's ghosts filled); returns the sum of p . dst (p < 0: 0). */
double cgm_dgpu_spmv(cgm_dgpu *G, int src, int dst, int p);
/* d = b - u: out[0] = d . d; with swap, r = d and out[1] = d . D^-1 d. */
void cgm_dgpu_resid(cgm_dgpu *G, bool swap, double out[2]);
/* CG4: x += t v, r -= t u; out = (r . D^-1 r, r . r). */
void cgm_dgpu_update(cgm_dgpu *G, double t, double out[2]);
/* v = a D^-1 r + s v (s = 0: v is not read). */
void cgm_dgpu_direction(cgm_dgpu *G, double a, double s);
double cgm_dgpu_dot(cgm_dgpu *G, int a, int b);
void cgm_dgpu_copy(cgm_dgpu *G, int dst, int src);
/* The own entries of vector id to the host. */
void cgm_dgpu_download(cgm_dgpu *G, int id, double *host);

/* The halo through the host: pack writes id's entries that others read to
 * send[0 .. nsend); ghosts copies ghosts[0 .. nghost) past id's own rows. */
void cgm_dgpu_pack(cgm_dgpu *G, int id, double *send);
void cgm_dgpu_ghosts(cgm_dgpu *G, int id, const double *ghosts);

/* The halo by NCCL between ranks that own distinct GPUs: NCCL loaded on every rank and the unique
 * id (128 bytes) made where make (one rank), then every rank's communicator. */
cgm_status cgm_dgpu_nccl_id(cgm_dgpu *G, void *id, bool make, cgm_error *err);
cgm_status cgm_dgpu_nccl_open(cgm_dgpu *G, const void *id, int rank, int size, cgm_error *err);
/* Receives ghosts [recv_off[k], recv_off[k+1]) from recv_rank[k], sends
 * the packed [send_off[k], send_off[k+1]) to send_rank[k]. */
void cgm_dgpu_halo_nccl(cgm_dgpu *G, int id, int nrecv, const int *recv_rank,
                        const int32_t *recv_off, int nsend, const int *send_rank,
                        const int32_t *send_off);

CGM_END_DECLS
