/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The fills of the CUDA solver's staged uploads (kernels/stage.c; CUDA builds,
 * no GPU needed): a slice of a vector from row r0 with the padding past n, in
 * doubles and in floats; 1 / A's diagonal (infinite where a row has none);
 * a fill in pieces equal to one fill of the whole; the zero test of x0. */
#include <math.h>
#include <stdlib.h>

#include "kernels/stage.h"
#include "test_util.h"

int main(void) {
  enum { N = 1000, R0 = 300, ROWS = 800 }; /* rows 300..1099 of 1000: 100 past the end */
  double *v = malloc(N * sizeof *v), *out = malloc(ROWS * sizeof *out);
  float *outf = malloc(ROWS * sizeof *outf);
  CHECK(v && out && outf);
  for (int i = 0; i < N; i++) v[i] = 0.1 * i - 7.0;
  const cgm_stage_rows_src sv = {v, NULL, R0, N, -2.5, 0}, sf = {v, NULL, R0, N, -2.5, 1};
  cgm_stage_rows(out, 0, ROWS, &sv);
  cgm_stage_rows(outf, 0, ROWS, &sf);
  for (int i = 0; i < ROWS; i++) {
    const double want = R0 + i < N ? v[R0 + i] : -2.5;
    CHECK_MSG(out[i] == want && outf[i] == (float)want, "row %d: %g, %g, want %g", R0 + i, out[i],
              (double)outf[i], want);
  }
  /* in pieces (the staging buffers' fills), across the end of the vector: the same entries */
  for (size_t first = 0; first < ROWS; first += 77) {
    const size_t c = ROWS - first < 77 ? ROWS - first : 77;
    double piece[77];
    float piecef[77];
    cgm_stage_rows(piece, first, c, &sv);
    cgm_stage_rows(piecef, first, c, &sf);
    for (size_t i = 0; i < c; i++)
      CHECK(piece[i] == out[first + i] && piecef[i] == outf[first + i]);
  }
  /* 1 / diagonal of a 4 x 4 matrix whose row 2 has no diagonal entry; pad 1 past n */
  const int64_t rowptr[] = {0, 2, 4, 5, 7};
  int32_t colidx[] = {0, 1, 0, 1, 3, 2, 3};
  double val[] = {4.0, -1.0, -1.0, 8.0, 2.0, 3.0, -0.5};
  const cgm_csr A = {
      .nrows = 4, .ncols = 4, .nnz = 7, .rowptr = (int64_t *)rowptr, .colidx = colidx, .val = val};
  const cgm_stage_rows_src sd = {NULL, &A, 1, 4, 1.0, 0};
  double d[5];
  cgm_stage_rows(d, 0, 5, &sd);                /* rows 1, 2, 3, then two past the end */
  for (size_t first = 1; first < 5; first++) { /* from row 1 + first, past the end too */
    float df[4];
    const cgm_stage_rows_src sdf = {NULL, &A, 1, 4, 1.0, 1};
    cgm_stage_rows(df, first, 5 - first, &sdf);
    for (size_t i = 0; i < 5 - first; i++)
      CHECK_MSG(df[i] == (float)d[first + i] || (isinf(df[i]) && isinf(d[first + i])),
                "1/diag from %zu: %g", first, (double)df[i]);
  }
  CHECK_MSG(d[0] == 1.0 / 8.0 && isinf(d[1]) && d[1] > 0 && d[2] == 1.0 / -0.5 && d[3] == 1.0 &&
                d[4] == 1.0,
            "1/diag: %g %g %g %g %g", d[0], d[1], d[2], d[3], d[4]);
  CHECK(!cgm_stage_all_zero(v, N));
  for (int i = 0; i < N; i++) v[i] = i % 2 ? 0.0 : -0.0;
  CHECK(cgm_stage_all_zero(v, N));
  v[N - 1] = 1e-300;
  CHECK(!cgm_stage_all_zero(v, N));
  free(v), free(out), free(outf);
  TEST_MAIN_END();
}
