/* SPDX-License-Identifier: GPL-3.0-or-later */
/* cgmodel: dispatch to the commands (cli/commands.c). */
#include <stdio.h>
#include <string.h>

#include "cli/commands.h"
#include "common/escape.h"

int main(int argc, char **argv) {
  if (argc < 2) {
    cli_usage(stderr);
    return 2;
  }
  const char *name = argv[1];
  if (!strcmp(name, "--help") || !strcmp(name, "-h")) name = "help";
  if (!strcmp(name, "--version")) name = "version";
  if (!strcmp(name, "__options")) return cli_print_tables(); /* for the man pages */
  const cli_command *c = cli_command_find(name);
  if (c) return cli_main(c, argc - 1, argv + 1);
  fputs("cgmodel: error: unknown command '", stderr);
  cgm_fput_escaped(stderr, name, false);
  fputs("'\n\n", stderr);
  cli_usage(stderr);
  return 2;
}
