/* SPDX-License-Identifier: GPL-3.0-or-later */
/* JSON forms of the library's records and of the steps' reports (cJSON): every object the command
 * line prints with --json, and what the database stores as JSON. Internal to cgmodel (the public
 * API has no cJSON): the command line includes it and prints what these build. Each returns a new
 * object for the caller to print or free. The shared forms are in json.c, each command's report
 * beside the command (solve/solve_json.c, ...). */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "cgmodel/calibrate.h"
#include "cgmodel/cgmodel.h"
#include "cgmodel/devices.h"
#include "cgmodel/predict.h"
#include "cgmodel/run_solve.h"
#include "cgmodel/validate.h"

/* A JSON string of s (NULL: ""), invalid UTF-8 replaced by U+FFFD, added to o under key (json.c's
 * json_string). Every string of these objects goes through it. NULL when out of memory. */
cJSON *json_add_string(cJSON *o, const char *key, const char *s);
/* A run of numbers added to o in order: JSON_NUMS(o, {"key", value}, ...). */
typedef struct json_num {
  const char *key;
  double v;
} json_num;
void json_add_nums(cJSON *o, const json_num *t, size_t n);
#define JSON_NUMS(o, ...)                                                                          \
  json_add_nums(o, (const json_num[]){__VA_ARGS__},                                                \
                sizeof((const json_num[]){__VA_ARGS__}) / sizeof(json_num))

/* A Matrix Market field's name: "real", "integer" or "pattern". */
const char *json_field_name(cgm_mm_field f);

/* The JSON document of the file at path; CGM_EINPUT "PATH: why" when it
 * cannot be read, "PATH:LINE: not JSON" where its parse stopped. */
cgm_status json_read_file(const char *path, cJSON **out, cgm_error *err);

/* mm may be NULL. */
cJSON *cgm_features_json(const cgm_features *f, const cgm_mm_info *mm);

/* The GPU solver's options, as recorded with calibrations and solves; the
 * parse takes the defaults for what is absent (older records). */
cJSON *cgm_gpu_opts_json(const cgm_gpu_opts *g);
cgm_gpu_opts cgm_gpu_opts_from_json(const cJSON *j);
/* What a solve ran with beyond its configuration: the tolerance, the iteration cap, the convergence
 * test's interval, CPU threads and, on our CUDA kernels, the GPU options. */
cJSON *cgm_solve_opts_json(const cgm_solve_opts *o);

/* A calibration's options as stored with it: the device ("cpu", "cuda:0"), its GPU count, --quick,
 * the precisions and, for a GPU, the CG and solver options its sweeps ran. */
cJSON *cgm_calibration_options_json(const char *device, int gpus, const cgm_calibrate_opts *o);
/* info --json: the features, the reader's counts and the path. */
cJSON *cgm_info_json(const char *path, const cgm_features *f, const cgm_mm_info *mm);
/* cache list --json: the directory, its entries and their total bytes. */
cJSON *cgm_cache_list_json(const char *dir, const cgm_cache_entry *e, int n);
/* The matrix cache's outcome of a read (cache_report_json). */
cJSON *json_cache_report(const cgm_cache_report *c);
/* solve --json. */
cJSON *cgm_solve_report_json(const cgm_solve_report *r);
/* solve --reorder auto's decision: both predicted times, the cost, K, the bandwidths. */
cJSON *cgm_reorder_advice_json(const cgm_reorder_advice *a);
/* predict --json: the matrix, the model, its features, every candidate and
 * the choice (null when none) with its reason. */
cJSON *cgm_predict_json(const cgm_predict_opts *o, const cgm_predict_report *r);
/* validate --json: counts, the groups (Table 6) and the tuner's regret. */
cJSON *cgm_validate_json(const cgm_validate_report *r);
/* calibrate --json: the database and one object per calibration made. */
cJSON *cgm_calibration_report_json(const cgm_calibration_report *rep, const char *database);

/* devices --json. */
cJSON *cgm_devices_json(const cgm_devices_report *r);

/* db list --json: {"calibrations": [...]}, each with its device. */
cgm_status cgm_db_calibrations_json(cgm_db *db, cJSON **out, cgm_error *err);
/* db show --json and db export: one calibration with its device, its fits
 * and (samples) its samples. */
cgm_status cgm_db_calibration_json(cgm_db *db, int64_t id, bool samples, cJSON **out,
                                   cgm_error *err);
/* db solves --json: {"solves": [...]}. */
cgm_status cgm_db_solves_json(cgm_db *db, cJSON **out, cgm_error *err);
