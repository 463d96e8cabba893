/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Requests into option structs and back (request.h): each command's keys as a table of fields,
 * every value converted by its field's type in one pass over the request; the keys a table leaves
 * to its command ('-') follow it. */
#include "pipeline/request.h"

#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "common/parse.h"
#include "pipeline/json.h"

/* The choices as fields take them: an enum read and written as an int. */
#define CHOICE(name, type)                                                                         \
  _Static_assert(sizeof(type) == sizeof(int), "a choice is stored as an int");                     \
  static bool name##_of(const char *s, int *v) {                                                   \
    type x;                                                                                        \
    return cgm_##name##_parse(s, &x) ? (*v = (int)x, true) : false;                                \
  }                                                                                                \
  static const char *name##_nm(int v) {                                                            \
    return cgm_##name##_name((type)v);                                                             \
  }
CHOICE(backend, cgm_backend)
CHOICE(precision, cgm_precision)
CHOICE(exchange, cgm_exchange)
CHOICE(reorder, cgm_reorder)
CHOICE(precond, cgm_precond)
CHOICE(storage, cgm_storage)
CHOICE(dist_partition, cgm_dist_partition)

/* One key: its type (s string, b boolean, i int, l a 64-bit integer, r a
 * number, c a choice, - read by the command's own code) and where it goes. */
typedef struct field {
  const char *key;
  char type;
  size_t off;
  bool (*parse)(const char *s, int *v); /* c: the choice, its name and its values */
  const char *(*name)(int v);
  const char *names;
} field;
#define F(st, key, type, member)                                                                   \
  { key, type, offsetof(st, member), NULL, NULL, NULL }
#define C(st, key, member, c, names)                                                               \
  { key, 'c', offsetof(st, member), c##_of, c##_nm, names }
#define OWN(key)                                                                                   \
  { key, '-', 0, NULL, NULL, NULL }

/* JSON numbers are doubles: an integer is exact up to 2^53. */
static bool whole(const cJSON *v, double lo, double hi) {
  return cJSON_IsNumber(v) && v->valuedouble >= lo && v->valuedouble <= hi &&
         v->valuedouble == (double)(int64_t)v->valuedouble;
}

static cgm_status set(const field *k, const cJSON *v, void *p, cgm_error *err) {
  int i;
  if (k->type == 's' && cJSON_IsString(v))
    *(const char **)p = v->valuestring;
  else if (k->type == 'b' && cJSON_IsBool(v))
    *(bool *)p = cJSON_IsTrue(v);
  else if (k->type == 'r' && cJSON_IsNumber(v))
    *(double *)p = v->valuedouble;
  else if (k->type == 'i' && whole(v, INT_MIN, INT_MAX))
    *(int *)p = (int)v->valuedouble;
  else if (k->type == 'l' && whole(v, -9007199254740992.0, 9007199254740992.0))
    *(int64_t *)p = (int64_t)v->valuedouble;
  else if (k->type == 'c' && cJSON_IsString(v) && k->parse(v->valuestring, &i))
    memcpy(p, &i, sizeof i);
  else if (k->type == 'c' && cJSON_IsString(v))
    return cgm_fail(err, CGM_EINPUT, "%s: '%s' is not %s", k->key, v->valuestring, k->names);
  else
    return cgm_fail(err, CGM_EINPUT, "options: '%s' is not %s", k->key,
                    k->type == 'b'                     ? "a boolean"
                    : k->type == 'r'                   ? "a number"
                    : k->type == 'i' || k->type == 'l' ? "an integer"
                                                       : "a string");
  return CGM_OK;
}

static const cJSON *get(const cJSON *req, const char *key) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(req, key);
  return v && !cJSON_IsNull(v) ? v : NULL;
}

/* A key of the command's own, typed as a field: *p unchanged when absent. */
static cgm_status get_as(const cJSON *req, const char *key, char type, void *p, cgm_error *err) {
  const field k = {key, type, 0, NULL, NULL, NULL};
  return get(req, key) ? set(&k, get(req, key), p, err) : CGM_OK;
}

