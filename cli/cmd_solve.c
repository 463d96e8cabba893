/* SPDX-License-Identifier: GPL-3.0-or-later */
/* cgmodel solve A.mtx [...]: Jacobi-PCG on the chosen backend. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cgmodel/pipeline.h"
#include "cgmodel/run_solve.h"
#include "cli/args.h"
#include "cli/cacheopts.h"
#include "cli/commands.h"
#include "cli/dbopen.h"
#include "cli/env.h"
#include "cli/outcheck.h"
#include "cli/output.h"

static const char help[] =
    "usage: cgmodel solve A.mtx [options]      (A.mtx '-': standard input)\n"
    "  --rhs b.mtx            right-hand side (default: b = A * ones, so x = ones)\n"
    "  --backend B            cpu | cuda | cusparse (default: cuda when a GPU is present)\n"
    "  --block N              BCSR block size 1, 2, 4 or 8 (default 1)\n"
    "  --bx K                 blocks of one block row per step, B_x (default: per matrix)\n"
    "  --gpus G               number of GPUs (cuda backend, default 1)\n"
    "  --exchange E           halo | p2p | host | nccl (several GPUs; default halo)\n"
    "  --precision P          double | mixed | single (default double; mixed: single-precision\n"
    "                         iterations, double-precision solution, any tolerance double meets)\n"
    "  --tol T                the true relative residual ||b - Ax||/||b|| to reach (default 1e-8)\n"
    "  --iters-hint K         --auto: double precision's iteration count, when known\n"
    "  --maxiter K            iteration cap (default 10 x dimension, at least 1000)\n"
    "  --check-every K        GPU: test convergence every K iterations\n"
    "  --threads T            CPU threads (default: OpenMP's; per rank under MPI)\n"
    "  --monitor [K]          print the relative residual on stderr every K iterations\n"
    "                         (default 1; GPU: at the convergence checks that follow);\n"
    "                         --json adds residual_history\n"
    "  --precond P            jacobi | block: block-Jacobi inverts the diagonal blocks of\n"
    "                         --precond-block rows (default jacobi; not with cusparse)\n"
    "  --precond-block B      block-Jacobi's block, 1..8 (default: the matrix's point block,\n"
    "                         e.g. 3 for 3 unknowns a node, found from its pattern; else --block)\n"
    "  --reorder R            auto | none | rcm: reverse Cuthill-McKee on the host before the\n"
    "                         solve, x returned in the original numbering (default auto: when\n"
    "                         the calibration predicts it pays over the expected iterations)\n"
    "  --mpi                  one process per MPI rank (implied under mpirun with > 1 rank)\n"
    "  --partition P          MPI: rows | metis (default rows: contiguous row blocks)\n"
    "  -o x.mtx               write the solution\n"
    "  --auto                 let the tuner pick backend, block size, GPUs and precision\n"
    "                         (needs a calibration: cgmodel calibrate)\n"
    "  --db FILE              database for the prediction and the record of this solve\n"
    "                         (solves are recorded once a database exists: calibrate makes it)\n"
    "  --no-record            do not store this solve in the database\n"
    "  --json                 one JSON object on stdout\n" CLI_CACHE_HELP
    "Exit codes: 0 converged, 1 not converged (maxiter, breakdown, not SPD), 2 bad input,\n"
    "3 device or runtime failure.\n";

typedef struct {
  const char *matrix, *rhs, *out, *db;
  int json, autotune, record, explicit_backend, explicit_precision, mpi, partition_given;
  cgm_dist_opts dist;
  const char *layout_option; /* the first of --block, --bx, --gpus, --exchange given */
  double iters_hint;
  cgm_solve_opts o;
  cli_cache cache;
} solve_args;

/* --monitor: the solver's relative residual as it goes, on stderr. */
static void print_residual(void *ctx, int iteration, double relres) {
  (void)ctx;
  fprintf(stderr, "cgmodel solve: iteration %d relative residual %.6e\n", iteration, relres);
}

