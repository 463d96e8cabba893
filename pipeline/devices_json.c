/* SPDX-License-Identifier: GPL-3.0-or-later */
/* devices --json. */
#include <stdio.h>

#include "pipeline/json.h"
#include "cgmodel/devices.h"

static cJSON *devices_calibration_json(const cgm_devices_calibration *c) {
  cJSON *o = cJSON_CreateObject();
  if (c->found) {
    cJSON_AddNumberToObject(o, "id", (double)c->id);
    json_add_string(o, "created", c->created);
    json_add_string(o, "tool_version", c->tool_version);
    cJSON_AddBoolToObject(o, "stale", c->stale);
    if (c->stale) json_add_string(o, "stale_why", c->stale_why);
    if (c->threads) cJSON_AddNumberToObject(o, "threads", c->threads);
    cJSON_AddNumberToObject(o, "interpolated", c->interpolated);
  }
  json_add_string(o, "refresh", c->refresh);
  return o;
}

cJSON *cgm_devices_json(const cgm_devices_report *r) {
  cJSON *j = cJSON_CreateObject();
  json_add_string(j, "version", r->version);
  cJSON *b = cJSON_AddObjectToObject(j, "build");
  cJSON_AddBoolToObject(b, "cuda", r->cuda_build);
  cJSON_AddBoolToObject(b, "nccl", r->nccl);
  if (!r->nccl && r->nccl_note[0]) json_add_string(b, "nccl_note", r->nccl_note);
  cJSON_AddBoolToObject(b, "mpi", r->mpi);
  cJSON_AddBoolToObject(b, "metis", r->metis);
  cJSON *c = cJSON_AddObjectToObject(j, "cpu");
  json_add_string(c, "model", r->cpu_model);
  json_add_string(c, "device", r->cpu_device);
  JSON_NUMS(c, {"cores", r->cores}, {"threads", r->threads},
            {"memory_bytes", (double)r->host_memory});
  cJSON_AddItemToObject(c, "calibration", devices_calibration_json(&r->cpu_cal));
  cJSON_AddNumberToObject(j, "gpus_present", r->gpus_present);
  cJSON *gs = cJSON_AddArrayToObject(j, "gpus");
  for (int g = 0; g < r->gpus; g++) {
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "index", g);
    json_add_string(o, "name", r->gpu[g].name);
    JSON_NUMS(o, {"memory_bytes", (double)r->gpu[g].memory_bytes}, {"sms", r->gpu[g].sms});
    char cc[16];
    snprintf(cc, sizeof cc, "%d.%d", r->gpu[g].cc_major, r->gpu[g].cc_minor);
    json_add_string(o, "compute_capability", cc);
    cJSON_AddItemToObject(o, "calibration", devices_calibration_json(&r->gpu[g].cal));
    cJSON_AddItemToArray(gs, o);
  }
  cJSON *peer = cJSON_AddArrayToObject(j, "peer_access");
  for (int g = 0; g < r->gpus; g++) {
    cJSON *row = cJSON_CreateArray();
    for (int k = 0; k < r->gpus; k++) cJSON_AddItemToArray(row, cJSON_CreateBool(r->peer[g][k]));
    cJSON_AddItemToArray(peer, row);
  }
  if (r->database[0]) json_add_string(j, "database", r->database);
  cJSON_AddBoolToObject(j, "database_present", r->database_present);
  if (r->database_error[0]) json_add_string(j, "database_error", r->database_error);
  return j;
}
