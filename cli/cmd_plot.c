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

static const char help[] =
    "usage: cgmodel plot calibration [--calibration ID | --device latest|cpu|cuda|ID]\n"
    "                                [--precision single|double] [--fits avg,max,rel] [--gpus G]\n"
    "                                [--db FILE] [--size WxH] -o FILE.png|FILE.svg\n"
    "       cgmodel plot accuracy    [--calibration ID] [--label-worst K] [--db FILE]\n"
    "                                [--size WxH] -o FILE.png|FILE.svg\n"
    "calibration: the measured throughput (GB/s) of every kernel over the elements it moves, and\n"
    "  its Eq. 3 fits (solid avg, dashed max, dotted rel = the model's), one panel per kernel\n"
    "  family; default: the newest calibration, double precision when calibrated, --fits\n"
    "  avg,rel (the paper's and the one predictions use).\n"
    "accuracy: predicted against measured time per iteration of every solve in the database\n"
    "  (--calibration ID: of those predicted from it); colour: block size, marker: backend,\n"
    "  precision and GPU count; --label-worst K names the matrices of the K worst points.\n"
    "The data files (FILE-*.dat) and the gnuplot script (FILE.gp) are written next to the\n"
    "picture; default size 1200x800 (1500x1200 for a calibration of more than 6 panels).\n";

