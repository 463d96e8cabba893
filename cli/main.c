/* cgmodel: dispatch to the subcommands. */
#include <stdio.h>
#include <string.h>

#include "cgmodel/cgmodel.h"
#include "cgmodel/dist.h"
#include "cli/commands.h"

static const char usage[] =
    "usage: cgmodel <command> [options]\n"
    "\n"
    "commands:\n"
    "  info      A.mtx [--json]                      features of a matrix\n"
    "  solve     A.mtx [--rhs b.mtx] [--auto | --backend cpu|cuda|cusparse --block N --gpus G]\n"
    "            [--precision single|double] [--tol T] [--maxiter K] [-o x.mtx] [--json]\n"
    "  gen       poisson2d|poisson3d|elasticity3d|random --n SIZE -o A.mtx\n"
    "  calibrate [--devices cpu|cuda:all|cuda:0,1] [--quick] [--db FILE]\n"
    "  predict   A.mtx [--gpus G] [--block N|auto] [--precision P] [--db FILE] [--json]\n"
    "  validate  LIST_OR_DIR [--gpus G] [--json]   predicted against measured, and tuner regret\n"
    "  map       [--gpus G] [--block N] [--max|--avg] [--mark A.mtx] -o FILE.png|.svg   Fig. 8 "
    "maps\n"
    "  plot      calibration|accuracy -o FILE.png|.svg   calibration fits, predicted vs measured\n"
    "  db        list | show ID | export ID -o FILE | solves\n"
    "  version   print the version\n"
    "\n"
    "Run 'cgmodel <command> --help' for the options of a command.\n"
    "Exit codes: 0 success, 1 solve did not converge, 2 bad usage or input, 3 runtime failure.\n";

int main(int argc, char **argv) {
  if (argc < 2 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 ||
      strcmp(argv[1], "help") == 0) {
    fputs(usage, argc < 2 ? stderr : stdout);
    return argc < 2 ? 2 : 0;
  }
  const char *cmd = argv[1];
  if (strcmp(cmd, "info") == 0) return cmd_info(argc - 1, argv + 1);
  if (strcmp(cmd, "solve") == 0) return cmd_solve(argc - 1, argv + 1);
  if (strcmp(cmd, "gen") == 0) return cmd_gen(argc - 1, argv + 1);
  if (strcmp(cmd, "calibrate") == 0) return cmd_calibrate(argc - 1, argv + 1);
  if (strcmp(cmd, "predict") == 0) return cmd_predict(argc - 1, argv + 1);
  if (strcmp(cmd, "db") == 0) return cmd_db(argc - 1, argv + 1);
  if (strcmp(cmd, "validate") == 0) return cmd_validate(argc - 1, argv + 1);
  if (strcmp(cmd, "map") == 0) return cmd_map(argc - 1, argv + 1);
  if (strcmp(cmd, "plot") == 0) return cmd_plot(argc - 1, argv + 1);
  if (strcmp(cmd, "version") == 0 || strcmp(cmd, "--version") == 0) {
    printf("cgmodel %s (%s%s%s)\n", cgm_version(),
           cgm_have_cuda_build() ? "CUDA backend" : "CPU-only build",
           cgm_have_mpi_build() ? ", MPI" : "", cgm_have_metis_build() ? ", METIS" : "");
    return 0;
  }
  fprintf(stderr, "cgmodel: error: unknown command '%s'\n\n%s", cmd, usage);
  return 2;
}
