/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Every JSON object cgmodel writes, built from the library's records and
 * the steps' reports: the command line's --json output, and what the
 * database stores as JSON (features, options). One place, so a key is
 * spelled once and the outputs stay alike. */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pipeline/json.h"
#include "pipeline/steps.h"

/* Every string goes through here: cJSON copies bytes as they are, so a file
 * name or a device model with invalid UTF-8 would make the whole output
 * invalid JSON. Invalid bytes become U+FFFD; control characters are kept
 * for cJSON to escape (\n, \u001b). */
static char *utf8_clean(const char *s) {
  const unsigned char *p = (const unsigned char *)(s ? s : "");
  size_t n = strlen((const char *)p);
  char *out = malloc(3 * n + 1); /* each byte at most the 3 bytes of U+FFFD */
  if (!out) return NULL;
  size_t o = 0;
  for (size_t i = 0; i < n;) {
    unsigned c = p[i];
    size_t len = 0;
    unsigned lo = 0x80, hi = 0xBF; /* the range of the second byte */
    if (c < 0x80)
      len = 1;
    else if (c >= 0xC2 && c <= 0xDF)
      len = 2;
    else if (c >= 0xE0 && c <= 0xEF) {
      len = 3;
      if (c == 0xE0) lo = 0xA0; /* overlong */
      if (c == 0xED) hi = 0x9F; /* surrogates */
    } else if (c >= 0xF0 && c <= 0xF4) {
      len = 4;
      if (c == 0xF0) lo = 0x90; /* overlong */
      if (c == 0xF4) hi = 0x8F; /* beyond U+10FFFF */
    }
    bool ok = len > 0 && i + len <= n;
    for (size_t k = 1; ok && k < len; k++) {
      unsigned b = p[i + k];
      ok = k == 1 ? b >= lo && b <= hi : b >= 0x80 && b <= 0xBF;
    }
    if (ok) {
      memcpy(out + o, p + i, len);
      o += len;
      i += len;
    } else {
      memcpy(out + o, "\xEF\xBF\xBD", 3);
      o += 3;
      i++;
    }
  }
  out[o] = 0;
  return out;
}

cJSON *json_string(const char *s) {
  char *c = utf8_clean(s);
  cJSON *j = c ? cJSON_CreateString(c) : NULL;
  free(c);
  return j;
}

cJSON *json_add_string(cJSON *o, const char *key, const char *s) {
  cJSON *j = json_string(s);
  if (j && !cJSON_AddItemToObject(o, key, j)) {
    cJSON_Delete(j);
    j = NULL;
  }
  return j;
}

static const char *field_name(cgm_mm_field f) {
  return f == CGM_MM_PATTERN ? "pattern" : f == CGM_MM_INTEGER ? "integer" : "real";
}

cJSON *cgm_features_json(const cgm_features *f, const cgm_mm_info *mm) {
  cJSON *o = cJSON_CreateObject();
  cJSON_AddNumberToObject(o, "x", f->x);
  cJSON_AddNumberToObject(o, "nnz", (double)f->nnz);
  cJSON_AddNumberToObject(o, "row_min", f->row_min);
  cJSON_AddNumberToObject(o, "row_max", f->row_max);
  cJSON_AddNumberToObject(o, "row_avg", f->row_avg);
  cJSON_AddNumberToObject(o, "row_cv", f->row_cv);
  cJSON_AddNumberToObject(o, "empty_rows", f->empty_rows);
  cJSON_AddBoolToObject(o, "symmetric", f->symmetric);
  cJSON_AddBoolToObject(o, "positive_diagonal", f->positive_diagonal);
  if (f->first_bad_diagonal >= 0)
    cJSON_AddNumberToObject(o, "first_bad_diagonal_row", f->first_bad_diagonal + 1);
  if (mm) {
    json_add_string(o, "field", field_name(mm->field));
    json_add_string(o, "file_symmetry", mm->symmetry == CGM_MM_SYMMETRIC ? "symmetric" : "general");
    cJSON_AddNumberToObject(o, "entries_in_file", (double)mm->entries_in_file);
    cJSON_AddNumberToObject(o, "duplicates_summed", (double)mm->duplicates_summed);
  }
  cJSON *blocks = cJSON_AddArrayToObject(o, "blocks");
  for (int b = 0; b < CGM_NBLOCKSIZES; b++) {
    const cgm_block_features *bf = &f->block[b];
    cJSON *e = cJSON_CreateObject();
    cJSON_AddNumberToObject(e, "N", bf->n);
    cJSON_AddNumberToObject(e, "blocks", (double)bf->blocks);
    cJSON_AddNumberToObject(e, "e_N", (double)bf->elements);
    cJSON_AddNumberToObject(e, "d_N", bf->density);
    cJSON_AddNumberToObject(e, "padded_blocks", (double)bf->padded_blocks);
    cJSON_AddNumberToObject(e, "padded_elements", (double)bf->padded_elements);
    cJSON_AddNumberToObject(e, "max_blocks_per_row", bf->max_blocks_per_row);
    cJSON_AddNumberToObject(e, "bx", bf->bx);
    /* x locality in double precision; the single-precision counts beside */
    cJSON_AddNumberToObject(e, "x_sectors", (double)bf->x_sectors[0]);
    cJSON_AddNumberToObject(e, "x_sectors_min", (double)bf->x_sectors_min[0]);
    cJSON_AddNumberToObject(e, "x_bytes_moved", 32.0 * (double)bf->x_sectors[0]);
    cJSON_AddNumberToObject(e, "x_locality", bf->x_locality[0]);
    cJSON_AddNumberToObject(e, "x_sectors_single", (double)bf->x_sectors[1]);
    cJSON_AddNumberToObject(e, "x_locality_single", bf->x_locality[1]);
    cJSON_AddItemToArray(blocks, e);
  }
  return o;
}

