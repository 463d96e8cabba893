/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Command-line parsing shared by the subcommands: `--name value`,
 * `--name=value` and flags, with errors that name the option. */
#ifndef CGM_CLI_ARGS_H
#define CGM_CLI_ARGS_H

#include <stdbool.h>
#include <stdint.h>

typedef struct cli_args {
  int argc;
  char **argv;
  int pos;           /* next argument to look at */
  const char *value; /* value of the option just matched */
  char error[512];   /* first parse error */
  const char *positional[16];
  int npositional;
} cli_args;

/* Set only by the command-line fuzzer (tests/fuzz/fuzz_cli.c): every
 * command returns 0 once its arguments are parsed and checked, before it
 * reads a matrix, opens the database or touches a device. */
extern bool cli_parse_only;

void cli_args_init(cli_args *a, int argc, char **argv);
/* True when there is another argument; positional ones are collected. */
bool cli_next(cli_args *a);
/* Matches the current option; for options with a value, a->value is set. */
bool cli_flag(cli_args *a, const char *name);
bool cli_opt(cli_args *a, const char *name);
/* Value converters: record an error naming the option on bad input. */
bool cli_int(cli_args *a, const char *name, int64_t lo, int64_t hi, int64_t *out);
bool cli_double(cli_args *a, const char *name, double lo, double hi, double *out);
/* A flag with an optional integer: "--name" (*out = dflt), "--name K" when
 * the next argument is an integer, or "--name=K". */
bool cli_flag_or_int(cli_args *a, const char *name, int64_t lo, int64_t hi, int64_t dflt,
                     int64_t *out);
/* "both" (single and double, and mixed when allowed) or a comma-separated
 * list of precision names, each once -> bits (1 << cgm_precision); false
 * for anything else (mixed where it is not allowed, empty items). */
bool cli_precisions(const char *s, bool mixed, unsigned *out);
/* Reports an unknown option. */
void cli_unknown(cli_args *a);
bool cli_failed(const cli_args *a);

#endif
