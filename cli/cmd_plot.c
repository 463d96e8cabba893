/* SPDX-License-Identifier: GPL-3.0-or-later */
/* cgmodel plot calibration|accuracy: the calibration's samples and fits,
 * and predicted against measured time per iteration (gnuplot). */
#define _POSIX_C_SOURCE 200809L
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cgmodel/pipeline.h"
#include "cli/commands.h"
#include "cli/dbopen.h"
#include "cli/outcheck.h"
#include "cli/output.h"
#include "cli/plotcli.h"
#include "common/parse.h"

#ifndef CGM_PLOTS_SRC_DIR
#define CGM_PLOTS_SRC_DIR ""
#endif
#ifndef CGM_PLOTS_INSTALL_DIR
#define CGM_PLOTS_INSTALL_DIR ""
#endif
#ifndef CGM_BUILD_DIR
#define CGM_BUILD_DIR ""
#endif

static const cli_opt opts[] = {
    CLI_PLOT_OPTS,
    {"--calibration", "calibration", CLI_INT, 0, "ID", "the newest", "the calibration", 1,
     9007199254740992.0},
    {"--label-worst", "label_worst", CLI_INT, 0, "K", "0", "accuracy: name the K worst", 0, 1000},
    {"--device", "device", CLI_STRING, "latest|cpu|cuda", "D", "latest",
     "latest, cpu, cuda or a device ID"},
    {"--precision", "precision", CLI_CHOICE, "single|double", 0, "double",
     "calibration: the precision"},
    {"--fits", "fits", CLI_LIST, "avg|max|rel", "LIST", "avg,rel", "calibration: the fits drawn"},
    {"--gpus", "gpus", CLI_INT, 0, "G", "the most", "calibration: the exchange panel's GPUs", 2,
     CGM_MAX_GPUS},
    {0}};

int cli_plot_size(const char *cmd, const char *s, int *w, int *h) {
  int64_t x = 0, y = 0;
  const char *sep = s ? strchr(s, 'x') : NULL;
  char wbuf[32];
  *w = *h = 0;
  if (!s) return 0;
  if (sep && (size_t)(sep - s) < sizeof wbuf) {
    snprintf(wbuf, sizeof wbuf, "%.*s", (int)(sep - s), s);
    if (cgm_parse_int(wbuf, 200, 20000, &x) && cgm_parse_int(sep + 1, 150, 20000, &y)) {
      *w = (int)x;
      *h = (int)y;
      return 0;
    }
  }
  return cli_error(cmd, 2,
                   "option --size: '%s' is not WIDTHxHEIGHT in pixels (200x150 .. 20000x20000)", s);
}

static void add_dir(char *buf, size_t n, const char *dir) {
  if (!dir || !*dir) return;
  size_t l = strlen(buf);
  snprintf(buf + l, n - l, "%s%s", l ? ":" : "", dir);
}

const char *cli_plot_scripts(void) {
  static char buf[8192];
  buf[0] = 0;
  add_dir(buf, sizeof buf, getenv("CGMODEL_PLOTS_DIR"));
  char exe[PATH_MAX], rel[PATH_MAX + 32];
  const ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  exe[n > 0 ? n : 0] = 0;
  char *slash = strrchr(exe, '/');
  if (slash) *slash = 0;
  const size_t lb = strlen(CGM_BUILD_DIR);
  const bool in_build =
      slash && lb > 0 && !strncmp(exe, CGM_BUILD_DIR, lb) && (exe[lb] == '/' || exe[lb] == 0);
  snprintf(rel, sizeof rel, "%s/../share/cgmodel/plots", exe);
  if (slash && !in_build) add_dir(buf, sizeof buf, rel);
  if (in_build) add_dir(buf, sizeof buf, CGM_PLOTS_SRC_DIR);
  add_dir(buf, sizeof buf, CGM_PLOTS_INSTALL_DIR);
  if (!in_build) add_dir(buf, sizeof buf, CGM_PLOTS_SRC_DIR);
  return buf;
}

int cli_plot_precheck(const char *cmd, const char *out) {
  cgm_error err = {0};
  cgm_plot_format fmt;
  if (!out) return cli_error(cmd, 2, "no picture: -o FILE.png or -o FILE.svg");
  if (cgm_plot_format_of(out, &fmt, &err)) return cli_report(cmd, &err);
  char gp[1024];
  if (cgm_plot_find_gnuplot(getenv("PATH"), gp, sizeof gp, &err)) return cli_report(cmd, &err);
  return 0;
}

