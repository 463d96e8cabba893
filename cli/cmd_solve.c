/* SPDX-License-Identifier: GPL-3.0-or-later */
/* cgmodel solve A.mtx [...]: Jacobi-PCG on the chosen backend. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "cgmodel/pipeline.h"
#include "cgmodel/run_solve.h"
#include "cli/commands.h"
#include "cli/dbopen.h"
#include "cli/env.h"
#include "cli/outcheck.h"
#include "cli/output.h"
#include "pipeline/request.h"

static const cli_opt opts[] = {
    {"--rhs", "rhs", CLI_PATH, 0, "b.mtx", "A * ones", "the right-hand side"},
    {"--x0", "x0", CLI_PATH, 0, "x0.mtx", "zeros", "the initial guess"},
    {"--backend", "backend", CLI_CHOICE, "cpu|cuda|cusparse", 0, "cuda with a GPU", "the backend"},
    {"--block", "block", CLI_INT, 0, "N", "1", "the BCSR block size: 1, 2, 4 or 8"},
    {"--bx", "bx", CLI_INT, 0, "K", "per matrix", "blocks of a block row a step, B_x"},
    {"--gpus", "gpus", CLI_INT, 0, "G", "1", "GPUs (cuda)"},
    {"--exchange", "exchange", CLI_CHOICE, "halo|p2p|host|nccl", 0, "halo", "on several GPUs"},
    {"--precision", "precision", CLI_CHOICE, "double|mixed|single", 0, "double", "the arithmetic"},
    {"--storage", "storage", CLI_CHOICE, "auto|full|compact", 0, "auto", "the matrix's values"},
    {"--tol", "tol", CLI_REAL, 0, "T", "1e-8", "the true ||b - Ax|| / ||b|| to reach"},
    {"--atol", "atol", CLI_REAL, 0, "A", "none", "or ||b - Ax|| <= A (SciPy's atol)"},
    {"--maxiter", "maxiter", CLI_INT, 0, "K", "10 x the rows, >= 1000", "the iteration cap"},
    {"--check-every", "check_every", CLI_INT, 0, "K", "32; 8 in single", "GPU: convergence tests"},
    {"--threads", "threads", CLI_INT, 0, "T", "OpenMP's", "CPU threads (a rank's under MPI)"},
    {"--monitor", "monitor", CLI_OPTINT, "1", "[K]", "off",
     "print the residual every K iterations"},
    {"--precond", "precond", CLI_CHOICE, "jacobi|block", 0, "jacobi", "block: block-Jacobi"},
    {"--precond-block", "precond_block", CLI_INT, 0, "B", "the point block",
     "block-Jacobi's block"},
    {"--reorder", "reorder", CLI_CHOICE, "auto|none|rcm", 0, "auto: when it pays",
     "rcm: RCM first"},
    {"--mpi", "mpi", CLI_TRUE, 0, 0, "under mpirun", "one process per MPI rank"},
    {"--partition", "partition", CLI_CHOICE, "rows|metis", 0, "rows", "MPI: the rows' partition"},
    {"--auto", "auto", CLI_TRUE, 0, 0, 0, "the tuner chooses (needs a calibration)"},
    {"--iters-hint", "iters_hint", CLI_REAL, 0, "K", 0, "--auto: double precision's iterations"},
    CLI_DB,
    {"--no-record", "record", CLI_FALSE, 0, 0, 0, "do not store this solve in the database"},
    {"-o", "out", CLI_PATH, 0, "x.mtx", 0, "write the solution"},
    CLI_JSON,
    CLI_OPTIONS,
    {"-v", "verbose", CLI_TRUE, 0, 0, 0, "also say what --reorder auto decided"},
    {0}};

/* The ranks of MPI_COMM_WORLD, 0 when MPI was not started (solve_start). */
static int mpi_ranks = 0;
/* Under MPI: whether this rank has agreed with the others on its start. */
static bool mpi_agreed = false;

