/* SPDX-License-Identifier: GPL-3.0-or-later */
/* One thread chasing pointers through an array of 128-byte lines, timed in chunks by the GPU's
 * clock (%globaltimer) and its SM cycle counter: the SM clock (cycles per ns) and the latency of a
 * step, alone or beside another process's work (docs/calibration.md, "Each sample less the other
 * process's turns"). A chunk with another process's turn in it is slow in both; the low decile is
 * the step's latency, the median says how often the lines were cold.
 * usage: latency_chase MB CHUNKS STEPS   (8 MB: L2-resident on an H200; 512 MB: its HBM) */
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

__global__ void chase(const unsigned *next, int chunks, int steps, unsigned long long *out) {
  unsigned p = 0;
  for (int c = 0; c < chunks; c++) {
    unsigned long long t0, t1;
    const long long c0 = clock64();
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
    for (int s = 0; s < steps; s++) p = next[p];
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t1));
    const long long c1 = clock64();
    out[3 * c] = t1 - t0, out[3 * c + 1] = c1 - c0, out[3 * c + 2] = t0;
  }
  if (p == 0xffffffffu) out[0] = 0; /* keeps the chase */
}

static double quantile(std::vector<double> v, double f) {
  std::sort(v.begin(), v.end());
  return v[(size_t)(f * (double)(v.size() - 1))];
}

#define CHECK(call)                                                                                \
  do {                                                                                             \
    const cudaError_t e_ = (call);                                                                 \
    if (e_ != cudaSuccess) {                                                                       \
      fprintf(stderr, "latency_chase: %s: %s\n", #call, cudaGetErrorString(e_));                   \
      return 1;                                                                                    \
    }                                                                                              \
  } while (0)

int main(int argc, char **argv) {
  if (argc != 4) {
    fprintf(stderr, "usage: latency_chase MB CHUNKS STEPS\n");
    return 2;
  }
  const size_t n = (size_t)(atof(argv[1]) * 1e6 / 128); /* one element a line */
  const int chunks = atoi(argv[2]), steps = atoi(argv[3]);
  if (n < 2 || chunks < 1 || steps < 1) return 2;
  std::vector<unsigned> perm(n), next(n * 32);
  for (size_t i = 0; i < n; i++) perm[i] = (unsigned)i;
  std::shuffle(perm.begin(), perm.end(), std::mt19937_64(1)); /* one cycle through every line */
  for (size_t i = 0; i < n; i++) next[perm[i] * 32] = perm[(i + 1) % n] * 32;
  unsigned *d = nullptr;
  unsigned long long *o = nullptr;
  CHECK(cudaMalloc(&d, next.size() * sizeof(unsigned)));
  CHECK(cudaMalloc(&o, 3 * (size_t)chunks * sizeof *o));
  CHECK(cudaMemcpy(d, next.data(), next.size() * sizeof(unsigned), cudaMemcpyHostToDevice));
  chase<<<1, 1>>>(d, chunks < 20 ? chunks : 20, steps, o); /* warm-up */
  CHECK(cudaGetLastError());
  chase<<<1, 1>>>(d, chunks, steps, o);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  std::vector<unsigned long long> h(3 * (size_t)chunks);
  CHECK(cudaMemcpy(h.data(), o, h.size() * sizeof *o, cudaMemcpyDeviceToHost));
  std::vector<double> ns, cyc, mhz;
  for (int c = 0; c < chunks; c++) {
    ns.push_back((double)h[3 * c] / steps), cyc.push_back((double)h[3 * c + 1] / steps);
    mhz.push_back((double)h[3 * c + 1] / (double)h[3 * c] * 1e3);
  }
  printf("%.3g MB chunks %d steps %d: ns/step p10 %.1f p50 %.1f p90 %.1f | cycles/step p10 %.0f "
         "p50 %.0f p90 %.0f | MHz p10 %.0f p50 %.0f p90 %.0f | span %.2f s\n",
         n * 128 / 1e6, chunks, steps, quantile(ns, .1), quantile(ns, .5), quantile(ns, .9),
         quantile(cyc, .1), quantile(cyc, .5), quantile(cyc, .9), quantile(mhz, .1),
         quantile(mhz, .5), quantile(mhz, .9), (double)(h[3 * (chunks - 1) + 2] - h[2]) * 1e-9);
  /* where the chunks lie: an L2 hit's latency, a miss's, and a chunk with a turn in it */
  const double edges[] = {0, 1.2 * quantile(ns, 0), 250, 500, 1000, 1e30};
  printf("  chunks by ns/step:");
  for (int k = 0; k < 5; k++)
    printf(" [%.0f,%.0f) %zd", edges[k], edges[k + 1] > 1e29 ? INFINITY : edges[k + 1],
           std::count_if(ns.begin(), ns.end(),
                         [&](double v) { return v >= edges[k] && v < edges[k + 1]; }));
  printf("\n");
  CHECK(cudaFree(d));
  CHECK(cudaFree(o));
  return 0;
}