static int parse(int argc, char **argv, solve_args *s) {
  cli_args a;
  cli_args_init(&a, argc - 1, argv + 1);
  memset(s, 0, sizeof *s);
  s->record = 1;
  cli_cache_init(&s->cache);
  s->o = cgm_solve_opts_default();
  s->dist = cgm_dist_opts_default();
  s->o.reorder = CGM_REORDER_AUTO;
  /* without --backend: CUDA where a GPU is present, which cgm_run_solve
   * finds while it reads the matrix (backend_default) */
  s->o.backend = cgm_have_cuda_build() ? CGM_BACKEND_CUDA : CGM_BACKEND_CPU;
  int64_t v;
  double d;
  while (cli_next(&a)) {
    if (cli_flag(&a, "--json"))
      s->json = 1;
    else if (cli_flag(&a, "--auto"))
      s->autotune = 1;
    else if (cli_flag(&a, "--mpi"))
      s->mpi = 1;
    else if (cli_opt(&a, "--partition")) {
      s->partition_given = 1;
      if (!cgm_dist_partition_parse(a.value, &s->dist.partition))
        return cli_error("solve", 2, "--partition: '%s' is not rows or metis", a.value);
      if (s->dist.partition == CGM_DIST_METIS && !cgm_have_metis_build())
        return cli_error("solve", 2,
                         "--partition metis: this build of cgmodel has no METIS (Debian: "
                         "libmetis-dev)");
    } else if (cli_flag(&a, "--no-record"))
      s->record = 0;
    else if (cli_opt(&a, "--db"))
      s->db = a.value;
    else if (cli_flag(&a, "--help") || cli_flag(&a, "-h")) {
      fputs(help, stdout);
      return -1;
    } else if (cli_opt(&a, "--reorder")) {
      if (!cgm_reorder_parse(a.value, &s->o.reorder))
        return cli_error("solve", 2, "--reorder: '%s' is not auto, none or rcm", a.value);
    } else if (cli_opt(&a, "--precond")) {
      if (!cgm_precond_parse(a.value, &s->o.precond))
        return cli_error("solve", 2, "--precond: '%s' is not jacobi or block", a.value);
    } else if (cli_opt(&a, "--rhs"))
      s->rhs = a.value;
    else if (cli_opt(&a, "-o"))
      s->out = a.value;
    else if (cli_opt(&a, "--backend")) {
      s->explicit_backend = 1;
      if (!cgm_backend_parse(a.value, &s->o.backend))
        return cli_error("solve", 2, "--backend: '%s' is not cpu, cuda or cusparse", a.value);
    } else if (cli_opt(&a, "--precision")) {
      s->explicit_precision = 1;
      if (!cgm_precision_parse(a.value, &s->o.precision))
        return cli_error("solve", 2, "--precision: '%s' is not double, mixed or single", a.value);
    } else if (cli_opt(&a, "--exchange")) {
      if (!s->layout_option) s->layout_option = "--exchange";
      if (!cgm_exchange_parse(a.value, &s->o.exchange))
        return cli_error("solve", 2, "--exchange: '%s' is not nccl, p2p, host or halo", a.value);
    } else if (cli_int(&a, "--precond-block", 1, 8, &v)) {
      s->o.precond_block = (int)v;
    } else if (cli_int(&a, "--block", 1, 8, &v)) {
      s->o.layout.n = (int)v, s->o.layout.by = 0;
      if (!s->layout_option) s->layout_option = "--block";
    } else if (cli_int(&a, "--bx", 1, 1024, &v)) {
      s->o.layout.bx = (int)v;
      if (!s->layout_option) s->layout_option = "--bx";
    } else if (cli_int(&a, "--gpus", 1, CGM_MAX_GPUS, &v)) {
      s->o.gpus = (int)v;
      if (!s->layout_option) s->layout_option = "--gpus";
    } else if (cli_int(&a, "--maxiter", 1, 1000000000, &v))
      s->o.maxiter = (int)v;
    else if (cli_int(&a, "--check-every", 1, 100000, &v))
      s->o.check_every = (int)v;
    else if (cli_flag_or_int(&a, "--monitor", 1, 1000000000, 1, &v))
      s->o.monitor_every = (int)v, s->o.monitor = print_residual;
    else if (cli_int(&a, "--threads", 1, 4096, &v))
      s->o.threads = (int)v;
    else if (cli_double(&a, "--tol", 1e-300, 1.0, &d))
      s->o.tol = d;
    else if (cli_double(&a, "--iters-hint", 1.0, 1e9, &d))
      s->iters_hint = d;
    else if (!cli_cache_arg(&a, &s->cache))
      cli_unknown(&a);
  }
  if (cli_failed(&a)) return cli_error("solve", 2, "%s", a.error);
  char emsg[256];
  if (cli_env_gpu_opts(&s->o.gpu, emsg, sizeof emsg)) return cli_error("solve", 2, "%s", emsg);
  if (s->autotune && s->layout_option)
    return cli_error("solve", 2,
                     "--auto chooses the block size, B_x, GPUs and exchange: drop %s (or --auto)",
                     s->layout_option);
  if (a.npositional != 1) return cli_error("solve", 2, "expected one matrix file\n%s", help);
  if (!strcmp(a.positional[0], "-") && s->rhs && !strcmp(s->rhs, "-"))
    return cli_error("solve", 2, "the matrix and --rhs cannot both be standard input ('-')");
  s->matrix = cli_input_path(a.positional[0]);
  s->rhs = cli_input_path(s->rhs);
  return 0;
}

