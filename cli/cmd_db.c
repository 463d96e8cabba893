/* cgmodel db list|show ID|export ID -o FILE|solves|refit ID: what the database holds. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cgmodel/pipeline.h"
#include "cli/args.h"
#include "cli/commands.h"
#include "cli/dbopen.h"
#include "cli/output.h"

static const char help[] =
    "usage: cgmodel db list [--db FILE] [--json]\n"
    "       cgmodel db show ID [--db FILE] [--json]\n"
    "       cgmodel db export ID -o FILE.json [--db FILE]\n"
    "       cgmodel db solves [--db FILE] [--json]\n"
    "       cgmodel db refit ID [--db FILE]\n"
    "refit: fits a calibration anew from its stored samples (after an upgrade\n"
    "of cgmodel's fits), replacing its fits; nothing is measured again.\n";

static cJSON *device_json(const cgm_db_device *d) {
  cJSON *o = cJSON_CreateObject();
  cJSON_AddNumberToObject(o, "id", (double)d->id);
  cJSON_AddStringToObject(o, "kind", d->kind);
  cJSON_AddStringToObject(o, "model", d->model);
  cJSON_AddStringToObject(o, "host", d->host);
  if (!strcmp(d->kind, "cuda")) {
    char cc[16];
    snprintf(cc, sizeof cc, "%d.%d", d->cc_major, d->cc_minor);
    cJSON_AddStringToObject(o, "compute_capability", cc);
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

static cJSON *calibration_json(const cgm_db_calibration *c) {
  cJSON *o = cJSON_CreateObject();
  cJSON_AddNumberToObject(o, "id", (double)c->id);
  cJSON_AddStringToObject(o, "created", c->created);
  cJSON_AddStringToObject(o, "tool_version", c->tool_version);
  cJSON *opt = cJSON_Parse(c->options);
  if (opt) cJSON_AddItemToObject(o, "options", opt);
  cJSON_AddNumberToObject(o, "seconds", c->seconds);
  cJSON_AddBoolToObject(o, "complete", c->complete);
  return o;
}

typedef struct {
  cJSON *arr;
  int json;
} list_ctx;

static int list_one(const cgm_db_calibration *c, const cgm_db_device *d, void *ctx) {
  list_ctx *L = ctx;
  if (L->json) {
    cJSON *o = calibration_json(c);
    cJSON_AddItemToObject(o, "device", device_json(d));
    cJSON_AddItemToArray(L->arr, o);
  } else {
    printf("%4lld  %-20s  %-5s %-44.44s %7.1f s%s\n", (long long)c->id, c->created, d->kind,
           d->model, c->seconds, c->complete ? "" : "  (incomplete)");
  }
  return 0;
}

static int fit_json(const cgm_db_fit *f, void *ctx) {
  cJSON *o = cJSON_CreateObject();
  cJSON_AddStringToObject(o, "kernel", f->kernel);
  cJSON_AddStringToObject(o, "variant", f->variant);
  cJSON_AddStringToObject(o, "precision", cgm_precision_name((cgm_precision)f->precision));
  cJSON_AddNumberToObject(o, "block", f->block);
  cJSON_AddStringToObject(o, "kind", cgm_fit_kind_name(f->kind));
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
  if (f->message[0]) cJSON_AddStringToObject(o, "message", f->message);
  cJSON_AddItemToArray((cJSON *)ctx, o);
  return 0;
}

static int fit_print(const cgm_db_fit *f, void *ctx) {
  (void)ctx;
  printf("  %-8s %-9s %-6s %2d %-6s  mu %6.2f  sigma %5.2f  nu %8.2f GB/s  R^2 %6.4f  n %3d%s\n",
         f->kernel, f->variant, cgm_precision_name((cgm_precision)f->precision), f->block,
         cgm_fit_kind_name(f->kind), f->mu, f->sigma, f->nu, f->r2, f->n,
         f->converged ? "" : "  NOT CONVERGED");
  return 0;
}

static int sample_json(const cgm_db_sample *s, void *ctx) {
  cJSON *o = cJSON_CreateObject();
  cJSON_AddStringToObject(o, "kernel", s->kernel);
  cJSON_AddStringToObject(o, "variant", s->variant);
  cJSON_AddStringToObject(o, "precision", cgm_precision_name((cgm_precision)s->precision));
  cJSON_AddNumberToObject(o, "block", s->block);
  cJSON_AddNumberToObject(o, "m", s->m);
  cJSON_AddNumberToObject(o, "bytes", s->bytes);
  cJSON_AddNumberToObject(o, "seconds", s->seconds);
  cJSON_AddNumberToObject(o, "gbps", cgm_sample_gbps(s));
  if (s->source[0]) cJSON_AddStringToObject(o, "source", s->source);
  cJSON_AddItemToArray((cJSON *)ctx, o);
  return 0;
}

/* The whole calibration as one JSON object (show --json, export). */
static int calibration_full(cgm_db *db, int64_t id, bool samples, cJSON **out) {
  cgm_error err = {0};
  cgm_db_calibration c;
  cgm_db_device d;
  if (cgm_db_calibration_get(db, id, &c, &err) || cgm_db_device_get(db, c.device_id, &d, &err))
    return cli_report("db", &err);
  cJSON *o = calibration_json(&c);
  cJSON_AddItemToObject(o, "device", device_json(&d));
  cJSON *fits = cJSON_AddArrayToObject(o, "fits");
  if (cgm_db_fits(db, id, fit_json, fits, &err)) {
    cJSON_Delete(o);
    return cli_report("db", &err);
  }
  if (samples) {
    cJSON *sm = cJSON_AddArrayToObject(o, "samples");
    if (cgm_db_samples(db, id, sample_json, sm, &err)) {
      cJSON_Delete(o);
      return cli_report("db", &err);
    }
  }
  *out = o;
  return 0;
}