int cli_plot_pick(const char *cmd, cgm_db *db, int64_t cal_id, const char *device, int64_t *out) {
  cgm_calibration_pick p = {cal_id, CGM_PICK_DEVICE, 0}; /* a device id, unless a word */
  const char *w = device ? device : "latest";
  static const char *const words[] = {"latest", "cpu", "cuda", "gpu-first"};
  static const cgm_pick_kind kinds[] = {CGM_PICK_LATEST, CGM_PICK_CPU, CGM_PICK_CUDA,
                                        CGM_PICK_GPU_FIRST};
  for (int i = 0; i < 4; i++)
    if (!strcmp(w, words[i])) p.kind = kinds[i];
  if (cal_id <= 0 && p.kind == CGM_PICK_DEVICE && !cgm_parse_int(w, 1, INT64_MAX, &p.device_id))
    return cli_error(cmd, 2,
                     "--device: '%s' is not latest, cpu, cuda or a device id "
                     "(see 'cgmodel db list --json')",
                     w);
  cgm_error err = {0};
  return cgm_pick_calibration(db, &p, out, &err) ? cli_report(cmd, &err) : 0;
}

int cli_plot_done(const char *cmd, const cgm_plot_files *f) {
  if (f->note[0]) fprintf(stderr, "cgmodel %s: note: %s\n", cmd, f->note);
  printf("picture  %s\n", f->picture);
  printf("script   %s\n", f->script);
  for (int i = 0; i < f->ndata; i++) printf("data     %s\n", f->data[i]);
  return fflush(stdout) == 0 ? 0 : 3;
}

/* --fits: avg, max and/or rel as bits (1 << cgm_fit_kind): 0, or 2 once the error is printed. */
static int fits_of(const char *s, unsigned *fits) {
  cgm_item it[3];
  char why[160];
  const int n = cgm_parse_list(s, it, 3, why, sizeof why);
  if (n < 0) return cli_error("plot", 2, "--fits: %s (give avg, max and/or rel)", why);
  for (int k = 0; k < n; k++) {
    const unsigned f = cgm_item_is(it[k], "avg")   ? 1u << CGM_FIT_AVG
                       : cgm_item_is(it[k], "max") ? 1u << CGM_FIT_MAX
                       : cgm_item_is(it[k], "rel") ? 1u << CGM_FIT_REL
                                                   : 0u;
    if (!f)
      return cli_error("plot", 2, "--fits: '%.*s' is not avg, max or rel",
                       (int)(it[k].n < 64 ? it[k].n : 64), it[k].s);
    *fits |= f;
  }
  return 0;
}

static int body(const cli_parsed *p) {
  const cJSON *req = p->req;
  const char *db_path = cli_str(req, "db", NULL), *out = cli_str(p->local, "out", NULL);
  const char *device = cli_str(req, "device", NULL), *precision = cli_str(req, "precision", NULL);
  const char *fits = cli_str(req, "fits", NULL);
  const int64_t cal_id = (int64_t)cli_num(req, "calibration", 0);
  int w, h, rc;
  cgm_calplot_opts co = {-1, 0, (int)cli_num(req, "gpus", 0)};
  cgm_accplot_opts ao = {0, (int)cli_num(req, "label_worst", 0)};
  if (cli_plot_size("plot", cli_str(req, "size", NULL), &w, &h)) return 2;
  if (precision) co.precision = strcmp(precision, "single") ? CGM_PREC_DOUBLE : CGM_PREC_SINGLE;
  if (fits && (rc = fits_of(fits, &co.fits))) return rc;
  const bool cal_only = device || precision || co.gpus || fits;
  if (p->npos != 1 || (strcmp(p->pos[0], "calibration") && strcmp(p->pos[0], "accuracy")))
    return cli_error("plot", 2, "expected 'calibration' or 'accuracy' (cgmodel plot --help)");
  const bool calib = !strcmp(p->pos[0], "calibration");
  if (!calib && cal_only)
    return cli_error("plot", 2,
                     "plot accuracy takes only --calibration, --label-worst, --db, --size and -o");
  if (calib && cJSON_GetObjectItemCaseSensitive(req, "label_worst"))
    return cli_error("plot", 2, "--label-worst is for plot accuracy");
  ao.calibration_id = cal_id;
  char dbbuf[1024];
  const cli_input dbin = {"the database", cli_db_path(db_path, dbbuf, sizeof dbbuf)};
  rc = cli_refuse_alias("plot", "-o", out, cgm_plot_writes, &dbin, 1);
  if (rc || cli_parse_only || (rc = cli_plot_precheck("plot", out))) return rc;
  cgm_db *db;
  if ((rc = cli_db_open("plot", db_path, false, &db))) return rc;
  cgm_error err = {0};
  cgm_plot_opts o = {out, w, h, cli_plot_scripts(), getenv("PATH")};
  cgm_plot_files files;
  if (calib) {
    int64_t id;
    rc = cli_plot_pick("plot", db, cal_id, device, &id);
    if (!rc && cgm_plot_calibration(db, id, &co, &o, &files, &err)) rc = cli_report("plot", &err);
  } else if (cgm_plot_accuracy(db, &ao, &o, &files, &err)) {
    rc = cli_report("plot", &err);
  }
  if (!rc) rc = cli_plot_done("plot", &files);
  cgm_db_close(db);
  return rc;
}

static const char kinds[] = "calibration|accuracy";
const cli_command cli_plot = {
    "plot", kinds, kinds, "a calibration's fits, or predicted against measured time",
    opts,   NULL,  body,  NULL};
