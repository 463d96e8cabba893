/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Error reporting for libcgmodel.
 *
 * Library functions never print and never exit: they return a cgm_status and, when an error object
 * is given, fill it with a message the CLI shows as is. The numeric values are the CLI's exit codes
 * (docs/cli.md). */
#pragma once

#include "cgmodel/export.h"

CGM_BEGIN_DECLS

typedef enum {
  CGM_OK = 0,
  CGM_ENOCONV = 1,  /* solve stopped without converging: maxiter, breakdown, not SPD, NaN */
  CGM_EINPUT = 2,   /* bad usage or bad input (file, option, database content) */
  CGM_ERUNTIME = 3, /* device, memory, I/O or other runtime failure */
} cgm_status;

#define CGM_ERRMSG_MAX 1024

typedef struct cgm_error {
  cgm_status code;
  char msg[CGM_ERRMSG_MAX];
} cgm_error;

/* Sets *err (if non-NULL) to code and a printf-style message; returns code. */
CGM_API cgm_status cgm_fail(cgm_error *err, cgm_status code, const char *fmt, ...) CGM_PRINTF(3, 4);

/* Prefix the message already in *err with more context ("file.mtx: ..."). */
CGM_API void cgm_error_prefix(cgm_error *err, const char *fmt, ...) CGM_PRINTF(2, 3);

CGM_API void cgm_error_clear(cgm_error *err);

/* "0.2.0"; also embedded in the database next to every calibration. */
CGM_API const char *cgm_version(void);

CGM_END_DECLS
