/* SPDX-License-Identifier: GPL-3.0-or-later */
/* solve --json: the report of cgm_run_solve. */
#include <math.h>

#include "pipeline/json.h"
#include "cgmodel/run_solve.h"

cJSON *cgm_solve_report_json(const cgm_solve_report *rep) {
  const cgm_solve_result *r = &rep->result;
  const cgm_solve_opts *o = &rep->opts;
  cJSON *j = cJSON_CreateObject();
  cJSON_AddBoolToObject(j, "converged", r->converged);
  JSON_NUMS(j, {"iterations", r->iterations}, {"relative_residual", r->relative_residual},
            {"solver_residual", r->solver_residual}, {"tol", rep->tol}, {"maxiter", rep->maxiter},
            {"time_per_iter_s", r->time_per_iter_s},
            {"time_per_iter_low_s", r->time_per_iter_low_s}, {"time_solve_s", r->time_solve_s},
            {"time_setup_s", r->time_setup_s}, {"time_layout_s", r->time_layout_s},
            {"time_upload_s", r->time_upload_s});
  if (o->backend == CGM_BACKEND_CUDA)
    cJSON_AddBoolToObject(j, "layout_on_device", r->layout_on_device);
  JSON_NUMS(j, {"block", o->layout.n}, {"bx", o->layout.bx},
            {"gpus", o->backend == CGM_BACKEND_CPU ? 0 : o->gpus});
  json_add_string(j, "precision", cgm_precision_name(o->precision));
  json_add_string(j, "backend", cgm_backend_name(o->backend));
  if (o->backend == CGM_BACKEND_CUDA && o->gpus > 1)
    json_add_string(j, "exchange", cgm_exchange_name(o->exchange));
  if (r->index_bytes > 0) { /* a backend of ours reported it (not cusparse, not MPI) */
    cJSON *s = cJSON_AddObjectToObject(j, "storage");
    json_add_string(s, "format", cgm_values_name(r->storage));
    cJSON_AddBoolToObject(s, "exact", r->storage_exact);
    JSON_NUMS(s, {"value_bytes", r->value_bytes}, {"index_bytes", r->index_bytes},
              {"bytes_per_iteration", r->iter_bytes});
  }
  json_add_string(j, "device", r->device);
  cJSON_AddNumberToObject(j, "device_bytes", (double)r->device_bytes);
  if (r->exchange_bytes) cJSON_AddNumberToObject(j, "exchange_bytes", (double)r->exchange_bytes);
  if (r->stop_reason[0]) json_add_string(j, "stop_reason", r->stop_reason);
  json_add_string(j, "matrix", rep->matrix);
  json_add_string(j, "reorder", cgm_reorder_name(o->reorder));
  json_add_string(j, "precond", cgm_precond_name(o->precond));
  if (r->precond_block) cJSON_AddNumberToObject(j, "precond_block", r->precond_block);
  if (r->reordered) cJSON_AddNumberToObject(j, "time_reorder_s", r->time_reorder_s);
  if (rep->have_reorder)
    cJSON_AddItemToObject(j, "reorder_advice", cgm_reorder_advice_json(&rep->reorder));
  if (isfinite(rep->predicted))
    cJSON_AddNumberToObject(j, "predicted_time_per_iter_s", rep->predicted);
  if (rep->autotuned || rep->auto_declined) json_add_string(j, "auto", rep->why);
  if (rep->auto_declined) { /* the default ran: the reason and both numbers */
    cJSON *d = cJSON_AddObjectToObject(j, "auto_declined");
    json_add_string(d, "reason", "analysis would cost more than the best choice could save");
    JSON_NUMS(d, {"analysis_s", rep->auto_analysis_s}, {"saving_bound_s", rep->auto_bound_s});
  }
  if (rep->cpu_first) /* no GPU started: the CPU's solve predicted shorter than a GPU's start */
    JSON_NUMS(cJSON_AddObjectToObject(j, "auto_cpu_first"), {"cpu_s", rep->cpu_first_s},
              {"gpu_start_s", rep->gpu_start_s});
  if (rep->time_gpu_start_s > 0)
    cJSON_AddNumberToObject(j, "time_gpu_start_s", rep->time_gpu_start_s);
  if (rep->disturbed) cJSON_AddBoolToObject(j, "disturbed", true);
  if (rep->solution_error >= 0) cJSON_AddNumberToObject(j, "solution_error", rep->solution_error);
  /* The phases before the solver's own (setup and iterations, above). */
  JSON_NUMS(j, {"time_read_s", rep->time_read_s}, {"time_analyse_s", rep->time_analyse_s},
            {"time_check_s", r->time_check_s}, {"time_finish_s", r->time_finish_s});
  /* the whole of cgm_run_solve: the phases above and what lies between them */
  cJSON_AddNumberToObject(j, "time_total_s",
                          rep->time_wall_s > 0
                              ? rep->time_wall_s
                              : rep->time_read_s + rep->time_analyse_s + r->time_check_s +
                                    r->time_setup_s + r->time_solve_s + r->time_finish_s);
  if (r->stalled) cJSON_AddBoolToObject(j, "stalled", true);
  if (r->attainable_residual > 0)
    cJSON_AddNumberToObject(j, "attainable_residual", r->attainable_residual);
  if (r->fallback_iterations > 0)
    cJSON_AddNumberToObject(j, "fallback_iterations", r->fallback_iterations);
  if (rep->autotuned) {
    /* the tuner's prediction of what it chose, beside what was measured */
    cJSON *p = cJSON_AddObjectToObject(j, "predicted");
    JSON_NUMS(p, {"setup_s", rep->choice.setup_s}, {"iterations", rep->choice.iterations});
    json_add_string(p, "iterations_source", rep->k_source);
    JSON_NUMS(p, {"time_per_iter_s", rep->choice.time_per_iter_s},
              {"total_s", rep->choice.total_s});
  }
  if (rep->residual_history) {
    cJSON *h = cJSON_AddArrayToObject(j, "residual_history");
    for (int i = 0; h && i < rep->nhistory; i++) {
      cJSON *pair = cJSON_CreateDoubleArray(rep->residual_history + 2 * i, 2);
      if (pair) cJSON_AddItemToArray(h, pair);
    }
  }
  cJSON *cache = json_cache_report(&rep->cache);
  cJSON_AddBoolToObject(cache, "features", rep->features_cached);
  cJSON_AddBoolToObject(cache, "check", rep->check_cached);
  cJSON_AddBoolToObject(cache, "analysis", rep->analysis_cached);
  cJSON_AddItemToObject(j, "cache", cache);
  if (rep->dist.ranks > 0) { /* the MPI solve: its partition and halo volume */
    cJSON *d = cJSON_AddObjectToObject(j, "mpi");
    cJSON_AddNumberToObject(d, "ranks", rep->dist.ranks);
    cJSON_AddStringToObject(d, "partition", cgm_dist_partition_name(rep->dist.partition));
    cJSON_AddStringToObject(d, "exchange", rep->dist.exchange);
    JSON_NUMS(d, {"rows_min", rep->dist.rows_min}, {"rows_max", rep->dist.rows_max},
              {"halo_entries", (double)rep->dist.halo_entries},
              {"halo_max", (double)rep->dist.halo_max},
              {"neighbours_max", rep->dist.neighbours_max});
  }
  return j;
}
