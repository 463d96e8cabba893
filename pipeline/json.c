/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The JSON forms every report shares (features, options, the cache's
 * outcome, a reordering's verdict) and what the database stores as JSON:
 * one place, so a key is spelled once and the outputs stay alike. Each
 * command's report is built beside the command (solve/solve_json.c, ...). */
#define _POSIX_C_SOURCE 200809L /* getdelim */
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cgmodel/calibrate.h"
#include "pipeline/json.h"

/* Every string goes through here: cJSON copies bytes as they are, so a file name or a device model
 * with invalid UTF-8 would make the whole output invalid JSON. Invalid bytes become U+FFFD; control
 * characters are kept for cJSON to escape (\n, \u001b). */
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
    /* a valid sequence as it is, else its first byte as U+FFFD */
    memcpy(out + o, ok ? (const char *)p + i : "\xEF\xBF\xBD", ok ? len : 3);
    o += ok ? len : 3;
    i += ok ? len : 1;
  }
  out[o] = 0;
  return out;
}

/* A JSON string of s (NULL: ""), invalid UTF-8 replaced by U+FFFD; NULL when out of memory. */
static cJSON *json_string(const char *s) {
  char *c = utf8_clean(s);
  cJSON *j = c ? cJSON_CreateString(c) : NULL;
  free(c);
  return j;
}

cgm_status json_read_file(const char *path, cJSON **out, cgm_error *err) {
  FILE *f = fopen(path, "rb");
  char *text = NULL;
  size_t cap = 0;
  const ssize_t len = f ? getdelim(&text, &cap, '\0', f) : -1; /* the whole file */
  const char *end = NULL;
  *out = !f || ferror(f) ? NULL : cJSON_ParseWithOpts(len > 0 ? text : "", &end, false);
  int line = 1;
  for (const char *c = len > 0 ? text : ""; c < end && *c; c++) line += *c == '\n';
  cgm_status st = !f || ferror(f) ? cgm_fail(err, CGM_EINPUT, "%s: %s", path, strerror(errno))
                  : !*out         ? cgm_fail(err, CGM_EINPUT, "%s:%d: not JSON", path, line)
                                  : CGM_OK;
  if (f) fclose(f);
  free(text);
  return st;
}

cJSON *json_add_string(cJSON *o, const char *key, const char *s) {
  cJSON *j = json_string(s);
  if (j && !cJSON_AddItemToObject(o, key, j)) {
    cJSON_Delete(j);
    j = NULL;
  }
  return j;
}

void json_add_nums(cJSON *o, const json_num *t, size_t n) {
  for (size_t i = 0; i < n; i++) cJSON_AddNumberToObject(o, t[i].key, t[i].v);
}

const char *json_field_name(cgm_mm_field f) {
  return f == CGM_MM_PATTERN ? "pattern" : f == CGM_MM_INTEGER ? "integer" : "real";
}

cJSON *cgm_features_json(const cgm_features *f, const cgm_mm_info *mm) {
  cJSON *o = cJSON_CreateObject();
  JSON_NUMS(o, {"x", f->x}, {"nnz", (double)f->nnz}, {"row_min", f->row_min},
            {"row_max", f->row_max}, {"row_avg", f->row_avg}, {"row_cv", f->row_cv},
            {"empty_rows", f->empty_rows});
  cJSON_AddBoolToObject(o, "symmetric", f->symmetric);
  cJSON_AddBoolToObject(o, "positive_diagonal", f->positive_diagonal);
  if (f->first_bad_diagonal >= 0)
    cJSON_AddNumberToObject(o, "first_bad_diagonal_row", f->first_bad_diagonal + 1);
  if (mm) {
    json_add_string(o, "field", json_field_name(mm->field));
    json_add_string(o, "file_symmetry", mm->symmetry == CGM_MM_SYMMETRIC ? "symmetric" : "general");
    JSON_NUMS(o, {"entries_in_file", (double)mm->entries_in_file},
              {"duplicates_summed", (double)mm->duplicates_summed});
  }
  cJSON *blocks = cJSON_AddArrayToObject(o, "blocks");
  for (int b = 0; b < CGM_NBLOCKSIZES; b++) {
    const cgm_block_features *bf = &f->block[b];
    if (bf->n != cgm_block_sizes[b])
      continue; /* not counted (a solve's record keeps the one run) */
    cJSON *e = cJSON_CreateObject();
    JSON_NUMS(e, {"N", bf->n}, {"blocks", (double)bf->blocks}, {"e_N", (double)bf->elements},
              {"d_N", bf->density}, {"padded_blocks", (double)bf->padded_blocks},
              {"padded_elements", (double)bf->padded_elements},
              {"max_blocks_per_row", bf->max_blocks_per_row}, {"bx", bf->bx});
    /* x locality in double precision; the single-precision counts beside */
    JSON_NUMS(
        e, {"x_sectors", (double)bf->x_sectors[0]}, {"x_sectors_min", (double)bf->x_sectors_min[0]},
        {"x_bytes_moved", 32.0 * (double)bf->x_sectors[0]}, {"x_locality", bf->x_locality[0]},
        {"x_sectors_single", (double)bf->x_sectors[1]}, {"x_locality_single", bf->x_locality[1]});
    cJSON_AddItemToArray(blocks, e);
  }
  return o;
}

