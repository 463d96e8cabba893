/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "cgmodel/status.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

cgm_status cgm_fail(cgm_error *err, cgm_status code, const char *fmt, ...) {
  if (err) {
    err->code = code;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->msg, sizeof err->msg, fmt, ap);
    va_end(ap);
  }
  return code;
}

void cgm_error_prefix(cgm_error *err, const char *fmt, ...) {
  if (!err) return;
  char pre[CGM_ERRMSG_MAX];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(pre, sizeof pre, fmt, ap);
  va_end(ap);
  size_t np = strlen(pre), nm = strlen(err->msg);
  if (np >= CGM_ERRMSG_MAX) np = CGM_ERRMSG_MAX - 1;
  if (np + nm >= CGM_ERRMSG_MAX) nm = CGM_ERRMSG_MAX - 1 - np;
  memmove(err->msg + np, err->msg, nm);
  memcpy(err->msg, pre, np);
  err->msg[np + nm] = '\0';
}

void cgm_error_clear(cgm_error *err) {
  if (!err) return;
  err->code = CGM_OK;
  err->msg[0] = '\0';
}

const char *cgm_version(void) {
  return CGM_VERSION_STRING;
}
