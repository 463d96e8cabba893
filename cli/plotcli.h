/* SPDX-License-Identifier: GPL-3.0-or-later */
/* What `cgmodel plot` and `cgmodel map` share (defined in cmd_plot.c): the picture options, finding
 * the gnuplot templates, picking a calibration, and printing what was written. */
#pragma once

#include <stdint.h>

#include "cgmodel/db.h"
#include "cgmodel/plots.h"
#include "cli/args.h"

/* The options map and plot share: -o, --size, --db. */
#define CLI_PLOT_OPTS                                                                              \
  {"-o", "out", CLI_PATH, 0, "FILE.png|FILE.svg", 0, "the picture (FILE.gp, FILE-*.dat beside)"},  \
      {"--size", "size", CLI_STRING, 0, "WxH", "1200x800", "pixels, 200x150 to 20000x20000"},      \
      CLI_DB

/* --size WxH (s NULL: 0 x 0, the default): 0, or 2 once the error is printed. */
int cli_plot_size(const char *cmd, const char *s, int *w, int *h);
/* The template directories to search (':'-separated): $CGMODEL_PLOTS_DIR,
 * the installed share/cgmodel/plots beside the executable, the install
 * prefix's, the source tree's plots/ (first when running from the build tree). */
const char *cli_plot_scripts(void);
/* Checks -o (exit 2) and that gnuplot exists (exit 3) before anything is
 * read; prints the error and returns the exit code, or 0. */
int cli_plot_precheck(const char *cmd, const char *out);
/* The calibration to draw: `cal_id` > 0 as given; else the newest complete one of `device`:
 * "latest" (any), "cpu", "cuda", "gpu-first" (the newest CUDA calibration, else the newest CPU one)
 * or a numeric device id. Prints the error and returns the exit code, or 0 with *out set. */
int cli_plot_pick(const char *cmd, cgm_db *db, int64_t cal_id, const char *device, int64_t *out);
/* Prints the files written (stdout) and the note (stderr); returns 0. */
int cli_plot_done(const char *cmd, const cgm_plot_files *f);
