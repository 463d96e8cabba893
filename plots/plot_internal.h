/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Shared by the plots: their files, the script's header, running gnuplot. */
#pragma once

#include <stdbool.h>
#include <stdio.h>

#include "cgmodel/plots.h"
#include "common/outfile.h"

enum { PLOT_MAX_FILES = 8 }; /* data files and the script of one picture */

typedef struct plot_job {
  cgm_plot_format fmt;
  int width, height;
  int font_height;    /* the height the font is sized for (0: height) */
  char gnuplot[1024]; /* full path */
  char tmpl[1024];    /* full path of the template */
  char dir[1024];     /* directory of the picture ("." if none given) */
  char base[512];     /* picture name without directory and extension */
  char picture[1024]; /* as given */
  cgm_plot_files *files;
  cgm_outfile out[PLOT_MAX_FILES]; /* each written beside its name, then renamed over it */
  int nout;
} plot_job;

/* Checks the output name, finds gnuplot and the template `name` (e.g.
 * "calibration.gp"), which no output may overwrite; fills the job. */
cgm_status plot_begin(plot_job *j, const cgm_plot_opts *o, const char *name, cgm_plot_files *files,
                      cgm_error *err);

/* FILE-<what>.dat (one of the names cgm_plot_writes checks), recorded in files->data. Every file is
 * written beside its name and renamed over it when closed (cgm_outfile_open_derived). */
cgm_status plot_data_open(plot_job *j, const char *what, FILE **f, cgm_error *err);
/* `what = "FILE-<what>.dat"`: a data file's name relative to the picture;
 * `what = ""` where the picture has no such file (!present). */
void plot_data_var(FILE *gp, const plot_job *j, const char *what, bool present);
/* Closes a data file or the script: renamed over its name, or an error. */
cgm_status plot_file_close(plot_job *j, FILE *f, cgm_error *err);
/* Removes the temporary files of what was not closed (after an error). */
void plot_end(plot_job *j);

/* Opens FILE.gp with its header (how to re-run it, the terminal, the output
 * name); the caller adds its variables, plot_script_finish the template. */
cgm_status plot_script_open(plot_job *j, const char *what, FILE **gp, cgm_error *err);
cgm_status plot_script_finish(plot_job *j, FILE *gp, cgm_error *err);

/* The base font size (pt) of the picture: 10 at 1200 x 800, scaled with it. */
int plot_font_size(const plot_job *j);

/* Runs gnuplot on FILE.gp in the picture's directory, drawing into a
 * temporary file renamed over the picture; a failure removes the picture. */
cgm_status plot_run(plot_job *j, cgm_error *err);

/* A gnuplot double-quoted string literal (backslashes and quotes escaped). */
void gp_string(FILE *f, const char *s);
/* `name = "value"\n` (a gnuplot string variable, value escaped). */
void gp_var(FILE *f, const char *name, const char *value);
/* A number for gnuplot data: %.9g, or NaN. */
void gp_num(FILE *f, double v);

/* Labelled tics of a log colour bar from lo to hi (0 < lo < hi): at least 4 round values (returns
 * their count), and with `split` (a speed-up's bar) tics either side of 1. */
enum { PLOT_MAX_TICS = 64 };
int plot_log_tics(double lo, double hi, bool split, double v[PLOT_MAX_TICS]);
/* The significant digits (3 or more) that label n increasing tics apart:
 * a narrow range's evenly spaced tics need more than 3. */
int plot_tic_digits(const double *v, int n);

/* Appends one line to files->note ("; " between). */
void plot_note(cgm_plot_files *files, const char *fmt, ...) CGM_PRINTF(2, 3);
