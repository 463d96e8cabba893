/* cgmodel solve A.mtx [...]: Jacobi-PCG on the chosen backend. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sys/stat.h>

#include "cgmodel/pipeline.h"
#include "cli/args.h"
#include "cli/commands.h"
#include "cli/env.h"
#include "cli/dbopen.h"
#include "cli/output.h"

static const char help[] =
    "usage: cgmodel solve A.mtx [options]\n"
    "  --rhs b.mtx            right-hand side (default: b = A * ones, so x = ones)\n"
    "  --backend B            cpu | cuda | cusparse (default: cuda when a GPU is present)\n"
    "  --block N              BCSR block size 1, 2, 4 or 8 (default 1)\n"
    "  --bx K                 blocks of one block row per step, B_x (default: per matrix)\n"
    "  --gpus G               number of GPUs (cuda backend, default 1)\n"
    "  --exchange E           halo | p2p | host | nccl (several GPUs; default halo)\n"
    "  --precision P          double | single (default double)\n"
    "  --tol T                relative residual target (default 1e-8 double, 1e-5 single)\n"
    "  --maxiter K            iteration cap (default 10 x dimension, at least 1000)\n"
    "  --check-every K        GPU: test convergence every K iterations\n"
    "  --threads T            CPU threads (default: OpenMP's)\n"
    "  -o x.mtx               write the solution\n"
    "  --auto                 let the tuner pick backend, block size, GPUs and precision\n"
    "                         (needs a calibration: cgmodel calibrate)\n"
    "  --db FILE              database for the prediction and the record of this solve\n"
    "                         (solves are recorded once a database exists: calibrate makes it)\n"
    "  --no-record            do not store this solve in the database\n"
    "  --json                 one JSON object on stdout\n"
    "Exit codes: 0 converged, 1 not converged (maxiter, breakdown, not SPD), 2 bad input,\n"
    "3 device or runtime failure.\n";

typedef struct {
  const char *matrix, *rhs, *out, *db;
  int json, autotune, record, explicit_backend, explicit_precision;
  const char *layout_option; /* the first of --block, --bx, --gpus, --exchange given */
  cgm_solve_opts o;
} solve_args;