/* Every key of req a field of `f`, each stored into base. */
static cgm_status apply(const cJSON *req, const field *f, void *base, cgm_error *err) {
  if (!cJSON_IsObject(req)) return cgm_fail(err, CGM_EINPUT, "options: not a JSON object");
  for (const cJSON *it = req->child; it; it = it->next) {
    const field *k = f;
    while (k->key && strcmp(k->key, it->string)) k++;
    if (!k->key) return cgm_fail(err, CGM_EINPUT, "options: unknown key '%s'", it->string);
    cgm_status st =
        k->type == '-' || cJSON_IsNull(it) ? CGM_OK : set(k, it, (char *)base + k->off, err);
    if (st) return st;
  }
  return CGM_OK;
}

/* The fields of f in base as a request, but those named in skip and the strings not set. */
static cJSON *fields_json(const field *f, const void *base, const char *const *skip) {
  cJSON *j = cJSON_CreateObject();
  for (; f->key; f++) {
    const char *p = (const char *)base + f->off;
    int i = 0, k = 0;
    while (skip[k] && strcmp(skip[k], f->key)) k++;
    if (f->type == 'c' || f->type == 'i') memcpy(&i, p, sizeof i);
    if (skip[k] || f->type == '-' || (f->type == 's' && !*(const char *const *)p)) continue;
    if (f->type == 's' || f->type == 'c')
      json_add_string(j, f->key, f->type == 's' ? *(const char *const *)p : f->name(i));
    else if (f->type == 'b')
      cJSON_AddBoolToObject(j, f->key, *(const bool *)p);
    else
      cJSON_AddNumberToObject(j, f->key,
                              f->type == 'i'   ? i
                              : f->type == 'l' ? (double)*(const int64_t *)p
                                               : *(const double *)p);
  }
  return j;
}

bool cgm_precisions_parse(const char *s, bool mixed, unsigned *out) {
  const unsigned both = (1u << CGM_PREC_SINGLE) | (1u << CGM_PREC_DOUBLE);
  cgm_item it[CGM_NPRECISIONS];
  char why[8], name[16];
  const int n = strcmp(s, "both") ? cgm_parse_list(s, it, CGM_NPRECISIONS, why, sizeof why) : 0;
  unsigned set = strcmp(s, "both") ? 0 : both | (mixed ? 1u << CGM_PREC_MIXED : 0u);
  for (int k = 0; k < n; k++) {
    cgm_precision p;
    snprintf(name, sizeof name, "%.*s", (int)(it[k].n < 15 ? it[k].n : 15), it[k].s);
    if (it[k].n >= sizeof name || !cgm_precision_parse(name, &p) ||
        (p == CGM_PREC_MIXED && !mixed) || (set & (1u << p)))
      return false;
    set |= 1u << p;
  }
  *out = set ? set : *out;
  return set != 0;
}

#define S(key, type, member) F(cgm_run_solve_opts, key, type, member)
#define SC(key, member, c, names) C(cgm_run_solve_opts, key, member, c, names)
/* clang-format off */
static const field solve_fields[] = {
    SC("backend", solve.backend, backend, "cpu, cuda or cusparse"),
    SC("precision", solve.precision, precision, "double, mixed or single"),
    SC("storage", solve.storage, storage, "auto, full or compact"),
    S("block", 'i', solve.layout.n), S("bx", 'i', solve.layout.bx), S("gpus", 'i', solve.gpus),
    SC("exchange", solve.exchange, exchange, "halo, p2p, host or nccl"), S("tol", 'r', solve.tol),
    S("atol", 'r', solve.atol), S("maxiter", 'i', solve.maxiter),
    S("check_every", 'i', solve.check_every), S("threads", 'i', solve.threads),
    SC("precond", solve.precond, precond, "jacobi or block"),
    S("precond_block", 'i', solve.precond_block),
    SC("reorder", solve.reorder, reorder, "auto, none or rcm"), S("rhs", 's', rhs),
    S("x0", 's', x0_path), S("record", 'b', record), S("mpi", 'b', mpi),
    SC("partition", dist.partition, dist_partition, "rows or metis"), S("db", 's', db_path),
    S("name", 's', matrix), S("auto", 'b', autotune), S("iters_hint", 'r', iters_hint),
    S("monitor", 'i', solve.monitor_every), S("cache_dir", 's', cache.dir),
    S("cache_max", 'l', cache.max_bytes), OWN("no_cache"), {0}};
