/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Requests into option structs (request.h): each command's keys as a table
 * of fields, every value converted by its field's type in one pass over the
 * request; the keys a table leaves to its command ('-') follow it. */
#include "pipeline/request.h"

#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "common/parse.h"
#include "pipeline/json.h"

/* An enum set through an int (the choices' parsers, as fields take them). */
_Static_assert(sizeof(cgm_backend) == sizeof(int) && sizeof(cgm_precision) == sizeof(int) &&
                   sizeof(cgm_exchange) == sizeof(int) && sizeof(cgm_reorder) == sizeof(int) &&
                   sizeof(cgm_precond) == sizeof(int) && sizeof(cgm_dist_partition) == sizeof(int),
               "a choice is stored as an int");
#define CHOICE(name, type)                                                                         \
  static bool name##_of(const char *s, int *v) {                                                   \
    type x;                                                                                        \
    if (!cgm_##name##_parse(s, &x)) return false;                                                  \
    *v = (int)x;                                                                                   \
    return true;                                                                                   \
  }
CHOICE(backend, cgm_backend)
CHOICE(precision, cgm_precision)
CHOICE(exchange, cgm_exchange)
CHOICE(reorder, cgm_reorder)
CHOICE(precond, cgm_precond)
CHOICE(dist_partition, cgm_dist_partition)

/* One key: its type (s string, b boolean, i int, l a 64-bit integer, r a
 * number, c a choice, - read by the command's own code) and where it goes. */
typedef struct field {
  const char *key;
  char type;
  size_t off;
  bool (*choice)(const char *s, int *v);
  const char *names; /* a choice's values, for the message */
} field;
#define F(st, key, type, member)                                                                   \
  { key, type, offsetof(st, member), NULL, NULL }
#define C(st, key, member, parse, names)                                                           \
  { key, 'c', offsetof(st, member), parse, names }
#define OWN(key)                                                                                   \
  { key, '-', 0, NULL, NULL }

/* JSON numbers are doubles: an integer is exact up to 2^53. */
#define WHOLE_MAX 9007199254740992.0

static bool whole(const cJSON *v, double lo, double hi) {
  return cJSON_IsNumber(v) && v->valuedouble >= lo && v->valuedouble <= hi &&
         v->valuedouble == (double)(int64_t)v->valuedouble;
}

static cgm_status set(const field *k, const cJSON *v, void *p, cgm_error *err) {
  int i;
  const char *type = k->type == 'b'                     ? "a boolean"
                     : k->type == 'r'                   ? "a number"
                     : k->type == 'i' || k->type == 'l' ? "an integer"
                                                        : "a string";
  if (k->type == 's' && cJSON_IsString(v))
    *(const char **)p = v->valuestring;
  else if (k->type == 'b' && cJSON_IsBool(v))
    *(bool *)p = cJSON_IsTrue(v);
  else if (k->type == 'r' && cJSON_IsNumber(v))
    *(double *)p = v->valuedouble;
  else if (k->type == 'i' && whole(v, INT_MIN, INT_MAX))
    *(int *)p = (int)v->valuedouble;
  else if (k->type == 'l' && whole(v, -WHOLE_MAX, WHOLE_MAX))
    *(int64_t *)p = (int64_t)v->valuedouble;
  else if (k->type == 'c' && cJSON_IsString(v)) {
    if (!k->choice(v->valuestring, &i))
      return cgm_fail(err, CGM_EINPUT, "%s: '%s' is not %s", k->key, v->valuestring, k->names);
    memcpy(p, &i, sizeof i);
  } else
    return cgm_fail(err, CGM_EINPUT, "options: '%s' is not %s", k->key, type);
  return CGM_OK;
}

static const cJSON *get(const cJSON *req, const char *key) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(req, key);
  return v && !cJSON_IsNull(v) ? v : NULL;
}

/* A key of the command's own, typed as a field: *p unchanged when absent. */
static cgm_status get_as(const cJSON *req, const char *key, char type, void *p, cgm_error *err) {
  const cJSON *v = get(req, key);
  const field k = {key, type, 0, NULL, NULL};
  return v ? set(&k, v, p, err) : CGM_OK;
}

/* Every key of req a field of `f`, each stored into base. */
static cgm_status apply(const cJSON *req, const field *f, void *base, cgm_error *err) {
  if (!cJSON_IsObject(req)) return cgm_fail(err, CGM_EINPUT, "options: not a JSON object");
  for (const cJSON *it = req->child; it; it = it->next) {
    const field *k = f;
    while (k->key && strcmp(k->key, it->string)) k++;
    if (!k->key) return cgm_fail(err, CGM_EINPUT, "options: unknown key '%s'", it->string);
    if (k->type == '-' || cJSON_IsNull(it)) continue;
    cgm_status st = set(k, it, (char *)base + k->off, err);
    if (st) return st;
  }
  return CGM_OK;
}

