/* SPDX-License-Identifier: GPL-3.0-or-later */
/* cgmodel: dispatch to the subcommands. */
#include <stdio.h>
#include <string.h>

#include "cgmodel/cgmodel.h"
#include "cli/commands.h"

static const char usage[] =
    "usage: cgmodel <command> [options]\n"
    "\n"
    "commands:\n"
    "  info      A.mtx [--json]                      features of a matrix\n"
    "  solve     A.mtx [--rhs b.mtx] [--auto | --backend cpu|cuda|cusparse --block N --gpus G]\n"
    "            [--precision single|double] [--tol T] [--maxiter K] [--monitor [K]] [-o x.mtx]\n"
    "            [--json]\n"
    "  gen       poisson2d|poisson3d|elasticity3d|random --n SIZE -o A.mtx\n"
    "  calibrate [--devices cpu|cuda:all|cuda:0,1] [--quick] [--precision single|double|both]\n"
    "            [--db FILE] [--json]\n"
    "  predict   A.mtx [--gpus G] [--block N|auto] [--precision P] [--db FILE] [--json]\n"
    "  validate  LIST_OR_DIR [--gpus G] [--csv FILE] [--json]   predicted against measured,\n"
    "            and tuner regret\n"
    "  map       [--gpus G] [--block N] [--exchange E] [--max|--avg] [--mark A.mtx]\n"
    "            -o FILE.png|.svg                   Fig. 8 maps\n"
    "  plot      calibration|accuracy -o FILE.png|.svg   calibration fits, predicted vs measured\n"
    "  db        list | show ID | export ID -o FILE | solves | refit ID\n"
    "  cache     list [--json] | clear                  the matrix cache\n"
    "  help      [COMMAND]                           this text, or a command's options\n"
    "  version   print the version, the commit and the CUDA runtime\n"
    "  devices   [--db FILE] [--json]               GPUs, CPU, NCCL/MPI and their calibrations\n"
    "\n"
    "A.mtx may be '-': the matrix is read from standard input.\n"
    "Run 'cgmodel <command> --help' for the options of a command.\n"
    "Exit codes: 0 success, 1 solve did not converge, 2 bad usage or input, 3 runtime failure.\n";

typedef struct {
  const char *name;
  int (*fn)(int argc, char **argv);
} command;

static const command commands[] = {
    {"info", cmd_info},           {"solve", cmd_solve},     {"gen", cmd_gen},
    {"calibrate", cmd_calibrate}, {"predict", cmd_predict}, {"db", cmd_db},
    {"validate", cmd_validate},   {"map", cmd_map},         {"plot", cmd_plot},
    {"version", cmd_version},     {"devices", cmd_devices}, {"cache", cmd_cache},
};

static const command *find(const char *name) {
  for (size_t i = 0; i < sizeof commands / sizeof *commands; i++)
    if (!strcmp(commands[i].name, name)) return &commands[i];
  return NULL;
}

int main(int argc, char **argv) {
  if (argc < 2 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 ||
      (strcmp(argv[1], "help") == 0 && argc == 2)) {
    fputs(usage, argc < 2 ? stderr : stdout);
    return argc < 2 ? 2 : 0;
  }
  const char *cmd = argv[1];
  if (!strcmp(cmd, "help")) { /* help COMMAND: that command's --help */
    const command *c = argc == 3 ? find(argv[2]) : NULL;
    if (!c) {
      fprintf(stderr, "cgmodel help: error: %s\n\n%s",
              argc == 3 ? "unknown command" : "expected one command", usage);
      return 2;
    }
    char help_flag[] = "--help";
    char *hargv[] = {argv[2], help_flag, NULL};
    return c->fn(2, hargv);
  }
  if (!strcmp(cmd, "--version")) return cmd_version(argc - 1, argv + 1);
  const command *c = find(cmd);
  if (c) return c->fn(argc - 1, argv + 1);
  fprintf(stderr, "cgmodel: error: unknown command '%s'\n\n%s", cmd, usage);
  return 2;
}