static int solve_print(const cgm_db_solve *s, void *ctx) {
  cJSON *arr = ctx;
  if (arr) {
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "id", (double)s->id);
    cJSON_AddNumberToObject(o, "matrix_id", (double)s->matrix_id);
    cJSON_AddStringToObject(o, "created", s->created);
    cJSON_AddStringToObject(o, "backend", s->backend);
    cJSON_AddStringToObject(o, "precision", s->precision);
    cJSON_AddNumberToObject(o, "block", s->block);
    cJSON_AddNumberToObject(o, "gpus", s->gpus);
    cJSON_AddNumberToObject(o, "iterations", s->iterations);
    cJSON_AddBoolToObject(o, "converged", s->converged);
    cJSON_AddNumberToObject(o, "time_per_iter_s", s->time_per_iter_s);
    if (isfinite(s->predicted_time_per_iter_s))
      cJSON_AddNumberToObject(o, "predicted_time_per_iter_s", s->predicted_time_per_iter_s);
    cJSON_AddItemToArray(arr, o);
  } else {
    printf("%5lld  %-20s  matrix %-4lld %-8s %-6s N=%d G=%d  %9.2f us/it measured",
           (long long)s->id, s->created, (long long)s->matrix_id, s->backend, s->precision,
           s->block, s->gpus, 1e6 * s->time_per_iter_s);
    if (isfinite(s->predicted_time_per_iter_s))
      printf("  %9.2f predicted (%+.1f%%)", 1e6 * s->predicted_time_per_iter_s,
             100 * (s->predicted_time_per_iter_s / s->time_per_iter_s - 1));
    printf("\n");
  }
  return 0;
}