cgm_status cgm_request_parse(const char *text, cJSON **out, cgm_error *err) {
  *out = cJSON_Parse(text && *text ? text : "{}");
  if (*out && cJSON_IsObject(*out)) return CGM_OK;
  cJSON_Delete(*out);
  *out = NULL;
  return cgm_fail(err, CGM_EINPUT, "options: not a JSON object");
}

cgm_status cgm_request_keys(const cJSON *req, const char *const *known, cgm_error *err) {
  for (const cJSON *it = req->child; it; it = it->next) {
    int k = 0;
    while (known[k] && strcmp(known[k], it->string)) k++;
    if (!known[k]) return cgm_fail(err, CGM_EINPUT, "options: unknown key '%s'", it->string);
  }
  return CGM_OK;
}

bool cgm_precisions_parse(const char *s, bool mixed, unsigned *out) {
  if (!strcmp(s, "both")) {
    *out = (1u << CGM_PREC_SINGLE) | (1u << CGM_PREC_DOUBLE) | (mixed ? 1u << CGM_PREC_MIXED : 0u);
    return true;
  }
  cgm_item it[CGM_NPRECISIONS];
  char why[8], name[16];
  const int n = cgm_parse_list(s, it, CGM_NPRECISIONS, why, sizeof why);
  unsigned set = 0;
  for (int k = 0; k < n; k++) {
    cgm_precision p;
    if (it[k].n >= sizeof name) return false;
    memcpy(name, it[k].s, it[k].n);
    name[it[k].n] = '\0';
    if (!cgm_precision_parse(name, &p) || (p == CGM_PREC_MIXED && !mixed) || (set & (1u << p)))
      return false;
    set |= 1u << p;
  }
  *out = set;
  return n > 0;
}

/* ------------------------------------------------------------ solve --- */

#define S(key, type, member) F(cgm_run_solve_opts, key, type, member)
#define SC(key, member, parse, names) C(cgm_run_solve_opts, key, member, parse, names)
static const field solve_fields[] = {
    S("db", 's', db_path),
    S("name", 's', matrix),
    S("record", 'b', record),
    S("auto", 'b', autotune),
    SC("backend", solve.backend, backend_of, "cpu, cuda or cusparse"),
    SC("precision", solve.precision, precision_of, "double, mixed or single"),
    S("block", 'i', solve.layout.n),
    S("bx", 'i', solve.layout.bx),
    S("gpus", 'i', solve.gpus),
    SC("exchange", solve.exchange, exchange_of, "halo, p2p, host or nccl"),
    S("tol", 'r', solve.tol),
    S("atol", 'r', solve.atol),
    S("maxiter", 'i', solve.maxiter),
    S("check_every", 'i', solve.check_every),
    S("threads", 'i', solve.threads),
    SC("precond", solve.precond, precond_of, "jacobi or block"),
    S("precond_block", 'i', solve.precond_block),
    SC("reorder", solve.reorder, reorder_of, "auto, none or rcm"),
    S("iters_hint", 'r', iters_hint),
    S("rhs", 's', rhs),
    S("x0", 's', x0_path),
    S("mpi", 'b', mpi),
    SC("partition", dist.partition, dist_partition_of, "rows or metis"),
    S("monitor", 'i', solve.monitor_every),
    S("cache_dir", 's', cache.dir),
    S("cache_max", 'l', cache.max_bytes),
    OWN("no_cache"),
    {NULL, 0, 0, NULL, NULL},
};

/* monitor K: the report keeps the history (the caller may print it). */
static void monitor_none(void *ctx, int iteration, double relres) {
  (void)ctx, (void)iteration, (void)relres;
}

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
  const cgm_solve_opts *s = &r->opts;
  cJSON *j = cJSON_CreateObject();
  json_add_string(j, "backend", cgm_backend_name(s->backend));
  json_add_string(j, "precision", cgm_precision_name(s->precision));
  cJSON_AddNumberToObject(j, "block", s->layout.n);
  cJSON_AddNumberToObject(j, "bx", s->layout.bx);
  cJSON_AddNumberToObject(j, "gpus", s->gpus);
  json_add_string(j, "exchange", cgm_exchange_name(s->exchange));
  cJSON_AddNumberToObject(j, "tol", s->tol);
  cJSON_AddNumberToObject(j, "atol", s->atol);
  cJSON_AddNumberToObject(j, "maxiter", r->maxiter);
  cJSON_AddNumberToObject(j, "check_every", s->check_every);
  cJSON_AddNumberToObject(j, "threads", s->threads);
  json_add_string(j, "precond", cgm_precond_name(s->precond));
  cJSON_AddNumberToObject(j, "precond_block",
                          s->precond == CGM_PRECOND_BLOCK ? r->result.precond_block : 0);
  json_add_string(j, "reorder", cgm_reorder_name(s->reorder)); /* auto resolved */
  cJSON_AddBoolToObject(j, "record", o->record);
  if (o->rhs) json_add_string(j, "rhs", o->rhs);
  if (o->x0_path) json_add_string(j, "x0", o->x0_path);
  if (o->mpi) {
    cJSON_AddTrueToObject(j, "mpi");
    json_add_string(j, "partition", cgm_dist_partition_name(o->dist.partition));
  }
  return j;
}

