/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The one check every command makes before it writes an output file (-o, --csv): the output must
 * not be one of its inputs (the database, the matrix, the right-hand side, ...), or a failed or
 * finished write would destroy the input. */
#pragma once

#include <stdbool.h>

/* One input of a command: what it is ("the database") and its path (NULL: not given, skipped). */
typedef struct cli_input {
  const char *role;
  const char *path;
} cli_input;

/* Whether writing `out` writes the file `path` (cgm_path_aliases, or
 * cgm_plot_writes for a picture with its script and data files: each
 * compared by device and inode, so a symbolic or hard link is caught). */
typedef bool (*cli_writes_fn)(const char *out, const char *path);

/* Prints "cgmodel <cmd>: error: <opt> <out> is <role> <path>: ..." and returns 2 when `out` (NULL:
 * nothing to check) would overwrite one of the n inputs, or cannot be written at all (no name, "-",
 * a directory, or a folder that is not there or not writable: said before any work); returns 0
 * otherwise.
 * `writes` NULL means cgm_path_aliases. */
int cli_refuse_alias(const char *cmd, const char *opt, const char *out, cli_writes_fn writes,
                     const cli_input *in, int n);
