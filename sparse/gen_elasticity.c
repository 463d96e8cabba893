/* SPDX-License-Identifier: GPL-3.0-or-later */
/* 3D linear elasticity (isotropic, E = 1, nu = 0.3) with trilinear (Q1) hexahedra on an n x n x n
 * grid of unit cubes. The nodes on x = 0 are clamped (their dofs dropped): free node (ix, iy, iz),
 * ix >= 1, is f = (ix - 1) + n (iy + (n + 1) iz), with dofs 3 f .. 3 f + 2. Every element is the
 * same cube, so its 24 x 24 matrix is computed once and each node's rows summed over its (up to 8)
 * elements, in parallel, no COO. The full 3 x 3 block of every pair of nodes sharing an element is
 * stored, zeros included: the matrix is exactly 3 x 3-block structured. */
#include "cgmodel/sparse.h"

#include <math.h>

#define NU 0.3
#define YOUNG 1.0

/* Ke (zeroed by the caller) for the unit cube, local node a = ax + 2 ay + 4 az (the same
 * lexicographic order as the global nodes), dof 3 a + component. */
static void element_matrix(double Ke[24][24]) {
  const double lambda = YOUNG * NU / ((1.0 + NU) * (1.0 - 2.0 * NU));
  const double mu = YOUNG / (2.0 * (1.0 + NU));
  const double g = 1.0 / sqrt(3.0);
  /* 2x2x2 Gauss is exact here (the integrand is quadratic per direction).
   * x = (xi + 1) / 2, so d/dx = 2 d/dxi and detJ = 1/8; weights are 1. */
  for (int gp = 0; gp < 8; gp++) {
    double xi[3] = {(gp & 1) ? g : -g, (gp & 2) ? g : -g, (gp & 4) ? g : -g};
    double dN[8][3];
    for (int a = 0; a < 8; a++) {
      double s[3] = {(a & 1) ? 1.0 : -1.0, (a & 2) ? 1.0 : -1.0, (a & 4) ? 1.0 : -1.0};
      double f[3];
      for (int d = 0; d < 3; d++) f[d] = 1.0 + s[d] * xi[d];
      dN[a][0] = 2.0 * 0.125 * s[0] * f[1] * f[2];
      dN[a][1] = 2.0 * 0.125 * f[0] * s[1] * f[2];
      dN[a][2] = 2.0 * 0.125 * f[0] * f[1] * s[2];
    }
    const double w = 0.125; /* detJ times the weight */
    /* B^T D B for isotropic D, written per pair of nodes:
     * K(ai, bj) = lambda dNa_i dNb_j + mu dNa_j dNb_i + mu delta_ij grad Na . grad Nb */
    for (int a = 0; a < 8; a++)
      for (int b = 0; b < 8; b++) {
        double dot = dN[a][0] * dN[b][0] + dN[a][1] * dN[b][1] + dN[a][2] * dN[b][2];
        for (int i = 0; i < 3; i++)
          for (int j = 0; j < 3; j++)
            Ke[3 * a + i][3 * b + j] += w * (lambda * dN[a][i] * dN[b][j] +
                                             mu * dN[a][j] * dN[b][i] + (i == j ? mu * dot : 0.0));
      }
  }
  /* Ke exactly symmetric makes the assembled matrix bit-symmetric (below);
   * entries zero analytically come out as rounding noise: flushed. */
  double kmax = 0.0;
  for (int r = 0; r < 24; r++)
    for (int c = 0; c < 24; c++) kmax = fmax(kmax, fabs(Ke[r][c]));
  for (int r = 0; r < 24; r++)
    for (int c = r; c < 24; c++) {
      double v = 0.5 * (Ke[r][c] + Ke[c][r]);
      if (fabs(v) < 1e-14 * kmax) v = 0.0;
      Ke[r][c] = Ke[c][r] = v;
    }
}

/* Neighbours of node coordinate p in [0, m] along one axis that are inside
 * [lo, m]: offsets -1..1. */
static inline int axis_count(int64_t p, int64_t lo, int64_t m) {
  return 1 + (p - 1 >= lo) + (p + 1 <= m);
}