/* clang-format on */

/* monitor K: the report keeps the history (the caller may print it). */
static void monitor_none(void *ctx, int iteration, double relres) {}

/* auto chooses the layout: a layout key beside it is refused, with its value. */
static cgm_status auto_layout(const cJSON *req, cgm_error *err) {
  static const char *const layout[] = {"block", "bx", "gpus", "exchange"};
  for (int k = 0; k < 4; k++) {
    const cJSON *v = get(req, layout[k]);
    char val[64];
    if (!v) continue;
    if (cJSON_IsString(v))
      snprintf(val, sizeof val, "%s", v->valuestring);
    else
      snprintf(val, sizeof val, "%g", v->valuedouble);
    return cgm_fail(err, CGM_EINPUT,
                    "auto chooses the block size, B_x, GPUs and exchange: drop %s=%s", layout[k],
                    val);
  }
  return CGM_OK;
}

cgm_status cgm_solve_request(const cJSON *req, cgm_run_solve_opts *o, cgm_error *err) {
  memset(o, 0, sizeof *o);
  o->matrix = "matrix";
  o->record = true;
  o->solve = cgm_solve_opts_default();
  o->solve.backend = cgm_have_cuda_build() ? CGM_BACKEND_CUDA : CGM_BACKEND_CPU;
  o->solve.reorder = CGM_REORDER_AUTO;
  o->dist = cgm_dist_opts_default();
  o->cache.max_bytes = CGM_CACHE_DEFAULT_MAX_BYTES;
  bool no_cache = false;
  cgm_status st = apply(req, solve_fields, o, err);
  if (!st) st = get_as(req, "no_cache", 'b', &no_cache, err);
  if (!st && o->autotune) st = auto_layout(req, err);
  if (st) return st;
  if (o->dist.partition == CGM_DIST_METIS && !cgm_have_metis_build())
    return cgm_fail(err, CGM_EINPUT,
                    "partition metis: this build of cgmodel has no METIS (Debian: libmetis-dev)");
  if (o->solve.monitor_every < 0)
    return cgm_fail(err, CGM_EINPUT, "monitor %d: an interval of iterations, >= 1 (0: none)",
                    o->solve.monitor_every);
  if (o->solve.monitor_every > 0) o->solve.monitor = monitor_none;
  if (no_cache) o->cache.dir = NULL;
  o->constraints.backend_given = get(req, "backend") != NULL;
  o->constraints.backend = o->solve.backend;
  o->constraints.precision_given = get(req, "precision") != NULL;
  o->constraints.precision = o->solve.precision;
  /* no backend given: CUDA where a GPU is present (cgm_run_solve finds it) */
  o->backend_default = !o->constraints.backend_given && cgm_have_cuda_build();
  return CGM_OK;
}

cJSON *cgm_solve_request_json(const cgm_run_solve_opts *o, const cgm_solve_report *r) {
  static const char *const skip[] = {"partition",  "mpi",     "db",        "name",      "auto",
                                     "iters_hint", "monitor", "cache_dir", "cache_max", NULL};
  cgm_run_solve_opts ran = *o;
  ran.solve = r->opts; /* settled: the defaults filled in, auto's choice and reorder resolved */
  ran.solve.precond_block = r->opts.precond == CGM_PRECOND_BLOCK ? r->result.precond_block : 0;
  return fields_json(solve_fields, &ran, o->mpi ? skip + 2 : skip);
}

