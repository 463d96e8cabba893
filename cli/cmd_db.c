/* SPDX-License-Identifier: GPL-3.0-or-later */
/* cgmodel db list|show ID|export ID -o FILE|import FILE|solves|refit ID:
 * what the database holds, and a calibration carried to another. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cgmodel/pipeline.h"
#include "cgmodel/calibrate.h"
#include "cli/commands.h"
#include "cli/dbopen.h"
#include "cli/outcheck.h"
#include "cli/output.h"
#include "common/parse.h"
#include "common/outfile.h"

static const cli_opt opts[] = {
    CLI_DB, CLI_JSON, {"-o", "out", CLI_PATH, 0, "FILE", 0, "export: the JSON file written"}, {0}};

#define LIST_ROW "%4s  %-24s  %-5s %-44.44s %9s%s%s\n"

static int list_print(const cgm_db_calibration *c, const cgm_db_device *d, void *ctx) {
  char id[24], model[256], secs[32];
  snprintf(id, sizeof id, "%lld", (long long)c->id);
  snprintf(secs, sizeof secs, "%.1f s", c->seconds);
  char link[300] = "";
  if (c->interconnect[0]) snprintf(link, sizeof link, "  %.280s", c->interconnect);
  printf(LIST_ROW, id, c->created, d->kind, cli_escape(d->model, model, sizeof model), secs,
         c->complete ? "" : "  (incomplete)", link);
  return 0;
}

static int fit_print(const cgm_db_fit *f, void *ctx) {
  if (f->kind == CGM_FIT_INTERP) /* no parameters: the samples serve */
    return printf("  %-8s %-9s %-6s %2d interp  %d samples, m %.4g .. %.4g: INTERPOLATED\n",
                  f->kernel, f->variant, cgm_precision_name((cgm_precision)f->precision), f->block,
                  f->n, f->m_lo, f->m_hi) < 0;
  printf("  %-8s %-9s %-6s %2d %-6s  mu %6.2f  sigma %5.2f  nu %8.2f GB/s  R^2 %6.4f  n %3d%s\n",
         f->kernel, f->variant, cgm_precision_name((cgm_precision)f->precision), f->block,
         cgm_fit_kind_name(f->kind), f->mu, f->sigma, f->nu, f->r2, f->n,
         f->converged ? "" : "  NOT CONVERGED");
  return 0;
}

static int solve_print(const cgm_db_solve *s, void *ctx) {
  char name[256];
  printf("%5lld  %-24s  %-24s %-8s %-6s N=%d G=%d  %9.2f us/it measured", (long long)s->id,
         s->created, cli_escape(s->matrix, name, sizeof name), s->backend, s->precision, s->block,
         s->gpus, 1e6 * s->time_per_iter_s);
  if (isfinite(s->predicted_time_per_iter_s))
    printf("  %9.2f predicted (%+.1f%%)", 1e6 * s->predicted_time_per_iter_s,
           100 * (s->predicted_time_per_iter_s / s->time_per_iter_s - 1));
  printf("%s\n", s->disturbed ? "  DISTURBED" : "");
  return 0;
}