cgm_status cgm_gen_elasticity3d(int32_t n, cgm_csr *A, cgm_error *err) {
  if (n < 1) return cgm_fail(err, CGM_EINPUT, "grid size must be >= 1 (got %d)", n);
  /* 3 n (n+1)^2 overflows int64 only far beyond the int32 limit checked next. */
  int64_t rows = n <= (1 << 20) ? 3 * (int64_t)n * ((int64_t)n + 1) * ((int64_t)n + 1) : -1;
  if (rows < 0 || rows > INT32_MAX)
    return cgm_fail(err, CGM_EINPUT,
                    "elasticity grid n = %d has more than 2^31 - 1 rows (3 n (n+1)^2)", n);
  const int64_t m = n;                    /* node coordinates run 0..m */
  const int64_t nfree = rows / 3;         /* free nodes */
  const int64_t sy = m, sz = m * (m + 1); /* free-node strides in y and z */

  /* Row lengths depend only on the node position: counted, then summed. */
  int64_t nnz = 0;
#pragma omp parallel for schedule(static) reduction(+ : nnz)
  for (int64_t f = 0; f < nfree; f++) {
    int64_t ix = f % m + 1, iy = (f / sy) % (m + 1), iz = f / sz;
    nnz += 9 * (int64_t)axis_count(ix, 1, m) * axis_count(iy, 0, m) * axis_count(iz, 0, m);
  }
  cgm_status st = cgm_csr_alloc(A, (int32_t)rows, (int32_t)rows, nnz, err);
  if (st) return st;
  for (int64_t f = 0; f < nfree; f++) {
    int64_t ix = f % m + 1, iy = (f / sy) % (m + 1), iz = f / sz;
    int64_t len = 3 * (int64_t)axis_count(ix, 1, m) * axis_count(iy, 0, m) * axis_count(iz, 0, m);
    for (int c = 0; c < 3; c++) A->rowptr[3 * f + c + 1] = A->rowptr[3 * f + c] + len;
  }

  double Ke[24][24] = {{0.0}};
  element_matrix(Ke);

#pragma omp parallel for schedule(static)
  for (int64_t f = 0; f < nfree; f++) {
    int64_t px = f % m + 1, py = (f / sy) % (m + 1), pz = f / sz;
    /* acc[s][c][d]: block of neighbour s = (dx+1) + 3 (dy+1) + 9 (dz+1). */
    double acc[27][3][3] = {{{0.0}}};
    /* Elements are visited in increasing global index, and each contributes
     * to (p, q) exactly the value it contributes to (q, p) (Ke symmetric), so
     * A(i,j) and A(j,i) are the same sums in the same order: bit-symmetric. */
    for (int64_t ez = pz - 1; ez <= pz; ez++) {
      if (ez < 0 || ez >= m) continue;
      for (int64_t ey = py - 1; ey <= py; ey++) {
        if (ey < 0 || ey >= m) continue;
        for (int64_t ex = px - 1; ex <= px; ex++) {
          if (ex < 0 || ex >= m) continue;
          int a = (int)((px - ex) + 2 * (py - ey) + 4 * (pz - ez));
          for (int b = 0; b < 8; b++) {
            int64_t qx = ex + (b & 1);
            if (qx == 0) continue; /* clamped */
            int64_t qy = ey + ((b >> 1) & 1), qz = ez + ((b >> 2) & 1);
            int s = (int)((qx - px + 1) + 3 * (qy - py + 1) + 9 * (qz - pz + 1));
            for (int c = 0; c < 3; c++)
              for (int d = 0; d < 3; d++) acc[s][c][d] += Ke[3 * a + c][3 * b + d];
          }
        }
      }
    }
    /* Neighbour slots in increasing s are increasing free-node numbers (z,
     * then y, then x major), so each row comes out with sorted columns. */
    for (int c = 0; c < 3; c++) {
      int64_t p = A->rowptr[3 * f + c];
      for (int s = 0; s < 27; s++) {
        int64_t qx = px + s % 3 - 1, qy = py + (s / 3) % 3 - 1, qz = pz + s / 9 - 1;
        if (qx < 1 || qx > m || qy < 0 || qy > m || qz < 0 || qz > m) continue;
        int64_t fq = (qx - 1) + sy * qy + sz * qz;
        for (int d = 0; d < 3; d++) {
          A->colidx[p] = (int32_t)(3 * fq + d);
          A->val[p] = acc[s][c][d];
          p++;
        }
      }
    }
  }
  return CGM_OK;
}
