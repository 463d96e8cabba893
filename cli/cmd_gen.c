/* SPDX-License-Identifier: GPL-3.0-or-later */
/* cgmodel gen KIND --n SIZE -o A.mtx: the synthetic matrices of sparse/. */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "cli/args.h"
#include "cli/commands.h"
#include "cli/dbopen.h"
#include "cli/outcheck.h"
#include "cli/output.h"

static const char help[] =
    "usage: cgmodel gen KIND --n SIZE -o A.mtx [options]\n"
    "       cgmodel gen kron --with B.mtx --k K -o A.mtx\n"
    "  poisson2d      5-point Laplacian on an n x n grid (n^2 rows)\n"
    "  poisson3d      7-point Laplacian on an n x n x n grid (n^3 rows)\n"
    "  elasticity3d   trilinear hexahedra, 3 unknowns per node, n^3 elements (3 n (n+1)^2 rows)\n"
    "  random         random SPD with n rows: --avg A (row length), --dist uniform|powerlaw,\n"
    "                 --alpha a (power-law exponent, default 2.5), --maxlen L, --seed S\n"
    "  mesh3d         random geometric mesh of n points in the unit cube, each joined to its\n"
    "                 --k nearest (default 8), 3 unknowns a point (3n rows), a spring block a\n"
    "                 edge; --numbering sorted|random (default sorted), --seed S,\n"
    "                 --contrast C: stiffness jumping by up to C between 4^3 regions\n"
    "                 (default 1; 1e8 gives condition numbers near 1e11)\n"
    "  kron           the Kronecker sum B (+) T_k of --with B.mtx and the 1D Laplacian of --k\n"
    "                 layers (k rows per row of B)\n"
    "  --symmetric    write only the lower triangle (smaller files)\n";

int cmd_gen(int argc, char **argv) {
  cli_args a;
  cli_args_init(&a, argc - 1, argv + 1);
  const char *out = NULL, *dist = "uniform", *numbering = "sorted", *with = NULL;
  int64_t n = 0, maxlen = 0, seed = 1, k = 0;
  double avg = 8.0, alpha = 2.5, contrast = 1.0;
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
    else if (cli_opt(&a, "--numbering"))
      numbering = a.value;
    else if (cli_opt(&a, "--with"))
      with = a.value;
    else if (cli_int(&a, "--k", 1, 2147483647, &k)) {
    } else if (cli_int(&a, "--n", 1, 2147483647, &n)) {
    } else if (cli_int(&a, "--maxlen", 1, 2147483647, &maxlen)) {
    } else if (cli_int(&a, "--seed", 0, INT64_MAX, &seed)) {
    } else if (cli_double(&a, "--avg", 1.0, 1e6, &avg)) {
    } else if (cli_double(&a, "--alpha", 1.01, 100.0, &alpha)) {
    } else if (cli_double(&a, "--contrast", 1.0, 1e15, &contrast)) {
    } else
      cli_unknown(&a);
  }
  if (cli_failed(&a)) return cli_error("gen", 2, "%s", a.error);
  const char *kind = a.npositional == 1 ? a.positional[0] : "";
  const bool kron = strcmp(kind, "kron") == 0;
  if (a.npositional != 1 || !out || (kron ? !with || k <= 0 : n <= 0))
    return cli_error("gen", 2, "expected KIND, %s and -o\n%s", kron ? "--with and --k" : "--n",
                     help);
  /* gen reads at most --with, but the database must survive a mistyped -o too */
  char dbbuf[1024];
  const cli_input in[] = {{"the database", cli_db_path(NULL, dbbuf, sizeof dbbuf)},
                          {"the --with matrix", kron ? with : NULL}};
  int rc = cli_refuse_alias("gen", "-o", out, NULL, in, 2);
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
  } else if (strcmp(kind, "mesh3d") == 0) {
    cgm_numbering nm;
    if (strcmp(numbering, "sorted") == 0)
      nm = CGM_NUMBERING_SORTED;
    else if (strcmp(numbering, "random") == 0)
      nm = CGM_NUMBERING_RANDOM;
    else
      return cli_error("gen", 2, "--numbering: '%s' is not sorted or random", numbering);
    if (k > 64) return cli_error("gen", 2, "option --k: %lld neighbours, at most 64", (long long)k);
    st =
        cgm_gen_mesh3d_coef((int32_t)n, k > 0 ? (int)k : 8, nm, (uint64_t)seed, contrast, &A, &err);
  } else if (kron) {
    cgm_csr B;
    if ((st = cgm_mm_read_csr(with, &B, NULL, &err))) return cli_report("gen", &err);
    st = cgm_gen_kron_sum(&B, (int32_t)k, &A, &err);
    cgm_csr_free(&B);
    if (st) { /* name the input */
      cgm_error e2 = err;
      cgm_fail(&err, e2.code, "%s: %s", with, e2.msg);
    }
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
