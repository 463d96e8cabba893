/* SPDX-License-Identifier: GPL-3.0-or-later */
/* cgmodel gen KIND --n SIZE -o A.mtx: the synthetic matrices of sparse/. */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "cli/commands.h"
#include "cli/dbopen.h"
#include "cli/outcheck.h"
#include "cli/output.h"

#define I32 .lo = 1, .hi = 2147483647
static const cli_opt opts[] = {
    {"--n", "n", CLI_INT, "SIZE", NULL,
     "the grid size (poisson2d: n^2 rows, poisson3d: n^3, elasticity3d: 3 n (n+1)^2), the rows "
     "(random), the points (mesh3d: 3n rows)",
     I32},
    {"-o", "out", CLI_PATH, "A.mtx", NULL, "the matrix written"},
    {"--symmetric", "symmetric", CLI_TRUE, NULL, NULL,
     "write only the lower triangle (smaller files)"},
    {"--avg", "avg", CLI_REAL, "A", "8", "random: the mean row length", .lo = 1, .hi = 1e6},
    {"--dist", "dist", CLI_CHOICE, NULL, "uniform", "random: the row lengths' distribution",
     .values = "uniform|powerlaw"},
    {"--alpha", "alpha", CLI_REAL, "a", "2.5", "random --dist powerlaw: the exponent", .lo = 1.01,
     .hi = 100},
    {"--maxlen", "maxlen", CLI_INT, "L", "min(n, 1000 A)", "random: the longest row", I32},
    {"--seed", "seed", CLI_INT, "S", "1", "random, mesh3d: the seed", .lo = 0,
     .hi = 9007199254740992.0},
    {"--k", "k", CLI_INT, "K", "8 for mesh3d", "mesh3d: each point's nearest joined; kron: layers",
     I32},
    {"--numbering", "numbering", CLI_CHOICE, NULL, "sorted",
     "mesh3d: points numbered cell by cell, or at random", .values = "sorted|random"},
    {"--contrast", "contrast", CLI_REAL, "C", "1",
     "mesh3d: stiffness jumping by up to C between 4^3 regions (1e8 gives condition numbers near "
     "1e11)"},
    {"--with", "with", CLI_PATH, "B.mtx", NULL, "kron: the matrix B of B (+) T_k"},
    {0},
};

static int body(const cli_parsed *p) {
  const cJSON *r = p->req;
  const char *out = cli_str(r, "out", NULL), *with = cli_str(r, "with", NULL);
  const int n = (int)cli_num(r, "n", 0), k = (int)cli_num(r, "k", 0);
  const char *kind = p->npos == 1 ? p->pos[0] : "";
  const bool kron = strcmp(kind, "kron") == 0;
  if (p->npos != 1 || !out || (kron ? !with || k <= 0 : n <= 0))
    return cli_error("gen", 2, "expected KIND, %s and -o (cgmodel gen --help)",
                     kron ? "--with and --k" : "--n");
  /* gen reads at most --with, but the database must survive a mistyped -o too */
  char dbbuf[1024];
  const cli_input in[] = {{"the database", cli_db_path(NULL, dbbuf, sizeof dbbuf)},
                          {"the --with matrix", kron ? with : NULL}};
  int rc = cli_refuse_alias("gen", "-o", out, NULL, in, 2);
  if (rc || cli_parse_only) return rc;
  const uint64_t seed = (uint64_t)cli_num(r, "seed", 1);
  cgm_error err = {0};
  cgm_csr A;
  cgm_status st;
  if (strcmp(kind, "poisson2d") == 0)
    st = cgm_gen_poisson2d(n, &A, &err);
  else if (strcmp(kind, "poisson3d") == 0)
    st = cgm_gen_poisson3d(n, &A, &err);
  else if (strcmp(kind, "elasticity3d") == 0)
    st = cgm_gen_elasticity3d(n, &A, &err);
  else if (strcmp(kind, "random") == 0)
    st = cgm_gen_random_spd(
        n, cli_num(r, "avg", 8.0),
        !strcmp(cli_str(r, "dist", ""), "powerlaw") ? CGM_ROWDIST_POWERLAW : CGM_ROWDIST_UNIFORM,
        cli_num(r, "alpha", 2.5), (int32_t)cli_num(r, "maxlen", 0), seed, &A, &err);
  else if (strcmp(kind, "mesh3d") == 0)
    st = cgm_gen_mesh3d_coef(n, k > 0 ? k : 8,
                             !strcmp(cli_str(r, "numbering", ""), "random") ? CGM_NUMBERING_RANDOM
                                                                            : CGM_NUMBERING_SORTED,
                             seed, cli_num(r, "contrast", 1.0), &A, &err);
  else if (kron) {
    cgm_csr B;
    if ((st = cgm_mm_read_csr(with, &B, NULL, &err))) return cli_report("gen", &err);
    st = cgm_gen_kron_sum(&B, k, &A, &err);
    cgm_csr_free(&B);
    if (st) cgm_error_prefix(&err, "%s: ", with); /* name the input */
  } else
    return cli_error("gen", 2, "unknown kind '%s' (cgmodel gen --help)", kind);
  if (st) return cli_report("gen", &err);
  st = cgm_mm_write_csr(out, &A, cli_true(r, "symmetric"), &err);
  char name[4096];
  if (!st)
    fprintf(stderr, "cgmodel gen: %s: %d x %d, %lld nonzeros\n", cli_escape(out, name, sizeof name),
            A.nrows, A.ncols, (long long)A.nnz);
  cgm_csr_free(&A);
  return st ? cli_report("gen", &err) : 0;
}

const cli_command cli_gen = {
    "gen",
    "poisson2d|poisson3d|elasticity3d|random|mesh3d|kron",
    "poisson2d|poisson3d|elasticity3d|random|mesh3d|kron",
    "synthetic SPD matrices",
    "Writes a synthetic SPD matrix: poisson2d, poisson3d (5- and 7-point Laplacians on an n x n "
    "(x n) grid), elasticity3d (trilinear hexahedra, 3 unknowns a node), random (random SPD with "
    "n rows), mesh3d (a random geometric mesh of n points, each joined to its --k nearest, 3 "
    "unknowns a point, a spring block an edge), kron (the Kronecker sum B (+) T_k of --with "
    "B.mtx and the 1D Laplacian of --k layers: gen kron --with B.mtx --k K -o A.mtx).",
    opts,
    NULL,
    body,
    NULL};