bool cli_plot_size(cli_args *a, int *w, int *h) {
  if (!cli_opt(a, "--size")) return false;
  int64_t x = 0, y = 0;
  const char *sep = strchr(a->value, 'x');
  char wbuf[32];
  bool ok = sep && (size_t)(sep - a->value) < sizeof wbuf;
  if (ok) {
    snprintf(wbuf, sizeof wbuf, "%.*s", (int)(sep - a->value), a->value);
    ok = cgm_parse_int(wbuf, 200, 20000, &x) && cgm_parse_int(sep + 1, 150, 20000, &y);
  }
  if (!ok) {
    if (!a->error[0])
      snprintf(a->error, sizeof a->error,
               "option --size: '%s' is not WIDTHxHEIGHT in pixels (200x150 .. 20000x20000)",
               a->value);
    return true;
  }
  *w = (int)x;
  *h = (int)y;
  return true;
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
  char exe[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  bool in_build = false;
  if (n > 0) {
    exe[n] = 0;
    char *slash = strrchr(exe, '/');
    if (slash) {
      *slash = 0;
      size_t lb = strlen(CGM_BUILD_DIR);
      in_build = lb > 0 && !strncmp(exe, CGM_BUILD_DIR, lb) && (exe[lb] == '/' || exe[lb] == 0);
      char rel[PATH_MAX + 32];
      snprintf(rel, sizeof rel, "%s/../share/cgmodel/plots", exe);
      if (!in_build) add_dir(buf, sizeof buf, rel);
    }
  }
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
  cgm_calibration_pick p = {cal_id, CGM_PICK_LATEST, 0};
  const char *w = device ? device : "latest";
  static const char *const words[] = {"latest", "cpu", "cuda", "gpu-first"};
  static const cgm_pick_kind kinds[] = {CGM_PICK_LATEST, CGM_PICK_CPU, CGM_PICK_CUDA,
                                        CGM_PICK_GPU_FIRST};
  p.kind = CGM_PICK_DEVICE;
  for (int i = 0; i < 4; i++)
    if (!strcmp(w, words[i])) p.kind = kinds[i];
  if (cal_id <= 0 && p.kind == CGM_PICK_DEVICE) {
    int64_t id;
    if (cgm_parse_int(w, 1, INT64_MAX, &id))
      p.device_id = id;
    else
      return cli_error(cmd, 2,
                       "--device: '%s' is not latest, cpu, cuda or a device id "
                       "(see 'cgmodel db list --json')",
                       w);
  }
  cgm_error err = {0};
  if (cgm_pick_calibration(db, &p, out, &err)) return cli_report(cmd, &err);
  return 0;
}

int cli_plot_done(const char *cmd, const cgm_plot_files *f) {
  if (f->note[0]) fprintf(stderr, "cgmodel %s: note: %s\n", cmd, f->note);
  printf("picture  %s\n", f->picture);
  printf("script   %s\n", f->script);
  for (int i = 0; i < f->ndata; i++) printf("data     %s\n", f->data[i]);
  return fflush(stdout) == 0 ? 0 : 3;
}

int cmd_plot(int argc, char **argv) {
  cli_args a;
  cli_args_init(&a, argc - 1, argv + 1);
  const char *db_path = NULL, *out = NULL, *device = NULL;
  int64_t cal_id = 0, v = 0;
  int w = 0, h = 0;
  cgm_calplot_opts co = {-1, 0, 0};
  cgm_accplot_opts ao = {0, 0};
  bool cal_only = false, acc_only = false;
  while (cli_next(&a)) {
    if (cli_flag(&a, "--help") || cli_flag(&a, "-h")) {
      fputs(help, stdout);
      return 0;
    } else if (cli_opt(&a, "--db"))
      db_path = a.value;
    else if (cli_opt(&a, "-o"))
      out = a.value;
    else if (cli_plot_size(&a, &w, &h)) {
    } else if (cli_int(&a, "--calibration", 1, INT64_MAX, &v))
      cal_id = v;
    else if (cli_int(&a, "--label-worst", 0, 1000, &v))
      ao.label_worst = (int)v, acc_only = true;
    else if (cli_opt(&a, "--device"))
      device = a.value, cal_only = true;
    else if (cli_int(&a, "--gpus", 2, CGM_MAX_GPUS, &v))
      co.gpus = (int)v, cal_only = true;
    else if (cli_opt(&a, "--precision")) {
      cgm_precision p;
      if (!cgm_precision_parse(a.value, &p))
        return cli_error("plot", 2, "--precision: '%s' is not single or double", a.value);
      co.precision = p;
      cal_only = true;
    } else if (cli_opt(&a, "--fits")) {
      cgm_item it[3];
      char why[160];
      int n = cgm_parse_list(a.value, it, 3, why, sizeof why);
      if (n < 0) return cli_error("plot", 2, "--fits: %s (give avg, max and/or rel)", why);
      co.fits = 0;
      cal_only = true;
      for (int k = 0; k < n; k++) {
        if (cgm_item_is(it[k], "avg"))
          co.fits |= 1u << CGM_FIT_AVG;
        else if (cgm_item_is(it[k], "max"))
          co.fits |= 1u << CGM_FIT_MAX;
        else if (cgm_item_is(it[k], "rel"))
          co.fits |= 1u << CGM_FIT_REL;
        else
          return cli_error("plot", 2, "--fits: '%.*s' is not avg, max or rel",
                           (int)(it[k].n < 64 ? it[k].n : 64), it[k].s);
      }
    } else
      cli_unknown(&a);
  }
  if (cli_failed(&a)) return cli_error("plot", 2, "%s", a.error);
  if (a.npositional != 1 ||
      (strcmp(a.positional[0], "calibration") && strcmp(a.positional[0], "accuracy")))
    return cli_error("plot", 2, "expected 'calibration' or 'accuracy'\n%s", help);
  const bool calib = !strcmp(a.positional[0], "calibration");
  if (!calib && cal_only)
    return cli_error("plot", 2,
                     "plot accuracy takes only --calibration, --label-worst, --db, --size and -o");
  if (calib && acc_only) return cli_error("plot", 2, "--label-worst is for plot accuracy");
  ao.calibration_id = cal_id;
  char dbbuf[1024];
  const cli_input dbin = {"the database", cli_db_path(db_path, dbbuf, sizeof dbbuf)};
  int rc = cli_refuse_alias("plot", "-o", out, cgm_plot_writes, &dbin, 1);
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