/* ---------------------------------------------------------- predict --- */

#define P(key, type, member) F(cgm_predict_opts, key, type, member)
static const field predict_fields[] = {
    P("name", 's', matrix),
    P("gpus", 'i', tuner.max_gpus),
    P("tol", 'r', tuner.tol),
    P("iters_hint", 'r', iters_hint),
    P("cusparse", 'b', tuner.cusparse),
    P("cache_dir", 's', cache.dir),
    P("cache_max", 'l', cache.max_bytes),
    OWN("db"),
    OWN("block"),
    OWN("precision"),
    OWN("model"),
    OWN("exchange"),
    OWN("devices"),
    OWN("no_cache"),
    {NULL, 0, 0, NULL, NULL},
};

/* block: 1, 2, 4, 8, or 0 or "auto" (every size). */
static cgm_status predict_block(const cJSON *v, int *block, cgm_error *err) {
  if (!v) return CGM_OK;
  if (cJSON_IsString(v) && !strcmp(v->valuestring, "auto")) {
    *block = 0;
    return CGM_OK;
  }
  if (!whole(v, 0, 8)) return cgm_fail(err, CGM_EINPUT, "block: not 1, 2, 4, 8 or auto");
  *block = (int)v->valuedouble;
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
  if (w[2] && !strcmp(w[2], "all"))
    t->exchanges = (1u << CGM_NEXCHANGES) - 1;
  else if (w[2] && cgm_exchange_parse(w[2], &e))
    t->exchanges = 1u << e;
  else if (w[2])
    return cgm_fail(err, CGM_EINPUT, "exchange: '%s' is not halo, p2p, host, nccl or all", w[2]);
  if (w[3] && (!strcmp(w[3], "cpu") || !strcmp(w[3], "cuda")))
    o->kind = w[3];
  else if (w[3] && strcmp(w[3], "all"))
    return cgm_fail(err, CGM_EINPUT, "devices: '%s' is not cpu, cuda or all", w[3]);
  return CGM_OK;
}

cgm_status cgm_predict_request(const cJSON *req, cgm_predict_opts *o, const char **db_path,
                               cgm_error *err) {
  memset(o, 0, sizeof *o);
  o->tuner = cgm_tuner_opts_default();
  /* every precision, as solve --auto */
  o->tuner.precisions = (1u << CGM_NPRECISIONS) - 1;
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
  if (st) return st;
  if (o->tuner.max_gpus < 0 || o->tuner.max_gpus > CGM_MAX_GPUS)
    return cgm_fail(err, CGM_EINPUT, "gpus %d: not in 1..%d (0: every GPU)", o->tuner.max_gpus,
                    CGM_MAX_GPUS);
  /* the tolerance as a solve's (the same check, the same message) */
  cgm_solve_opts s = cgm_solve_opts_default();
  s.tol = o->tuner.tol;
  if ((st = cgm_solve_opts_settle(&s, NULL, err))) return st;
  if (no_cache) o->cache.dir = NULL;
  return CGM_OK;
}

cJSON *cgm_predict_request_json(const cgm_predict_opts *o) {
  const cgm_tuner_opts *t = &o->tuner;
  cJSON *j = cJSON_CreateObject();
  char list[64] = "";
  for (int p = 0; p < CGM_NPRECISIONS; p++)
    if (t->precisions & (1u << p)) {
      const size_t n = strlen(list);
      snprintf(list + n, sizeof list - n, "%s%s", n ? "," : "", cgm_precision_name(p));
    }
  const char *exchange = "all";
  for (int e = 0; e < CGM_NEXCHANGES; e++)
    if (t->exchanges == 1u << e) exchange = cgm_exchange_name(e);
  cJSON_AddNumberToObject(j, "gpus", t->max_gpus);
  if (t->block)
    cJSON_AddNumberToObject(j, "block", t->block);
  else
    json_add_string(j, "block", "auto");
  json_add_string(j, "precision", list);
  cJSON_AddNumberToObject(j, "tol", t->tol > 0 ? t->tol : CGM_DEFAULT_TOL);
  if (o->iters_hint > 0) cJSON_AddNumberToObject(j, "iters_hint", o->iters_hint);
  json_add_string(j, "model", t->paper ? "paper" : "refined");
  json_add_string(j, "exchange", exchange);
  json_add_string(j, "devices", o->kind ? o->kind : "all");
  cJSON_AddBoolToObject(j, "cusparse", t->cusparse);
  return j;
}

/* -------------------------------------------------------- calibrate --- */

static const field calibrate_fields[] = {
    F(cgm_calibrate_opts, "quick", 'b', quick),
    F(cgm_calibrate_opts, "threads", 'i', threads),
    OWN("db"),
    OWN("devices"),
    OWN("precision"),
    {NULL, 0, 0, NULL, NULL},
};

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
