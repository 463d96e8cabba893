/* SPDX-License-Identifier: GPL-3.0-or-later */
/* predict --json: the matrix, the model, its features, every candidate and the choice. */
#include <math.h>

#include "pipeline/json.h"
#include "cgmodel/predict.h"

static cJSON *candidate_json(const cgm_candidate *c, const cgm_tuner_device *d) {
  char device[256];
  cgm_candidate_device(c, d, device, sizeof device);
  cJSON *o = cJSON_CreateObject();
  json_add_string(o, "device", device);
  json_add_string(o, "backend", cgm_backend_name(c->backend));
  JSON_NUMS(o, {"block", c->block}, {"gpus", c->gpus});
  json_add_string(o, "precision", cgm_precision_name(c->precision));
  json_add_string(o, "storage", cgm_values_name(c->values));
  if (c->gpus > 1) json_add_string(o, "exchange", cgm_exchange_name(c->exchange));
  JSON_NUMS(o, {"time_per_iter_s", c->time_per_iter_s}, {"setup_s", c->setup_s},
            {"iterations", c->iterations}, {"total_s", c->total_s}, {"gflops_raw", c->gflops_raw},
            {"gflops_real", c->gflops_real});
  if (isfinite(c->speedup)) cJSON_AddNumberToObject(o, "speedup", c->speedup);
  JSON_NUMS(o, {"memory_bytes", (double)c->memory_bytes}, {"exchange_bytes", c->exchange_bytes});
  cJSON_AddBoolToObject(o, "fits", c->fits);
  cJSON_AddBoolToObject(o, "what_if", c->what_if);
  if (c->gpus > 1) json_add_string(o, "interconnect", d[c->device].interconnect);
  return o;
}

cJSON *cgm_predict_json(const cgm_predict_opts *o, const cgm_predict_report *r) {
  cJSON *j = cJSON_CreateObject();
  json_add_string(j, "matrix", o->matrix);
  json_add_string(j, "model", o->tuner.paper ? "paper" : "refined");
  cJSON_AddItemToObject(j, "features", cgm_features_json(&r->features, &r->mm));
  cJSON *arr = cJSON_AddArrayToObject(j, "candidates");
  for (int i = 0; i < r->ncand; i++)
    cJSON_AddItemToArray(arr, candidate_json(&r->cand[i], r->devs));
  if (r->choice >= 0)
    cJSON_AddItemToObject(j, "choice", candidate_json(&r->cand[r->choice], r->devs));
  else
    cJSON_AddNullToObject(j, "choice");
  json_add_string(j, "reason", r->why);
  cJSON_AddNumberToObject(j, "iterations", r->iterations);
  json_add_string(j, "iterations_source", r->k_source);
  if (r->have_reorder) cJSON_AddItemToObject(j, "reorder", cgm_reorder_advice_json(&r->reorder));
  cJSON *cache = json_cache_report(&r->cache);
  cJSON_AddBoolToObject(cache, "check", r->check_cached);
  cJSON_AddBoolToObject(cache, "features", r->features_cached);
  cJSON_AddBoolToObject(cache, "plans", r->plans_cached);
  cJSON_AddItemToObject(j, "cache", cache);
  return j;
}
