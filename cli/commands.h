/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The commands, each a table of its options and a body (cli/args.h); each
 * returns the process exit code (docs/cli.md). */
#pragma once

#include <stdio.h>

#include "cgmodel/status.h"
#include "cli/args.h"

extern const cli_command cli_info, cli_solve, cli_gen, cli_calibrate, cli_predict, cli_db,
    cli_validate, cli_map, cli_plot, cli_cache, cli_version, cli_devices, cli_help_command;

/* Every command, in the order of the usage; NULL-ended. */
extern const cli_command *const cli_commands[];
/* The command of that name; NULL when none. */
const cli_command *cli_command_find(const char *name);
/* Prints the library error in the command's words (a leading request key as its flag, key=value
 * advice as the option: cli/commands.c) and returns its exit code. */
int cli_report(const char *cmd, const cgm_error *err);
/* The top-level usage, from the tables. */
void cli_usage(FILE *f);
/* `cgmodel __options`: every command's table as JSON, for the man pages
 * and the shell completions (scripts/gen_man.py). Returns the exit code. */
int cli_print_tables(void);
