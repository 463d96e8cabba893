/* SPDX-License-Identifier: GPL-3.0-or-later */
/* validate --json: counts, the groups (Table 6) and the tuner's regret. */
#include <math.h>

#include "pipeline/json.h"
#include "cgmodel/validate.h"

cJSON *cgm_validate_json(const cgm_validate_report *r) {
  cJSON *o = cJSON_CreateObject();
  JSON_NUMS(o, {"matrices", r->regret_count}, {"measurements", r->nrows},
            {"disturbed", r->disturbed});
  cJSON *groups = cJSON_AddArrayToObject(o, "groups");
  for (int i = 0; i < r->ngroups; i++) {
    const cgm_validate_group *p = &r->groups[i];
    cJSON *g = cJSON_CreateObject();
    json_add_string(g, "backend", cgm_backend_name(p->backend));
    json_add_string(g, "precision", cgm_precision_name(p->precision));
    JSON_NUMS(g, {"block", p->block}, {"gpus", p->gpus}, {"count", p->count},
              {"avg_rel_error", p->avg_rel_error});
    if (p->count) cJSON_AddNumberToObject(g, "mean_signed_error", p->mean_signed_error);
    JSON_NUMS(g, {"variance", p->variance}, {"median_rel_error", p->median_rel_error},
              {"p90_rel_error", p->p90_rel_error});
    if (p->paper_count) {
      JSON_NUMS(g, {"paper_avg_rel_error", p->paper_avg_rel_error},
                {"paper_mean_signed_error", p->paper_mean_signed_error});
    }
    cJSON_AddItemToArray(groups, g);
  }
  cJSON *t = cJSON_AddObjectToObject(o, "tuner");
  JSON_NUMS(t, {"mean_regret", r->mean_regret}, {"max_regret", r->max_regret},
            {"within_5_percent", r->regret_count ? (double)r->within_5 / r->regret_count : NAN},
            {"within_10_percent", r->regret_count ? (double)r->within_10 / r->regret_count : NAN});
  bool counted = false; /* validate --total: some matrix had its iteration counts compared */
  for (int i = 0; i < r->nmatrices; i++)
    counted |= isfinite(r->matrices[i].k_error[0]) || isfinite(r->matrices[i].k_error[1]);
  if (counted) {
    /* validate --total: the iteration counts predicted as for a new matrix */
    cJSON *k = cJSON_AddObjectToObject(o, "iterations");
    const char *names[2] = {"double", "mixed"};
    for (int p = 0; p < 2; p++) {
      if (!isfinite(r->k_mean_error[p])) continue;
      cJSON *q = cJSON_AddObjectToObject(k, names[p]);
      JSON_NUMS(q, {"mean_rel_error", r->k_mean_error[p]},
                {"median_rel_error", r->k_median_error[p]}, {"max_rel_error", r->k_max_error[p]});
    }
    JSON_NUMS(k, {"counted", r->k_counted}, {"probed_to_tol", r->k_probed});
    if (isfinite(r->ratio_mean_error)) {
      JSON_NUMS(k, {"mixed_over_double_mean_rel_error", r->ratio_mean_error},
                {"mixed_over_double_max_rel_error", r->ratio_max_error});
    }
    cJSON *per = cJSON_AddArrayToObject(k, "matrices");
    for (int i = 0; i < r->nmatrices; i++) {
      const cgm_validate_matrix *m = &r->matrices[i];
      cJSON *q = cJSON_CreateObject();
      json_add_string(q, "matrix", m->matrix);
      if (isfinite(m->k_error[0])) cJSON_AddNumberToObject(q, "double_rel_error", m->k_error[0]);
      if (isfinite(m->k_error[1])) cJSON_AddNumberToObject(q, "mixed_rel_error", m->k_error[1]);
      if (isfinite(m->ratio_error)) cJSON_AddNumberToObject(q, "ratio_rel_error", m->ratio_error);
      cJSON_AddBoolToObject(q, "probed_to_tol", m->k_probed);
      cJSON_AddItemToArray(per, q);
    }
  }
  return o;
}