/* Under MPI, before any collective call: every rank's parse and checks agreed on (a rank that
 * failed makes every rank exit with its message; no rank is left waiting for it), and every rank
 * given the same request (threads apart). rc: this rank's outcome so far; req: its request (NULL
 * after a failed parse). */
static int mpi_agree(int rc, const cJSON *req) {
  if (mpi_ranks < 2 || mpi_agreed) return rc;
  mpi_agreed = true;
  uint64_t h = 1469598103934665603ull; /* FNV-1a of the request's text */
  cJSON *copy = req ? cJSON_Duplicate(req, true) : NULL;
  cJSON_DeleteItemFromObjectCaseSensitive(copy, "threads");
  char *text = copy ? cJSON_PrintUnformatted(copy) : NULL;
  for (const char *c = text; c && *c; c++) h = (h ^ (unsigned char)*c) * 1099511628211ull;
  cJSON_free(text);
  cJSON_Delete(copy);
  cgm_error err = {0};
  if (rc) snprintf(err.msg, sizeof err.msg, "%s", cli_last_error);
  const cgm_status st = cgm_dist_agree_start(rc ? (cgm_status)rc : CGM_OK, h, &err);
  if (st && !rc) return cli_error("solve", (int)st, "%s", err.msg); /* another rank's */
  return rc;
}

/* --monitor: the solver's relative residual as it goes, on stderr. */
static void print_residual(void *ctx, int iteration, double relres) {
  fprintf(stderr, "cgmodel solve: iteration %d relative residual %.6e\n", iteration, relres);
}

static void print_human(const cgm_solve_report *rep) {
  const cgm_solve_result *r = &rep->result;
  const cgm_solve_opts *o = &rep->opts;
  char name[4096];
  const char *on = r->device[0] ? " on " : ""; /* none: refused before a backend ran */
  printf("matrix      %s (%d x %d, %lld nonzeros)\n", cli_escape(rep->matrix, name, sizeof name),
         rep->nrows, rep->ncols, (long long)rep->nnz);
  if (rep->dist.ranks > 0) /* each rank multiplies its rows in CSR: no block layout */
    printf("backend     %s%s%s, %s precision, CSR rows, Jacobi preconditioner\n",
           cgm_backend_name(o->backend), on, r->device, cgm_precision_name(o->precision));
  else
    printf("backend     %s%s%s, %s precision, block %d x %d, B_x %d, %s preconditioner\n",
           cgm_backend_name(o->backend), on, r->device, cgm_precision_name(o->precision),
           o->layout.n, o->layout.n, o->layout.bx,
           o->precond == CGM_PRECOND_BLOCK ? "block-Jacobi" : "Jacobi");
  if (r->converged)
    printf("converged   yes, %d iteration%s\n", r->iterations, r->iterations == 1 ? "" : "s");
  else
    printf("converged   NO after %d iteration%s: %s\n", r->iterations,
           r->iterations == 1 ? "" : "s", r->stop_reason);
  if (r->device[0])
    printf("residual    ||b - Ax|| / ||b|| = %.3e (solver estimate %.3e, target %.1e)\n",
           r->relative_residual, r->solver_residual, rep->tol);
  else
    printf("residual    ||b - Ax|| / ||b|| = %.3e (target %.1e)\n", r->relative_residual, rep->tol);
  if (rep->solution_error >= 0)
    printf("error       ||x - 1|| / ||1|| = %.3e (b = A * ones)\n", rep->solution_error);
  if (r->device[0])
    printf("time        %.3f us per iteration (median), %.3f ms solve, %.3f ms setup\n",
           1e6 * r->time_per_iter_s, 1e3 * r->time_solve_s, 1e3 * r->time_setup_s);
  if (rep->dist.ranks > 0)
    printf("mpi         %d ranks, %s partition, %d to %d rows a rank, halo %lld entries an "
           "iteration by %s (at most %lld into one rank, from %d ranks)\n",
           rep->dist.ranks, cgm_dist_partition_name(rep->dist.partition), rep->dist.rows_min,
           rep->dist.rows_max, (long long)rep->dist.halo_entries, rep->dist.exchange,
           (long long)rep->dist.halo_max, rep->dist.neighbours_max);
  if (r->reordered)
    printf("reordered   reverse Cuthill-McKee, %.3f ms (in setup)\n", 1e3 * r->time_reorder_s);
  printf("read        %.3f ms (matrix cache: %s%s)\n", 1e3 * rep->time_read_s,
         cgm_cache_outcome_name(rep->cache.outcome), rep->cache.stored ? ", stored" : "");
  if (isfinite(rep->predicted) && r->time_per_iter_s > 0)
    printf("predicted   %.3f us per iteration (%+.1f%% against the measured time)\n",
           1e6 * rep->predicted, 100.0 * (rep->predicted / r->time_per_iter_s - 1.0));
}