cJSON *cgm_gpu_opts_json(const cgm_gpu_opts *g) {
  cJSON *o = cJSON_CreateObject();
  json_add_string(o, "cg", cgm_cg_variant_name(g->cg));
  cJSON_AddBoolToObject(o, "graphs", g->graphs);
  cJSON_AddBoolToObject(o, "pdl", g->pdl);
  cJSON_AddBoolToObject(o, "flags", g->flags);
  cJSON_AddBoolToObject(o, "late", g->late);
  cJSON_AddBoolToObject(o, "ll", g->ll);
  cJSON_AddBoolToObject(o, "balance", g->balance);
  cJSON_AddBoolToObject(o, "device_layout", g->device_layout);
  return o;
}

static bool get_bool(const cJSON *j, const char *key, bool dflt) {
  const cJSON *v = j ? cJSON_GetObjectItemCaseSensitive(j, key) : NULL;
  return cJSON_IsBool(v) ? cJSON_IsTrue(v) : dflt;
}

cgm_gpu_opts cgm_gpu_opts_from_json(const cJSON *j) {
  cgm_gpu_opts g = cgm_gpu_opts_default();
  const cJSON *cg = j ? cJSON_GetObjectItemCaseSensitive(j, "cg") : NULL;
  if (cJSON_IsString(cg)) cgm_cg_variant_parse(cg->valuestring, &g.cg);
  g.graphs = get_bool(j, "graphs", g.graphs);
  g.pdl = get_bool(j, "pdl", g.pdl);
  g.flags = get_bool(j, "flags", g.flags);
  g.late = get_bool(j, "late", g.late);
  g.ll = get_bool(j, "ll", g.ll);
  g.balance = get_bool(j, "balance", g.balance);
  g.device_layout = get_bool(j, "device_layout", g.device_layout);
  return g;
}

cJSON *cgm_solve_opts_json(const cgm_solve_opts *o) {
  cJSON *j = cJSON_CreateObject();
  cJSON_AddNumberToObject(j, "tol", cgm_solve_tol(o));
  cJSON_AddNumberToObject(j, "maxiter", o->maxiter);
  cJSON_AddNumberToObject(j, "check_every", o->check_every);
  cJSON_AddNumberToObject(j, "threads", o->threads);
  if (o->backend == CGM_BACKEND_CUDA) cJSON_AddItemToObject(j, "gpu", cgm_gpu_opts_json(&o->gpu));
  return j;
}

int pipeline_calibration_gpus(const char *options_json) {
  cJSON *j = cJSON_Parse(options_json ? options_json : "");
  const cJSON *g = j ? cJSON_GetObjectItemCaseSensitive(j, "gpus") : NULL;
  const int gpus = cJSON_IsNumber(g) && g->valueint >= 1 ? g->valueint : 1;
  cJSON_Delete(j);
  return gpus;
}

