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

static const cli_opt opts[] = {
    CLI_PLOT_OPTS,
    {"--calibration", "calibration", CLI_INT, 0, "ID", 0, "the calibration", 1, 9007199254740992.0},
    {"--device", "device", CLI_STRING, "latest|cpu|cuda", "D", "newest GPU's",
     "latest, cpu, cuda or a device ID"},
    {"--gpus", "gpus", CLI_INT, 0, "G", "as calibrated",
     "GPUs of the G-GPU panel; more than present or calibrated: a what-if", 1, CGM_MAX_GPUS},
    {"--interconnect", "interconnect", CLI_STRING, 0, "NAME",
     "its own, else this host's newest, else pcie-host",
     "the profile pricing a what-if's exchange"},
    {"--block", "block", CLI_CHOICE, "1|2|4|8", 0, "4", "the block size"},
    {"--avg", "fit", CLI_CONST, "avg", 0, 0, "the relative fits predictions use (default)"},
    {"--max", "fit", CLI_CONST, "max", 0, 0, "the maximum fits (the paper's bound)"},
    {"--precision", "precision", CLI_CHOICE, "single|double", 0, "double", "the precision"},
    {"--exchange", "exchange", CLI_CHOICE, "halo|p2p|host|nccl", 0, "p2p",
     "the G-GPU panel's exchange"},
    {"--mark", "mark", CLI_PATH, 0, "A.mtx", 0, "a matrix on the maps (repeat it)", 0, 0, true},
    {0}};

#define MAX_MARKS 64

static int body(const cli_parsed *p) {
  const cJSON *req = p->req, *mark = cJSON_GetObjectItemCaseSensitive(req, "mark");
  const char *db_path = cli_str(req, "db", NULL), *out = cli_str(p->local, "out", NULL);
  const char *device = cli_str(req, "device", NULL), *prec_name = cli_str(req, "precision", NULL);
  const char *interconnect = cli_str(req, "interconnect", NULL);
  const char *mark_path[MAX_MARKS];
  int nmarks = 0, w, h, gpus = (int)cli_num(req, "gpus", 0), block = (int)cli_num(req, "block", 4);
  const int fit_kind = !strcmp(cli_str(req, "fit", "avg"), "max") ? CGM_FIT_MAX : CGM_FIT_REL;
  const int64_t cal_id = (int64_t)cli_num(req, "calibration", 0);
  cgm_exchange exchange = CGM_EXCHANGE_P2P;
  cgm_exchange_parse(cli_str(req, "exchange", "p2p"), &exchange);
  int prec = !prec_name ? -1 : strcmp(prec_name, "single") ? CGM_PREC_DOUBLE : CGM_PREC_SINGLE;
  if (cli_plot_size("map", cli_str(req, "size", NULL), &w, &h)) return 2;
  for (const cJSON *m = mark ? mark->child : NULL; m; m = m->next) {
    if (nmarks == MAX_MARKS) return cli_error("map", 2, "--mark: at most %d matrices", MAX_MARKS);
    mark_path[nmarks++] = m->valuestring;
  }
  if (p->npos)
    return cli_error("map", 2, "unexpected argument '%s' (cgmodel map --help)", p->pos[0]);
  char dbbuf[1024];
  cli_input in[MAX_MARKS + 1] = {{"the database", cli_db_path(db_path, dbbuf, sizeof dbbuf)}};
  for (int k = 0; k < nmarks; k++) in[k + 1] = (cli_input){"the --mark matrix", mark_path[k]};
  int rc = cli_refuse_alias("map", "-o", out, cgm_plot_writes, in, nmarks + 1);
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
    cgm_host here;
    cgm_host_describe(&here);
    if (cgm_what_if(db, interconnect, gpus, &here, &dev, 1, &err)) rc = cli_report("map", &err);
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

const cli_command cli_map = {
    "map", "",   NULL, "the paper's Fig. 8 (raw performance and speed-up maps) as a picture",
    opts,  NULL, body, NULL};
