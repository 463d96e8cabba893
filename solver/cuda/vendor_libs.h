/* SPDX-License-Identifier: GPL-3.0-or-later */
/* cuSPARSE, cuBLAS and NCCL through tables of function pointers filled on first use (dynlib.h):
 * only the cusparse backend and the nccl exchange map them. Each member has its function's name and
 * the type the vendor's header declares, so fns->cusparseSpMV(...) is checked as a direct call
 * would be. To call another function, add it to its library's list. */
#pragma once

#include <cublas_v2.h>
#include <cusparse.h>
#include <nccl.h>

#include "cgmodel/status.h"

#define CGM_CUSPARSE_FNS(X)                                                                        \
  X(cusparseGetErrorString)                                                                        \
  X(cusparseCreate)                                                                                \
  X(cusparseDestroy)                                                                               \
  X(cusparseCreateCsr)                                                                             \
  X(cusparseDestroySpMat)                                                                          \
  X(cusparseCreateDnVec)                                                                           \
  X(cusparseDestroyDnVec)                                                                          \
  X(cusparseSpMV_bufferSize)                                                                       \
  X(cusparseSpMV)

#define CGM_CUBLAS_FNS(X)                                                                          \
  X(cublasCreate)                                                                                  \
  X(cublasDestroy)                                                                                 \
  X(cublasDdot)                                                                                    \
  X(cublasSdot)                                                                                    \
  X(cublasDaxpy)                                                                                   \
  X(cublasSaxpy)                                                                                   \
  X(cublasDscal)                                                                                   \
  X(cublasSscal)

#define CGM_NCCL_FNS(X)                                                                            \
  X(ncclGetErrorString)                                                                            \
  X(ncclCommInitAll)                                                                               \
  X(ncclCommDestroy)                                                                               \
  X(ncclCommAbort)                                                                                 \
  X(ncclGroupStart)                                                                                \
  X(ncclGroupEnd)                                                                                  \
  X(ncclAllReduce)                                                                                 \
  X(ncclAllGather)                                                                                 \
  X(ncclGetUniqueId)                                                                               \
  X(ncclCommInitRank)                                                                              \
  X(ncclSend)                                                                                      \
  X(ncclRecv)

/* C++ names the global function (::f): the member of the same name would
 * otherwise change what f means inside the struct. */
#ifdef __cplusplus
#define CGM_FN_MEMBER(f) decltype(&::f) f;
#else
#define CGM_FN_MEMBER(f) __typeof__(&f) f;
#endif
typedef struct cgm_cusparse_fns {
  CGM_CUSPARSE_FNS(CGM_FN_MEMBER)
} cgm_cusparse_fns;
typedef struct cgm_cublas_fns {
  CGM_CUBLAS_FNS(CGM_FN_MEMBER)
} cgm_cublas_fns;
typedef struct cgm_nccl_fns {
  CGM_NCCL_FNS(CGM_FN_MEMBER)
} cgm_nccl_fns;
#undef CGM_FN_MEMBER

CGM_BEGIN_DECLS

/* *fns: the library's table, its library opened on the first call (cgm_dynlib_load); NULL and
 * CGM_ERUNTIME, with the message, when it cannot be loaded. */
cgm_status cgm_cusparse_load(const cgm_cusparse_fns **fns, cgm_error *err);
cgm_status cgm_cublas_load(const cgm_cublas_fns **fns, cgm_error *err);
cgm_status cgm_nccl_load(const cgm_nccl_fns **fns, cgm_error *err);

CGM_END_DECLS