static void print_human(const cgm_solve_report *rep) {
  const cgm_solve_result *r = &rep->result;
  const cgm_solve_opts *o = &rep->opts;
  printf("matrix      %s (%d x %d, %lld nonzeros)\n", rep->matrix, rep->nrows, rep->ncols,
         (long long)rep->nnz);
  if (rep->dist.ranks > 0) /* each rank multiplies its rows in CSR: no block layout */
    printf("backend     %s on %s, %s precision, CSR rows, Jacobi preconditioner\n",
           cgm_backend_name(o->backend), r->device, cgm_precision_name(o->precision));
  else
    printf("backend     %s on %s, %s precision, block %d x %d, B_x %d, %s preconditioner\n",
           cgm_backend_name(o->backend), r->device, cgm_precision_name(o->precision), o->layout.n,
           o->layout.n, o->layout.bx, o->precond == CGM_PRECOND_BLOCK ? "block-Jacobi" : "Jacobi");
  if (r->converged)
    printf("converged   yes, %d iterations\n", r->iterations);
  else
    printf("converged   NO after %d iterations: %s\n", r->iterations, r->stop_reason);
  printf("residual    ||b - Ax|| / ||b|| = %.3e (solver estimate %.3e, target %.1e)\n",
         r->relative_residual, r->solver_residual, rep->tol);
  if (rep->solution_error >= 0)
    printf("error       ||x - 1|| / ||1|| = %.3e (b = A * ones)\n", rep->solution_error);
  printf("time        %.3f us per iteration (median), %.3f ms solve, %.3f ms setup\n",
         1e6 * r->time_per_iter_s, 1e3 * r->time_solve_s, 1e3 * r->time_setup_s);
  if (rep->dist.ranks > 0)
    printf("mpi         %d ranks, %s partition, %d to %d rows a rank, halo %lld entries an "
           "iteration (at most %lld into one rank, from %d ranks)\n",
           rep->dist.ranks, cgm_dist_partition_name(rep->dist.partition), rep->dist.rows_min,
           rep->dist.rows_max, (long long)rep->dist.halo_entries, (long long)rep->dist.halo_max,
           rep->dist.neighbours_max);
  if (r->reordered)
    printf("reordered   reverse Cuthill-McKee, %.3f ms (in setup)\n", 1e3 * r->time_reorder_s);
  printf("read        %.3f ms (matrix cache: %s%s)\n", 1e3 * rep->time_read_s,
         cgm_cache_outcome_name(rep->cache.outcome), rep->cache.stored ? ", stored" : "");
  if (isfinite(rep->predicted))
    printf("predicted   %.3f us per iteration (%+.1f%% against the measured time)\n",
           1e6 * rep->predicted, 100.0 * (rep->predicted / r->time_per_iter_s - 1.0));
}

/* The pipeline's notes: --auto's choice before the report (not with
 * --json, which has it as "auto"), the rest as every command's. */
static void solve_note(void *ctx, cgm_note_kind kind, const char *msg) {
  const solve_args *s = ctx;
  if (kind != CGM_NOTE_INFO)
    cli_note("solve", kind, msg);
  else if (!s->json)
    fprintf(stderr, "cgmodel solve --auto: %s\n", msg);
}

