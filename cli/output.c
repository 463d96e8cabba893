#define _POSIX_C_SOURCE 200809L
#include "cli/output.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int cli_error(const char *cmd, int code, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "cgmodel %s: error: ", cmd);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
  return code;
}

int cli_report(const char *cmd, const cgm_error *err) {
  return cli_error(cmd, err->code ? (int)err->code : 3, "%s", err->msg);
}

int cli_print_json(cJSON *obj) {
  char *s = obj ? cJSON_Print(obj) : NULL;
  cJSON_Delete(obj);
  if (!s) return cli_error("json", 3, "out of memory printing JSON");
  int ok = puts(s) >= 0 && fflush(stdout) == 0;
  cJSON_free(s);
  return ok ? 0 : cli_error("json", 3, "cannot write to stdout");
}

void cli_warn_stale_cg(const char *cmd, const cgm_tuner_device *devs, int n,
                       const cgm_gpu_opts *gpu) {
  char msg[512];
  for (int i = 0; i < n; i++)
    if (cgm_calibration_cg_stale(&devs[i], gpu, msg, sizeof msg))
      fprintf(stderr, "cgmodel %s: warning: %s\n", cmd, msg);
}

int cli_stderr_is_tty(void) {
  return isatty(STDERR_FILENO);
}

cJSON *cli_solve_json(const cgm_solve_result *r, const cgm_solve_opts *o, double tol, int maxiter) {
  cJSON *j = cJSON_CreateObject();
  cJSON_AddBoolToObject(j, "converged", r->converged);
  cJSON_AddNumberToObject(j, "iterations", r->iterations);
  cJSON_AddNumberToObject(j, "relative_residual", r->relative_residual);
  cJSON_AddNumberToObject(j, "solver_residual", r->solver_residual);
  cJSON_AddNumberToObject(j, "tol", tol);
  cJSON_AddNumberToObject(j, "maxiter", maxiter);
  cJSON_AddNumberToObject(j, "time_per_iter_s", r->time_per_iter_s);
  cJSON_AddNumberToObject(j, "time_solve_s", r->time_solve_s);
  cJSON_AddNumberToObject(j, "time_setup_s", r->time_setup_s);
  cJSON_AddNumberToObject(j, "block", o->layout.n);
  cJSON_AddNumberToObject(j, "bx", o->layout.bx);
  cJSON_AddNumberToObject(j, "gpus", o->backend == CGM_BACKEND_CPU ? 0 : o->gpus);
  cJSON_AddStringToObject(j, "precision", cgm_precision_name(o->precision));
  cJSON_AddStringToObject(j, "backend", cgm_backend_name(o->backend));
  if (o->backend == CGM_BACKEND_CUDA && o->gpus > 1)
    cJSON_AddStringToObject(j, "exchange", cgm_exchange_name(o->exchange));
  cJSON_AddStringToObject(j, "device", r->device);
  cJSON_AddNumberToObject(j, "device_bytes", (double)r->device_bytes);
  if (r->exchange_bytes) cJSON_AddNumberToObject(j, "exchange_bytes", (double)r->exchange_bytes);
  if (r->stop_reason[0]) cJSON_AddStringToObject(j, "stop_reason", r->stop_reason);
  return j;
}