int cmd_db(int argc, char **argv) {
  cli_args a;
  cli_args_init(&a, argc - 1, argv + 1);
  const char *db_path = NULL, *out = NULL;
  int json = 0;
  while (cli_next(&a)) {
    if (cli_flag(&a, "--help") || cli_flag(&a, "-h")) {
      fputs(help, stdout);
      return 0;
    } else if (cli_flag(&a, "--json"))
      json = 1;
    else if (cli_opt(&a, "--db"))
      db_path = a.value;
    else if (cli_opt(&a, "-o"))
      out = a.value;
    else
      cli_unknown(&a);
  }
  if (cli_failed(&a)) return cli_error("db", 2, "%s", a.error);
  if (a.npositional < 1)
    return cli_error("db", 2, "expected list, show, export, solves or refit\n%s", help);
  const char *what = a.positional[0];
  int64_t id = 0;
  if (!strcmp(what, "show") || !strcmp(what, "export") || !strcmp(what, "refit")) {
    char *end;
    if (a.npositional != 2 || (id = strtoll(a.positional[1], &end, 10)) <= 0 || *end)
      return cli_error("db", 2, "db %s needs a calibration ID (see 'cgmodel db list')", what);
  } else if (a.npositional != 1) {
    return cli_error("db", 2, "unexpected argument '%s'", a.positional[1]);
  }
  if (!strcmp(what, "export") && !out) return cli_error("db", 2, "db export needs -o FILE.json");
  cgm_db *db;
  int rc = cli_db_open("db", db_path, false, &db);
  if (rc) return rc;
  cgm_error err = {0};
  if (!strcmp(what, "list")) {
    list_ctx L = {json ? cJSON_CreateArray() : NULL, json};
    if (!json)
      printf(
          "  ID  created (UTC)         kind  model                                         time\n");
    if (cgm_db_calibrations(db, list_one, &L, &err))
      rc = cli_report("db", &err);
    else if (json) {
      cJSON *o = cJSON_CreateObject();
      cJSON_AddItemToObject(o, "calibrations", L.arr);
      L.arr = NULL;
      rc = cli_print_json(o);
    }
    cJSON_Delete(L.arr);
  } else if (!strcmp(what, "show")) {
    if (json) {
      cJSON *o;
      rc = calibration_full(db, id, false, &o);
      if (!rc) rc = cli_print_json(o);
    } else {
      cgm_db_calibration c;
      cgm_db_device d;
      if (cgm_db_calibration_get(db, id, &c, &err) ||
          cgm_db_device_get(db, c.device_id, &d, &err)) {
        rc = cli_report("db", &err);
      } else {
        printf("calibration %lld, %s, cgmodel %s, %.1f s%s\n", (long long)c.id, c.created,
               c.tool_version, c.seconds, c.complete ? "" : " (incomplete)");
        printf("device      %s %s on %s\n", d.kind, d.model, d.host);
        printf("options     %s\n", c.options);
        printf("fits (Eq. 3: throughput in GB/s over log2 of the elements moved):\n");
        if (cgm_db_fits(db, id, fit_print, NULL, &err)) rc = cli_report("db", &err);
      }
    }
  } else if (!strcmp(what, "export")) {
    cJSON *o;
    rc = calibration_full(db, id, true, &o);
    if (!rc) {
      char *txt = cJSON_Print(o);
      cJSON_Delete(o);
      FILE *f = txt ? fopen(out, "w") : NULL;
      int ok = f && fputs(txt, f) >= 0 && fputc('\n', f) != EOF;
      if (f && fclose(f) != 0) ok = 0;
      cJSON_free(txt);
      if (!ok)
        rc = cli_error("db", 3, "cannot write %s", out);
      else
        fprintf(stderr, "cgmodel db: calibration %lld written to %s\n", (long long)id, out);
    }
  } else if (!strcmp(what, "refit")) {
    cgm_calibration_report rep;
    if (cgm_refit(db, id, &rep, &err)) {
      rc = cli_report("db", &err);
    } else {
      printf("calibration %lld: %s (%s), %d samples, %d fits (%d did not converge)\n",
             (long long)id, rep.cal[0].device, rep.cal[0].model, rep.cal[0].samples,
             rep.cal[0].fits, rep.cal[0].fits_failed);
      if (rep.cal[0].failed[0]) printf("  not converged: %s\n", rep.cal[0].failed);
    }
  } else if (!strcmp(what, "solves")) {
    cJSON *arr = json ? cJSON_CreateArray() : NULL;
    if (cgm_db_solves(db, solve_print, arr, &err)) {
      rc = cli_report("db", &err);
      cJSON_Delete(arr);
    } else if (json) {
      cJSON *o = cJSON_CreateObject();
      cJSON_AddItemToObject(o, "solves", arr);
      rc = cli_print_json(o);
    }
  } else {
    rc = cli_error("db", 2, "unknown db command '%s'\n%s", what, help);
  }
  cgm_db_close(db);
  return rc;
}
