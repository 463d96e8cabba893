/* cgmodel gen KIND --n SIZE -o A.mtx: the synthetic matrices of sparse/. */
#include <stdio.h>
#include <string.h>

#include "cli/args.h"
#include "cli/commands.h"
#include "cli/dbopen.h"
#include "cli/outcheck.h"
#include "cli/output.h"

static const char help[] =
    "usage: cgmodel gen KIND --n SIZE -o A.mtx [options]\n"
    "  poisson2d      5-point Laplacian on an n x n grid (n^2 rows)\n"
    "  poisson3d      7-point Laplacian on an n x n x n grid (n^3 rows)\n"
    "  elasticity3d   trilinear hexahedra, 3 unknowns per node, n^3 elements (3 n (n+1)^2 rows)\n"
    "  random         random SPD with n rows: --avg A (row length), --dist uniform|powerlaw,\n"
    "                 --alpha a (power-law exponent, default 2.5), --maxlen L, --seed S\n"
    "  --symmetric    write only the lower triangle (smaller files)\n";

int cmd_gen(int argc, char **argv) {
  cli_args a;
  cli_args_init(&a, argc - 1, argv + 1);
  const char *out = NULL, *dist = "uniform";
  int64_t n = 0, maxlen = 0, seed = 1;
  double avg = 8.0, alpha = 2.5;
  int symmetric = 0;
  while (cli_next(&a)) {
    if (cli_flag(&a, "--help") || cli_flag(&a, "-h")) {
      fputs(help, stdout);
      return 0;
    } else if (cli_flag(&a, "--symmetric"))
      symmetric = 1;
    else if (cli_opt(&a, "-o"))
      out = a.value;
    else if (cli_opt(&a, "--dist"))
      dist = a.value;
    else if (cli_int(&a, "--n", 1, 2147483647, &n)) {
    } else if (cli_int(&a, "--maxlen", 1, 2147483647, &maxlen)) {
    } else if (cli_int(&a, "--seed", 0, INT64_MAX, &seed)) {
    } else if (cli_double(&a, "--avg", 1.0, 1e6, &avg)) {
    } else if (cli_double(&a, "--alpha", 1.01, 100.0, &alpha)) {
    } else
      cli_unknown(&a);
  }
  if (cli_failed(&a)) return cli_error("gen", 2, "%s", a.error);
  if (a.npositional != 1 || !out || n <= 0)
    return cli_error("gen", 2, "expected KIND, --n and -o\n%s", help);
  const char *kind = a.positional[0];
  /* gen reads nothing, but the database must survive a mistyped -o */
  char dbbuf[1024];
  const cli_input dbin = {"the database", cli_db_path(NULL, dbbuf, sizeof dbbuf)};
  int rc = cli_refuse_alias("gen", "-o", out, NULL, &dbin, 1);
  if (rc || cli_parse_only) return rc;
  cgm_error err = {0};
  cgm_csr A;
  cgm_status st;
  if (strcmp(kind, "poisson2d") == 0)
    st = cgm_gen_poisson2d((int32_t)n, &A, &err);
  else if (strcmp(kind, "poisson3d") == 0)
    st = cgm_gen_poisson3d((int32_t)n, &A, &err);
  else if (strcmp(kind, "elasticity3d") == 0)
    st = cgm_gen_elasticity3d((int32_t)n, &A, &err);
  else if (strcmp(kind, "random") == 0) {
    cgm_rowdist d;
    if (strcmp(dist, "uniform") == 0)
      d = CGM_ROWDIST_UNIFORM;
    else if (strcmp(dist, "powerlaw") == 0)
      d = CGM_ROWDIST_POWERLAW;
    else
      return cli_error("gen", 2, "--dist: '%s' is not uniform or powerlaw", dist);
    st = cgm_gen_random_spd((int32_t)n, avg, d, alpha, (int32_t)maxlen, (uint64_t)seed, &A, &err);
  } else
    return cli_error("gen", 2, "unknown kind '%s'\n%s", kind, help);
  if (st) return cli_report("gen", &err);
  st = cgm_mm_write_csr(out, &A, symmetric, &err);
  if (!st)
    fprintf(stderr, "cgmodel gen: %s: %d x %d, %lld nonzeros\n", out, A.nrows, A.ncols,
            (long long)A.nnz);
  cgm_csr_free(&A);
  return st ? cli_report("gen", &err) : 0;
}