cJSON *cgm_calibration_options_json(const char *device, int gpus, const cgm_calibrate_opts *o) {
  cJSON *j = cJSON_CreateObject();
  json_add_string(j, "device", device);
  cJSON_AddNumberToObject(j, "gpus", gpus);
  cJSON_AddBoolToObject(j, "quick", o->quick);
  /* The CG whose iterations the GPU sweeps timed (cgm_calibration_cg),
   * and every option of the solver they ran. */
  if (strcmp(device, "cpu") != 0) {
    json_add_string(j, "cg", cgm_cg_variant_name(o->gpu.cg));
    cJSON_AddItemToObject(j, "gpu", cgm_gpu_opts_json(&o->gpu));
  }
  cJSON *pr = cJSON_AddArrayToObject(j, "precisions");
  for (int p = 0; p < 2; p++)
    if (o->precisions & (1u << p))
      cJSON_AddItemToArray(pr, json_string(cgm_precision_name((cgm_precision)p)));
  return j;
}

/* ------------------------------------------------- command results --- */

cJSON *cgm_info_json(const char *path, const cgm_features *f, const cgm_mm_info *mm) {
  cJSON *o = cgm_features_json(f, mm);
  json_add_string(o, "matrix", path);
  return o;
}

static cJSON *cache_report_json(const cgm_cache_report *c) {
  cJSON *o = cJSON_CreateObject();
  cJSON_AddStringToObject(o, "outcome", cgm_cache_outcome_name(c->outcome));
  cJSON_AddBoolToObject(o, "stored", c->stored);
  if (c->evicted) cJSON_AddNumberToObject(o, "evicted", c->evicted);
  if (c->entry[0]) cJSON_AddStringToObject(o, "entry", c->entry);
  if (c->note[0]) cJSON_AddStringToObject(o, "note", c->note);
  cJSON_AddNumberToObject(o, "time_read_s", c->time_read_s);
  if (c->time_store_s > 0) cJSON_AddNumberToObject(o, "time_store_s", c->time_store_s);
  return o;
}

cJSON *cgm_cache_list_json(const char *dir, const cgm_cache_entry *e, int n) {
  cJSON *o = cJSON_CreateObject();
  cJSON_AddStringToObject(o, "dir", dir);
  cJSON *a = cJSON_AddArrayToObject(o, "entries");
  double total = 0;
  for (int i = 0; i < n; i++) {
    cJSON *x = cJSON_CreateObject();
    cJSON_AddStringToObject(x, "file", e[i].file);
    cJSON_AddNumberToObject(x, "bytes", (double)e[i].bytes);
    cJSON_AddBoolToObject(x, "valid_header", e[i].valid_header);
    if (e[i].valid_header) {
      cJSON_AddStringToObject(x, "source", e[i].source);
      cJSON_AddBoolToObject(x, "source_current", e[i].source_current);
      cJSON_AddNumberToObject(x, "source_bytes", (double)e[i].source_bytes);
      cJSON_AddNumberToObject(x, "nrows", e[i].nrows);
      cJSON_AddNumberToObject(x, "ncols", e[i].ncols);
      cJSON_AddNumberToObject(x, "nnz", (double)e[i].nnz);
    }
    cJSON_AddNumberToObject(x, "accessed", e[i].accessed);
    cJSON_AddItemToArray(a, x);
    total += (double)e[i].bytes;
  }
  cJSON_AddNumberToObject(o, "bytes", total);
  return o;
}

cJSON *cgm_reorder_advice_json(const cgm_reorder_advice *a) {
  cJSON *j = cJSON_CreateObject();
  json_add_string(j, "choice", a->rcm ? "rcm" : "none");
  if (isfinite(a->t_iter_none)) cJSON_AddNumberToObject(j, "time_per_iter_s", a->t_iter_none);
  if (isfinite(a->t_iter_rcm)) cJSON_AddNumberToObject(j, "time_per_iter_rcm_s", a->t_iter_rcm);
  cJSON_AddNumberToObject(j, "reorder_s", a->cost_s);
  cJSON_AddNumberToObject(j, "iterations", a->iterations);
  cJSON_AddNumberToObject(j, "bandwidth", (double)a->bandwidth_none);
  if (a->rcm_computed) cJSON_AddNumberToObject(j, "bandwidth_rcm", (double)a->bandwidth_rcm);
  cJSON_AddBoolToObject(j, "rcm_computed", a->rcm_computed);
  if (isfinite(a->gain_bound_s)) cJSON_AddNumberToObject(j, "gain_bound_s", a->gain_bound_s);
  json_add_string(j, "why", a->why);
  return j;
}

