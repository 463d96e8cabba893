/* SPDX-License-Identifier: GPL-3.0-or-later */
/* A request: a command's options as one JSON object whose keys are the
 * vocabulary of cgmodel/options.h (the command line's tables name each
 * flag's key, the Python binding's keywords are the same words), turned
 * into the option structs by one parser per command. The bindings
 * (bindings.c) and the command line both call these. A key the command does
 * not know is refused, a value of the wrong type names its key ("gpus: not
 * an integer", "backend: 'gpu' is not cpu, cuda or cusparse"); null is
 * absent. Strings of the structs point into the request, which must
 * outlive them. A solve's ranges and combinations are settled later, once
 * (cgm_solve_opts_settle); predict's and calibrate's are checked here.
 * Internal: cJSON is not public API. */
#ifndef CGM_PIPELINE_REQUEST_H
#define CGM_PIPELINE_REQUEST_H

#include <cjson/cJSON.h>

#include "cgmodel/calibrate.h"
#include "cgmodel/predict.h"
#include "cgmodel/run_solve.h"

/* The request of a binding's text: NULL or "" is {}; anything but an
 * object is CGM_EINPUT. *out is for cJSON_Delete. */
cgm_status cgm_request_parse(const char *text, cJSON **out, cgm_error *err);
/* CGM_EINPUT naming the first key of req that is not one of the NULL-ended
 * `known`. */
cgm_status cgm_request_keys(const cJSON *req, const char *const *known, cgm_error *err);

/* solve: db, name, record, auto, backend, precision, block, bx, gpus,
 * exchange, tol, atol, maxiter, check_every, threads, precond,
 * precond_block, iters_hint, reorder (default auto), rhs, x0, mpi,
 * partition, monitor (every K iterations; the callback a no-op, so that
 * the report keeps the history), cache_dir, no_cache, cache_max. The
 * backend defaults to cuda in a CUDA build (found at the solve: the CPU
 * where no GPU is present), else cpu. auto beside a layout key (block, bx,
 * gpus, exchange) is refused. */
cgm_status cgm_solve_request(const cJSON *req, cgm_run_solve_opts *o, cgm_error *err);
/* predict: db (*db_path), name, gpus (0: every GPU), block (0 or "auto":
 * every size), precision (a list of double, single, mixed, or both),
 * model (refined, paper), exchange (halo, p2p, host, nccl, all), devices
 * (cpu, cuda, all), cusparse, tol, iters_hint, cache_dir, no_cache,
 * cache_max. */
cgm_status cgm_predict_request(const cJSON *req, cgm_predict_opts *o, const char **db_path,
                               cgm_error *err);
/* calibrate: db (*db_path), devices (default: cpu and every GPU present),
 * quick, precision (single, double or both), threads. */
cgm_status cgm_calibrate_request(const cJSON *req, cgm_calibrate_opts *o, const char **db_path,
                                 cgm_error *err);

/* "both" (single and double, and mixed when `mixed`) or a comma-separated
 * list of precision names, each once -> bits (1 << cgm_precision). */
bool cgm_precisions_parse(const char *s, bool mixed, unsigned *out);

/* The request a solve ran, every default filled in and auto's choice
 * applied (the configuration of r->opts): given back as a request, it runs
 * the same configuration. */
cJSON *cgm_solve_request_json(const cgm_run_solve_opts *o, const cgm_solve_report *r);
/* The request a prediction ran, defaults filled in. */
cJSON *cgm_predict_request_json(const cgm_predict_opts *o);

#endif