/* What the notes depend on. */
typedef struct {
  bool json, autotune, verbose, reorder_given;
  const cgm_solve_report *rep;
} solve_view;

/* The pipeline's notes: --auto's choice before the report (not with --json, which has it as
 * "auto"); the reordering's verdict when it reordered, was asked for (--reorder) or with -v; the
 * rest as every command's. */
static void solve_note(void *ctx, cgm_note_kind kind, const char *msg) {
  static char cmd[] = "solve", autocmd[] = "solve --auto";
  const solve_view *v = ctx;
  if (kind != CGM_NOTE_INFO)
    cli_note(cmd, kind, msg);
  else if (v->json)
    return;
  else if (v->autotune && !strcmp(msg, v->rep->why))
    cli_note(autocmd, kind, msg);
  else if (v->verbose || v->reorder_given || v->rep->opts.reorder == CGM_REORDER_RCM)
    cli_note(cmd, kind, msg);
}

/* The request's paths, the environment's defaults and the checks made
 * before anything is read: 0, or the exit code once the error is printed. */
static int prepare(const cli_parsed *p, cgm_run_solve_opts *o, char *dbpath, char *cache,
                   size_t n) {
  cgm_error err = {0};
  if (cgm_solve_request(p->req, o, &err)) return cli_report("solve", &err);
  if (p->npos != 1) return cli_error("solve", 2, "expected one matrix file (cgmodel solve --help)");
  const char *in[] = {p->pos[0], o->rhs, o->x0_path};
  if ((!strcmp(in[0], "-")) + (in[1] && !strcmp(in[1], "-")) + (in[2] && !strcmp(in[2], "-")) > 1)
    return cli_error("solve", 2,
                     "at most one of the matrix, --rhs and --x0 is standard input ('-')");
  o->matrix = cli_input_path(p->pos[0]);
  o->rhs = cli_input_path(o->rhs);
  o->x0_path = cli_input_path(o->x0_path);
  o->db_path = cli_db_path(o->db_path, dbpath, n);
  o->db_readonly = cli_env_db_readonly();
  if (!o->cache.dir && !cli_true(p->req, "no_cache") && !cli_env_cache_dir(cache, n))
    o->cache.dir = cache;
  char emsg[256];
  if (cli_env_gpu_opts(&o->solve.gpu, emsg, sizeof emsg)) return cli_error("solve", 2, "%s", emsg);
  if (o->mpi && !mpi_ranks)
    return cli_error("solve", 2, "--mpi: MPI starts before --options is read: give --mpi");
  if (cli_str(p->req, "partition", NULL) && !o->mpi && mpi_ranks < 2)
    return cli_error("solve", 2, "--partition is for an MPI solve (mpirun -n P, or --mpi)");
  o->mpi = o->mpi || mpi_ranks > 1;
  /* the settle's checks now, before the matrix is read (cgm_run_solve
   * settles the options again for the matrix) */
  cgm_solve_opts early = o->solve;
  if (cgm_solve_opts_settle(&early, NULL, &err)) return cli_report("solve", &err);
  const cli_input inputs[] = {{"the database", o->db_path},
                              {"the matrix", o->matrix},
                              {"the right-hand side", o->rhs},
                              {"the initial guess", o->x0_path}};
  return cli_refuse_alias("solve", "-o", cli_str(p->local, "out", NULL), NULL, inputs, 4);
}