#define P(key, type, member) F(cgm_predict_opts, key, type, member)
/* clang-format off */
static const field predict_fields[] = {
    P("gpus", 'i', tuner.max_gpus), OWN("block"), OWN("precision"), P("tol", 'r', tuner.tol),
    P("iters_hint", 'r', iters_hint), OWN("model"), OWN("exchange"), OWN("devices"),
    P("cusparse", 'b', tuner.cusparse), P("name", 's', matrix), OWN("db"),
    P("cache_dir", 's', cache.dir), P("cache_max", 'l', cache.max_bytes), OWN("no_cache"),
    P("interconnect", 's', interconnect), {0}};
/* clang-format on */

/* block: 1, 2, 4, 8, or 0 or "auto" (every size). */
static cgm_status predict_block(const cJSON *v, int *block, cgm_error *err) {
  const bool all = v && cJSON_IsString(v) && !strcmp(v->valuestring, "auto");
  if (v && !all && !whole(v, 0, 8))
    return cgm_fail(err, CGM_EINPUT, "block: not 1, 2, 4, 8 or auto");
  if (v) *block = all ? 0 : (int)v->valuedouble;
  return *block ? cgm_block_check(*block, "block", err) : CGM_OK;
}

/* The words of predict: precision, model, exchange, devices. */
static cgm_status predict_words(const char *const w[4], cgm_predict_opts *o, cgm_error *err) {
  cgm_tuner_opts *t = &o->tuner;
  cgm_exchange e;
  if (w[0] && !cgm_precisions_parse(w[0], true, &t->precisions))
    return cgm_fail(err, CGM_EINPUT,
                    "precision: '%s' is not a list of double, single, mixed (or both)", w[0]);
  if (w[1] && !(t->paper = !strcmp(w[1], "paper")) && strcmp(w[1], "refined"))
    return cgm_fail(err, CGM_EINPUT, "model: '%s' is not refined or paper", w[1]);
  if (w[2] && strcmp(w[2], "all") && !cgm_exchange_parse(w[2], &e))
    return cgm_fail(err, CGM_EINPUT, "exchange: '%s' is not halo, p2p, host, nccl or all", w[2]);
  if (w[2]) t->exchanges = strcmp(w[2], "all") ? 1u << e : (1u << CGM_NEXCHANGES) - 1;
  if (w[3] && strcmp(w[3], "cpu") && strcmp(w[3], "cuda") && strcmp(w[3], "all"))
    return cgm_fail(err, CGM_EINPUT, "devices: '%s' is not cpu, cuda or all", w[3]);
  o->kind = w[3] && strcmp(w[3], "all") ? w[3] : NULL;
  return CGM_OK;
}

cgm_status cgm_predict_request(const cJSON *req, cgm_predict_opts *o, const char **db_path,
                               cgm_error *err) {
  memset(o, 0, sizeof *o);
  o->tuner = cgm_tuner_opts_default();
  o->tuner.precisions = (1u << CGM_NPRECISIONS) - 1; /* every precision, as solve --auto */
  o->gpu = cgm_gpu_opts_default();
  o->matrix = "matrix";
  o->cache.max_bytes = CGM_CACHE_DEFAULT_MAX_BYTES;
  *db_path = NULL;
  const char *w[4] = {NULL, NULL, NULL, NULL};
  static const char *const words[4] = {"precision", "model", "exchange", "devices"};
  bool no_cache = false;
  cgm_status st = apply(req, predict_fields, o, err);
  if (!st) st = get_as(req, "db", 's', db_path, err);
  if (!st) st = get_as(req, "no_cache", 'b', &no_cache, err);
  for (int k = 0; k < 4 && !st; k++) st = get_as(req, words[k], 's', &w[k], err);
  if (!st) st = predict_block(get(req, "block"), &o->tuner.block, err);
  if (!st) st = predict_words(w, o, err);
  if (!st && (o->tuner.max_gpus < 0 || o->tuner.max_gpus > CGM_MAX_GPUS))
    st = cgm_fail(err, CGM_EINPUT, "gpus %d: not in 1..%d (0: every GPU)", o->tuner.max_gpus,
                  CGM_MAX_GPUS);
  /* the tolerance as a solve's (the same check, the same message) */
  cgm_solve_opts s = cgm_solve_opts_default();
  s.tol = o->tuner.tol;
  if (!st) st = cgm_solve_opts_settle(&s, NULL, err);
  if (no_cache) o->cache.dir = NULL;
  return st;
}

