/* SPDX-License-Identifier: GPL-3.0-or-later */
/* A request: a command's options as one JSON object whose keys are the vocabulary of
 * cgmodel/options.h (the keys of the command line's flags and the Python binding's keywords),
 * turned into the option structs by one parser per command, which the bindings and the command line
 * both call. A key the command does not know is refused, and a value of the wrong type names its
 * key; null is absent. The structs' strings point into the request. A solve's ranges and
 * combinations are settled later, once (cgm_solve_opts_settle); predict's and calibrate's are
 * checked here. Internal: cJSON is not public API. */
#pragma once

#include <cjson/cJSON.h>

#include "cgmodel/calibrate.h"
#include "cgmodel/predict.h"
#include "cgmodel/run_solve.h"

/* The keys of each are docs/cli.md's (the flags of `cgmodel solve`, ...). solve: reorder defaults
 * to auto, the backend to cuda in a CUDA build (the CPU where no GPU is found), monitor K keeps the
 * history (a no-op callback); auto beside block, bx, gpus or exchange is refused. predict and
 * calibrate also give the database's path (db; NULL when absent). */
cgm_status cgm_solve_request(const cJSON *req, cgm_run_solve_opts *o, cgm_error *err);
cgm_status cgm_predict_request(const cJSON *req, cgm_predict_opts *o, const char **db_path,
                               cgm_error *err);
cgm_status cgm_calibrate_request(const cJSON *req, cgm_calibrate_opts *o, const char **db_path,
                                 cgm_error *err);

/* "both" (single and double, and mixed when `mixed`) or a comma-separated
 * list of precision names, each once -> bits (1 << cgm_precision). */
bool cgm_precisions_parse(const char *s, bool mixed, unsigned *out);

/* The request a solve (a prediction) ran: its configuration settled, the defaults filled in and
 * auto's choice applied; as a request it runs the same configuration again. */
cJSON *cgm_solve_request_json(const cgm_run_solve_opts *o, const cgm_solve_report *r);
cJSON *cgm_predict_request_json(const cgm_predict_opts *o);
