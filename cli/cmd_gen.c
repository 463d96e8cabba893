/* SPDX-License-Identifier: GPL-3.0-or-later */
/* cgmodel gen KIND --n SIZE -o A.mtx: the synthetic matrices of sparse/. */
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "cli/commands.h"
#include "cli/dbopen.h"
#include "cli/outcheck.h"
#include "cli/output.h"

static const cli_opt opts[] = {
    {"--n", "n", CLI_INT, 0, "SIZE", 0, "the grid's size, the rows (random), the points (mesh3d)",
     1, INT_MAX},
    {"-o", "out", CLI_PATH, 0, "A.mtx", 0, "the matrix written"},
    {"--symmetric", "symmetric", CLI_TRUE, 0, 0, 0, "write the lower triangle alone"},
    {"--avg", "avg", CLI_REAL, 0, "A", "8", "random: the mean row length", 1, 1e6},
    {"--dist", "dist", CLI_CHOICE, "uniform|powerlaw", 0, "uniform",
     "random: the row lengths' law"},
    {"--alpha", "alpha", CLI_REAL, 0, "a", "2.5", "random --dist powerlaw: the exponent", 1.01,
     100},
    {"--maxlen", "maxlen", CLI_INT, 0, "L", "min(n, 1000 A)", "random: the longest row", 1,
     INT_MAX},
    {"--seed", "seed", CLI_INT, 0, "S", "1", "random, mesh3d: the seed", 0, 9007199254740992.0},
    {"--k", "k", CLI_INT, 0, "K", "8 (mesh3d)", "mesh3d: neighbours a point; kron: layers", 1,
     INT_MAX},
    {"--numbering", "numbering", CLI_CHOICE, "sorted|random", 0, "sorted",
     "mesh3d: the points' numbering"},
    {"--contrast", "contrast", CLI_REAL, 0, "C", "1",
     "mesh3d: the stiffness jumps between regions"},
    {"--with", "with", CLI_PATH, 0, "B.mtx", 0, "kron: the matrix B of B (+) T_k"},
    {0}};

static int body(const cli_parsed *p) {
  const cJSON *r = p->req;
  const char *out = cli_str(p->local, "out", NULL), *with = cli_str(r, "with", NULL);
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
  /* -o -: standard output (gen -o - | cgmodel solve -), written in place */
  int rc = strcmp(out, "-") ? cli_refuse_alias("gen", "-o", out, NULL, in, 2) : 0;
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

static const char kinds[] = "poisson2d|poisson3d|elasticity3d|random|mesh3d|kron";
const cli_command cli_gen = {"gen", kinds, kinds, "synthetic SPD matrices", opts, NULL, body, NULL};