cJSON *cgm_solve_report_json(const cgm_solve_report *rep) {
  const cgm_solve_result *r = &rep->result;
  const cgm_solve_opts *o = &rep->opts;
  cJSON *j = cJSON_CreateObject();
  cJSON_AddBoolToObject(j, "converged", r->converged);
  cJSON_AddNumberToObject(j, "iterations", r->iterations);
  cJSON_AddNumberToObject(j, "relative_residual", r->relative_residual);
  cJSON_AddNumberToObject(j, "solver_residual", r->solver_residual);
  cJSON_AddNumberToObject(j, "tol", rep->tol);
  cJSON_AddNumberToObject(j, "maxiter", rep->maxiter);
  cJSON_AddNumberToObject(j, "time_per_iter_s", r->time_per_iter_s);
  cJSON_AddNumberToObject(j, "time_solve_s", r->time_solve_s);
  cJSON_AddNumberToObject(j, "time_setup_s", r->time_setup_s);
  cJSON_AddNumberToObject(j, "time_layout_s", r->time_layout_s);
  cJSON_AddNumberToObject(j, "time_upload_s", r->time_upload_s);
  if (o->backend == CGM_BACKEND_CUDA)
    cJSON_AddBoolToObject(j, "layout_on_device", r->layout_on_device);
  cJSON_AddNumberToObject(j, "block", o->layout.n);
  cJSON_AddNumberToObject(j, "bx", o->layout.bx);
  cJSON_AddNumberToObject(j, "gpus", o->backend == CGM_BACKEND_CPU ? 0 : o->gpus);
  json_add_string(j, "precision", cgm_precision_name(o->precision));
  json_add_string(j, "backend", cgm_backend_name(o->backend));
  if (o->backend == CGM_BACKEND_CUDA && o->gpus > 1)
    json_add_string(j, "exchange", cgm_exchange_name(o->exchange));
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
  if (rep->autotuned) json_add_string(j, "auto", rep->why);
  if (rep->solution_error >= 0) cJSON_AddNumberToObject(j, "solution_error", rep->solution_error);
  /* The phases before the solver's own (setup and iterations, above). */
  cJSON_AddNumberToObject(j, "time_read_s", rep->time_read_s);
  cJSON_AddNumberToObject(j, "time_analyse_s", rep->time_analyse_s);
  cJSON_AddNumberToObject(j, "time_check_s", r->time_check_s);
  cJSON_AddNumberToObject(j, "time_finish_s", r->time_finish_s);
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
    cJSON_AddNumberToObject(p, "setup_s", rep->choice.setup_s);
    cJSON_AddNumberToObject(p, "iterations", rep->choice.iterations);
    json_add_string(p, "iterations_source", rep->k_source);
    cJSON_AddNumberToObject(p, "time_per_iter_s", rep->choice.time_per_iter_s);
    cJSON_AddNumberToObject(p, "total_s", rep->choice.total_s);
  }
  if (rep->residual_history) {
    cJSON *h = cJSON_AddArrayToObject(j, "residual_history");
    for (int i = 0; h && i < rep->nhistory; i++) {
      cJSON *pair = cJSON_CreateDoubleArray(rep->residual_history + 2 * i, 2);
      if (pair) cJSON_AddItemToArray(h, pair);
    }
  }
  cJSON *cache = cache_report_json(&rep->cache);
  cJSON_AddBoolToObject(cache, "features", rep->features_cached);
  cJSON_AddBoolToObject(cache, "check", rep->check_cached);
  cJSON_AddBoolToObject(cache, "analysis", rep->analysis_cached);
  cJSON_AddItemToObject(j, "cache", cache);
  if (rep->dist.ranks > 0) { /* the MPI solve: its partition and halo volume */
    cJSON *d = cJSON_AddObjectToObject(j, "mpi");
    cJSON_AddNumberToObject(d, "ranks", rep->dist.ranks);
    cJSON_AddStringToObject(d, "partition", cgm_dist_partition_name(rep->dist.partition));
    cJSON_AddNumberToObject(d, "rows_min", rep->dist.rows_min);
    cJSON_AddNumberToObject(d, "rows_max", rep->dist.rows_max);
    cJSON_AddNumberToObject(d, "halo_entries", (double)rep->dist.halo_entries);
    cJSON_AddNumberToObject(d, "halo_max", (double)rep->dist.halo_max);
    cJSON_AddNumberToObject(d, "neighbours_max", rep->dist.neighbours_max);
  }
  return j;
}

