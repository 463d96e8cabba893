/* SPDX-License-Identifier: GPL-3.0-or-later */
/* calibrate --json: the database and one object per calibration made. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
    cJSON_AddNumberToObject(c, "gpus", rep->cal[i].gpus);
    cJSON_AddNumberToObject(c, "samples", rep->cal[i].samples);
    cJSON_AddNumberToObject(c, "fits", rep->cal[i].fits);
    cJSON_AddNumberToObject(c, "fits_failed", rep->cal[i].fits_failed);
    cJSON_AddNumberToObject(c, "seconds", rep->cal[i].seconds);
    if (rep->cal[i].failed[0]) json_add_string(c, "failed", rep->cal[i].failed);
    cJSON_AddNumberToObject(c, "unsettled", rep->cal[i].unsettled);
    if (rep->cal[i].warning[0]) json_add_string(c, "warning", rep->cal[i].warning);
    /* the locality term's coefficient per precision, where it was fitted */
    cJSON *xc = cJSON_AddObjectToObject(c, "x_coef");
    for (int p = 0; p < 2; p++)
      if (rep->cal[i].have_x_coef[p])
        cJSON_AddNumberToObject(xc, cgm_precision_name((cgm_precision)p), rep->cal[i].x_coef[p]);
    /* the band-load fraction per precision and block size */
    cJSON *bl = cJSON_AddObjectToObject(c, "band_load");
    for (int p = 0; p < 2; p++) {
      cJSON *pc = NULL;
      for (int b = 0; b < CGM_NBLOCKSIZES; b++) {
        if (!rep->cal[i].have_band_load[p][b]) continue;
        if (!pc) pc = cJSON_AddObjectToObject(bl, cgm_precision_name((cgm_precision)p));
        char key[8];
        snprintf(key, sizeof key, "%d", cgm_block_sizes[b]);
        cJSON_AddNumberToObject(pc, key, rep->cal[i].band_load[p][b]);
      }
    }
    /* the gather rate per precision (bytes/s), where it was fitted */
    cJSON *gb = cJSON_AddObjectToObject(c, "gather_bw");
    for (int p = 0; p < 2; p++)
      if (rep->cal[i].have_gather_bw[p])
        cJSON_AddNumberToObject(gb, cgm_precision_name((cgm_precision)p), rep->cal[i].gather_bw[p]);
    /* and on the sweep's smaller matrix */
    cJSON *gs = cJSON_AddObjectToObject(c, "gather_bw_small");
    for (int p = 0; p < 2; p++)
      if (rep->cal[i].have_gather_small[p])
        cJSON_AddNumberToObject(gs, cgm_precision_name((cgm_precision)p),
                                rep->cal[i].gather_bw_small[p]);
    /* the row-scatter terms' seconds a step per precision and block size */
    for (int band = 0; band < 2; band++) {
      cJSON *sc = cJSON_AddObjectToObject(c, band ? "band_scatter_coef" : "scatter_coef");
      for (int p = 0; p < 2; p++) {
        cJSON *pc = NULL;
        for (int b = 0; b < CGM_NBLOCKSIZES; b++) {
          const bool have =
              band ? rep->cal[i].have_band_scatter_coef[p][b] : rep->cal[i].have_scatter_coef[p][b];
          if (!have) continue;
          if (!pc) pc = cJSON_AddObjectToObject(sc, cgm_precision_name((cgm_precision)p));
          char key[8];
          snprintf(key, sizeof key, "%d", cgm_block_sizes[b]);
          cJSON_AddNumberToObject(
              pc, key, band ? rep->cal[i].band_scatter_coef[p][b] : rep->cal[i].scatter_coef[p][b]);
        }
      }
    }
    cJSON *stages = cJSON_AddObjectToObject(c, "stages");
    for (int k = 0; k < rep->cal[i].nstages; k++)
      cJSON_AddNumberToObject(stages, rep->cal[i].stage[k].name, rep->cal[i].stage[k].seconds);
    cJSON_AddItemToArray(arr, c);
  }
  return j;
}
