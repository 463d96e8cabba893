/* SPDX-License-Identifier: GPL-3.0-or-later */
/* libFuzzer harness for the command line's parsing (docs/reliability.md,
 * "Fuzzing"): the input is split at NUL bytes into an argument vector (the
 * first byte picks the subcommand) and handed to that subcommand with
 * cli_parse_only set, so each command parses and checks its options
 * (numbers, lists, ids, the output-alias check) and returns before it reads
 * a matrix, opens the database or touches a device. Properties: no crash,
 * leak or sanitizer report, and the exit code is 0 (accepted) or 2 (usage):
 * parsing never fails as a runtime error (3) or a solve (1). */
#define _POSIX_C_SOURCE 200809L /* setenv, unsetenv */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <fcntl.h>

#include "cli/commands.h"

#define MAX_ARGS 48

/* The commands that parse without touching a device (devices, version,
 * cache and help have nothing to fuzz or describe the machine). */
static const char *const cmds[] = {"info", "solve",    "gen", "calibrate", "predict",
                                   "db",   "validate", "map", "plot"};
#define NCMDS ((int)(sizeof cmds / sizeof cmds[0]))

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc, (void)argv;
  cli_parse_only = true;
  /* Help texts out of the way; the error messages on stderr are closed by
   * scripts/fuzz.sh with -close_fd_mask=2 (libFuzzer keeps the sanitizers'
   * reports). */
  int null = open("/dev/null", O_WRONLY);
  if (null >= 0) {
    dup2(null, STDOUT_FILENO);
    close(null);
  }
  /* Nothing of the environment decides the outcome (cli/env.c reads it). */
  static const char *const vars[] = {
      "CGMODEL_CG",      "CGMODEL_GRAPHS",     "CGMODEL_PDL",
      "CGMODEL_SYNC",    "CGMODEL_LATE",       "CGMODEL_LL",
      "CGMODEL_BALANCE", "CGMODEL_FAULT_CUDA", "CGMODEL_EXCHANGE_TIMEOUT"};
  for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++) unsetenv(vars[i]);
  setenv("CGMODEL_DB", "/nonexistent/cgm-fuzz.db", 1);
  return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 1 || size > 4096) return 0;
  /* a NUL-terminated copy: the last argument ends at the end of the input */
  char *buf = malloc(size + 1);
  if (!buf) return 0;
  memcpy(buf, data + 1, size - 1);
  buf[size - 1] = 0;
  char *argv[MAX_ARGS + 2];
  int argc = 0;
  const cli_command *c = cli_command_find(cmds[data[0] % NCMDS]);
  argv[argc++] = (char *)c->name;
  for (size_t i = 0; i < size - 1 && argc <= MAX_ARGS;) {
    argv[argc++] = buf + i;
    i += strlen(buf + i) + 1;
  }
  argv[argc] = NULL;
  int rc = cli_main(c, argc, argv);
  free(buf);
  if (rc != 0 && rc != 2) {
    fprintf(stderr, "fuzz_cli: %s returned %d while parsing\n", c->name, rc);
    __builtin_trap();
  }
  return 0;
}