static cJSON *candidate_json(const cgm_candidate *c, const cgm_tuner_device *d) {
  char device[256];
  cgm_candidate_device(c, d, device, sizeof device);
  cJSON *o = cJSON_CreateObject();
  json_add_string(o, "device", device);
  json_add_string(o, "backend", cgm_backend_name(c->backend));
  cJSON_AddNumberToObject(o, "block", c->block);
  cJSON_AddNumberToObject(o, "gpus", c->gpus);
  json_add_string(o, "precision", cgm_precision_name(c->precision));
  if (c->gpus > 1) json_add_string(o, "exchange", cgm_exchange_name(c->exchange));
  cJSON_AddNumberToObject(o, "time_per_iter_s", c->time_per_iter_s);
  cJSON_AddNumberToObject(o, "setup_s", c->setup_s);
  cJSON_AddNumberToObject(o, "iterations", c->iterations);
  cJSON_AddNumberToObject(o, "total_s", c->total_s);
  cJSON_AddNumberToObject(o, "gflops_raw", c->gflops_raw);
  cJSON_AddNumberToObject(o, "gflops_real", c->gflops_real);
  if (isfinite(c->speedup)) cJSON_AddNumberToObject(o, "speedup", c->speedup);
  cJSON_AddNumberToObject(o, "memory_bytes", (double)c->memory_bytes);
  cJSON_AddNumberToObject(o, "exchange_bytes", c->exchange_bytes);
  cJSON_AddBoolToObject(o, "fits", c->fits);
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
  return j;
}

cJSON *cgm_validate_json(const cgm_validate_report *r) {
  cJSON *o = cJSON_CreateObject();
  cJSON_AddNumberToObject(o, "matrices", r->regret_count);
  cJSON_AddNumberToObject(o, "measurements", r->nrows);
  cJSON *groups = cJSON_AddArrayToObject(o, "groups");
  for (int i = 0; i < r->ngroups; i++) {
    const cgm_validate_group *p = &r->groups[i];
    cJSON *g = cJSON_CreateObject();
    json_add_string(g, "backend", cgm_backend_name(p->backend));
    json_add_string(g, "precision", cgm_precision_name(p->precision));
    cJSON_AddNumberToObject(g, "block", p->block);
    cJSON_AddNumberToObject(g, "gpus", p->gpus);
    cJSON_AddNumberToObject(g, "count", p->count);
    cJSON_AddNumberToObject(g, "avg_rel_error", p->avg_rel_error);
    if (p->count) cJSON_AddNumberToObject(g, "mean_signed_error", p->mean_signed_error);
    cJSON_AddNumberToObject(g, "variance", p->variance);
    cJSON_AddNumberToObject(g, "median_rel_error", p->median_rel_error);
    cJSON_AddNumberToObject(g, "p90_rel_error", p->p90_rel_error);
    if (p->paper_count) {
      cJSON_AddNumberToObject(g, "paper_avg_rel_error", p->paper_avg_rel_error);
      cJSON_AddNumberToObject(g, "paper_mean_signed_error", p->paper_mean_signed_error);
    }
    cJSON_AddItemToArray(groups, g);
  }
  cJSON *t = cJSON_AddObjectToObject(o, "tuner");
  cJSON_AddNumberToObject(t, "mean_regret", r->mean_regret);
  cJSON_AddNumberToObject(t, "max_regret", r->max_regret);
  cJSON_AddNumberToObject(t, "within_5_percent",
                          r->regret_count ? (double)r->within_5 / r->regret_count : NAN);
  cJSON_AddNumberToObject(t, "within_10_percent",
                          r->regret_count ? (double)r->within_10 / r->regret_count : NAN);
  return o;
}

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

/* ------------------------------------------------ database records --- */