/* The GPU options' switches, by their keys. */
#define GB(m)                                                                                      \
  { #m, offsetof(cgm_gpu_opts, m) }
static const struct {
  const char *key;
  size_t off;
} gpu_bools[] = {GB(graphs), GB(pdl), GB(flags), GB(late), GB(ll), GB(balance), GB(device_layout)};
enum { NGPU_BOOLS = sizeof gpu_bools / sizeof *gpu_bools };

cJSON *cgm_gpu_opts_json(const cgm_gpu_opts *g) {
  cJSON *o = cJSON_CreateObject();
  json_add_string(o, "cg", cgm_cg_variant_name(g->cg));
  for (int k = 0; k < NGPU_BOOLS; k++)
    cJSON_AddBoolToObject(o, gpu_bools[k].key, *(const bool *)((const char *)g + gpu_bools[k].off));
  return o;
}

cgm_gpu_opts cgm_gpu_opts_from_json(const cJSON *j) {
  cgm_gpu_opts g = cgm_gpu_opts_default();
  const cJSON *cg = j ? cJSON_GetObjectItemCaseSensitive(j, "cg") : NULL;
  if (cJSON_IsString(cg)) cgm_cg_variant_parse(cg->valuestring, &g.cg);
  for (int k = 0; j && k < NGPU_BOOLS; k++) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(j, gpu_bools[k].key);
    if (cJSON_IsBool(v)) *(bool *)((char *)&g + gpu_bools[k].off) = cJSON_IsTrue(v);
  }
  return g;
}

cJSON *cgm_solve_opts_json(const cgm_solve_opts *o) {
  cJSON *j = cJSON_CreateObject();
  cJSON_AddNumberToObject(j, "tol", cgm_solve_tol(o));
  if (o->atol > 0) cJSON_AddNumberToObject(j, "atol", o->atol);
  JSON_NUMS(j, {"maxiter", o->maxiter}, {"check_every", o->check_every}, {"threads", o->threads});
  if (o->backend == CGM_BACKEND_CUDA) cJSON_AddItemToObject(j, "gpu", cgm_gpu_opts_json(&o->gpu));
  return j;
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

cJSON *cgm_info_json(const char *path, const cgm_features *f, const cgm_mm_info *mm) {
  cJSON *o = cgm_features_json(f, mm);
  json_add_string(o, "matrix", path);
  return o;
}

cJSON *json_cache_report(const cgm_cache_report *c) {
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
      JSON_NUMS(x, {"source_bytes", (double)e[i].source_bytes}, {"nrows", e[i].nrows},
                {"ncols", e[i].ncols}, {"nnz", (double)e[i].nnz});
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
  JSON_NUMS(j, {"reorder_s", a->cost_s}, {"iterations", a->iterations},
            {"bandwidth", (double)a->bandwidth_none});
  if (a->rcm_computed) cJSON_AddNumberToObject(j, "bandwidth_rcm", (double)a->bandwidth_rcm);
  cJSON_AddBoolToObject(j, "rcm_computed", a->rcm_computed);
  if (isfinite(a->gain_bound_s)) cJSON_AddNumberToObject(j, "gain_bound_s", a->gain_bound_s);
  json_add_string(j, "why", a->why);
  return j;
}