static int parse(int argc, char **argv, solve_args *s) {
  cli_args a;
  cli_args_init(&a, argc - 1, argv + 1);
  memset(s, 0, sizeof *s);
  s->record = 1;
  s->o = cgm_solve_opts_default();
  s->o.backend = cgm_cuda_device_count() > 0 ? CGM_BACKEND_CUDA : CGM_BACKEND_CPU;
  int64_t v;
  double d;
  while (cli_next(&a)) {
    if (cli_flag(&a, "--json"))
      s->json = 1;
    else if (cli_flag(&a, "--auto"))
      s->autotune = 1;
    else if (cli_flag(&a, "--no-record"))
      s->record = 0;
    else if (cli_opt(&a, "--db"))
      s->db = a.value;
    else if (cli_flag(&a, "--help") || cli_flag(&a, "-h")) {
      fputs(help, stdout);
      return -1;
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
        return cli_error("solve", 2, "--precision: '%s' is not single or double", a.value);
    } else if (cli_opt(&a, "--exchange")) {
      if (!s->layout_option) s->layout_option = "--exchange";
      if (!cgm_exchange_parse(a.value, &s->o.exchange))
        return cli_error("solve", 2, "--exchange: '%s' is not nccl, p2p, host or halo", a.value);
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
    else if (cli_int(&a, "--threads", 1, 4096, &v))
      s->o.threads = (int)v;
    else if (cli_double(&a, "--tol", 1e-300, 1.0, &d))
      s->o.tol = d;
    else
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
  s->matrix = a.positional[0];
  return 0;
}

static void print_human(const solve_args *s, const cgm_csr *A, const cgm_solve_result *r,
                        double tol, double solution_error) {
  printf("matrix      %s (%d x %d, %lld nonzeros)\n", s->matrix, A->nrows, A->ncols,
         (long long)A->nnz);
  printf("backend     %s on %s, %s precision, block %d x %d, B_x %d\n",
         cgm_backend_name(s->o.backend), r->device, cgm_precision_name(s->o.precision),
         s->o.layout.n, s->o.layout.n, s->o.layout.bx);
  if (r->converged)
    printf("converged   yes, %d iterations\n", r->iterations);
  else
    printf("converged   NO after %d iterations: %s\n", r->iterations, r->stop_reason);
  printf("residual    ||b - Ax|| / ||b|| = %.3e (solver estimate %.3e, target %.1e)\n",
         r->relative_residual, r->solver_residual, tol);
  if (solution_error >= 0)
    printf("error       ||x - 1|| / ||1|| = %.3e (b = A * ones)\n", solution_error);
  printf("time        %.3f us per iteration (median), %.3f ms solve, %.3f ms setup\n",
         1e6 * r->time_per_iter_s, 1e3 * r->time_solve_s, 1e3 * r->time_setup_s);
}

/* This machine's calibrated devices (CPU, and GPUs of a calibrated model). */
static int local_devices(cgm_tuner_device *devs, int ndev, int *cpu, int *gpu) {
  cgm_db_device d;
  cgm_error e = {0};
  *cpu = *gpu = -1;
  if (!cgm_describe_cpu(&d, 0, &e)) *cpu = cgm_find_device(devs, ndev, true, d.model);
  if (cgm_cuda_device_count() > 0 && !cgm_describe_cuda(0, &d, &e)) {
    *gpu = cgm_find_device(devs, ndev, false, d.model);
    if (*gpu >= 0 && devs[*gpu].gpus > cgm_cuda_device_count())
      devs[*gpu].gpus = cgm_cuda_device_count();
  }
  return 0;
}

/* --auto: the tuner's choice among this machine's calibrated devices. */
static int autotune(solve_args *s, const cgm_csr *A, const cgm_features *f, cgm_tuner_device *devs,
                    int ndev, char *why, size_t nwhy) {
  int cpu, gpu;
  local_devices(devs, ndev, &cpu, &gpu);
  cgm_tuner_device local[2];
  int nl = 0;
  if (gpu >= 0 && (!s->explicit_backend || s->o.backend != CGM_BACKEND_CPU))
    local[nl++] = devs[gpu];
  if (cpu >= 0 && (!s->explicit_backend || s->o.backend == CGM_BACKEND_CPU))
    local[nl++] = devs[cpu];
  if (nl == 0)
    return cli_error(
        "solve", 2,
        "--auto: no calibration of this machine's devices; run 'cgmodel calibrate' first");
  cgm_tuner_opts to = cgm_tuner_opts_default();
  to.precisions = s->explicit_precision ? 1u << s->o.precision : 3u;
  to.exchanges = (1u << CGM_EXCHANGE_HALO) | (1u << CGM_EXCHANGE_P2P);
  cgm_candidate *c = NULL;
  int nc = 0;
  cgm_error err = {0};
  if (cgm_tuner_candidates(A, f, local, nl, &to, &c, &nc, &err)) return cli_report("solve", &err);
  int best = cgm_tuner_choose(c, nc, local, why, nwhy);
  if (best < 0) {
    free(c);
    return cli_error("solve", 2, "--auto: %s", why);
  }
  s->o.backend = c[best].backend;
  s->o.precision = c[best].precision;
  s->o.layout = cgm_plan_layout_params(A, c[best].block, c[best].gpus > 0 ? c[best].gpus : 1);
  s->o.gpus = c[best].gpus > 0 ? c[best].gpus : 1;
  s->o.exchange = c[best].exchange;
  free(c);
  return 0;
}

int cmd_solve(int argc, char **argv) {
  solve_args s;
  int rc = parse(argc, argv, &s);
  if (rc) return rc < 0 ? 0 : rc;

  cgm_error err = {0};
  cgm_csr A;
  if (cgm_mm_read_csr(s.matrix, &A, NULL, &err)) return cli_report("solve", &err);
  cgm_plan_layout_resolve(&s.o.layout, &A, s.o.gpus); /* shown and recorded as run */
  double *b = NULL, *x = calloc((size_t)A.nrows + 1, sizeof *x);
  int generated_rhs = !s.rhs;
  if (!x) {
    cgm_csr_free(&A);
    return cli_error("solve", 3, "out of memory");
  }
  if (s.rhs) {
    int32_t nb;
    if (cgm_mm_read_vector(s.rhs, &b, &nb, &err)) {
      rc = cli_report("solve", &err);
      goto out;
    }
    if (nb != A.nrows) {
      rc = cli_error("solve", 2, "%s has %d entries but %s has %d rows", s.rhs, nb, s.matrix,
                     A.nrows);
      goto out;
    }
  } else {
    double *ones = malloc(((size_t)A.ncols + 1) * sizeof *ones);
    b = malloc(((size_t)A.nrows + 1) * sizeof *b);
    if (!ones || !b) {
      free(ones);
      rc = cli_error("solve", 3, "out of memory");
      goto out;
    }
    for (int32_t i = 0; i < A.ncols; i++) ones[i] = 1.0;
    cgm_csr_spmv(&A, ones, b);
    free(ones);
  }

  /* The database: the calibration for --auto and the prediction, and the
   * record of this solve. Solves are recorded once a database exists
   * (calibrate creates it); a solve never creates one. */
  cgm_db *db = NULL;
  cgm_tuner_device *devs = NULL;
  int ndev = 0;
  cgm_features f;
  char why[512] = "";
  double predicted = NAN;
  int64_t cal_id = 0;
  if ((s.record || s.autotune) && cgm_plan_features(&A, &f, &err) == CGM_OK) {
    int need = s.autotune;
    char dbpath[1024];
    struct stat sbuf;
    const char *p = s.db ? s.db : cgm_db_default_path(dbpath, sizeof dbpath);
    if (need || stat(p, &sbuf) == 0) {
      rc = cli_db_open("solve", s.db, false, &db);
      if (rc && need) goto out;
      rc = 0;
    }
    if (db && cgm_load_devices(db, NULL, &devs, &ndev, &err)) {
      if (need) {
        rc = cli_report("solve", &err);
        goto out;
      }
      ndev = 0;
    }
    if (s.autotune && (rc = autotune(&s, &A, &f, devs, ndev, why, sizeof why))) goto out;
    int cpu, gpu;
    local_devices(devs, ndev, &cpu, &gpu);
    int d = s.o.backend == CGM_BACKEND_CPU ? cpu : gpu;
    /* Our kernels' prediction from a calibration of another CG. */
    if (d >= 0 && s.o.backend == CGM_BACKEND_CUDA)
      cli_warn_stale_cg("solve", &devs[d], 1, &s.o.gpu);
    if (d >= 0 && s.o.threads <= 0) {
      cgm_error e2 = {0};
      cgm_solve_opts po = s.o;
      (void)cgm_bcsr_params_check(&po.layout, &e2);
      if (cgm_predict_config(&A, &f, &devs[d], &po, &predicted, &e2) == CGM_OK &&
          isfinite(predicted))
        cal_id = devs[d].calibration_id;
    }
    if (s.autotune && !s.json) fprintf(stderr, "cgmodel solve --auto: %s\n", why);
  } else if (s.autotune) {
    rc = cli_report("solve", &err);
    goto out;
  }

  cgm_solve_result r;
  cgm_status st = cgm_solve(&A, b, x, &s.o, &r, &err);
  if (st != CGM_OK && st != CGM_ENOCONV) {
    rc = cli_report("solve", &err);
    goto out;
  }
  double solution_error = -1.0;
  if (generated_rhs && A.nrows == A.ncols) {
    double e2 = 0.0;
    for (int32_t i = 0; i < A.nrows; i++) e2 += (x[i] - 1.0) * (x[i] - 1.0);
    solution_error = sqrt(e2 / A.nrows);
  }
  double tol = cgm_solve_tol(&s.o);
  if (db && s.record) {
    struct stat sb;
    const char *name = strrchr(s.matrix, '/') ? strrchr(s.matrix, '/') + 1 : s.matrix;
    cgm_error e2 = {0};
    if (cgm_record_solve(db, name, s.matrix, stat(s.matrix, &sb) == 0 ? (int64_t)sb.st_size : 0, &f,
                         &s.o, &r, predicted, cal_id, &e2))
      fprintf(stderr, "cgmodel solve: warning: the solve was not recorded: %s\n", e2.msg);
  }
  if (s.json) {
    cJSON *j = cli_solve_json(&r, &s.o, tol, cgm_solve_maxiter(&s.o, A.nrows));
    cJSON_AddStringToObject(j, "matrix", s.matrix);
    if (isfinite(predicted)) cJSON_AddNumberToObject(j, "predicted_time_per_iter_s", predicted);
    if (s.autotune) cJSON_AddStringToObject(j, "auto", why);
    if (solution_error >= 0) cJSON_AddNumberToObject(j, "solution_error", solution_error);
    rc = cli_print_json(j);
  } else {
    print_human(&s, &A, &r, tol, solution_error);
    if (isfinite(predicted))
      printf("predicted   %.3f us per iteration (%+.1f%% against the measured time)\n",
             1e6 * predicted, 100.0 * (predicted / r.time_per_iter_s - 1.0));
  }
  if (st == CGM_ENOCONV) {
    cli_report("solve", &err);
    rc = 1;
  }
  if (s.out && st == CGM_OK) {
    if (cgm_mm_write_vector(s.out, x, A.nrows, &err)) rc = cli_report("solve", &err);
  }
out:
  free(devs);
  if (db) cgm_db_close(db);
  free(b);
  free(x);
  cgm_csr_free(&A);
  return rc;
}
