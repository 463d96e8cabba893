/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The vocabulary of a request: the choices a configuration is made of, their names as every
 * interface spells them, the defaults and the limits, each written once; a request is settled once,
 * at its entry point (cgm_solve_opts_settle). Errors name a request's fields by these keys, never
 * by a command line's flags ("gpus 2: ...; use precision=double"). */
#pragma once

#include <stdbool.h>

#include "cgmodel/export.h"
#include "cgmodel/status.h"

CGM_BEGIN_DECLS

/* ------------------------------------------------------- the choices --- */

typedef enum {
  CGM_BACKEND_CPU = 0,
  CGM_BACKEND_CUDA = 1,     /* our BCSR MBR kernels */
  CGM_BACKEND_CUSPARSE = 2, /* cusparseSpMV on CSR, the vendor baseline */
} cgm_backend;

/* Mixed precision iterates in single precision while the solution and the true residual are kept in
 * double, with reliable updates (docs/accuracy.md): it reaches what double reaches. */
typedef enum { CGM_PREC_DOUBLE = 0, CGM_PREC_SINGLE = 1, CGM_PREC_MIXED = 2 } cgm_precision;
#define CGM_NPRECISIONS 3

/* How the multi-GPU solver assembles the vector the SpMV reads. */
typedef enum {
  CGM_EXCHANGE_NCCL = 0, /* all-gather of the whole vector through NCCL */
  CGM_EXCHANGE_P2P = 1,  /* direct peer copies of the whole vector */
  CGM_EXCHANGE_HOST = 2, /* the paper's host-staged copy, x*n elements (Eq. 9) */
  CGM_EXCHANGE_HALO = 3, /* only the entries each segment reads, overlapped (the default) */
} cgm_exchange;
#define CGM_NEXCHANGES 4

/* Symmetric reorderings of the unknowns (docs/cli.md, solve --reorder). */
typedef enum {
  CGM_REORDER_AUTO = 0, /* the tuner decides (the default of the command line) */
  CGM_REORDER_NONE = 1,
  CGM_REORDER_RCM = 2, /* reverse Cuthill-McKee (cgm_rcm) */
} cgm_reorder;

/* The preconditioner M of the CG (docs/precond.md). */
typedef enum {
  CGM_PRECOND_JACOBI = 0, /* M = diag(A) (default) */
  /* M = the b x b diagonal blocks of A (cgm_solve_opts.precond_block),
   * each SPD (refused otherwise); not on cuSPARSE. */
  CGM_PRECOND_BLOCK = 1,
} cgm_precond;

/* The CG our CUDA kernels run. */
typedef enum {
  CGM_CG_CGG = 0,     /* the single-reduction CG of Chronopoulos and Gear (default) */
  CGM_CG_CLASSIC = 1, /* Algorithm 2's CG4 + CG5 (always in the host-staged exchange) */
} cgm_cg_variant;

/* How the matrix's values are stored, apart from the arithmetic (docs/perf.md,
 * "Storage formats"): compact = the fewest bytes (cgm_values), exact or
 * with reliable updates; auto = compact where that is exact, in double. */
typedef enum { CGM_STORAGE_AUTO = 0, CGM_STORAGE_FULL = 1, CGM_STORAGE_COMPACT = 2 } cgm_storage;

/* The BCSR block sizes N. */
#define CGM_NBLOCKSIZES 4
CGM_API extern const int cgm_block_sizes[CGM_NBLOCKSIZES]; /* 1, 2, 4, 8 */

/* -------------------------------------------- defaults and limits --- */

/* The relative residual ||b - Ax|| / ||b|| a solve reaches unless told. */
#define CGM_DEFAULT_TOL 1e-8
/* The most GPUs one solve drives (one process, one node). */
#define CGM_MAX_GPUS 8
#define CGM_BX_MAX 1024            /* blocks of a block row one step reads, B_x */
#define CGM_MAXITER_MAX 1000000000 /* an iteration cap */
#define CGM_CHECK_EVERY_MAX 100000 /* iterations between convergence checks */
#define CGM_THREADS_MAX 4096       /* CPU threads */
#define CGM_BJACOBI_MAX_BLOCK 8    /* the largest block-Jacobi block */

/* ---------------------------------------------------------- names --- */

/* The names every interface spells; "unknown" for a value out of range. */
CGM_API const char *cgm_backend_name(cgm_backend b);
CGM_API const char *cgm_precision_name(cgm_precision p);
CGM_API const char *cgm_exchange_name(cgm_exchange e);
CGM_API const char *cgm_reorder_name(cgm_reorder r);
CGM_API const char *cgm_precond_name(cgm_precond p);
CGM_API const char *cgm_cg_variant_name(cgm_cg_variant v);
CGM_API const char *cgm_storage_name(cgm_storage s);
/* Parse those names (precision also fp64, fp32); false when unknown. */
CGM_API bool cgm_backend_parse(const char *s, cgm_backend *b);
CGM_API bool cgm_precision_parse(const char *s, cgm_precision *p);
CGM_API bool cgm_exchange_parse(const char *s, cgm_exchange *e);
CGM_API bool cgm_reorder_parse(const char *s, cgm_reorder *r);
CGM_API bool cgm_precond_parse(const char *s, cgm_precond *p);
CGM_API bool cgm_cg_variant_parse(const char *s, cgm_cg_variant *v);
CGM_API bool cgm_storage_parse(const char *s, cgm_storage *v);

/* Bytes of one element of the iteration's vectors (mixed: 4). */
CGM_API int cgm_precision_width(cgm_precision p);
/* The precision the iteration runs in (mixed: single). */
CGM_API cgm_precision cgm_precision_iter(cgm_precision p);

/* Index of block size n in cgm_block_sizes (-1 if n is not 1, 2, 4, 8). */
CGM_API int cgm_block_index(int n);
/* CGM_EINPUT "KEY N: the block size is 1, 2, 4 or 8" when n is not one. */
CGM_API cgm_status cgm_block_check(int n, const char *key, cgm_error *err);

CGM_END_DECLS