static cJSON *device_json(const cgm_db_device *d) {
  cJSON *o = cJSON_CreateObject();
  cJSON_AddNumberToObject(o, "id", (double)d->id);
  json_add_string(o, "kind", d->kind);
  json_add_string(o, "model", d->model);
  json_add_string(o, "host", d->host);
  if (!strcmp(d->kind, "cuda")) {
    char cc[16];
    snprintf(cc, sizeof cc, "%d.%d", d->cc_major, d->cc_minor);
    json_add_string(o, "compute_capability", cc);
    cJSON_AddNumberToObject(o, "sms", d->sms);
    cJSON_AddNumberToObject(o, "clock_khz", d->clock_khz);
    cJSON_AddNumberToObject(o, "memory_clock_khz", d->mem_clock_khz);
    cJSON_AddNumberToObject(o, "bus_width_bits", d->bus_width_bits);
    cJSON_AddNumberToObject(o, "driver_version", d->driver_version);
    cJSON_AddNumberToObject(o, "runtime_version", d->runtime_version);
  } else {
    cJSON_AddNumberToObject(o, "threads", d->threads);
  }
  cJSON_AddNumberToObject(o, "memory_bytes", (double)d->mem_total);
  return o;
}

/* A calibration with its device (the options as the object they are). */
static cJSON *calibration_json(const cgm_db_calibration *c, const cgm_db_device *d) {
  cJSON *o = cJSON_CreateObject();
  cJSON_AddNumberToObject(o, "id", (double)c->id);
  json_add_string(o, "created", c->created);
  json_add_string(o, "tool_version", c->tool_version);
  cJSON *opt = cJSON_Parse(c->options);
  if (opt) cJSON_AddItemToObject(o, "options", opt);
  cJSON_AddNumberToObject(o, "seconds", c->seconds);
  cJSON_AddBoolToObject(o, "complete", c->complete);
  cJSON_AddItemToObject(o, "device", device_json(d));
  return o;
}

static int add_calibration(const cgm_db_calibration *c, const cgm_db_device *d, void *ctx) {
  cJSON_AddItemToArray((cJSON *)ctx, calibration_json(c, d));
  return 0;
}

static int add_fit(const cgm_db_fit *f, void *ctx) {
  cJSON *o = cJSON_CreateObject();
  json_add_string(o, "kernel", f->kernel);
  json_add_string(o, "variant", f->variant);
  json_add_string(o, "precision", cgm_precision_name((cgm_precision)f->precision));
  cJSON_AddNumberToObject(o, "block", f->block);
  json_add_string(o, "kind", cgm_fit_kind_name(f->kind));
  cJSON_AddNumberToObject(o, "mu", f->mu);
  cJSON_AddNumberToObject(o, "sigma", f->sigma);
  cJSON_AddNumberToObject(o, "nu", f->nu);
  cJSON_AddNumberToObject(o, "se_mu", f->se_mu);
  cJSON_AddNumberToObject(o, "se_sigma", f->se_sigma);
  cJSON_AddNumberToObject(o, "se_nu", f->se_nu);
  if (isfinite(f->r2)) cJSON_AddNumberToObject(o, "r2", f->r2);
  cJSON_AddNumberToObject(o, "rms", f->rms);
  cJSON_AddNumberToObject(o, "n", f->n);
  if (f->m_lo > 0) cJSON_AddNumberToObject(o, "m_lo", f->m_lo); /* where the fit's regime starts */
  if (f->m_hi > 0) cJSON_AddNumberToObject(o, "m_hi", f->m_hi); /* ... and ends */
  cJSON_AddBoolToObject(o, "converged", f->converged);
  if (f->message[0]) json_add_string(o, "message", f->message);
  cJSON_AddItemToArray((cJSON *)ctx, o);
  return 0;
}

static int add_sample(const cgm_db_sample *s, void *ctx) {
  cJSON *o = cJSON_CreateObject();
  json_add_string(o, "kernel", s->kernel);
  json_add_string(o, "variant", s->variant);
  json_add_string(o, "precision", cgm_precision_name((cgm_precision)s->precision));
  cJSON_AddNumberToObject(o, "block", s->block);
  cJSON_AddNumberToObject(o, "m", s->m);
  cJSON_AddNumberToObject(o, "bytes", s->bytes);
  cJSON_AddNumberToObject(o, "seconds", s->seconds);
  cJSON_AddNumberToObject(o, "gbps", cgm_sample_gbps(s));
  if (s->source[0]) json_add_string(o, "source", s->source);
  cJSON_AddItemToArray((cJSON *)ctx, o);
  return 0;
}

