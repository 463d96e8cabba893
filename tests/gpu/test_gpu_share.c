/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The GPU's share (cgm_mb_gpu_share): in (0, 1] whatever else runs, and under CGM_BUSY_SHARE while
 * a second process keeps the GPU busy (its own probe, spinning 6 s: the two contexts take turns).
 * A calibration's solve sample beside it (share_watch) sees its share under CGM_BUSY_SHARE and
 * times its graphs, 4 ms each (longer than a turn), within 25% of the same sample alone: less the
 * other's turns, not twice as long. Then a GPU solve of a fixed count reports the low decile of its
 * graphs' own times, above zero and at most their median. Skipped (77) without a GPU. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cgmodel/calibrate.h"
#include "cgmodel/solver.h"
#include "cgmodel/sparse.h"
#include "microbench/microbench.h"
#include "microbench/sweep_plan.h"
#include "test_util.h"

int main(void) {
  cgm_error err = {0};
  cgm_csr A, P;
  if (cgm_gen_poisson3d(24, &A, &err) || cgm_gen_poisson3d(128, &P, &err)) return 1;
  int fd[2];
  if (pipe(fd) != 0) return 1;
  const pid_t child = fork(); /* before this process touches CUDA: a context does not fork */
  if (child < 0) return 1;
  if (child == 0) {
    close(fd[0]);
    char c = cgm_cuda_device_count() > 0 ? 'y' : 'n';
    if (c == 'y') (void)cgm_mb_gpu_share(0, 0.01); /* its context made, then the signal */
    if (write(fd[1], &c, 1) != 1) _exit(1);
    if (c == 'y') (void)cgm_mb_gpu_share(0, 6.0);
    _exit(0);
  }
  close(fd[1]); /* a child that dies before it writes: read() sees the end */
  char c = 'n';
  CHECK(read(fd[0], &c, 1) == 1);
  if (c != 'y') {
    waitpid(child, NULL, 0);
    fprintf(stderr, "no GPU: skipped\n");
    return CGM_TEST_SKIP;
  }
  const double beside = cgm_mb_gpu_share(0, 0.3);
  cgm_solve_opts o = cgm_mb_solve_opts();
  o.backend = CGM_BACKEND_CUDA;
  o.precision = CGM_PREC_DOUBLE;
  cgm_solve_result pb = {0}, pq = {0}, r = {0};
  CHECK_OK(mb_solve_timed(&P, &o, 288, &pb, NULL, &err));
  int status = 0;
  CHECK(waitpid(child, &status, 0) == child && WIFEXITED(status) && WEXITSTATUS(status) == 0);
  const double alone = cgm_mb_gpu_share(0, 0.1);
  CHECK_OK(mb_solve_timed(&P, &o, 288, &pq, NULL, &err));
  fprintf(stderr, "GPU share: %.3f alone, %.3f beside a process spinning on it\n", alone, beside);
  fprintf(stderr, "Poisson 128^3: %.1f us an iteration beside it (share %.3f), %.1f alone (%.3f)\n",
          1e6 * pb.time_per_iter_s, pb.gpu_share, 1e6 * pq.time_per_iter_s, pq.gpu_share);
  CHECK_MSG(alone > 0 && alone <= 1, "alone %g", alone); /* other users' processes may share it */
  CHECK_MSG(beside > 0 && beside < CGM_BUSY_SHARE && beside < alone, "beside %g", beside);
  CHECK_MSG(pb.gpu_share > 0 && pb.gpu_share < CGM_BUSY_SHARE, "share %g", pb.gpu_share);
  CHECK_MSG(pq.time_per_iter_s > 0 && pb.time_per_iter_s < 1.25 * pq.time_per_iter_s, "%g, %g",
            pb.time_per_iter_s, pq.time_per_iter_s);

  CHECK_OK(mb_solve_timed(&A, &o, 128, &r, NULL, &err));
  CHECK_MSG(r.iterations > 32, "%d iterations", r.iterations); /* a graph timed past the warm-up */
  CHECK_MSG(r.time_per_iter_low_s > 0 && r.time_per_iter_s == r.time_per_iter_low_s,
            "low %g, reported %g", r.time_per_iter_low_s, r.time_per_iter_s);
  cgm_solve_result u = {0}; /* the user's solve: the median, at least the low decile */
  double *b = calloc((size_t)A.nrows, sizeof *b), *x = calloc((size_t)A.nrows, sizeof *x);
  CHECK(b && x);
  for (int32_t i = 0; i < A.nrows; i++) b[i] = 1.0 + (i % 7);
  o.tol = 1e-10;
  cgm_status st = cgm_solve(&A, b, x, &o, &u, &err);
  CHECK_MSG(st == CGM_OK, "%s", err.msg);
  CHECK_MSG(u.time_per_iter_low_s > 0 && u.time_per_iter_low_s <= u.time_per_iter_s * 1.0001,
            "low %g, median %g", u.time_per_iter_low_s, u.time_per_iter_s);
  free(b), free(x);
  cgm_csr_free(&A), cgm_csr_free(&P);
  TEST_MAIN_END();
}
