/* SPDX-License-Identifier: GPL-3.0-or-later */
/* calibrate --json: the database and one object per calibration made. */
#include "pipeline/json.h"
#include "cgmodel/calibrate.h"

cJSON *cgm_calibration_report_json(const cgm_calibration_report *rep, const char *database) {
  cJSON *j = cJSON_CreateObject();
  json_add_string(j, "database", database);
  cJSON *arr = cJSON_AddArrayToObject(j, "calibrations");
  for (int i = 0; i < rep->count; i++) {
    cJSON *c = cJSON_CreateObject();
    cJSON_AddNumberToObject(c, "id", (double)rep->cal[i].id);
    json_add_string(c, "device", rep->cal[i].device);
    json_add_string(c, "model", rep->cal[i].model);
    JSON_NUMS(c, {"gpus", rep->cal[i].gpus}, {"samples", rep->cal[i].samples},
              {"fits", rep->cal[i].fits}, {"fits_failed", rep->cal[i].fits_failed},
              {"seconds", rep->cal[i].seconds});
    if (rep->cal[i].failed[0]) json_add_string(c, "failed", rep->cal[i].failed);
    cJSON_AddNumberToObject(c, "unsettled", rep->cal[i].unsettled);
    if (rep->cal[i].cpu_share > 0) cJSON_AddNumberToObject(c, "cpu_share", rep->cal[i].cpu_share);
    if (rep->cal[i].gpu_share > 0) cJSON_AddNumberToObject(c, "gpu_share", rep->cal[i].gpu_share);
    if (rep->cal[i].warning[0]) json_add_string(c, "warning", rep->cal[i].warning);
    /* the coefficients, each family an object by precision (and block size) */
    for (int k = 0; k < CGM_COEF_FAMILIES; k++) {
      cJSON *fo = cJSON_AddObjectToObject(c, cgm_coef_families[k].key);
      for (int q = 0; q < rep->cal[i].ncoef; q++) {
        const cgm_db_coef *co = &rep->cal[i].coef[q];
        const char *p = cgm_precision_name((cgm_precision)co->precision);
        const char *tail = cgm_coef_of(co, cgm_coef_families[k].name);
        if (!tail) continue;
        cJSON *to = fo;
        if (*tail && !(to = cJSON_GetObjectItemCaseSensitive(fo, p)))
          to = cJSON_AddObjectToObject(fo, p);
        cJSON_AddNumberToObject(to, *tail ? tail : p, co->value);
      }
    }
    cJSON *stages = cJSON_AddObjectToObject(c, "stages");
    for (int k = 0; k < rep->cal[i].nstages; k++)
      cJSON_AddNumberToObject(stages, rep->cal[i].stage[k].name, rep->cal[i].stage[k].seconds);
    cJSON_AddItemToArray(arr, c);
  }
  return j;
}