static int add_solve(const cgm_db_solve *s, void *ctx) {
  cJSON *o = cJSON_CreateObject();
  cJSON_AddNumberToObject(o, "id", (double)s->id);
  cJSON_AddNumberToObject(o, "matrix_id", (double)s->matrix_id);
  json_add_string(o, "matrix", s->matrix);
  json_add_string(o, "created", s->created);
  json_add_string(o, "backend", s->backend);
  json_add_string(o, "precision", s->precision);
  cJSON_AddNumberToObject(o, "block", s->block);
  cJSON_AddNumberToObject(o, "gpus", s->gpus);
  cJSON_AddNumberToObject(o, "iterations", s->iterations);
  cJSON_AddBoolToObject(o, "converged", s->converged);
  cJSON_AddNumberToObject(o, "time_per_iter_s", s->time_per_iter_s);
  if (isfinite(s->predicted_time_per_iter_s))
    cJSON_AddNumberToObject(o, "predicted_time_per_iter_s", s->predicted_time_per_iter_s);
  cJSON_AddItemToArray((cJSON *)ctx, o);
  return 0;
}

/* {key: []}, and the array a listing fills. */
static cJSON *listing(const char *key, cJSON **arr) {
  cJSON *o = cJSON_CreateObject();
  *arr = cJSON_AddArrayToObject(o, key);
  return o;
}

cgm_status cgm_db_calibrations_json(cgm_db *db, cJSON **out, cgm_error *err) {
  cJSON *arr, *o = listing("calibrations", &arr);
  cgm_status st = cgm_db_calibrations(db, add_calibration, arr, err);
  if (st) cJSON_Delete(o);
  *out = st ? NULL : o;
  return st;
}

cgm_status cgm_db_solves_json(cgm_db *db, cJSON **out, cgm_error *err) {
  cJSON *arr, *o = listing("solves", &arr);
  cgm_status st = cgm_db_solves(db, add_solve, arr, err);
  if (st) cJSON_Delete(o);
  *out = st ? NULL : o;
  return st;
}

cgm_status cgm_db_calibration_json(cgm_db *db, int64_t id, bool samples, cJSON **out,
                                   cgm_error *err) {
  cgm_db_calibration c;
  cgm_db_device d;
  *out = NULL;
  cgm_status st = pipeline_calibration_get(db, id, &c, &d, err);
  if (st) return st;
  cJSON *o = calibration_json(&c, &d);
  st = cgm_db_fits(db, id, add_fit, cJSON_AddArrayToObject(o, "fits"), err);
  if (!st && samples)
    st = cgm_db_samples(db, id, add_sample, cJSON_AddArrayToObject(o, "samples"), err);
  if (st) {
    cJSON_Delete(o);
    return st;
  }
  *out = o;
  return CGM_OK;
}

static cJSON *devices_calibration_json(const cgm_devices_calibration *c) {
  cJSON *o = cJSON_CreateObject();
  if (c->found) {
    cJSON_AddNumberToObject(o, "id", (double)c->id);
    json_add_string(o, "created", c->created);
    json_add_string(o, "tool_version", c->tool_version);
    cJSON_AddBoolToObject(o, "stale", c->stale);
    if (c->stale) json_add_string(o, "stale_why", c->stale_why);
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
  cJSON_AddNumberToObject(c, "cores", r->cores);
  cJSON_AddNumberToObject(c, "threads", r->threads);
  cJSON_AddNumberToObject(c, "memory_bytes", (double)r->host_memory);
  cJSON_AddItemToObject(c, "calibration", devices_calibration_json(&r->cpu_cal));
  cJSON_AddNumberToObject(j, "gpus_present", r->gpus_present);
  cJSON *gs = cJSON_AddArrayToObject(j, "gpus");
  for (int g = 0; g < r->gpus; g++) {
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "index", g);
    json_add_string(o, "name", r->gpu[g].name);
    cJSON_AddNumberToObject(o, "memory_bytes", (double)r->gpu[g].memory_bytes);
    cJSON_AddNumberToObject(o, "sms", r->gpu[g].sms);
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
