/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Printing for the CLI: errors and the pipeline's notes on stderr, JSON on
 * stdout (built by pipeline/json.c). */
#pragma once

#include <cjson/cJSON.h>

#include "cgmodel/cgmodel.h"
#include "cgmodel/pipeline.h"
#include "pipeline/json.h"

/* "cgmodel <cmd>: error: <msg>" on stderr; returns code. */
int cli_error(const char *cmd, int code, const char *fmt, ...) CGM_PRINTF(3, 4);
/* The message of the last cli_error (what a rank that failed tells the others under MPI). */
extern char cli_last_error[1024];
/* Prints the object on stdout, frees it; returns 3 if printing failed. */
int cli_print_json(cJSON *obj);

/* A pipeline note (cgm_note_fn) on stderr; ctx is the command's name: "cgmodel <cmd>: <msg>",
 * "cgmodel <cmd>: warning: <msg>" or "cgmodel <cmd>: error: <msg>". */
void cli_note(void *ctx, cgm_note_kind kind, const char *msg);

/* A matrix or vector argument: "-" is standard input, read through /dev/stdin (the Matrix Market
 * reader streams from a pipe as from a file, so nothing is copied), and messages name /dev/stdin;
 * any other path as given. */
const char *cli_input_path(const char *arg);

/* s with its control characters escaped as messages show them (cgm_fput_escaped: \n, \t, \xNN), in
 * buf: a file name or a database's text printed in a report stays on its line. */
const char *cli_escape(const char *s, char *buf, size_t n);
