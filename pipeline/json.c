#include "pipeline/json.h"

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
    cJSON_AddStringToObject(o, "field", field_name(mm->field));
    cJSON_AddStringToObject(o, "file_symmetry",
                            mm->symmetry == CGM_MM_SYMMETRIC ? "symmetric" : "general");
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
    cJSON_AddItemToArray(blocks, e);
  }
  return o;
}

cJSON *cgm_gpu_opts_json(const cgm_gpu_opts *g) {
  cJSON *o = cJSON_CreateObject();
  cJSON_AddStringToObject(o, "cg", cgm_cg_variant_name(g->cg));
  cJSON_AddBoolToObject(o, "graphs", g->graphs);
  cJSON_AddBoolToObject(o, "pdl", g->pdl);
  cJSON_AddBoolToObject(o, "flags", g->flags);
  cJSON_AddBoolToObject(o, "late", g->late);
  cJSON_AddBoolToObject(o, "ll", g->ll);
  cJSON_AddBoolToObject(o, "balance", g->balance);
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