static int body(const cli_parsed *p) {
  const char *db_path = cli_str(p->req, "db", NULL), *out = cli_str(p->local, "out", NULL);
  const bool json = cli_true(p->local, "json");
  if (p->npos < 1)
    return cli_error("db", 2,
                     "expected list, show, export, import, solves or refit (cgmodel db --help)");
  const char *what = p->pos[0];
  const bool import = !strcmp(what, "import");
  int64_t id = 0;
  if (!strcmp(what, "show") || !strcmp(what, "export") || !strcmp(what, "refit")) {
    if (p->npos != 2)
      return cli_error("db", 2, "db %s needs a calibration ID (see 'cgmodel db list')", what);
    if (!cgm_parse_int(p->pos[1], 1, INT64_MAX, &id))
      return cli_error("db", 2,
                       "db %s: '%s' is not a calibration ID (a whole number from 1 to %lld)", what,
                       p->pos[1], (long long)INT64_MAX);
  } else if (import && p->npos != 2) {
    return cli_error("db", 2, "db import needs the FILE 'cgmodel db export' wrote");
  } else if (!import && p->npos != 1) {
    return cli_error("db", 2, "unexpected argument '%s'", p->pos[1]);
  }
  if (!strcmp(what, "export") && !out) return cli_error("db", 2, "db export needs -o FILE.json");
  char dbbuf[1024];
  const char *dbfile = cli_db_path(db_path, dbbuf, sizeof dbbuf);
  const cli_input in[] = {{"the database", dbfile}};
  int rc = cli_refuse_alias("db", "-o", out, NULL, in, 1);
  if (!rc && import && cgm_path_aliases(p->pos[1], dbfile))
    rc = cli_error("db", 2, "db import %s: that is the database, not an export", p->pos[1]);
  if (rc || cli_parse_only) return rc;
  cgm_db *db;
  rc = cli_db_open("db", db_path, import, &db);
  if (rc) return rc;
  cgm_error err = {0};
  cgm_status st = CGM_OK; /* the library's error, reported below; else o, when made, printed */
  cJSON *o = NULL;
  cgm_db_calibration c;
  cgm_db_device d;
  if (!strcmp(what, "list")) {
    if (json) {
      st = cgm_db_calibrations_json(db, &o, &err);
    } else {
      printf(LIST_ROW, "ID", "created (UTC)", "kind", "model", "time", "", "");
      st = cgm_db_calibrations(db, list_print, NULL, &err);
    }
  } else if (!strcmp(what, "show") && json) {
    st = cgm_db_calibration_json(db, id, false, &o, &err);
  } else if (!strcmp(what, "show")) {
    if (!(st = cgm_db_calibration_get(db, id, &c, &err)) &&
        !(st = cgm_db_device_get(db, c.device_id, &d, &err))) {
      printf("calibration %lld, %s, cgmodel %s, %.1f s%s\n", (long long)c.id, c.created,
             c.tool_version, c.seconds, c.complete ? "" : " (incomplete)");
      char model[1024], host[512], options[2048];
      printf("device      %s %s on %s\n", d.kind, cli_escape(d.model, model, sizeof model),
             cli_escape(d.host, host, sizeof host));
      printf("options     %s\n", cli_escape(c.options, options, sizeof options));
      printf("fits (Eq. 3: throughput in GB/s over log2 of the elements moved):\n");
      st = cgm_db_fits(db, id, fit_print, NULL, &err);
    }
  } else if (!strcmp(what, "export")) {
    if (!(st = cgm_db_calibration_json(db, id, true, &o, &err))) {
      char *txt = cJSON_Print(o);
      cJSON_Delete(o);
      o = NULL; /* the file's, not stdout's */
      cgm_outfile of;
      if (!txt)
        rc = cli_error("db", 3, "out of memory printing calibration %lld", (long long)id);
      else if (cgm_outfile_open(&of, out, &err))
        rc = cli_report("db", &err);
      else {
        FILE *f = cgm_outfile_stream(&of);
        bool ok = f && fputs(txt, f) >= 0 && fputc('\n', f) != EOF;
        if (cgm_outfile_commit(&of, ok, &err))
          rc = ok ? cli_report("db", &err) : cli_error("db", 3, "cannot write %s", out);
      }
      cJSON_free(txt);
      if (!rc) fprintf(stderr, "cgmodel db: calibration %lld written to %s\n", (long long)id, out);
    }
  } else if (import) {
    if (!(st = cgm_db_import(db, p->pos[1], &id, &err)) && json)
      st = cgm_db_calibration_json(db, id, false, &o, &err);
    else if (!st)
      printf("calibration %lld imported from %s\n", (long long)id, p->pos[1]);
  } else if (!strcmp(what, "refit")) {
    cgm_calibration_report rep;
    if (!(st = cgm_refit(db, id, &rep, &err)) && json) { /* as calibrate --json says it */
      o = cgm_calibration_report_json(&rep, cgm_db_path(db));
    } else if (!st) {
      printf("calibration %lld: %s (%s), %d samples, %d fits (%d did not converge)\n",
             (long long)id, rep.cal[0].device, rep.cal[0].model, rep.cal[0].samples,
             rep.cal[0].fits, rep.cal[0].fits_failed);
      if (rep.cal[0].failed[0]) printf("  not converged: %s\n", rep.cal[0].failed);
    }
  } else if (!strcmp(what, "solves")) {
    st = json ? cgm_db_solves_json(db, &o, &err) : cgm_db_solves(db, solve_print, NULL, &err);
  } else {
    rc = cli_error("db", 2, "unknown db command '%s' (cgmodel db --help)", what);
  }
  if (st)
    rc = cli_report("db", &err);
  else if (o)
    rc = cli_print_json(o);
  cgm_db_close(db);
  return rc;
}

static const char uses[] = "list|show ID|export ID|import FILE|solves|refit ID",
                  subs[] = "list|show|export|import|solves|refit";
const cli_command cli_db = {"db", uses, subs, "the calibrations and solves in the database",
                            opts, NULL, body, NULL};
