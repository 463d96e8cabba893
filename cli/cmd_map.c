/* SPDX-License-Identifier: GPL-3.0-or-later */
/* cgmodel map: the paper's Fig. 8 for a calibrated device (gnuplot). */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cgmodel/pipeline.h"
#include "cli/commands.h"
#include "cli/dbopen.h"
#include "cli/outcheck.h"
#include "cli/output.h"
#include "cli/plotcli.h"

static const char help[] =
    "usage: cgmodel map [--gpus G] [--block N] [--max|--avg] [--precision single|double]\n"
    "                   [--exchange halo|p2p|host|nccl] [--calibration ID | --device "
    "ID|cpu|cuda|latest]\n"
    "                   [--mark A.mtx ...] [--db FILE] [--size WxH] -o FILE.png|FILE.svg\n"
    "The paper's Fig. 8 for a calibrated device: predicted raw performance (GFLOPS, Eqs. 6-7)\n"
    "on one device and on G GPUs, and the speed-up T_1 / T_G, over the matrix dimension x\n"
    "(10^2..10^8) and the stored elements e (10^3..10^10), between diagonal (e = x) and dense\n"
    "(e = x^2) matrices; the thick line is S = 1. Defaults: the newest GPU calibration (else the\n"
    "CPU's), every GPU it measured, N = 4, --avg (the relative fits the predictions use; --max:\n"
    "the maximum fits), double precision when calibrated, p2p exchange (the whole vector;\n"
    "halo: the solver's default, for a band matrix of (e / x - 1) / 2 rows either side of the\n"
    "diagonal). Configurations that do not fit in a GPU's memory are grey. --mark puts a\n"
    "matrix (x, e_N) on the maps; repeat it for several. A CPU calibration draws the one-device\n"
    "panel only.\n";

#define MAX_MARKS 64

int cmd_map(int argc, char **argv) {
  cli_args a;
  cli_args_init(&a, argc - 1, argv + 1);
  const char *db_path = NULL, *out = NULL, *device = NULL;
  const char *mark_path[MAX_MARKS];
  int nmarks = 0, w = 0, h = 0, gpus = 0, block = 4, prec = -1, fit_kind = CGM_FIT_REL;
  int exchange = CGM_EXCHANGE_P2P;
  int64_t cal_id = 0, v = 0;
  while (cli_next(&a)) {
    if (cli_flag(&a, "--help") || cli_flag(&a, "-h")) {
      fputs(help, stdout);
      return 0;
    } else if (cli_opt(&a, "--db"))
      db_path = a.value;
    else if (cli_opt(&a, "-o"))
      out = a.value;
    else if (cli_plot_size(&a, &w, &h)) {
    } else if (cli_flag(&a, "--max"))
      fit_kind = CGM_FIT_MAX;
    else if (cli_flag(&a, "--avg"))
      fit_kind = CGM_FIT_REL;
    else if (cli_int(&a, "--gpus", 1, CGM_MAX_GPUS, &v))
      gpus = (int)v;
    else if (cli_int(&a, "--calibration", 1, INT64_MAX, &v))
      cal_id = v;
    else if (cli_opt(&a, "--device"))
      device = a.value;
    else if (cli_opt(&a, "--block")) {
      if (!strcmp(a.value, "1") || !strcmp(a.value, "2") || !strcmp(a.value, "4") ||
          !strcmp(a.value, "8"))
        block = atoi(a.value);
      else
        return cli_error("map", 2, "--block: '%s' is not 1, 2, 4 or 8", a.value);
    } else if (cli_opt(&a, "--precision")) {
      cgm_precision p;
      if (!cgm_precision_parse(a.value, &p))
        return cli_error("map", 2, "--precision: '%s' is not single or double", a.value);
      prec = p;
    } else if (cli_opt(&a, "--exchange")) {
      cgm_exchange e;
      if (!cgm_exchange_parse(a.value, &e))
        return cli_error("map", 2, "--exchange: '%s' is not halo, p2p, host or nccl", a.value);
      exchange = e;
    } else if (cli_opt(&a, "--mark")) {
      if (nmarks == MAX_MARKS) return cli_error("map", 2, "--mark: at most %d matrices", MAX_MARKS);
      mark_path[nmarks++] = a.value;
    } else
      cli_unknown(&a);
  }
  if (cli_failed(&a)) return cli_error("map", 2, "%s", a.error);
  if (a.npositional)
    return cli_error("map", 2, "unexpected argument '%s'\n%s", a.positional[0], help);
  char dbbuf[1024];
  const cli_input dbin = {"the database", cli_db_path(db_path, dbbuf, sizeof dbbuf)};
  int rc = cli_refuse_alias("map", "-o", out, cgm_plot_writes, &dbin, 1);
  for (int k = 0; k < nmarks && !rc; k++) {
    const cli_input m = {"the --mark matrix", mark_path[k]};
    rc = cli_refuse_alias("map", "-o", out, cgm_plot_writes, &m, 1);
  }
  if (rc || cli_parse_only || (rc = cli_plot_precheck("map", out))) return rc;
  /* The matrices first: a bad one is reported before anything is drawn. */
  cgm_error err = {0};
  cgm_map_mark marks[MAX_MARKS];
  const int bi = cgm_block_index(block);
  for (int k = 0; k < nmarks; k++) {
    cgm_features f;
    if (cgm_matrix_features(mark_path[k], &f, NULL, &err)) return cli_report("map", &err);
    const char *b = strrchr(mark_path[k], '/');
    b = b ? b + 1 : mark_path[k];
    size_t l = strlen(b);
    if (l > 4 && !strcmp(b + l - 4, ".mtx")) l -= 4;
    snprintf(marks[k].name, sizeof marks[k].name, "%.*s", (int)(l < 127 ? l : 127), b);
    marks[k].x = f.x;
    marks[k].e = (double)f.block[bi].elements;
  }
  cgm_db *db;
  if ((rc = cli_db_open("map", db_path, false, &db))) return rc;
  int64_t id;
  cgm_tuner_device dev;
  rc = cli_plot_pick("map", db, cal_id, device ? device : "gpu-first", &id);
  if (!rc && cgm_load_calibration(db, id, fit_kind, &dev, &err)) rc = cli_report("map", &err);
  if (!rc) {
    if (prec < 0)
      prec = dev.have[CGM_PREC_DOUBLE] || !dev.have[CGM_PREC_SINGLE] ? CGM_PREC_DOUBLE
                                                                     : CGM_PREC_SINGLE;
    if (gpus == 0) gpus = dev.is_cpu ? 1 : (dev.gpus < 8 ? dev.gpus : 8);
    if (!dev.is_cpu && gpus > dev.gpus)
      rc = cli_error("map", 2, "--gpus %d: calibration %lld measured %d GPU%s", gpus, (long long)id,
                     dev.gpus, dev.gpus > 1 ? "s" : "");
  }
  if (!rc) {
    cgm_map_opts mo = {
        block, gpus,  prec, exchange, fit_kind == CGM_FIT_MAX ? "max" : "avg (relative)",
        marks, nmarks};
    cgm_plot_opts o = {out, w, h, cli_plot_scripts(), getenv("PATH")};
    cgm_plot_files files;
    if (cgm_plot_map(&dev, &mo, &o, &files, &err))
      rc = cli_report("map", &err);
    else
      rc = cli_plot_done("map", &files);
  }
  cgm_db_close(db);
  return rc;
}