/* Whether --mpi is among the arguments (MPI starts before they are parsed,
 * so that a usage error is printed once, by rank 0). */
static int asks_mpi(int argc, char **argv) {
  for (int i = 1; i < argc; i++)
    if (!strcmp(argv[i], "--mpi")) return 1;
  return 0;
}

static int solve(int argc, char **argv, int ranks);

/* Under an MPI launcher (or with --mpi) MPI starts first; ranks other than
 * 0 print nothing (their stdout and stderr go to /dev/null): every message
 * they could print, rank 0 prints too, since the ranks agree on each
 * outcome (docs/distributed.md). */
int cmd_solve(int argc, char **argv) {
  int rank = 0, ranks = 0;
  /* (parsing only, as the command-line fuzzer drives it: MPI never starts) */
  if (!cli_parse_only && (cli_env_under_mpi() || asks_mpi(argc, argv))) {
    cgm_error err = {0};
    if (!cgm_have_mpi_build()) {
      if (asks_mpi(argc, argv))
        return cli_error("solve", 3,
                         "--mpi: this build of cgmodel has no MPI (docs/distributed.md)");
    } else {
      if (cgm_dist_init(&argc, &argv, &rank, &ranks, &err)) return cli_report("solve", &err);
      if (rank > 0 && (!freopen("/dev/null", "w", stdout) || !freopen("/dev/null", "w", stderr))) {
        cgm_dist_finalize();
        return 3;
      }
    }
  }
  int rc = solve(argc, argv, ranks);
  cgm_dist_finalize();
  return rc;
}

/* ranks: of MPI_COMM_WORLD, 0 when MPI was not started. */
static int solve(int argc, char **argv, int ranks) {
  solve_args s;
  int rc = parse(argc, argv, &s);
  if (rc) return rc < 0 ? 0 : rc;
  if (s.partition_given && !s.mpi && ranks < 2)
    return cli_error("solve", 2, "--partition is for an MPI solve (mpirun -n P, or --mpi)");
  char dbpath[1024];
  cgm_run_solve_opts o;
  memset(&o, 0, sizeof o);
  o.matrix = s.matrix;
  o.rhs = s.rhs;
  o.db_path = cli_db_path(s.db, dbpath, sizeof dbpath);
  o.db_readonly = cli_env_db_readonly();
  const cli_input in[] = {
      {"the database", o.db_path}, {"the matrix", s.matrix}, {"the right-hand side", s.rhs}};
  if ((rc = cli_refuse_alias("solve", "-o", s.out, NULL, in, 3))) return rc;
  if (cli_parse_only) return 0;
  o.record = s.record;
  o.autotune = s.autotune;
  o.backend_default = !s.explicit_backend && cgm_have_cuda_build();
  o.constraints.backend_given = s.explicit_backend;
  o.constraints.backend = s.o.backend;
  o.iters_hint = s.iters_hint;
  o.constraints.precision_given = s.explicit_precision;
  o.constraints.precision = s.o.precision;
  o.solve = s.o;
  o.cache = cli_cache_opts(&s.cache);
  o.note = solve_note;
  o.note_ctx = &s;
  o.mpi = ranks > 1 || s.mpi;
  o.dist = s.dist;
  cgm_error err = {0};
  cgm_solve_report rep;
  cgm_status st = cgm_run_solve(&o, &rep, &err);
  if (!rep.solved) {
    rc = rep.auto_none ? cli_error("solve", 2, "--auto: %s", rep.why) : cli_report("solve", &err);
    cgm_solve_report_free(&rep);
    return rc;
  }
  if (s.json)
    rc = cli_print_json(cgm_solve_report_json(&rep));
  else
    print_human(&rep);
  if (st == CGM_ENOCONV) {
    cli_report("solve", &err);
    rc = 1;
  }
  if (s.out && st == CGM_OK && rep.x) { /* rank 0 alone holds x */
    if (cgm_mm_write_vector(s.out, rep.x, rep.nrows, &err)) rc = cli_report("solve", &err);
  }
  cgm_solve_report_free(&rep);
  return rc;
}