static int solve_body(const cli_parsed *p) {
  cgm_run_solve_opts o;
  char dbpath[4096], cache[4096];
  int rc = mpi_agree(prepare(p, &o, dbpath, cache, sizeof dbpath), p->req);
  if (rc || cli_parse_only) return rc;
  cgm_solve_report rep;
  const char *out = cli_str(p->local, "out", NULL);
  const bool json = cli_true(p->local, "json");
  solve_view view = {json, o.autotune, cli_true(p->local, "verbose"),
                     cli_str(p->req, "reorder", NULL) != NULL, &rep};
  if (o.solve.monitor) o.solve.monitor = print_residual;
  o.note = solve_note;
  o.note_ctx = &view;
  cgm_error err = {0};
  cgm_status st = cgm_run_solve(&o, &rep, &err);
  if (!rep.solved) {
    rc = rep.auto_none ? cli_error("solve", 2, "--auto: %s", rep.why) : cli_report("solve", &err);
    cgm_solve_report_free(&rep);
    return rc;
  }
  if (json) {
    cJSON *j = cgm_solve_report_json(&rep);
    cJSON_AddItemToObject(j, "request", cgm_solve_request_json(&o, &rep));
    rc = cli_print_json(j);
  } else
    print_human(&rep);
  if (st == CGM_ENOCONV) {
    cli_report("solve", &err);
    rc = 1;
  }
  if (out && st == CGM_OK && rep.x) { /* rank 0 alone holds x */
    if (cgm_mm_write_vector(out, rep.x, rep.nrows, &err)) rc = cli_report("solve", &err);
  }
  cgm_solve_report_free(&rep);
  return rc;
}

/* Whether --mpi is among the arguments (MPI starts before they are parsed,
 * so that a usage error is printed once, by rank 0). */
static int asks_mpi(int argc, char **argv) {
  for (int i = 1; i < argc; i++)
    if (!strcmp(argv[i], "--mpi")) return 1;
  return 0;
}

/* Under an MPI launcher (or with --mpi) MPI starts first; ranks other than 0 print nothing (their
 * stdout and stderr go to /dev/null): every message they could print, rank 0 prints too, since the
 * ranks agree on each outcome (docs/distributed.md). */
static int solve_start(const cli_command *c, int argc, char **argv) {
  int rank = 0;
  /* (parsing only, as the command-line fuzzer drives it: MPI never starts) */
  if (!cli_parse_only && (cli_env_under_mpi() || asks_mpi(argc, argv))) {
    cgm_error err = {0};
    if (!cgm_have_mpi_build()) {
      if (asks_mpi(argc, argv))
        return cli_error("solve", 3,
                         "--mpi: this build of cgmodel has no MPI (docs/distributed.md)");
    } else {
      if (cgm_dist_init(&argc, &argv, &rank, &mpi_ranks, &err)) return cli_report("solve", &err);
      if (rank > 0 && (!freopen("/dev/null", "w", stdout) || !freopen("/dev/null", "w", stderr))) {
        cgm_dist_finalize();
        return 3;
      }
    }
  }
  int rc = cli_run(c, argc, argv);
  rc = mpi_agree(rc, NULL); /* a parse that failed before the checks: the others are told */
  cgm_dist_finalize();
  return rc;
}

const cli_command cli_solve = {
    "solve", "A.mtx",         NULL,       "CG on a chosen configuration, or the tuner's (--auto)",
    opts,    cli_cache_table, solve_body, solve_start};