cJSON *cgm_predict_request_json(const cgm_predict_opts *o) {
  static const char *const skip[] = {"iters_hint", "name", "cache_dir", "cache_max", NULL};
  const cgm_tuner_opts *t = &o->tuner;
  cgm_predict_opts ran = *o;
  ran.tuner.tol = t->tol > 0 ? t->tol : CGM_DEFAULT_TOL;
  cJSON *j = fields_json(predict_fields, &ran, o->iters_hint > 0 ? skip + 1 : skip);
  char list[64] = "";
  for (int p = 0; p < CGM_NPRECISIONS; p++)
    if (t->precisions & (1u << p))
      snprintf(list + strlen(list), sizeof list - strlen(list), ",%s", cgm_precision_name(p));
  const char *exchange = "all";
  for (int e = 0; e < CGM_NEXCHANGES; e++)
    if (t->exchanges == 1u << e) exchange = cgm_exchange_name(e);
  if (t->block)
    cJSON_AddNumberToObject(j, "block", t->block);
  else
    json_add_string(j, "block", "auto");
  const char *const words[][2] = {{"precision", list + 1},
                                  {"model", t->paper ? "paper" : "refined"},
                                  {"exchange", exchange},
                                  {"devices", o->kind ? o->kind : "all"}};
  for (int k = 0; k < 4; k++) json_add_string(j, words[k][0], words[k][1]);
  return j;
}

/* clang-format off */
static const field calibrate_fields[] = {
    F(cgm_calibrate_opts, "quick", 'b', quick), F(cgm_calibrate_opts, "threads", 'i', threads),
    F(cgm_calibrate_opts, "strict", 'b', strict), OWN("db"), OWN("devices"), OWN("precision"), {0}};
/* clang-format on */

cgm_status cgm_calibrate_request(const cJSON *req, cgm_calibrate_opts *o, const char **db_path,
                                 cgm_error *err) {
  memset(o, 0, sizeof *o);
  o->precisions = (1u << CGM_PREC_DOUBLE) | (1u << CGM_PREC_SINGLE);
  o->gpu = cgm_gpu_opts_default();
  *db_path = NULL;
  const char *devices = cgm_cuda_device_count() > 0 ? "cpu,cuda:all" : "cpu", *precision = NULL;
  cgm_status st = apply(req, calibrate_fields, o, err);
  if (!st) st = get_as(req, "db", 's', db_path, err);
  if (!st) st = get_as(req, "devices", 's', &devices, err);
  if (!st) st = get_as(req, "precision", 's', &precision, err);
  if (st) return st;
  if (strlen(devices) >= sizeof o->devices) /* never cut: the rest would be dropped */
    return cgm_fail(err, CGM_EINPUT, "devices: the list is longer than %zu characters",
                    sizeof o->devices - 1);
  snprintf(o->devices, sizeof o->devices, "%s", devices);
  if (precision && !cgm_precisions_parse(precision, false, &o->precisions))
    return cgm_fail(err, CGM_EINPUT, "precision: '%s' is not single, double or both", precision);
  if (o->threads < 0 || o->threads > CGM_THREADS_MAX)
    return cgm_fail(err, CGM_EINPUT, "threads %d: not in 1..%d (0: OpenMP's default)", o->threads,
                    CGM_THREADS_MAX);
  return CGM_OK;
}
