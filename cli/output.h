/* Printing for the CLI: errors on stderr, JSON on stdout (cJSON), and the
 * JSON forms of the library's structs shared by several subcommands. */
#ifndef CGM_CLI_OUTPUT_H
#define CGM_CLI_OUTPUT_H

#include <cjson/cJSON.h>

#include "cgmodel/cgmodel.h"
#include "cgmodel/pipeline.h"
#include "pipeline/json.h"

/* "cgmodel <cmd>: error: <msg>" on stderr; returns code. */
int cli_error(const char *cmd, int code, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
/* Prints the library error and returns its exit code. */
int cli_report(const char *cmd, const cgm_error *err);
/* Prints the object on stdout, frees it; returns 3 if printing failed. */
int cli_print_json(cJSON *obj);

cJSON *cli_solve_json(const cgm_solve_result *r, const cgm_solve_opts *o, double tol, int maxiter);

/* "cgmodel <cmd>: warning: ..." on stderr for every GPU device whose
 * calibration timed another CG than the solver runs now. */
void cli_warn_stale_cg(const char *cmd, const cgm_tuner_device *devs, int n,
                       const cgm_gpu_opts *gpu);

/* True when stderr is a terminal (progress is shown only then). */
int cli_stderr_is_tty(void);

#endif
