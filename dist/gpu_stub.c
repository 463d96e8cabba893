/* SPDX-License-Identifier: GPL-3.0-or-later */
/* A build without CUDA: no GPU for the ranks (gpu.h). cgm_dgpu_open fails,
 * so the steps below are never called; they only link. */
#include "dist/gpu.h"

#define STUB(ret, name, params, value)                                                             \
  ret name params {                                                                                \
    return value;                                                                                  \
  }
#define STUB_VOID(name, params)                                                                    \
  void name params {}

cgm_status cgm_dgpu_open(cgm_dgpu **G, int device, const cgm_dgpu_rows *M, const double *b,
                         const double *x, const double *dinv, char *name, size_t len,
                         cgm_error *err) {
  *G = NULL;
  return cgm_fail(err, CGM_EINPUT,
                  "this build of cgmodel has no CUDA: the MPI solve runs on the cpu backend");
}
STUB_VOID(cgm_dgpu_close, (cgm_dgpu * G))
STUB(cgm_status, cgm_dgpu_error, (const cgm_dgpu *G, cgm_error *err), CGM_OK)
STUB(int64_t, cgm_dgpu_bytes, (const cgm_dgpu *G), 0)
STUB(double, cgm_dgpu_spmv, (cgm_dgpu * G, int src, int dst, int p), 0.0)
STUB_VOID(cgm_dgpu_resid, (cgm_dgpu * G, bool swap, double out[2]))
STUB_VOID(cgm_dgpu_update, (cgm_dgpu * G, double t, double out[2]))
STUB_VOID(cgm_dgpu_direction, (cgm_dgpu * G, double a, double s))
STUB(double, cgm_dgpu_dot, (cgm_dgpu * G, int a, int b), 0.0)
STUB_VOID(cgm_dgpu_copy, (cgm_dgpu * G, int dst, int src))
STUB_VOID(cgm_dgpu_download, (cgm_dgpu * G, int id, double *host))
STUB_VOID(cgm_dgpu_pack, (cgm_dgpu * G, int id, double *send))
STUB_VOID(cgm_dgpu_ghosts, (cgm_dgpu * G, int id, const double *ghosts))
STUB(cgm_status, cgm_dgpu_nccl_id, (cgm_dgpu * G, void *id, bool make, cgm_error *err),
     CGM_ERUNTIME)
STUB(cgm_status, cgm_dgpu_nccl_open, (cgm_dgpu * G, const void *id, int r, int n, cgm_error *e),
     CGM_ERUNTIME)
STUB_VOID(cgm_dgpu_halo_nccl,
          (cgm_dgpu * G, int id, int nrecv, const int *recv_rank, const int32_t *recv_off,
           int nsend, const int *send_rank, const int32_t *send_off))
